//! Issue 23, items 16 and 17: what pgn-audit prints on standard error
//! cannot be turned against the terminal, and a usage error is one line.
//! Control characters (a newline, ESC, BEL, C1 codes), line and paragraph
//! separators and bidirectional overrides in a message are written as
//! escapes (`\n`, `\u{1b}`); a usage error says the option and the cause in
//! one line (clap's tip kept), exit 2.

use std::path::Path;
use std::process::Output;

use super::common::{self, s};

/// A file name that sets the terminal's title and rings its bell, with a
/// newline and a C1 control in it.
const HOSTILE: &str = "no\u{1b}]0;pwned\u{7}\nsuch\u{9b}31m.pgn";
/// The same name as every message writes it.
const ESCAPED: &str = "no\\u{1b}]0;pwned\\u{7}\\nsuch\\u{9b}31m.pgn";

/// Standard error of a run that exits `status`, as text.
fn stderr_of(o: &Output, status: i32) -> String {
    let e = String::from_utf8(o.stderr.clone()).expect("standard error is UTF-8");
    assert_eq!(o.status.code(), Some(status), "{e}");
    e
}

/// Asserts that `text` holds no control character but its line ends.
fn no_raw_controls(text: &str) {
    let raw: Vec<char> = text
        .chars()
        .filter(|c| (c.is_control() && *c != '\n') || matches!(c, '\u{2028}' | '\u{2029}'))
        .collect();
    assert!(raw.is_empty(), "raw {raw:?} in {text:?}");
}

/// Item 16: a missing input named with terminal escapes is named escaped,
/// in one line.
#[test]
fn a_missing_input_with_escapes_in_its_name_is_named_escaped() {
    let t = common::tempdir();
    let name = t.path().join(HOSTILE);
    let o = common::run(&[s(&name), "--quiet"], &t.path().join("r"));
    let e = stderr_of(&o, 2);
    let dir = s(t.path());
    assert_eq!(
        e,
        format!("pgn-audit: {dir}/{ESCAPED}: no such file or directory\n")
    );
}

/// Item 16: the names in every other message are escaped too: an output
/// folder that is a file, the summary table's last line, the warning for
/// a folder without PGN, a zip member's refusal, and merge's refusal of a
/// folder.
#[test]
fn every_message_escapes_the_names_it_quotes() {
    let t = common::tempdir();
    let dir = s(t.path()).to_owned();
    let game = b"[Event \"a\"]\n\n1. e4 e5 *\n";
    let input = common::write(t.path(), "a.pgn", game);

    let file = common::write(t.path(), HOSTILE, b"mine");
    let o = common::run(&[s(&input)], &file);
    assert_eq!(
        stderr_of(&o, 2),
        format!("pgn-audit: {dir}/{ESCAPED}: is not a directory\n")
    );

    let out = t.path().join(format!("{HOSTILE}.d"));
    let o = common::run(&[s(&input)], &out);
    let e = stderr_of(&o, 0);
    no_raw_controls(&e);
    // The table's last line, wrapped at 80 columns between its words.
    let last = e.rsplit_once("Reports in").unwrap().1;
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(
        words,
        [
            format!("{dir}/{ESCAPED}.d/"),
            "—".to_owned(),
            "open".to_owned(),
            format!("{dir}/{ESCAPED}.d/report.html")
        ],
        "{e}"
    );

    let empty = t.path().join(format!("{HOSTILE}.e"));
    std::fs::create_dir(&empty).unwrap();
    let o = common::run(&[s(&input), s(&empty), "--quiet"], &t.path().join("r"));
    assert_eq!(
        stderr_of(&o, 0),
        format!("pgn-audit: {dir}/{ESCAPED}.e: warning: no PGN file in this directory\n")
    );

    let member = format!("x\u{202e}{HOSTILE}");
    let zip = super::common::zip_of(&[(&member, b"7z\xbc\xaf\x27\x1c\0\x04 not pgn")]);
    let zip = common::write(t.path(), "x.zip", &zip);
    let o = common::run(&[s(&zip), "--quiet"], &t.path().join("z"));
    assert_eq!(
        stderr_of(&o, 2),
        format!(
            "pgn-audit: {dir}/x.zip/x\\u{{202e}}{ESCAPED}: refused: a 7z archive, not PGN text\n"
        )
    );

    let o = common::bin()
        .args(["merge", s(&out), &format!("{dir}/{HOSTILE}.m"), "-o"])
        .arg(t.path().join("m"))
        .output()
        .unwrap();
    assert_eq!(
        stderr_of(&o, 2),
        format!("pgn-audit: merge: {dir}/{ESCAPED}.m: not a report folder\n")
    );
}

/// `pgn-audit ARGS` with no input read, and its standard error.
fn usage(args: &[&str]) -> String {
    let o = common::bin()
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.stdout.is_empty(), "{o:?}");
    stderr_of(&o, 2)
}

/// Item 17: a usage error is one line naming the option and the cause,
/// clap's tip kept in it; exit 2, nothing on standard output.
#[test]
fn a_usage_error_is_one_line_naming_the_option() {
    let cases: [(&[&str], &str); 10] = [
        (
            &["x.pgn", "-j", "0"],
            "invalid value '0' for '--threads <N>': 0 is not in 1..=65535",
        ),
        (
            &["x.pgn", "--no-such-option"],
            "unexpected argument '--no-such-option' found; \
             to pass '--no-such-option' as a value, use '-- --no-such-option'",
        ),
        (
            &["x.pgn", "--ouput", "d"],
            "unexpected argument '--ouput' found; a similar argument exists: '--out'",
        ),
        (
            &["merge", "a", "--ouput", "d"],
            "unexpected argument '--ouput' found; a similar argument exists: '--out'",
        ),
        (
            &["x.pgn", "-o"],
            "a value is required for '--out <DIR>' but none was supplied",
        ),
        (
            &[],
            "the following required arguments were not provided: <INPUT>...",
        ),
        (
            &["merge", "a"],
            "the following required arguments were not provided: --out <OUT>",
        ),
        (
            &["x.pgn", "--split=yes"],
            "unexpected value 'yes' for '--split' found; no more were expected",
        ),
        (
            &["x.pgn", "--piece", "abc"],
            "invalid value 'abc' for '--piece <START..END>': \
             \"abc\" is not START..END (byte offsets, START <= END)",
        ),
        (
            &["plan", "f", "--piece-size", "0"],
            "invalid value '0' for '--piece-size <BYTES>': 0 is not in 1..18446744073709551615",
        ),
    ];
    for (args, cause) in cases {
        assert_eq!(usage(args), format!("pgn-audit: {cause}\n"), "{args:?}");
    }
    // An option with terminal escapes in it is quoted escaped.
    assert_eq!(
        usage(&["x.pgn", "--\u{1b}]0;x\u{7}"]),
        "pgn-audit: unexpected argument '--\\u{1b}]0;x\\u{7}' found; \
         to pass '--\\u{1b}]0;x\\u{7}' as a value, use '-- --\\u{1b}]0;x\\u{7}'\n"
    );
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR")).join("d").exists());
}

/// Item 17: --help and --version are no errors: standard output, exit 0.
#[test]
fn help_and_version_still_go_to_standard_output() {
    for args in [&["--help"][..], &["merge", "--help"], &["--version"]] {
        let o = common::bin().args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(o.stderr.is_empty(), "{args:?}");
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.lines().count() >= 1, "{args:?}");
    }
    let o = common::bin().arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        format!("pgn-audit {}\n", env!("CARGO_PKG_VERSION"))
    );
}
