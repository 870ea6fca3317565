//! Parquet out and in (issue 29, contract v3 "Parquet"): `--format parquet`
//! writes the CSV reports' rows as typed Parquet tables, which pyarrow
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
/// what it printed; a failure (pyarrow missing included) fails the test.
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
        "{script} failed (run tests/setup-oracles for pyarrow): {}",
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

#[test]
#[cfg_attr(not(oracle_pyarrow), ignore = "needs pyarrow: run tests/setup-oracles")]
fn parquet_reports_read_back_by_pyarrow_equal_the_csv_reports() {
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
                true => "int64",
                false => "string",
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
fn parquet_table(
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
