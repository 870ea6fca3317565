//! Position identity for repetitions (FIDE 9.2.3). STUB: interface fixed.

use shakmaty::{Chess, EnPassantMode, Position, zobrist::Zobrist64};

/// The positions of a game since its last capture or pawn move, under the
/// strict FIDE key and the looser keys the claim verdicts need.
#[derive(Debug, Clone)]
pub struct Repetitions {
    keys: Vec<(u32, u64)>,
}

impl Repetitions {
    pub fn new(start: &Chess) -> Repetitions {
        let mut r = Repetitions { keys: Vec::new() };
        r.push(start, 0, true);
        r
    }

    /// Adds the position after `ply`; `zeroing` when that move was a capture
    /// or a pawn move. Returns how often this position has now stood.
    pub fn push(&mut self, pos: &Chess, ply: u32, zeroing: bool) -> u32 {
        if zeroing {
            self.keys.clear();
        }
        let key = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        self.keys.push((ply, key));
        self.keys.iter().filter(|(_, k)| *k == key).count() as u32
    }
}
