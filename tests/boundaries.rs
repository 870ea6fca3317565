//! Game boundaries as contract v2 reads them (issue 18, "Game boundaries"
//! and "Not games"): a game's movetext runs until its result token, so blank
//! lines before it (after the tags, after a pre-game comment, between moves)
//! do not end the game; after the result a blank line or a tag ends it, and
//! a tag right after the result on its line starts the next game; a game
//! without a result ends at a tag line or the end of the input; a block of
//! comments between games is no game. The fixtures are written as old
//! collections, pgn-extract and pgn4web test files and TCEC archives write
//! them. Every run is made at -j1, -j2 and -j8 and its reports compared
//! byte for byte.

use crate::common;

use std::path::Path;

use common::{audit_at_every_thread_count, counts, pick, strings};

const ERRORS: [&str; 6] = ["game", "event", "ply", "san", "kind", "detail"];

/// Audits `text` with `--split` at -j1, -j2 and -j8 and returns the -j2
/// folder.
fn audit(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    audit_at_every_thread_count(text, &["--split"])
}

/// clean.pgn as written: every clean game's bytes, one blank line apart.
fn clean_pgn(out: &Path) -> String {
    std::fs::read_to_string(out.join("clean.pgn")).expect("clean.pgn")
}

/// An old collection: tags, a blank line, a comment before the first move,
/// a blank line, moves with blank lines between them, the result; a
/// pgn4web demo game with its comment on the line before `1.`; and a game
/// with two blank lines after its tags that follows its neighbour without
/// a blank line.
const OLD_COLLECTION: &str = r#"[Event "Hastings"]
[Site "Hastings ENG"]
[Date "1895.08.05"]
[Round "1"]
[White "Pillsbury, Harry Nelson"]
[Black "Chigorin, Mikhail"]
[Result "0-1"]

{ Notes from the tournament book. }

1. d4 d5 2. c4 Nc6 3. Nc3 dxc4 4. Nf3 Nf6

5. e4 Bg4 6. d5 Ne5 7. Bf4 Ng6 8. Be3 e5

9. Bxc4 Nxe4 10. O-O Nxc3 0-1

[Event "pgn4web demo"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "White"]
[Black "Black"]
[Result "1-0"]

{ A short game }
1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6

4. Qxf7# 1-0
[Event "Casual"]
[White "A"]
[Black "B"]
[Result "1/2-1/2"]


1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2
"#;

#[test]
fn blank_lines_before_the_result_do_not_end_the_game() {
    let (_t, out) = audit(OLD_COLLECTION);
    assert_eq!(counts(&out), (3, 3, 0, 0));
    assert_eq!(pick(&out, "errors.csv", &ERRORS), strings(&[]));
    // Each game whole, the second one ending at the third one's tags.
    let (second, third) = OLD_COLLECTION.split_at(OLD_COLLECTION.find("[Event \"Casual").unwrap());
    let first = &second[..second.find("[Event \"pgn4web").unwrap()];
    let second = &second[first.len()..];
    assert_eq!(clean_pgn(&out), format!("{first}{second}\n{third}"));
}

/// A TCEC archive: `;` comment lines before the first game and between
/// games, a `%` escape line, and a closing `{ }` comment.
const TCEC: &str = r#"; TCEC Season 1 - Superfinal
; Produced by the TCEC viewer

[Event "TCEC Season 1"]
[Round "1"]
[White "Rybka"]
[Black "Naum"]
[Result "1/2-1/2"]

1. e4 {book} e5 {book} 2. Nf3 {+0.20/20 12s} Nc6 {-0.18/19 11s} 1/2-1/2

; Game 2: reversed colours
% archived 2011

[Event "TCEC Season 1"]
[Round "2"]
[White "Naum"]
[Black "Rybka"]
[Result "1/2-1/2"]

1. e4 {book} e5 {book} 2. Nf3 {+0.12/21 14s} Nc6 {-0.10/20 13s} 1/2-1/2

{ End of the archive }
"#;

#[test]
fn comment_blocks_between_games_are_no_game() {
    let (_t, out) = audit(TCEC);
    assert_eq!(counts(&out), (2, 2, 0, 0));
    let games: Vec<&str> = TCEC.split("\n\n[").skip(1).collect();
    assert_eq!(games.len(), 2);
    assert_eq!(
        clean_pgn(&out),
        format!(
            "[{}\n[{}",
            &games[0][..games[0].find("\n\n;").unwrap() + 1],
            &games[1][..games[1].find("\n\n{").unwrap() + 1]
        )
    );
    // A file of nothing but comments holds no game.
    let (_t, out) = audit("; nothing\n\n{ but comments }\n% and escapes\n");
    assert_eq!(counts(&out), (0, 0, 0, 0));
}

#[test]
fn a_tag_right_after_the_result_starts_the_next_game() {
    let text = "[Event \"a\"]\n\n1. e4 e5 * [Event \"b\"] 1. d4 d5 *\n\
        [Event \"c\"]\n\n1. e4 e5 1-0 Nf3\n\n[Event \"d\"]\n\n1. d4 *\n";
    let (_t, out) = audit(text);
    assert_eq!(counts(&out), (4, 3, 0, 1));
    // A move between the result and the blank line is this game's.
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[&[
            "3",
            "c",
            "3",
            "Nf3",
            "parse_error",
            "move after the game result"
        ]])
    );
    assert_eq!(
        clean_pgn(&out),
        "[Event \"a\"]\n\n1. e4 e5 * \n\n[Event \"b\"] 1. d4 d5 *\n\n[Event \"d\"]\n\n1. d4 *\n"
    );
}

/// (v4) `*`, `[`, `]`, `(`, `)`, `{` and `}` end the token before them
/// without a blank, as pgn4web's test file writes its odd games: `a5*[Event`
/// is the move `a5`, the result `*` and the next game; `h5*` and
/// `Nc6*` at a line's end, `0-1[` and `)*` likewise.
#[test]
fn tokens_that_pgn_delimits_itself_need_no_blank() {
    let text = "[Event\"a\"][Round \"11\"]a4(b4$6)a6!?{comment}a5*[Event\"b\"][Round \"12\"]h4(g4)h6{comment}h5*\n\
        [Event \"c\"]\n\n1.e4 e5 2.Nf3 Nc6*\n\n\
        [Event \"d\"]\n\n1.f3 e5 2.g4 Qh4# 0-1[Event \"e\"]\n\n1.d4 d5(1...Nf6)*";
    let (_t, out) = audit(text);
    assert_eq!(pick(&out, "errors.csv", &ERRORS), strings(&[]));
    assert_eq!(counts(&out), (5, 5, 0, 0));
    assert_eq!(
        clean_pgn(&out),
        "[Event\"a\"][Round \"11\"]a4(b4$6)a6!?{comment}a5*\n\n\
         [Event\"b\"][Round \"12\"]h4(g4)h6{comment}h5*\n\n\
         [Event \"c\"]\n\n1.e4 e5 2.Nf3 Nc6*\n\n\
         [Event \"d\"]\n\n1.f3 e5 2.g4 Qh4# 0-1\n\n\
         [Event \"e\"]\n\n1.d4 d5(1...Nf6)*\n"
    );
    // A run of asterisks between games is prose, no result: no game.
    let (_t, out) = audit("*****\n\n[Event \"a\"]\n\n1. e4 *\n\n*** The end ***\n");
    assert_eq!(counts(&out), (1, 1, 0, 0));
}

/// The real file: pgn4web's test.pgn writes two games on one line,
/// `…a5*[Event"Testing another very odd game"]…h5*`; each is a clean game
/// of its own. Ignored where the collections are missing.
#[test]
#[cfg_attr(
    not(collections),
    ignore = "needs the real collections in ../shared/collections"
)]
fn pgn4webs_two_games_on_one_line_are_two_games() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/collections/external/pgn4web/test.pgn"
    );
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let o = common::run(&[file, "--split", "--no-html"], &out);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let odd = |event: &str| {
        common::records(&out, "errors.csv")
            .iter()
            .filter(|r| r["event"] == event)
            .count()
    };
    assert_eq!(odd("Testing very odd game"), 0);
    assert_eq!(odd("Testing another very odd game"), 0);
    let clean = std::fs::read_to_string(out.join("clean.pgn")).unwrap();
    assert!(
        clean.contains(
            "\n[Event\"Testing very odd game\"][Round \"11\"]a4(b4$6)a6!?{comment}a5*\n\n\
             [Event\"Testing another very odd game\"][Round \"12\"]h4(g4)h6{comment}h5*\n"
        ),
        "{clean}"
    );
}

#[test]
fn a_game_without_result_ends_at_a_tag_line_or_the_end() {
    let text = "[Event \"a\"]\n\n1. e4 e5\n\n2. Nf3 Nc6\n[Event \"b\"]\n\n1. d4\n\n1... d5\n";
    let (_t, out) = audit(text);
    assert_eq!(counts(&out), (2, 2, 0, 0));
    assert_eq!(
        clean_pgn(&out),
        "[Event \"a\"]\n\n1. e4 e5\n\n2. Nf3 Nc6\n\n[Event \"b\"]\n\n1. d4\n\n1... d5\n"
    );
}

/// What v1 read and v2 keeps: tag-only sections of a Lichess study are
/// games, games need no blank line between them, and an unterminated
/// comment costs only its own game (a tag line after a blank line, or a
/// `1.` line after a blank line, ends it).
#[test]
fn study_sections_adjacent_games_and_open_comments_keep_their_boundaries() {
    let text = "[Event \"s1\"]\n[Site \"x\"]\n\n[Event \"s2\"]\n\n1. e4 *\n[Event \"s3\"]\n\
        1. d4 { open\n\n[Event \"s4\"]\n\n1. c4 { open\n\n1. Nf3 *\r\n\r\n\u{feff}[Event \"s6\"]\r\n\r\n1. f4 *\r\n\x1a";
    let (_t, out) = audit(text);
    assert_eq!(counts(&out), (6, 4, 0, 2));
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[
            &[
                "3",
                "s3",
                "2",
                "{ open",
                "parse_error",
                "unterminated comment"
            ],
            &[
                "4",
                "s4",
                "2",
                "{ open",
                "parse_error",
                "unterminated comment"
            ],
        ])
    );
}
