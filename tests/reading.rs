//! Tags and moves as real databases write them (issue 18, contract v2
//! "Reading PGN": Tags and Moves), and quirks.csv (`--quirks`): a tag value
//! with unescaped quotes is read between its first and last quote, a tag
//! line that cannot be read is skipped, `1/2` is a draw, `1. ... e5` is
//! Black's move, `++` and `e.p.` are accepted, and coordinate notation
//! (`g1f3`) names the legal move it describes. Every sloppy form is a quirk,
//! one quirks.csv row each. Every run is made at -j1, -j2 and -j8 and its
//! reports compared byte for byte.

use crate::common;

use std::path::PathBuf;

use common::{audit_at_every_thread_count, counts, pick, run, s, strings, summary, tempdir, write};

/// The columns of quirks.csv that the tests compare (after the identity
/// columns `game` and `event`).
const QUIRKS: [&str; 6] = ["game", "event", "ply", "san", "quirk", "move"];
const ERRORS: [&str; 5] = ["game", "ply", "san", "kind", "detail"];
const FOREIGN: &str = "foreign_piece_letters";

/// Audits `text` with `--quirks` at -j1, -j2 and -j8 (identical reports
/// asserted) and returns the folder of the -j2 run.
fn audit(text: &str) -> (tempfile::TempDir, PathBuf) {
    let (t, out) = audit_at_every_thread_count(text, &["--quirks"]);
    assert!(out.join("quirks.csv").exists());
    (t, out)
}

/// Games as old databases, correspondence archives and early programs wrote
/// them: one or more quirks of every kind.
const OLD_DATABASE: &str = r#"[Event "London "Immortal""]
[Site "London ENG"]
[Date "1851.06.21"]
[Round "?]
[White "Anderssen, Adolf"]
[Black "Kieseritzky, Lionel"]
[Result "1-0"]

1.e4 e5 2.f4 exf4 3.Bc4 Qh4+ 4.Kf1 b5 5.Bxb5 Nf6 6.Nf3 Qh6 7.d3 Nh5 8.Nh4 Qg5
9.Nf5 c6 10.g4 Nf6 11.Rg1 cxb5 12.h4 Qg6 13.h5 Qg5 14.Qf3 Ng8 15.Bxf4 Qf6
16.Nc3 Bc5 17.Nd5 Qxb2 18.Bd6 Bxg1 19.e5 Qxa1+ 20.Ke2 Na6 21.Nxg7+ Kd8
22.Qf6+ Nxf6 23.Be7# 1-0

[Event "Rook odds"]
[Site "New Orleans"]
[Date "1858.??.??"]
[White "Morphy, Paul"]
[Black ""Learning with fun""]
[Result "*"]
[SetUp "1"]
[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w KQkq - 0 1"]

1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5 4.0-0 d6 5.c3 Nf6 6.d4 exd4 7.cxd4 Bb6 8.Nc3 o-o
9.Bg5 h6 10.Bh4 Bg4 11.e5 dxe5 12.dxe5 Bxf3 13.Qxf3 Nxe5 14.Qg3 Nxc4 *

[Event "Computer game"]
[White "Program A"]
[Black "Program B"]
[Result "*"]

1. e2e4 g8f6 2. e4e5 d7d5 3. e5d6 e7d6 4. g1f3 f8e7 5. f1e2 e8g8 6. e1g1 *

[Event "Promotions"]
[SetUp "1"]
[FEN "8/3PP3/8/8/8/8/8/K6k w - - 0 1"]

1. d7d8R h1g2 2. e7e8q g2f2 3. d8d2 *

[Event "Sloppy"]

1. e4 d5 2. xd5 Qxd5 3. Nxc3 Qa5 4. Ng1f3 Nf6 5. Bc4 e6 6. O-O Be7 7. d4 O-O
8. Bg5 Nbd7 9. Bxf6 Nf6 10. Bb5 *

[Event "Mate written as check"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7+ 1-0

[Event "Check written as mate"]

1. e4 f5 2. Qh5# g6 *

[Event "Check marks"]

1. e4 d5 2. Bb5 c6 3. Nf3+ *

[Event "En passant"]

1. e4 Nf6 2. e5 d5 3. exd6e.p. cxd6 4. d4 Nc6 5. d5 e5 6. dxe6 e.p. fxe6 7. f4 h6
8. f5 g5 9. fxg6ep *

[Event "Double check"]
[SetUp "1"]
[FEN "4k3/8/8/8/4N3/8/8/4RK2 w - - 0 1"]

1. Nd6++ Kd7 2. Re7+ Kxd6 3. Re2 *

[Event "Promotion"]
[SetUp "1"]
[FEN "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"]

1. a8Q+ Kd7 2. Qb7+ *
"#;

/// Every quirk of the old database, one row per move (or tag line, or FEN
/// castling right), in game and ply order; `notation_quirks` counts the
/// rows, and every game is audited to its end.
#[test]
fn quirks_csv_has_a_row_per_sloppy_move() {
    let (_t, out) = audit(OLD_DATABASE);
    let coordinate = "coordinate_notation";
    let expected: &[&[&str]] = &[
        &[
            "1",
            "London \"Immortal\"",
            "0",
            "[Event \"London \"Immortal\"\"]",
            "unescaped_tag_quotes",
            "",
        ],
        &[
            "1",
            "London \"Immortal\"",
            "0",
            "[Round \"?]",
            "unreadable_tag_line",
            "",
        ],
        &[
            "2",
            "Rook odds",
            "0",
            "[Black \"\"Learning with fun\"\"]",
            "unescaped_tag_quotes",
            "",
        ],
        &["2", "Rook odds", "0", "Q", "impossible_castling_right", ""],
        &["2", "Rook odds", "7", "0-0", "castling_with_zeros", "O-O"],
        &["2", "Rook odds", "16", "o-o", "lowercase_castling", "O-O"],
        &["3", "Computer game", "1", "e2e4", coordinate, "e4"],
        &["3", "Computer game", "2", "g8f6", coordinate, "Nf6"],
        &["3", "Computer game", "3", "e4e5", coordinate, "e5"],
        &["3", "Computer game", "4", "d7d5", coordinate, "d5"],
        &["3", "Computer game", "5", "e5d6", coordinate, "exd6"],
        &["3", "Computer game", "6", "e7d6", coordinate, "exd6"],
        &["3", "Computer game", "7", "g1f3", coordinate, "Nf3"],
        &["3", "Computer game", "8", "f8e7", coordinate, "Be7"],
        &["3", "Computer game", "9", "f1e2", coordinate, "Be2"],
        &["3", "Computer game", "10", "e8g8", coordinate, "O-O"],
        &["3", "Computer game", "11", "e1g1", coordinate, "O-O"],
        &["4", "Promotions", "1", "d7d8R", coordinate, "d8=R"],
        &["4", "Promotions", "2", "h1g2", coordinate, "Kg2"],
        &["4", "Promotions", "3", "e7e8q", coordinate, "e8=Q"],
        &["4", "Promotions", "4", "g2f2", coordinate, "Kf2"],
        &[
            "4",
            "Promotions",
            "5",
            "d8d2",
            "coordinate_notation;missing_check_mark",
            "Rd2+",
        ],
        &[
            "5",
            "Sloppy",
            "3",
            "xd5",
            "pawn_capture_without_file",
            "exd5",
        ],
        &["5", "Sloppy", "5", "Nxc3", "extra_capture_mark", "Nc3"],
        &[
            "5",
            "Sloppy",
            "7",
            "Ng1f3",
            "needless_disambiguation",
            "Nf3",
        ],
        &["5", "Sloppy", "18", "Nf6", "missing_capture_mark", "Nxf6"],
        &[
            "6",
            "Mate written as check",
            "7",
            "Qxf7+",
            "wrong_check_mark",
            "Qxf7#",
        ],
        &[
            "7",
            "Check written as mate",
            "3",
            "Qh5#",
            "wrong_check_mark",
            "Qh5+",
        ],
        &["8", "Check marks", "3", "Bb5", "missing_check_mark", "Bb5+"],
        &["8", "Check marks", "5", "Nf3+", "wrong_check_mark", "Nf3"],
        &[
            "9",
            "En passant",
            "5",
            "exd6e.p.",
            "en_passant_suffix",
            "exd6",
        ],
        &[
            "9",
            "En passant",
            "11",
            "dxe6 e.p.",
            "en_passant_suffix",
            "dxe6",
        ],
        &[
            "9",
            "En passant",
            "17",
            "fxg6ep",
            "en_passant_suffix",
            "fxg6",
        ],
        &[
            "10",
            "Double check",
            "1",
            "Nd6++",
            "double_check_mark",
            "Nd6+",
        ],
        &[
            "11",
            "Promotion",
            "1",
            "a8Q+",
            "promotion_without_equals",
            "a8=Q+",
        ],
    ];
    assert_eq!(pick(&out, "quirks.csv", &QUIRKS), strings(expected));
    assert_eq!(counts(&out), (11, 11, 0, 0));
    let sum = summary(&out);
    assert_eq!(sum["notation_quirks"], expected.len() as u64);
    // The identity columns of every report, then quirks.csv's own.
    let header = |file: &str| {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        text.lines().next().unwrap().to_owned()
    };
    let errors = header("errors.csv");
    let identity = errors.strip_suffix(",ply,san,kind,detail,fen").unwrap();
    assert_eq!(
        header("quirks.csv"),
        format!("{identity},ply,san,quirk,move")
    );
}

/// quirks.csv is written only with `--quirks`; a run without it leaves no
/// quirks.csv of an earlier run behind, and counts the same quirks.
#[test]
fn quirks_csv_only_with_the_flag() {
    let t = tempdir();
    let file = write(t.path(), "games.pgn", OLD_DATABASE.as_bytes());
    let out = t.path().join("out");
    let o = run(&[s(&file), "--no-html", "--quirks"], &out);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(out.join("quirks.csv").exists());
    let o = run(&[s(&file), "--no-html"], &out);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(!out.join("quirks.csv").exists());
    assert_eq!(summary(&out)["notation_quirks"], 35);
}

/// A tag line that cannot be read even so (no value, no closing quote, no
/// closing bracket) is skipped with a quirk and the game is audited; a tag
/// line with moves after the tag starts the movetext there.
#[test]
fn unreadable_tag_lines_are_skipped_and_the_game_audited() {
    let text = "[Event \"Cut lines\"]\n[Annotator]\n[Site \"Paris\n[Round \"3\"\n\
                [Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
                [Event \"Moves on the tag line\"] 1. d4 d5 2. d5 *\n";
    let (_t, out) = audit(text);
    assert_eq!(
        pick(&out, "quirks.csv", &["game", "site", "ply", "san", "quirk"]),
        strings(&[
            &["1", "", "0", "[Annotator]", "unreadable_tag_line"],
            &["1", "", "0", "[Site \"Paris", "unreadable_tag_line"],
            &["1", "", "0", "[Round \"3\"", "unreadable_tag_line"],
        ])
    );
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[&[
            "2",
            "3",
            "d5",
            "illegal_move",
            "d5 is not a legal move for White in this position",
        ]])
    );
    assert_eq!(counts(&out), (2, 1, 0, 1));
    let sum = summary(&out);
    assert_eq!(sum["notation_quirks"], 3);
    assert_eq!(sum["errors"]["parse_error"], 0);
}

/// `1. ... Ba5`, `8. ...Bxc3` and `8...Bxc3` are Black's move (PGN import
/// format): no quirk, no error.
#[test]
fn black_move_numbers_in_import_format() {
    let text = "[Event \"Evans Gambit\"]\n[Result \"*\"]\n\n\
                1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. b4 Bxb4 5. c3 {the gambit} 5. ... Ba5 \
                6. d4 exd4 7. O-O dxc3 8. Nxc3 8. ...Bxc3 9. Ba3 9...d6 10. e5 *\n";
    let (_t, out) = audit(text);
    assert_eq!(counts(&out), (1, 1, 0, 0));
    let sum = summary(&out);
    assert_eq!(sum["notation_quirks"], 0);
    assert_eq!(sum["errors"]["parse_error"], 0);
    // A move after them is read at its ply: 10...Qd1 is no move.
    let (_t, out) = audit(&text.replace("10. e5 *", "10. e5 10. ... Qd1 *"));
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[&[
            "1",
            "20",
            "Qd1",
            "illegal_move",
            "Qd1 is not a legal move for Black in this position",
        ]])
    );
}

/// A move in coordinate notation that names no legal move is an
/// `illegal_move`, like any other.
#[test]
fn coordinate_notation_naming_no_legal_move_is_illegal() {
    let text = "[Event \"UCI\"]\n\n1. e2e4 e7e5 2. e1e3 *\n\n\
                [Event \"UCI promotion\"]\n[SetUp \"1\"]\n[FEN \"4k3/P7/8/8/8/8/8/4K3 w - - 0 1\"]\n\n\
                1. a7a8 *\n";
    let (_t, out) = audit(text);
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[
            &[
                "1",
                "3",
                "e1e3",
                "illegal_move",
                "e1e3 is not a legal move for White in this position",
            ],
            &[
                "2",
                "1",
                "a7a8",
                "illegal_move",
                "a7a8 is not a legal move for White in this position",
            ],
        ])
    );
    assert_eq!(summary(&out)["notation_quirks"], 2);
}

/// `1/2` as the Result tag or as the result token that ends the movetext is
/// a draw: the next game starts after it, and a drawn game's claim is
/// audited.
#[test]
fn a_result_of_one_half_is_a_draw() {
    let text = "[Event \"Morphy\"]\n[Result \"1/2\"]\n\n\
                1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 {drawn by repetition} 1/2\n\n\
                [Event \"Next\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 1/2\n";
    let (_t, out) = audit(text);
    assert_eq!(
        pick(
            &out,
            "claims.csv",
            &["game", "result", "claim_source", "verdict"]
        ),
        strings(&[&["1", "1/2", "comment", "valid"]])
    );
    assert_eq!(counts(&out), (2, 2, 0, 0));
    assert_eq!(summary(&out)["errors"]["parse_error"], 0);
}

/// (v3, issue 28) An event file as PGN Mentor, Polgár's problems, TWIC and
/// old books write them: prose between games and before the first,
/// evaluation glyphs, tagless games one per line, an impossible en-passant
/// square in a FEN, `ep` without dots before a check mark, and German and
/// Dutch piece letters.
const OLD_COLLECTIONS: &str = r#"Poikovsky 2002
--------------

The first round was played on a Monday.

[Event "Poikovsky"]
[Round "1"]
[White "Karpov, Anatoly"]
[Black "Bologan, Viktor"]
[Result "1-0"]

1. e4 c6 2. d4 d5 3. Nd2 dxe4 4. Nxe4 Nd7 5. Ng5 Ngf6 6. Bd3 e6 +=
7. N1f3 Bd6 8. Qe2 h6 9. Ne4 Nxe4 10. Qxe4 Nf6 11. Qe2 +- 1-0

Round 2
-------

A quick draw followed.

[Event "Poikovsky"]
[Round "2"]
[Result "1/2-1/2"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 = 1/2-1/2

[Event "Polgar, problem 1"]
[SetUp "1"]
[FEN "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"]
[Result "*"]

1. Rd8# +- *

[Event "Polgar, problem 2"]
[SetUp "1"]
[FEN "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"]
[Result "*"]

1. a8=Q+ !? Kd7 2. Qb7+ = Kd6 ± *

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
1. f3 e5 2. g4 Qh4# 0-1
1. d4 d5 1/2-1/2

[Event "Study"]
[SetUp "1"]
[FEN "8/8/2K5/2p5/2kp4/P1p5/2Q5/8 w - g6 0 1"]
[Result "*"]

1. Qb3+ Kd3 *

[Event "Opposite check"]
[SetUp "1"]
[FEN "k7/8/8/8/8/8/8/R3K3 w - e6 0 1"]
[Result "*"]

1. Ra2 *

[Event "En passant"]
[Result "*"]

1. e4 e6 2. e5 Ke7 3. d4 f5 4. exf6ep+ Kxf6 *

[Event "Deutsche Meisterschaft"]
[Result "1-0"]

1. e4 e5 2. Sf3 Sc6 3. Lb5 a6 4. La4 Sf6 5. O-O Le7 1-0

[Event "Nederlands kampioenschap"]
[Result "*"]

1. e4 e5 2. Pf3 Pc6 3. Lc4 Lc5 4. De2 Dg5 *

[Event "Mixed letters"]
[Result "*"]

1. e4 e5 2. Cf3 Nc6 *

[Event "No legal knight move"]
[Result "*"]

1. e4 e5 2. Sf4 *

The end of the collection.
"#;

/// Every right the FEN wrote for a king that is off its back rank is
/// dropped, each under its own letter: `KQ` with the king on e2 and one
/// rook, on h1, dropped only `K` (both letters named h1), and `Qk` dropped
/// a `K` the FEN never wrote.
#[test]
fn each_right_of_a_king_off_its_back_rank_is_dropped_under_its_letter() {
    let game = |event: &str, fen: &str, moves: &str| {
        format!("[Event \"{event}\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n{moves} *\n\n")
    };
    let text = [
        game("KQk", "4k2r/8/8/8/8/8/4K3/7R w KQk - 0 1", "1. Kd3"),
        game("Qk", "4k2r/8/8/8/8/8/4K3/7R w Qk - 0 1", "1. Kd3"),
        game("KQ a1", "4k3/8/8/8/8/8/4K3/R7 w KQ - 0 1", "1. Kd3"),
        game("Kkq", "7r/4k3/8/8/8/8/8/4K2R w Kkq - 0 1", "1. Kd2"),
    ]
    .concat();
    let (_t, out) = audit(&text);
    let dropped = "impossible_castling_right";
    assert_eq!(
        pick(&out, "quirks.csv", &QUIRKS),
        strings(&[
            &["1", "KQk", "0", "K", dropped, ""],
            &["1", "KQk", "0", "Q", dropped, ""],
            &["2", "Qk", "0", "Q", dropped, ""],
            &["3", "KQ a1", "0", "K", dropped, ""],
            &["3", "KQ a1", "0", "Q", dropped, ""],
            &["4", "Kkq", "0", "k", dropped, ""],
            &["4", "Kkq", "0", "q", dropped, ""],
        ])
    );
}

/// A dropped castling right is written in quirks.csv as the FEN wrote it,
/// in the order the FEN wrote them: `KQkq` of a game whose Variant names
/// standard chess, its rooks on b1 and g1, drops `K` and `Q` (it wrote the
/// rooks' files, `G` and `B`); a Chess960 FEN's `H` without a rook there
/// drops `H` (it wrote `K`); `KQkq` with no rook at all drops `K`, `Q`,
/// `k`, `q` (they were listed in square order, `Q` first).
#[test]
fn a_dropped_right_is_written_as_the_fen_wrote_it() {
    let text = "[Event \"Standard\"]\n[Variant \"Standard\"]\n[SetUp \"1\"]\n\
        [FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1RBQKBR1 w KQkq - 0 1\"]\n\n1. e4 *\n\n\
        [Event \"Shredder\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
        [FEN \"4k3/8/8/8/8/8/8/1R2K3 w HB - 0 1\"]\n\n1. Kd2 *\n\n\
        [Event \"Kings\"]\n[SetUp \"1\"]\n\
        [FEN \"4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1\"]\n\n1. Kd1 *\n";
    let (_t, out) = audit(text);
    let dropped = "impossible_castling_right";
    assert_eq!(
        pick(&out, "quirks.csv", &QUIRKS),
        strings(&[
            &["1", "Standard", "0", "K", dropped, ""],
            &["1", "Standard", "0", "Q", dropped, ""],
            &["2", "Shredder", "0", "H", dropped, ""],
            &["3", "Kings", "0", "K", dropped, ""],
            &["3", "Kings", "0", "Q", dropped, ""],
            &["3", "Kings", "0", "k", dropped, ""],
            &["3", "Kings", "0", "q", dropped, ""],
        ])
    );
}

/// (v3) A game whose only piece letter is `R` (roi, rey: the king in
/// French and Spanish) and whose `R` moves name no legal rook move is read
/// in the first set in which every move is legal. It stayed an
/// `illegal_move`: a set was tried only where a letter English does not
/// use stopped the reading. A game whose English reading is legal stays
/// English, and one that no set reads stays its English `illegal_move`,
/// also where the French reading would be a castle (`Rg1`, `Rxc8`: a rook
/// move onto a castling king's square is no castle; it was read as `Kg1`
/// and reported as an unplayable castle).
#[test]
fn a_game_whose_only_letter_is_the_french_king_is_read_in_french() {
    let from = "[SetUp \"1\"]\n[FEN \"8/4P1k1/8/8/8/8/8/4K3 w - - 0 1\"]\n[Result \"*\"]\n\n";
    let rook = "[SetUp \"1\"]\n[FEN \"8/6k1/8/8/8/8/8/R3K3 w - - 0 1\"]\n[Result \"*\"]\n\n";
    let text = format!(
        "[Event \"Roi\"]\n{from}1. Rd2 Rf6 2. Re3 Rf5 *\n\n\
         [Event \"Rook\"]\n{rook}1. Ra2 Kf6 *\n\n\
         [Event \"Neither\"]\n{from}1. Rd2 Rf6 2. Rd5 *\n\n\
         [Event \"Rg1\"]\n\n1. Rg1 *\n\n\
         [Event \"Rxc8\"]\n\n1. h4 Rxc8 *\n\n\
         [Event \"FEN Rg1\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K1NR w K - 0 1\"]\n\n1. Rg1 *\n"
    );
    let (_t, out) = audit(&text);
    assert_eq!(
        pick(&out, "quirks.csv", &QUIRKS),
        strings(&[
            &["1", "Roi", "1", "Rd2", FOREIGN, "Kd2"],
            &["1", "Roi", "2", "Rf6", FOREIGN, "Kf6"],
            &["1", "Roi", "3", "Re3", FOREIGN, "Ke3"],
            &["1", "Roi", "4", "Rf5", FOREIGN, "Kf5"],
        ])
    );
    assert_eq!(
        pick(&out, "errors.csv", &["game", "ply", "san", "kind"]),
        strings(&[
            &["3", "1", "Rd2", "illegal_move"],
            &["4", "1", "Rg1", "illegal_move"],
            &["5", "2", "Rxc8", "illegal_move"],
            &["6", "1", "Rg1", "illegal_move"],
        ])
    );
    assert!(pick(&out, "castling.csv", &["game"]).is_empty());
}

/// (v3) A game whose only foreign piece letters name the piece a pawn
/// promotes to (`a8=D`, `a8T`: German) is read in that set too. It was a
/// parse_error: a set was tried only where a move starts with its letter.
#[test]
fn a_foreign_promotion_letter_alone_is_read_in_its_set() {
    let from = "[SetUp \"1\"]\n[FEN \"8/P6k/8/8/8/8/7K/8 w - - 0 1\"]\n[Result \"*\"]\n\n";
    let text = format!(
        "[Event \"Dame\"]\n{from}1. a8=D Kg6 2. Dg8+ *\n\n\
         [Event \"Turm\"]\n{from}1. a8T Kg6 *\n\n\
         [Event \"Springer\"]\n{from}1. a8=N Kg6 2. a1=S *\n"
    );
    let (_t, out) = audit(&text);
    assert_eq!(
        pick(&out, "quirks.csv", &QUIRKS),
        strings(&[
            &["1", "Dame", "1", "a8=D", FOREIGN, "a8=Q"],
            &["1", "Dame", "3", "Dg8+", FOREIGN, "Qg8+"],
            &[
                "2",
                "Turm",
                "1",
                "a8T",
                "promotion_without_equals;foreign_piece_letters",
                "a8=R"
            ],
        ])
    );
    // English and German letters mixed: the first foreign one is the
    // error, as before.
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[&[
            "3",
            "3",
            "a1=S",
            "parse_error",
            "not a move, move number or result"
        ]])
    );
}

/// (v3, issue 28) Every game of the old collections as its authors meant
/// it: the prose is no game (14 games, not 15), the glyphs are quirks
/// (`=Q` stays a promotion), the three tagless lines are three games, the
/// impossible `g6` is dropped while an opposite check stays `bad_fen`,
/// `exf6ep+` is en passant with check, and a game in German or Dutch
/// letters is read in its set, move by move a quirk; a game that mixes
/// sets, or whose foreign move names no legal move, is a `parse_error` at
/// its first such move, as before.
#[test]
fn old_collections_are_read_as_their_authors_meant() {
    let (_t, out) = audit(OLD_COLLECTIONS);
    assert_eq!(
        pick(&out, "quirks.csv", &QUIRKS),
        strings(&[
            &["1", "Poikovsky", "12", "+=", "annotation_glyph", ""],
            &["1", "Poikovsky", "21", "+-", "annotation_glyph", ""],
            &["2", "Poikovsky", "6", "=", "annotation_glyph", ""],
            &["3", "Polgar, problem 1", "1", "+-", "annotation_glyph", ""],
            &["4", "Polgar, problem 2", "1", "!?", "annotation_glyph", ""],
            &["4", "Polgar, problem 2", "3", "=", "annotation_glyph", ""],
            &["4", "Polgar, problem 2", "4", "±", "annotation_glyph", ""],
            &["8", "Study", "0", "g6", "impossible_en_passant_square", ""],
            &[
                "10",
                "En passant",
                "7",
                "exf6ep+",
                "en_passant_suffix",
                "exf6+"
            ],
            &["11", "Deutsche Meisterschaft", "3", "Sf3", FOREIGN, "Nf3"],
            &["11", "Deutsche Meisterschaft", "4", "Sc6", FOREIGN, "Nc6"],
            &["11", "Deutsche Meisterschaft", "5", "Lb5", FOREIGN, "Bb5"],
            &["11", "Deutsche Meisterschaft", "7", "La4", FOREIGN, "Ba4"],
            &["11", "Deutsche Meisterschaft", "8", "Sf6", FOREIGN, "Nf6"],
            &["11", "Deutsche Meisterschaft", "10", "Le7", FOREIGN, "Be7"],
            &["12", "Nederlands kampioenschap", "3", "Pf3", FOREIGN, "Nf3"],
            &["12", "Nederlands kampioenschap", "4", "Pc6", FOREIGN, "Nc6"],
            &["12", "Nederlands kampioenschap", "5", "Lc4", FOREIGN, "Bc4"],
            &["12", "Nederlands kampioenschap", "6", "Lc5", FOREIGN, "Bc5"],
            &["12", "Nederlands kampioenschap", "7", "De2", FOREIGN, "Qe2"],
            &["12", "Nederlands kampioenschap", "8", "Dg5", FOREIGN, "Qg5"],
        ])
    );
    let not_a_move = "not a move, move number or result";
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[
            &[
                "9",
                "0",
                "",
                "bad_fen",
                "FEN \"k7/8/8/8/8/8/8/R3K3 w - e6 0 1\" is not a legal position: illegal position: opposite check",
            ],
            &["13", "3", "Cf3", "parse_error", not_a_move],
            &["14", "3", "Sf4", "parse_error", not_a_move],
        ])
    );
    // The glyph no longer hides the mate of problem 1, scored `*`.
    assert_eq!(
        pick(
            &out,
            "results.csv",
            &["game", "ply", "code", "recorded", "expected"]
        ),
        strings(&[&["3", "1", "checkmate_not_scored", "*", "1-0"]])
    );
    // The three tagless games, one per line, are three clean games, each
    // its own line in clean.pgn; the prose is in no game.
    let t = tempdir();
    let file = write(t.path(), "games.pgn", OLD_COLLECTIONS.as_bytes());
    let split = t.path().join("split");
    let o = run(&[s(&file), "--no-html", "--split"], &split);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let clean = std::fs::read_to_string(split.join("clean.pgn")).unwrap();
    assert!(
        clean.contains(
            "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
             1. d4 d5 1/2-1/2\n\n[Event \"Study\"]"
        ),
        "{clean}"
    );
    for prose in ["Poikovsky 2002", "Round 2", "A quick draw", "The end"] {
        assert!(!clean.contains(prose), "{prose}: {clean}");
    }
    assert_eq!(counts(&out), (14, 10, 1, 3));
    assert_eq!(summary(&out)["notation_quirks"], 21);
}

/// Forms that books and other programs write, read as the moves they mean
/// (each was a parse_error or an illegal_move):
/// - `dxe3 e.p.+`: an `e.p.` apart from its move, then the check mark;
/// - `e8 =Q` (v3: "`=Q` right after a pawn move to the last rank is still
///   a promotion"), its check mark after the piece;
/// - long algebraic with a hyphen, as pgn-extract's `-Whalg` writes it
///   (`b2-b3`, `Bc1-b2`, `e7-e8=Q`): the move in coordinates, with the
///   quirks of the same move written without the hyphen.
#[test]
fn sloppy_forms_of_books_and_other_programs_are_read() {
    let text = "[Event \"ep\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/2k5/3pP3/8/5K2/8 b - e3 0 10\"]\n\n\
        10... dxe3 e.p.+ 11. Kxe3 *\n\n\
        [Event \"spaced\"]\n[SetUp \"1\"]\n[FEN \"8/4P1k1/8/8/8/8/7p/4K3 w - - 0 1\"]\n\n\
        1. e8 =Q Kh6 2. Qh8+ Kg5 3. Kd2 h1 =Q 4. Ke3 =Q *\n\n\
        [Event \"long\"]\n\n\
        1. b2-b3 e7-e5 2. Bc1-b2 d7-d6 3. d2-d4 e5xd4 4. Qd1xd4 Nb8-c6 *\n\n\
        [Event \"long promotion\"]\n[SetUp \"1\"]\n[FEN \"8/4P1k1/8/8/8/8/8/4K3 w - - 0 1\"]\n\n\
        1. e7-e8=Q+ *\n";
    let (_t, out) = audit(text);
    let coordinate = "coordinate_notation";
    let needless = "needless_disambiguation";
    assert_eq!(
        pick(&out, "quirks.csv", &QUIRKS),
        strings(&[
            &["1", "ep", "1", "dxe3 e.p.+", "en_passant_suffix", "dxe3+"],
            &["3", "long", "1", "b2-b3", coordinate, "b3"],
            &["3", "long", "2", "e7-e5", coordinate, "e5"],
            &["3", "long", "3", "Bc1-b2", needless, "Bb2"],
            &["3", "long", "4", "d7-d6", coordinate, "d6"],
            &["3", "long", "5", "d2-d4", coordinate, "d4"],
            &["3", "long", "6", "e5xd4", needless, "exd4"],
            &["3", "long", "7", "Qd1xd4", needless, "Qxd4"],
            &["3", "long", "8", "Nb8-c6", needless, "Nc6"],
            &[
                "4",
                "long promotion",
                "1",
                "e7-e8=Q+",
                "coordinate_notation;wrong_check_mark",
                "e8=Q"
            ],
        ])
    );
    // `=Q` after a king's move is no promotion: no move, as before.
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[&[
            "2",
            "8",
            "=Q",
            "parse_error",
            "not a move, move number or result"
        ]])
    );
}

/// A tag line that lost its `[` (`Date "1983.10.23"]`, as a wiki page and
/// a tournament file on GitHub have it) is a tag line that cannot be
/// read: skipped with the quirk `unreadable_tag_line`, the game audited,
/// inside a tag section and at its start alike. Inside, it was a
/// `parse_error` and the tags after it a second game; at the start, it was
/// dropped as prose, with no quirk.
#[test]
fn a_tag_line_without_its_bracket_is_skipped_with_a_quirk() {
    let text = "[Event \"WCCC 1983\"]\n[Site \"New York\"]\nDate \"1983.10.23\"]\n\
        [Round \"3\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O 1-0\n\n\
        Event \"TSCT2017\"]\n[Site \"Leuven\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O *\n\n\
        The next game was not played.\n\n\
        [Event \"last\"]\n\n1. d4 *\n";
    let (_t, out) = audit(text);
    assert_eq!(summary(&out)["games"], 3);
    assert_eq!(
        pick(
            &out,
            "castling.csv",
            &["game", "event", "site", "ply", "reasons"]
        ),
        strings(&[
            &["1", "WCCC 1983", "New York", "11", "king_moved"],
            &["2", "", "Leuven", "11", "king_moved"],
        ])
    );
    assert_eq!(
        pick(&out, "quirks.csv", &["game", "ply", "san", "quirk"]),
        strings(&[
            &["1", "0", "Date \"1983.10.23\"]", "unreadable_tag_line"],
            &["2", "0", "Event \"TSCT2017\"]", "unreadable_tag_line"],
        ])
    );
    assert!(pick(&out, "errors.csv", &["game"]).is_empty());
}

/// A check mark written apart from its move (`Bb4 +`, as a Russian
/// annotated collection writes it) is that move's, as `e8 =Q` is its
/// promotion: no quirk where it is right, the usual one where it is
/// wrong. It was a `parse_error`. A mark after a move that has one, or
/// after the result, is still no move.
#[test]
fn a_check_mark_apart_from_its_move_is_the_moves() {
    let text = "[Event \"apart\"]\n\n1. e4 e5 2. Nf3 d6 3. Bb5 + c6 4. Bxc6 + Nxc6 *\n\n\
        [Event \"wrong\"]\n\n1. e4 e5 2. Nf3 # Nc6 *\n\n\
        [Event \"twice\"]\n\n1. e4 e5 2. Nf3 d6 3. Bb5+ + c6 *\n";
    let (_t, out) = audit(text);
    assert_eq!(
        pick(&out, "quirks.csv", &QUIRKS),
        strings(&[&["2", "wrong", "3", "Nf3 #", "wrong_check_mark", "Nf3"]])
    );
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[&[
            "3",
            "6",
            "+",
            "parse_error",
            "not a move, move number or result"
        ]])
    );
    assert_eq!(summary(&out)["clean"], 2);
}

/// A game pasted from a forum between `[pgn]` and `[/pgn]`: one game, its
/// `[pgn]` line skipped with a quirk. The closing `[/pgn]`, a tag line that
/// holds no tag with nothing after it, is no game (it was a second game,
/// clean and empty); so is `[Annotator]` between games. A game without a
/// result ends at it, as at any tag line.
#[test]
fn tag_lines_that_hold_no_tag_are_no_game() {
    let text = "[pgn]\n[White \"Him\"]\n[Black \"Me\"]\n\n\
        1. d4 d5 2. Nf3 Nc6 3. Bf4 Bg4 4. e3 Nf6 {resigns}\n[/pgn]\n\n\
        [Annotator]\n\n\
        [Event \"next\"]\n\n1. e4 *\n[/pgn]\n";
    let (_t, out) = audit(text);
    assert_eq!(counts(&out), (2, 2, 0, 0));
    assert_eq!(
        pick(
            &out,
            "quirks.csv",
            &["game", "offset", "line", "ply", "san", "quirk"]
        ),
        strings(&[&["1", "0", "1", "0", "[pgn]", "unreadable_tag_line"]])
    );
    assert_eq!(pick(&out, "errors.csv", &ERRORS), Vec::<Vec<String>>::new());
}
