//! Parquet out and in (issue 29, contract v3 "Parquet"): `--format parquet`
//! writes the CSV reports' rows as typed Parquet tables, which DuckDB
//! reads back equal to the CSV reports; merge joins Parquet folders as one
//! run writes them; a Parquet table of games in the Lichess dataset's
//! schema audits to the rows of the same games as PGN.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::common::*;
use crate::support;

/// The row reports of a run with `--quirks`, by their CSV names.
const REPORTS: [&str; 6] = [
    "castling.csv",
    "claims.csv",
    "missed_draws.csv",
    "errors.csv",
    "results.csv",
    "quirks.csv",
];

/// The columns the contract types as 64-bit integers; every other is text.
const INTEGER_COLUMNS: [&str; 7] = [
    "game",
    "offset",
    "line",
    "ply",
    "occurrences",
    "occurrences_ignoring_rights",
    "plies_after",
];

/// Runs `tests/parquet/SCRIPT ARGS` with the tests' Python and returns
/// what it printed; a failure (pyarrow or DuckDB missing included) fails
/// the test.
fn python_script(script: &str, args: &[&str]) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/parquet")
        .join(script);
    let out =
        python().arg(&path).args(args).output().unwrap_or_else(|e| {
            panic!("{script}: {} cannot be run: {e}", env!("PGN_AUDIT_PYTHON"))
        });
    assert!(
        out.status.success(),
        "{script} failed (run tests/setup-oracles for pyarrow and DuckDB): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The sample with findings of every report: bad FENs (errors.csv),
/// coordinate moves (quirks.csv), a mate scored for the mated side
/// (results.csv), a fivefold repetition played on (missed_draws.csv), a
/// castle after a king walk (castling.csv), and the sample's own implied
/// claims.
fn findings_rich(dir: &Path) -> PathBuf {
    let sample = sample_games();
    let mated = sample[0].replace("0-1", "1-0");
    assert!(mated.ends_with("Qg2# { [%clk 0:00:52] } 1-0"), "{mated}");
    let shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 ".repeat(4);
    let fivefold = format!(
        "[Event \"Shuffle\"]\n[Site \"?\"]\n[Date \"2025.05.02\"]\n[Round \"1\"]\n\
         [White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n{shuffle}9. e4 *"
    );
    let walk = "[Event \"Walk\"]\n[Site \"?\"]\n[Date \"1975.01.01\"]\n[Round \"2\"]\n\
                [White \"c\"]\n[Black \"d\"]\n[Result \"*\"]\n\n\
                1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O *"
        .to_owned();
    let games: Vec<String> = sample
        .iter()
        .enumerate()
        .map(|(i, g)| match i % 9 {
            0 => with_bad_fen(g),
            4 => g.replacen("\n\n1. e4 ", "\n\n1. e2e4 ", 1),
            _ => g.clone(),
        })
        .chain([mated, fivefold, walk])
        .collect();
    write(dir, "rich.pgn", (games.join("\n\n") + "\n").as_bytes())
}

/// Issue 29: `--format parquet` reports, read back by DuckDB, equal the CSV
/// reports of the same input cell for cell, their integer columns BIGINT
/// and the others VARCHAR, on corpora/ and a findings-rich file; only
/// `options.format` tells the summaries apart.
#[test]
#[cfg_attr(not(oracle_duckdb), ignore = "needs DuckDB: run tests/setup-oracles")]
fn parquet_reports_read_back_by_duckdb_equal_the_csv_reports() {
    let t = tempdir();
    let rich = findings_rich(t.path());
    let corpora = corpus("");
    let inputs = [s(&corpora), s(&rich), "--quirks"];
    let csv = t.path().join("csv");
    let parquet = t.path().join("parquet");
    run_ok(&inputs, &csv);
    run_ok(&[&inputs[..], &["--format", "parquet"]].concat(), &parquet);
    let read: serde_json::Value =
        serde_json::from_str(&python_script("read_reports.py", &[s(&parquet)])).unwrap();
    let mut rows_seen = 0;
    for file in REPORTS {
        let name = file.replace(".csv", ".parquet");
        assert!(!parquet.join(file).exists(), "{file} is not written");
        let table = &read[&name];
        let mut header = csv::Reader::from_path(csv.join(file)).unwrap();
        let header: Vec<String> = header
            .headers()
            .unwrap()
            .iter()
            .map(str::to_owned)
            .collect();
        let columns: Vec<(String, String)> = table["columns"]
            .as_array()
            .unwrap_or_else(|| panic!("{name} was read"))
            .iter()
            .map(|c| (c[0].as_str().unwrap().into(), c[1].as_str().unwrap().into()))
            .collect();
        let names: Vec<&String> = columns.iter().map(|(n, _)| n).collect();
        assert_eq!(names, header.iter().collect::<Vec<_>>(), "{name}");
        for (column, kind) in &columns {
            let want = match INTEGER_COLUMNS.contains(&column.as_str()) {
                true => "BIGINT",
                false => "VARCHAR",
            };
            assert_eq!(kind, want, "{name}: {column}");
        }
        let got: Vec<Vec<String>> = serde_json::from_value(table["rows"].clone()).unwrap();
        let want = rows(&csv, file);
        assert_eq!(got, want, "{name}");
        rows_seen += want.len();
    }
    assert!(
        rows_seen > 100,
        "findings in every report: {rows_seen} rows"
    );
    for file in REPORTS {
        assert!(!rows(&csv, file).is_empty(), "{file} has rows to compare");
    }
    let mut a = summary(&csv);
    let mut b = summary(&parquet);
    assert_eq!(a["options"]["format"], "csv");
    assert_eq!(b["options"]["format"], "parquet");
    for s in [&mut a, &mut b] {
        let o = s.as_object_mut().unwrap();
        o.remove("seconds");
        o.remove("helpmate_seconds");
        o["options"].as_object_mut().unwrap().remove("format");
    }
    assert_eq!(a, b, "summary.json is the same but for options.format");
    assert!(parquet.join("report.html").exists());
}

/// Every Parquet report of a folder, by name.
fn parquet_reports(out: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// summary.json without what differs between runs of the same input: its
/// timings and thread count.
fn stable_summary(out: &Path) -> serde_json::Value {
    let mut v = summary(out);
    for key in ["seconds", "helpmate_seconds", "threads"] {
        v.as_object_mut().unwrap().remove(key);
    }
    v
}

#[test]
fn parquet_reports_are_the_same_bytes_at_every_thread_count() {
    let t = tempdir();
    let rich = findings_rich(t.path());
    let mut first = None;
    for j in ["1", "2", "8"] {
        let out = t.path().join(format!("j{j}"));
        run_ok(
            &[s(&rich), "--quirks", "--format", "parquet", "-j", j],
            &out,
        );
        let reports = parquet_reports(&out);
        assert_eq!(reports.len(), 6, "{:?}", reports.keys());
        assert!(csv_reports(&out).is_empty());
        match &first {
            None => first = Some(reports),
            Some(f) => assert!(f == &reports, "-j{j} differs"),
        }
    }
}

#[test]
fn merge_of_parquet_shards_equals_one_run() {
    let t = tempdir();
    let rich = findings_rich(t.path());
    let sample = Path::new(SAMPLE);
    let flags = ["--quirks", "--split", "--format", "parquet", "-j", "2"];
    let single = t.path().join("single");
    run_ok(&[&[s(&rich), s(sample)][..], &flags].concat(), &single);
    // Sources in folders of their own.
    let a = t.path().join("a");
    let b = t.path().join("b");
    run_ok(&[&[s(&rich)][..], &flags].concat(), &a);
    run_ok(&[&[s(sample)][..], &flags].concat(), &b);
    let merged = t.path().join("merged");
    let o = bin()
        .arg("merge")
        .args([&a, &b])
        .arg("-o")
        .arg(&merged)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(parquet_reports(&single), parquet_reports(&merged));
    assert_eq!(parquet_reports(&merged).len(), 6);
    assert_eq!(stable_summary(&single), stable_summary(&merged));
    for f in ["clean.pgn", "rejected.pgn"] {
        assert_eq!(
            std::fs::read(single.join(f)).unwrap(),
            std::fs::read(merged.join(f)).unwrap()
        );
    }
    // Pieces of one source, their rows counted on from the pieces before.
    let whole = t.path().join("whole");
    run_ok(&[&[s(&rich)][..], &flags].concat(), &whole);
    let plan = bin()
        .args(["plan", s(&rich), "--piece-size", "200000"])
        .output()
        .unwrap();
    let plan = String::from_utf8(plan.stdout).unwrap();
    let pieces: Vec<PathBuf> = plan
        .lines()
        .enumerate()
        .map(|(k, bounds)| {
            let out = t.path().join(format!("piece{k}"));
            run_ok(&[&[s(&rich), "--piece", bounds][..], &flags].concat(), &out);
            out
        })
        .collect();
    assert!(pieces.len() >= 3, "{plan}");
    let joined = t.path().join("joined");
    let o = bin()
        .arg("merge")
        .args(&pieces)
        .arg("-o")
        .arg(&joined)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(parquet_reports(&whole), parquet_reports(&joined));
    assert_eq!(stable_summary(&whole), stable_summary(&joined));
}

#[test]
fn merge_refuses_folders_of_two_formats() {
    let t = tempdir();
    let a = t.path().join("a");
    let b = t.path().join("b");
    let c = t.path().join("c");
    run_ok(&[SAMPLE], &a);
    let other = write(t.path(), "other.pgn", sample_games()[0].as_bytes());
    run_ok(&[s(&other), "--format", "parquet"], &b);
    let out = t.path().join("merged");
    let o = bin()
        .arg("merge")
        .args([&a, &b])
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "pgn-audit: merge: {}: written with other options than {} (--format parquet here, csv there): merge folders written with the same options\n",
            b.display(),
            a.display()
        )
    );
    assert!(!out.join("summary.json").exists());
    // A Parquet report that is not one of this version's is refused.
    run_ok(&[s(&other), "--format", "parquet"], &c);
    std::fs::copy(b.join("claims.parquet"), c.join("castling.parquet")).unwrap();
    let o = bin()
        .arg("merge")
        .args([&b, &c])
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "pgn-audit: merge: {}: its columns are not those of version 3 of the report contract\n",
            c.join("castling.parquet").display()
        )
    );
}

#[test]
fn a_parquet_run_clears_the_csv_reports_of_an_earlier_run() {
    let t = tempdir();
    let out = t.path().join("out");
    run_ok(&[SAMPLE, "--quirks"], &out);
    assert_eq!(csv_reports(&out).len(), 6);
    run_ok(&[SAMPLE, "--format", "parquet"], &out);
    assert!(csv_reports(&out).is_empty());
    assert_eq!(parquet_reports(&out).len(), 5);
    run_ok(&[SAMPLE], &out);
    assert!(parquet_reports(&out).is_empty());
    assert_eq!(csv_reports(&out).len(), 5);
}

/// A Parquet file of `n` rows: `columns` of text, each row's cells given
/// by `cell(row, column)`, in row groups of `per_group` rows.
pub(crate) fn parquet_table(
    path: &Path,
    columns: &[&str],
    n: usize,
    per_group: usize,
    cell: impl Fn(usize, usize) -> Option<String>,
) {
    use arrow_array::{RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|c| Field::new(*c, DataType::Utf8, true))
            .collect::<Vec<_>>(),
    ));
    let file = std::fs::File::create(path).unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(per_group))
        .build();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, schema.clone(), Some(props)).unwrap();
    let mut start = 0;
    while start < n {
        let end = (start + 8192).min(n);
        let arrays = (0..columns.len())
            .map(|c| {
                Arc::new((start..end).map(|r| cell(r, c)).collect::<StringArray>())
                    as arrow_array::ArrayRef
            })
            .collect();
        w.write(&RecordBatch::try_new(schema.clone(), arrays).unwrap())
            .unwrap();
        start = end;
    }
    w.close().unwrap();
}

/// Columns as pandas and Polars write categories and exact numbers: a
/// dictionary-encoded text column is a tag (its values), dictionary-encoded
/// `movetext` is the movetext, and a decimal column is a tag written in
/// decimal (`12`, `1.50`). The tags were missing, and such a movetext
/// column was refused.
#[test]
fn dictionary_text_and_decimal_columns_are_read_as_their_values() {
    use arrow_array::types::Int32Type;
    use arrow_array::{Decimal128Array, DictionaryArray, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};
    let t = tempdir();
    let path = t.path().join("categories.parquet");
    let text = || DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let schema = Arc::new(Schema::new(vec![
        Field::new("Event", text(), true),
        Field::new("Round", DataType::Decimal128(20, 0), true),
        Field::new("WhiteElo", DataType::Decimal128(10, 2), true),
        Field::new("movetext", text(), true),
    ]));
    let moves = "1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O *";
    let event: DictionaryArray<Int32Type> = vec![Some("Ev1"), Some("Ev2"), Some("Ev1")]
        .into_iter()
        .collect();
    let round = Decimal128Array::from(vec![Some(12), None, Some(3)])
        .with_precision_and_scale(20, 0)
        .unwrap();
    let elo = Decimal128Array::from(vec![Some(150), Some(-5), Some(0)])
        .with_precision_and_scale(10, 2)
        .unwrap();
    let movetext: DictionaryArray<Int32Type> = vec![Some(moves), Some(moves), Some(moves)]
        .into_iter()
        .collect();
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(event),
            Arc::new(round),
            Arc::new(elo),
            Arc::new(movetext),
        ],
    )
    .unwrap();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(std::fs::File::create(&path).unwrap(), schema, None)
            .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let out = t.path().join("out");
    run_ok(&[s(&path), "--split"], &out);
    assert_eq!(
        pick(&out, "castling.csv", &["game", "event", "reasons"]),
        strings(&[
            &["1", "Ev1", "king_moved"],
            &["2", "Ev2", "king_moved"],
            &["3", "Ev1", "king_moved"],
        ])
    );
    let split = std::fs::read_to_string(out.join("rejected.pgn")).unwrap();
    let tags: Vec<&str> = split.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(
        tags,
        [
            "[Event \"Ev1\"]",
            "[Round \"12\"]",
            "[WhiteElo \"1.50\"]",
            "[Event \"Ev2\"]",
            "[WhiteElo \"-0.05\"]",
            "[Event \"Ev1\"]",
            "[Round \"3\"]",
            "[WhiteElo \"0.00\"]",
        ]
    );
}

#[test]
fn a_parquet_file_without_movetext_is_refused_with_one_line() {
    let t = tempdir();
    let path = t.path().join("games.parquet");
    parquet_table(&path, &["Event", "moves"], 3, 10, |_, _| Some("x".into()));
    let out = t.path().join("out");
    let o = run(&[s(&path), "--quiet"], &out);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "pgn-audit: {}: refused: a Parquet file without a movetext column, not a table of games\n",
            path.display()
        )
    );
    // Other sources are still audited.
    let o = run(&[s(&path), SAMPLE, "--quiet"], &out);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(summary(&out)["games"], 438);
    // Parquet on standard input cannot be read by its footer.
    let o = bin()
        .args(["-", "--quiet", "-o"])
        .arg(&out)
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "pgn-audit: -: refused: a Parquet file is read from a regular file, not a stream or an archive member\n"
    );
}

#[test]
fn parquet_rows_are_games_with_their_row_as_offset_and_line() {
    let t = tempdir();
    let path = t.path().join("games.parquet");
    // Row 1 has a null Event (no tag), row 2 a quote in White; every game
    // castles illegally after a king walk (a castling.csv row each).
    let moves = "1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O *";
    parquet_table(
        &path,
        &["Event", "White", "movetext"],
        5,
        2,
        |r, c| match c {
            0 => (r != 1).then(|| format!("E{r}")),
            1 => Some(if r == 2 {
                "A \"B\" C".into()
            } else {
                format!("W{r}")
            }),
            _ => Some(moves.into()),
        },
    );
    let out = t.path().join("out");
    run_ok(&[s(&path), "-j", "2"], &out);
    assert_eq!(
        pick(
            &out,
            "castling.csv",
            &[
                "source", "game", "offset", "line", "event", "white", "reasons"
            ]
        ),
        (0..5)
            .map(|r| {
                vec![
                    s(&path).to_owned(),
                    (r + 1).to_string(),
                    r.to_string(),
                    (r + 1).to_string(),
                    if r == 1 {
                        String::new()
                    } else {
                        format!("E{r}")
                    },
                    if r == 2 {
                        "A \"B\" C".into()
                    } else {
                        format!("W{r}")
                    },
                    "king_moved".to_owned(),
                ]
            })
            .collect::<Vec<_>>()
    );
    let s = summary(&out);
    assert_eq!(s["games"], 5);
    assert_eq!(s["source_details"][0]["games"], 5);
    assert_eq!(s["source_details"][0]["error"], serde_json::Value::Null);
}

/// The memory bound holds for a Parquet file of two million games: it is
/// read a row group at a time.
#[test]
fn two_million_parquet_rows_stay_within_the_memory_bound() {
    let t = tempdir();
    let path = t.path().join("many.parquet");
    let n = 2_000_000;
    parquet_table(
        &path,
        &["Event", "Result", "movetext"],
        n,
        100_000,
        |r, c| {
            Some(match c {
                0 => format!("G{r}"),
                1 => "1/2-1/2".to_owned(),
                _ => "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2".to_owned(),
            })
        },
    );
    let out = t.path().join("out");
    let mut cmd = bin();
    cmd.args([s(&path), "-j", "2", "--quiet", "-o", s(&out)]);
    let ran = support::run_measured(cmd, None);
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    ran.assert_peak_at_most(support::PEAK_MIB);
    let s = summary(&out);
    assert_eq!(s["games"], n as u64);
    // Every game's final position stands three times: an implied claim.
    assert_eq!(s["claims"]["valid"], n as u64);
    let last = records(&out, "claims.csv").pop().unwrap();
    assert_eq!(
        (
            last["game"].as_str(),
            last["offset"].as_str(),
            last["line"].as_str()
        ),
        ("2000000", "1999999", "2000000")
    );
}

/// Issue 29: the bundled sample written by pyarrow as a table in exactly
/// the Lichess dataset's 18 columns (ratings int64, `UTCDate` a date,
/// `UTCTime` a time) audits to the PGN sample's rows but for `source`,
/// `offset` and `line`, and for `date` and `round`, which that table has
/// no column for (`""`; its `UTCDate` is a tag of its own).
#[test]
#[cfg_attr(not(oracle_pyarrow), ignore = "needs pyarrow: run tests/setup-oracles")]
fn the_sample_in_the_lichess_schema_audits_as_the_pgn_sample() {
    let t = tempdir();
    let path = t.path().join("lichess.parquet");
    let n = python_script("lichess_parquet.py", &[SAMPLE, s(&path), "64"]);
    assert_eq!(n.trim(), "438");
    let pgn = t.path().join("pgn");
    let parquet = t.path().join("parquet");
    run_ok(&[SAMPLE, "--quirks", "-j", "2"], &pgn);
    run_ok(&[s(&path), "--quirks", "-j", "2"], &parquet);
    let mut compared = 0;
    for file in REPORTS {
        let strip = |out: &Path| -> Vec<Vec<String>> {
            records(out, file)
                .into_iter()
                .map(|mut r| {
                    if out == parquet {
                        let game: u64 = r["game"].parse().unwrap();
                        assert_eq!(r["offset"], (game - 1).to_string(), "{file}");
                        assert_eq!(r["line"], game.to_string(), "{file}");
                        assert_eq!(r["source"], s(&path), "{file}");
                        assert_eq!((r["date"].as_str(), r["round"].as_str()), ("", ""));
                    }
                    for c in ["source", "offset", "line", "date", "round"] {
                        r.remove(c);
                    }
                    r.into_values().collect()
                })
                .collect()
        };
        let want = strip(&pgn);
        assert_eq!(strip(&parquet), want, "{file}");
        compared += want.len();
    }
    assert_eq!(compared, 9, "the sample's rows, all reports");
    let (a, b) = (stable_summary(&pgn), stable_summary(&parquet));
    for key in [
        "games",
        "clean",
        "flagged",
        "incomplete",
        "claims",
        "notation_quirks",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
}

/// The findings-rich file as a Lichess table with the columns it needs to
/// give the same identity (`Date`, `Round`) and positions (`FEN`) added:
/// every report's rows are the PGN file's but for `source`, `offset` and
/// `line`.
#[test]
#[cfg_attr(not(oracle_pyarrow), ignore = "needs pyarrow: run tests/setup-oracles")]
fn a_lichess_parquet_file_audits_to_the_rows_of_the_pgn_sample() {
    let t = tempdir();
    let rich = findings_rich(t.path());
    let path = t.path().join("lichess.parquet");
    let n = python_script(
        "lichess_parquet.py",
        &[s(&rich), s(&path), "100", "Date", "Round", "FEN"],
    );
    assert_eq!(n.trim(), "441");
    let pgn = t.path().join("pgn");
    let parquet = t.path().join("parquet");
    run_ok(&[s(&rich), "--quirks", "-j", "2"], &pgn);
    run_ok(&[s(&path), "--quirks", "-j", "2"], &parquet);
    let without_place = |out: &Path, file: &str| -> Vec<Vec<String>> {
        records(out, file)
            .into_iter()
            .map(|mut r| {
                let game: u64 = r["game"].parse().unwrap();
                if out == parquet {
                    assert_eq!(r["offset"], (game - 1).to_string());
                    assert_eq!(r["line"], game.to_string());
                    assert_eq!(r["source"], s(&path));
                }
                for c in ["source", "offset", "line"] {
                    r.remove(c);
                }
                r.into_values().collect()
            })
            .collect()
    };
    let mut compared = 0;
    for file in REPORTS {
        let want = without_place(&pgn, file);
        assert!(!want.is_empty(), "{file} has rows");
        assert_eq!(without_place(&parquet, file), want, "{file}");
        compared += want.len();
    }
    assert!(compared >= 80, "{compared}");
    let (a, b) = (stable_summary(&pgn), stable_summary(&parquet));
    for key in [
        "games",
        "clean",
        "flagged",
        "incomplete",
        "castling",
        "claims",
        "missed_draws",
        "errors",
        "results",
        "notation_quirks",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
}

/// A Parquet file is read by its footer and audited whole, its row groups
/// in parallel: `plan` and `--piece` refuse it with one line, as they
/// refuse a zip archive, instead of cutting its bytes as if they were PGN
/// text; `sources` names its format.
#[test]
fn a_parquet_file_is_not_cut_into_pieces() {
    let t = tempdir();
    let path = t.path().join("games.parquet");
    let moves = "1. e4 e5 2. Nf3 Nc6 *";
    parquet_table(&path, &["Event", "movetext"], 3000, 1000, |r, c| {
        Some(if c == 0 {
            format!("E{r}")
        } else {
            moves.into()
        })
    });
    let refused = format!(
        "pgn-audit: {}: a Parquet file cannot be cut into pieces: audit it whole (its row groups are audited in parallel)\n",
        path.display()
    );
    let o = bin()
        .args(["plan", s(&path), "--piece-size", "1000"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stderr), refused);
    assert!(o.stdout.is_empty());
    let out = t.path().join("out");
    let o = run(&[s(&path), "--piece", "0..1000", "--quiet"], &out);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&o.stderr), refused);
    assert!(!out.join("summary.json").exists());
    let o = bin()
        .args(["sources", s(&path), "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let line: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(line["format"], "parquet");
}

/// The text column `name` of the Parquet report at `path`, row by row.
pub(crate) fn parquet_text_column(path: &Path, name: &str) -> Vec<String> {
    use arrow_array::cast::AsArray;
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(path).unwrap(),
    )
    .unwrap()
    .build()
    .unwrap();
    let mut cells = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let column = batch.column_by_name(name).unwrap().as_string::<i32>();
        cells.extend(column.iter().map(|c| c.unwrap().to_owned()));
    }
    cells
}

/// A Parquet cell holds the value itself: a control character or a line
/// separator that the CSV report writes as U+FFFD (so that no line breaks)
/// is kept, and a formula-like cell gets no `'`; `--excel-safe`, a
/// spreadsheet's concern, is refused with `--format parquet`. Merge finds
/// the sources of such a folder by their names as they are, and copies it
/// byte for byte.
#[test]
fn a_parquet_cell_is_the_value_itself() {
    let t = tempdir();
    let game = "[Event \"a\u{1}b\"]\n[White \"=1+2\"]\n[Black \"x\u{2028}y\"]\n\n\
                1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O *\n";
    let input = write(t.path(), "bell\u{7}.pgn", game.as_bytes());
    let csv = t.path().join("csv");
    let parquet = t.path().join("parquet");
    run_ok(&[s(&input)], &csv);
    run_ok(&[s(&input), "--format", "parquet"], &parquet);
    let want = |cell: &str| vec![cell.to_owned()];
    let castling = parquet.join("castling.parquet");
    assert_eq!(parquet_text_column(&castling, "event"), want("a\u{1}b"));
    assert_eq!(parquet_text_column(&castling, "white"), want("=1+2"));
    assert_eq!(parquet_text_column(&castling, "black"), want("x\u{2028}y"));
    assert_eq!(parquet_text_column(&castling, "source"), want(s(&input)));
    assert_eq!(
        pick(&csv, "castling.csv", &["source", "event", "white", "black"]),
        vec![vec![
            s(&input).replace('\u{7}', "\u{fffd}"),
            "a\u{fffd}b".to_owned(),
            "=1+2".to_owned(),
            "x\u{fffd}y".to_owned()
        ]]
    );
    let merged = t.path().join("merged");
    let o = bin()
        .arg("merge")
        .arg(&parquet)
        .arg("-o")
        .arg(&merged)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(parquet_reports(&merged), parquet_reports(&parquet));
    let out = t.path().join("safe");
    let o = run(&[s(&input), "--format", "parquet", "--excel-safe"], &out);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "pgn-audit: --excel-safe: Parquet reports hold typed values, not spreadsheet text: use it with --format csv\n"
    );
    assert!(!out.exists(), "nothing is written");
}

/// A Parquet file is read from its footer, as it is stored: one inside a
/// compression is refused with one line, and the run goes on.
#[test]
fn a_compressed_parquet_file_is_refused_with_one_line() {
    let t = tempdir();
    let path = t.path().join("games.parquet");
    parquet_table(&path, &["movetext"], 3, 10, |_, _| Some("1. e4 *".into()));
    let gz = write(
        t.path(),
        "games.parquet.gz",
        &gzip(&std::fs::read(&path).unwrap()),
    );
    let out = t.path().join("out");
    let o = run(&[s(&gz), s(&path), "--quiet"], &out);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "pgn-audit: {}: refused: a Parquet file inside gzip: a Parquet file is read as it is stored, not decompressed\n",
            gz.display()
        )
    );
    assert_eq!(summary(&out)["games"], 3);
}

/// The reports of a run of `args` into `out` (exit status `code`), each
/// byte, and its summary less its timings.
fn run_reports(
    args: &[&str],
    out: &Path,
    code: i32,
) -> (BTreeMap<String, Vec<u8>>, serde_json::Value) {
    let o = run(args, out);
    assert_eq!(
        o.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (csv_reports(out), stable_summary(out))
}

/// Issue 29: row groups are read at once on the pool, and their games are
/// still reported in row order: the findings-rich file in row groups of 7
/// rows (pyarrow) gives the same bytes at -j1, -j2 and -j8 as in one row
/// group, each row its own offset and line.
#[test]
#[cfg_attr(not(oracle_pyarrow), ignore = "needs pyarrow: run tests/setup-oracles")]
fn row_groups_read_at_once_are_reported_in_row_order() {
    let t = tempdir();
    let rich = findings_rich(t.path());
    let path = t.path().join("lichess.parquet");
    let write = |per_group: &str| {
        let n = python_script(
            "lichess_parquet.py",
            &[s(&rich), s(&path), per_group, "Date", "Round", "FEN"],
        );
        n.trim().parse::<u64>().unwrap()
    };
    // The file's size and times are its own.
    let reports = |out: &Path, j: &str| {
        let (csv, mut summary) = run_reports(&[s(&path), "--quirks", "-j", j], out, 0);
        for key in ["size", "modified", "modified_ns", "ends_crc32"] {
            summary["source_details"][0][key] = serde_json::Value::Null;
        }
        (csv, summary)
    };
    let n = write("1000000");
    assert_eq!(parquet_row_groups(&path), 1);
    let expected = reports(&t.path().join("one"), "2");
    assert_eq!(expected.1["games"], n);
    assert_eq!(write("7"), n);
    assert_eq!(parquet_row_groups(&path), n.div_ceil(7));
    for j in ["1", "2", "8"] {
        let out = t.path().join(format!("j{j}"));
        let many = reports(&out, j);
        assert!(many.0 == expected.0, "-j{j}: the reports differ");
        assert_eq!(many.1, expected.1, "-j{j}");
        let offsets: Vec<u64> = records(&out, "castling.csv")
            .iter()
            .map(|r| r["offset"].parse().unwrap())
            .collect();
        assert!(offsets.is_sorted() && !offsets.is_empty(), "{offsets:?}");
    }
}

/// How many row groups the Parquet file at `path` has.
fn parquet_row_groups(path: &Path) -> u64 {
    use parquet::file::reader::FileReader;
    let file = std::fs::File::open(path).unwrap();
    let reader = parquet::file::serialized_reader::SerializedFileReader::new(file).unwrap();
    reader.metadata().num_row_groups() as u64
}

/// A row group that cannot be read is the source's read error: one line,
/// exit 2, the games of the row groups before it reported, and the same
/// reports at every thread count, though the row groups after it are read
/// at once with it.
#[test]
fn a_corrupt_row_group_is_a_read_error_after_the_rows_before_it() {
    let t = tempdir();
    let path = t.path().join("games.parquet");
    let n = 8000;
    parquet_table(&path, &["Event", "movetext"], n, 1000, |r, c| {
        Some(match c {
            0 => format!("E{r}"),
            _ => format!("1. e4 e5 2. Nf3 {{ row {r} }} Nc6 *"),
        })
    });
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    for b in &mut bytes[middle..middle + 4000] {
        *b ^= 0x55;
    }
    std::fs::write(&path, &bytes).unwrap();
    let mut first = None;
    for j in ["1", "2", "8"] {
        let out = t.path().join(format!("j{j}"));
        let o = run(&[s(&path), "--quiet", "-j", j], &out);
        assert_eq!(o.status.code(), Some(2));
        let e = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.starts_with(&format!(
                "pgn-audit: {}: Parquet read error: ",
                path.display()
            )),
            "{e}"
        );
        let v = summary(&out);
        let games = v["games"].as_u64().unwrap();
        assert!(
            games > 0 && games < n as u64 && games.is_multiple_of(1000),
            "{games}"
        );
        assert_eq!(
            v["source_details"][0]["error"],
            e["pgn-audit: ".len()..]
                .trim_end()
                .split_once(": ")
                .unwrap()
                .1
        );
        let reports = (csv_reports(&out), stable_summary(&out));
        match &first {
            None => first = Some(reports),
            Some(f) => assert!(f == &reports, "-j{j} differs"),
        }
    }
}
