//! Issue 12, items 2 (report.html), 3, 9 and 16: a run never fails
//! silently. report.html's memory stays bounded whatever the tags, a closed
//! standard error costs no report, a huge `-j` is bounded and a signal is
//! honoured from the start.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::common::{self, SAMPLE, s};
use super::support;

/// A castle after the king went out and came back: one castling.csv row
/// (`king_moved`), the game flagged.
const CASTLE: &[u8] = b"1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O *\n\n";
/// An illegal move: one errors.csv row, the game incomplete.
const ILLEGAL: &[u8] = b"1. e4 e5 2. Qh6 *\n\n";

/// Item 2: 120 games, each with a White tag of almost 2 MiB (a game may
/// hold at most 2 MiB) and a row in the reports
/// (half castling.csv, half errors.csv). report.html keeps 50 examples per
/// group, cut as the page shows them, so neither the run's memory nor the
/// page grows with the tags.
#[test]
fn html_report_keeps_huge_tags_cut() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let ran = support::audit_stdin(&["-", "-j", "2"], &out, |w| {
        let name = vec![b'W'; (2 << 20) - 4096];
        for i in 0..120 {
            w.write_all(format!("[Event \"huge {i}\"]\n[White \"").as_bytes())?;
            w.write_all(&name)?;
            w.write_all(b"\"]\n\n")?;
            w.write_all(if i % 2 == 0 { CASTLE } else { ILLEGAL })?;
        }
        Ok(())
    });
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    assert_eq!(common::counts(&out), (120, 0, 60, 60));
    assert_eq!(common::records(&out, "castling.csv").len(), 60);
    ran.assert_peak_at_most(support::PEAK_MIB);
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.len() < 500_000, "report.html: {} bytes", page.len());
    // 50 castles and 50 errors shown, each with its board, each name cut
    // at 300 characters.
    let cut = format!("{}…", "W".repeat(300));
    assert_eq!(page.matches(&format!("<b>{cut} – ?</b>")).count(), 100);
    assert_eq!(page.matches("<svg class=\"board\"").count(), 100);
    assert!(page.contains("… and 10 more in castling.csv."));
}

/// A gzip stream cut in the middle of the sample: the sample's first
/// games, a cut game and a read error.
fn cut_gzip(dir: &Path) -> String {
    let sample = std::fs::read(SAMPLE).unwrap();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&sample).unwrap();
    let gz = e.finish().unwrap();
    s(&common::write(dir, "cut.pgn.gz", &gz[..gz.len() / 2])).to_owned()
}

/// The report files of a folder, summary.json without its timing.
fn report_files(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let mut bytes = std::fs::read(e.path()).unwrap();
            if name == "summary.json" {
                let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                v.as_object_mut().unwrap().remove("seconds");
                v.as_object_mut().unwrap().remove("helpmate_seconds");
                bytes = v.to_string().into_bytes();
            }
            (name, bytes)
        })
        .filter(|(name, _)| name != "report.html" && name != ".pgn-audit.lock")
        .collect();
    files.sort();
    files
}

/// Item 3: standard error is a pipe whose reader is gone before the first
/// message. The run still ends with the input error's status 2, not a
/// panic, and writes the same complete reports as with standard error
/// read.
#[test]
fn closed_standard_error_neither_panics_nor_loses_reports() {
    let t = common::tempdir();
    let gz = cut_gzip(t.path());
    let seen = t.path().join("seen");
    let o = common::run(&[&gz, SAMPLE, "-j", "2"], &seen);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "pgn-audit: {gz}: gzip stream is corrupt or truncated after "
        )),
        "{stderr}"
    );
    let (games, ..) = common::counts(&seen);
    assert!(games > 438 + 1, "{games} games");
    assert_eq!(common::summary(&seen)["errors"]["parse_error"], 1);

    let out = t.path().join("r");
    let mut child = common::bin()
        .args([&gz, SAMPLE, "-j", "2", "-o", s(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(2));
    assert_eq!(common::counts(&out), common::counts(&seen));
    assert_eq!(report_files(&out), report_files(&seen));
}

/// The reader's numbering and the writer's order (item 16's stage): a cut
/// gzip stream and a whole file give byte-identical reports at -j1, -j2
/// and -j8.
#[test]
fn damaged_input_gives_the_same_reports_at_any_thread_count() {
    let t = common::tempdir();
    let gz = cut_gzip(t.path());
    let reports: Vec<_> = ["1", "2", "8"]
        .iter()
        .map(|j| {
            let out = t.path().join(format!("j{j}"));
            let o = common::run(&[&gz, SAMPLE, "--split", "-j", j], &out);
            assert_eq!(o.status.code(), Some(2));
            let mut files = report_files(&out);
            for (name, bytes) in &mut files {
                if name == "summary.json" {
                    let mut v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
                    v.as_object_mut().unwrap().remove("threads");
                    *bytes = v.to_string().into_bytes();
                }
            }
            files
        })
        .collect();
    // Five CSV reports, two split files and summary.json.
    assert_eq!(reports[0].len(), 8);
    assert!(reports[0] == reports[1] && reports[1] == reports[2]);
}

/// Waits for `child` at most `limit`; kills it and fails past that.
fn wait_at_most(mut child: Child, limit: Duration, what: &str) -> (Option<i32>, String) {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            if let Some(mut e) = child.stderr.take() {
                e.read_to_string(&mut stderr).unwrap();
            }
            return (status.code(), stderr);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The most worker threads a run uses on this machine: 4 per core, and
/// never fewer than 8.
fn most_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).max(8)
}

/// Item 9: `-j 65535` runs with the most threads allowed, says so, and
/// gives the sample's counts at once.
#[test]
fn huge_thread_count_is_bounded() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let child = common::bin()
        .args([SAMPLE, "-j", "65535", "-o", s(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, stderr) = wait_at_most(child, Duration::from_secs(20), "-j 65535");
    assert_eq!(status, Some(0), "{stderr}");
    let most = most_threads();
    assert_eq!(
        stderr.lines().next(),
        Some(
            format!(
                "pgn-audit: -j 65535: using {most} threads, the most this machine allows \
                 (4 per core, at least 8)"
            )
            .as_str()
        )
    );
    assert_eq!(common::counts(&out).0, 438);
    let sm = common::summary(&out);
    assert_eq!(sm["threads"], most);
    let seen = t.path().join("seen");
    common::run_ok(&[SAMPLE, "-j", "1"], &seen);
    assert_eq!(report_files(&out).len(), report_files(&seen).len());
    for ((name, a), (_, b)) in report_files(&out).iter().zip(report_files(&seen)) {
        if name != "summary.json" {
            assert!(*a == b, "{name} differs");
        }
    }
}

/// Whether `pid` catches SIGTERM (its handler is in place), from
/// /proc/PID/status.
fn catches_sigterm(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (libc::SIGTERM - 1)) != 0)
}

/// Item 9: SIGTERM as soon as the handler is in place, during start-up
/// (`-j 65535` and a standard input that gives nothing), ends the run
/// with 130 at once.
#[test]
fn sigterm_during_start_up_ends_the_run() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let mut child = common::bin()
        .args(["-", "-j", "65535", "-o", s(&out)])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Standard input stays open and empty until the child has ended.
    let stdin = child.stdin.take();
    let started = Instant::now();
    while !catches_sigterm(child.id()) {
        assert!(started.elapsed() < Duration::from_secs(10), "no handler");
        std::thread::sleep(Duration::from_millis(1));
    }
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let (status, stderr) = wait_at_most(child, Duration::from_secs(5), "SIGTERM");
    drop(stdin);
    assert_eq!(status, Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    // Either the signal came before the reports were begun, and nothing
    // was written, or the reports say they were interrupted.
    if out.join("summary.json").exists() {
        let sm = common::summary(&out);
        assert_eq!(sm["interrupted"], true);
        assert_eq!(sm["games"], 0);
    } else {
        assert_eq!(
            stderr.lines().last(),
            Some("pgn-audit: interrupted before any report was begun"),
            "{stderr}"
        );
    }
}

/// An interrupted run counts as read of its source the bytes up to the end
/// of the last game written, padding between games included (the reader
/// drops that padding as it goes, so adding up the games' lengths would
/// undercount it).
#[test]
#[allow(unsafe_code)] // libc on our own child process or terminal
fn an_interrupted_run_counts_the_bytes_between_games() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let game = b"[Event \"x\"]\n\n1. e4 e5 *\n";
    let padding = vec![b'\n'; 2 << 20];
    let mut cmd = common::bin();
    cmd.args(["-", "-j", "2", "-o", s(&out)])
        .stdin(Stdio::piped())
        .stdout(Stdio::null());
    // Standard error on a terminal: the progress bar shows the games done.
    let (mut child, terminal) = common::Terminal::spawn(cmd);
    let mut stdin = child.stdin.take().unwrap();
    for _ in 0..3 {
        stdin.write_all(game).unwrap();
        stdin.write_all(&padding).unwrap();
    }
    stdin.flush().unwrap();
    // The reader waits for more once it has cut the three games and the
    // run has written them.
    common::wait_for("the three games done", || terminal.games_shown() == Some(3));
    // SAFETY: a signal to our own child, which has not been waited for.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
        0
    );
    let (status, _) = wait_at_most(child, Duration::from_secs(10), "the interrupted run");
    drop(stdin);
    let stderr = terminal.finish();
    assert_eq!(status, Some(130), "{stderr}");
    let summary = common::summary(&out);
    assert_eq!(summary["interrupted"], true);
    let games = summary["games"].as_u64().unwrap();
    assert_eq!(games, 3, "{stderr}");
    let each = (game.len() + padding.len()) as u64;
    assert_eq!(summary["bytes"], (games - 1) * each + game.len() as u64);
}

/// Issue 14, point 3: a warning on a closed standard error costs the
/// warning, never the run. A zip archive without a PGN member is skipped
/// with a warning; with standard error closed, the run still audits the
/// sample and exits 0 (a panic on the failed write exited 101).
#[test]
fn a_warning_on_a_closed_standard_error_is_no_panic() {
    let t = common::tempdir();
    let notes = common::write(
        t.path(),
        "notes.zip",
        &common::zip_of(&[("notes.txt", b"x")]),
    );
    let out = t.path().join("r");
    let mut child = common::bin()
        .args([s(&notes), SAMPLE, "-j", "2", "--quiet", "-o", s(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(common::counts(&out).0, 438);
    assert_eq!(
        common::summary(&out)["sources"],
        serde_json::json!([SAMPLE])
    );
}
