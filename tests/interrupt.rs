//! Interruption (issue 6): SIGTERM (or Ctrl-C) mid-run stops the reader,
//! finishes the batches in flight, and leaves every report complete and
//! parseable up to the games done, summary.json saying `"interrupted":
//! true`, no `.partial` file behind, exit status 130.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// The sample, then one game with an illegal move, `copies` times: about
/// 1 MB and 439 games a copy.
fn big_input(dir: &Path, copies: usize) -> std::path::PathBuf {
    let sample = std::fs::read(SAMPLE).unwrap();
    let mut data = Vec::with_capacity((sample.len() + 64) * copies);
    for i in 0..copies {
        data.extend_from_slice(&sample);
        data.extend_from_slice(format!("\n[Event \"copy {i}\"]\n\n1. e4 Ke7 *\n\n").as_bytes());
    }
    write(dir, "big.pgn", &data)
}

fn signal(pid: u32, sig: &str) {
    let st = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success());
}

/// The bytes written so far into the temporary file of report `name`.
fn partial_bytes(out: &Path, name: &str) -> u64 {
    let prefix = format!(".{name}.");
    std::fs::read_dir(out)
        .map(|d| {
            d.map(|e| e.unwrap())
                .filter(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.starts_with(&prefix) && n.ends_with(".partial")
                })
                .map(|e| e.metadata().map_or(0, |m| m.len()))
                .sum()
        })
        .unwrap_or_default()
}

fn partial_files(out: &Path) -> Vec<String> {
    std::fs::read_dir(out)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".partial"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sigterm_mid_run_leaves_complete_reports() {
    let t = tempdir();
    let copies = 200;
    let input = big_input(t.path(), copies);
    let out = t.path().join("r");
    let child = bin()
        .args([s(&input), "-o", s(&out), "-j", "1", "--split"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reports are opened after the signal handler is in place; the
    // run is under way once its first clean games reach clean.pgn (its
    // buffer written out), far from the end of its input.
    wait_for("the first clean games written", || {
        partial_bytes(&out, "clean.pgn") > 0
    });
    signal(child.id(), "-TERM");
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");

    assert_eq!(partial_files(&out), Vec::<String>::new());
    let sm = summary(&out);
    assert_eq!(sm["interrupted"], true);
    let (games, clean, flagged, incomplete) = counts(&out);
    let total = copies as u64 * 439;
    assert!(games > 0 && games < total, "{games} of {total} games");
    assert_eq!(flagged, 0);
    // The games done are a prefix of the input, each counted once: every
    // 439th game is the illegal one.
    assert_eq!(incomplete, games / 439);
    assert_eq!(clean, games - games / 439);
    let errors = records(&out, "errors.csv");
    assert_eq!(errors.len() as u64, incomplete);
    for (i, e) in errors.iter().enumerate() {
        assert_eq!(e["game"], (439 * (i + 1)).to_string());
        assert_eq!(e["event"], format!("copy {i}"));
        assert_eq!((e["ply"].as_str(), e["san"].as_str()), ("2", "Ke7"));
    }
    for f in ["castling.csv", "claims.csv", "missed_draws.csv"] {
        let _ = rows(&out, f);
    }
    assert_eq!(sm["errors"]["illegal_move"], incomplete);
    // --split holds exactly the games counted.
    let clean_pgn = std::fs::read(out.join("clean.pgn")).unwrap();
    let rejected_pgn = std::fs::read(out.join("rejected.pgn")).unwrap();
    let n = |b: &[u8]| pgn_audit::app::audit_bytes(b, 1 << 20).games;
    assert_eq!((n(&clean_pgn), n(&rejected_pgn)), (clean, incomplete));
}

/// Interrupted while the reader waits on standard input that gives nothing
/// more (a stalled pipe): the run still ends at once with what was done.
#[test]
fn sigterm_while_standard_input_stalls() {
    use std::io::Write;
    let t = tempdir();
    let out = t.path().join("r");
    let mut cmd = bin();
    cmd.args(["-", "-o", s(&out), "-j", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null());
    // Standard error on a terminal: the progress bar shows the games done.
    let (mut child, terminal) = Terminal::spawn(cmd);
    let sample = std::fs::read(SAMPLE).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Three copies, and the pipe left open: two batches can be cut, the
    // reader then waits for more.
    for _ in 0..3 {
        stdin.write_all(&sample).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    stdin.flush().unwrap();
    // The reader has taken every byte given, and games are done: it now
    // waits on the pipe for more.
    wait_for("the input read and games done", || {
        drained(&stdin) && terminal.games_shown().is_some_and(|n| n > 0)
    });
    let sent = Instant::now();
    signal(child.id(), "-TERM");
    let pid = child.id();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let o = child.wait_with_output().unwrap();
        let _ = done_tx.send(o);
    });
    let o = match done_rx.recv_timeout(Duration::from_secs(10)) {
        Ok(o) => o,
        Err(_) => {
            signal(pid, "-KILL");
            panic!("pgn-audit did not stop while its input stalled");
        }
    };
    drop(stdin);
    assert!(sent.elapsed() < Duration::from_secs(5));
    let stderr = terminal.finish();
    assert_eq!(o.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_eq!(partial_files(&out), Vec::<String>::new());
    let sm = summary(&out);
    assert_eq!(sm["interrupted"], true);
    assert_eq!(sm["sources"], serde_json::json!(["-"]));
    let (games, clean, ..) = counts(&out);
    assert!(games > 0 && games < 3 * 438, "{games} games");
    assert_eq!(clean, games);
    assert!(sm["bytes"].as_u64().unwrap() > 0);
}

/// A FIFO that no program writes, named after a file: the file is read
/// and audited first, and a signal while the run waits on the FIFO leaves
/// the file's games in the reports, and the FIFO as the source being read,
/// with no game. The FIFO was opened ahead of the file (sources are opened
/// two ahead), which held the file back too: the interrupted run had no
/// game.
#[test]
fn a_fifo_opened_in_its_turn_holds_no_source_before_it_back() {
    let t = tempdir();
    let file = write(t.path(), "first.pgn", b"[Event \"a\"]\n\n1. e4 e5 *\n");
    let fifo = t.path().join("later.fifo");
    mkfifo(&fifo);
    let out = t.path().join("r");
    let child = bin()
        .args([s(&file), s(&fifo), "-o", s(&out), "-j", "1", "--quiet"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The run is under way once it holds its output folder; the file's
    // game is audited while the FIFO is waited on (nothing of it can be
    // seen before the end, so it is given time).
    let lock = out.join(".pgn-audit.lock");
    wait_for("the output folder locked", || lock.exists());
    std::thread::sleep(Duration::from_millis(1000));
    signal(child.id(), "-INT");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let sm = summary(&out);
    assert_eq!(sm["interrupted"], true);
    assert_eq!(sm["games"], 1);
    assert_eq!(sm["sources"], serde_json::json!([s(&file), s(&fifo)]));
    assert_eq!(sm["source_details"][1]["games"], 0);
    assert_eq!(sm["source_details"][1]["error"], serde_json::Value::Null);
}
