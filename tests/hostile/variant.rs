//! Issue 12, item 10: a game whose Variant tag names standard chess is
//! never replayed as Chess960, whatever its FEN's castling rights say.
//! Those rights are impossible in standard chess: dropped (one notation
//! quirk each), and a castle on that side is judged. Without a Variant tag
//! the contract's detection stands: rights that only Chess960 explains make
//! the game Chess960.

use super::common::{audit_at_every_thread_count, counts, pick, strings, summary};

/// The castling.csv and errors.csv columns these tests pin (by name, so
/// that identity columns added later do not move them).
const CASTLING: [&str; 10] = [
    "game",
    "variant",
    "ply",
    "move_number",
    "side",
    "san",
    "castle",
    "reasons",
    "detail",
    "fen",
];
const ERRORS: [&str; 7] = ["game", "variant", "ply", "san", "kind", "detail", "fen"];

fn game(variant: Option<&str>, fen: &str, moves: &str) -> String {
    let mut g = String::from("[Event \"item 10\"]\n");
    if let Some(v) = variant {
        g += &format!("[Variant \"{v}\"]\n");
    }
    g + &format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n{moves}\n\n")
}

/// The three positions of the finding, each castled into as written.
const D1: &str = "4k3/8/8/8/8/8/8/3K3R w K - 0 1";
const G1: &str = "4k3/8/8/8/8/8/8/4K1RR w G - 0 1";
const B1: &str = "4k3/8/8/8/8/8/8/1R2K3 w B - 0 1";

#[test]
fn item_10_a_standard_variant_is_never_chess960() {
    let text = [
        game(Some("Standard"), D1, "1. O-O Kd7 2. Rf2 *"),
        game(Some("Standard"), G1, "1. O-O *"),
        game(Some("Standard"), B1, "1. O-O-O Kf7 *"),
        // No Variant tag: a K right with the king on d1 and the rook on h1
        // is a Chess960 right (the king between its rooks, the h-side rook
        // on h1), not a standard one, so the game is Chess960 and its
        // castle legal (king to g1, rook to f1). The illegal 2. Kh3 shows
        // the variant and the castled position.
        game(None, D1, "1. O-O Kd7 2. Kh3 *"),
    ]
    .concat();
    let (_t, out) = audit_at_every_thread_count(&text, &[]);
    assert_eq!(
        pick(&out, "castling.csv", &CASTLING),
        strings(&[
            &[
                "1",
                "standard",
                "1",
                "1",
                "white",
                "O-O",
                "kingside",
                "no_right_in_fen;king_displaced",
                "the starting FEN's White kingside castling right is impossible there and was dropped; \
                 the king stands on d1, not on e1",
                "4k3/8/8/8/8/8/8/3K3R w - - 0 1",
            ],
            &[
                "2",
                "standard",
                "1",
                "1",
                "white",
                "O-O",
                "kingside",
                "no_right_in_fen;path_blocked",
                "the starting FEN's White kingside castling right is impossible there and was dropped; \
                 the rook on g1 stands in the way",
                "4k3/8/8/8/8/8/8/4K1RR w - - 0 1",
            ],
            &[
                "3",
                "standard",
                "1",
                "1",
                "white",
                "O-O-O",
                "queenside",
                "no_right_in_fen;rook_displaced",
                "the starting FEN's White queenside castling right is impossible there and was dropped; \
                 no rook stands on a1, so the rook on b1 castles",
                "4k3/8/8/8/8/8/8/1R2K3 w - - 0 1",
            ],
        ])
    );
    assert_eq!(
        pick(&out, "errors.csv", &ERRORS),
        strings(&[
            &[
                "2",
                "standard",
                "1",
                "O-O",
                "unplayable_castle",
                "the castle cannot be played: the rook on g1 stands on a \
                 square where the king or the rook lands",
                "4k3/8/8/8/8/8/8/4K1RR w - - 0 1",
            ],
            &[
                "4",
                "chess960",
                "3",
                "Kh3",
                "illegal_move",
                "Kh3 is not a legal move for White in this position",
                "8/3k4/8/8/8/8/8/5RK1 w - - 2 2",
            ],
        ])
    );
    // Games 1 and 3 flagged, 2 and 4 incomplete; one dropped right in
    // each of the three standard games, none in the Chess960 one.
    assert_eq!(counts(&out), (4, 0, 2, 2));
    let sum = summary(&out);
    assert_eq!(sum["notation_quirks"], 3);
    assert_eq!(sum["castling"]["no_right_in_fen"], 3);
    assert_eq!(sum["castling"]["king_displaced"], 1);
    assert_eq!(sum["castling"]["path_blocked"], 1);
    assert_eq!(sum["castling"]["rook_displaced"], 1);
    assert_eq!(sum["errors"]["unplayable_castle"], 1);
    assert_eq!(sum["errors"]["illegal_move"], 1);
}
