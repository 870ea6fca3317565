//! The castling audit: exact castling.csv rows for the scenarios of the
//! castling issue, standard chess and Chess960.

use pgn_audit_core::Game;
use pgn_audit_core::audit::castling::{self, CastlePlay, CastlingHistory};
use pgn_audit_core::audit::{ErrorKind, GameReport, audit_game, fen_of, start::start_position};
use shakmaty::{Chess, Color, Position, san::San};

/// A PGN game from an optional FEN, Chess960 when `c960`.
fn pgn(fen: Option<&str>, c960: bool, moves: &str) -> String {
    let mut s = String::from("[Event \"castling test\"]\n");
    if c960 {
        s += "[Variant \"Chess960\"]\n";
    }
    if let Some(f) = fen {
        s += &format!("[SetUp \"1\"]\n[FEN \"{f}\"]\n");
    }
    s += &format!("\n{moves} *\n");
    s
}

fn audit(text: &str) -> GameReport {
    audit_game(&Game::parse(text.as_bytes()))
}

/// The castling rows as (ply, san, reasons).
fn rows(r: &GameReport) -> Vec<(u32, String, String)> {
    r.castling
        .iter()
        .map(|v| (v.ply, v.san.clone(), v.reasons.codes()))
        .collect()
}

fn row(ply: u32, san: &str, reasons: &str) -> (u32, String, String) {
    (ply, san.to_owned(), reasons.to_owned())
}

/// Audits a game that must replay to its end; returns its castling rows.
fn clean_replay(text: &str, plies: u32) -> Vec<(u32, String, String)> {
    let r = audit(text);
    assert_eq!(r.error, None, "{text}");
    assert_eq!(r.plies, plies, "{text}");
    rows(&r)
}

/// Replays a game the way the audit does (castles judged and played as
/// written) and returns the final FEN.
fn final_fen(text: &str) -> String {
    let game = Game::parse(text.as_bytes());
    let start = start_position(&game.tags).expect("start position");
    let mut history = CastlingHistory::new(&start);
    let mut pos: Chess = start.position.clone();
    for (i, tok) in game.moves.iter().enumerate() {
        let ply = u32::try_from(i + 1).unwrap();
        let side = match tok.san {
            San::Castle(side) => Some(side),
            san => match san.to_move(&pos) {
                Ok(m) => {
                    history.record_move(&pos, m, ply);
                    pos.play_unchecked(m);
                    None
                }
                Err(_) => Some(castling::castle_intent(&pos, san, start.mode).expect("castle")),
            },
        };
        if let Some(side) = side {
            match castling::judge_castle(&pos, &history, side).play {
                CastlePlay::Played(m) => {
                    history.record_castle(&pos, m, ply);
                    pos.play_unchecked(m);
                }
                CastlePlay::Unplayable(why) => panic!("{why:?}"),
            }
        }
    }
    fen_of(&pos)
}

fn board_of(fen: &str) -> &str {
    fen.split(' ').next().unwrap()
}

// ---------------------------------------------------------------- seed 001

const CHECK_B4: &str = "r3k2r/ppp2ppp/8/8/1b6/8/2P2PPP/R3K2R w KQkq - 0 1";

#[test]
fn bishop_b4_checks_e1_no_castle_either_side() {
    let pos: Chess = shakmaty::fen::Fen::from_ascii(CHECK_B4.as_bytes())
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    let legal = pos.legal_moves();
    assert_eq!(legal.len(), 4, "Kd1, Ke2, Kf1 and c3");
    assert!(legal.iter().all(|m| !m.is_castle()));

    let r = audit(&pgn(Some(CHECK_B4), false, "1. O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "in_check")]);
    assert_eq!(
        r.castling[0].detail,
        "the king on e1 is in check from the bishop on b4"
    );
    assert_eq!(r.castling[0].side, Color::White);
    assert_eq!(r.castling[0].fen, CHECK_B4);
    let r = audit(&pgn(Some(CHECK_B4), false, "1. O-O-O"));
    assert_eq!(rows(&r), [row(1, "O-O-O", "in_check")]);
}

#[test]
fn castling_after_a_blocked_check_is_legal() {
    let text = pgn(Some(CHECK_B4), false, "1. c3 Bd6 2. O-O O-O-O");
    assert_eq!(clean_replay(&text, 4), []);
    let text = pgn(Some(CHECK_B4), false, "1. c3 Bd6 2. O-O-O O-O");
    assert_eq!(clean_replay(&text, 4), []);
}

#[test]
fn bishop_a6_hits_f1() {
    let fen = "r3k2r/8/b7/8/8/8/8/R3K2R w KQkq - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "through_check")]);
    assert_eq!(r.castling[0].detail, "f1 is attacked by the bishop on a6");
    assert_eq!(clean_replay(&pgn(Some(fen), false, "1. O-O-O"), 1), []);
}

#[test]
fn rook_g8_covers_g1() {
    let fen = "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "into_check")]);
    assert_eq!(
        r.castling[0].detail,
        "the king lands on g1, attacked by the rook on g8"
    );
    assert_eq!(clean_replay(&pgn(Some(fen), false, "1. O-O-O"), 1), []);
}

#[test]
fn into_check_castle_is_played_and_the_reply_replayed() {
    let fen = "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    let text = pgn(Some(fen), false, "1. O-O Kd7 2. Kh2 Rh8+ 3. Kg3");
    assert_eq!(clean_replay(&text, 5), [row(1, "O-O", "into_check")]);
    assert_eq!(board_of(&final_fen(&text)), "7r/3k4/8/8/8/6K1/8/R4R2");
}

/// A castle into check is played as written, so the reply may be one that
/// takes the king: a king is never captured (FIDE 1.4.1), so that reply
/// is an illegal move at its ply, the castle's row stays, and the audit
/// goes on without a panic (it lost the row and gave a ply-0 parse_error).
#[test]
fn a_reply_that_takes_the_king_left_in_check_is_an_illegal_move() {
    let fen = "4k3/6r1/8/8/8/8/8/4K2R w K - 0 1";
    for reply in ["Rxg1", "Rxg1+", "Rg1", "Rg7xg1"] {
        let r = audit(&pgn(Some(fen), false, &format!("1. O-O {reply}")));
        assert_eq!(rows(&r), [row(1, "O-O", "into_check")], "{reply}");
        let e = r.error.as_ref().expect("an error row");
        assert_eq!(
            (e.ply, e.kind, e.san.as_str()),
            (2, ErrorKind::IllegalMove, reply)
        );
        assert_eq!(e.fen, "4k3/6r1/8/8/8/8/8/5RK1 b - - 1 1");
        assert_eq!(r.plies, 1);
    }
    // A pawn that would take it while promoting, and a move that does not
    // take it, replayed on.
    let fen = "4k3/8/8/8/8/8/7p/4K2R w K - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. O-O hxg1=Q"));
    assert_eq!(rows(&r), [row(1, "O-O", "into_check")]);
    assert_eq!(
        r.error.map(|e| (e.ply, e.kind)),
        Some((2, ErrorKind::IllegalMove))
    );
    let r = audit(&pgn(
        Some("4k3/6r1/8/8/8/8/8/4K2R w K - 0 1"),
        false,
        "1. O-O Kd7 2. Kh1",
    ));
    assert_eq!(r.error, None);
    assert_eq!(r.plies, 3);
}

#[test]
fn rook_b8_attacks_b1_and_a1_queenside_still_legal() {
    let fen = "1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    let text = pgn(Some(fen), false, "1. O-O-O");
    assert_eq!(clean_replay(&text, 1), []);
    assert_eq!(board_of(&final_fen(&text)), "1r2k3/8/8/8/8/8/8/2KR3R");
}

// ---------------------------------------------------------------- seed 002

#[test]
fn diagram_knight_in_the_way() {
    let fen = "4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. O-O-O"));
    assert_eq!(rows(&r), [row(1, "O-O-O", "path_blocked")]);
    assert_eq!(r.castling[0].detail, "the knight on b1 stands in the way");
    // b1 is crossed only by the rook, not a landing square: played as written.
    assert_eq!(r.error, None);
    assert_eq!(clean_replay(&pgn(Some(fen), false, "1. O-O"), 1), []);
}

#[test]
fn diagram_black_in_check_from_bishop() {
    let fen = "r3k2r/8/6B1/8/8/8/8/4K3 b kq - 0 1";
    for san in ["O-O", "O-O-O"] {
        let r = audit(&pgn(Some(fen), false, &format!("1... {san}")));
        assert_eq!(rows(&r), [row(1, san, "in_check")]);
        assert_eq!(r.castling[0].side, Color::Black);
        assert_eq!(r.castling[0].move_number, 1);
    }
}

#[test]
fn diagram_queen_controls_c1_rook_h1_attacked() {
    let fen = "4k3/8/2q5/8/8/8/8/R3K2R w KQ - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. O-O-O"));
    assert_eq!(rows(&r), [row(1, "O-O-O", "into_check")]);
    assert_eq!(
        r.castling[0].detail,
        "the king lands on c1, attacked by the queen on c6"
    );
    // The h1 rook is attacked by the queen: no matter.
    assert_eq!(clean_replay(&pgn(Some(fen), false, "1. O-O"), 1), []);
}

#[test]
fn diagram_queen_attacks_f8_and_b8() {
    let fen = "r3k2r/8/8/8/5Q2/8/8/4K3 b kq - 0 1";
    let r = audit(&pgn(Some(fen), false, "1... O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "through_check")]);
    assert_eq!(r.castling[0].detail, "f8 is attacked by the queen on f4");
    // b8 is crossed by the rook only.
    assert_eq!(clean_replay(&pgn(Some(fen), false, "1... O-O-O"), 1), []);
}

// ------------------------------------------------ walks and Seirawan's rook

#[test]
fn king_walk_then_castle() {
    let text = pgn(
        None,
        false,
        "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. Kf1 Kf8 5. Ke1 Ke8 6. O-O O-O",
    );
    let r = audit(&text);
    assert_eq!(r.error, None);
    assert_eq!(
        rows(&r),
        [row(11, "O-O", "king_moved"), row(12, "O-O", "king_moved")]
    );
    assert_eq!(
        r.castling[0].detail,
        "the king left e1 with 4.Kf1 and came back with 5.Ke1"
    );
    assert_eq!(
        r.castling[1].detail,
        "the king left e8 with 4...Kf8 and came back with 5...Ke8"
    );
    assert_eq!(r.castling[1].move_number, 6);
    // Played as written: the rooks stand on f1 and f8.
    let after = pgn(
        None,
        false,
        "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. Kf1 Kf8 5. Ke1 Ke8 6. O-O O-O 7. Re1 Re8",
    );
    assert_eq!(clean_replay(&after, 14).len(), 2);
}

#[test]
fn rook_walk_then_castle_queenside_still_legal() {
    let moves = "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. Rg1 Rg8 5. Rh1 Rh8";
    let r = audit(&pgn(None, false, &format!("{moves} 6. O-O O-O")));
    assert_eq!(r.error, None);
    assert_eq!(
        rows(&r),
        [row(11, "O-O", "rook_moved"), row(12, "O-O", "rook_moved")]
    );
    assert_eq!(
        r.castling[0].detail,
        "the h1 rook left h1 with 4.Rg1 and came back with 5.Rh1"
    );
    let long = format!("{moves} 6. d3 d6 7. Be3 Be6 8. Nc3 Nc6 9. Qd2 Qd7 10. O-O-O O-O-O");
    assert_eq!(clean_replay(&pgn(None, false, &long), 20), []);
}

#[test]
fn seirawan_rook_on_b1() {
    let moves =
        "1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5. Rb1 e6 6. O-O-O Bb4 7. Re1 Nf6 8. Rd1 O-O";
    let text = pgn(None, false, moves);
    let r = audit(&text);
    assert_eq!(r.error, None);
    assert_eq!(r.plies, 16);
    assert_eq!(rows(&r), [row(11, "O-O-O", "rook_moved;rook_displaced")]);
    assert_eq!(
        r.castling[0].detail,
        "the a1 rook left a1 with 5.Rb1; no rook stands on a1, so the rook on b1 castles"
    );
    assert_eq!(
        board_of(&final_fen(&pgn(
            None,
            false,
            "1. d4 d5 2. Nc3 Nc6 3. Bf4 Bf5 4. Qd2 Qd7 5. Rb1 e6 6. O-O-O"
        ))),
        "r3kbnr/pppq1ppp/2n1p3/3p1b2/3P1B2/2N5/PPPQPPPP/2KR1BNR"
    );
    // The castled rook went on to e1 and back to d1; the position is right.
    assert_eq!(
        board_of(&final_fen(&text)),
        "r4rk1/pppq1ppp/2n1pn2/3p1b2/1b1P1B2/2N5/PPPQPPPP/2KR1BNR"
    );
}

// ------------------------------------------------------------ notation etc.

#[test]
fn castling_written_as_a_king_move() {
    let text = pgn(
        None,
        false,
        "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. Kg1 Kg8 5. Re1 Re8",
    );
    assert_eq!(clean_replay(&text, 10), []);
    let walked = pgn(
        None,
        false,
        "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. Kf1 Kf8 5. Ke1 Ke8 6. Kg1",
    );
    let r = audit(&walked);
    assert_eq!(rows(&r), [row(11, "Kg1", "king_moved")]);
    assert_eq!(r.castling[0].castle, shakmaty::CastlingSide::KingSide);
}

#[test]
fn castling_written_with_zeros() {
    let text = pgn(
        None,
        false,
        "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. 0-0 0-0 5. Re1 Re8",
    );
    assert_eq!(clean_replay(&text, 10), []);
    let fen = "r3k2r/8/b7/8/8/8/8/R3K2R w KQkq - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. 0-0"));
    assert_eq!(rows(&r), [row(1, "0-0", "through_check")]);
}

#[test]
fn fen_withholds_the_right() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "no_right_in_fen")]);
    assert_eq!(
        r.castling[0].detail,
        "the starting FEN gives White no kingside castling right"
    );
    // A moved king explains a missing right by itself.
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. Kf1 Kf8 2. Ke1 Ke8 3. O-O"));
    assert_eq!(rows(&r), [row(5, "O-O", "king_moved")]);
}

#[test]
fn rook_captured() {
    let fen = "4k3/8/8/8/8/8/6b1/R3K1RR b K - 0 1";
    let r = audit(&pgn(Some(fen), false, "1... Bxh1 2. Rxh1 Kd7 3. O-O"));
    assert_eq!(r.error, None);
    assert_eq!(rows(&r), [row(4, "O-O", "rook_captured")]);
    assert_eq!(
        r.castling[0].detail,
        "the h1 rook was captured on h1 with 1...Bxh1"
    );
}

#[test]
fn no_rook_is_unplayable() {
    let fen = "4k3/8/8/8/8/8/6b1/R3K2R b KQ - 0 1";
    let r = audit(&pgn(Some(fen), false, "1... Bxh1 2. O-O Kd7"));
    assert_eq!(rows(&r), [row(2, "O-O", "rook_captured;no_rook")]);
    let err = r.error.expect("unplayable");
    assert_eq!(err.kind, ErrorKind::UnplayableCastle);
    assert_eq!(err.ply, 2);
    assert_eq!(err.san, "O-O");
    assert_eq!(err.fen, "4k3/8/8/8/8/8/8/R3K2b w Q - 0 2");
    assert_eq!(r.plies, 1);

    // Judged for the king alone: the bishop on h3 covers f1.
    let fen = "4k3/8/8/8/8/7b/8/R3K3 w Q - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. O-O"));
    assert_eq!(
        rows(&r),
        [row(1, "O-O", "no_right_in_fen;no_rook;through_check")]
    );
    assert_eq!(r.error.unwrap().kind, ErrorKind::UnplayableCastle);
}

#[test]
fn landing_square_taken_is_unplayable() {
    let fen = "4k3/8/8/8/8/8/8/R3KN1R w KQ - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "path_blocked")]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::UnplayableCastle);
}

#[test]
fn second_castle_is_king_moved() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let r = audit(&pgn(
        Some(fen),
        false,
        "1. O-O Kd8 2. Kf2 Kc8 3. Ke1 Kd8 4. O-O-O",
    ));
    assert_eq!(r.error, None);
    assert_eq!(rows(&r), [row(7, "O-O-O", "king_moved")]);
    assert_eq!(
        r.castling[0].detail,
        "the king already castled with 1.O-O and came back with 3.Ke1"
    );
}

// ---------------------------------------------------------------- Chess960

const P96: &str = "bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w HEhe - 0 1";
const P15: &str = "qnnrkrbb/pppppppp/8/8/8/8/PPPPPPPP/QNNRKRBB w FDfd - 0 1";
const P709: &str = "rkbbqnnr/pppppppp/8/8/8/8/PPPPPPPP/RKBBQNNR w HAha - 0 1";
const P3: &str = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w GEge - 0 1";
const P74: &str = "nnrkbbqr/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w HChc - 0 1";
const P959: &str = "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1";

fn legal960(fen: &str, moves: &str, plies: u32, white_rank: &str) {
    let text = pgn(Some(fen), true, moves);
    assert_eq!(clean_replay(&text, plies), [], "{moves}");
    let fen = final_fen(&text);
    assert_eq!(
        board_of(&fen).rsplit('/').next().unwrap(),
        white_rank,
        "{moves}"
    );
}

#[test]
fn chess960_king_stays_put_96() {
    legal960(P96, "1. Ng3 Ng6 2. O-O O-O", 4, "BBQNRRK1");
    // Castling written as the king onto its own rook.
    legal960(P96, "1. Ng3 Ng6 2. Kxh1 Kxh8", 4, "BBQNRRK1");
    // f1 under attack is no matter: the king never leaves g1.
    let text = pgn(Some("4kr2/8/8/8/8/8/8/6KR w H - 0 1"), true, "1. O-O");
    assert_eq!(clean_replay(&text, 1), []);
}

#[test]
fn chess960_illegal_96() {
    // The knight still stands on f1, where the rook lands.
    let r = audit(&pgn(Some(P96), true, "1. O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "path_blocked")]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::UnplayableCastle);
    // The h1 rook walked and came back.
    let r = audit(&pgn(
        Some(P96),
        true,
        "1. h4 h5 2. Rh2 Rh7 3. Rh1 Rh8 4. Ng3 Ng6 5. O-O O-O",
    ));
    assert_eq!(r.error, None);
    assert_eq!(
        rows(&r),
        [row(9, "O-O", "rook_moved"), row(10, "O-O", "rook_moved")]
    );
    assert_eq!(
        r.castling[0].detail,
        "the h1 rook left h1 with 2.Rh2 and came back with 3.Rh1"
    );
}

#[test]
fn chess960_rook_stays_put_15() {
    legal960(P15, "1. h4 h5 2. Bh2 Bh7 3. O-O O-O", 6, "QNNR1RKB");
}

#[test]
fn chess960_illegal_15() {
    let r = audit(&pgn(Some(P15), true, "1. O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "path_blocked")]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::UnplayableCastle);
    let r = audit(&pgn(
        Some(P15),
        true,
        "1. h4 h5 2. Bh2 Bh7 3. Rg1 Rg8 4. Rf1 Rf8 5. O-O",
    ));
    assert_eq!(rows(&r), [row(9, "O-O", "rook_moved")]);
    assert_eq!(
        r.castling[0].detail,
        "the f1 rook left f1 with 3.Rg1 and came back with 4.Rf1"
    );
    // The queenside is untouched.
    let r = audit(&pgn(
        Some("4k3/8/8/8/8/8/8/3RKR2 w FD - 0 1"),
        true,
        "1. O-O-O",
    ));
    assert_eq!(rows(&r), []);
}

#[test]
fn chess960_king_moves_right_for_long_castle_709() {
    legal960(
        P709,
        "1. d3 d6 2. Bd2 Bd7 3. e3 e6 4. Be2 Be7 5. O-O-O O-O-O",
        10,
        "2KRQNNR",
    );
}

#[test]
fn chess960_illegal_709() {
    // The bishops still stand on c1 and d1.
    let r = audit(&pgn(Some(P709), true, "1. O-O-O"));
    assert_eq!(rows(&r), [row(1, "O-O-O", "path_blocked")]);
    assert_eq!(
        r.castling[0].detail,
        "the bishop on c1 and the bishop on d1 stand in the way"
    );
    assert_eq!(r.error.unwrap().kind, ErrorKind::UnplayableCastle);
    // c1 covered by a rook: into check (nothing lies strictly between b1 and c1).
    let r = audit(&pgn(
        Some("1kr5/8/8/8/8/8/8/RK5R w HA - 0 1"),
        true,
        "1. O-O-O",
    ));
    assert_eq!(rows(&r), [row(1, "O-O-O", "into_check")]);
    // And the king crossing c1 towards g1: through check.
    let r = audit(&pgn(
        Some("1kr5/8/8/8/8/8/8/RK5R w HA - 0 1"),
        true,
        "1. O-O",
    ));
    assert_eq!(rows(&r), [row(1, "O-O", "through_check")]);
    assert_eq!(r.castling[0].detail, "c1 is attacked by the rook on c8");
}

#[test]
fn chess960_king_and_rook_swap_3() {
    legal960(P3, "1. O-O O-O", 2, "BQNNRRKB");
    legal960(P3, "1. Kxg1 Kxg8", 2, "BQNNRRKB");
}

#[test]
fn chess960_illegal_3() {
    let r = audit(&pgn(Some(P3), true, "1. O-O-O"));
    assert_eq!(rows(&r), [row(1, "O-O-O", "path_blocked")]);
    assert_eq!(
        r.castling[0].detail,
        "the knight on c1 and the knight on d1 stand in the way"
    );
    assert_eq!(r.error.unwrap().kind, ErrorKind::UnplayableCastle);
    let r = audit(&pgn(
        Some(P3),
        true,
        "1. f4 f5 2. Kf2 Kf7 3. Kf1 Kf8 4. O-O O-O",
    ));
    assert_eq!(r.error, None);
    assert_eq!(
        rows(&r),
        [row(7, "O-O", "king_moved"), row(8, "O-O", "king_moved")]
    );
    assert_eq!(
        r.castling[0].detail,
        "the king left f1 with 2.Kf2 and came back with 3.Kf1"
    );
}

#[test]
fn chess960_long_swap_74() {
    legal960(P74, "1. O-O-O O-O-O", 2, "NNKRBBQR");
}

#[test]
fn chess960_illegal_74() {
    let r = audit(&pgn(Some(P74), true, "1. O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "path_blocked")]);
    assert_eq!(r.error.unwrap().kind, ErrorKind::UnplayableCastle);
    // The FEN withholds White's a-side right; Black keeps its own.
    let fen = "nnrkbbqr/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w Hhc - 0 1";
    let r = audit(&pgn(Some(fen), true, "1. O-O-O O-O-O"));
    assert_eq!(r.error, None);
    assert_eq!(rows(&r), [row(1, "O-O-O", "no_right_in_fen")]);
    // Nobody has an a-side right: the rook square is the outermost a-side rook.
    let none = "nnrkbbqr/pppppppp/8/8/8/8/PPPPPPPP/NNRKBBQR w Hh - 0 1";
    let r = audit(&pgn(Some(none), true, "1. O-O-O O-O-O"));
    assert_eq!(
        rows(&r),
        [
            row(1, "O-O-O", "no_right_in_fen"),
            row(2, "O-O-O", "no_right_in_fen")
        ]
    );
    assert_eq!(
        r.castling[1].detail,
        "the starting FEN gives Black no queenside castling right"
    );
    // Withheld, and the c1 rook (the file of Black's right) walked.
    let r = audit(&pgn(
        Some(fen),
        true,
        "1. Na3 Na6 2. Rb1 Rb8 3. Rc1 Rc8 4. O-O-O",
    ));
    assert_eq!(rows(&r), [row(7, "O-O-O", "rook_moved")]);
    // Rights are per rook: the h-side survives the c-rook's walk.
    let fen = "2rk3r/8/8/8/8/8/8/2RK3R w HChc - 0 1";
    let walk = "1. Rb1 Rb8 2. Rc1 Rc8";
    assert_eq!(
        clean_replay(&pgn(Some(fen), true, &format!("{walk} 3. O-O")), 5),
        []
    );
    let r = audit(&pgn(Some(fen), true, &format!("{walk} 3. O-O-O")));
    assert_eq!(rows(&r), [row(5, "O-O-O", "rook_moved;into_check")]);
}

#[test]
fn chess960_king_travels_five_files_959() {
    legal960(
        P959,
        "1. Nc3 Nc6 2. Nd3 Nd6 3. e3 e6 4. Qe2 Qe7 5. f3 f6 6. Bf2 Bf7 7. O-O O-O",
        14,
        "R4RKB",
    );
}

#[test]
fn chess960_illegal_959() {
    let r = audit(&pgn(
        Some("4r1k1/8/8/8/8/8/8/RKR5 w CA - 0 1"),
        true,
        "1. O-O",
    ));
    assert_eq!(rows(&r), [row(1, "O-O", "through_check")]);
    assert_eq!(r.castling[0].detail, "e1 is attacked by the rook on e8");
    let r = audit(&pgn(Some(P959), true, "1. O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "path_blocked")]);
    assert_eq!(
        r.castling[0].detail,
        "the knight on d1, the knight on e1, the queen on f1 and the bishop on g1 stand in the way"
    );
    assert_eq!(r.error.unwrap().kind, ErrorKind::UnplayableCastle);
}

// ---------------------------------------------------------------- corpus

#[test]
fn lichess_sample_has_no_castling_rows() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpora/lichess_2025-05_sample.pgn"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut games = 0;
    let mut castles = 0;
    for chunk in text.split("\n\n[Event ") {
        let game = if chunk.starts_with("[Event ") {
            chunk.to_owned()
        } else {
            format!("[Event {chunk}")
        };
        let r = audit(&game);
        assert_eq!(rows(&r), [], "{game}");
        games += 1;
        castles += game.matches("O-O").count();
    }
    assert!(
        games > 100 && castles > 100,
        "{games} games, {castles} castles"
    );
}

// ------------------------------------------------------- the CLI's reports

/// The fixture games through the binary: castling.csv and errors.csv rows.
#[test]
fn fixture_reports() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_pgn-audit"))
        .current_dir(root)
        .args(["-o"])
        .arg(out.path())
        .arg("corpora/fixtures/castling/castles.pgn")
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    // The named columns of every row of a report.
    let read = |file: &str, cols: &[&str]| -> Vec<Vec<String>> {
        let mut r = csv::Reader::from_path(out.path().join(file)).unwrap();
        let header = r.headers().unwrap().clone();
        let at: Vec<usize> = cols
            .iter()
            .map(|c| header.iter().position(|h| h == *c).unwrap())
            .collect();
        r.records()
            .map(|rec| {
                let rec = rec.unwrap();
                at.iter().map(|&i| rec[i].to_owned()).collect()
            })
            .collect()
    };
    let castling = read(
        "castling.csv",
        &[
            "game",
            "variant",
            "ply",
            "move_number",
            "side",
            "san",
            "castle",
            "reasons",
            "detail",
        ],
    );
    let expected: Vec<Vec<&str>> = vec![
        vec![
            "1",
            "standard",
            "11",
            "6",
            "white",
            "O-O",
            "kingside",
            "king_moved",
            "the king left e1 with 4.Kf1 and came back with 5.Ke1",
        ],
        vec![
            "1",
            "standard",
            "12",
            "6",
            "black",
            "O-O",
            "kingside",
            "king_moved",
            "the king left e8 with 4...Kf8 and came back with 5...Ke8",
        ],
        vec![
            "2",
            "standard",
            "11",
            "6",
            "white",
            "O-O-O",
            "queenside",
            "rook_moved;rook_displaced",
            "the a1 rook left a1 with 5.Rb1; no rook stands on a1, so the rook on b1 castles",
        ],
        vec![
            "3",
            "standard",
            "1",
            "1",
            "white",
            "0-0",
            "kingside",
            "through_check",
            "f1 is attacked by the bishop on a6",
        ],
        vec![
            "4",
            "standard",
            "2",
            "2",
            "white",
            "O-O",
            "kingside",
            "rook_captured;no_rook",
            "the h1 rook was captured on h1 with 1...Bxh1; \
             White has no rook on its back rank on the kingside of the king",
        ],
        vec![
            "7",
            "chess960",
            "9",
            "5",
            "white",
            "O-O",
            "kingside",
            "rook_moved",
            "the f1 rook left f1 with 3.Rg1 and came back with 4.Rf1",
        ],
        vec![
            "7",
            "chess960",
            "10",
            "5",
            "black",
            "O-O",
            "kingside",
            "rook_moved",
            "the f8 rook left f8 with 3...Rg8 and came back with 4...Rf8",
        ],
    ];
    assert_eq!(castling, expected);
    let errors = read(
        "errors.csv",
        &["game", "ply", "san", "kind", "detail", "fen"],
    );
    assert_eq!(
        errors,
        vec![vec![
            "4",
            "2",
            "O-O",
            "unplayable_castle",
            "the castle cannot be played: White has no rook on its back rank on the kingside of the king",
            "4k3/8/8/8/8/8/8/R3K2b w Q - 0 2",
        ]]
    );
}

#[test]
fn king_off_its_back_rank_is_unplayable() {
    let fen = "4k3/8/8/8/8/8/4K3/R6R w - - 0 1";
    let r = audit(&pgn(Some(fen), false, "1. O-O"));
    assert_eq!(rows(&r), [row(1, "O-O", "no_right_in_fen;king_displaced")]);
    assert_eq!(
        r.castling[0].detail,
        "the starting FEN gives White no kingside castling right; the king stands on e2, not on e1"
    );
    let err = r.error.unwrap();
    assert_eq!(err.kind, ErrorKind::UnplayableCastle);
    assert_eq!(
        err.detail,
        "the castle cannot be played: the king stands on e2, off its back rank"
    );
}

// ------------------------------------------------ one geometry, shakmaty's

/// Random games from the standard start and from Chess960 ones (king
/// between adjacent rooks, on b, on g, on d), king and rook moves and
/// captures preferred; at every position, for both sides, the judgement
/// of a castle is shakmaty's: no breach exactly when shakmaty has the
/// castle, and then the same move; and a castle played as written breaks
/// exactly the geometric rules (FIDE 3.8.2.2) its geometry breaks.
#[test]
fn judge_castle_is_shakmatys_and_its_geometry() {
    use pgn_audit_core::audit::CastlingReason::{
        InCheck, IntoCheck, NoRook, PathBlocked, ThroughCheck,
    };
    use pgn_audit_core::audit::Reasons;
    use pgn_audit_core::audit::geometry::{Castle, geometry};
    use shakmaty::{CastlingSide, Move, Role};

    const STARTS: [Option<&str>; 5] = [
        None,
        Some("bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"),
        Some("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1"),
        Some("qnnrbbkr/pppppppp/8/8/8/8/PPPPPPPP/QNNRBBKR w KQkq - 0 1"),
        Some("nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w KQkq - 0 1"),
    ];
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut below = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        usize::try_from(rng % n as u64).unwrap()
    };
    let (mut legal, mut judged) = (0, 0);
    for _ in 0..400 {
        let fen = STARTS[below(STARTS.len())];
        let text = pgn(fen, fen.is_some(), "");
        let game = Game::parse(text.as_bytes());
        let start = start_position(&game.tags).expect("start position");
        let mut history = CastlingHistory::new(&start);
        let mut pos: Chess = start.position.clone();
        for ply in 1..=u32::try_from(below(90)).unwrap() {
            for side in CastlingSide::ALL {
                let j = castling::judge_castle(&pos, &history, side);
                let theirs = pos.castling_moves(side);
                let fen = fen_of(&pos);
                assert_eq!(j.breaches.is_empty(), !theirs.is_empty(), "{side:?} {fen}");
                if j.breaches.is_empty() {
                    assert_eq!(j.play, CastlePlay::Played(theirs[0]), "{fen}");
                    legal += 1;
                }
                if let CastlePlay::Played(Move::Castle { king, rook }) = j.play {
                    let castle = Castle {
                        color: pos.turn(),
                        side,
                        king,
                        rook: Some(rook),
                    };
                    let geometric: Reasons = j
                        .reasons()
                        .iter()
                        .filter(|r| {
                            [NoRook, PathBlocked, InCheck, ThroughCheck, IntoCheck].contains(r)
                        })
                        .collect();
                    assert_eq!(
                        geometry(pos.board(), castle).breaks(),
                        geometric,
                        "{side:?} {fen}"
                    );
                    judged += 1;
                }
            }
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let liked: Vec<_> = moves
                .iter()
                .filter(|m| {
                    matches!(m.role(), Role::King | Role::Rook) || m.is_capture() || m.is_castle()
                })
                .collect();
            let m = if !liked.is_empty() && below(3) == 0 {
                *liked[below(liked.len())]
            } else {
                moves[below(moves.len())]
            };
            if m.is_castle() {
                history.record_castle(&pos, m, ply);
            } else {
                history.record_move(&pos, m, ply);
            }
            pos.play_unchecked(m);
        }
    }
    // The walk (fixed seed) reaches this many legal castles and castles
    // played as written.
    assert_eq!((legal, judged), (785, 3094));
}
