//! The audit pipeline end to end (issue 2): every game read is reported once,
//! in input order, the same for any thread count and any compression.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use common::*;

const CSVS: [&str; 5] = [
    "castling.csv",
    "claims.csv",
    "missed_draws.csv",
    "errors.csv",
    "results.csv",
];

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

/// The summary without what legitimately differs between runs.
fn stable_summary(out: &Path) -> serde_json::Value {
    let mut s = summary(out);
    let o = s.as_object_mut().unwrap();
    o.remove("seconds");
    o.remove("helpmate_seconds");
    o.remove("threads");
    o.remove("sources");
    // Names, sizes and times differ between the forms of one input; what
    // was read of each does not.
    let read: Vec<serde_json::Value> = o["source_details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| serde_json::json!([d["bytes"], d["games"], d["error"]]))
        .collect();
    o["source_details"] = serde_json::Value::Array(read);
    s
}

fn assert_same_reports(a: &Path, b: &Path) {
    for f in CSVS {
        let (x, y) = (read(&a.join(f)), read(&b.join(f)));
        assert!(x == y, "{f} differs");
    }
    assert_eq!(stable_summary(a), stable_summary(b));
}

#[test]
fn lichess_sample_is_clean() {
    let t = tempdir();
    let out = t.path().join("r");
    run_ok(&[SAMPLE], &out);
    assert_eq!(counts(&out), (438, 438, 0, 0));
    for f in ["castling.csv", "missed_draws.csv", "errors.csv"] {
        assert!(rows(&out, f).is_empty(), "{f} has rows");
    }
    // Nine drawn games end in a threefold repetition nobody wrote down:
    // implied claims, valid, flagging nothing. python-chess agrees on which
    // (`Board.can_claim_threefold_repetition` on every drawn game's end).
    let claims = records(&out, "claims.csv");
    let games: Vec<&str> = claims.iter().map(|r| r["game"].as_str()).collect();
    assert_eq!(
        games,
        ["29", "89", "94", "115", "173", "207", "252", "303", "333"]
    );
    assert!(claims.iter().all(|r| r["claim"] == "threefold"
        && r["claim_source"] == "implied"
        && r["verdict"] == "valid"
        && r["occurrences"] == "3"));
    let s = summary(&out);
    assert_eq!(total(&out, "errors"), 0);
    assert_eq!(total(&out, "castling"), 0);
    assert_eq!(s["notation_quirks"], 0);
    assert_eq!(s["bytes"], std::fs::metadata(SAMPLE).unwrap().len());
    assert_eq!(s["sources"], serde_json::json!([SAMPLE]));
}

/// The sample's games, each given a bad FEN tag so that it has a row.
fn flagged_games() -> Vec<String> {
    sample_games().iter().map(|g| with_bad_fen(g)).collect()
}

/// A file in which every game has a row (a bad FEN), with a BOM and
/// assorted whitespace between games, so that every game's offset is
/// visible.
fn every_game_flagged() -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"\xef\xbb\xbf");
    for (i, game) in flagged_games().iter().enumerate() {
        out.extend_from_slice(game.as_bytes());
        out.extend_from_slice(match i % 4 {
            0 => &b"\n\n"[..],
            1 => b"\n\n\n% an escape line\n\n",
            2 => b"\n  \n\t\n",
            _ => b"\n\n",
        });
    }
    out
}

#[test]
fn offsets_point_at_every_games_first_byte() {
    let t = tempdir();
    let data = every_game_flagged();
    let file = write(t.path(), "flagged.pgn", &data);
    let out = t.path().join("r");
    run_ok(&[s(&file)], &out);
    assert_eq!(counts(&out), (438, 0, 0, 438));
    let errors = records(&out, "errors.csv");
    assert_eq!(errors.len(), 438);
    for (i, row) in errors.iter().enumerate() {
        assert_eq!(row["game"], (i + 1).to_string());
        assert_eq!(row["kind"], "bad_fen");
        let offset: usize = row["offset"].parse().unwrap();
        let at = &data[offset..];
        let expected = format!("[Event \"{}\"]\n[FEN", row["event"]);
        assert!(
            at.starts_with(expected.as_bytes()),
            "game {} offset {offset}",
            i + 1
        );
        assert!(at.starts_with(b"[Event"));
    }
    assert_eq!(
        errors[0]["offset"], "3",
        "the BOM is not part of the first game"
    );
}

#[test]
fn same_reports_for_any_thread_count_and_compression() {
    let t = tempdir();
    // Enough games for many batches, with rows in every report.
    let mut data = every_game_flagged();
    for _ in 0..3 {
        data.extend_from_slice(&read(Path::new(SAMPLE)));
        data.extend_from_slice(b"\n\n");
        data.extend_from_slice(&every_game_flagged());
    }
    let plain = write(t.path(), "all.pgn", &data);
    let zst = write(
        t.path(),
        "all.pgn.zst",
        &zstd::encode_all(&data[..], 3).unwrap(),
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&data).unwrap();
    let gz = write(t.path(), "all.pgn.gz", &gz.finish().unwrap());
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(&data).unwrap();
    // Named without an extension: the magic bytes decide.
    let bz = write(t.path(), "all-bzip2", &bz.finish().unwrap());

    let base = t.path().join("j1");
    run_ok(&["-j", "1", s(&plain)], &base);
    let games = counts(&base).0;
    assert_eq!(games, 438 * 7);
    for (name, args) in [
        ("j2", vec!["-j", "2", s(&plain)]),
        ("j7", vec!["-j", "7", s(&plain)]),
        ("zst", vec![s(&zst)]),
        ("gz", vec![s(&gz)]),
        ("bz2", vec!["-j", "1", s(&bz)]),
    ] {
        let out = t.path().join(name);
        run_ok(&args, &out);
        if matches!(name, "j2" | "j7") {
            assert_same_reports(&base, &out);
        } else {
            // Same rows but for the source column.
            for f in CSVS {
                let strip = |rows: Vec<Vec<String>>| -> Vec<Vec<String>> {
                    rows.into_iter().map(|r| r[1..].to_vec()).collect()
                };
                assert_eq!(strip(rows(&base, f)), strip(rows(&out, f)), "{name} {f}");
            }
            assert_eq!(stable_summary(&base), stable_summary(&out), "{name}");
        }
    }

    // Standard input.
    let out = t.path().join("stdin");
    let mut child = bin()
        .args(["-", "-o", s(&out)])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let zdata = read(&zst);
    let feeder = std::thread::spawn(move || stdin.write_all(&zdata));
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let errors = rows(&out, "errors.csv");
    assert_eq!(errors.len(), 438 * 4);
    assert!(errors.iter().all(|r| r[0] == "-"));
    assert_eq!(stable_summary(&base), stable_summary(&out));
}

#[test]
fn split_holds_every_game_byte_for_byte() {
    let t = tempdir();
    let sample = read(Path::new(SAMPLE));
    let mut data = sample.clone();
    data.extend_from_slice(b"\n\n");
    data.extend_from_slice(&every_game_flagged());
    data.extend_from_slice(b"1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. O-O *\n");
    let file = write(t.path(), "mixed.pgn", &data);
    let out = t.path().join("r");
    run_ok(&["--split", s(&file)], &out);
    let (games, clean, _, _) = counts(&out);
    assert_eq!((games, clean), (438 * 2 + 1, 438));
    let clean_pgn = read(&out.join("clean.pgn"));
    let rejected = read(&out.join("rejected.pgn"));
    // The clean games are the sample itself, byte for byte.
    assert_eq!(clean_pgn, sample);
    let mut expected = flagged_games().join("\n\n");
    expected.push_str("\n\n1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. O-O *\n");
    assert!(rejected == expected.as_bytes(), "rejected.pgn differs");
}

#[test]
fn windows_1252_names_come_out_as_utf8() {
    let t = tempdir();
    let file = write(
        t.path(),
        "latin1.pgn",
        b"[Event \"Ol\xedmpiada\"]\n[White \"M\xfcller, J\xf6rg\"]\n[Black \"Caf\xe9 \x80\"]\n[FEN \"x\"]\n\n*\n",
    );
    let out = t.path().join("r");
    run_ok(&[s(&file)], &out);
    let e = records(&out, "errors.csv");
    assert_eq!(e.len(), 1);
    assert_eq!(e[0]["event"], "Olímpiada");
    assert_eq!(e[0]["white"], "Müller, Jörg");
    assert_eq!(e[0]["black"], "Café €");
}

#[test]
fn error_rows_for_illegal_moves_and_bad_fens() {
    let t = tempdir();
    let file = write(
        t.path(),
        "bad.pgn",
        b"[Event \"a\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nf6 3. Nxe5 Nc6 4. Ne5 *\n\n\
[Event \"b\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1\"]\n\n1. e4 *\n\n\
[Event \"c\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. Rh2 Nf6 *\n\n\
[Event \"d\"]\n[FEN \"4k3/8/8/8/8/8/4K3/R6R w - - 0 1\"]\n\n1. Rd1 *\n",
    );
    let out = t.path().join("r");
    run_ok(&[s(&file)], &out);
    let got = pick(
        &out,
        "errors.csv",
        &[
            "game", "offset", "line", "ply", "san", "kind", "detail", "fen",
        ],
    );
    let want: Vec<Vec<&str>> = vec![
        vec![
            "1",
            "0",
            "1",
            "7",
            "Ne5",
            "illegal_move",
            "Ne5 is not a legal move for White in this position",
            "r1bqkb1r/pppp1ppp/2n2n2/4N3/4P3/8/PPPP1PPP/RNBQKB1R w KQkq - 1 4",
        ],
        vec![
            "2",
            "68",
            "6",
            "0",
            "",
            "bad_fen",
            "FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1\" cannot be read: invalid board part in fen",
            "",
        ],
        vec![
            "3",
            "166",
            "12",
            "2",
            "Nf6",
            "illegal_move",
            "Black has no knight to play Nf6",
            "4k3/8/8/8/8/8/7R/4K3 b - - 1 1",
        ],
        vec![
            "4",
            "232",
            "17",
            "1",
            "Rd1",
            "ambiguous_move",
            "more than one legal move matches Rd1",
            "4k3/8/8/8/8/8/4K3/R6R w - - 0 1",
        ],
    ];
    assert_eq!(got, want);
    assert_eq!(counts(&out), (4, 0, 0, 4));
}

#[test]
fn sloppy_but_unique_notation_is_no_error() {
    let t = tempdir();
    // The same legal game (checked with python-chess) written cleanly and
    // sloppily: an e.p. suffix, a missing x, a promotion without =, a wrong
    // check mark, castling with zeros, needless disambiguation, an extra x.
    let file = write(
        t.path(),
        "sloppy.pgn",
        b"1. e4 d5 2. exd5 c5 3. dxc6 Nf6 4. cxb7 Nbd7 5. bxa8=Q e6 6. Nf3 Be7 7. Be2 O-O 8. O-O Qb6 9. Qxa7 Qxa7 *\n\n\
1. e4 d5 2. exd5 c5 3. dxc6e.p. Nf6 4. cb7 Nbd7 5. bxa8Q e6 6. Nf3+ Be7 7. Be2 0-0 8. O-O Qb6 9. Qa8xa7 Qxa7 *\n\n\
1. e4 d5 2. exd5 c5 3. dxc6 e.p. Nf6 4. cxb7 Nbd7 5. bxa8=Q e6 6. Nf3 Be7 7. Be2 O-O 8. O-O Qb6 9. Qxa7 Qxxa7 *\n",
    );
    let out = t.path().join("r");
    run_ok(&[s(&file)], &out);
    let e = pick(&out, "errors.csv", &["game", "line", "kind"]);
    assert_eq!(
        e,
        strings(&[&["3", "5", "parse_error"]]),
        "only the unreadable Qxxa7"
    );
    assert_eq!(counts(&out), (3, 2, 0, 1));
    assert_eq!(summary(&out)["notation_quirks"], 6 + 1);
}

#[test]
fn a_missing_input_is_exit_2_naming_the_path() {
    let t = tempdir();
    let out = t.path().join("r");
    let o = run(&["no/such/file.pgn", "--quiet"], &out);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.trim(),
        "pgn-audit: no/such/file.pgn: no such file or directory"
    );
    // Issue 23 item 9: the missing source is listed with its error, as a
    // source that breaks off is, and the reports say it held no game.
    assert_eq!(counts(&out).0, 0);
    assert_eq!(
        summary(&out)["source_details"][0]["error"],
        "no such file or directory"
    );
}

#[test]
fn an_unwritable_output_folder_is_exit_2() {
    let t = tempdir();
    let file = write(t.path(), "not-a-dir", b"x");
    let out = file.join("reports");
    let o = run(&[SAMPLE], &out);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("pgn-audit: cannot write reports: "),
        "{err}"
    );
    assert!(err.contains(s(&out)), "{err}");
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn a_truncated_compressed_input_reports_the_games_before_it_then_exit_2() {
    let t = tempdir();
    let data = read(Path::new(SAMPLE));
    let z = zstd::encode_all(&data[..], 3).unwrap();
    let cut = write(t.path(), "cut.pgn.zst", &z[..z.len() / 2]);
    let out = t.path().join("r");
    let o = run(&[s(&cut)], &out);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    let first = err.lines().next().unwrap();
    assert!(
        first.starts_with(&format!(
            "pgn-audit: {}: zstd stream is corrupt or truncated",
            s(&cut)
        )),
        "{err}"
    );
    let (games, ..) = counts(&out);
    assert!(games > 100 && games < 438, "{games} games before the fault");
}

#[test]
fn a_directory_is_read_in_sorted_order_and_skips_other_files() {
    let t = tempdir();
    let dir = t.path().join("in");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    write(&dir, "b.pgn", b"[Event \"b\"]\n[FEN \"x\"]\n\n*\n");
    write(
        &dir.join("sub"),
        "a.pgn",
        b"[Event \"sub/a\"]\n[FEN \"x\"]\n\n*\n",
    );
    write(&dir, "a.pgn.gz", &{
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"[Event \"a\"]\n[FEN \"x\"]\n\n*\n").unwrap();
        gz.finish().unwrap()
    });
    write(&dir, "notes.txt", b"not a pgn");
    let out = t.path().join("r");
    run_ok(&[s(&dir)], &out);
    let e = records(&out, "errors.csv");
    let got: Vec<(String, String)> = e
        .iter()
        .map(|r| (r["source"].clone(), r["event"].clone()))
        .collect();
    let d = s(&dir);
    assert_eq!(
        got,
        vec![
            (format!("{d}/a.pgn.gz"), "a".to_owned()),
            (format!("{d}/b.pgn"), "b".to_owned()),
            (format!("{d}/sub/a.pgn"), "sub/a".to_owned()),
        ]
    );
}

/// The pool's threads are named `audit-N` (issue 27), so that `top -H`, a
/// profile and a user see which threads audit: a run at `-j 3` that waits
/// on an open pipe shows exactly `audit-0`, `audit-1` and `audit-2`.
#[test]
fn the_pool_threads_are_named_audit_n() {
    let t = tempdir();
    let out = t.path().join("r");
    let mut child = bin()
        .args(["-", "-j", "3", "--quiet", "-o", s(&out)])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"[Event \"x\"]\n\n1. e4 e5 *\n\n").unwrap();
    stdin.flush().unwrap();
    let tasks = format!("/proc/{}/task", child.id());
    let names = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&tasks)
            .map(|d| {
                d.filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("comm")).ok())
                    .map(|n| n.trim_end().to_owned())
                    .filter(|n| n.starts_with("audit-"))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let started = std::time::Instant::now();
    while names().len() < 3 && started.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(names(), ["audit-0", "audit-1", "audit-2"]);
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(counts(&out).0, 1);
}
