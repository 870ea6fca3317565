//! `pgn-audit merge` (issue 7): shards of disjoint inputs merge into exactly
//! the reports of one run, and bad folders get clear errors.

use crate::{common, support};

use std::path::{Path, PathBuf};

use common::*;

const FILES: [&str; 7] = [
    "castling.csv",
    "claims.csv",
    "missed_draws.csv",
    "errors.csv",
    "clean.pgn",
    "rejected.pgn",
    "summary.json",
];

/// Three input files cut from the sample; some games get rows.
fn parts(dir: &Path) -> Vec<PathBuf> {
    let games: Vec<String> = sample_games()
        .iter()
        .enumerate()
        .map(|(i, g)| match i % 7 {
            0 => with_bad_fen(g),
            3 => g.replacen("\n\n1. ", "\n\n1. Ke2 ", 1),
            _ => g.clone(),
        })
        .collect();
    games
        .chunks(150)
        .enumerate()
        .map(|(k, c)| {
            write(
                dir,
                &format!("p{k}.pgn"),
                (c.join("\n\n") + "\n").as_bytes(),
            )
        })
        .collect()
}

fn merge(args: &[&Path], out: &Path) -> std::process::Output {
    let mut cmd = bin();
    cmd.arg("merge").args(args).arg("-o").arg(out);
    cmd.output().unwrap()
}

fn stable(dir: &Path, f: &str) -> String {
    let text = std::fs::read_to_string(dir.join(f)).unwrap();
    if f != "summary.json" {
        return text;
    }
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_object_mut().unwrap().remove("seconds");
    v.as_object_mut().unwrap().remove("helpmate_seconds");
    v.as_object_mut().unwrap().remove("threads");
    v.to_string()
}

#[test]
fn shards_in_any_order_of_arrival_merge_to_the_single_run() {
    let t = tempdir();
    let files = parts(t.path());
    let paths: Vec<&str> = files.iter().map(|p| s(p)).collect();
    let single = t.path().join("single");
    run_ok(
        &[paths[0], paths[1], paths[2], "--split", "-j", "2"],
        &single,
    );
    let (games, _, flagged, incomplete) = counts(&single);
    assert_eq!((games, flagged, incomplete), (438, 0, 126));

    // The shards finish in reverse order; merge takes them in input order.
    let shards: Vec<PathBuf> = (0..3).map(|k| t.path().join(format!("s{k}"))).collect();
    for k in (0..3).rev() {
        run_ok(&[paths[k], "--split", "-j", "1"], &shards[k]);
    }
    let out = t.path().join("merged");
    let o = merge(&[&shards[0], &shards[1], &shards[2]], &out);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for f in FILES {
        assert_eq!(stable(&single, f), stable(&out, f), "{f}");
    }
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        page.contains("p2.pgn"),
        "the merged page names every source"
    );
    // Merging merged folders is associative.
    let left = t.path().join("left");
    assert_eq!(
        merge(&[&shards[0], &shards[1]], &left).status.code(),
        Some(0)
    );
    let again = t.path().join("again");
    assert_eq!(merge(&[&left, &shards[2]], &again).status.code(), Some(0));
    for f in FILES {
        assert_eq!(stable(&single, f), stable(&again, f), "{f}");
    }
    // Another order gives that order's single run.
    let reversed = t.path().join("reversed");
    assert_eq!(
        merge(&[&shards[2], &shards[1], &shards[0]], &reversed)
            .status
            .code(),
        Some(0)
    );
    let single_rev = t.path().join("single-rev");
    run_ok(&[paths[2], paths[1], paths[0], "--split"], &single_rev);
    for f in FILES {
        assert_eq!(stable(&single_rev, f), stable(&reversed, f), "{f}");
    }
}

fn error_of(o: &std::process::Output) -> String {
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr).trim().to_owned();
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

#[test]
fn bad_folders_get_clear_errors() {
    let t = tempdir();
    let files = parts(t.path());
    let a = t.path().join("a");
    let b = t.path().join("b");
    run_ok(&[s(&files[0])], &a);
    run_ok(&[s(&files[1])], &b);
    let out = t.path().join("out");

    // Overlapping sources.
    let a2 = t.path().join("a2");
    run_ok(&[s(&files[0])], &a2);
    assert_eq!(
        error_of(&merge(&[&a, &a2], &out)),
        format!(
            "pgn-audit: merge: {}: source {} is also in {}: the folders overlap",
            s(&a2),
            s(&files[0]),
            s(&a)
        )
    );

    // A folder that is not complete.
    let partial = t.path().join("partial");
    run_ok(&[s(&files[2])], &partial);
    std::fs::remove_file(partial.join("summary.json")).unwrap();
    assert_eq!(
        error_of(&merge(&[&a, &partial], &out)),
        format!(
            "pgn-audit: merge: {}/summary.json: missing: not a complete pgn-audit report folder",
            s(&partial)
        )
    );
    std::fs::remove_dir_all(&partial).unwrap();
    assert_eq!(
        error_of(&merge(&[&a, &partial], &out)),
        format!("pgn-audit: merge: {}: not a report folder", s(&partial))
    );

    // Another contract version: a column more in the middle.
    let other = t.path().join("other");
    run_ok(&[s(&files[2])], &other);
    let csv = other.join("errors.csv");
    let text = std::fs::read_to_string(&csv)
        .unwrap()
        .replacen("ply,", "ply,clock,", 1);
    std::fs::write(&csv, text).unwrap();
    assert_eq!(
        error_of(&merge(&[&a, &other], &out)),
        format!(
            "pgn-audit: merge: {}/errors.csv: its columns are not those of version 3 of the report contract",
            s(&other)
        )
    );

    // A missing CSV file.
    std::fs::remove_file(&csv).unwrap();
    assert_eq!(
        error_of(&merge(&[&a, &other], &out)),
        format!("pgn-audit: merge: {}/errors.csv: missing", s(&other))
    );

    // An interrupted run.
    let cut = t.path().join("cut");
    run_ok(&[s(&files[2])], &cut);
    let summary = cut.join("summary.json");
    let text = std::fs::read_to_string(&summary).unwrap();
    let text = text.trim_end().trim_end_matches('}').to_owned() + ",\n  \"interrupted\": true\n}\n";
    std::fs::write(&summary, text).unwrap();
    let e = error_of(&merge(&[&a, &cut], &out));
    assert!(
        e.ends_with("the run was interrupted: its reports cover only part of its input"),
        "{e}"
    );

    // Split files in some folders only.
    let split = t.path().join("split");
    run_ok(&[s(&files[2]), "--split"], &split);
    assert_eq!(
        error_of(&merge(&[&split, &b], &out)),
        format!(
            "pgn-audit: merge: {}: has no clean.pgn and rejected.pgn while other folders have them",
            s(&b)
        )
    );
    assert!(!out.exists(), "nothing is written when a folder is bad");
}

/// Folders written with `--quirks` merge their quirks.csv too, into the
/// one that a single run over all their inputs writes.
#[test]
fn quirks_merge_like_the_other_reports() {
    let t = tempdir();
    let sloppy = |name: &str, games: &str| write(t.path(), name, games.as_bytes());
    let a = sloppy(
        "a.pgn",
        "1. e2e4 e5 2. Ng1f3 *\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7 *\n",
    );
    let b = sloppy(
        "b.pgn",
        "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. d4 c6 5. Nf3 Bg4 6. Bf4 e6 7. h3 Bxf3 8. Qxf3 Bb4 9. Be2 Nd7 10. a3 0-0-0 *\n",
    );
    let one = t.path().join("one");
    run_ok(&[s(&a), s(&b), "--quirks"], &one);
    let shards: Vec<PathBuf> = [&a, &b]
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let out = t.path().join(format!("s{k}"));
            run_ok(&[s(f), "--quirks"], &out);
            out
        })
        .collect();
    let merged = t.path().join("merged");
    let o = merge(&[&shards[0], &shards[1]], &merged);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let quirks = std::fs::read_to_string(merged.join("quirks.csv")).unwrap();
    assert_eq!(
        quirks,
        std::fs::read_to_string(one.join("quirks.csv")).unwrap()
    );
    // Four sloppy moves: e2e4, Ng1f3, 0-0-0, and Qxf7 without its #.
    assert_eq!(quirks.lines().count(), 1 + 4, "{quirks}");
    assert_eq!(
        stable(&merged, "summary.json"),
        stable(&one, "summary.json")
    );
}

#[test]
fn a_row_of_the_wrong_width_is_refused() {
    let t = tempdir();
    let files = parts(t.path());
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    run_ok(&[s(&files[0])], &a);
    run_ok(&[s(&files[1])], &b);
    let errors = b.join("errors.csv");
    let mut text = std::fs::read_to_string(&errors).unwrap();
    let width = text.lines().next().unwrap().split(',').count();
    assert_eq!(width, 17);
    text.push_str("p1.pgn,1,0,1,x\n");
    let rows = text.lines().count();
    std::fs::write(&errors, text).unwrap();
    let out = t.path().join("out");
    assert_eq!(
        error_of(&merge(&[&a, &b], &out)),
        format!(
            "pgn-audit: merge: {}: row {rows} has 5 fields, not 17",
            s(&errors)
        )
    );
    assert!(!out.join("summary.json").exists());
}

/// A report file cut short (its last 40 bytes lost, the last row ending
/// inside its FEN with no line end) is refused, not merged as whole.
#[test]
fn a_report_cut_short_is_refused() {
    let t = tempdir();
    let files = parts(t.path());
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    run_ok(&[s(&files[0])], &a);
    run_ok(&[s(&files[1])], &b);
    let errors = b.join("errors.csv");
    let text = std::fs::read(&errors).unwrap();
    assert!(text.len() > 100 && text.ends_with(b"\n"));
    std::fs::write(&errors, &text[..text.len() - 40]).unwrap();
    let out = t.path().join("out");
    assert_eq!(
        error_of(&merge(&[&a, &b], &out)),
        format!(
            "pgn-audit: merge: {}: the file does not end with a line end: it was cut short",
            s(&errors)
        )
    );
    assert!(!out.join("summary.json").exists());
}

/// merge streams the folders' rows: its memory does not grow with them.
/// Two real shards (summary and rows that agree, as merge checks), each
/// with an errors.csv and a rejected.pgn of about 150 MB.
#[test]
fn merge_streams_large_shards_in_bounded_memory() {
    use std::io::Write as _;
    let t = tempdir();
    let games: u64 = 180_000;
    let name = "W".repeat(900);
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| {
            let input = t.path().join(format!("big{k}.pgn"));
            let mut f = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
            for i in 0..games {
                write!(f, "[Event \"{k}-{i}\"]\n[White \"{name}\"]\n\n1. Ke2 *\n\n").unwrap();
            }
            f.flush().unwrap();
            drop(f);
            let out = t.path().join(format!("s{k}"));
            run_ok(&[s(&input), "--split", "-j", "2"], &out);
            std::fs::remove_file(&input).unwrap();
            out
        })
        .collect();
    let shard_size = |k: usize, name: &str| std::fs::metadata(shards[k].join(name)).unwrap().len();
    let expected = [
        ("errors.csv", shard_size(0, "errors.csv")),
        ("rejected.pgn", shard_size(0, "rejected.pgn")),
        ("errors.csv", shard_size(1, "errors.csv")),
        ("rejected.pgn", shard_size(1, "rejected.pgn")),
    ];
    assert!(expected.iter().all(|(_, n)| *n > 150 << 20), "{expected:?}");
    let out = t.path().join("merged");
    let mut cmd = bin();
    cmd.arg("merge")
        .args(&shards)
        .arg("-o")
        .arg(&out)
        .arg("--quiet");
    let ran = support::run_measured(cmd, None);
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    ran.assert_peak_at_most(support::PEAK_MIB);
    let size = |name: &str| std::fs::metadata(out.join(name)).unwrap().len();
    // One header, every row of both shards; the split files joined by one
    // blank line (each grown file ends with its own).
    let errors_header = std::fs::read_to_string(shards[0].join("errors.csv"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .len() as u64
        + 1;
    assert_eq!(
        size("errors.csv"),
        expected[0].1 + expected[2].1 - errors_header
    );
    assert_eq!(size("rejected.pgn"), expected[1].1 + 1 + expected[3].1);
    assert_eq!(counts(&out), (2 * games, 0, 0, 2 * games));
}
