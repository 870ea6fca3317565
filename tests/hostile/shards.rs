//! Issue 23, items 6, 8 and 13: merge trusts nothing it is given. Every
//! shard's summary.json must agree with itself and with its rows (games =
//! clean + flagged + incomplete; each count equals its rows; rows in input
//! order), the pieces of one source must come from one version of the file
//! (its modification time to the nanosecond, and its first and last bytes),
//! and a signal ends a merge with 130 and no report left half-written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::common::{self, s};
use pgn_audit_core::audit::QuirkCode;

/// Six games: two flagged by castling after the king moved (the second
/// castles with zeros, a notation quirk), one clean, one with a bad FEN,
/// Fool's mate scored as a draw (flagged), and one that castles illegally
/// and then plays an illegal move (incomplete, not flagged).
const GAMES: &str = "[Event \"castle\"]\n\n\
1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O *\n\n\
[Event \"clean\"]\n\n1. e4 e5 *\n\n\
[Event \"bad fen\"]\n[FEN \"not a fen\"]\n\n1. e4 *\n\n\
[Event \"castle with zeros\"]\n\n\
1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. 0-0 *\n\n\
[Event \"fool's mate\"]\n[Result \"1/2-1/2\"]\n\n1. f3 e5 2. g4 Qh4# 1/2-1/2\n\n\
[Event \"castle, then illegal\"]\n\n\
1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O Nc6 7. Ke1 *\n";

/// Every file below `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

fn merge(dirs: &[&Path], out: &Path) -> Output {
    let mut cmd = common::bin();
    cmd.arg("merge")
        .args(dirs)
        .arg("-o")
        .arg(out)
        .arg("--quiet");
    cmd.output().unwrap()
}

/// The one line of standard error of a merge that must exit 2.
fn refusal(o: &Output) -> String {
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

/// A shard of [`GAMES`], written with `--quirks`, in a folder of its own.
fn shard(dir: &Path, name: &str) -> PathBuf {
    let input = common::write(dir, &format!("{name}.pgn"), GAMES.as_bytes());
    let out = dir.join(name);
    common::run_ok(&[s(&input), "--quirks", "--split"], &out);
    out
}

/// Rewrites summary.json of `dir` through `edit`.
fn edit_summary(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut v = common::summary(dir);
    edit(&mut v);
    std::fs::write(dir.join("summary.json"), v.to_string()).unwrap();
}

/// Rewrites the data lines of report `file` of `dir` (header kept) through
/// `edit`.
fn edit_rows(dir: &Path, file: &str, edit: impl FnOnce(&mut Vec<String>)) {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut rows = lines.split_off(1);
    edit(&mut rows);
    lines.extend(rows);
    std::fs::write(dir.join(file), lines.join("\n") + "\n").unwrap();
}

/// Item 6: a shard whose summary.json breaks one of its identities, or
/// whose counts disagree with its rows, is refused with one line naming
/// the folder and the identity; the output folder (holding an earlier
/// merge) is left exactly as it was.
#[test]
fn merge_refuses_a_shard_that_breaks_an_identity() {
    let t = common::tempdir();
    let good = shard(t.path(), "good");
    assert_eq!(common::counts(&good), (6, 1, 3, 2));
    assert_eq!(common::summary(&good)["notation_quirks"], 1);
    let out = t.path().join("out");
    let o = merge(&[&good], &out);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let before = snapshot(&out);

    type Tamper = Box<dyn Fn(&Path)>;
    let cases: Vec<(Tamper, &str)> = vec![
        (
            Box::new(|d| edit_summary(d, |v| v["games"] = 13.into())),
            "summary.json says games 13, but clean + flagged + incomplete is 6",
        ),
        (
            Box::new(|d| edit_summary(d, |v| v["source_details"][0]["games"] = 5.into())),
            "summary.json says games 6, but its source_details add up to 5",
        ),
        (
            Box::new(|d| edit_summary(d, |v| v["source_details"][0]["bytes"] = 5.into())),
            "summary.json says bytes LEN, but its source_details add up to 5",
        ),
        (
            Box::new(|d| edit_rows(d, "errors.csv", Vec::clear)),
            "summary.json counts errors illegal_move 1, but errors.csv has 0 such rows",
        ),
        (
            Box::new(|d| edit_rows(d, "castling.csv", |r| r.insert(0, r[0].clone()))),
            "summary.json counts castling king_moved 3, but castling.csv has 4 such rows",
        ),
        (
            Box::new(|d| {
                edit_summary(d, |v| {
                    v["incomplete"] = 3.into();
                    v["clean"] = 0.into();
                })
            }),
            "summary.json counts incomplete 3, but errors.csv has 2 rows",
        ),
        (
            Box::new(|d| {
                edit_summary(d, |v| {
                    v["flagged"] = 4.into();
                    v["clean"] = 0.into();
                })
            }),
            "summary.json counts flagged 4, but its reports flag 3 games",
        ),
        (
            Box::new(|d| edit_rows(d, "quirks.csv", Vec::clear)),
            "summary.json counts notation_quirks 1, but quirks.csv has 0 rows",
        ),
        (
            Box::new(|d| edit_rows(d, "castling.csv", |r| r.swap(0, 1))),
            "castling.csv row 3 is out of input order",
        ),
        (
            Box::new(|d| {
                edit_rows(d, "results.csv", |r| {
                    r[0] = r[0].replacen(",5,", ",9,", 1);
                })
            }),
            "results.csv row 2 is game 9 of SOURCE, which has 6 games",
        ),
        (
            Box::new(|d| {
                edit_rows(d, "results.csv", |r| {
                    r[0] = r[0].replacen("bad.pgn,", "elsewhere.pgn,", 1);
                })
            }),
            "results.csv row 2 names source elsewhere.pgn, which summary.json does not list",
        ),
        // Issue 25 point 3: every code cell is read as its typed value; a
        // text that is no code of the contract is refused, naming the file
        // and the line.
        (
            Box::new(|d| {
                edit_rows(d, "castling.csv", |r| {
                    r[0] = r[0].replacen(",white,", ",wite,", 1)
                })
            }),
            "castling.csv line 2: \"wite\" is not white or black",
        ),
        (
            Box::new(|d| {
                edit_rows(d, "castling.csv", |r| {
                    r[1] = r[1].replacen(",king_moved,", ",king_moved;king_walked,", 1);
                })
            }),
            "castling.csv line 3: \"king_walked\" is not king_moved, rook_moved, rook_captured, \
             no_right_in_fen, king_displaced, rook_displaced, no_rook, path_blocked, in_check, \
             through_check or into_check",
        ),
        (
            Box::new(|d| {
                edit_rows(d, "errors.csv", |r| {
                    r[0] = r[0].replacen(",bad_fen,", ",bad_position,", 1)
                })
            }),
            "errors.csv line 2: \"bad_position\" is not illegal_move, ambiguous_move, \
             unplayable_castle, bad_fen, unsupported_variant or parse_error",
        ),
        (
            Box::new(|d| {
                edit_rows(d, "quirks.csv", |r| {
                    r[0] = r[0].replacen(",castling_with_zeros,", ",zeros,", 1)
                })
            }),
            "QUIRKS",
        ),
    ];
    for (k, (tamper, cause)) in cases.iter().enumerate() {
        let bad = t.path().join(format!("bad{k}"));
        let _ = std::fs::remove_dir_all(&bad);
        let input = common::write(t.path(), "bad.pgn", GAMES.as_bytes());
        common::run_ok(&[s(&input), "--quirks", "--split"], &bad);
        tamper(&bad);
        let quirks: Vec<&str> = QuirkCode::ALL.iter().map(|q| q.code()).collect();
        let (last, rest) = quirks.split_last().unwrap();
        let cause = cause
            .replace(
                "QUIRKS",
                &format!(
                    "quirks.csv line 2: \"zeros\" is not {} or {last}",
                    rest.join(", ")
                ),
            )
            .replace("LEN", &GAMES.len().to_string())
            .replace("SOURCE", s(&input));
        let cause = cause.replace(
            "elsewhere.pgn",
            &s(&input).replace("bad.pgn", "elsewhere.pgn"),
        );
        let o = merge(&[&good, &bad], &out);
        assert_eq!(
            refusal(&o),
            format!("pgn-audit: merge: {}: {cause}\n", s(&bad)),
            "case {k}"
        );
        assert_eq!(
            snapshot(&out),
            before,
            "case {k}: the output folder changed"
        );
    }
}

/// Rewrites the rows of the Parquet report `file` of `dir` through `edit`,
/// each row its cells as text (an integer in decimal), the file's schema
/// kept.
fn edit_parquet_rows(dir: &Path, file: &str, edit: impl FnOnce(&mut Vec<Vec<String>>)) {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use arrow_schema::DataType;
    use std::sync::Arc;
    let path = dir.join(file);
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&path).unwrap(),
    )
    .unwrap();
    let schema = reader.schema().clone();
    let mut rows: Vec<Vec<String>> = Vec::new();
    for batch in reader.build().unwrap() {
        let batch = batch.unwrap();
        for r in 0..batch.num_rows() {
            rows.push(
                batch
                    .columns()
                    .iter()
                    .map(|c| match c.data_type() {
                        DataType::Int64 => c.as_primitive::<Int64Type>().value(r).to_string(),
                        _ => c.as_string::<i32>().value(r).to_owned(),
                    })
                    .collect(),
            );
        }
    }
    edit(&mut rows);
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(k, f)| match f.data_type() {
            DataType::Int64 => Arc::new(
                rows.iter()
                    .map(|r| r[k].parse::<i64>().unwrap())
                    .collect::<Int64Array>(),
            ) as ArrayRef,
            _ => Arc::new(
                rows.iter()
                    .map(|r| Some(r[k].as_str()))
                    .collect::<StringArray>(),
            ),
        })
        .collect();
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let out = std::fs::File::create(&path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(out, schema, None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

/// Issue 29 with item 6: a Parquet shard is held to the same identities as
/// a CSV one, with the same refusals, naming its Parquet reports (whose
/// rows are numbered from 1: a Parquet file has no header row).
#[test]
fn merge_refuses_a_parquet_shard_that_breaks_an_identity() {
    let t = common::tempdir();
    let flags = ["--quirks", "--split", "--format", "parquet"];
    let input = common::write(t.path(), "good.pgn", GAMES.as_bytes());
    let good = t.path().join("good");
    common::run_ok(&[&[s(&input)][..], &flags].concat(), &good);
    assert_eq!(common::counts(&good), (6, 1, 3, 2));
    let out = t.path().join("out");
    let o = merge(&[&good], &out);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let before = snapshot(&out);

    type Tamper = Box<dyn Fn(&Path)>;
    let cases: Vec<(Tamper, &str)> = vec![
        (
            Box::new(|d| edit_summary(d, |v| v["games"] = 13.into())),
            "summary.json says games 13, but clean + flagged + incomplete is 6",
        ),
        (
            Box::new(|d| edit_parquet_rows(d, "errors.parquet", Vec::clear)),
            "summary.json counts errors illegal_move 1, but errors.parquet has 0 such rows",
        ),
        (
            Box::new(|d| edit_parquet_rows(d, "castling.parquet", |r| r.insert(0, r[0].clone()))),
            "summary.json counts castling king_moved 3, but castling.parquet has 4 such rows",
        ),
        (
            Box::new(|d| {
                edit_summary(d, |v| {
                    v["incomplete"] = 3.into();
                    v["clean"] = 0.into();
                })
            }),
            "summary.json counts incomplete 3, but errors.parquet has 2 rows",
        ),
        (
            Box::new(|d| edit_parquet_rows(d, "quirks.parquet", Vec::clear)),
            "summary.json counts notation_quirks 1, but quirks.parquet has 0 rows",
        ),
        (
            Box::new(|d| edit_parquet_rows(d, "castling.parquet", |r| r.swap(0, 1))),
            "castling.parquet row 2 is out of input order",
        ),
        (
            Box::new(|d| edit_parquet_rows(d, "results.parquet", |r| r[0][1] = "9".into())),
            "results.parquet row 1 is game 9 of SOURCE, which has 6 games",
        ),
        (
            Box::new(|d| {
                edit_parquet_rows(d, "results.parquet", |r| {
                    r[0][0] = r[0][0].replace("bad.pgn", "elsewhere.pgn");
                })
            }),
            "results.parquet row 1 names source elsewhere.pgn, which summary.json does not list",
        ),
        (
            Box::new(|d| {
                edit_parquet_rows(d, "castling.parquet", |r| {
                    r[0][17] = "void".into();
                })
            }),
            "castling.parquet row 1: \"void\" is not king_moved, rook_moved, rook_captured, no_right_in_fen, king_displaced, rook_displaced, no_rook, path_blocked, in_check, through_check or into_check",
        ),
    ];
    for (k, (tamper, cause)) in cases.iter().enumerate() {
        let bad = t.path().join(format!("bad{k}"));
        let _ = std::fs::remove_dir_all(&bad);
        let input = common::write(t.path(), "bad.pgn", GAMES.as_bytes());
        common::run_ok(&[&[s(&input)][..], &flags].concat(), &bad);
        tamper(&bad);
        let cause = cause.replace("SOURCE", s(&input)).replace(
            "elsewhere.pgn",
            &s(&input).replace("bad.pgn", "elsewhere.pgn"),
        );
        let o = merge(&[&good, &bad], &out);
        assert_eq!(
            refusal(&o),
            format!("pgn-audit: merge: {}: {cause}\n", s(&bad)),
            "case {k}"
        );
        assert_eq!(
            snapshot(&out),
            before,
            "case {k}: the output folder changed"
        );
    }
}

/// The modification time of `path` in nanoseconds since 1970.
fn modified_ns(path: &Path) -> u128 {
    std::fs::metadata(path)
        .unwrap()
        .modified()
        .unwrap()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// Sets the modification time of `path` to `ns` nanoseconds since 1970.
fn set_modified(path: &Path, ns: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(UNIX_EPOCH + Duration::from_nanos(ns))
        .unwrap();
}

/// Item 8: the pieces of one file are joined only when they saw one
/// version of it: a rewrite of the same size within the same second is
/// told by the nanoseconds of its modification time, and one that keeps
/// even those by the file's first and last bytes. summary.json records
/// both (`modified_ns`, `ends_crc32`).
#[test]
fn merge_refuses_pieces_of_a_file_rewritten_within_the_second() {
    let t = common::tempdir();
    let text = std::fs::read(common::SAMPLE).unwrap();
    let file = common::write(t.path(), "month.pgn", &text);
    let second: u64 = 1_750_000_000_000_000_000;
    set_modified(&file, second + 250_000_000);
    assert_eq!(modified_ns(&file), u128::from(second + 250_000_000));
    let pieces = ["0..500000", "500000..999561"];
    assert_eq!(text.len(), 999_561);
    let run_piece = |k: usize| {
        let out = t.path().join(format!("p{k}"));
        let _ = std::fs::remove_dir_all(&out);
        common::run_ok(&[s(&file), "--piece", pieces[k]], &out);
        out
    };
    let (p0, p1) = (run_piece(0), run_piece(1));
    let detail = &common::summary(&p0)["source_details"][0];
    assert_eq!(detail["modified"], "2025-06-15T15:06:40Z");
    assert_eq!(detail["modified_ns"], second + 250_000_000);
    let mut ends = flate2::Crc::new();
    ends.update(&text[..4096]);
    ends.update(&text[text.len() - 4096..]);
    assert_eq!(detail["ends_crc32"], format!("{:08x}", ends.sum()));
    let out = t.path().join("out");
    let o = merge(&[&p0, &p1], &out);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(common::counts(&out).0, 438);

    // The same size, a letter changed in the first game, 1 ns later: the
    // same second.
    let mut changed = text.clone();
    changed[8] ^= 0x20;
    std::fs::write(&file, &changed).unwrap();
    set_modified(&file, second + 250_000_001);
    let p1 = run_piece(1);
    assert_eq!(
        refusal(&merge(&[&p0, &p1], &out)),
        format!(
            "pgn-audit: merge: {}: a piece of another version of {} than {} \
             (its modification time differs)\n",
            s(&p1),
            s(&file),
            s(&p0)
        )
    );
    // The modification time put back to the nanosecond: the first bytes
    // tell.
    set_modified(&file, second + 250_000_000);
    let p1 = run_piece(1);
    assert_eq!(
        refusal(&merge(&[&p0, &p1], &out)),
        format!(
            "pgn-audit: merge: {}: a piece of another version of {} than {} \
             (its first or last bytes differ)\n",
            s(&p1),
            s(&file),
            s(&p0)
        )
    );
    // The last bytes tell as well.
    let mut changed = text.clone();
    let end = changed.len() - 10;
    changed[end] ^= 0x01;
    std::fs::write(&file, &changed).unwrap();
    set_modified(&file, second + 250_000_000);
    let p1 = run_piece(1);
    assert_eq!(
        refusal(&merge(&[&p0, &p1], &out))
            .matches("first or last bytes")
            .count(),
        1
    );
}

/// `copies` tiny games, each with an errors.csv row: a shard whose merge
/// takes long enough to be signalled while it writes.
fn many_rows(dir: &Path, copies: usize) -> PathBuf {
    let mut text = String::with_capacity(copies * 40);
    for i in 0..copies {
        text.push_str(&format!(
            "[Event \"{i}\"]\n[White \"a long name, {i}\"]\n\n1. Ke2 *\n\n"
        ));
    }
    let input = common::write(dir, "rows.pgn", text.as_bytes());
    let out = dir.join("rows");
    common::run_ok(&[s(&input), "--no-html", "-j", "2"], &out);
    out
}

/// Item 13: SIGTERM or SIGINT while merge writes ends it with 130: its
/// temporary files are removed, no summary.json vouches for the folder,
/// and the message says so in one line.
#[test]
#[allow(unsafe_code)] // libc on our own child process
fn a_signal_ends_a_merge_with_130_and_no_half_written_folder() {
    let t = common::tempdir();
    let shard = many_rows(t.path(), 300_000);
    for (sig, name) in [(libc::SIGTERM, "TERM"), (libc::SIGINT, "INT")] {
        let out = t.path().join(format!("out-{name}"));
        let child = common::bin()
            .args(["merge", s(&shard), "-o", s(&out), "--quiet"])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let began = Instant::now();
        while !std::fs::read_dir(&out).is_ok_and(|d| {
            d.filter_map(Result::ok)
                .any(|e| e.file_name().to_string_lossy().ends_with(".partial"))
        }) {
            assert!(began.elapsed() < Duration::from_secs(60), "no report begun");
            std::thread::sleep(Duration::from_millis(1));
        }
        // SAFETY: a signal to our own child, which has not been waited for.
        let r = unsafe { libc::kill(child.id() as libc::pid_t, sig) };
        assert_eq!(r, 0);
        let o = child.wait_with_output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "SIG{name}: {e}");
        assert_eq!(
            e,
            format!(
                "pgn-audit: merge interrupted: {} holds no reports\n",
                s(&out)
            )
        );
        let left: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, [".pgn-audit.lock"], "SIG{name}");
    }
    let started = SystemTime::now();
    let out = t.path().join("out");
    let o = merge(&[&shard], &out);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(common::counts(&out), (300_000, 0, 0, 300_000));
    eprintln!("merged 300,000 rows in {:?}", started.elapsed().unwrap());
}

/// Item 11's option: `--max-window` changes the reports (a stream above
/// the limit is a read error, below it is read), so summary.json records
/// it in `options` as `max_window`, the limit in MiB as the run applied it
/// (rounded down to a power of two), and merge refuses shards audited with
/// different limits, in one line, exit 2, writing nothing.
#[test]
fn merge_refuses_shards_audited_with_another_max_window() {
    let t = common::tempdir();
    let audit = |name: &str, extra: &[&str]| {
        let input = common::write(t.path(), &format!("{name}.pgn"), GAMES.as_bytes());
        let out = t.path().join(name);
        let mut args = vec![s(&input), "--no-html"];
        args.extend(extra);
        common::run_ok(&args, &out);
        out
    };
    let default = audit("default", &[]);
    let wide = audit("wide", &["--max-window", "300"]);
    let also_wide = audit("also-wide", &["--max-window", "256"]);
    assert_eq!(common::summary(&default)["options"]["max_window"], 128);
    assert_eq!(common::summary(&wide)["options"]["max_window"], 256);

    let out = t.path().join("merged");
    let o = merge(&[&default, &wide], &out);
    assert_eq!(
        refusal(&o),
        format!(
            "pgn-audit: merge: {}: written with other options than {} (--max-window 256 here, \
             128 there): merge folders written with the same options\n",
            s(&wide),
            s(&default)
        )
    );
    assert!(!out.exists());

    let o = merge(&[&wide, &also_wide], &out);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(common::summary(&out)["options"]["max_window"], 256);
    assert_eq!(common::counts(&out).0, 2 * 6);

    // A summary.json without the key (written before it was recorded) says
    // nothing of the limit its run used: refused, not taken for 128.
    edit_summary(&also_wide, |v| {
        v["options"].as_object_mut().unwrap().remove("max_window");
    });
    let o = merge(&[&wide, &also_wide], &t.path().join("merged-2"));
    assert_eq!(
        refusal(&o),
        format!(
            "pgn-audit: merge: {}: not a summary of version 3 of the report contract\n",
            s(&also_wide.join("summary.json"))
        )
    );
}
