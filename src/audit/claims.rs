//! Draw claims (FIDE 9.2 and 9.3). STUB: interface fixed.

use shakmaty::Chess;

use super::findings::ClaimAudit;
use super::repetition::Repetitions;
use crate::pgn::Game;

/// Finds the game's draw claims and judges each.
pub fn audit_claims(game: &Game, last: &Chess, reps: &Repetitions, plies: u32) -> Vec<ClaimAudit> {
    let _ = (game, last, reps, plies);
    Vec::new()
}
