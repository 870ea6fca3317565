//! The command line and summary.json of contract v2 (issue 15): the
//! summary table at 80 columns, `--quiet`, `--fail-on-findings`, the
//! subcommands, the messages of everyday mistakes, summary.json's v2 keys
//! (and `merge` of them). The man pages and completions are in manual.rs.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, UNIX_EPOCH};

use common::*;

/// A game of each finding: two illegal castles in one game and five in
/// five more (six castling reasons, enough to wrap at 80 columns), a false
/// termination claim, a fivefold repetition played on, a result that the
/// movetext contradicts, an illegal move, two clean games (one with an
/// implied claim that is false: it flags nothing).
const FINDINGS: &str = r#"[Event "castles twice"]
[Result "*"]

1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. Kf1 Kf8 5. Ke1 Ke8 6. O-O O-O *

[Event "rook moved"]
[Result "*"]

1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. Rg1 Rg8 5. Rh1 Rh8 6. O-O *

[Event "false claim"]
[Result "1/2-1/2"]
[Termination "threefold repetition"]

1. e4 e5 1/2-1/2

[Event "fivefold"]
[Result "*"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8 9. e4 *

[Event "mismatch"]
[Result "1-0"]

1. e4 e5 0-1

[Event "illegal"]
[Result "*"]

1. e4 Ke7 *

[Event "clean"]
[Result "*"]

1. d4 d5 *

[Event "no right"]
[Result "*"]
[SetUp "1"]
[FEN "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1"]

1. O-O *

[Event "through check"]
[Result "*"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/5r2/4K2R w K - 0 1"]

1. O-O *

[Event "in check"]
[Result "*"]
[SetUp "1"]
[FEN "4k3/8/8/4r3/8/8/8/4K2R w K - 0 1"]

1. O-O *

[Event "blocked"]
[Result "*"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1"]

1. O-O-O *

[Event "implied"]
[Result "1/2-1/2"]

1. Nf3 Nf6 2. Rg1 Rg8 3. Rh1 Rh8 4. Rg1 Rg8 5. Rh1 Rh8 1/2-1/2
"#;

/// 2001-09-09T01:46:40Z.
const BILLENNIUM: u64 = 1_000_000_000;

/// FINDINGS as `findings.pgn` in `dir`, modified at [`BILLENNIUM`].
fn findings_file(dir: &Path) -> PathBuf {
    let p = write(dir, "findings.pgn", FINDINGS.as_bytes());
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(UNIX_EPOCH + Duration::from_secs(BILLENNIUM))
        .unwrap();
    p
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The table's timing line, `  0.0 MiB from N source(s) in S s (R games/s,
/// T threads)`, with S and R replaced by `S` and `R`.
fn without_timing(table: &str) -> String {
    table
        .lines()
        .map(|l| match l.split_once(" in ") {
            Some((head, tail)) if l.starts_with("  ") && head.contains(" MiB from ") => {
                let threads = tail.rsplit_once(", ").expect("threads").1;
                assert!(
                    tail.split(' ').next().unwrap().parse::<f64>().is_ok(),
                    "{l}"
                );
                format!("{head} in S s (R games/s, {threads}")
            }
            _ => l.to_owned(),
        })
        .map(|l| l + "\n")
        .collect()
}

#[test]
fn the_table_at_80_columns_puts_findings_first() {
    let t = tempdir();
    let input = findings_file(t.path());
    let out = t.path().join("r");
    let o = run(&[s(&input), "-j", "2"], &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(counts(&out), (12, 2, 9, 1));
    let dir = s(&out);
    assert_eq!(
        without_timing(&stderr(&o)),
        format!(
            "\
Findings
  illegal castles 7 in 6 games
  false claims    1 (plus 1 implied, not flagged)
  missed draws    1
  result problems 1
  errors          1
By code
  castling: king_moved 2, rook_moved 1, no_right_in_fen 1, path_blocked 1,
    in_check 1, through_check 1
  claims: false_castling_rights 1, false_not_repeated 1
  missed draws: fivefold 1
  results: result_mismatch 1
  errors: illegal_move 1
Run
  12 games: 2 clean, 9 flagged, 1 incomplete; 0 notation quirks
  0.0 MiB from 1 source in S s (R games/s, 2 threads)
Reports in {dir}/ — open {dir}/report.html
"
        )
    );
    for line in stderr(&o).lines() {
        assert!(line.chars().count() <= 80, "{line}");
    }

    // Without report.html the last line names the folder only; a folder
    // given with a slash gets no second one.
    let o = run(&[s(&input), "--no-html", "-j", "1"], &out.join(""));
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stderr(&o).ends_with(&format!("1 threads)\nReports in {dir}/\n")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn quiet_silences_table_and_notes_but_not_errors() {
    let t = tempdir();
    let input = findings_file(t.path());
    let out = t.path().join("r");
    let o = run(&[s(&input), "--quiet", "-j", "999"], &out);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), "");
    assert_eq!(counts(&out), (12, 2, 9, 1));

    // Without --quiet, the same run notes the cut thread count.
    let o = run(&[s(&input), "-j", "999"], &out);
    assert!(
        stderr(&o).starts_with("pgn-audit: -j 999: using "),
        "{}",
        stderr(&o)
    );

    let missing = t.path().join("missing.pgn");
    let o = run(&[s(&input), s(&missing), "--quiet"], &out);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("pgn-audit: {}: no such file or directory\n", s(&missing))
    );
}

#[test]
fn fail_on_findings_exits_1_only_for_a_completed_run_with_findings() {
    let t = tempdir();
    let input = findings_file(t.path());
    let out = t.path().join("r");
    let o = run(&[s(&input), "--fail-on-findings", "--quiet"], &out);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "");
    assert_eq!(counts(&out), (12, 2, 9, 1), "the reports are written");

    // Findings are no failure without the flag.
    let o = run(&[s(&input), "--quiet"], &out);
    assert_eq!(o.status.code(), Some(0));

    // Clean games only: 0.
    let clean = write(t.path(), "clean.pgn", b"[Event \"a\"]\n\n1. d4 d5 *\n");
    let o = run(&[s(&clean), "--fail-on-findings"], &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(counts(&out), (1, 1, 0, 0));

    // An incomplete game alone is a finding.
    let broken = write(t.path(), "broken.pgn", b"[Event \"a\"]\n\n1. e4 Ke7 *\n");
    let o = run(&[s(&broken), "--fail-on-findings"], &out);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(counts(&out), (1, 0, 0, 1));

    // An input error keeps its 2, findings or not.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(FINDINGS.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let cut = write(t.path(), "cut.pgn.gz", &gz[..gz.len() - 12]);
    let o = run(&[s(&input), s(&cut), "--fail-on-findings"], &out);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = run(&[s(&input), "nowhere.pgn", "--fail-on-findings"], &out);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn audit_is_the_default_subcommand_and_merge_its_own() {
    let t = tempdir();
    let input = findings_file(t.path());
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    run_ok(&[s(&input)], &a);
    let o = bin()
        .args(["audit", s(&input), "-o", s(&b)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for f in ["castling.csv", "claims.csv", "errors.csv", "results.csv"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap()
        );
    }

    // A file named merge is audited as ./merge; a file after an input is
    // an input even when named merge.
    write(t.path(), "merge", FINDINGS.as_bytes());
    let c = t.path().join("c");
    let o = bin()
        .current_dir(t.path())
        .args(["./merge", "-o", s(&c)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(counts(&c), (12, 2, 9, 1));
    let o = bin()
        .current_dir(t.path())
        .args(["findings.pgn", "merge", "-o", s(&c)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(counts(&c), (24, 4, 18, 2));

    let o = bin().args(["merge", "--help"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8(o.stdout).unwrap();
    assert!(
        help.contains("\nUsage: pgn-audit merge [OPTIONS] --out <OUT> <REPORT_DIR>...\n"),
        "{help}"
    );
    let o = bin().args(["audit", "--help"]).output().unwrap();
    let help = String::from_utf8(o.stdout).unwrap();
    assert!(
        help.contains("\nUsage: pgn-audit audit [OPTIONS] <INPUT>...\n"),
        "{help}"
    );
}

#[test]
fn help_says_which_page_to_open_and_that_earlier_reports_go() {
    let o = bin().arg("--help").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8(o.stdout).unwrap();
    assert!(help.contains("\nUsage: pgn-audit [OPTIONS] <INPUT>...\n       pgn-audit <COMMAND>\n"));
    assert!(
        help.contains("report.html, the page to open in a browser"),
        "{help}"
    );
    assert!(
        help.contains("The reports of an earlier run in that folder are removed first."),
        "{help}"
    );
    for flag in [
        "--quiet",
        "--fail-on-findings",
        "--split",
        "--no-html",
        "--threads",
    ] {
        assert!(help.contains(flag), "{flag}");
    }
}

#[test]
fn a_misspelt_option_gets_its_nearest_name() {
    for args in [
        &["x.pgn", "--ouput", "d"][..],
        &["merge", "a", "--ouput", "d"][..],
    ] {
        let o = bin().args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            stderr(&o),
            "pgn-audit: unexpected argument '--ouput' found; \
             a similar argument exists: '--out'\n"
        );
    }
    // Nothing near: clap's own advice stays.
    let o = bin().args(["x.pgn", "--zzzzzzz"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "pgn-audit: unexpected argument '--zzzzzzz' found; \
         to pass '--zzzzzzz' as a value, use '-- --zzzzzzz'\n"
    );
}

#[test]
fn an_output_folder_that_is_a_file_is_not_a_directory() {
    let t = tempdir();
    let input = findings_file(t.path());
    let file = write(t.path(), "notes.txt", b"mine");
    let o = run(&[s(&input)], &file);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("pgn-audit: {}: is not a directory\n", s(&file))
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"mine");

    let shard = t.path().join("shard");
    run_ok(&[s(&input)], &shard);
    let o = bin()
        .args(["merge", s(&shard), "-o", s(&file)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("pgn-audit: {}: is not a directory\n", s(&file))
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"mine");
}

/// `-o -` is refused in one line (issue 26): the reports are a folder of
/// files, and standard output is none; nothing named `-` is made, and a
/// folder named `./-` is still a folder.
#[test]
fn standard_output_is_no_report_folder() {
    let t = tempdir();
    let input = findings_file(t.path());
    let shard = t.path().join("shard");
    run_ok(&[s(&input)], &shard);
    let line = "pgn-audit: -: standard output is no report folder: name a folder with -o DIR\n";
    for args in [
        vec![s(&input), "-o", "-"],
        vec!["audit", s(&input), "--out", "-"],
        vec!["merge", s(&shard), "-o", "-"],
    ] {
        let o = bin()
            .current_dir(t.path())
            .args(&args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), line, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(!t.path().join("-").exists(), "{args:?}");
    }
    let o = bin()
        .current_dir(t.path())
        .args([s(&input), "--quiet", "-o", "./-"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(t.path().join("-/summary.json").exists());
}

/// Runs `pgn-audit ARGS - -o OUT` with a terminal as standard input,
/// types a game and Ctrl-D.
fn from_terminal(args: &[&str], out: &Path) -> Output {
    let (mut ours, theirs) = pty();
    let child = bin()
        .args(args)
        .args(["-", "-o", s(out)])
        .stdin(Stdio::from(theirs))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    ours.write_all(b"[Event \"typed\"]\n\n1. e4 e5 *\n\x04")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    drop(ours);
    o
}

#[test]
fn reading_a_terminal_says_it_waits_for_pgn() {
    let t = tempdir();
    let out = t.path().join("r");
    let o = from_terminal(&[], &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).lines().next(),
        Some("pgn-audit: reading PGN from standard input (end with Ctrl-D)")
    );
    assert_eq!(counts(&out), (1, 1, 0, 0));

    let o = from_terminal(&["--quiet"], &out);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), "");
    assert_eq!(counts(&out), (1, 1, 0, 0));

    // A pipe is no terminal: no word about it.
    let mut child = bin()
        .args(["-", "-o", s(&out)])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"1. e4 e5 *\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(stderr(&o).starts_with("Findings\n"), "{}", stderr(&o));
}

/// The game on standard input.
const PIPED: &[u8] = b"[Event \"piped\"]\n\n1. e4 e5 *\n";

/// summary.json without what differs between runs of one input.
fn stable_summary(out: &Path) -> serde_json::Value {
    let mut v = summary(out);
    v.as_object_mut().unwrap().remove("seconds");
    v.as_object_mut().unwrap().remove("helpmate_seconds");
    v.as_object_mut().unwrap().remove("threads");
    v
}

#[test]
fn summary_json_v2_keys_in_contract_order() {
    let t = tempdir();
    let input = findings_file(t.path());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(FINDINGS.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let cut = write(t.path(), "cut.pgn.gz", &gz[..gz.len() - 12]);
    let out = t.path().join("r");
    let run_at = |threads: &str| {
        let mut child = bin()
            .args([
                s(&input),
                "-",
                s(&cut),
                "--split",
                "-j",
                threads,
                "-o",
                s(&out),
            ])
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(PIPED).unwrap();
        child.wait_with_output().unwrap()
    };
    let o = run_at("2");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let message = stderr(&o).lines().next().unwrap().to_owned();
    let cause = message
        .strip_prefix(&format!("pgn-audit: {}: ", s(&cut)))
        .unwrap_or_else(|| panic!("{message}"))
        .to_owned();
    assert!(
        cause.starts_with("gzip stream is corrupt or truncated"),
        "{cause}"
    );

    let v = summary(&out);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "games",
            "clean",
            "flagged",
            "incomplete",
            "castling",
            "claims",
            "missed_draws",
            "errors",
            "notation_quirks",
            "bytes",
            "seconds",
            "threads",
            "sources",
            "results",
            "version",
            "options",
            "source_details",
            "undecided",
            "helpmate_seconds",
            "corrected",
        ]
    );
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        v["options"],
        serde_json::json!({"split": true, "quirks": false, "html": true, "excel_safe": false, "format": "csv", "max_window": 128, "fix": false})
    );
    assert_eq!(v["corrected"], 0);
    let details = v["source_details"].as_array().unwrap();
    let len = FINDINGS.len() as u64;
    assert!(len < 4096, "the ends check covers FINDINGS whole, twice");
    assert_eq!(
        details[..2],
        [
            serde_json::json!({
                "name": s(&input),
                "size": len,
                "modified": "2001-09-09T01:46:40Z",
                "bytes": len,
                "games": 12,
                "error": null,
                "modified_ns": 1_000_000_000_000_000_000_u64,
                "ends_crc32": format!("{:08x}", {
                    let mut crc = flate2::Crc::new();
                    crc.update(FINDINGS.as_bytes());
                    crc.update(FINDINGS.as_bytes());
                    crc.sum()
                }),
            }),
            serde_json::json!({
                "name": "-",
                "size": null,
                "modified": null,
                "bytes": PIPED.len(),
                "games": 1,
                "error": null,
                "modified_ns": null,
                "ends_crc32": null,
            }),
        ]
    );
    let broken = &details[2];
    assert_eq!(broken["name"], s(&cut));
    assert_eq!(broken["size"], gz.len() as u64 - 12);
    assert!(broken["modified"].as_str().unwrap().ends_with('Z'));
    assert_eq!(broken["error"], cause.as_str());
    let games_cut = broken["games"].as_u64().unwrap();
    assert_eq!(v["games"], 13 + games_cut);
    assert_eq!(
        v["bytes"],
        len + PIPED.len() as u64 + broken["bytes"].as_u64().unwrap()
    );
    assert!(v.get("interrupted").is_none());

    // The same for any thread count, the damaged source included.
    let reference = stable_summary(&out);
    for threads in ["1", "8"] {
        let o = run_at(threads);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(stable_summary(&out), reference, "-j {threads}");
    }
}

/// Runs `pgn-audit merge ARGS`.
fn merge(args: &[&str]) -> Output {
    bin().arg("merge").args(args).output().unwrap()
}

#[test]
fn merge_joins_v2_folders_of_one_version_and_options_only() {
    let t = tempdir();
    let input = findings_file(t.path());
    let other = write(t.path(), "other.pgn", b"[Event \"a\"]\n\n1. d4 d5 *\n");
    let (a, b, out) = (t.path().join("a"), t.path().join("b"), t.path().join("m"));
    run_ok(&[s(&input)], &a);
    run_ok(&[s(&other)], &b);

    let o = merge(&[s(&a), s(&b), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stderr(&o);
    assert!(table.starts_with("Findings\n  illegal castles 7 in 6 games\n  false claims    1 (plus 1 implied, not flagged)\n"), "{table}");
    assert!(
        table.ends_with(&format!(
            "\nReports in {0}/ — open {0}/report.html\n",
            s(&out)
        )),
        "{table}"
    );
    let names: Vec<serde_json::Value> = summary(&out)["source_details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].clone())
        .collect();
    assert_eq!(names, [s(&input), s(&other)]);
    let single = t.path().join("single");
    run_ok(&[s(&input), s(&other)], &single);
    assert_eq!(stable_summary(&out), stable_summary(&single));

    let o = merge(&[s(&a), s(&b), "-o", s(&out), "--quiet"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stderr(&o), "");

    // A folder of contract v1: no version, results, options or details.
    let v1 = t.path().join("v1");
    run_ok(&[s(&other)], &v1);
    let mut v = summary(&v1);
    for k in ["results", "version", "options", "source_details"] {
        v.as_object_mut().unwrap().remove(k);
    }
    std::fs::write(v1.join("summary.json"), v.to_string()).unwrap();
    let o = merge(&[s(&a), s(&v1), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "pgn-audit: merge: {}: a report folder of contract v1 (no version)\n",
            s(&v1)
        )
    );

    // Another version of the tool.
    let old = t.path().join("old");
    run_ok(&[s(&other)], &old);
    let mut v = summary(&old);
    v["version"] = "0.0.1".into();
    std::fs::write(old.join("summary.json"), v.to_string()).unwrap();
    let o = merge(&[s(&a), s(&old), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "pgn-audit: merge: {}: written by pgn-audit 0.0.1, not by this version ({}): \
             audit its input again\n",
            s(&old),
            env!("CARGO_PKG_VERSION")
        )
    );

    // Other options.
    let plain = t.path().join("plain");
    run_ok(&[s(&other), "--no-html"], &plain);
    let o = merge(&[s(&a), s(&plain), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "pgn-audit: merge: {}: written with other options than {} (--no-html here, \
             not there): merge folders written with the same options\n",
            s(&plain),
            s(&a)
        )
    );
    // Merges of folders without report.html stay without one.
    let c = t.path().join("c");
    run_ok(&[s(&input), "--no-html"], &c);
    let o = merge(&[s(&c), s(&plain), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!out.join("report.html").exists());
    assert_eq!(summary(&out)["options"]["html"], false);
    assert!(stderr(&o).ends_with(&format!("\nReports in {}/\n", s(&out))));
}

/// A folder merged alone is the folder: report.html too, byte for byte,
/// with the examples of results.csv.
#[test]
fn a_folder_merged_alone_has_the_same_page() {
    let t = tempdir();
    let input = findings_file(t.path());
    let (a, out) = (t.path().join("a"), t.path().join("m"));
    run_ok(&[s(&input)], &a);
    let o = merge(&[s(&a), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains(r#"id="results-result_mismatch" data-total="1""#));
    assert!(page == std::fs::read_to_string(a.join("report.html")).unwrap());
    assert_eq!(summary(&out), summary(&a));
}

/// `pgn-audit sources ARGS`: its exit status, its lines parsed as JSON,
/// and its standard error.
fn sources(args: &[&str], cwd: &Path) -> (Option<i32>, Vec<serde_json::Value>, String) {
    let o = bin()
        .current_dir(cwd)
        .arg("sources")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let lines = String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (o.status.code(), lines, stderr(&o))
}

/// Issue 25: `sources` prints, one JSON line each, exactly the sources an
/// audit of the same inputs and output folder reads, in its order and
/// named as its reports name them: a folder's PGN files sorted (its xz
/// file and its zip archive's PGN members among them, the output folder
/// and other files not), with how each is stored, its size and its
/// modification time as summary.json writes them, and to the nanosecond.
#[test]
fn sources_prints_what_an_audit_of_the_same_inputs_reads() {
    let t = tempdir();
    let game = "[Event \"e\"]\n[Result \"*\"]\n\n1. e4 *\n";
    let dir = t.path().join("games");
    std::fs::create_dir_all(dir.join("reports")).unwrap();
    write(&dir, "reports/old.pgn", game.as_bytes());
    write(&dir, "notes.txt", b"not a game");
    write(&dir, "b.pgn.gz", &gzip(game.as_bytes()));
    write(&dir, "a.pgn", game.as_bytes());
    let zip = zip_of(&[
        ("one.pgn", game.as_bytes()),
        ("readme.txt", game.as_bytes()),
        ("two.pgn", game.as_bytes()),
    ]);
    write(&dir, "d.zip", &zip);
    let loose = write(t.path(), "loose.pgn", game.as_bytes());
    let when = UNIX_EPOCH + Duration::new(1_000_000_000, 123_456_789);
    std::fs::File::options()
        .write(true)
        .open(&loose)
        .unwrap()
        .set_modified(when)
        .unwrap();
    let args = ["games", "loose.pgn", "-o", "games/reports"];
    let (status, lines, err) = sources(&args, t.path());
    assert_eq!((status, err.as_str()), (Some(0), ""));
    let size = |name: &str| std::fs::metadata(t.path().join(name)).unwrap().len();
    let picked: Vec<(&str, &str, &str, u64)> = lines
        .iter()
        .map(|l| {
            (
                l["source"].as_str().unwrap(),
                l["path"].as_str().unwrap(),
                l["format"].as_str().unwrap(),
                l["size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        picked,
        [
            ("games/a.pgn", "games/a.pgn", "plain", size("games/a.pgn")),
            (
                "games/b.pgn.gz",
                "games/b.pgn.gz",
                "gzip",
                size("games/b.pgn.gz")
            ),
            (
                "games/d.zip/one.pgn",
                "games/d.zip",
                "zip",
                size("games/d.zip")
            ),
            (
                "games/d.zip/two.pgn",
                "games/d.zip",
                "zip",
                size("games/d.zip")
            ),
            ("loose.pgn", "loose.pgn", "plain", size("loose.pgn")),
        ]
    );
    let keys: Vec<&String> = lines[0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "source",
            "path",
            "format",
            "size",
            "modified",
            "modified_ns"
        ]
    );
    assert_eq!(lines[4]["modified"], "2001-09-09T01:46:40Z");
    assert_eq!(lines[4]["modified_ns"], 1_000_000_000_123_456_789_u64);
    // The audit of the same command line reads these sources, so dated.
    let out = t.path().join("games/reports");
    let o = bin()
        .current_dir(t.path())
        .args(args)
        .arg("--quiet")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let details = summary(&out)["source_details"].as_array().unwrap().clone();
    assert_eq!(details.len(), lines.len());
    for (line, detail) in lines.iter().zip(&details) {
        for (key, summary_key) in [
            ("source", "name"),
            ("size", "size"),
            ("modified", "modified"),
        ] {
            assert_eq!(line[key], detail[summary_key], "{line} {detail}");
        }
    }
}

/// `sources` says what the audit says of a file it refuses (binary data,
/// a 7z archive, an HTML page, a 7z archive inside gzip): the same `pgn-audit: PATH: refused: …` lines
/// on standard error, in the same order, no JSON line for them, the other
/// sources printed, and the audit's exit status, 2.
#[test]
fn sources_says_the_refusals_of_the_audit() {
    let t = tempdir();
    let game = "[Event \"e\"]\n[Result \"*\"]\n\n1. e4 *\n";
    let dir = t.path().join("games");
    std::fs::create_dir_all(&dir).unwrap();
    write(&dir, "a.pgn", game.as_bytes());
    let mut binary = b"\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f".to_vec();
    binary.extend(std::iter::repeat_n(0x11, 100));
    write(&dir, "b.pgn", &binary);
    write(&dir, "c.pgn", b"7z\xbc\xaf\x27\x1c\0\x04 and more");
    write(
        &dir,
        "d.pgn",
        b"<!DOCTYPE html>\n<html><body>1. e4 e5</body></html>\n",
    );
    write(
        &dir,
        "e.pgn.gz",
        &gzip(b"7z\xbc\xaf\x27\x1c\0\x04 and more"),
    );
    write(&dir, "f.pgn", game.as_bytes());
    let out = t.path().join("reports");
    let (status, lines, err) = sources(&["games", "-o", s(&out)], t.path());
    let named: Vec<&str> = lines
        .iter()
        .map(|l| l["source"].as_str().unwrap())
        .collect();
    assert_eq!(named, ["games/a.pgn", "games/f.pgn"]);
    assert_eq!(
        (status, err.as_str()),
        (
            Some(2),
            "pgn-audit: games/b.pgn: refused: binary data, not PGN text\n\
             pgn-audit: games/c.pgn: refused: a 7z archive, not PGN text\n\
             pgn-audit: games/d.pgn: refused: an HTML page, not PGN text\n\
             pgn-audit: games/e.pgn.gz: refused: a 7z archive inside gzip, not PGN text\n"
        )
    );
    let o = bin()
        .current_dir(t.path())
        .args(["games", "-o", s(&out), "--quiet"])
        .output()
        .unwrap();
    assert_eq!((o.status.code(), stderr(&o)), (Some(2), err));
}

/// `sources` says what an audit says of inputs it cannot read (one line,
/// exit 2, nothing printed), and names standard input without reading it.
#[test]
fn sources_refuses_what_the_audit_refuses_and_leaves_standard_input_unread() {
    let t = tempdir();
    let (status, lines, err) = sources(&["missing.pgn"], t.path());
    assert_eq!(status, Some(2));
    assert!(lines.is_empty());
    assert_eq!(err, "pgn-audit: missing.pgn: no such file or directory\n");
    write(t.path(), "a.pgn", b"1. e4 *\n");
    // Issue 23: a missing input among others stops none of them, in the
    // audit and so here: the others are printed, the missing one said as
    // the audit says it, and the status is the audit's.
    let (status, lines, err) = sources(&["missing.pgn", "a.pgn"], t.path());
    assert_eq!(status, Some(2));
    let named: Vec<&str> = lines
        .iter()
        .map(|l| l["source"].as_str().unwrap())
        .collect();
    assert_eq!(named, ["a.pgn"]);
    assert_eq!(err, "pgn-audit: missing.pgn: no such file or directory\n");
    let o = bin()
        .current_dir(t.path())
        .args(["missing.pgn", "a.pgn", "--quiet", "-o", "r"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "pgn-audit: missing.pgn: no such file or directory\n"
    );
    let (status, lines, err) = sources(&["a.pgn", "./a.pgn"], t.path());
    assert_eq!(status, Some(2));
    assert!(lines.is_empty());
    assert_eq!(
        err,
        "pgn-audit: ./a.pgn: the same file as a.pgn, named twice\n"
    );
    let (status, lines, err) = sources(&["-"], t.path());
    assert_eq!((status, err.as_str()), (Some(0), ""));
    assert_eq!(
        lines,
        [
            serde_json::json!({"source": "-", "path": null, "format": null,
            "size": null, "modified": null, "modified_ns": null})
        ]
    );
}

/// Issue 25: `pgn-audit plan … | head -1` and `pgn-audit sources … | head
/// -1` exit 0 and say nothing: a reader that closes the pipe took what it
/// wanted. Each prints more than a pipe holds, so the write surely meets
/// the closed pipe.
#[test]
fn plan_and_sources_into_a_closed_pipe_exit_0() {
    let t = tempdir();
    let file = write(t.path(), "big.pgn", &vec![b'\n'; 200_000]);
    let dir = t.path().join("many");
    std::fs::create_dir(&dir).unwrap();
    for k in 0..1000 {
        write(
            &dir,
            &format!("game-with-a-long-name-{k:04}.pgn"),
            b"1. e4 *\n",
        );
    }
    for args in [
        vec!["plan", s(&file), "--piece-size", "1"],
        vec!["sources", s(&dir)],
    ] {
        let mut child = bin()
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut first,
        )
        .unwrap();
        assert!(first.ends_with('\n'), "{first:?}");
        let o = child.wait_with_output().unwrap();
        assert_eq!(
            (o.status.code(), stderr(&o).as_str()),
            (Some(0), ""),
            "{args:?}"
        );
    }
}

/// --help says the exit statuses of the contract and what any other one
/// means, and -j's limit in words a person reads once (issue 26).
#[test]
fn help_says_the_statuses_and_the_thread_limit_plainly() {
    let o = bin().arg("--help").output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8(o.stdout).unwrap();
    assert!(
        help.contains(
            "Exit status: 0 when the run completed (findings are not failures); 1 with \
             --fail-on-findings when a game is flagged or incomplete; 2 for a usage or input \
             error, a report that cannot be written (at its close too) or a thread the OS \
             refuses; 130 when interrupted. Any other status is a bug (an internal error): no \
             summary.json is written."
        ),
        "{help}"
    );
    assert!(
        help.contains(
            "Worker threads (default: one per core). More than 4 per core is lowered to 4 per \
             core, or to 8 on a machine with one or two cores, with a note"
        ),
        "{help}"
    );
    assert!(!help.contains("101"), "{help}");
}

/// The progress bar of a compressed input says that it counts the bytes
/// as stored (`read 1.2 MiB of 3.4 MiB stored`), which the summary's MiB
/// of text are not, and shows no ETA before a rate is measured: a frame
/// at 0 bytes read says none (it read `ETA 0s`).
#[test]
fn the_progress_bar_says_stored_bytes_and_no_eta_without_a_rate() {
    let t = tempdir();
    let sample = std::fs::read(SAMPLE).unwrap();
    let text: Vec<u8> = (0..20)
        .flat_map(|_| sample.iter().copied().chain(*b"\n"))
        .collect();
    let input = write(t.path(), "games.pgn.gz", &gzip(&text));
    let mut cmd = bin();
    cmd.args([s(&input), "-j", "1", "-o", s(&t.path().join("r"))])
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    let (mut child, terminal) = Terminal::spawn(cmd);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let shown = terminal.finish();
    let frames: Vec<&str> = shown
        .split(['\r', '\n'])
        .filter(|f| f.contains(" stored, "))
        .collect();
    assert!(!frames.is_empty(), "{shown}");
    let stored = std::fs::metadata(&input).unwrap().len();
    let total = format!("of {} stored, ", indicatif::BinaryBytes(stored));
    assert!(
        frames.iter().all(|f| f.contains(&total)),
        "{total}: {frames:?}"
    );
    for frame in frames.iter().filter(|f| f.contains("read 0 B of")) {
        assert!(!frame.contains("ETA"), "{frame}");
    }
}

/// `plan FILE` with neither `--piece-size` nor `--text-estimate` says that
/// one of them is needed, and with both that they do not go together.
#[test]
fn plan_needs_one_of_piece_size_and_text_estimate() {
    let t = tempdir();
    let file = write(t.path(), "games.pgn", b"1. e4 *\n");
    let o = bin().args(["plan", s(&file)]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "pgn-audit: the following required arguments were not provided: \
         <--piece-size <BYTES>|--text-estimate>\n"
    );
    let o = bin()
        .args(["plan", s(&file), "--piece-size", "9", "--text-estimate"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("'--piece-size <BYTES>' cannot be used with '--text-estimate'"),
        "{}",
        stderr(&o)
    );
}
