//! Running the binary with a streamed standard input and reading its peak
//! resident memory.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{ChildStdin, Command, Stdio};

/// What one run of the binary left: exit status, standard error, peak
/// resident memory in KiB and CPU time (`ru_maxrss`, `ru_utime` and
/// `ru_stime` of this child alone, from `wait4`).
pub(crate) struct Ran {
    pub(crate) status: Option<i32>,
    pub(crate) stderr: String,
    pub(crate) peak_kib: u64,
    pub(crate) cpu: std::time::Duration,
}

impl Ran {
    pub(crate) fn peak_mib(&self) -> u64 {
        self.peak_kib / 1024
    }

    /// Asserts the peak RSS is at most `mib` MiB.
    pub(crate) fn assert_peak_at_most(&self, mib: u64) {
        assert!(
            self.peak_mib() <= mib,
            "peak RSS {} MiB > {mib} MiB; stderr: {}",
            self.peak_mib(),
            self.stderr
        );
    }
}

/// The memory bound the README states, for a run at -j2.
pub(crate) const PEAK_MIB: u64 = 100;

/// Writes a child's standard input, on a thread of its own.
pub(crate) type Feed = Box<dyn FnOnce(&mut ChildStdin) -> std::io::Result<()> + Send>;

/// Runs `cmd`, feeding its standard input from `feed` on a thread (a broken
/// pipe there is not an error: the child may stop reading), and reads its
/// own peak RSS.
///
/// The child is not started from this process: Linux carries the memory
/// high-water mark of the process that starts a program into the
/// program's `ru_maxrss`, and this test process may have grown large. A
/// fresh, small copy of this test binary ([`measuring_parent`]) starts it
/// and waits for it with `wait4`.
pub(crate) fn run_measured(cmd: Command, feed: Option<Feed>) -> Ran {
    let dir = tempfile::tempdir().expect("tempdir");
    let result = dir.path().join("result");
    let mut spec = vec![
        result.to_string_lossy().into_owned(),
        cmd.get_program().to_string_lossy().into_owned(),
    ];
    spec.extend(cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
    let mut parent = Command::new(std::env::current_exe().expect("the test binary"));
    parent
        .args(["--ignored", "--exact", "support::measuring_parent"])
        .args(["--test-threads=1", "--nocapture", "-q"])
        .env(MEASURE, serde_json::to_string(&spec).unwrap());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => parent.env(k, v),
            None => parent.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        parent.current_dir(d);
    }
    parent.stdin(if feed.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    parent.stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = parent.spawn().expect("spawn the measuring parent");
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
    let parent_status = child.wait().expect("the measuring parent");
    if let Some(f) = feeder {
        let _ = f.join();
    }
    let stderr = reader.join().unwrap();
    let text = std::fs::read_to_string(&result)
        .unwrap_or_else(|_| panic!("the measuring parent failed ({parent_status}): {stderr}"));
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [code, peak, cpu_us] = fields[..] else {
        panic!("the measuring parent wrote {text:?}");
    };
    Ran {
        status: code.parse().ok(),
        stderr,
        peak_kib: peak.parse().expect("peak KiB"),
        cpu: std::time::Duration::from_micros(cpu_us.parse().expect("CPU µs")),
    }
}

/// Names the command for [`measuring_parent`]: a JSON list of the result
/// file, the program and its arguments.
const MEASURE: &str = "PGN_AUDIT_TEST_MEASURE";

/// Not a check: the small process that [`run_measured`] starts to run a
/// command and read its peak RSS and CPU time with `wait4`. It writes
/// `STATUS PEAK_KIB CPU_MICROSECONDS` (STATUS `-` when a signal ended the
/// command) to the result file.
#[test]
#[ignore = "run by run_measured as the parent of a measured command"]
#[allow(unsafe_code)] // libc on our own child process or terminal
fn measuring_parent() {
    let spec: Vec<String> =
        serde_json::from_str(&std::env::var(MEASURE).expect("run by run_measured")).unwrap();
    // Waited for with wait4 below, which `Child::wait` cannot do.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(&spec[1])
        .args(&spec[2..])
        .spawn()
        .expect("spawn the measured command");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a plain FFI call on our own child's pid with valid pointers.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status).to_string()
    } else {
        "-".to_owned()
    };
    let micros = |t: libc::timeval| t.tv_sec * 1_000_000 + t.tv_usec;
    let cpu = micros(usage.ru_utime) + micros(usage.ru_stime);
    std::fs::write(&spec[0], format!("{code} {} {cpu}", usage.ru_maxrss)).unwrap();
}

/// `pgn-audit ARGS -o OUT` with standard input fed by `feed`.
pub(crate) fn audit_stdin(
    args: &[&str],
    out: &Path,
    feed: impl FnOnce(&mut ChildStdin) -> std::io::Result<()> + Send + 'static,
) -> Ran {
    let mut cmd = super::common::bin();
    cmd.args(args).arg("-o").arg(out);
    run_measured(cmd, Some(Box::new(feed)))
}

/// Writes `total` bytes made by repeating `chunk` (the last copy cut).
pub(crate) fn write_repeated(w: &mut impl Write, chunk: &[u8], total: u64) -> std::io::Result<()> {
    // Whole copies of the chunk a block, so that blocks join seamlessly.
    let block = chunk.repeat(((1 << 20) / chunk.len()).max(1));
    let mut left = total;
    while left >= block.len() as u64 {
        w.write_all(&block)?;
        left -= block.len() as u64;
    }
    w.write_all(&block[..usize::try_from(left).unwrap()])
}
