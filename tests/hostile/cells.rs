//! Issue 23, items 14 and 15: cells that cannot be turned against the
//! reader. By default a cell is the value as read (scripts get the tags
//! byte for byte), but a cell never breaks a line: control characters and
//! the line and paragraph separators U+2028 and U+2029 are written as
//! U+FFFD. With `--excel-safe`, a text cell that a spreadsheet would take
//! for a formula (it starts with `=`, `+`, `-`, `@` or a tab) is written
//! with a `'` before it.

use std::path::Path;

use super::common::{self, s};

/// Two games with an errors.csv row each: the first with formula tags,
/// the second with line and paragraph separators in its tags and a null
/// move (`--`) as its failing move.
const GAMES: &str = "[Event \"=HYPERLINK(\\\"http://evil.example\\\",\\\"click\\\")\"]\n\
[Site \"+cmd|' /C calc'!A0\"]\n[Round \"-\"]\n[White \"@SUM(1+1)\"]\n[Black \"\tTab\"]\n\
[Result \"*\"]\n\n1. e4 Ke7 *\n\n\
[Event \"separators\"]\n[White \"A\u{2028}B\"]\n[Black \"C\u{2029}D\"]\n\n1. -- e5 *\n";

/// The errors.csv columns these tests look at.
const COLUMNS: [&str; 8] = [
    "source", "event", "site", "round", "white", "black", "san", "kind",
];

/// Audits [`GAMES`] as `=games.pgn` (a name that is a formula too), named
/// relative to the folder it is in, with `args`, at -j1, -j2 and -j8;
/// asserts byte-identical CSV reports and exit 0, and returns the -j2
/// folder.
fn audit(dir: &Path, args: &[&str]) -> std::path::PathBuf {
    common::write(dir, "=games.pgn", GAMES.as_bytes());
    let mut reports = Vec::new();
    for j in ["1", "2", "8"] {
        let out = dir.join(format!("j{j}"));
        let o = common::bin()
            .current_dir(dir)
            .args(["=games.pgn", "--no-html", "-j", j, "-o", s(&out)])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        reports.push(common::csv_reports(&out));
    }
    assert!(
        reports.iter().all(|r| *r == reports[0]),
        "-j1/-j2/-j8 differ"
    );
    dir.join("j2")
}

/// Item 14, the default: formula-like tags are written as they are, for
/// the scripts that read the reports.
#[test]
fn cells_are_byte_faithful_by_default() {
    let t = common::tempdir();
    let out = audit(t.path(), &[]);
    assert_eq!(
        common::pick(&out, "errors.csv", &COLUMNS),
        common::strings(&[
            &[
                "=games.pgn",
                "=HYPERLINK(\"http://evil.example\",\"click\")",
                "+cmd|' /C calc'!A0",
                "-",
                "@SUM(1+1)",
                "\tTab",
                "Ke7",
                "illegal_move",
            ],
            &[
                "=games.pgn",
                "separators",
                "",
                "",
                "A\u{fffd}B",
                "C\u{fffd}D",
                "--",
                "illegal_move",
            ],
        ])
    );
    assert_eq!(common::summary(&out)["options"]["excel_safe"], false);
}

/// Item 14: with `--excel-safe`, every text cell that starts with `=`,
/// `+`, `-`, `@` or a tab gets a `'` before it, in every column (the
/// source's name and the failing move too); the other cells and the
/// numbers stay. summary.json records the option, and merge refuses to
/// join such a folder with one written without it.
#[test]
fn excel_safe_quotes_cells_a_spreadsheet_would_run() {
    let t = common::tempdir();
    let out = audit(t.path(), &["--excel-safe"]);
    assert_eq!(
        common::pick(&out, "errors.csv", &COLUMNS),
        common::strings(&[
            &[
                "'=games.pgn",
                "'=HYPERLINK(\"http://evil.example\",\"click\")",
                "'+cmd|' /C calc'!A0",
                "'-",
                "'@SUM(1+1)",
                "'\tTab",
                "Ke7",
                "illegal_move",
            ],
            &[
                "'=games.pgn",
                "separators",
                "",
                "",
                "A\u{fffd}B",
                "C\u{fffd}D",
                "'--",
                "illegal_move",
            ],
        ])
    );
    assert_eq!(
        common::pick(&out, "errors.csv", &["game", "offset", "line", "ply"]),
        common::strings(&[&["1", "0", "1", "2"], &["2", "158", "10", "1"]])
    );
    assert_eq!(common::summary(&out)["options"]["excel_safe"], true);

    let plain = t.path().join("j1-plain");
    common::write(t.path(), "=other.pgn", GAMES.as_bytes());
    let o = common::bin()
        .current_dir(t.path())
        .args(["=other.pgn", "--no-html", "-o", s(&plain)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let merged = t.path().join("m");
    let o = common::bin()
        .args(["merge", s(&out), s(&plain), "-o", s(&merged)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "pgn-audit: merge: {}: written with other options than {} (--excel-safe there, \
             not here): merge folders written with the same options\n",
            s(&plain),
            s(&out)
        )
    );
    assert!(!merged.exists());
}

/// Item 15: no cell holds U+2028 or U+2029 (nor any control character but
/// the tab), so every line-based reader (Python's `splitlines`) sees one
/// line per row.
#[test]
fn no_cell_holds_a_line_or_paragraph_separator() {
    let t = common::tempdir();
    let out = audit(t.path(), &[]);
    for (name, bytes) in common::csv_reports(&out) {
        let text = String::from_utf8(bytes).unwrap();
        let bad: Vec<char> = text
            .chars()
            .filter(|c| {
                matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{85}' | '\r' | '\u{b}' | '\u{c}'
                )
            })
            .collect();
        assert!(bad.is_empty(), "{name}: {bad:?}");
    }
    let errors = std::fs::read_to_string(out.join("errors.csv")).unwrap();
    assert_eq!(errors.lines().count(), 3);
}
