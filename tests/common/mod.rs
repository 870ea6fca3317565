//! Shared helpers for the integration tests: run the built binary in a
//! fresh temporary folder and read its reports.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(crate) const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/corpora/lichess_2025-05_sample.pgn"
);

pub(crate) fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpora")
        .join(rel)
}

pub(crate) fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pgn-audit"))
}

/// Runs `pgn-audit ARGS -o OUT` and returns the output.
pub(crate) fn run(args: &[&str], out: &Path) -> Output {
    let mut cmd = bin();
    cmd.args(args).arg("-o").arg(out);
    cmd.stdin(Stdio::null());
    cmd.output().expect("run pgn-audit")
}

/// Runs and asserts exit status 0.
pub(crate) fn run_ok(args: &[&str], out: &Path) -> Output {
    let o = run(args, out);
    assert_eq!(
        o.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The rows of a report file, header excluded, as string vectors.
pub(crate) fn rows(out: &Path, file: &str) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(out.join(file)).expect("report exists");
    r.records()
        .map(|rec| rec.expect("csv row").iter().map(str::to_owned).collect())
        .collect()
}

/// The rows of a report file as maps from column name to value.
pub(crate) fn records(out: &Path, file: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(out.join(file)).expect("report exists");
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

pub(crate) fn summary(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

/// Asserts games = clean + flagged + incomplete and returns (games, clean,
/// flagged, incomplete).
pub(crate) fn counts(out: &Path) -> (u64, u64, u64, u64) {
    let s = summary(out);
    let g = |k: &str| s[k].as_u64().unwrap();
    let c = (g("games"), g("clean"), g("flagged"), g("incomplete"));
    assert_eq!(c.0, c.1 + c.2 + c.3, "summary invariant");
    c
}

/// Sum of the values of one summary count object.
pub(crate) fn total(out: &Path, key: &str) -> u64 {
    summary(out)[key]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum()
}

/// A named FIFO at `path`.
pub(crate) fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

pub(crate) fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

pub(crate) fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The Python that runs the tests' oracles (python-chess, Dask), with the
/// packages that tests/setup-oracles installed on its path (see build.rs).
pub(crate) fn python() -> Command {
    let mut cmd = Command::new(env!("PGN_AUDIT_PYTHON"));
    cmd.env("PYTHONPATH", env!("PGN_AUDIT_PYTHONPATH"));
    cmd
}

/// Runs `tests/crosscheck/SCRIPT BINARY ARGS...` (a python-chess
/// cross-check: exit 0 when all agree, 1 on a difference, 2 without
/// python-chess) and returns what it printed. Its callers are ignored where
/// build.rs found no python-chess, so a missing oracle here is a failure,
/// never a pass.
pub(crate) fn python_crosscheck(script: &str, args: &[&str]) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/crosscheck")
        .join(script);
    let out = python()
        .arg(&path)
        .arg(env!("CARGO_BIN_EXE_pgn-audit"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{script}: {} cannot be run: {e}", env!("PGN_AUDIT_PYTHON")));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    match out.status.code() {
        Some(0) => {
            eprintln!("{}", text.trim());
            text
        }
        Some(2) => {
            panic!("{script}: python-chess is missing (run tests/setup-oracles)")
        }
        _ => panic!(
            "{script} found differences:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// The games of the Lichess sample, each as its text without the blank
/// lines around it.
pub(crate) fn sample_games() -> Vec<String> {
    let text = std::fs::read_to_string(SAMPLE).expect("the sample");
    text.split("\n\n[Event")
        .enumerate()
        .map(|(i, g)| {
            let g = if i == 0 {
                g.to_owned()
            } else {
                format!("[Event{g}")
            };
            g.trim_end().to_owned()
        })
        .collect()
}

/// A game given a bad FEN tag, so that it has an errors.csv row.
pub(crate) fn with_bad_fen(game: &str) -> String {
    game.replacen("]\n", "]\n[FEN \"not a fen\"]\n", 1)
}

/// The named columns of every row of a report.
pub(crate) fn pick(out: &Path, file: &str, cols: &[&str]) -> Vec<Vec<String>> {
    records(out, file)
        .iter()
        .map(|r| cols.iter().map(|c| r[*c].clone()).collect())
        .collect()
}

/// Rows of string slices as owned rows, to compare with [`pick`].
pub(crate) fn strings(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|c| (*c).to_owned()).collect())
        .collect()
}

/// Every CSV report of a folder, by name.
pub(crate) fn csv_reports(out: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Audits `text` (as `games.pgn`, with `args`) at -j1, -j2 and -j8,
/// asserts exit status 0 and byte-identical CSV reports, and returns the
/// folder of the -j2 run.
pub(crate) fn audit_at_every_thread_count(
    text: &str,
    args: &[&str],
) -> (tempfile::TempDir, PathBuf) {
    let t = tempdir();
    let file = write(t.path(), "games.pgn", text.as_bytes());
    let mut reports = Vec::new();
    for threads in ["1", "2", "8"] {
        let out = t.path().join(format!("j{threads}"));
        let mut all = vec![s(&file), "--no-html", "-j", threads];
        all.extend(args);
        let o = run(&all, &out);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        reports.push(csv_reports(&out));
    }
    assert!(
        reports.iter().all(|r| *r == reports[0]),
        "-j1/-j2/-j8 differ"
    );
    let out = t.path().join("j2");
    (t, out)
}

/// `data` compressed with gzip.
pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// `data` compressed with xz.
pub(crate) fn xz(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 6);
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// A zip archive of `members` (name, bytes), deflated, in this order.
pub(crate) fn zip_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in members {
        w.start_file(*name, options).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// Waits until `f` holds, polling every 5 ms, for at most 30 s: a test
/// waits for an event of its child (a file written, a progress line, its
/// input read), never for a time.
pub(crate) fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let t = std::time::Instant::now();
    while !f() {
        assert!(
            t.elapsed() < std::time::Duration::from_secs(30),
            "waited for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Whether the pipe whose end the test holds (a child's standard input)
/// has no byte left that the child has not read.
#[allow(unsafe_code)] // libc on our own child process or terminal
pub(crate) fn drained(pipe: &impl std::os::fd::AsRawFd) -> bool {
    let mut unread: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int, the bytes the pipe holds.
    let r = unsafe { libc::ioctl(pipe.as_raw_fd(), libc::FIONREAD, &mut unread) };
    assert_eq!(r, 0, "FIONREAD");
    unread == 0
}

/// A pseudo-terminal: our end and the child's.
#[allow(unsafe_code)] // libc on our own child process or terminal
pub(crate) fn pty() -> (std::fs::File, std::fs::File) {
    use std::os::fd::FromRawFd;
    let (mut ours, mut theirs) = (0, 0);
    // SAFETY: openpty writes two new descriptors, which the files own.
    let r = unsafe {
        libc::openpty(
            &mut ours,
            &mut theirs,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "openpty");
    unsafe {
        (
            std::fs::File::from_raw_fd(ours),
            std::fs::File::from_raw_fd(theirs),
        )
    }
}

/// A child's standard error on a terminal, so that it draws its progress
/// bar, read as the child writes it.
pub(crate) struct Terminal {
    text: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
}

impl Terminal {
    /// Spawns `cmd` with a terminal as its standard error.
    pub(crate) fn spawn(mut cmd: Command) -> (std::process::Child, Terminal) {
        use std::io::Read;
        let (mut ours, theirs) = pty();
        let child = cmd.stderr(Stdio::from(theirs)).spawn().unwrap();
        // The child's end closed here too: ours reads to its end (EIO on
        // Linux) once the child has gone.
        drop(cmd);
        let text = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let into = text.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0; 4096];
            while let Ok(n @ 1..) = ours.read(&mut buf) {
                into.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        (child, Terminal { text, reader })
    }

    /// What the child has written so far.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.text.lock().unwrap()).into_owned()
    }

    /// The most games the progress bar has shown (`N games, R games/s`).
    pub(crate) fn games_shown(&self) -> Option<u64> {
        let text = self.text();
        text.match_indices(" games, ")
            .filter_map(|(at, _)| {
                let digits = text[..at]
                    .bytes()
                    .rev()
                    .take_while(u8::is_ascii_digit)
                    .count();
                text[at - digits..at].parse().ok()
            })
            .max()
    }

    /// Everything the child wrote, once it has ended.
    pub(crate) fn finish(self) -> String {
        let Terminal { text, reader } = self;
        reader.join().unwrap();
        String::from_utf8_lossy(&text.lock().unwrap()).into_owned()
    }
}
