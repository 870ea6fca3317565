//! Bad input (issue 6): no input may crash pgn-audit or make a game
//! disappear from the count. Every case runs the built binary and checks the
//! exact summary (games, clean, flagged, incomplete, errors by kind) and the
//! exact errors.csv rows that say where: (game, ply, san, kind).

use crate::common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use common::*;

/// One run of the binary in its own temporary folder.
struct Run {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    out: PathBuf,
    status: Option<i32>,
    stderr: String,
}

fn run_on(files: &[(&str, &[u8])], args: impl Fn(&Path) -> Vec<String>) -> Run {
    let t = tempdir();
    let dir = t.path().to_path_buf();
    for (name, bytes) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let out = dir.join("reports");
    let args = args(&dir);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&args, &out);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "a panic: {stderr}");
    Run {
        _dir: t,
        dir,
        out,
        status: o.status.code(),
        stderr,
    }
}

/// Audits `bytes` as one plain file `game.pgn`; asserts exit status 0.
fn audit(bytes: &[u8]) -> Run {
    let r = run_on(&[("game.pgn", bytes)], |d| {
        vec![s(&d.join("game.pgn")).to_owned()]
    });
    assert_eq!(r.status, Some(0), "stderr: {}", r.stderr);
    r
}

/// The non-zero error counts of summary.json.
fn error_counts(out: &Path) -> BTreeMap<String, u64> {
    summary(out)["errors"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| v.as_u64() != Some(0))
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect()
}

/// errors.csv as (game, ply, san, kind).
fn error_rows(out: &Path) -> Vec<(u64, u32, String, String)> {
    records(out, "errors.csv")
        .into_iter()
        .map(|r| {
            (
                r["game"].parse().unwrap(),
                r["ply"].parse().unwrap(),
                r["san"].clone(),
                r["kind"].clone(),
            )
        })
        .collect()
}

type Row<'a> = (u64, u32, &'a str, &'a str);

/// Asserts the exact summary classes, error counts and errors.csv rows, and
/// that every other report parses.
fn expect(r: &Run, classes: (u64, u64, u64, u64), rows: &[Row]) {
    assert_eq!(counts(&r.out), classes, "games, clean, flagged, incomplete");
    let got = error_rows(&r.out);
    let want: Vec<(u64, u32, String, String)> = rows
        .iter()
        .map(|&(g, p, s, k)| (g, p, s.to_owned(), k.to_owned()))
        .collect();
    assert_eq!(got, want, "errors.csv rows");
    let mut by_kind = BTreeMap::new();
    for (.., kind) in rows {
        *by_kind.entry(kind.to_string()).or_insert(0) += 1;
    }
    assert_eq!(error_counts(&r.out), by_kind, "summary errors");
    for f in ["castling.csv", "claims.csv", "missed_draws.csv"] {
        let _ = rows_of(&r.out, f);
    }
    assert_no_partial(&r.out);
}

fn rows_of(out: &Path, f: &str) -> Vec<Vec<String>> {
    common::rows(out, f)
}

fn assert_no_partial(out: &Path) {
    for e in std::fs::read_dir(out).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".partial"), "{name} left behind");
    }
}

/// The `detail` column of every errors.csv row.
fn details(out: &Path) -> Vec<String> {
    records(out, "errors.csv")
        .into_iter()
        .map(|r| r["detail"].clone())
        .collect()
}

const GAME: &str =
    "[Event \"ok\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";

#[test]
fn an_empty_file_has_no_games() {
    for bytes in [&b""[..], b"\n\n  \r\n\t\n", b"% only an escape line\n"] {
        let r = audit(bytes);
        expect(&r, (0, 0, 0, 0), &[]);
        assert_eq!(summary(&r.out)["bytes"], bytes.len() as u64);
    }
}

#[test]
fn tags_without_movetext_are_games() {
    let r =
        audit(b"[Event \"a\"]\n[Site \"b\"]\n[Result \"*\"]\n\n[Event \"c\"]\n\n\n[Event \"d\"]");
    expect(&r, (3, 3, 0, 0), &[]);
}

#[test]
fn movetext_without_tags() {
    let r = audit(b"1. e4 e5 2. Nf3 Nc6 *\n\n1. d4 d5 2. Kd3 *\n\n1. c4 *");
    expect(&r, (3, 2, 0, 1), &[(2, 3, "Kd3", "illegal_move")]);
    let e = records(&r.out, "errors.csv");
    assert_eq!(e[0]["offset"], "23");
    assert_eq!((e[0]["event"].as_str(), e[0]["white"].as_str()), ("", ""));
}

/// A game without its result is audited as far as it goes: the Laws are
/// not broken by a missing termination marker.
#[test]
fn a_missing_result_is_no_error() {
    let r = audit(b"[Event \"a\"]\n\n1. e4 e5 2. Nf3\n\n[Event \"b\"]\n[Result \"1-0\"]\n\n1. d4 d5\n[Event \"c\"]\n\n1. c4 *\n");
    expect(&r, (3, 3, 0, 0), &[]);
}

#[test]
fn a_game_cut_mid_move() {
    let r = audit(format!("{GAME}\n[Event \"cut\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb").as_bytes());
    expect(&r, (2, 1, 0, 1), &[(2, 5, "Bb", "parse_error")]);
    assert_eq!(details(&r.out), ["not a move, move number or result"]);
}

#[test]
fn a_game_cut_mid_comment() {
    let r = audit(format!("{GAME}\n[Event \"cut\"]\n\n1. e4 {{ White opens wi").as_bytes());
    expect(
        &r,
        (2, 1, 0, 1),
        &[(2, 2, "{ White opens wi", "parse_error")],
    );
    assert_eq!(details(&r.out), ["unterminated comment"]);
}

/// A tag line cut by the end of the input cannot be read: it is skipped
/// with a quirk (contract v2), and the game, with the tags read before the
/// cut, is audited.
#[test]
fn a_game_cut_mid_tag() {
    for tail in ["[White \"Carl", "[Whi", "[White \"Carlsen\""] {
        let r = audit(format!("{GAME}\n[Event \"cut\"]\n{tail}").as_bytes());
        expect(&r, (2, 2, 0, 0), &[]);
        assert_eq!(summary(&r.out)["notation_quirks"], 1, "{tail}");
    }
}

/// Moves written on a tag line are the game's movetext, read from there.
#[test]
fn moves_on_a_tag_line() {
    let r = audit(b"[Event \"a\"] 1. e4 e5 2. e5 *\n\n[Event \"b\"][Site \"c\"]\n\n1. e4 *\n");
    expect(&r, (2, 1, 0, 1), &[(1, 3, "e5", "illegal_move")]);
    assert_eq!(summary(&r.out)["notation_quirks"], 0);
}

#[test]
fn unterminated_comment_costs_one_game() {
    let r = audit(
        b"[Event \"a\"]\n\n1. e4 {never closed\n\n2. Nf3 *\n\n[Event \"b\"]\n\n1. d4 *\n\n\
[Event \"c\"]\n\n1. e4 ; a rest-of-line comment {\n1... e5 *\n",
    );
    expect(&r, (3, 2, 0, 1), &[(1, 2, "{never closed", "parse_error")]);
    assert_eq!(details(&r.out), ["unterminated comment"]);
}

#[test]
fn unterminated_or_unopened_variation() {
    let r = audit(
        b"[Event \"a\"]\n\n1. e4 (1. d4 d5 2. c4\n\n[Event \"b\"]\n\n1. d4 *\n\n\
[Event \"c\"]\n\n1. e4 e5) 2. Nf3 *\n",
    );
    expect(
        &r,
        (3, 1, 0, 2),
        &[
            (1, 2, "(1. d4 d5 2. c4", "parse_error"),
            (3, 3, ")", "parse_error"),
        ],
    );
    assert_eq!(
        details(&r.out),
        [
            "unterminated variation",
            "closing parenthesis without a variation"
        ]
    );
}

#[test]
fn ten_thousand_nested_variations() {
    let closed = format!(
        "[Event \"deep\"]\n\n1. e4 {}1. d4{} e5 2. Nf3 *\n\n",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let open = format!(
        "[Event \"open\"]\n\n1. e4 {}1. d4{} e5 *\n\n",
        "(".repeat(10_000),
        ")".repeat(9_999)
    );
    let r = audit(format!("{closed}{open}{GAME}").as_bytes());
    let token: String = "(".repeat(80);
    expect(&r, (3, 2, 0, 1), &[(2, 2, &token, "parse_error")]);
    assert_eq!(details(&r.out), ["unterminated variation"]);
}

#[test]
fn a_one_mib_comment() {
    // A comment of 1 MiB, with blank lines, brackets and `%` at line starts
    // inside it (none of which may end the game), longer than a batch.
    let mut comment = String::new();
    let mut i = 0u64;
    while comment.len() < 1 << 20 {
        i += 1;
        comment += match i % 7 {
            0 => "\n\n",
            1 => "\n[not a tag]\n",
            2 => "\n% not an escape inside a comment\n",
            _ => "All work and no play makes Jack a dull boy. ",
        };
    }
    let text = format!(
        "[Event \"long\"]\n\n1. e4 {{{comment}}} e5 2. Nf3 *\n\n[Event \"after\"]\n\n1. e4 e5 2. Ke3 *\n"
    );
    let r = audit(text.as_bytes());
    expect(&r, (2, 1, 0, 1), &[(2, 3, "Ke3", "illegal_move")]);
    let e = records(&r.out, "errors.csv");
    assert_eq!(
        e[0]["offset"],
        text.find("[Event \"after\"]").unwrap().to_string()
    );
}

/// Knights out and back: legal for ever, a fivefold repetition at ply 16 and
/// 75 moves without capture or pawn move at ply 150.
fn knight_shuffle(plies: usize) -> String {
    let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let mut s = String::new();
    for p in 0..plies {
        if p % 2 == 0 {
            s += &format!("{}. ", p / 2 + 1);
        }
        s += cycle[p % 4];
        s += if p % 16 == 15 { "\n" } else { " " };
    }
    s
}

#[test]
fn a_twenty_thousand_ply_game() {
    let long = knight_shuffle(20_000);
    let text = format!(
        "[Event \"long\"]\n\n{long}*\n\n[Event \"long, then illegal\"]\n\n{long}10001. Nf4 *\n"
    );
    let r = audit(text.as_bytes());
    // The first game is flagged for its missed draws; the second is
    // incomplete, its missed draws found before the illegal move kept.
    expect(&r, (2, 0, 1, 1), &[(2, 20_001, "Nf4", "illegal_move")]);
    let missed: Vec<(String, String, String, String)> = records(&r.out, "missed_draws.csv")
        .into_iter()
        .map(|m| {
            (
                m["game"].clone(),
                m["rule"].clone(),
                m["ply"].clone(),
                m["plies_after"].clone(),
            )
        })
        .collect();
    let row = |g: &str, rule: &str, ply: &str, after: &str| {
        (
            g.to_owned(),
            rule.to_owned(),
            ply.to_owned(),
            after.to_owned(),
        )
    };
    assert_eq!(
        missed,
        [
            row("1", "fivefold", "16", "19984"),
            row("1", "seventy_five_moves", "150", "19850"),
            row("2", "fivefold", "16", "19984"),
            row("2", "seventy_five_moves", "150", "19850"),
        ]
    );
    assert_eq!(rows_of(&r.out, "castling.csv").len(), 0);
}

/// A small deterministic generator for "random" bytes.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[3]
        })
        .collect()
}

#[test]
fn nul_bytes_and_binary_between_games() {
    // NULs on their own line between games: no game (contract v2).
    let mut text = Vec::new();
    text.extend_from_slice(GAME.as_bytes());
    text.extend_from_slice(b"\n\0\0\0\0\0\0\n\n");
    text.extend_from_slice(GAME.as_bytes());
    // Binary without line ends, then a tag line: the binary is one game.
    text.extend_from_slice(b"\n\x89PNG\x1a\x00\xff\xfe\x01\x02binary\x7f\x80\n");
    text.extend_from_slice(GAME.as_bytes());
    // A NUL inside the movetext.
    text.extend_from_slice(b"\n1. e4\0 e5 *\n");
    let r = audit(&text);
    expect(
        &r,
        (5, 3, 0, 2),
        &[
            (
                3,
                1,
                // Control characters are written as U+FFFD: no cell holds
                // raw binary (Windows-1252 gives 0x89 as ‰, 0x80 as €).
                "\u{2030}PNG\u{fffd}\u{fffd}\u{ff}\u{fe}\u{fffd}\u{fffd}binary\u{fffd}\u{20ac}",
                "parse_error",
            ),
            (5, 1, "e4\u{fffd}", "parse_error"),
        ],
    );
    let e = records(&r.out, "errors.csv");
    assert_eq!(e[0]["offset"], (2 * GAME.len() + 10).to_string());

    // Random binary (64 KiB, every byte value, line ends included) between
    // two games: whatever it is cut into, the games around it are found
    // whole, and every byte is in some game.
    let bin = noise(0x9e37_79b9_7f4a_7c15, 1 << 16);
    let mut text = GAME.as_bytes().to_vec();
    text.extend_from_slice(b"\n");
    text.extend_from_slice(&bin);
    text.extend_from_slice(b"\n\n");
    text.extend_from_slice(GAME.replace("\"ok\"", "\"last\"").as_bytes());
    let r = audit(&text);
    let (games, clean, flagged, incomplete) = counts(&r.out);
    let expected = pgn_audit::app::audit_bytes(&text, 1 << 20);
    assert_eq!(
        (games, clean, flagged, incomplete),
        (
            expected.games,
            expected.clean,
            expected.flagged,
            expected.incomplete
        )
    );
    let e = records(&r.out, "errors.csv");
    assert!(games >= 3 && incomplete >= 1, "{games} games");
    assert!(
        e.iter()
            .all(|r| r["kind"] == "parse_error" || r["kind"] == "illegal_move")
    );
    let raw = std::fs::read_to_string(r.out.join("errors.csv")).unwrap();
    let control: Vec<char> = raw
        .chars()
        .filter(|&c| c.is_control() && c != '\n')
        .collect();
    assert!(control.is_empty(), "raw control characters: {control:?}");
    let first = records(&r.out, "errors.csv");
    assert!(
        first
            .iter()
            .all(|r| r["game"] != "1" && r["event"] != "last")
    );
}

/// A directory that holds no PGN file is named in a warning: an empty run
/// that says nothing looks like one that audited nothing wrong.
#[test]
fn a_directory_without_pgn_warns() {
    let r = run_on(&[("notes/x.txt", b"hello")], |d| {
        vec![s(&d.join("notes")).to_owned()]
    });
    assert_eq!(r.status, Some(0), "stderr: {}", r.stderr);
    let warning = format!(
        "pgn-audit: {}: warning: no PGN file in this directory\n",
        r.dir.join("notes").display()
    );
    assert!(r.stderr.starts_with(&warning), "stderr: {}", r.stderr);
    assert_eq!(counts(&r.out), (0, 0, 0, 0));
}

#[test]
fn invalid_utf8_in_tags_and_comments() {
    let text = b"[Event \"Open \xe0 Z\xfcrich\"]\n[White \"M\xfcller, J\xf6rg\"]\n[Black \"\xc3\xa9t\xc3\xa9\"]\n[Site \"\x81\x8d\xff\"]\n\n\
1. e4 { gut gespielt, M\xfcller! \xff\xfe } e5 2. Ke3 *\n\n\
1. d4 { \xc3\x28 broken UTF-8 } d5 { \xe2\x82 } *\n";
    let r = audit(text);
    expect(&r, (2, 1, 0, 1), &[(1, 3, "Ke3", "illegal_move")]);
    let e = records(&r.out, "errors.csv");
    assert_eq!(e[0]["event"], "Open \u{e0} Z\u{fc}rich");
    assert_eq!(e[0]["white"], "M\u{fc}ller, J\u{f6}rg");
    assert_eq!(e[0]["black"], "\u{e9}t\u{e9}");
    // 0x81 and 0x8D are no Windows-1252 characters (C1 controls): U+FFFD.
    assert_eq!(e[0]["site"], "\u{fffd}\u{fffd}\u{ff}");
    // A move that is not UTF-8 at all.
    let r = audit(b"1. e4 e\xff5 *\n");
    expect(&r, (1, 0, 0, 1), &[(1, 2, "e\u{ff}5", "parse_error")]);
}

#[test]
fn crlf_and_lone_cr_line_ends() {
    let lf = "[Event \"a\"]\n[White \"w\"]\n\n1. e4 e5 ; rest\n2. Nf3 {a\n\ncomment} Nc6 *\n\n\
% escape\n[Event \"b\"]\n\n1. d4 d5 2. Kd3 *\n\n1. c4 *\n";
    let want: &[Row] = &[(2, 3, "Kd3", "illegal_move")];
    let lf_run = audit(lf.as_bytes());
    expect(&lf_run, (3, 2, 0, 1), want);
    for eol in ["\r\n", "\r"] {
        let text = lf.replace('\n', eol);
        let r = audit(text.as_bytes());
        expect(&r, (3, 2, 0, 1), want);
        let e = records(&r.out, "errors.csv");
        assert_eq!(
            e[0]["offset"],
            text.find("[Event \"b\"]").unwrap().to_string()
        );
    }
    // Mixed in one file.
    let mixed = "[Event \"a\"]\r\n\r\n1. e4 *\r\r[Event \"b\"]\n\r\n1. d4 *\n\r\n1. c4 Kd7 *\r";
    let r = audit(mixed.as_bytes());
    expect(&r, (3, 2, 0, 1), &[(3, 2, "Kd7", "illegal_move")]);
}

#[test]
fn a_utf8_bom() {
    let text = "\u{feff}[Event \"a\"]\n\n1. e4 Ke6 *\n\n\u{feff}[Event \"b\"]\n\n1. d4 Kd6 *\n";
    let r = audit(text.as_bytes());
    expect(
        &r,
        (2, 0, 0, 2),
        &[(1, 2, "Ke6", "illegal_move"), (2, 2, "Kd6", "illegal_move")],
    );
    let e = records(&r.out, "errors.csv");
    assert_eq!(
        (e[0]["offset"].as_str(), e[0]["event"].as_str()),
        ("3", "a")
    );
    assert_eq!(e[1]["offset"], "32", "the BOM is not part of the game");
    // A BOM before movetext without tags, and a file that is only a BOM.
    let r = audit("\u{feff}1. e4 Ke6 *".as_bytes());
    expect(&r, (1, 0, 0, 1), &[(1, 2, "Ke6", "illegal_move")]);
    assert_eq!(records(&r.out, "errors.csv")[0]["offset"], "3");
    expect(&audit("\u{feff}".as_bytes()), (0, 0, 0, 0), &[]);
}

#[test]
fn percent_escape_lines() {
    let text = "% header of the export\n[Event \"a\"]\n% between tags\n[White \"w\"]\n\n\
1. e4 e5\n% inside the movetext\n2. Nf3 Nc6 *\n% after the game\n\n\
[Event \"b\"]\n\n1. e4 e5\n  % indented: not an escape\n2. Nf3 *\n%";
    let r = audit(text.as_bytes());
    expect(&r, (2, 1, 0, 1), &[(2, 3, "%", "parse_error")]);
    let e = records(&r.out, "errors.csv");
    assert_eq!(e[0]["detail"], "not a move, move number or result");
    assert_eq!(counts(&r.out).0, 2);
}

#[test]
fn duplicate_and_empty_tags() {
    let text = "[Event \"first\"]\n[Event \"second\"]\n[White \"\"]\n[Black \"\"]\n[FEN \"\"]\n[Variant \"\"]\n[]\n\n1. e4 Ke6 *\n\n\
[FEN \"not a fen\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 w - - 0 1\"]\n\n1. Kd2 Kd7 *\n";
    let r = audit(text.as_bytes());
    // `[]` has no value: a tag line that cannot be read, skipped with a
    // quirk.
    expect(&r, (2, 1, 0, 1), &[(1, 2, "Ke6", "illegal_move")]);
    assert_eq!(summary(&r.out)["notation_quirks"], 1);
    let e = records(&r.out, "errors.csv");
    assert_eq!(
        e[0]["event"], "second",
        "a tag given twice keeps its last value"
    );
    assert_eq!(e[0]["white"], "");
    let r = audit(text.replace("[]\n", "").as_bytes());
    expect(&r, (2, 1, 0, 1), &[(1, 2, "Ke6", "illegal_move")]);
    assert_eq!(summary(&r.out)["notation_quirks"], 0);
}

#[test]
fn fens_with_bad_fields() {
    let fens = [
        "k7/8/8/8/8/8/8/KK6 w - - 0 1",   // three kings
        "k6P/8/8/8/8/8/8/K7 w - - 0 1",   // pawn on the eighth rank
        "k7/8/8/8/8/8/8/K5p1 b - - 0 1",  // pawn on the first rank
        "4k3/8/8/8/8/8/8/4K3 w K - 0 1",  // a right with no rook: dropped, clean
        "r3k3/8/8/8/8/8/8/4K3 b q - 0 1", // a valid right: clean, like the last game
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", // side to move
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", // seven ranks
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", // nine files
        // (v3) an impossible en-passant square: dropped with a quirk, clean
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
        "4k3/8/8/8/8/8/8/4K2R b K - 0 1 extra", // trailing junk
    ];
    let mut text = String::new();
    for f in fens {
        text += &format!("[FEN \"{f}\"]\n\n*\n\n");
    }
    text += GAME;
    let r = audit(text.as_bytes());
    let rows: Vec<Row> = (1..=fens.len() as u64)
        .filter(|&g| g != 4 && g != 5 && g != 9)
        .map(|g| (g, 0, "", "bad_fen"))
        .collect();
    expect(&r, (11, 4, 0, 7), &rows);
    for d in details(&r.out) {
        assert!(d.starts_with("FEN \""), "{d}");
    }
}

#[test]
fn null_moves_are_illegal() {
    let r = audit(b"1. e4 -- 2. d4 *\n\n1. e4 e5 2. Z0 Nc6 *\n\n1. e4 e5 2. 0000 *\n\n1. Q@e4 *\n");
    expect(
        &r,
        (4, 0, 0, 4),
        &[
            (1, 2, "--", "illegal_move"),
            (2, 3, "Z0", "illegal_move"),
            (3, 3, "0000", "illegal_move"),
            (4, 1, "Q@e4", "illegal_move"),
        ],
    );
    let e = records(&r.out, "errors.csv");
    assert_eq!(
        e[0]["fen"],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
}

/// A move in coordinates with a promotion piece that names no legal move
/// (`e2e4q`) is an illegal_move, as one without (`e2e5`) is; it was a
/// parse_error.
#[test]
fn a_coordinate_move_with_a_promotion_naming_no_legal_move_is_illegal() {
    let r = audit(b"[Event \"a\"]\n\n1. e2e4q *\n\n[Event \"b\"]\n\n1. e2e5 *\n");
    expect(
        &r,
        (2, 0, 0, 2),
        &[
            (1, 1, "e2e4q", "illegal_move"),
            (2, 1, "e2e5", "illegal_move"),
        ],
    );
}

/// A source that breaks off right after a move and its space (here a run
/// of NULs past the limit, a read error): the game's parse_error at the
/// next ply has the position the moves reached as its `fen` ("the
/// position before `san`"); it was empty. Plain and gzip, at -j1 and -j2.
#[test]
fn a_game_broken_off_after_a_move_keeps_its_position() {
    for moves in ["1. Kd2 ", "1. Kd2 Kd7 2. Kc3 "] {
        let mut bytes = format!(
            "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n{moves}"
        )
        .into_bytes();
        bytes.resize(bytes.len() + 1_100_000, 0);
        let gz = {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut e, &bytes).unwrap();
            e.finish().unwrap()
        };
        let (ply, fen) = if moves.len() < 10 {
            (2, "4k3/8/8/8/8/8/3K4/8 b - - 1 1")
        } else {
            (4, "8/3k4/8/8/8/2K5/8/8 b - - 3 2")
        };
        for (name, input) in [("cut.pgn", &bytes), ("cut.pgn.gz", &gz)] {
            for j in ["1", "2"] {
                let r = run_on(&[(name, input)], |d| {
                    vec!["-j".to_owned(), j.to_owned(), s(&d.join(name)).to_owned()]
                });
                assert_eq!(r.status, Some(2), "{name} -j{j}: {}", r.stderr);
                let e = records(&r.out, "errors.csv");
                assert_eq!(e.len(), 1, "{name} -j{j}");
                assert_eq!(
                    (
                        e[0]["ply"].as_str(),
                        e[0]["kind"].as_str(),
                        e[0]["fen"].as_str()
                    ),
                    (ply.to_string().as_str(), "parse_error", fen),
                    "{name} -j{j} {moves}"
                );
                assert!(e[0]["detail"].starts_with("the input breaks off in this game"));
            }
        }
    }
}

/// Moves after the result, and a second result (text after the result, as
/// the contract has it: it was taken without a word, the first kept), are
/// the game's parse_error.
#[test]
fn moves_after_the_result() {
    let r = audit(b"[Event \"a\"]\n\n1. e4 e5 1-0 2. Nf3 Nc6 *\n\n[Event \"b\"]\n\n1. d4 d5 1/2-1/2 { a comment } 0-1\n\n1. c4 * 1. d4 *\n");
    expect(
        &r,
        (3, 0, 0, 3),
        &[
            (1, 3, "Nf3", "parse_error"),
            (2, 3, "0-1", "parse_error"),
            (3, 2, "d4", "parse_error"),
        ],
    );
    assert_eq!(
        details(&r.out),
        [
            "move after the game result",
            "a second result after the game result",
            "move after the game result"
        ]
    );
}

/// A source of 10 small games, then one game with a 1 MiB comment of
/// poorly compressible text: cut in its middle, the stream breaks inside
/// that comment.
fn two_parts() -> (Vec<u8>, Vec<u8>) {
    let mut head = Vec::new();
    for i in 0..10 {
        head.extend_from_slice(GAME.replace("\"ok\"", &format!("\"g{i}\"")).as_bytes());
        head.push(b'\n');
    }
    let words: Vec<u8> = noise(7, 1 << 20)
        .into_iter()
        .map(|b| b"abcdefghijklmnopqrstuvwxyz .,\n"[b as usize % 30])
        .collect();
    let mut tail = b"[Event \"big\"]\n\n1. e4 {".to_vec();
    tail.extend_from_slice(&words);
    tail.extend_from_slice(b"} e5 *\n");
    (head, tail)
}

#[test]
fn truncated_compressed_streams() {
    let (head, tail) = two_parts();
    // The cut game's row shows the comment's first line, where it opens.
    let open = tail.iter().position(|&b| b == b'{').unwrap();
    let line = tail[open..].iter().position(|&b| b == b'\n').unwrap();
    let first_line = String::from_utf8(tail[open..open + line.min(80)].to_vec()).unwrap();
    let zst = {
        let mut z = zstd::encode_all(&head[..], 3).unwrap();
        z.extend(zstd::encode_all(&tail[..], 3).unwrap());
        z
    };
    let gz = {
        let mut out = Vec::new();
        for part in [&head, &tail] {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(part).unwrap();
            out.extend(e.finish().unwrap());
        }
        out
    };
    let bz2 = {
        let mut out = Vec::new();
        for part in [&head, &tail] {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(part).unwrap();
            out.extend(e.finish().unwrap());
        }
        out
    };
    for (name, kind, data) in [
        ("cut.pgn.zst", "zstd", zst),
        ("cut.pgn.gz", "gzip", gz),
        ("cut.pgn.bz2", "bzip2", bz2),
    ] {
        let cut = &data[..data.len() * 3 / 4];
        let r = run_on(&[(name, cut), ("after.pgn", GAME.as_bytes())], |d| {
            vec![
                s(&d.join(name)).to_owned(),
                s(&d.join("after.pgn")).to_owned(),
            ]
        });
        assert_eq!(r.status, Some(2), "{name}: {}", r.stderr);
        let path = s(&r.dir.join(name)).to_owned();
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert!(
            lines[0].starts_with(&format!(
                "pgn-audit: {path}: {kind} stream is corrupt or truncated after "
            )),
            "{}",
            r.stderr
        );
        // The ten games before the fault, the cut game, and the next source.
        expect(&r, (12, 11, 0, 1), &[(11, 2, &first_line, "parse_error")]);
        let e = records(&r.out, "errors.csv");
        assert_eq!(e[0]["source"], path);
        assert_eq!(e[0]["event"], "big");
        assert!(
            e[0]["detail"].contains("stream is corrupt or truncated"),
            "{}",
            e[0]["detail"]
        );
        let sm = summary(&r.out);
        assert_eq!(sm["sources"].as_array().unwrap().len(), 2);
    }
}

#[test]
fn a_directory_with_unreadable_and_non_pgn_files() {
    // As root, chmod 000 does not stop reading. A dangling symlink named
    // `x.pgn` cannot be opened by anyone, root included; a directory
    // named `d.pgn` is walked into, not read; a FIFO `pipe.pgn` is no file.
    let files: &[(&str, &[u8])] = &[
        ("in/a.pgn", GAME.as_bytes()),
        ("in/notes.txt", b"not a pgn at all"),
        ("in/picture.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
        ("in/data.zst", &[0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0]),
        ("in/d.pgn/c.pgn", b"1. e4 e5 2. Ke3 *\n"),
        ("in/image.pgn", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff"),
        ("in/z.pgn", GAME.as_bytes()),
    ];
    let r = run_on(files, |d| {
        let dir = d.join("in");
        std::os::unix::fs::symlink(d.join("nowhere"), dir.join("x.pgn")).unwrap();
        // A FIFO named like a PGN file would block the run: it is skipped.
        crate::common::mkfifo(&dir.join("pipe.pgn"));
        vec![s(&dir).to_owned()]
    });
    assert_eq!(r.status, Some(2), "{}", r.stderr);
    let dir = s(&r.dir.join("in")).to_owned();
    // image.pgn is a PNG image by its magic bytes: refused.
    let lines: Vec<&str> = r.stderr.lines().take(2).collect();
    assert_eq!(
        lines,
        [
            format!("pgn-audit: {dir}/image.pgn: refused: a PNG image, not PGN text"),
            format!("pgn-audit: {dir}/x.pgn: no such file or directory"),
        ]
    );
    expect(&r, (3, 2, 0, 1), &[(1, 3, "Ke3", "illegal_move")]);
    let e = records(&r.out, "errors.csv");
    let sources: Vec<&str> = e.iter().map(|r| r["source"].as_str()).collect();
    assert_eq!(sources, [format!("{dir}/d.pgn/c.pgn")]);
    let sm = summary(&r.out);
    let names: Vec<String> = sm["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        ["a.pgn", "d.pgn/c.pgn", "image.pgn", "x.pgn", "z.pgn"].map(|n| format!("{dir}/{n}"))
    );
}
