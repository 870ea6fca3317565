//! Issue 23, item 12: time linear in the input. Each case times two sizes
//! of one input and bounds the ratio generously (the machine is shared):
//! linear work gives the ratio of the sizes, quadratic work its square.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use super::common::{self, s};
use super::sources::{stored_zip, wait_at_most};

/// The least CPU time (user and system, of the command alone) of three
/// runs of `pgn-audit ARGS -o OUT`, each exiting 0: a measure of the work
/// done that the machine's load (the other tests running beside) changes
/// far less than the wall time.
fn least_cpu(args: &[&str], out: &Path) -> Duration {
    (0..3)
        .map(|_| {
            let mut cmd = common::bin();
            cmd.args(args).arg("-o").arg(out);
            let ran = crate::support::run_measured(cmd, None);
            assert_eq!(ran.status, Some(0), "{}", ran.stderr);
            ran.cpu
        })
        .min()
        .unwrap()
}

/// The shortest of three runs of `pgn-audit ARGS -o OUT`, each exit 0.
fn fastest(args: &[&str], out: &Path) -> Duration {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            common::run_ok(args, out);
            started.elapsed()
        })
        .min()
        .unwrap()
}

/// One game whose tag section is one line of `tags` tags.
fn one_line_of_tags(tags: usize) -> Vec<u8> {
    let mut game = Vec::with_capacity(tags * 12 + 32);
    for i in 0..tags {
        game.extend_from_slice(format!("[T{} \"v\"]", i % 1000).as_bytes());
    }
    game.extend_from_slice(b"[Event \"last\"]\n\n1. e4 e5 *\n");
    game
}

/// 150,000 tags on one line take about 3 times the CPU time of 50,000, not
/// 9 times (each tag searched for its line's end again).
#[test]
fn a_line_of_many_tags_takes_linear_time() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let mut times = Vec::new();
    for tags in [50_000, 150_000] {
        let input = common::write(t.path(), &format!("{tags}.pgn"), &one_line_of_tags(tags));
        let took = least_cpu(&["--no-html", "--quiet", "-j", "1", s(&input)], &out);
        assert_eq!(common::counts(&out), (1, 1, 0, 0));
        assert_eq!(common::rows(&out, "errors.csv").len(), 0);
        times.push(took);
    }
    let ratio = times[1].as_secs_f64() / times[0].as_secs_f64();
    eprintln!("150,000 tags / 50,000: {ratio:.2} ({times:?})");
    assert!(ratio < 6.0, "150,000 tags / 50,000: {ratio:.1} ({times:?})");
}

/// A stored zip of `members` one-game members, each a name of its own.
fn many_members(members: usize) -> Vec<u8> {
    let game = b"[Event \"m\"]\n\n1. e4 e5 *\n";
    let names: Vec<String> = (0..members).map(|i| format!("g{i:05}.pgn")).collect();
    let list: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &game[..])).collect();
    stored_zip(&list)
}

/// A zip of 4,000 members takes about 4 times the CPU time of 1,000, not
/// 16 times (the archive's directory read again for each member); 50,000
/// members finish, one source each.
#[test]
fn a_zip_of_many_members_takes_linear_time() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let mut times = Vec::new();
    for members in [1_000, 4_000] {
        let input = common::write(t.path(), &format!("{members}.zip"), &many_members(members));
        let took = least_cpu(&["--no-html", "--quiet", s(&input)], &out);
        assert_eq!(common::counts(&out).0, members as u64);
        times.push(took);
    }
    let ratio = times[1].as_secs_f64() / times[0].as_secs_f64();
    eprintln!("4,000 members / 1,000: {ratio:.2} ({times:?})");
    assert!(ratio < 8.0, "4,000 members / 1,000: {ratio:.1} ({times:?})");
    let input = common::write(t.path(), "50000.zip", &many_members(50_000));
    let child = common::bin()
        .args(["--no-html", "--quiet", s(&input), "-o", s(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, stderr) = wait_at_most(child, Duration::from_secs(120), "50,000 members");
    assert_eq!(status, Some(0), "{stderr}");
    let summary = common::summary(&out);
    assert_eq!(summary["games"], 50_000);
    assert_eq!(summary["sources"].as_array().unwrap().len(), 50_000);
    assert_eq!(
        summary["sources"][49_999],
        format!("{}/g49999.pgn", s(&input))
    );
}

/// A zstd file of 16,000 tiny frames (64 bytes of text each, with their
/// content sizes, as pzstd-style writers cut them) takes about the same
/// time at -j8 as at -j2, not 23 to 48 times as long (a pool task and a
/// hand-over per frame), and gives the same reports.
#[test]
fn tiny_zstd_frames_take_no_longer_with_more_threads() {
    let t = common::tempdir();
    let data = super::decode::games(1);
    let frames = super::decode::zstd_frames(&data, 64);
    let input = common::write(t.path(), "tiny.pgn.zst", &frames);
    let out = t.path().join("r");
    let mut times = Vec::new();
    for j in ["2", "8"] {
        times.push(fastest(&["--no-html", "--quiet", "-j", j, s(&input)], &out));
        assert_eq!(common::counts(&out).0, 438);
    }
    let ratio = times[1].as_secs_f64() / times[0].as_secs_f64();
    eprintln!("-j8 / -j2 on tiny frames: {ratio:.2} ({times:?})");
    assert!(
        ratio < 2.5,
        "-j8 / -j2 on tiny frames: {ratio:.1} ({times:?})"
    );
    let runs = t.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    let (_, status, stderr) = super::decode::same_at_every_thread_count(&runs, &input);
    assert_eq!(status, Some(0), "{stderr}");
}
