//! Running the binary with a streamed standard input and reading its peak
//! resident memory.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};

/// What one run of the binary left: exit status, standard error, and peak
/// resident memory in KiB (`ru_maxrss` of this child alone, from `wait4`).
pub struct Ran {
    pub status: Option<i32>,
    pub stderr: String,
    pub peak_kib: u64,
}

impl Ran {
    pub fn peak_mib(&self) -> u64 {
        self.peak_kib / 1024
    }

    /// Asserts the peak RSS is at most `mib` MiB.
    pub fn assert_peak_at_most(&self, mib: u64) {
        assert!(
            self.peak_mib() <= mib,
            "peak RSS {} MiB > {mib} MiB; stderr: {}",
            self.peak_mib(),
            self.stderr
        );
    }
}

/// The memory bound the README states, for a run at -j2.
pub const PEAK_MIB: u64 = 100;

/// Runs `cmd`, feeding its standard input from `feed` on a thread (a broken
/// pipe there is not an error: the child may stop reading), and waits for
/// it with `wait4` to read its own peak RSS.
pub fn run_measured(
    mut cmd: Command,
    feed: Option<Box<dyn FnOnce(&mut ChildStdin) -> std::io::Result<()> + Send>>,
) -> Ran {
    cmd.stdin(if feed.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn pgn-audit");
    let feeder = feed.map(|f| {
        let mut stdin = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            let _ = f(&mut stdin);
        })
    });
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a plain FFI call on our own child's pid with valid pointers.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    if let Some(f) = feeder {
        let _ = f.join();
    }
    let stderr = reader.join().unwrap();
    let code = if libc::WIFEXITED(status) {
        Some(libc::WEXITSTATUS(status))
    } else {
        None
    };
    Ran {
        status: code,
        stderr,
        peak_kib: usage.ru_maxrss as u64,
    }
}

/// `pgn-audit ARGS -o OUT` with standard input fed by `feed`.
pub fn audit_stdin(
    args: &[&str],
    out: &Path,
    feed: impl FnOnce(&mut ChildStdin) -> std::io::Result<()> + Send + 'static,
) -> Ran {
    let mut cmd = super::common::bin();
    cmd.args(args).arg("-o").arg(out);
    run_measured(cmd, Some(Box::new(feed)))
}

/// Writes `total` bytes made by repeating `chunk` (the last copy cut).
pub fn write_repeated(w: &mut impl Write, chunk: &[u8], total: u64) -> std::io::Result<()> {
    let block: Vec<u8> = chunk.iter().copied().cycle().take(1 << 20).collect();
    let mut left = total;
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        w.write_all(&block[..n])?;
        left -= n as u64;
    }
    Ok(())
}
