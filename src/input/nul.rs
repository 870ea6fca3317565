//! NUL padding with a bound. PGN files carry NUL bytes as padding (a
//! sector's end, a file preallocated a little larger), and the splitter
//! skips them between games without holding them. A run of
//! [`NUL_RUN_LIMIT`] of them is no padding: it is a device that never
//! ends (`/dev/zero`), or a hole where a file was never written (a
//! download cut short, a missing piece of a torrent). Either way the text
//! that should be there is not, so the source ends there with a read
//! error instead of being read for ever or passed off as whole.

use std::io::{self, Read};

/// The most NUL bytes in a row a source may hold: 1 MiB, far more than
/// any padding, and less than the smallest piece a download tool misses.
pub const NUL_RUN_LIMIT: u64 = 1 << 20;

/// The read error of a run of [`NUL_RUN_LIMIT`] NUL bytes. Where it
/// starts is the source's `bytes` less the limit; the message does not
/// say it, so that a piece of the source says what the whole source says.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error(
    "{} MiB of NUL bytes in a row: not PGN text (a device such as /dev/zero, or a part of a file that was never written)",
    NUL_RUN_LIMIT >> 20
)]
pub struct NulRun;

impl NulRun {
    /// Whether `e` is a [`NulRun`].
    pub fn is(e: &io::Error) -> bool {
        e.get_ref().is_some_and(|inner| inner.is::<NulRun>())
    }
}

/// Passes the bytes of `inner` on, up to the [`NUL_RUN_LIMIT`]-th NUL byte
/// of a run; the read after it fails with [`NulRun`]. Where the error
/// falls depends on the bytes only, never on how they were read, so the
/// reports are the same at any thread count.
pub(crate) struct NulRuns<R> {
    inner: R,
    /// NUL bytes in a row at the end of what was passed on.
    run: u64,
}

impl<R> NulRuns<R> {
    pub(crate) fn new(inner: R) -> NulRuns<R> {
        NulRuns { inner, run: 0 }
    }

    /// `inner` after bytes that ended in `run` NUL bytes.
    pub(crate) fn after(inner: R, run: u64) -> NulRuns<R> {
        NulRuns { inner, run }
    }
}

/// The count of NUL bytes in a row at the end of the bytes passed on, as
/// [`NulRuns`] keeps it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct NulCount {
    pub(crate) run: u64,
}

impl NulCount {
    /// Whether the run reached the limit: the next read fails.
    pub(crate) fn at_limit(self) -> bool {
        self.run == NUL_RUN_LIMIT
    }

    /// How many bytes of `chunk` (read after what was passed on; at most
    /// [`NUL_RUN_LIMIT`] of them) pass: all of them, or those up to the
    /// limit-th NUL byte of a run.
    pub(crate) fn pass(&mut self, chunk: &[u8]) -> usize {
        let n = chunk.len();
        let left = NUL_RUN_LIMIT - self.run;
        match chunk.iter().position(|&b| b != 0) {
            Some(lead) if (lead as u64) < left => {
                let tail = chunk.iter().rev().take_while(|&&b| b == 0).count();
                self.run = tail as u64;
                n
            }
            // The run reaches the limit within this read: it is passed on
            // up to there.
            _ if (n as u64) >= left => {
                self.run = NUL_RUN_LIMIT;
                usize::try_from(left).unwrap_or(n)
            }
            _ => {
                self.run += n as u64;
                n
            }
        }
    }
}

impl<R: Read> Read for NulRuns<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.run == NUL_RUN_LIMIT {
            return Err(io::Error::new(io::ErrorKind::InvalidData, NulRun));
        }
        // Reads of at most the limit: a run inside one that touches
        // neither of its ends is then shorter than the limit, and only its
        // first and last bytes need looking at (text has no NUL there).
        let most = buf
            .len()
            .min(usize::try_from(NUL_RUN_LIMIT).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..most])?;
        let mut count = NulCount { run: self.run };
        let passed = count.pass(&buf[..n]);
        self.run = count.run;
        Ok(passed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything `bytes` passes through [`NulRuns`] in reads of `size`
    /// bytes, and whether a run stopped it.
    fn through(bytes: &[u8], size: usize) -> (Vec<u8>, bool) {
        let mut r = NulRuns::new(io::Cursor::new(bytes));
        let mut out = Vec::new();
        let mut buf = vec![0; size];
        loop {
            match r.read(&mut buf) {
                Ok(0) => return (out, false),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => {
                    assert!(NulRun::is(&e), "{e}");
                    return (out, true);
                }
            }
        }
    }

    #[test]
    fn a_run_at_the_limit_stops_where_it_reaches_it_at_any_read_size() {
        let limit = usize::try_from(NUL_RUN_LIMIT).unwrap();
        let mut bytes = b"1. e4 *\n".to_vec();
        bytes.extend(vec![0; limit - 1]);
        bytes.extend(b"\n");
        bytes.extend(vec![0; limit + 5]);
        bytes.extend(b"1. d4 *\n");
        // The second run starts after the first line, the first run and
        // its line end.
        let second = 8 + limit;
        for size in [1, 7, 4096, limit - 1, limit, limit + 3, 3 * limit] {
            let (out, run) = through(&bytes, size);
            assert!(run, "reads of {size}");
            assert_eq!(out.len(), second + limit, "reads of {size}");
            assert!(out == bytes[..second + limit], "reads of {size}");
        }
    }

    #[test]
    fn padding_below_the_limit_passes() {
        let limit = usize::try_from(NUL_RUN_LIMIT).unwrap();
        let mut bytes = vec![0; limit - 1];
        bytes.extend(b"[Event \"x\"]\n\n1. e4 *\n");
        bytes.extend(vec![0; limit - 1]);
        for size in [3, 1 << 16, 2 * limit] {
            let (out, run) = through(&bytes, size);
            assert!(!run && out == bytes, "reads of {size}");
        }
    }
}
