//! Whether a side can still mate "by any series of legal moves" (FIDE
//! 5.2.2 for a dead position, 6.9 for a loss on time): insufficient
//! material as shakmaty decides it, or else a helpmate analysis by the
//! crate chasolver, which proves that no series of legal moves, both sides
//! cooperating, ends in a mate by that side.
//!
//! chasolver works on the `chess` crate's board; the position is copied
//! into one square by square (no FEN round trip). That board has standard
//! castling only: a Chess960 castling right whose king and rook do not
//! stand where standard chess puts them is dropped. A helpmate found
//! without it is one in the real position too, so "can mate" stands; a
//! proof that no helpmate exists does not (the castle itself might be the
//! way through), so such a position is `Undecided`.
//!
//! The analysis has two steps. First chasolver's fast check,
//! `is_unwinnable_fast`: sound (a `true` is a proof), about 7,000
//! instructions on a final position of the Lichess sample, asked wherever
//! the material does not settle the side and its failure cannot be
//! foreseen on shakmaty's board (see [`fast_check_fails`]: 860
//! of the 905 questions of 5 copies of the sample, which then cost no call to
//! chasolver, whose code and tables evict the replay's). Where it fails,
//! chasolver's full search, `winnability`, which proves either way (it
//! returns a helpmate, or a proof that none exists) or gives up: the
//! position is then `Undecided`, no row, and summary.json counts it.
//!
//! Both run within the game's budget ([`GAME_NODES`], chasolver vendored
//! with `winnability_within` and `is_unwinnable_fast_within`): the published
//! crate bounds only the last phase of its full search (2^24 nodes) and lets
//! its tables grow with it, and its fast check's depth-15 search of a
//! locked pawn structure has no bound at all; a constructed position took
//! seconds and 181 MiB.
//!
//! The full search is dear where a helpmate exists, and that is nearly
//! everywhere: on the sides of the sample's final positions that the fast
//! check does not prove unable it took 134 µs on average (2.5 µs for the
//! fast check), up to 10 ms, finding helpmates of 40 to 90 plies by its
//! heuristics; chasolver exposes neither a lower node limit nor its quick
//! first search on its own. So it is asked only
//! - where its answer can make a row: about the winner of a game lost on
//!   time (6.9); for a dead position (5.2.2) only once the fast check has
//!   taken neither side as able, and the second side's search only where
//!   the first found no helpmate (see [`Analyst::deadness`]);
//! - in a locked structure (see [`worth_a_search`]), where the fast
//!   check's misses are: 316 of the 566 sides of chasolver's constructed
//!   positions that cannot mate and that the fast check does not prove so,
//!   against 9 of the 645 sides of the sample's final positions.
//!
//! The whole analysis (`FinalVerdicts::of`, inclusive) costs 12.9 M of the
//! 160.35 M instructions of the whole audit of 5 copies of the sample
//! (callgrind, -j1), about 5,900 a game: +9.8 % over the audit without it
//! (146.08 M), the budget is 10 % (benches/README.md, issue 24). A Black
//! question is asked of a board built mirrored ([`board_for`]), not
//! mirrored again by chasolver, and the clock is read once a game. Where
//! [`fast_check_fails`] foresees the fast check's answer, the whole audit
//! costs 157.32 M instead of 159.25 M, chasolver's fast check 2.88 M
//! instead of 7.49 M, and the instruction cache misses 171 k instead of
//! 259 k (callgrind's cache simulation), the CPU time about 6 % less.
//! Foreseen also after a forced line and where a lonely pawn stops the
//! later phases, with the quiet moves found on the bitboards: 45 calls to
//! the fast check instead of 270, the whole audit 144.59 M instead of
//! 146.74 M, the analysis's time on 200 copies 0.043 s instead of 0.065 s,
//! and the CPU time of the whole audit (-j1) 4 % less.
//!
//! Measured with callgrind, one copy of the sample, the whole audit against
//! main's (fast check only): this filter +3.0 % instructions; three pairs
//! of blocked pawns without queen and rook (or four) +9.6 %; one pair (or
//! four) +30.7 %; this filter or at most one legal move +18.8 %; every side
//! without queen and rook +66.5 %; the budget is 10 %. Elsewhere a side the
//! fast check does not prove unable is `NotProven`: taken as able to mate,
//! no row. That is the class left: 187 of the 2,876 sides of chasolver's
//! constructed positions that cannot mate, none of the 2,410 of its
//! Lichess positions (the fast check proves them all), and, by chasolver's
//! README, none of the timeout positions of 10 million Lichess games (the
//! fast check proved every unwinnable one). A constructed position can
//! keep the full search busy for seconds (6.6 s, the longest among
//! chasolver's test positions).
//!
//! A frozen structure (one pair of pawns blocking each other, at least four
//! pawns, none of which can push or capture) is searched too: a bare king
//! behind a pawn stack, or a rook shut in by its own pawns, was taken as
//! able to mate. It proves 40 more of chasolver's constructed sides unable
//! (356 by the full search, 187 left) and costs 148.81 M instructions
//! instead of 147.19 M on 5 copies of the sample (+1.1 %); without the
//! four pawns (a blocked pawn pair of a king-and-pawn ending) it cost
//! +5.8 %. The positions of a game that ends dead by the helpmate
//! analysis are searched back in full (`Analyst::thorough`): the first
//! dead position of a locked game was where the filter first let the
//! search in, not where it is. Every game that ends dead searched back so
//! (before a last capture that left too little material too) cost 8 %
//! more instructions: not done.
//!
//! The fast check was once skipped for a side with a queen or a rook where
//! no pawn was blocked and no king in check (taken as able); that missed a
//! forced capture of the last mating piece (`8/8/8/8/8/8/1R6/k6K b`, where
//! Kxb2 is Black's only move). Asked there too, it costs 146.6 M
//! instructions instead of 144.0 M on 5 copies of the sample (+1.8 %) and
//! 1.4 % of the CPU time at -j1 (benches/README.md).
//!
//! A position is `Undecided` too where chasolver's board cannot hold it:
//! the `chess` crate refuses it, or a Chess960 castling right had to be
//! dropped (above).

use std::time::{Duration, Instant};

use chasolver::{Winnability, is_unwinnable_fast_within, winnability, winnability_within};
use shakmaty::{Bitboard, CastlingSide, Chess, Color, EnPassantMode, Position, Role, Square};

use super::fastsan;
use super::findings::Basis;

/// The helpmate analysis's budget for one game: the positions (nodes) that
/// chasolver's fast checks and full searches may explore, together, for
/// every question the game's audit asks (the final position for each side,
/// the positions searched for the first dead one). At 100 to 350 ns a node,
/// a game's analysis stays within about 50 ms of CPU time whatever the
/// game; a question the budget leaves open is `Undecided` (no row, counted
/// in summary.json). chasolver's own node limit is 2^24 for its last phase
/// alone; CHA's test vectors need up to about 5 M nodes of its search for a
/// side that cannot mate (pawn races, docs/reports.md).
pub const GAME_NODES: u64 = 200_000;

/// The most nodes one full search explores: half the game's budget, so
/// that a side whose search runs out leaves the other side of the same
/// position its own search (a helpmate found for it settles that the
/// position is not dead).
const QUESTION_NODES: u64 = GAME_NODES / 2;

/// The most nodes one fast check explores: its depth-15 search of a locked
/// pawn structure can take seconds where it fails. Where it runs out, the
/// full search is asked, within what is left of [`GAME_NODES`].
const FAST_NODES: u64 = 20_000;

/// The most entries of the full search's transposition tables: about 120
/// bytes each, so at most about 8 MiB a thread with the table's spare room.
const TABLE_ENTRIES: usize = 1 << 15;

/// What the analysis says about one side's chance to mate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mating {
    /// Proven: no series of legal moves lets the side mate.
    Impossible(Basis),
    /// Proven: chasolver's full search found a helpmate by the side.
    Possible,
    /// Neither the fast check nor the material proves it impossible, and
    /// the full search is not asked (see [`worth_a_search`]): taken as
    /// able to mate, no row.
    NotProven,
    /// chasolver's full search gave up at its node limit, its board cannot
    /// hold the position, or its proof would not stand in it (a dropped
    /// Chess960 castling right).
    Undecided,
}

impl Mating {
    /// Whether the side is proven or taken as able to mate: no row can
    /// come of it.
    pub(crate) fn can(self) -> bool {
        matches!(self, Mating::Possible | Mating::NotProven)
    }
}

/// A side's verdict so far: settled by the material or the fast check, or
/// open, waiting for chasolver's full search (the costly step, asked last
/// and only where its answer can make a row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing more will be asked.
    Settled(Mating),
    /// The fast check failed where the full search is worth asking: the
    /// position as chasolver's board seen from White (see [`board_for`]),
    /// and whether a castling right was dropped for it.
    Open(chess::Board, bool),
}

/// Whether a position is dead (5.2.2): neither side can mate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Deadness {
    /// Proven dead, on this basis.
    Dead(Basis),
    /// Some side can mate, or it could not be proven that neither can.
    Alive,
    /// A side's analysis was undecided and the other side cannot mate (or
    /// is undecided too).
    Undecided,
}

/// The helpmate analysis of one game: its budget ([`GAME_NODES`]), and the
/// time it took, from its first call to chasolver to its end (one clock
/// reading a game, not one a call).
#[derive(Debug)]
pub(crate) struct Analyst {
    /// When the game's first position was copied for chasolver.
    started: Option<Instant>,
    /// The time of the analysis, once stopped.
    spent: Duration,
    /// The full search is asked wherever the fast check fails, not only in
    /// a locked structure: for the positions of a game that ends dead,
    /// searched back from its end (`first_dead`), where the cost falls on
    /// the rare game and a miss would move the first dead position.
    pub(crate) thorough: bool,
    /// The nodes left of the game's budget.
    left: u64,
}

impl Default for Analyst {
    fn default() -> Self {
        Analyst {
            started: None,
            spent: Duration::ZERO,
            thorough: false,
            left: GAME_NODES,
        }
    }
}

impl Analyst {
    /// Ends the analysis: the time from its first call to chasolver until
    /// now is added to [`Analyst::spent`].
    pub(crate) fn stop(&mut self) {
        if let Some(started) = self.started.take() {
            self.spent += started.elapsed();
        }
    }

    /// The time spent in chasolver and in copying positions for it, from
    /// the first call to the end of the analysis.
    pub(crate) fn spent(&self) -> Duration {
        self.spent
    }

    /// Whether `side` can mate in `pos` by any series of legal moves, as far
    /// as the material and the fast check say ([`Analyst::settle`] runs the
    /// full search where this leaves it open).
    ///
    /// The material alone decides it where neither side can mate by it
    /// (`is_insufficient_material`), where the side has nothing but its
    /// king, or where its material is insufficient and the other side has
    /// nothing but its king. Elsewhere shakmaty's one-sided test is not the
    /// Laws' (two bishops on one colour mate a king boxed in by its own
    /// rooks), so the analysis decides.
    pub(crate) fn verdict(&mut self, pos: &Chess, side: Color) -> Verdict {
        let board = pos.board();
        let bare = |color: Color| board.by_color(color) == board.kings() & board.by_color(color);
        if pos.is_insufficient_material()
            || bare(side)
            || (bare(!side) && pos.has_insufficient_material(side))
        {
            return Verdict::Settled(Mating::Impossible(Basis::InsufficientMaterial));
        }
        self.started.get_or_insert_with(Instant::now);
        let fails = fast_check_fails(pos, side);
        let search = self.thorough || worth_a_search(pos, side);
        if fails && !search {
            return Verdict::Settled(Mating::NotProven);
        }
        let Some((chess, dropped)) = board_for(pos, side) else {
            return Verdict::Settled(Mating::Undecided);
        };
        // A fast check cut short by its budget proves nothing either way:
        // the full search decides.
        let mut cut = false;
        if !fails {
            let given = self.left.min(FAST_NODES);
            let (unable, nodes) = is_unwinnable_fast_within(&chess, chess::Color::White, given);
            self.left = self.left.saturating_sub(nodes);
            if unable {
                // A proof without a dropped castling right is no proof with it.
                return Verdict::Settled(if dropped {
                    Mating::Undecided
                } else {
                    Mating::Impossible(Basis::HelpmateAnalysis)
                });
            }
            cut = nodes > given;
        }
        if search || cut {
            Verdict::Open(chess, dropped)
        } else {
            Verdict::Settled(Mating::NotProven)
        }
    }

    /// A side's `verdict`, with chasolver's full search run where it is
    /// open: a helpmate found is `Possible` (found without a dropped
    /// castling right, it is a helpmate with it too), a proof that none
    /// exists `Impossible` (or `Undecided` where a right was dropped), and
    /// the node limit reached `Undecided`.
    pub(crate) fn settle(&mut self, verdict: Verdict) -> Mating {
        let (board, dropped) = match verdict {
            Verdict::Settled(mating) => return mating,
            Verdict::Open(board, dropped) => (board, dropped),
        };
        let given = self.left.min(QUESTION_NODES);
        let (found, nodes) = winnability_within(&board, chess::Color::White, given, TABLE_ENTRIES);
        self.left = self.left.saturating_sub(nodes);
        match found {
            Some(Winnability::Winnable { .. }) => Mating::Possible,
            Some(Winnability::Unwinnable) if !dropped => {
                Mating::Impossible(Basis::HelpmateAnalysis)
            }
            Some(Winnability::Unwinnable) | None => Mating::Undecided,
        }
    }

    /// Whether `pos` is dead, asking `first` first (the side most likely
    /// to be able to mate); `known` is `first`'s verdict where it was asked
    /// already. Both sides' cheap verdicts come before either full search:
    /// a position where a side is taken as able is alive whatever the
    /// other's search would say, so neither is searched.
    pub(crate) fn deadness(
        &mut self,
        pos: &Chess,
        first: Color,
        known: Option<Verdict>,
    ) -> Deadness {
        if pos.is_insufficient_material() {
            return Deadness::Dead(Basis::InsufficientMaterial);
        }
        let able = |v: Verdict| matches!(v, Verdict::Settled(m) if m.can());
        let a = known.unwrap_or_else(|| self.verdict(pos, first));
        if able(a) {
            return Deadness::Alive;
        }
        let b = self.verdict(pos, !first);
        if able(b) {
            return Deadness::Alive;
        }
        let a = self.settle(a);
        if a.can() {
            return Deadness::Alive;
        }
        match (a, self.settle(b)) {
            (_, b) if b.can() => Deadness::Alive,
            (Mating::Impossible(_), Mating::Impossible(_)) => {
                Deadness::Dead(Basis::HelpmateAnalysis)
            }
            _ => Deadness::Undecided,
        }
    }
}

/// What chasolver's full search says of a side, where the audit asks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FullSearch {
    /// The audit does not ask it: the material or the fast check settles
    /// the side, or the position stands outside the filters.
    NotAsked,
    /// A helpmate by the side, as moves in UCI (`e2e4`, `e7e8q`), from
    /// the position as given: the side can mate.
    Helpmate(Vec<String>),
    /// Proven: no series of legal moves lets the side mate.
    NoHelpmate,
    /// The search gave up at its node limit, or its answer would not stand
    /// in the position (a dropped Chess960 castling right): undecided.
    Undecided,
}

/// chasolver's full search for `side` in `pos`, where the audit asks it,
/// with the helpmate it finds: for cross-checks of the verdicts the audit
/// takes from it (the audit itself keeps no line).
pub fn full_search(pos: &Chess, side: Color) -> FullSearch {
    let Verdict::Open(_, dropped) = Analyst::default().verdict(pos, side) else {
        return FullSearch::NotAsked;
    };
    // The board as it stands, for a helpmate in its own squares.
    let Some((board, _)) = board_of(pos, false) else {
        return FullSearch::Undecided;
    };
    match winnability(&board, color_of(side)) {
        Some(Winnability::Winnable { helpmate }) => {
            FullSearch::Helpmate(helpmate.iter().map(ToString::to_string).collect())
        }
        Some(Winnability::Unwinnable) if !dropped => FullSearch::NoHelpmate,
        Some(Winnability::Unwinnable) | None => FullSearch::Undecided,
    }
}

/// Whether chasolver's fast check is sure to fail (return `false`) for
/// `side` in `pos`, worked out on shakmaty's board, whose attack tables
/// the replay keeps in cache, instead of asking chasolver on the `chess`
/// crate's board (a call's cost is mostly cache misses: benches/README.md,
/// issue 24). `false` where it is not sure: chasolver is asked.
///
/// It follows the fast check of chasolver 3.0.0 (pinned in Cargo.toml;
/// `winnability/fast.rs`), seen from `side`:
/// - its first phase plays the moves of a position with one legal move, up
///   to 16 of them, and stops where a position repeats: here the same line
///   is played (see [`unforced`]), and a position repeated, a line longer
///   than 16 moves or one that ends without a legal move is left to
///   chasolver; the rest is judged after the line;
/// - its second phase fails where some line of 4 legal plies (7 where only
///   pawns and bishops are on the board) keeps the side's material
///   sufficient by chasolver's measure ([`insufficient_for`]) at every
///   position and ends in a position with a legal move. Whether such a
///   line exists does not depend on the order chasolver tries the moves
///   in, so any line settles it; [`shuffle`] finds one of any length;
/// - every later phase needs `side`'s pawns blocked by an enemy pawn or
///   king to number at least half of all pawns less two (and at least
///   one), and either only pawns and bishops beside the kings or no pawn
///   "lonely" (chasolver's `has_lonely_pawns`: the files of the White
///   pawns off the seventh rank and of the Black pawns off the second
///   differ), so none runs where either is not so.
///
/// A castling right that [`board_of`] drops changes the legal moves on
/// chasolver's board, so a position with one is left to chasolver. The
/// unit test `the_fast_check_fails_where_foreseen` compares this with the
/// crate on all its test positions, both sides, both ways.
fn fast_check_fails(pos: &Chess, side: Color) -> bool {
    if any_right_dropped(pos) {
        return false;
    }
    let Some(pos) = unforced(pos) else {
        return false;
    };
    let board = pos.board();
    let pawns = board.pawns();
    let (own, enemy) = (board.by_color(side), board.by_color(!side));
    let forward = if side == Color::White { 8 } else { -8 };
    let blocked = ((pawns & own).shift(forward) & (pawns | board.kings()) & enemy).count();
    let needed = (pawns.count() / 2).saturating_sub(2).max(1);
    let pieces = board.knights() | board.rooks_and_queens();
    let later_phases_skipped = blocked < needed || (pieces.any() && has_lonely_pawns(board));
    later_phases_skipped && !insufficient_for(board, side) && shuffle(&pos)
}

/// The most moves of a forced line chasolver's first phase plays.
const FORCED_MOVES: usize = 16;

/// `pos` after the line of its forced moves (each the one legal move of
/// its position), as chasolver's first phase plays it: `None` where that
/// phase does not stop at a position with at least two legal moves within
/// [`FORCED_MOVES`] moves, or where the line repeats the pieces and the
/// side to move of a position before (chasolver stops at a repeated
/// position and proves the side unable).
fn unforced(pos: &Chess) -> Option<std::borrow::Cow<'_, Chess>> {
    // Two quiet piece moves are two legal moves: most positions.
    if quiet_moves(pos).nth(1).is_some() {
        return Some(std::borrow::Cow::Borrowed(pos));
    }
    let moves = pos.legal_moves();
    if moves.len() >= 2 {
        return Some(std::borrow::Cow::Borrowed(pos));
    }
    let placed = |p: &Chess| (p.board().clone(), p.turn());
    let mut seen = vec![placed(pos)];
    let mut at = pos.clone();
    let mut moves = moves;
    for _ in 0..FORCED_MOVES {
        let [only] = moves.as_slice() else {
            break;
        };
        at.play_unchecked(*only);
        let now = placed(&at);
        if seen.contains(&now) {
            return None;
        }
        seen.push(now);
        moves = at.legal_moves();
    }
    (moves.len() >= 2).then_some(std::borrow::Cow::Owned(at))
}

/// chasolver's `has_lonely_pawns`: whether the files of the White pawns
/// off the seventh rank differ from those of the Black pawns off the
/// second (the same seen from either side).
fn has_lonely_pawns(board: &shakmaty::Board) -> bool {
    let files = |pawns: Bitboard| {
        pawns
            .into_iter()
            .fold(0u8, |set, sq| set | 1 << u32::from(sq.file()))
    };
    let white = board.pawns() & board.white() & !Bitboard::from_rank(shakmaty::Rank::Seventh);
    let black = board.pawns() & board.black() & !Bitboard::from_rank(shakmaty::Rank::Second);
    files(white) != files(black)
}

/// At most how many moves, and replies to each, [`cycle`] tries.
const SHUFFLE_TRIES: usize = 4;

/// Whether `pos`, which has at least two legal moves, has a line of any
/// length that changes no material: a [`cycle`] at once, or after one
/// quiet move (out of check, say). Each position on the line has the
/// pieces of one of its first five, where the line's next move is legal
/// (castling rights and en passant, which the line may lose, do not make a
/// piece's move legal or not), and the material of the first, sufficient
/// wherever it is at the start.
fn shuffle(pos: &Chess) -> bool {
    if !pos.is_check() && cycle(pos) {
        return true;
    }
    quiet_moves(pos).take(SHUFFLE_TRIES).any(|first| {
        let mut after = pos.clone();
        after.play_unchecked(first);
        cycle(&after)
    })
}

/// Whether `pos` has a cycle of four quiet moves: a quiet move by a piece
/// (no pawn, no capture, no castle), a quiet reply by a piece, and both
/// moves back, each legal in turn; the pieces then stand as in `pos`.
fn cycle(pos: &Chess) -> bool {
    for first in quiet_moves(pos).take(SHUFFLE_TRIES) {
        let mut after = pos.clone();
        after.play_unchecked(first);
        for reply in quiet_moves(&after).take(SHUFFLE_TRIES) {
            let mut then = after.clone();
            then.play_unchecked(reply);
            let (undo, unreply) = (back(&first), back(&reply));
            if is_legal_quiet(&then, undo) {
                then.play_unchecked(undo);
                if is_legal_quiet(&then, unreply) {
                    return true;
                }
            }
        }
    }
    false
}

/// The legal quiet moves by a piece (no pawn, no capture, no castle) of
/// the side to move, by square of departure and of arrival, found on the
/// bitboards (no list of every legal move).
fn quiet_moves(pos: &Chess) -> QuietMoves<'_> {
    let board = pos.board();
    let king = board.king_of(pos.turn());
    QuietMoves {
        pos,
        king: king.unwrap_or(Square::A1),
        in_check: pos.is_check(),
        pieces: if king.is_some() {
            pos.us() & !board.pawns()
        } else {
            Bitboard::EMPTY
        },
        from: Square::A1,
        role: Role::King,
        targets: Bitboard::EMPTY,
    }
}

/// The iterator of [`quiet_moves`]: the piece on `from` (of `role`) and the
/// empty squares it attacks and has not yet tried, then the pieces left.
struct QuietMoves<'a> {
    pos: &'a Chess,
    king: Square,
    in_check: bool,
    pieces: Bitboard,
    from: Square,
    role: Role,
    targets: Bitboard,
}

impl Iterator for QuietMoves<'_> {
    type Item = shakmaty::Move;

    fn next(&mut self) -> Option<shakmaty::Move> {
        loop {
            while let Some(to) = self.targets.pop_front() {
                let (pos, role, from) = (self.pos, self.role, self.from);
                if fastsan::keeps_king_safe(pos, self.king, role, from, to, self.in_check) {
                    return Some(shakmaty::Move::Normal {
                        role,
                        from,
                        capture: None,
                        to,
                        promotion: None,
                    });
                }
            }
            self.from = self.pieces.pop_front()?;
            let board = self.pos.board();
            self.role = board.role_at(self.from)?;
            let occupied = board.occupied();
            self.targets =
                shakmaty::attacks::attacks(self.from, self.role.of(self.pos.turn()), occupied)
                    & !occupied;
        }
    }
}

/// Whether the quiet move `m` (a `Move::Normal` by a piece) is legal in
/// `pos`.
fn is_legal_quiet(pos: &Chess, m: shakmaty::Move) -> bool {
    match m {
        shakmaty::Move::Normal { role, from, to, .. } => {
            fastsan::quiet_move_is_legal(pos, role, from, to)
        }
        _ => false,
    }
}

/// The quiet move `m` played back.
fn back(m: &shakmaty::Move) -> shakmaty::Move {
    match *m {
        shakmaty::Move::Normal { role, from, to, .. } => shakmaty::Move::Normal {
            role,
            from: to,
            capture: None,
            to: from,
            promotion: None,
        },
        other => other,
    }
}

/// chasolver's `insufficient_white_material`, for `side`: the side has its
/// king alone; or a king and a knight against nothing but a king and
/// queens; or a king and bishops, every bishop on the board on the squares
/// of the side's (the colour of one of them where they stand on both, as
/// chasolver picks it), and no knight and no pawn on the board.
fn insufficient_for(board: &shakmaty::Board, side: Color) -> bool {
    let own = board.by_color(side);
    let enemy = board.by_color(!side);
    if own.count() == 1 {
        return true;
    }
    let minors = board.knights() | board.bishops();
    if own.count() == 2
        && (own & board.knights()).any()
        && (enemy & (minors | board.rooks() | board.pawns())).is_empty()
    {
        return true;
    }
    let bishops = own & board.bishops();
    if bishops.any() {
        let squares = if (bishops & Bitboard::DARK_SQUARES).any() {
            Bitboard::DARK_SQUARES
        } else {
            Bitboard::LIGHT_SQUARES
        };
        if own.count() == bishops.count() + 1
            && (board.bishops() & !squares).is_empty()
            && board.knights().is_empty()
            && board.pawns().is_empty()
        {
            return true;
        }
    }
    false
}

/// Whether [`board_of`] drops a castling right of `pos`.
fn any_right_dropped(pos: &Chess) -> bool {
    !pos.castles().is_empty()
        && Color::ALL.into_iter().any(|side| {
            right(pos, side, CastlingSide::KingSide).1
                || right(pos, side, CastlingSide::QueenSide).1
        })
}

/// The white pawns that an enemy pawn blocks (stands right in front of).
fn blocked_pawns(pos: &Chess) -> Bitboard {
    let board = pos.board();
    let white = board.pawns() & board.white();
    let black = board.pawns() & board.black();
    (white.shift(8) & black).shift(-8)
}

/// Whether chasolver's full search is asked about `side` where the fast
/// check failed: a locked structure, that is at least two pairs of pawns
/// blocking each other where the side has no queen and no rook, at least
/// four pairs whatever it has, or one pair where no pawn on the board can
/// move (a bare king behind a pawn stack, a rook shut in by its own
/// pawns). See the module doc for the measured reasons.
fn worth_a_search(pos: &Chess, side: Color) -> bool {
    let board = pos.board();
    let heavy = board.rooks_and_queens() & board.by_color(side);
    let walls = blocked_pawns(pos).count();
    (heavy.is_empty() && walls >= 2)
        || walls >= 4
        || (walls >= 1 && board.pawns().count() >= 4 && pawns_frozen(board))
}

/// Whether no pawn on `board` can move: each one's square ahead is taken
/// and it has nothing to capture (en passant aside, which needs a pawn
/// that just moved, so a mobile one).
fn pawns_frozen(board: &shakmaty::Board) -> bool {
    let occupied = board.occupied();
    board.pawns().into_iter().all(|sq| {
        let Some(color) = board.color_at(sq) else {
            return false;
        };
        let ahead = match color {
            Color::White => sq.offset(8),
            Color::Black => sq.offset(-8),
        };
        ahead.is_none_or(|a| occupied.contains(a))
            && (shakmaty::attacks::pawn_attacks(color, sq) & board.by_color(!color)).is_empty()
    })
}

/// The chasolver colour of a side.
fn color_of(side: Color) -> chess::Color {
    match side {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    }
}

/// `pos` as chasolver's fast check and full search see it for `side`, to
/// be asked for White: as it stands for White; for Black mirrored (ranks
/// reversed, colours swapped, with the side to move and the castling
/// rights), as chasolver mirrors a Black question itself, built here in one
/// step instead of two boards. Whether a castling right was dropped, and
/// `None` where the `chess` crate refuses the position.
fn board_for(pos: &Chess, side: Color) -> Option<(chess::Board, bool)> {
    board_of(pos, side == Color::Black)
}

/// `pos` as a `chess` board, `mirrored` or not (see [`board_for`]), and
/// whether a castling right was dropped (a Chess960 right it cannot hold);
/// `None` where that crate refuses the position.
fn board_of(pos: &Chess, mirrored: bool) -> Option<(chess::Board, bool)> {
    let board = pos.board();
    // A colour as it stands on the built board.
    let seen = |color: Color| color_of(if mirrored { !color } else { color });
    let mut builder = chess::BoardBuilder::new();
    for (role, piece) in [
        (Role::Pawn, chess::Piece::Pawn),
        (Role::Knight, chess::Piece::Knight),
        (Role::Bishop, chess::Piece::Bishop),
        (Role::Rook, chess::Piece::Rook),
        (Role::Queen, chess::Piece::Queen),
        (Role::King, chess::Piece::King),
    ] {
        for color in Color::ALL {
            for square in board.by_piece(role.of(color)) {
                let square = if mirrored {
                    square.flip_vertical()
                } else {
                    square
                };
                builder.piece(chess::ALL_SQUARES[usize::from(square)], piece, seen(color));
            }
        }
    }
    builder.side_to_move(seen(pos.turn()));
    let mut dropped = false;
    for side in Color::ALL {
        let (kingside, k_dropped) = right(pos, side, CastlingSide::KingSide);
        let (queenside, q_dropped) = right(pos, side, CastlingSide::QueenSide);
        dropped |= k_dropped || q_dropped;
        let rights = match (kingside, queenside) {
            (true, true) => chess::CastleRights::Both,
            (true, false) => chess::CastleRights::KingSide,
            (false, true) => chess::CastleRights::QueenSide,
            (false, false) => chess::CastleRights::NoRights,
        };
        builder.castle_rights(seen(side), rights);
    }
    let ep = pos
        .ep_square(EnPassantMode::Legal)
        .map(|sq| chess::File::from_index(usize::from(sq.file())));
    builder.en_passant(ep);
    chess::Board::try_from(builder)
        .ok()
        .map(|board| (board, dropped))
}

/// Whether `side` keeps its right to castle towards `wing` on the `chess`
/// board, and whether the right was dropped: kept where the king stands
/// on the e-file and the rook in the corner of its back rank, as in
/// standard chess (a Chess960 castle from there is the standard one).
fn right(pos: &Chess, side: Color, wing: CastlingSide) -> (bool, bool) {
    let Some(rook) = pos.castles().rook(side, wing) else {
        return (false, false);
    };
    let (king_home, rook_home) = match (side, wing) {
        (Color::White, CastlingSide::KingSide) => (Square::E1, Square::H1),
        (Color::White, CastlingSide::QueenSide) => (Square::E1, Square::A1),
        (Color::Black, CastlingSide::KingSide) => (Square::E8, Square::H8),
        (Color::Black, CastlingSide::QueenSide) => (Square::E8, Square::A8),
    };
    let standard = rook == rook_home && pos.board().king_of(side) == Some(king_home);
    (standard, !standard)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chasolver::is_unwinnable_fast;
    use shakmaty::{CastlingMode, FromSetup, Move, fen::Fen};

    fn position(fen: &str, mode: CastlingMode) -> Chess {
        Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(mode)
            .unwrap()
    }

    #[test]
    fn the_board_copied_for_chasolver_is_the_position() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq d6 0 2",
            "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 60",
        ] {
            let pos = position(fen, CastlingMode::Standard);
            let (board, dropped) = board_of(&pos, false).unwrap();
            assert!(!dropped);
            assert_eq!(board, fen.parse::<chess::Board>().unwrap(), "{fen}");
        }
    }

    #[test]
    fn a_chess960_right_from_another_square_is_dropped() {
        let pos = position(
            "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
            CastlingMode::Chess960,
        );
        let (board, dropped) = board_of(&pos, false).unwrap();
        assert!(dropped);
        assert_eq!(
            board.castle_rights(chess::Color::White),
            chess::CastleRights::NoRights
        );
        let pos = position(
            "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
            CastlingMode::Chess960,
        );
        let (board, dropped) = board_of(&pos, false).unwrap();
        assert!(!dropped);
        assert_eq!(
            board.castle_rights(chess::Color::Black),
            chess::CastleRights::Both
        );
    }

    /// chasolver's own test files (they ship with the crate), in its
    /// vendored copy.
    fn crate_file(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../chasolver/tests")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// How the sides of a file of chasolver's test positions fare through
    /// [`Analyst::verdict`] and [`Analyst::settle`].
    #[derive(Debug, Default, PartialEq, Eq)]
    struct Tally {
        /// Sides the crate classifies as unable to mate.
        cannot: usize,
        /// Of those, the ones proven unable by the material or the fast
        /// check.
        by_fast_check: usize,
        /// Of those, the ones proven unable by the full search.
        by_full_search: usize,
        /// Of those, the ones the full search gave up on (its node limit).
        undecided: usize,
        /// Sides the crate classifies as able to mate that the full search
        /// would be asked about.
        searched_able: usize,
        /// Positions shakmaty refuses.
        refused: usize,
    }

    /// Each side of each position of `text` (`W-`, `-B`, `WB` or `--`,
    /// then a FEN) through the analysis, split over two threads. A
    /// side able to mate is never proven unable, and never undecided.
    fn classify(text: &str) -> Tally {
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .collect();
        let halves = lines.split_at(lines.len() / 2);
        let tallies = std::thread::scope(|scope| {
            [halves.0, halves.1]
                .map(|half| scope.spawn(move || classify_lines(half)))
                .map(|t| t.join().unwrap())
        });
        let [a, b] = tallies;
        Tally {
            cannot: a.cannot + b.cannot,
            by_fast_check: a.by_fast_check + b.by_fast_check,
            by_full_search: a.by_full_search + b.by_full_search,
            undecided: a.undecided + b.undecided,
            searched_able: a.searched_able + b.searched_able,
            refused: a.refused + b.refused,
        }
    }

    fn classify_lines(lines: &[&str]) -> Tally {
        let mut tally = Tally::default();
        for line in lines {
            let (class, fen) = line.split_at(2);
            let setup = Fen::from_ascii(fen.trim().as_bytes()).unwrap().into_setup();
            let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard)
                .or_else(shakmaty::PositionError::ignore_too_much_material)
            else {
                tally.refused += 1;
                continue;
            };
            for (side, letter) in [(Color::White, b'W'), (Color::Black, b'B')] {
                // Each side with the budget of a game of its own.
                let mut analyst = Analyst::default();
                let can = class.as_bytes()[usize::from(side == Color::Black)] == letter;
                let verdict = analyst.verdict(&pos, side);
                let searched = matches!(verdict, Verdict::Open(..));
                if can {
                    // Not searched here: chasolver's own tests check that
                    // its full search finds their helpmates, and it takes
                    // minutes.
                    assert!(
                        searched || verdict == Verdict::Settled(Mating::NotProven),
                        "{line}: {side:?} can mate, but {verdict:?}"
                    );
                    tally.searched_able += usize::from(searched);
                    continue;
                }
                let verdict = analyst.settle(verdict);
                tally.cannot += 1;
                match verdict {
                    Mating::Impossible(_) if searched => tally.by_full_search += 1,
                    Mating::Impossible(_) => tally.by_fast_check += 1,
                    Mating::Undecided => tally.undecided += 1,
                    Mating::Possible => panic!("{line}: {side:?} cannot mate, but {verdict:?}"),
                    Mating::NotProven => {}
                }
            }
        }
        tally
    }

    /// chasolver's own mirroring of a Black question (its `mirror_board`,
    /// which is private), written out with the `chess` crate's public API.
    fn mirror_board(board: &chess::Board) -> chess::Board {
        let mut builder = chess::BoardBuilder::new();
        for piece in chess::ALL_PIECES {
            for color in [chess::Color::White, chess::Color::Black] {
                let on = *board.pieces(piece) & *board.color_combined(color);
                for square in on.reverse_colors() {
                    builder.piece(square, piece, !color);
                }
            }
        }
        builder.side_to_move(!board.side_to_move());
        builder.castle_rights(
            chess::Color::White,
            board.castle_rights(chess::Color::Black),
        );
        builder.castle_rights(
            chess::Color::Black,
            board.castle_rights(chess::Color::White),
        );
        if let Some(ep_square) = board.en_passant() {
            builder.en_passant(Some(ep_square.get_file()));
        }
        chess::Board::try_from(builder).unwrap()
    }

    /// Each position of the crate's test file `name` that shakmaty
    /// accepts, and its mirror image, with its line: both ways.
    fn each_both_ways(name: &str, mut visit: impl FnMut(&str, &Chess)) {
        for line in crate_file(name).lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let setup = Fen::from_ascii(line[2..].trim().as_bytes())
                .unwrap()
                .into_setup();
            let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard)
                .or_else(shakmaty::PositionError::ignore_too_much_material)
            else {
                continue;
            };
            let flipped = pos.to_setup(EnPassantMode::Legal).into_mirrored();
            let flipped = Chess::from_setup(flipped, CastlingMode::Standard)
                .or_else(shakmaty::PositionError::ignore_too_much_material)
                .unwrap();
            visit(line, &pos);
            visit(line, &flipped);
        }
    }

    /// Beyond the crate's own positions: 12 random legal plies played from
    /// each of them (and its mirror image), and wherever
    /// [`fast_check_fails`] foresees a failure on the way, chasolver's fast
    /// check fails, for both sides. The generator is seeded, so the count
    /// of questions foreseen is fixed.
    #[test]
    fn the_foresight_holds_after_random_plies() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut foreseen = 0usize;
        for name in ["lichess.txt", "positions.txt"] {
            each_both_ways(name, |line, start| {
                let mut pos = start.clone();
                for _ in 0..12 {
                    let moves = pos.legal_moves();
                    let Some(&m) =
                        moves.get(usize::try_from(random()).unwrap() % moves.len().max(1))
                    else {
                        break;
                    };
                    pos.play_unchecked(m);
                    for side in Color::ALL {
                        if fast_check_fails(&pos, side) {
                            foreseen += 1;
                            let (board, _) = board_of(&pos, false).unwrap();
                            assert!(
                                !is_unwinnable_fast(&board, color_of(side)),
                                "{line}: {side:?} after {}",
                                Fen::from_position(&pos, EnPassantMode::Legal)
                            );
                        }
                    }
                }
            });
        }
        assert_eq!(foreseen, 2_964_883);
    }

    /// The quiet piece moves the shuffle plays are the legal ones, as
    /// shakmaty lists them, and `quiet_move_is_legal` is shakmaty's
    /// `is_legal` for every piece move to an empty square, on every
    /// position of the crate's test files both ways, and one more ply down.
    #[test]
    fn quiet_moves_are_shakmatys() {
        let mut checked = 0usize;
        let mut compare = |pos: &Chess| {
            let quiet_legal: Vec<Move> = pos
                .legal_moves()
                .into_iter()
                .filter(|m| {
                    matches!(m, Move::Normal { role, capture: None, .. } if *role != Role::Pawn)
                })
                .collect();
            let mut ours: Vec<Move> = quiet_moves(pos).collect();
            let mut theirs = quiet_legal.clone();
            ours.sort_by_key(|m| (m.from(), m.to()));
            theirs.sort_by_key(|m| (m.from(), m.to()));
            assert_eq!(
                ours,
                theirs,
                "{}",
                Fen::from_position(pos, EnPassantMode::Legal)
            );
            let board = pos.board();
            for from in pos.us() & !board.pawns() {
                for to in !board.occupied() {
                    for role in Role::ALL {
                        let m = Move::Normal {
                            role,
                            from,
                            capture: None,
                            to,
                            promotion: None,
                        };
                        assert_eq!(
                            fastsan::quiet_move_is_legal(pos, role, from, to),
                            role != Role::Pawn && pos.is_legal(m),
                            "{m:?} in {}",
                            Fen::from_position(pos, EnPassantMode::Legal)
                        );
                        checked += 1;
                    }
                }
            }
            quiet_legal
        };
        for name in ["lichess.txt", "positions.txt"] {
            each_both_ways(name, |_, pos| {
                for m in compare(pos).into_iter().take(2) {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    compare(&after);
                }
            });
        }
        assert!(checked > 1_000_000, "{checked}");
    }

    /// The board built mirrored for a Black question is the board
    /// chasolver mirrors itself, and its fast check for White answers as
    /// chasolver's for Black on the board as it stands, on every position
    /// of the crate's test files, both ways (the position and its mirror
    /// image).
    #[test]
    fn the_mirrored_board_asks_the_same_question() {
        let mut asked = 0;
        for name in ["lichess.txt", "positions.txt"] {
            each_both_ways(name, |line, pos| {
                let Some((board, _)) = board_of(pos, false) else {
                    assert!(board_of(pos, true).is_none(), "{line}");
                    return;
                };
                let (mirrored, _) = board_for(pos, Color::Black).unwrap();
                assert_eq!(mirrored, mirror_board(&board), "{line}");
                assert_eq!(
                    is_unwinnable_fast(&mirrored, chess::Color::White),
                    is_unwinnable_fast(&board, chess::Color::Black),
                    "{line}"
                );
                asked += 1;
            });
        }
        // Every position of both files but the three shakmaty refuses.
        assert_eq!(asked, 2 * (65_536 + 3_411));
    }

    /// Wherever [`fast_check_fails`] foresees that chasolver's fast check
    /// fails, it does: on every position of the crate's test files and
    /// its mirror image, for both sides. The count says how many of those
    /// questions it settles without chasolver.
    #[test]
    fn the_fast_check_fails_where_foreseen() {
        let mut foreseen = [0usize; 2];
        for (k, name) in ["lichess.txt", "positions.txt"].into_iter().enumerate() {
            each_both_ways(name, |line, pos| {
                for side in Color::ALL {
                    if fast_check_fails(pos, side) {
                        let (board, _) = board_of(pos, false).unwrap();
                        assert!(
                            !is_unwinnable_fast(&board, color_of(side)),
                            "{line}: {side:?}"
                        );
                        foreseen[k] += 1;
                    }
                }
            });
        }
        assert_eq!(foreseen, [247_074, 4_306]);
    }

    /// The crate's positions from Lichess games: every side it says cannot
    /// mate is proven so by the fast check, every side it says can mate is
    /// not; 3,688 of the latter stand in a locked structure where the full
    /// search would be asked (it finds their helpmates in the crate's own
    /// tests).
    #[test]
    fn chasolvers_lichess_positions_keep_their_classification() {
        let tally = Tally {
            cannot: 2410,
            by_fast_check: 2410,
            by_full_search: 0,
            undecided: 0,
            searched_able: 3858,
            refused: 0,
        };
        assert_eq!(classify(&crate_file("lichess.txt")), tally);
    }

    /// The crate's constructed positions (queries to its analyzer), each
    /// side with a game's budget: no side able to mate is proven unable.
    /// Of the 2,876 sides unable to mate, the fast check proves 2,328
    /// (5 more need more than its budget, and go to the full search), the
    /// full search 318, and 47 need more than the budget ([`GAME_NODES`]):
    /// undecided; the other 183 stand outside [`worth_a_search`] and are
    /// taken as able to mate, as the module doc says. Three positions
    /// shakmaty refuses (too much material).
    #[test]
    fn chasolvers_constructed_positions_are_never_misjudged() {
        let tally = Tally {
            cannot: 2876,
            by_fast_check: 2328,
            by_full_search: 318,
            undecided: 47,
            searched_able: 1555,
            refused: 3,
        };
        assert_eq!(classify(&crate_file("positions.txt")), tally);
    }
}
