//! The castling audit (FIDE Laws 3.8.2 and Guidelines II.3 for Chess960).
//! STUB: interface fixed, rules to be written.

use shakmaty::{CastlingMode, CastlingSide, Chess, Move, Position, Role, san::San};

use super::findings::Reasons;
use super::start::Start;

/// Per side, where and when the king and each original rook first moved or
/// were captured (FIDE 3.8.2.1: a moved king or rook loses the right for
/// good, even when it comes back).
#[derive(Debug, Clone)]
pub struct CastlingHistory {
    mode: CastlingMode,
}

impl CastlingHistory {
    pub fn new(start: &Start) -> CastlingHistory {
        CastlingHistory { mode: start.mode }
    }

    /// Records a legal non-castling move `m`, before it is played on `pos`.
    pub fn record_move(&mut self, pos: &Chess, m: Move, ply: u32, text: &str) {
        let _ = (pos, m, ply, text, self.mode);
    }

    /// Records a castle `m` (a `Move::Castle`), before it is played on `pos`.
    pub fn record_castle(&mut self, pos: &Chess, m: Move, ply: u32, text: &str) {
        let _ = (pos, m, ply, text);
    }
}

/// What becomes of a castle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CastlePlay {
    /// Play this `Move::Castle` with `play_unchecked`: king to the g- or
    /// c-file, rook to the f- or d-file, that side's rights gone.
    Played(Move),
    /// It cannot be played as written; the replay stops.
    Unplayable(String),
}

/// The verdict on one castling move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CastleJudgement {
    /// Empty for a legal castle.
    pub reasons: Reasons,
    /// One sentence for a person (empty for a legal castle).
    pub detail: String,
    pub play: CastlePlay,
}

/// Judges a castle towards `side` by the side to move in `pos`.
pub fn judge_castle(pos: &Chess, history: &CastlingHistory, side: CastlingSide) -> CastleJudgement {
    let _ = history;
    match pos.castling_moves(side).first() {
        Some(m) => CastleJudgement {
            reasons: Reasons::default(),
            detail: String::new(),
            play: CastlePlay::Played(*m),
        },
        None => CastleJudgement {
            reasons: [super::CastlingReason::NoRook].into_iter().collect(),
            detail: "stub".to_owned(),
            play: CastlePlay::Unplayable("stub".to_owned()),
        },
    }
}

/// Whether a king move that is no legal king move is written castling:
/// `Kg1`/`Kc1` from the king's back rank two or more files away, or the
/// king onto its own rook (Chess960 `Kxh1`).
pub fn castle_intent(pos: &Chess, san: San, mode: CastlingMode) -> Option<CastlingSide> {
    let _ = mode;
    let San::Normal {
        role: Role::King,
        to,
        ..
    } = san
    else {
        return None;
    };
    let king = pos.board().king_of(pos.turn())?;
    if king.rank() != to.rank() || king.rank() != pos.turn().backrank() {
        return None;
    }
    let own_rook = pos.board().rooks() & pos.us();
    if own_rook.contains(to) {
        return Some(CastlingSide::from_king_side(to.file() > king.file()));
    }
    let distance = (i32::from(to.file()) - i32::from(king.file())).abs();
    match to.file() {
        shakmaty::File::G if distance >= 2 => Some(CastlingSide::KingSide),
        shakmaty::File::C if distance >= 2 => Some(CastlingSide::QueenSide),
        _ => None,
    }
}
