//! Start positions as contract v2 reads them (issue 18, FEN and Variant):
//! impossible castling rights in a FEN are dropped as quirks and the game
//! is audited, Variant aliases name standard chess or Chess960 (any other
//! value is an `unsupported_variant`, shown lowercased in the `variant`
//! column), and `[FEN ""]` is no FEN. Every run is made at -j1, -j2 and -j8
//! and its reports compared byte for byte.

use crate::common;

use std::path::PathBuf;

use common::{audit_at_every_thread_count, counts, pick, strings, summary};

const CASTLING: [&str; 9] = [
    "game",
    "variant",
    "ply",
    "move_number",
    "side",
    "san",
    "castle",
    "reasons",
    "fen",
];
const ERRORS: [&str; 7] = ["game", "variant", "ply", "san", "kind", "detail", "fen"];

/// Audits `text` at -j1, -j2 and -j8 (identical reports asserted) and
/// returns the folder of the -j2 run.
fn audit(text: &str) -> (tempfile::TempDir, PathBuf) {
    audit_at_every_thread_count(text, &[])
}

/// A game with the given Variant and FEN tags (`None`: no such tag).
fn game(variant: Option<&str>, fen: Option<&str>, moves: &str) -> String {
    let mut g = String::from("[Event \"fen\"]\n");
    if let Some(v) = variant {
        g += &format!("[Variant \"{v}\"]\n");
    }
    if let Some(f) = fen {
        g += &format!("[SetUp \"1\"]\n[FEN \"{f}\"]\n");
    }
    g + &format!("\n{moves}\n\n")
}

const MORPHY: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w KQkq - 0 1";

/// Morphy gave the a1 rook; the FEN still says `KQkq`. The Q right is
/// impossible (no rook on a1): dropped with a quirk, and the game audited.
/// A later O-O-O by White is judged: no right, and no rook to castle with.
#[test]
fn rook_odds_rights_are_dropped_and_the_game_audited() {
    let (_t, out) = audit(
        &[
            game(
                None,
                Some(MORPHY),
                "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O d6 5. c3 Nf6 6. d4 exd4 \
                 7. cxd4 Bb6 8. Nc3 O-O 9. Qb3 1-0",
            ),
            game(
                None,
                Some(MORPHY),
                "1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5. O-O-O O-O-O *",
            ),
        ]
        .concat(),
    );
    assert_eq!(
        pick(&out, "castling.csv", &CASTLING),
        strings(&[&[
            "2",
            "standard",
            "9",
            "5",
            "white",
            "O-O-O",
            "queenside",
            "no_right_in_fen;no_rook",
            "r3kbnr/pppqpppp/2n5/3p1b2/3P1B2/2N5/PPPQPPPP/4KBNR w Kkq - 6 5",
        ]])
    );
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[&[
            "2",
            "standard",
            "9",
            "O-O-O",
            "unplayable_castle",
            "the castle cannot be played: White has no rook on its back rank \
             on the queenside of the king",
            "r3kbnr/pppqpppp/2n5/3p1b2/3P1B2/2N5/PPPQPPPP/4KBNR w Kkq - 6 5",
        ]])
    );
    assert_eq!(counts(&out), (2, 1, 0, 1));
    let sum = summary(&out);
    assert_eq!(sum["notation_quirks"], 2, "one dropped right per game");
    assert_eq!(sum["errors"]["bad_fen"], 0);
}

/// In Chess960 a right needs a rook of its colour on that side of the king
/// on the back rank: `G` with no rook on g1 is dropped, `B` (the b1 rook,
/// west of the d1 king) kept; a king off its back rank keeps no right.
#[test]
fn impossible_chess960_rights_are_dropped() {
    let fen = "4k3/8/8/8/8/8/8/1R1K4 w GB - 0 1";
    let (_t, out) = audit(
        &[
            game(Some("Chess960"), Some(fen), "1. O-O-O Kf7 *"),
            game(Some("Chess960"), Some(fen), "1. O-O *"),
            game(
                Some("Chess960"),
                Some("4k3/8/8/8/8/8/3K4/R6R w AH - 0 1"),
                "1. Ke1 Kf7 *",
            ),
        ]
        .concat(),
    );
    assert_eq!(
        pick(&out, "castling.csv", &CASTLING),
        strings(&[&[
            "2",
            "chess960",
            "1",
            "1",
            "white",
            "O-O",
            "kingside",
            "no_right_in_fen;no_rook",
            "4k3/8/8/8/8/8/8/1R1K4 w Q - 0 1",
        ],])
    );
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[&[
            "2",
            "chess960",
            "1",
            "O-O",
            "unplayable_castle",
            "the castle cannot be played: White has no rook on its back rank \
             on the kingside of the king",
            "4k3/8/8/8/8/8/8/1R1K4 w Q - 0 1",
        ]])
    );
    assert_eq!(counts(&out), (3, 2, 0, 1));
    let sum = summary(&out);
    assert_eq!(sum["notation_quirks"], 1 + 1 + 2);
    assert_eq!(sum["errors"]["bad_fen"], 0);
}

/// The contract's Variant aliases, case-insensitive. From a FEN whose K
/// right only Chess960 explains (king d1, rook h1), `O-O` is legal in
/// Chess960 and breaks the rules in standard chess, so each alias shows
/// how it was read; the illegal `2. Kh3` gives every game an errors.csv
/// row with its `variant`.
#[test]
fn variant_aliases() {
    let d1 = "4k3/8/8/8/8/8/8/3K3R w K - 0 1";
    let standard = ["Standard", "normal", "CHESS", "From Position"];
    let chess960 = [
        "chess960",
        "Chess 960",
        "fischerandom",
        "Fischer Random",
        "FRC",
        "960",
    ];
    let unsupported = ["Crazyhouse", "Three-check", "Classical"];
    let text: String = standard
        .iter()
        .chain(&chess960)
        .chain(&unsupported)
        .map(|v| game(Some(v), Some(d1), "1. O-O Kd7 2. Kh3 *"))
        .collect();
    let (_t, out) = audit(&text);

    let castles: Vec<Vec<String>> = (1..=standard.len())
        .map(|g| {
            [
                &g.to_string(),
                "standard",
                "1",
                "1",
                "white",
                "O-O",
                "kingside",
                "no_right_in_fen;king_displaced",
                "4k3/8/8/8/8/8/8/3K3R w - - 0 1",
            ]
            .map(str::to_owned)
            .to_vec()
        })
        .collect();
    assert_eq!(pick(&out, "castling.csv", &CASTLING), castles);

    let illegal = |g: usize, variant: &str| {
        [
            &g.to_string(),
            variant,
            "3",
            "Kh3",
            "illegal_move",
            "Kh3 is not a legal move for White in this position",
            "8/3k4/8/8/8/8/8/5RK1 w - - 2 2",
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let mut errors: Vec<Vec<String>> = (1..=standard.len())
        .map(|g| illegal(g, "standard"))
        .chain((1..=chess960.len()).map(|i| illegal(standard.len() + i, "chess960")))
        .collect();
    for (i, v) in unsupported.iter().enumerate() {
        let g = standard.len() + chess960.len() + i + 1;
        errors.push(
            [
                &g.to_string(),
                &v.to_lowercase(),
                "0",
                "",
                "unsupported_variant",
                &format!("variant \"{v}\" is not standard chess or Chess960"),
                "",
            ]
            .map(|c| c.to_owned())
            .to_vec(),
        );
    }
    assert_eq!(pick(&out, "errors.csv", &ERRORS), errors);
    assert_eq!(counts(&out), (13, 0, 0, 13));
    let sum = summary(&out);
    assert_eq!(sum["notation_quirks"], standard.len() as u64);
    assert_eq!(
        sum["errors"]["unsupported_variant"],
        unsupported.len() as u64
    );
}

/// Without a Variant tag (or with an empty one) the FEN decides: a right
/// that only Chess960 explains makes the game Chess960, and standard rights
/// keep it standard.
#[test]
fn without_a_variant_the_fen_decides() {
    let (_t, out) = audit(
        &[
            game(
                None,
                Some("4k3/8/8/8/8/8/8/3K3R w K - 0 1"),
                "1. O-O Kd7 2. Kh3 *",
            ),
            game(
                Some(""),
                Some("4k3/8/8/8/8/8/8/3K3R w K - 0 1"),
                "1. O-O Kd7 2. Kh3 *",
            ),
            game(
                None,
                Some("4k3/8/8/8/8/8/8/4K2R w K - 0 1"),
                "1. O-O Kd7 2. Kh3 *",
            ),
        ]
        .concat(),
    );
    assert_eq!(
        pick(&out, "castling.csv", &CASTLING),
        Vec::<Vec<String>>::new()
    );
    let variants: Vec<Vec<String>> = pick(&out, "errors.csv", &["game", "variant", "fen"]);
    assert_eq!(
        variants,
        strings(&[
            &["1", "chess960", "8/3k4/8/8/8/8/8/5RK1 w - - 2 2"],
            &["2", "chess960", "8/3k4/8/8/8/8/8/5RK1 w - - 2 2"],
            &["3", "standard", "8/3k4/8/8/8/8/8/5RK1 w - - 2 2"],
        ])
    );
    assert_eq!(summary(&out)["notation_quirks"], 0);
}

/// `[FEN ""]` (or blanks) is no FEN: the standard array with every right,
/// and in Chess960 its array too.
#[test]
fn an_empty_fen_is_no_fen() {
    let moves = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. Ke1 *";
    let (_t, out) = audit(
        &[
            game(None, Some(""), moves),
            game(None, Some("  "), moves),
            game(Some("Chess960"), Some(""), moves),
        ]
        .concat(),
    );
    assert_eq!(
        pick(&out, "castling.csv", &CASTLING),
        Vec::<Vec<String>>::new()
    );
    let fen = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 6 5";
    assert_eq!(
        pick(
            &out,
            "errors.csv",
            &["game", "variant", "ply", "kind", "fen"]
        ),
        strings(&[
            &["1", "standard", "9", "illegal_move", fen],
            &["2", "standard", "9", "illegal_move", fen],
            &["3", "chess960", "9", "illegal_move", fen],
        ])
    );
    assert_eq!(summary(&out)["notation_quirks"], 0);
}

/// A FEN that cannot be read leaves the game the variant its tag names.
#[test]
fn a_bad_fen_keeps_the_tagged_variant() {
    let (_t, out) = audit(
        &[
            game(Some("Chess960"), Some("not a fen"), "1. e4 *"),
            game(Some("Standard"), Some("not a fen"), "1. e4 *"),
            game(
                None,
                Some("4k3/8/8/8/8/8/8/4K2R w K - 0 1 junk"),
                "1. O-O *",
            ),
        ]
        .concat(),
    );
    assert_eq!(
        pick(&out, "errors.csv", &["game", "variant", "ply", "kind"]),
        strings(&[
            &["1", "chess960", "0", "bad_fen"],
            &["2", "standard", "0", "bad_fen"],
            &["3", "standard", "0", "bad_fen"],
        ])
    );
    assert_eq!(counts(&out), (3, 0, 0, 3));
}
