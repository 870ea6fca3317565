//! A FIFO named as an input, opened and read so that a run that is
//! stopped is never held by it: opened without waiting for a writer, and
//! read only once `poll` says that it holds bytes or that its writers are
//! gone, the stop flag looked at between polls. A stopped run reads no
//! more of it, so the thread that reads it ends, and the next run of the
//! same FIFO (in the same process: the Python package) reads it whole.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

/// How long a read waits for the FIFO before it looks at the stop flag.
const POLL: Timespec = Timespec {
    tv_sec: 0,
    tv_nsec: 50_000_000,
};

/// A FIFO opened for reading.
pub(crate) struct Fifo {
    file: File,
    stop: Arc<AtomicBool>,
}

impl Fifo {
    /// Opens the FIFO at `path` at once, writer or not; `stop` set ends
    /// its reading as its end does.
    pub(crate) fn open(path: &Path, stop: Arc<AtomicBool>) -> io::Result<Fifo> {
        let nonblocking = rustix::fs::OFlags::NONBLOCK.bits();
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(i32::try_from(nonblocking).unwrap_or(i32::MAX))
            .open(path)?;
        Ok(Fifo { file, stop })
    }
}

impl Read for Fifo {
    /// Waits until the FIFO holds bytes or has had writers that are all
    /// gone (its end), or the run stops (read as its end too: the run
    /// counts what it read before).
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Ok(0);
            }
            // Before a first writer comes, Linux reports no event (a
            // read would say 0, an end): the wait goes on.
            let mut fds = [PollFd::new(&self.file, PollFlags::IN)];
            match poll(&mut fds, Some(&POLL)) {
                Ok(0) | Err(rustix::io::Errno::INTR) => continue,
                Ok(_) => {}
                Err(e) => return Err(e.into()),
            }
            match self.file.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                read => return read,
            }
        }
    }
}
