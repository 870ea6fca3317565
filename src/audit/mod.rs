//! The audit of one game: replay it from its start position as it was really
//! played, judge every castle, watch for automatic draws, and audit the draw
//! claim at its end. Pure: bytes in, [`GameReport`] out.

pub mod castling;
pub mod claims;
mod fastsan;
mod findings;
pub mod repetition;
mod results;
pub mod start;

pub use findings::*;

use shakmaty::{
    CastlingMode, Chess, EnPassantMode, Move, Position, Role,
    fen::Fen,
    san::{San, SanError, Suffix},
    zobrist::Zobrist64,
};

use crate::pgn::{Game, MoveToken};
use castling::{CastlePlay, CastlingHistory};
use repetition::{Repetitions, strict_key};

/// The FEN of a position, en passant written only where a capture is legal.
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// Audits one game. Never panics on any input (see `audit_game_caught`).
pub fn audit_game(game: &Game) -> GameReport {
    audit_traced(game, None)
}

/// How often the position after each ply (from ply 0, the start position)
/// has stood under FIDE identity (9.2.3), as the audit counts it. For the
/// cross-check against python-chess (`tests/crosscheck`).
#[doc(hidden)]
pub fn repetition_counts(game: &Game) -> Vec<u32> {
    let mut counts = Vec::new();
    audit_traced(game, Some(&mut counts));
    counts
}

fn audit_traced(game: &Game, mut trace: Option<&mut Vec<u32>>) -> GameReport {
    let mut report = GameReport::default();
    if let Some(err) = &game.tags.error {
        report.error = Some(GameError {
            ply: 0,
            san: String::new(),
            kind: ErrorKind::ParseError,
            detail: format!("{}: {}", err.detail, err.token),
            fen: String::new(),
        });
        return report;
    }
    let start = match start::start_position(&game.tags) {
        Ok(s) => s,
        Err((kind, detail)) => {
            report.variant = start::tagged_variant(&game.tags);
            report.error = Some(GameError {
                ply: 0,
                san: String::new(),
                kind,
                detail,
                fen: String::new(),
            });
            return report;
        }
    };
    report.variant = start.variant;
    // Each impossible castling right of the FEN, dropped, is a quirk.
    report.notation_quirks = start.dropped_rights.count() as u32;
    let mode = start.mode;
    let mut pos = start.position.clone();
    let mut history = CastlingHistory::new(&start);
    // The strict repetition key of `pos`, updated move by move where
    // shakmaty can (most moves), recomputed where it cannot.
    let mut key = if start.from_fen {
        strict_key(&pos)
    } else {
        repetition::initial_key()
    };
    let mut reps = Repetitions::new(&pos, key);
    // The square of the legal en-passant capture in `pos`, kept with the
    // key: only a double pawn step makes one.
    let mut ep = repetition::legal_ep(&pos);
    let mut draws = DrawWatch::default();
    draws.observe(&pos, 0, 1);
    draws.observe_material(&pos, 0);
    if let Some(t) = trace.as_deref_mut() {
        t.push(1);
    }

    // The `+`/`#` written after a check whose mate test is put off: a legal
    // next move proves there was no mate, so the costly test (every legal
    // move generated) runs only when no legal move follows.
    let mut unsettled: Option<Suffix> = None;
    // Whether `pos` is in check: wanted for the `+`/`#` test after a move
    // and again to resolve the next one.
    let mut in_check = pos.is_check();
    for (i, tok) in game.moves.iter().enumerate() {
        let ply = i as u32 + 1;
        // The move as written, needed only for rows.
        let text = || game.move_text(tok);
        // Every failure below leaves `pos` as it stood before this move.
        let fail = |pos: &Chess, kind: ErrorKind, detail: String| GameError {
            ply,
            san: text().to_owned(),
            kind,
            detail,
            fen: fen_of(pos),
        };
        let mut zeroing = false;
        let mut quirk = tok.quirk;
        let resolved = resolve(&pos, tok, mode, in_check);
        if let Some(written) = unsettled.take() {
            let mate = !matches!(resolved, Resolved::Move(..)) && pos.is_checkmate();
            let actual = if mate {
                Suffix::Checkmate
            } else {
                Suffix::Check
            };
            report.notation_quirks += u32::from(written != actual);
        }
        match resolved {
            Resolved::Move(m, sloppy) => {
                quirk |= sloppy;
                history.record_move(&pos, m, ply);
                zeroing = m.is_zeroing();
                // Where shakmaty cannot update the key, what it takes of
                // the position before the move, to update it here.
                let next = pos
                    .update_zobrist_hash(Zobrist64(key), m, EnPassantMode::Legal)
                    .map(|z| z.0)
                    .ok_or_else(|| repetition::KeyBefore::of(&pos, ep));
                pos.play_unchecked(m);
                // Where shakmaty updates the key the move is no double
                // pawn step: no en passant follows.
                (key, ep) = match next {
                    Ok(next) => (next, None),
                    Err(before) => repetition::next_key(&before, key, m, &pos),
                };
                debug_assert_eq!(key, strict_key(&pos));
                // Material changes only on a capture or a promotion, both
                // zeroing moves, and a dead position has no pawn, rook or
                // queen: only then can the position have become dead.
                if zeroing && (pos.board().pawns() | pos.board().rooks_and_queens()).is_empty() {
                    draws.observe_material(&pos, ply);
                }
            }
            Resolved::Castle(side) => {
                let judgement = castling::judge_castle(&pos, &history, side, |ply| {
                    game.move_text(&game.moves[ply as usize - 1])
                });
                if !judgement.reasons.is_empty() {
                    report.castling.push(CastlingViolation {
                        ply,
                        move_number: pos.fullmoves().get(),
                        side: pos.turn(),
                        san: text().to_owned(),
                        castle: side,
                        reasons: judgement.reasons,
                        detail: judgement.detail,
                        fen: fen_of(&pos),
                    });
                }
                match judgement.play {
                    CastlePlay::Played(m) => {
                        history.record_castle(&pos, m, ply);
                        let before = repetition::KeyBefore::of(&pos, ep);
                        pos.play_unchecked(m);
                        (key, ep) = repetition::next_key(&before, key, m, &pos);
                        debug_assert_eq!(key, strict_key(&pos));
                    }
                    CastlePlay::Unplayable(detail) => {
                        report.error = Some(fail(&pos, ErrorKind::UnplayableCastle, detail));
                        break;
                    }
                }
            }
            Resolved::Error(kind, detail) => {
                report.error = Some(fail(&pos, kind, detail));
                break;
            }
        }
        in_check = pos.is_check();
        if !quirk {
            match (tok.suffix, in_check) {
                (None, false) => {}
                (Some(_), false) | (None, true) => quirk = true,
                (Some(written), true) if i + 1 < game.moves.len() => unsettled = Some(written),
                (Some(written), true) => quirk = Some(written) != actual_suffix(&pos),
            }
        }
        report.notation_quirks += u32::from(quirk);
        report.plies = ply;
        let count = reps.push_keyed(&pos, ply, zeroing, key, ep);
        draws.observe(&pos, ply, count);
        if let Some(t) = trace.as_deref_mut() {
            t.push(count);
        }
    }

    if report.error.is_none()
        && let Some(err) = &game.syntax_error
    {
        report.error = Some(GameError {
            ply: report.plies + 1,
            san: err.token.clone(),
            kind: ErrorKind::ParseError,
            detail: err.detail.clone(),
            fen: fen_of(&pos),
        });
    }
    report.missed_draws = draws.rows(report.plies);
    let replayed = report.error.is_none().then_some((&pos, in_check));
    report.results = results::audit_results(game, replayed, report.plies);
    if report.error.is_none() {
        report.claims = claims::audit_claims(game, &pos, &reps, report.plies);
    }
    report
}

/// Remembers the first automatic draw of each kind (FIDE 9.6, and 5.2.2
/// for a position that insufficient material makes dead).
#[derive(Default)]
struct DrawWatch {
    fivefold: Option<(u32, String)>,
    seventy_five: Option<(u32, String)>,
    dead: Option<(u32, String)>,
}

impl DrawWatch {
    /// `count` is how often the position after `ply` has stood (FIDE 9.2.3).
    /// Inlined into the replay loop for its common answer, nothing to note.
    #[inline]
    fn observe(&mut self, pos: &Chess, ply: u32, count: u32) {
        if count >= 5 || pos.halfmoves() >= 150 {
            self.observe_rare(pos, ply, count);
        }
    }

    #[cold]
    #[inline(never)]
    fn observe_rare(&mut self, pos: &Chess, ply: u32, count: u32) {
        if self.fivefold.is_none() && count >= 5 {
            self.fivefold = Some((ply, fen_of(pos)));
        }
        // 9.6.2: 75 moves of each side without capture or pawn move, unless
        // the last of them mates.
        if self.seventy_five.is_none() && pos.halfmoves() >= 150 && !pos.is_checkmate() {
            self.seventy_five = Some((ply, fen_of(pos)));
        }
    }

    /// Notes the first position after which neither side could mate by
    /// any series of legal moves (5.2.2), as insufficient material decides
    /// it. Called where material changed: at ply 0, after a capture or a
    /// promotion.
    #[cold]
    #[inline(never)]
    fn observe_material(&mut self, pos: &Chess, ply: u32) {
        if self.dead.is_none() && pos.is_insufficient_material() {
            self.dead = Some((ply, fen_of(pos)));
        }
    }

    fn rows(&self, plies: u32) -> Vec<MissedDraw> {
        let mut rows: Vec<MissedDraw> = [
            (DrawRule::Fivefold, &self.fivefold),
            (DrawRule::SeventyFiveMoves, &self.seventy_five),
            (DrawRule::DeadPosition, &self.dead),
        ]
        .into_iter()
        .filter_map(|(rule, seen)| {
            let (ply, fen) = seen.as_ref()?;
            (plies > *ply).then(|| MissedDraw {
                rule,
                ply: *ply,
                plies_after: plies - ply,
                fen: fen.clone(),
            })
        })
        .collect();
        rows.sort_by_key(|r| r.ply);
        rows
    }
}

/// The check or mate suffix a move deserves.
fn actual_suffix(pos: &Chess) -> Option<Suffix> {
    if !pos.is_check() {
        None
    } else if pos.is_checkmate() {
        Some(Suffix::Checkmate)
    } else {
        Some(Suffix::Check)
    }
}

enum Resolved {
    /// A legal non-castling move; `true` when its notation was sloppy.
    Move(Move, bool),
    /// A castle, legal or not, to be judged.
    Castle(shakmaty::CastlingSide),
    Error(ErrorKind, String),
}

/// Finds the move a SAN token means. Castles (`O-O`, or a king move that
/// can only be castling) are handed to the castling judge unresolved.
/// The common case, a legal piece or pawn move that the fast path finds, is
/// decided here; everything else in [`resolve_rare`].
#[inline(always)]
fn resolve(pos: &Chess, tok: &MoveToken, mode: CastlingMode, in_check: bool) -> Resolved {
    match fastsan::common_move(pos, tok.san, in_check) {
        Some(m) => Resolved::Move(m, needless_detail(pos, tok.san, m, in_check)),
        None => resolve_rare(pos, tok.san, mode, in_check),
    }
}

/// [`resolve`] for a castle, a null move or drop, a move the common path
/// does not find, and an illegal or ambiguous SAN.
#[cold]
#[inline(never)]
fn resolve_rare(pos: &Chess, san: San, mode: CastlingMode, in_check: bool) -> Resolved {
    match san {
        San::Castle(side) => return Resolved::Castle(side),
        San::Null => {
            return Resolved::Error(
                ErrorKind::IllegalMove,
                "a null move is not a move under the Laws of Chess".to_owned(),
            );
        }
        San::Put { .. } => {
            return Resolved::Error(
                ErrorKind::IllegalMove,
                "a piece drop is not a move in standard chess or Chess960".to_owned(),
            );
        }
        San::Normal { .. } => {}
    }
    match san.to_move(pos) {
        Ok(m) => Resolved::Move(m, needless_detail(pos, san, m, in_check)),
        Err(SanError::AmbiguousSan) => Resolved::Error(
            ErrorKind::AmbiguousMove,
            format!("more than one legal move matches {san}"),
        ),
        Err(SanError::IllegalSan) => {
            if let Some(side) = castling::castle_intent(pos, san, mode) {
                return Resolved::Castle(side);
            }
            // A missing or extra `x` still names one move; but a pawn push
            // (`e6`) is not read as a capture (`dxe6`): that needs the file
            // it comes from (`de6`).
            if let San::Normal {
                role,
                file,
                rank,
                capture,
                to,
                promotion,
            } = san
                && (role != Role::Pawn || capture || file.is_some_and(|f| f != to.file()))
            {
                let flipped = San::Normal {
                    role,
                    file,
                    rank,
                    capture: !capture,
                    to,
                    promotion,
                };
                match flipped.to_move(pos) {
                    Ok(m) => return Resolved::Move(m, true),
                    Err(SanError::AmbiguousSan) => {
                        return Resolved::Error(
                            ErrorKind::AmbiguousMove,
                            format!("more than one legal move matches {flipped}"),
                        );
                    }
                    Err(SanError::IllegalSan) => {}
                }
            }
            Resolved::Error(ErrorKind::IllegalMove, illegal_detail(pos, san))
        }
    }
}

/// Whether the SAN names its move with more than it needs (`Ng1f3`),
/// or with less than SAN asks: a pawn capture without the file it comes
/// from (`xd5`). SAN (PGN standard 8.2.3) gives a pawn capture the file it
/// comes from, a pawn push no square of departure, and a piece move only
/// the file, rank or square that tells it from another legal move (see
/// [`fastsan::disambiguation`]). `m` is the legal move `san` names, so the
/// rest of the SAN (role, capture, square) is already the move's own.
#[inline(always)]
fn needless_detail(pos: &Chess, san: San, m: Move, in_check: bool) -> bool {
    let San::Normal {
        role,
        file,
        rank,
        capture,
        ..
    } = san
    else {
        return false;
    };
    if role == Role::Pawn {
        return rank.is_some() || file.is_some() != capture;
    }
    (file.is_some() || rank.is_some()) && !is_plain_san(pos, san, m, in_check)
}

/// Whether `san` is the SAN shakmaty writes for `m`, a piece move written
/// with a file or rank: whether that file and rank are just what tells
/// `m` from another legal move. Out of line: few moves are written so.
#[inline(never)]
fn is_plain_san(pos: &Chess, san: San, m: Move, in_check: bool) -> bool {
    let (San::Normal { file, rank, .. }, Move::Normal { role, from, to, .. }) = (san, m) else {
        return San::from_move(pos, m) == san;
    };
    match fastsan::disambiguation(pos, role, from, to, in_check) {
        Some(needed) => needed == (file, rank),
        None => San::from_move(pos, m) == san,
    }
}

fn illegal_detail(pos: &Chess, san: San) -> String {
    let side = if pos.turn().is_white() {
        "White"
    } else {
        "Black"
    };
    if let San::Normal { role, .. } = san
        && pos.board().by_role(role).intersect(pos.us()).is_empty()
    {
        return format!("{side} has no {} to play {san}", role_name(role));
    }
    format!("{san} is not a legal move for {side} in this position")
}

/// A piece's name, for detail sentences.
fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// Audits one game, turning a panic in the audit into an error row so that
/// one bad game never ends the run.
pub fn audit_game_caught(game: &Game) -> GameReport {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| audit_game(game))) {
        Ok(r) => r,
        Err(_) => GameReport {
            error: Some(GameError {
                ply: 0,
                san: String::new(),
                kind: ErrorKind::ParseError,
                detail: "internal error: the audit of this game panicked".to_owned(),
                fen: String::new(),
            }),
            ..GameReport::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quirks_and_error(movetext: &str) -> (u32, Option<(u32, ErrorKind)>) {
        let pgn = format!("[Event \"t\"]\n\n{movetext}\n");
        let game = Game::parse(pgn.as_bytes());
        let r = audit_game(&game);
        (r.notation_quirks, r.error.map(|e| (e.ply, e.kind)))
    }

    #[test]
    fn check_and_mate_suffixes_settled_by_the_next_move() {
        // Check written as mate, then a legal reply: one quirk.
        assert_eq!(quirks_and_error("1. e4 f5 2. Qh5# g6 *"), (1, None));
        assert_eq!(quirks_and_error("1. e4 f5 2. Qh5+ g6 *"), (0, None));
        // Mate written as check, at the end or followed by a move.
        assert_eq!(quirks_and_error("1. f3 e5 2. g4 Qh4+ 0-1"), (1, None));
        assert_eq!(
            quirks_and_error("1. f3 e5 2. g4 Qh4+ 3. a3 *"),
            (1, Some((5, ErrorKind::IllegalMove)))
        );
        assert_eq!(
            quirks_and_error("1. f3 e5 2. g4 Qh4# 3. a3 *"),
            (0, Some((5, ErrorKind::IllegalMove)))
        );
        // Check written as mate, then an illegal move: still one quirk.
        assert_eq!(
            quirks_and_error("1. e4 f5 2. Qh5# Ke7 *"),
            (1, Some((4, ErrorKind::IllegalMove)))
        );
        // A missing suffix, and a suffix on a quiet move.
        assert_eq!(quirks_and_error("1. e4 f5 2. Qh5 g6 *"), (1, None));
        assert_eq!(quirks_and_error("1. e4+ e5 *"), (1, None));
    }
}
