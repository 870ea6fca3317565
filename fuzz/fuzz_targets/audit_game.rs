//! One game's bytes, read and audited: must never panic, and the report
//! must hold together: rows in ply order and within the plies replayed,
//! claims and board results only for a game replayed to its end, and the
//! class that the rows imply.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgn_audit_core::audit::{ErrorKind, GameClass, ResultCode, audit_game};

fuzz_target!(|data: &[u8]| {
    let game = pgn_audit_core::Game::parse(data);
    let r = audit_game(&game);
    let plies = r.plies;
    // A castle is at most the ply after the last one replayed: the one
    // that could not be played, which is then the error.
    let mut last = 0;
    for c in &r.castling {
        assert!(c.ply > last, "castling rows out of ply order");
        last = c.ply;
        assert!(c.ply >= 1 && c.ply <= plies + 1);
        if c.ply == plies + 1 {
            let e = r.error.as_ref().expect("an unplayed castle is an error");
            assert_eq!((e.ply, e.kind), (c.ply, ErrorKind::UnplayableCastle));
        }
        assert!(!c.reasons.is_empty(), "a castling row without a reason");
    }
    if let Some(e) = &r.error {
        assert!(e.ply <= plies + 1, "error at ply {} after {plies}", e.ply);
        assert!(
            r.claims.is_empty(),
            "a claim audited in a game with an error"
        );
        assert!(
            r.results
                .iter()
                .all(|x| x.code == ResultCode::ResultMismatch),
            "a board result in a game not replayed to its end"
        );
    }
    for m in &r.missed_draws {
        assert!(m.plies_after >= 1 && m.ply + m.plies_after == plies);
    }
    for c in &r.claims {
        assert_eq!(c.ply, plies);
        assert!(c.occurrences <= c.occurrences_ignoring_rights);
        assert_eq!(c.plies.len() as u32, c.occurrences_ignoring_rights);
    }
    for x in &r.results {
        assert_eq!(x.ply, plies);
    }
    let flagged = !r.castling.is_empty() || !r.missed_draws.is_empty() || !r.results.is_empty();
    match r.class() {
        GameClass::Incomplete => assert!(r.error.is_some()),
        GameClass::Clean => assert!(r.error.is_none() && !flagged),
        GameClass::Flagged => assert!(r.error.is_none()),
    }
});
