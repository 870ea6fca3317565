//! Draw claims (claims.csv) and automatic draws (missed_draws.csv), judged
//! on whole games through the library, with exact rows.

use pgn_audit_core::Game;
use pgn_audit_core::audit::{
    ClaimAudit, ClaimKind, ClaimSource, ClaimVerdict, DrawRule, GameClass, GameReport, MissedDraw,
    audit_game,
};

const KARPOV_MILES: &str = "r3kb1r/5ppp/4p3/8/4P3/2N5/Pn1BK1PP/R6R w kq - 0 22";

/// A PGN with the given FEN (if any), extra tags and movetext.
fn pgn(fen: Option<&str>, tags: &[(&str, &str)], movetext: &str) -> String {
    let mut s = String::from("[Event \"test\"]\n");
    if let Some(f) = fen {
        s.push_str(&format!("[SetUp \"1\"]\n[FEN \"{f}\"]\n"));
    }
    for (k, v) in tags {
        s.push_str(&format!("[{k} \"{v}\"]\n"));
    }
    s.push('\n');
    s.push_str(movetext);
    s.push('\n');
    s
}

fn audit(text: &str) -> GameReport {
    let report = audit_game(&Game::parse(text.as_bytes()));
    assert_eq!(report.error, None, "{text}");
    report
}

/// The one claim row of a game.
fn one_claim(text: &str) -> ClaimAudit {
    let r = audit(text);
    assert_eq!(r.claims.len(), 1, "{:#?}", r.claims);
    r.claims[0].clone()
}

fn check(
    c: &ClaimAudit,
    claim: ClaimKind,
    source: ClaimSource,
    verdict: ClaimVerdict,
    ply: u32,
    occurrences: u32,
    plies: &[u32],
) {
    assert_eq!(
        (
            c.claim,
            c.source,
            c.verdict,
            c.ply,
            c.occurrences,
            c.occurrences_ignoring_rights
        ),
        (
            claim,
            source,
            verdict,
            ply,
            occurrences,
            u32::try_from(plies.len()).unwrap()
        ),
        "{c:#?}"
    );
    assert_eq!(c.plies, plies, "{c:#?}");
}

use ClaimKind::{FiftyMoves, Threefold};
use ClaimSource::{Comment, Implied, Termination};
use ClaimVerdict::*;

// --- Karpov–Miles, Tilburg 1986 ---------------------------------------------

#[test]
fn karpov_miles_after_25_ra8_is_false_castling_rights() {
    let c = one_claim(&pgn(
        Some(KARPOV_MILES),
        &[("Result", "1/2-1/2")],
        "22.Nb5 Ra4 23.Nc3 Ra8 24.Nb5 Ra4 25.Nc3 Ra8 {White claims a threefold repetition} 1/2-1/2",
    ));
    check(
        &c,
        Threefold,
        Comment,
        FalseCastlingRights,
        8,
        2,
        &[0, 4, 8],
    );
    assert_eq!(c.fen, "r3kb1r/5ppp/4p3/8/4P3/2N5/Pn1BK1PP/R6R w k - 8 26");
    assert_eq!(
        c.detail,
        "the position after 25...Ra8 stood 3 times only when castling rights are ignored: \
         the first occurrence, the start position, still had Black's right to castle queenside"
    );
}

#[test]
fn karpov_miles_after_26_nb5_is_false_castling_rights() {
    // Karpov's claim after 26.Nb5: the position after 26.Nb5 looks like the
    // one after 22.Nb5 and 24.Nb5, but after 22.Nb5 Black could still castle
    // queenside. 26...Ra4 would repeat another position a third time, but a
    // final position that already looks thrice repeated is judged as such.
    let c = one_claim(&pgn(
        Some(KARPOV_MILES),
        &[("Result", "1/2-1/2")],
        "22.Nb5 Ra4 23.Nc3 Ra8 24.Nb5 Ra4 25.Nc3 Ra8 26.Nb5 {threefold repetition claimed} 1/2-1/2",
    ));
    check(
        &c,
        Threefold,
        Comment,
        FalseCastlingRights,
        9,
        2,
        &[1, 5, 9],
    );
    assert_eq!(
        c.detail,
        "the position after 26.Nb5 stood 3 times only when castling rights are ignored: \
         the first occurrence, after 22.Nb5, still had Black's right to castle queenside"
    );
}

#[test]
fn karpov_miles_after_26_ra4_is_valid() {
    let c = one_claim(&pgn(
        Some(KARPOV_MILES),
        &[
            ("Result", "1/2-1/2"),
            ("Termination", "Game drawn by repetition"),
        ],
        "22.Nb5 Ra4 23.Nc3 Ra8 24.Nb5 Ra4 25.Nc3 Ra8 26.Nb5 Ra4 1/2-1/2",
    ));
    check(&c, Threefold, Termination, Valid, 10, 3, &[2, 6, 10]);
    assert_eq!(
        c.detail,
        "the position after 26...Ra4 stood for the third time: after 22...Ra4, after 24...Ra4 \
         and after 26...Ra4"
    );
}

// --- threefold -------------------------------------------------------------

#[test]
fn en_passant_square_without_a_legal_capture_does_not_count() {
    let c = one_claim(&pgn(
        None,
        &[("Result", "1/2-1/2")],
        "1.e4 Nf6 2.Nf3 Ng8 3.Ng1 Nf6 4.Nf3 Ng8 5.Ng1 {Draw by threefold repetition} 1/2-1/2",
    ));
    check(&c, Threefold, Comment, Valid, 9, 3, &[1, 5, 9]);
    assert_eq!(
        c.fen,
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 8 5"
    );
}

#[test]
fn en_passant_capture_possible_at_the_first_occurrence() {
    let c = one_claim(&pgn(
        Some("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1"),
        &[("Result", "1/2-1/2")],
        "1.e4 Ke7 2.Kd2 Ke8 3.Ke1 Kd7 4.Kf1 Ke8 5.Ke1 {3-fold} 1/2-1/2",
    ));
    check(&c, Threefold, Comment, FalseEnPassant, 9, 2, &[1, 5, 9]);
    assert_eq!(
        c.detail,
        "the position after 5.Ke1 stood 3 times only when en-passant rights are ignored: \
         the first occurrence, after 1.e4, allowed Black's en-passant capture on e3"
    );
}

#[test]
fn same_pieces_with_the_other_side_to_move() {
    let c = one_claim(&pgn(
        Some("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"),
        &[("Result", "1/2-1/2")],
        "1.Ra3 Kd8 2.Ra2 Ke8 3.Ra1 Kd8 4.Rb1 Ke8 5.Ra1 {repetition} 1/2-1/2",
    ));
    check(&c, Threefold, Comment, FalseSideToMove, 9, 2, &[5, 9]);
    assert_eq!(
        c.detail,
        "the position after 5.Ra1 stood with these pieces 3 times (at the start, after 3.Ra1 \
         and after 5.Ra1), but only 2 of them with Black to move"
    );
}

/// A move that would make a position's fourth occurrence is named so: the
/// detail said "third" whatever the count.
#[test]
fn claim_on_a_move_that_would_make_the_fourth_occurrence() {
    let c = one_claim(&pgn(
        None,
        &[("Result", "1/2-1/2"), ("Termination", "repetition")],
        "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Nh4 Ng8 1/2-1/2",
    ));
    assert_eq!((c.verdict, c.ply), (ValidOnAnnouncedMove, 12));
    assert_eq!(
        c.detail,
        "the position after 6...Ng8 allows 7.Nf3, which would make the fourth occurrence of the \
         position that stood after 1.Nf3, after 3.Nf3 and after 5.Nf3"
    );
}

#[test]
fn claim_on_the_move_that_makes_the_third_occurrence() {
    let c = one_claim(&pgn(
        None,
        &[("Result", "1/2-1/2")],
        "1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 {Black announces 4...Ng8 and claims a repetition} 1/2-1/2",
    ));
    check(&c, Threefold, Comment, ValidOnAnnouncedMove, 7, 2, &[3, 7]);
    assert_eq!(
        c.detail,
        "the position after 4.Ng1 allows 4...Ng8, which would make the third occurrence of the \
         position that stood at the start and after 2...Ng8"
    );
}

#[test]
fn plain_false_claim() {
    let c = one_claim(&pgn(
        None,
        &[("Result", "1/2-1/2")],
        "1.e4 e5 2.Nf3 Nc6 {threefold repetition?} 1/2-1/2",
    ));
    check(&c, Threefold, Comment, FalseNotRepeated, 4, 1, &[4]);
    assert_eq!(
        c.detail,
        "the position after 2...Nc6 had not stood before, and no legal move from it makes any \
         position's third occurrence"
    );
}

#[test]
fn a_comment_before_the_last_move_claims_nothing() {
    let r = audit(&pgn(
        None,
        &[("Result", "1/2-1/2")],
        "1.e4 e5 {threefold repetition} 2.Nf3 Nc6 1/2-1/2",
    ));
    assert_eq!(r.claims, vec![]);
}

#[test]
fn termination_beats_comment_and_both_kinds_are_rows() {
    let r = audit(&pgn(
        None,
        &[
            ("Result", "1/2-1/2"),
            ("Termination", "Game drawn by repetition"),
        ],
        "1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8 {threefold; also the fifty-move rule} 1/2-1/2",
    ));
    assert_eq!(r.claims.len(), 2, "{:#?}", r.claims);
    check(
        &r.claims[0],
        Threefold,
        Termination,
        Valid,
        8,
        3,
        &[0, 4, 8],
    );
    check(
        &r.claims[1],
        FiftyMoves,
        Comment,
        FalseFiftyMoves,
        8,
        3,
        &[0, 4, 8],
    );
    assert_eq!(r.class(), GameClass::Flagged);
}

#[test]
fn german_french_and_spanish_claims() {
    for words in [
        "Remis durch dreimalige Stellungswiederholung",
        "nulle par triple répétition",
        "tablas por repetición",
    ] {
        let c = one_claim(&pgn(
            None,
            &[("Result", "1/2-1/2")],
            &format!("1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8 {{{words}}} 1/2-1/2"),
        ));
        check(&c, Threefold, Comment, Valid, 8, 3, &[0, 4, 8]);
    }
}

// --- implied claims ----------------------------------------------------------

#[test]
fn implied_claims_are_reported_but_flag_nothing() {
    // Lichess writes "Normal": it says nothing.
    let r = audit(&pgn(
        None,
        &[("Result", "1/2-1/2"), ("Termination", "Normal")],
        "1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8 1/2-1/2",
    ));
    assert_eq!(r.claims.len(), 1);
    check(&r.claims[0], Threefold, Implied, Valid, 8, 3, &[0, 4, 8]);
    assert_eq!(r.class(), GameClass::Clean);

    let r = audit(&pgn(
        Some(KARPOV_MILES),
        &[("Result", "1/2-1/2")],
        "22.Nb5 Ra4 23.Nc3 Ra8 24.Nb5 Ra4 25.Nc3 Ra8 1/2-1/2",
    ));
    assert_eq!(r.claims.len(), 1);
    check(
        &r.claims[0],
        Threefold,
        Implied,
        FalseCastlingRights,
        8,
        2,
        &[0, 4, 8],
    );
    assert_eq!(r.class(), GameClass::Clean);

    // Announced move only.
    let c = one_claim(&pgn(
        None,
        &[("Result", "1/2-1/2")],
        "1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 1/2-1/2",
    ));
    check(&c, Threefold, Implied, ValidOnAnnouncedMove, 7, 2, &[3, 7]);
}

#[test]
fn no_implied_claim_without_a_draw_or_a_repetition() {
    let drawn = audit(&pgn(
        None,
        &[("Result", "1/2-1/2")],
        "1.e4 e5 2.Nf3 Nc6 1/2-1/2",
    ));
    assert_eq!(drawn.claims, vec![]);
    let won = audit(&pgn(
        None,
        &[("Result", "1-0")],
        "1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8 1-0",
    ));
    assert_eq!(won.claims, vec![]);
}

// --- fifty moves -------------------------------------------------------------

const ROOK_ENDING: &str = "8/8/8/4k3/8/8/8/R3K3 w - - 98 60";

#[test]
fn fifty_moves_valid_with_the_fen_clock() {
    let c = one_claim(&pgn(
        Some(ROOK_ENDING),
        &[
            ("Result", "1/2-1/2"),
            ("Termination", "Game drawn by 50-move rule"),
        ],
        "60.Ra2 Kd5 1/2-1/2",
    ));
    check(&c, FiftyMoves, Termination, Valid, 2, 1, &[2]);
    assert_eq!(c.fen, "8/8/8/3k4/8/8/R7/4K3 w - - 100 61");
}

#[test]
fn fifty_moves_on_the_announced_move() {
    let c = one_claim(&pgn(
        Some(ROOK_ENDING),
        &[("Result", "1/2-1/2")],
        "60.Ra2 {Black claims the 50-move rule} 1/2-1/2",
    ));
    check(&c, FiftyMoves, Comment, ValidOnAnnouncedMove, 1, 1, &[1]);
}

#[test]
fn fifty_moves_false() {
    let c = one_claim(&pgn(
        Some("8/8/8/4k3/8/8/8/R3K3 w - - 90 60"),
        &[("Result", "1/2-1/2")],
        "60.Ra2 Kd5 {fifty moves} 1/2-1/2",
    ));
    check(&c, FiftyMoves, Comment, FalseFiftyMoves, 2, 1, &[2]);
    assert_eq!(
        c.detail,
        "the position after 60...Kd5 had a halfmove clock of only 92 of the 100 plies the rule \
         needs; the start position's FEN already counted some of them"
    );
}

#[test]
fn fifty_moves_false_when_the_only_move_captures() {
    // Clock 99, but Black's only legal move is Kxb7.
    let c = one_claim(&pgn(
        Some("k7/8/1Q6/8/8/8/8/4K3 w - - 98 80"),
        &[("Result", "1/2-1/2")],
        "80.Qb7+ {50-move rule} 1/2-1/2",
    ));
    check(&c, FiftyMoves, Comment, FalseFiftyMoves, 1, 1, &[1]);
}

#[test]
fn fifty_moves_false_after_a_capture_in_the_game() {
    let c = one_claim(&pgn(
        None,
        &[("Result", "1/2-1/2")],
        "1.e4 d5 2.exd5 Qxd5 3.Nc3 Qa5 {fifty-move rule} 1/2-1/2",
    ));
    check(&c, FiftyMoves, Comment, FalseFiftyMoves, 6, 1, &[6]);
    assert_eq!(
        c.detail,
        "the position after 3...Qa5 had a halfmove clock of only 2 of the 100 plies the rule \
         needs; the last capture or pawn move was 2...Qxd5"
    );
}

// --- automatic draws (missed_draws.csv) --------------------------------------

const SHUFFLE: &str =
    "1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8 5.Nf3 Nf6 6.Ng1 Ng8 7.Nf3 Nf6 8.Ng1 Ng8";

#[test]
fn fivefold_played_on() {
    let r = audit(&pgn(
        None,
        &[("Result", "1-0")],
        &format!("{SHUFFLE} 9.e4 e5 1-0"),
    ));
    assert_eq!(
        r.missed_draws,
        vec![MissedDraw {
            rule: DrawRule::Fivefold,
            ply: 16,
            plies_after: 2,
            fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 16 9".to_owned(),
            basis: None,
        }]
    );
    assert_eq!(r.class(), GameClass::Flagged);
}

#[test]
fn fivefold_reached_on_the_last_ply_is_no_row() {
    let r = audit(&pgn(
        None,
        &[("Result", "1/2-1/2")],
        &format!("{SHUFFLE} 1/2-1/2"),
    ));
    assert_eq!(r.missed_draws, vec![]);
    // Also an implied claim, valid: it flags nothing.
    assert_eq!(r.claims.len(), 1);
    check(
        &r.claims[0],
        Threefold,
        Implied,
        Valid,
        16,
        5,
        &[0, 4, 8, 12, 16],
    );
    assert_eq!(r.class(), GameClass::Clean);
}

#[test]
fn seventy_five_moves_played_on_with_the_fen_clock() {
    let r = audit(&pgn(
        Some("8/8/8/4k3/8/8/8/R3K3 w - - 148 100"),
        &[("Result", "1/2-1/2")],
        "100.Ra2 Kd5 101.Ra3 1/2-1/2",
    ));
    assert_eq!(
        r.missed_draws,
        vec![MissedDraw {
            rule: DrawRule::SeventyFiveMoves,
            ply: 2,
            plies_after: 1,
            fen: "8/8/8/3k4/8/8/R7/4K3 w - - 150 101".to_owned(),
            basis: None,
        }]
    );
    assert_eq!(r.class(), GameClass::Flagged);
}

#[test]
fn seventy_five_moves_reached_on_the_last_ply_is_no_row() {
    let r = audit(&pgn(
        Some("8/8/8/4k3/8/8/8/R3K3 w - - 148 100"),
        &[("Result", "1/2-1/2")],
        "100.Ra2 Kd5 1/2-1/2",
    ));
    assert_eq!(r.missed_draws, vec![]);
    assert_eq!(r.class(), GameClass::Clean);
}

#[test]
fn seventy_five_moves_ending_in_mate_is_no_draw() {
    let r = audit(&pgn(
        Some("k7/8/1K6/8/8/8/8/7R w - - 149 100"),
        &[("Result", "1-0")],
        "100.Rh8# 1-0",
    ));
    assert_eq!(r.missed_draws, vec![]);
    assert_eq!(r.claims, vec![]);
    assert_eq!(r.class(), GameClass::Clean);
}

// --- summary flagging ----------------------------------------------------------

#[test]
fn false_explicit_claims_flag_the_game_valid_ones_do_not() {
    let false_claim = audit(&pgn(
        Some(KARPOV_MILES),
        &[("Result", "1/2-1/2")],
        "22.Nb5 Ra4 23.Nc3 Ra8 24.Nb5 Ra4 25.Nc3 Ra8 {repetition} 1/2-1/2",
    ));
    assert_eq!(false_claim.class(), GameClass::Flagged);
    let announced = audit(&pgn(
        None,
        &[
            ("Result", "1/2-1/2"),
            ("Termination", "Game drawn by repetition"),
        ],
        "1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 1/2-1/2",
    ));
    assert_eq!(announced.claims[0].verdict, ValidOnAnnouncedMove);
    assert_eq!(announced.class(), GameClass::Clean);
}

#[test]
fn repetition_counts_follow_fide_identity() {
    let game = pgn(None, &[], "1.e4 Nf6 2.Nf3 Ng8 3.Ng1 Nf6 4.Nf3 Ng8 5.Ng1 *");
    let counts = pgn_audit_core::audit::repetition_counts(&Game::parse(game.as_bytes()));
    assert_eq!(counts, vec![1, 1, 1, 1, 1, 2, 2, 2, 2, 3]);
}

#[test]
fn fixture_file_verdicts() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpora/fixtures/claims/karpov_miles.pgn"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let verdicts: Vec<(ClaimVerdict, u32)> = text
        .split("\n\n[Event")
        .enumerate()
        .map(|(i, g)| {
            if i == 0 {
                g.to_owned()
            } else {
                format!("[Event{g}")
            }
        })
        .map(|g| {
            let c = one_claim(&g);
            (c.verdict, c.ply)
        })
        .collect();
    assert_eq!(
        verdicts,
        vec![
            (FalseCastlingRights, 8),
            (FalseCastlingRights, 9),
            (Valid, 10),
            (Valid, 9)
        ]
    );
}

// --- claim words: whole words, drawn games only (contract v2) ----------------

/// Knights out and back twice: the start position stands three times.
const REPEATED: &str = "1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8";

#[test]
fn words_after_the_last_move_of_a_decisive_game_claim_nothing() {
    for (result, words) in [
        ("1-0", "a triple attack"),
        ("0-1", "White avoids the repetition"),
        ("1-0", "threefold repetition"),
        ("*", "fifty-move rule"),
    ] {
        let r = audit(&pgn(
            None,
            &[
                ("Result", result),
                ("Termination", "Game drawn by repetition"),
            ],
            &format!("{REPEATED} {{{words}}} {result}"),
        ));
        assert_eq!(r.claims, vec![], "{result} {{{words}}}");
    }
}

#[test]
fn claim_words_count_only_whole() {
    // Drawn, but no claim word: neither a comment nor an implied claim
    // (the final position stood once).
    for words in [
        "a triple attack",
        "repetitions were avoided",
        "fifty",
        "150-move marathon",
        "50 movesets",
        "Wiederholungen",
        "dreimalige",
    ] {
        let r = audit(&pgn(
            None,
            &[("Result", "1/2-1/2")],
            &format!("1.e4 e5 2.Nf3 Nc6 {{{words}}} 1/2-1/2"),
        ));
        assert_eq!(r.claims, vec![], "{{{words}}}");
    }
}

#[test]
fn claim_phrases_in_drawn_games() {
    for words in [
        "Stellungswiederholung",
        "Zugwiederholung!",
        "triple répétition",
        "(repeated   position)",
        "3-fold",
    ] {
        let c = one_claim(&pgn(
            None,
            &[("Result", "1/2-1/2")],
            &format!("{REPEATED} {{{words}}} 1/2-1/2"),
        ));
        check(&c, Threefold, Comment, Valid, 8, 3, &[0, 4, 8]);
    }
    for words in [
        "fifty moves",
        "50 Züge",
        "cincuenta jugadas",
        "FIFTY-MOVE rule",
    ] {
        let c = one_claim(&pgn(
            None,
            &[("Result", "1/2-1/2")],
            &format!("1.e4 e5 {{{words}}} 1/2-1/2"),
        ));
        check(&c, FiftyMoves, Comment, FalseFiftyMoves, 2, 1, &[2]);
    }
    // Without a Result tag, the result token says the game is drawn.
    let c = one_claim(&pgn(
        None,
        &[],
        &format!("{REPEATED} {{Stellungswiederholung}} 1/2-1/2"),
    ));
    check(&c, Threefold, Comment, Valid, 8, 3, &[0, 4, 8]);
}

/// Issue 14 point 5: claims.csv names moves the way castling.csv does,
/// counting from the start position's move number. Counted back from a
/// final move number that had saturated, the earlier moves were numbered
/// wrong (`4294967292...Ke8` for the move after `4294967294.Kf1 Kf8
/// 4294967295.Ke1`).
#[test]
fn claim_details_number_moves_from_the_start_even_at_the_largest_move_number() {
    let text = pgn(
        Some("4k3/8/8/8/8/8/8/4K2R w - - 0 4294967294"),
        &[("Result", "1/2-1/2"), ("Termination", "Draw by repetition")],
        "1. Kf1 Kf8 2. Ke1 Ke8 3. Kf1 Kf8 4. Ke1 Ke8 1/2-1/2",
    );
    let c = one_claim(&text);
    check(&c, Threefold, Termination, Valid, 8, 3, &[0, 4, 8]);
    assert_eq!(
        c.detail,
        "the position after 4294967295...Ke8 stood for the third time: at the start, \
         after 4294967295...Ke8 and after 4294967295...Ke8"
    );
}

// --- commentary (v3) ---------------------------------------------------------

/// (v3, issue 28) A comment claims only where it reports the claim or the
/// draw as what happened: sentence by sentence, a claim word beside a
/// marker of commentary (New York 1924's annotations, and their German,
/// French and Spanish kin) claims nothing; the game may still have an
/// implied claim. A sentence that reports the draw claims, whatever the
/// comment's other sentences say.
#[test]
fn commentary_is_not_a_claim() {
    let repeated = "1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8";
    let not_repeated = "1.e4 e5 2.Nf3 Nc6";
    let drawn = |movetext: &str, words: &str| {
        audit(&pgn(
            None,
            &[("Result", "1/2-1/2")],
            &format!("{movetext} {{{words}}} 1/2-1/2"),
        ))
    };
    let lasker = "Lasker's only hope to avoid a loss is a draw by threefold repetition.";
    for words in [
        lasker,
        "Rather than play out the moves for a threefold repetition, Marshall and Reti agree to a draw.",
        "White could have claimed a draw by repetition",
        "Remis vereinbart, statt die Stellungswiederholung abzuwarten.",
        "Nulle : ils n'attendent pas la triple répétition.",
        "Tablas de mutuo acuerdo en vez de la repetición.",
    ] {
        assert_eq!(drawn(not_repeated, words).claims, vec![], "{words}");
    }
    for (words, claim, verdict) in [
        ("Draw by repetition.", Threefold, FalseNotRepeated),
        (
            "The game is a draw by repetition of position.",
            Threefold,
            FalseNotRepeated,
        ),
        (
            "50 moves without a capture: draw claimed",
            FiftyMoves,
            FalseFiftyMoves,
        ),
        (
            "A hard fight. Draw by threefold repetition! Neither side could win.",
            Threefold,
            FalseNotRepeated,
        ),
        // The markers are whole words: `didn't` holds no `not` (the
        // contract lists no contraction), so these sentences claim.
        (
            "Draw by repetition, White didn't want more.",
            Threefold,
            FalseNotRepeated,
        ),
        (
            "Black didn't want to wait for the 50 moves rule; a draw was agreed.",
            FiftyMoves,
            FalseFiftyMoves,
        ),
    ] {
        let r = drawn(not_repeated, words);
        let rows: Vec<_> = r
            .claims
            .iter()
            .map(|c| (c.claim, c.source, c.verdict))
            .collect();
        assert_eq!(rows, vec![(claim, Comment, verdict)], "{words}");
    }
    let r = drawn(repeated, lasker);
    assert_eq!(r.claims.len(), 1, "{:#?}", r.claims);
    check(&r.claims[0], Threefold, Implied, Valid, 8, 3, &[0, 4, 8]);
}

/// (v4) A comment's sentences run over its line ends: exporters wrap
/// comments at 80 columns, and a ChessBase collection's Kasparov–X3D
/// Fritz (New York 2003, game 1) ends on a commentator's explanation
/// wrapped mid-sentence, `…has no alternative to checking on e3 again
/// and` / `creating a third repetition.`, which claims nothing. A blank
/// line still ends a sentence.
#[test]
fn a_wrapped_sentence_is_one_sentence() {
    let wrapped = "Mig: 'Now the draw is completely forced\r\nbecause the black queen \
                   has no alternative to checking on e3 again and\r\ncreating a third \
                   repetition. Any other move loses immediately.'";
    let drawn = |movetext: &str, words: &str| {
        audit(&pgn(
            None,
            &[("Result", "1/2-1/2")],
            &format!("{movetext} {{{words}}}\r\n1/2-1/2"),
        ))
    };
    for end in ["\r\n", "\n", "\r"] {
        let words = wrapped.replace("\r\n", end);
        assert_eq!(drawn("1.e4 e5 2.Nf3 Nc6", &words).claims, vec![], "{end:?}");
        let r = drawn("1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1 Ng8", &words);
        assert_eq!(r.claims.len(), 1, "{:#?}", r.claims);
        check(&r.claims[0], Threefold, Implied, Valid, 8, 3, &[0, 4, 8]);
        let words = format!("Neither side could win{end}{end}Draw by repetition");
        let r = drawn("1.e4 e5 2.Nf3 Nc6", &words);
        assert_eq!(r.claims.len(), 1, "{:#?}", r.claims);
        check(
            &r.claims[0],
            Threefold,
            Comment,
            FalseNotRepeated,
            4,
            1,
            &[4],
        );
    }
}
