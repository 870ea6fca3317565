//! The castling audit (FIDE Laws 3.8.2 and Guidelines II.3 for Chess960).
//!
//! [`CastlingHistory`] follows, for each side, the king and the two rooks
//! that castling may use, from the start position on: when each first left
//! its square, whether it came back, and when a rook was captured.
//! [`judge_castle`] finds every rule a castle breaks, as typed [`Breach`]es,
//! and how the castle is played as written (king to the g- or c-file, rook
//! to the f- or d-file), or why it cannot be played at all. The sentences
//! for a person are written from these facts in `audit/explain.rs`.

use std::sync::LazyLock;

use shakmaty::{
    Bitboard, Board, ByCastlingSide, ByColor, CastlingMode, CastlingSide, Chess, Color, File, Move,
    Position, Role, Square, san::San,
};

use super::findings::{CastlingReason, Reasons, fen_of};
use super::geometry::{Castle, beyond, geometry, is_clear};
use super::start::Start;

/// A move of the game, kept as its ply; named the way a reader finds it
/// (`14.Kf1`, `14...Kf8`) only when a castling row shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// The move's ply, counted from 1.
    pub ply: u32,
    /// The move was a castle (which moves king and rook, even one that stays).
    pub castle: bool,
}

impl Event {
    fn at(ply: u32) -> Event {
        Event { ply, castle: false }
    }
}

/// The king of one side.
#[derive(Debug, Clone, Default)]
struct KingTrack {
    /// The king's start square, where castling needs it.
    home: Option<Square>,
    /// The move with which it first left `home` (or first castled).
    left: Option<Event>,
    /// The latest move that brought it back to `home`, while it stands there.
    back: Option<Event>,
}

/// The rook that starts on one side's rook square.
#[derive(Debug, Clone, Default)]
struct RookTrack {
    /// This side's rook square.
    home: Option<Square>,
    /// Where that rook stands now (`None`: there was none, or it was captured).
    at: Option<Square>,
    /// The move with which it first left `home` (or castled).
    left: Option<Event>,
    /// The latest move that brought it back to `home`, while it stands there.
    back: Option<Event>,
    /// The move that captured it, and where.
    captured: Option<(Event, Square)>,
}

/// One colour's castling history.
#[derive(Debug, Clone, Default)]
struct SideTrack {
    king: KingTrack,
    rooks: ByCastlingSide<RookTrack>,
    /// The start position grants the right.
    right_at_start: ByCastlingSide<bool>,
    /// The FEN wrote the right, but it was dropped as impossible (its king
    /// or rook is not where the right needs them).
    right_dropped: ByCastlingSide<bool>,
}

/// Per side, where and when the king and each original rook first moved or
/// were captured (FIDE 3.8.2.1: a moved king or rook loses the right for
/// good, even when it comes back).
#[derive(Debug, Clone)]
pub struct CastlingHistory {
    mode: CastlingMode,
    from_fen: bool,
    sides: ByColor<SideTrack>,
    /// Where the rooks still followed stand: a move from or to one of
    /// these squares changes the history.
    rooks_at: Bitboard,
    /// Both kings' start squares: a king move from or to one of these
    /// changes the history.
    king_homes: Bitboard,
}

/// The rook square of `color` on `side` in the start position.
fn rook_home(
    pos: &Chess,
    mode: CastlingMode,
    color: Color,
    side: CastlingSide,
    king_home: Option<Square>,
) -> Option<Square> {
    let rank = color.backrank();
    if mode == CastlingMode::Standard {
        let file = match side {
            CastlingSide::KingSide => File::H,
            CastlingSide::QueenSide => File::A,
        };
        return Some(Square::from_coords(file, rank));
    }
    let castles = pos.castles();
    if let Some(sq) = castles.rook(color, side) {
        return Some(sq);
    }
    let on_side = |sq: &Square| king_home.is_none_or(|k| beyond(k, side, color).contains(*sq));
    // A withheld right: the file of the other colour's right on that side.
    if let Some(other) = castles.rook(!color, side) {
        let sq = Square::from_coords(other.file(), rank);
        if on_side(&sq) {
            return Some(sq);
        }
    }
    // Otherwise the outermost rook on that side of the king at the start.
    let king = king_home?;
    let rooks = pos.board().rooks() & pos.board().by_color(color) & beyond(king, side, color);
    match side {
        CastlingSide::KingSide => rooks.last(),
        CastlingSide::QueenSide => rooks.first(),
    }
}

/// The sides on which the FEN wrote a right for `color` that was dropped
/// as impossible: `K` kingside, `Q` queenside, and a file letter by the
/// side of the king's file it lies on (e when the king is not on its back
/// rank).
fn dropped_sides(start: &Start, color: Color) -> ByCastlingSide<bool> {
    let king = start
        .position
        .board()
        .king_of(color)
        .filter(|k| k.rank() == color.backrank())
        .map_or(File::E, Square::file);
    let mut sides = ByCastlingSide::new_with(|_| false);
    for &letter in &start.dropped_rights {
        if letter.is_ascii_uppercase() != color.is_white() {
            continue;
        }
        let side = match letter.to_ascii_lowercase() {
            'k' => CastlingSide::KingSide,
            'q' => CastlingSide::QueenSide,
            file => match File::from_char(file) {
                Some(f) if f < king => CastlingSide::QueenSide,
                Some(_) => CastlingSide::KingSide,
                None => continue,
            },
        };
        *sides.get_mut(side) = true;
    }
    sides
}

impl CastlingHistory {
    /// The history at `start`: no king or rook has moved yet.
    pub fn new(start: &Start) -> CastlingHistory {
        // Most games start from the standard array: its history is built
        // once.
        static STANDARD: LazyLock<CastlingHistory> =
            LazyLock::new(|| CastlingHistory::from_start(&Start::standard()));
        if !start.from_fen && start.mode == CastlingMode::Standard {
            debug_assert_eq!(start.position.board(), Chess::default().board());
            return STANDARD.clone();
        }
        CastlingHistory::from_start(start)
    }

    fn from_start(start: &Start) -> CastlingHistory {
        let pos = &start.position;
        let mode = start.mode;
        let sides = ByColor::new_with(|color| {
            let rank = color.backrank();
            let king_home = match mode {
                CastlingMode::Standard => Some(Square::from_coords(File::E, rank)),
                CastlingMode::Chess960 => pos.board().king_of(color).filter(|k| k.rank() == rank),
            };
            let rooks = ByCastlingSide::new_with(|side| {
                let home = rook_home(pos, mode, color, side, king_home);
                RookTrack {
                    home,
                    at: home.filter(|sq| {
                        (pos.board().rooks() & pos.board().by_color(color)).contains(*sq)
                    }),
                    ..RookTrack::default()
                }
            });
            SideTrack {
                king: KingTrack {
                    home: king_home,
                    ..KingTrack::default()
                },
                rooks,
                right_at_start: ByCastlingSide::new_with(|side| pos.castles().has(color, side)),
                right_dropped: dropped_sides(start, color),
            }
        });
        let mut history = CastlingHistory {
            mode,
            from_fen: start.from_fen,
            king_homes: [sides.white.king.home, sides.black.king.home]
                .into_iter()
                .flatten()
                .collect(),
            sides,
            rooks_at: Bitboard(0),
        };
        history.follow_rooks();
        history
    }

    /// Recomputes `rooks_at` after a rook moved or was captured.
    fn follow_rooks(&mut self) {
        let mut rooks_at = Bitboard(0);
        for track in [&self.sides.white, &self.sides.black] {
            for at in [track.rooks.king_side.at, track.rooks.queen_side.at] {
                rooks_at |= at.map_or(Bitboard(0), Bitboard::from_square);
            }
        }
        self.rooks_at = rooks_at;
    }

    /// The castling mode of the game.
    pub fn mode(&self) -> CastlingMode {
        self.mode
    }

    /// Records a legal non-castling move `m` of `ply`, before it is played
    /// on `pos`. Most moves touch no followed rook and are no king move
    /// from or to a king's start square: nothing to do, inline.
    #[inline]
    pub fn record_move(&mut self, pos: &Chess, m: Move, ply: u32) {
        if let Move::Normal { role, from, to, .. } = m {
            let touched = Bitboard::from_square(from) | Bitboard::from_square(to);
            let watched = if role == Role::King {
                self.rooks_at | self.king_homes
            } else {
                self.rooks_at
            };
            if (touched & watched).is_empty() {
                return;
            }
        }
        self.record_move_slow(pos, m, ply);
    }

    #[inline(never)]
    fn record_move_slow(&mut self, pos: &Chess, m: Move, ply: u32) {
        let Move::Normal {
            role,
            from,
            capture,
            to,
            ..
        } = m
        else {
            if m.is_castle() {
                self.record_castle(pos, m, ply);
            }
            // En passant and drops move no king or rook.
            return;
        };
        let color = pos.turn();
        let event = Event::at(ply);
        // Each followed rook is a rook of its own on a square of its own:
        // `rooks_at` loses the square of one captured, then the moved one
        // goes from `from` to `to` (which it may have just captured on).
        if capture.is_some() {
            for side in CastlingSide::ALL {
                let rook = self.sides.get_mut(!color).rooks.get_mut(side);
                if rook.at == Some(to) {
                    rook.at = None;
                    rook.back = None;
                    rook.captured = Some((event, to));
                    self.rooks_at = self.rooks_at.without(to);
                }
            }
        }
        let me = self.sides.get_mut(color);
        if role == Role::King {
            let king = &mut me.king;
            if king.home == Some(from) {
                king.left.get_or_insert(event);
                king.back = None;
            }
            if king.home == Some(to) && king.left.is_some() {
                king.back = Some(event);
            }
        }
        for side in CastlingSide::ALL {
            let rook = me.rooks.get_mut(side);
            if rook.at == Some(from) {
                rook.left.get_or_insert(event);
                rook.back = (rook.home == Some(to)).then_some(event);
                rook.at = Some(to);
                self.rooks_at = self.rooks_at.without(from).with(to);
            }
        }
        debug_assert_eq!(self.rooks_at, {
            let mut all = self.clone();
            all.follow_rooks();
            all.rooks_at
        });
    }

    /// Records a castle `m` (a `Move::Castle`) of `ply`, before it is
    /// played on `pos`. It counts as a move of the king and of its rook,
    /// even when one of them stays on its square.
    pub fn record_castle(&mut self, pos: &Chess, m: Move, ply: u32) {
        let Move::Castle { king, rook } = m else {
            return;
        };
        let color = pos.turn();
        let side = CastlingSide::from_queen_side(rook < king);
        let event = Event { ply, castle: true };
        let me = self.sides.get_mut(color);
        me.king.left.get_or_insert(event);
        me.king.back = None;
        for s in CastlingSide::ALL {
            let track = me.rooks.get_mut(s);
            if track.at == Some(rook) {
                track.left.get_or_insert(event);
                track.back = None;
                track.at = Some(side.rook_to(color));
            }
        }
        self.follow_rooks();
    }
}

/// A piece of the position on its square, as a fact names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceAt {
    /// What the piece is.
    pub role: Role,
    /// Where it stands.
    pub square: Square,
}

/// The pieces on `squares` of `board`, in square order.
fn pieces_at(board: &Board, squares: Bitboard) -> Vec<PieceAt> {
    squares
        .into_iter()
        .filter_map(|square| {
            let role = board.role_at(square)?;
            Some(PieceAt { role, square })
        })
        .collect()
}

/// One rule of FIDE 3.8.2 that a castle breaks, with what shows it: one
/// [`CastlingReason`] each ([`Breach::reason`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Breach {
    /// 3.8.2.1: the king left `home` with `left`, or castled with it
    /// (`home` is `None` where the start position has no king's square);
    /// `back` brought it home again, where it stands now.
    KingMoved {
        /// The king's start square.
        home: Option<Square>,
        /// The move with which it first left `home`.
        left: Event,
        /// The latest move that brought it home, where it stands now.
        back: Option<Event>,
    },
    /// 3.8.2.1: this side's rook, from `home`, left it with `left` (or
    /// castled with it); `back` brought it home again, where it stands
    /// now.
    RookMoved {
        /// This side's rook square.
        home: Option<Square>,
        /// The move with which the rook first left `home`.
        left: Event,
        /// The latest move that brought it home, where it stands now.
        back: Option<Event>,
    },
    /// 3.8.2.1: this side's rook, from `home`, was captured on `on` with
    /// `by`.
    RookCaptured {
        /// This side's rook square.
        home: Option<Square>,
        /// The capturing move.
        by: Event,
        /// Where the rook was captured.
        on: Square,
    },
    /// The starting FEN withholds the right (and nothing else above
    /// explains why); `dropped` when the FEN wrote it, but it was dropped
    /// as impossible.
    NoRightInFen {
        /// The FEN wrote the right, but it was dropped as impossible.
        dropped: bool,
    },
    /// 3.8.2.1: the king stands on `on`, not on its start square `home`;
    /// `on` is `None` where the side has no king at all.
    KingDisplaced {
        /// The king's start square.
        home: Option<Square>,
        /// Where the king stands; `None` without a king.
        on: Option<Square>,
    },
    /// No rook on this side's rook square `home`: the nearest rook on that
    /// side of the king, on `rook`, castles.
    RookDisplaced {
        /// This side's rook square.
        home: Option<Square>,
        /// The rook that castles instead.
        rook: Square,
    },
    /// No rook of the side on its back rank on that side of the king.
    NoRook,
    /// 3.8.2.2: these pieces stand between the king or the rook and its
    /// target square, or on it.
    PathBlocked(Vec<PieceAt>),
    /// 3.8.2.2: the king on `king` is in check from `checkers`.
    InCheck {
        /// Where the king stands.
        king: Square,
        /// The pieces giving check.
        checkers: Vec<PieceAt>,
    },
    /// 3.8.2.2: each square the king crosses that is attacked, with its
    /// attackers (judged with the king and the castling rook lifted).
    ThroughCheck(Vec<(Square, Vec<PieceAt>)>),
    /// 3.8.2.2 (and 3.9): the king lands on `to`, attacked by `attackers`.
    IntoCheck {
        /// Where the king lands.
        to: Square,
        /// The pieces that attack it there.
        attackers: Vec<PieceAt>,
    },
}

impl Breach {
    /// The reason code of this breach.
    pub fn reason(&self) -> CastlingReason {
        match self {
            Breach::KingMoved { .. } => CastlingReason::KingMoved,
            Breach::RookMoved { .. } => CastlingReason::RookMoved,
            Breach::RookCaptured { .. } => CastlingReason::RookCaptured,
            Breach::NoRightInFen { .. } => CastlingReason::NoRightInFen,
            Breach::KingDisplaced { .. } => CastlingReason::KingDisplaced,
            Breach::RookDisplaced { .. } => CastlingReason::RookDisplaced,
            Breach::NoRook => CastlingReason::NoRook,
            Breach::PathBlocked(_) => CastlingReason::PathBlocked,
            Breach::InCheck { .. } => CastlingReason::InCheck,
            Breach::ThroughCheck(_) => CastlingReason::ThroughCheck,
            Breach::IntoCheck { .. } => CastlingReason::IntoCheck,
        }
    }
}

/// Why a castle cannot be played as written: the replay stops there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unplayable {
    /// The side to move has no king.
    NoKing,
    /// The king stands on `king`, off its back rank.
    OffBackRank {
        /// Where the king stands.
        king: Square,
    },
    /// No rook of the side on its back rank on that side of the king.
    NoRook,
    /// These pieces stand where the king or the rook lands.
    LandingTaken(Vec<PieceAt>),
}

/// What becomes of a castle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CastlePlay {
    /// Play this `Move::Castle` with `play_unchecked`: king to the g- or
    /// c-file, rook to the f- or d-file, that side's rights gone.
    Played(Move),
    /// It cannot be played as written; the replay stops.
    Unplayable(Unplayable),
}

/// The verdict on one castling move by `color` towards `side`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CastleJudgement {
    /// The side that castles.
    pub color: Color,
    /// Towards which side it castles.
    pub side: CastlingSide,
    /// The rules the castle breaks, in the contract's reason order; empty
    /// for a legal castle.
    pub breaches: Vec<Breach>,
    /// How the castle is played as written, or why it cannot be.
    pub play: CastlePlay,
}

impl CastleJudgement {
    /// The reason codes of the breaches.
    pub fn reasons(&self) -> Reasons {
        self.breaches.iter().map(Breach::reason).collect()
    }
}

/// The castle a legal castling towards `side` in `pos` plays (FIDE
/// 3.8.2): neither the king nor that rook has moved or been captured
/// (3.8.2.1), a start position from a FEN granted the right, the king
/// stands on its start square and the rook on its own, and the castle's
/// [`geometry`] breaks nothing (3.8.2.2). `None` when any rule is broken;
/// [`judge_castle`] then finds them all. Most castles are legal and have
/// no breach to collect, so this comes first.
pub(super) fn legal_castle(
    pos: &Chess,
    history: &CastlingHistory,
    side: CastlingSide,
) -> Option<Move> {
    let color = pos.turn();
    let me = history.sides.get(color);
    let track = me.rooks.get(side);
    if me.king.left.is_some() || track.left.is_some() || track.captured.is_some() {
        return None;
    }
    if history.from_fen && !me.right_at_start.get(side) {
        return None;
    }
    let board = pos.board();
    let king = board.king_of(color)?;
    if me.king.home != Some(king) || king.rank() != color.backrank() {
        return None;
    }
    let CastlingRook::Own(rook) = castling_rook(board, color, king, side, track) else {
        return None;
    };
    let castle = Castle {
        color,
        side,
        king,
        rook: Some(rook),
    };
    is_clear(board, castle).then_some(Move::Castle { king, rook })
}

/// The rook a castle towards `side` is played with, chosen by the game's
/// history: this side's own rook where it still stands on its rook square
/// (FIDE 3.8.2.1 and Guidelines II.3), else the nearest rook on that side
/// of the king on the back rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CastlingRook {
    /// This side's own rook, on its rook square.
    Own(Square),
    /// Not on its rook square: the nearest rook on that side of the king.
    Nearest(Square),
    /// No rook of the side on its back rank on that side of the king.
    NoRook,
    /// Not on its rook square, and the king is off its back rank: no
    /// rook castles.
    KingOffBackRank,
}

impl CastlingRook {
    /// The rook's square, where one castles.
    fn square(self) -> Option<Square> {
        match self {
            CastlingRook::Own(rook) | CastlingRook::Nearest(rook) => Some(rook),
            CastlingRook::NoRook | CastlingRook::KingOffBackRank => None,
        }
    }

    /// The rule the choice shows broken, this side's rook square being
    /// `home`: another rook castles, or none can.
    fn breach(self, home: Option<Square>) -> Option<Breach> {
        match self {
            CastlingRook::Own(_) | CastlingRook::KingOffBackRank => None,
            CastlingRook::Nearest(rook) => Some(Breach::RookDisplaced { home, rook }),
            CastlingRook::NoRook => Some(Breach::NoRook),
        }
    }
}

/// The rook `color`'s castle towards `side` is played with, the king on
/// `king` and `track` following this side's own rook.
fn castling_rook(
    board: &Board,
    color: Color,
    king: Square,
    side: CastlingSide,
    track: &RookTrack,
) -> CastlingRook {
    let candidates = board.rooks() & board.by_color(color) & beyond(king, side, color);
    if let Some(home) = track.home.filter(|h| candidates.contains(*h)) {
        return CastlingRook::Own(home);
    }
    if king.rank() != color.backrank() {
        return CastlingRook::KingOffBackRank;
    }
    let nearest = match side {
        CastlingSide::KingSide => candidates.first(),
        CastlingSide::QueenSide => candidates.last(),
    };
    nearest.map_or(CastlingRook::NoRook, CastlingRook::Nearest)
}

/// Judges a castle towards `side` by the side to move in `pos`: every
/// rule of FIDE 3.8.2 it breaks, and how it is played as written (or why
/// it cannot be). What the game's history breaks (3.8.2.1) comes from
/// [`history_breaches`], the rook from [`castling_rook`], the rest from the
/// castle's [`geometry`] (3.8.2.2).
pub fn judge_castle(pos: &Chess, history: &CastlingHistory, side: CastlingSide) -> CastleJudgement {
    let color = pos.turn();
    let board = pos.board();
    let me = history.sides.get(color);
    let track = me.rooks.get(side);
    let Some(king) = board.king_of(color) else {
        // Cannot happen in a valid position; kept total all the same.
        let displaced = Breach::KingDisplaced {
            home: me.king.home,
            on: None,
        };
        return CastleJudgement {
            color,
            side,
            breaches: vec![displaced],
            play: CastlePlay::Unplayable(Unplayable::NoKing),
        };
    };
    let mut breaches = history_breaches(me, history.from_fen, side, king);
    let rook = castling_rook(board, color, king, side, track);
    breaches.extend(rook.breach(track.home));
    let castle = Castle {
        color,
        side,
        king,
        rook: rook.square(),
    };
    let play = geometry_breaches(board, castle, &mut breaches);
    let judgement = CastleJudgement {
        color,
        side,
        breaches,
        play,
    };
    // A legal castle is exactly shakmaty's own, and shakmaty's own is legal.
    debug_assert_eq!(
        judgement.breaches.is_empty(),
        !pos.castling_moves(side).is_empty(),
        "{:?} for {side:?} in {}",
        judgement.breaches,
        fen_of(pos)
    );
    debug_assert!(
        !judgement.breaches.is_empty()
            || matches!(&judgement.play, CastlePlay::Played(m) if pos.castling_moves(side).first() == Some(m)),
        "another castle than shakmaty's in {}",
        fen_of(pos)
    );
    judgement
}

/// What the game's history breaks for a castle towards `side`, the king
/// now on `king` (FIDE 3.8.2.1): the king or this side's rook moved or was
/// captured, a FEN that withheld the right (where nothing else explains
/// it), a king off its start square.
fn history_breaches(
    me: &SideTrack,
    from_fen: bool,
    side: CastlingSide,
    king: Square,
) -> Vec<Breach> {
    let track = me.rooks.get(side);
    let at_home = me.king.home == Some(king);
    let mut breaches = Vec::new();
    if let Some(left) = me.king.left {
        breaches.push(Breach::KingMoved {
            home: me.king.home,
            left,
            back: me.king.back.filter(|_| at_home),
        });
    }
    if let Some(left) = track.left {
        breaches.push(Breach::RookMoved {
            home: track.home,
            left,
            back: track.back,
        });
    }
    if let Some((by, on)) = track.captured {
        breaches.push(Breach::RookCaptured {
            home: track.home,
            by,
            on,
        });
    }
    if from_fen && !me.right_at_start.get(side) && breaches.is_empty() {
        breaches.push(Breach::NoRightInFen {
            dropped: *me.right_dropped.get(side),
        });
    }
    if !at_home {
        breaches.push(Breach::KingDisplaced {
            home: me.king.home,
            on: Some(king),
        });
    }
    breaches
}

/// Adds to `breaches` what the castle's [`geometry`] breaks (FIDE 3.8.2.2:
/// pieces in the way, a king in check, crossing or landing on an attacked
/// square), and says how the castle is played as written, or why it
/// cannot be.
fn geometry_breaches(board: &Board, castle: Castle, breaches: &mut Vec<Breach>) -> CastlePlay {
    let king = castle.king;
    let g = geometry(board, castle);
    if !g.blockers.is_empty() {
        breaches.push(Breach::PathBlocked(pieces_at(board, g.blocker_squares())));
    }
    if g.checkers.any() {
        breaches.push(Breach::InCheck {
            king,
            checkers: pieces_at(board, g.checkers),
        });
    }
    if !g.on_back_rank {
        // `king_displaced` always applies here: the start square is on the
        // back rank.
        return CastlePlay::Unplayable(Unplayable::OffBackRank { king });
    }
    if !g.crossed_attacks.is_empty() {
        breaches.push(Breach::ThroughCheck(
            g.crossed_attacks
                .iter()
                .map(|&(sq, by)| (sq, pieces_at(board, by)))
                .collect(),
        ));
    }
    if g.landing_attackers.any() {
        breaches.push(Breach::IntoCheck {
            to: g.king_to,
            attackers: pieces_at(board, g.landing_attackers),
        });
    }
    match castle.rook {
        None => CastlePlay::Unplayable(Unplayable::NoRook),
        Some(_) if g.landing_blocked.any() => CastlePlay::Unplayable(Unplayable::LandingTaken(
            pieces_at(board, g.landing_blocked),
        )),
        Some(rook) => CastlePlay::Played(Move::Castle { king, rook }),
    }
}

/// Whether a king move that is no legal king move is written castling:
/// `Kg1`/`Kc1` two or more files away (in standard chess only from e1/e8,
/// in Chess960 from anywhere on the back rank), or, in Chess960, the king
/// onto its own rook (`Kxh1`).
pub fn castle_intent(pos: &Chess, san: San, mode: CastlingMode) -> Option<CastlingSide> {
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
    let standard = mode == CastlingMode::Standard;
    if standard && king.file() != File::E {
        return None;
    }
    let own_rook = pos.board().rooks() & pos.us();
    if own_rook.contains(to) && !standard {
        return Some(CastlingSide::from_king_side(to.file() > king.file()));
    }
    let distance = (i32::from(to.file()) - i32::from(king.file())).abs();
    match to.file() {
        File::G if distance >= 2 => Some(CastlingSide::KingSide),
        File::C if distance >= 2 => Some(CastlingSide::QueenSide),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::start::start_position;
    use crate::pgn::Game;

    /// The judgement on a castle towards `side` after `moves` (SAN, no
    /// castles) from `fen` (the standard start without one).
    fn judged(fen: Option<&str>, moves: &[&str], side: CastlingSide) -> CastleJudgement {
        let text = match fen {
            Some(fen) => format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n*\n"),
            None => "[Event \"t\"]\n\n*\n".to_owned(),
        };
        let start = start_position(&Game::parse(text.as_bytes()).tags).expect("a start position");
        let mut pos = start.position.clone();
        let mut history = CastlingHistory::new(&start);
        for (i, san) in moves.iter().enumerate() {
            let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            history.record_move(&pos, m, u32::try_from(i + 1).unwrap());
            pos.play_unchecked(m);
        }
        judge_castle(&pos, &history, side)
    }

    fn at(role: Role, square: Square) -> PieceAt {
        PieceAt { role, square }
    }

    fn castle(king: Square, rook: Square) -> CastlePlay {
        CastlePlay::Played(Move::Castle { king, rook })
    }

    #[test]
    fn a_legal_castle_has_no_breach() {
        let j = judged(
            None,
            &["e4", "e5", "Nf3", "Nf6", "Bc4", "Bc5"],
            CastlingSide::KingSide,
        );
        assert_eq!(j.breaches, []);
        assert_eq!(j.reasons(), Reasons::default());
        assert_eq!(j.play, castle(Square::E1, Square::H1));
    }

    #[test]
    fn a_check_names_the_king_and_its_checkers() {
        let fen = "r3k2r/ppp2ppp/8/8/1b6/8/2P2PPP/R3K2R w KQkq - 0 1";
        let j = judged(Some(fen), &[], CastlingSide::KingSide);
        assert_eq!(
            j.breaches,
            [Breach::InCheck {
                king: Square::E1,
                checkers: vec![at(Role::Bishop, Square::B4)],
            }]
        );
        assert_eq!(j.play, castle(Square::E1, Square::H1));
    }

    #[test]
    fn blockers_and_attacked_squares_with_their_attackers() {
        // The knight on b1 blocks O-O-O; the rook on d8 attacks d1, the
        // queen on c5 c1, the king's landing square.
        let fen = "3rk3/8/8/2q5/8/8/8/RN2K3 w Q - 0 1";
        let j = judged(Some(fen), &[], CastlingSide::QueenSide);
        assert_eq!(
            j.breaches,
            [
                Breach::PathBlocked(vec![at(Role::Knight, Square::B1)]),
                Breach::ThroughCheck(vec![(Square::D1, vec![at(Role::Rook, Square::D8)])]),
                Breach::IntoCheck {
                    to: Square::C1,
                    attackers: vec![at(Role::Queen, Square::C5)],
                },
            ]
        );
        assert_eq!(j.play, castle(Square::E1, Square::A1));
    }

    #[test]
    fn a_king_that_moved_and_came_back() {
        let moves = [
            "e4", "e5", "Ke2", "Ke7", "Ke1", "Ke8", "Nf3", "Nf6", "Bc4", "Bc5",
        ];
        let j = judged(None, &moves, CastlingSide::KingSide);
        assert_eq!(
            j.breaches,
            [Breach::KingMoved {
                home: Some(Square::E1),
                left: Event {
                    ply: 3,
                    castle: false
                },
                back: Some(Event {
                    ply: 5,
                    castle: false
                }),
            }]
        );
        assert_eq!(j.reasons().codes(), "king_moved");
    }

    #[test]
    fn a_rook_that_moved_and_was_captured() {
        // The h1 rook leaves with 2.Rh3 and is captured on b3 with
        // 4...Rxb3: no rook is left on the kingside.
        let moves = [
            "h4", "a5", "Rh3", "Ra6", "Rb3", "Rb6", "Nf3", "Rxb3", "e3", "e6", "Be2", "Be7",
        ];
        let j = judged(None, &moves, CastlingSide::KingSide);
        assert_eq!(
            j.breaches,
            [
                Breach::RookMoved {
                    home: Some(Square::H1),
                    left: Event {
                        ply: 3,
                        castle: false
                    },
                    back: None,
                },
                Breach::RookCaptured {
                    home: Some(Square::H1),
                    by: Event {
                        ply: 8,
                        castle: false
                    },
                    on: Square::B3,
                },
                Breach::NoRook,
            ]
        );
        assert_eq!(j.play, CastlePlay::Unplayable(Unplayable::NoRook));
    }

    #[test]
    fn a_fen_without_the_right_and_a_king_off_its_back_rank() {
        let j = judged(
            Some("4k3/8/8/8/8/8/4K3/7R w - - 0 1"),
            &[],
            CastlingSide::KingSide,
        );
        assert_eq!(
            j.breaches,
            [
                Breach::NoRightInFen { dropped: false },
                Breach::KingDisplaced {
                    home: Some(Square::E1),
                    on: Some(Square::E2),
                },
            ]
        );
        assert_eq!(
            j.play,
            CastlePlay::Unplayable(Unplayable::OffBackRank { king: Square::E2 })
        );
    }

    #[test]
    fn a_dropped_right_and_a_taken_landing_square() {
        // Chess960: the FEN's right names a rook on h1, which is not there
        // (dropped); the rook on g1 castles, and the bishop on f1 stands on
        // its landing square.
        let fen = "4k3/8/8/8/8/8/8/4KBR1 w H - 0 1";
        let text = format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n*\n");
        let start = start_position(&Game::parse(text.as_bytes()).tags).expect("a start position");
        let history = CastlingHistory::new(&start);
        let j = judge_castle(&start.position, &history, CastlingSide::KingSide);
        assert_eq!(j.color, Color::White);
        assert_eq!(
            j.play,
            CastlePlay::Unplayable(Unplayable::LandingTaken(vec![at(Role::Bishop, Square::F1)]))
        );
        assert_eq!(
            j.breaches,
            [
                Breach::NoRightInFen { dropped: true },
                Breach::PathBlocked(vec![at(Role::Bishop, Square::F1)]),
            ]
        );
    }

    /// The fast path for legal castles is the judgement's: on random
    /// games from the standard start and a Chess960 one (king between
    /// adjacent rooks), at every position and for both sides,
    /// [`legal_castle`] plays a castle exactly when [`judge_castle`] finds
    /// no breach, and the same one.
    #[test]
    fn legal_castle_is_the_judgement_without_breach() {
        let mut rng = 0x2545_f491_4f6c_dd1d_u64;
        let mut below = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            usize::try_from(rng % n as u64).unwrap()
        };
        let starts = [
            "[Event \"t\"]\n\n*\n",
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1\"]\n\n*\n",
        ];
        let mut legal = 0;
        for game in 0..300 {
            let tags = Game::parse(starts[game % 2].as_bytes()).tags;
            let start = start_position(&tags).expect("a start position");
            let mut history = CastlingHistory::new(&start);
            let mut pos = start.position.clone();
            for ply in 1..=u32::try_from(below(90)).unwrap() {
                for side in CastlingSide::ALL {
                    let j = judge_castle(&pos, &history, side);
                    let judged = match j.play {
                        CastlePlay::Played(m) if j.breaches.is_empty() => Some(m),
                        _ => None,
                    };
                    assert_eq!(legal_castle(&pos, &history, side), judged, "{side:?}");
                    legal += usize::from(judged.is_some());
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let castles: Vec<_> = moves.iter().filter(|m| m.is_castle()).collect();
                let m = match castles.first() {
                    Some(m) if below(2) == 0 => **m,
                    _ => moves[below(moves.len())],
                };
                if m.is_castle() {
                    history.record_castle(&pos, m, ply);
                } else {
                    history.record_move(&pos, m, ply);
                }
                pos.play_unchecked(m);
            }
        }
        // The walk (fixed seed) meets this many legal castles.
        assert_eq!(legal, 169);
    }

    /// The Chess960 start array numbered `n` (0..960, Scharnagl's
    /// numbering; 518 is the standard array), as a FEN with both sides'
    /// castling rights.
    fn chess960_fen(n: usize) -> String {
        let mut rank = [None; 8];
        let (light, n) = (n % 4, n / 4);
        let (dark, n) = (n % 4, n / 4);
        let (queen, knights) = (n % 6, n / 6);
        rank[2 * light + 1] = Some('B');
        rank[2 * dark] = Some('B');
        let mut place = |k: usize, piece| {
            let i = (0..8).filter(|&i| rank[i].is_none()).nth(k).unwrap();
            rank[i] = Some(piece);
        };
        place(queen, 'Q');
        let (first, second) = [
            (0, 1),
            (0, 2),
            (0, 3),
            (0, 4),
            (1, 2),
            (1, 3),
            (1, 4),
            (2, 3),
            (2, 4),
            (3, 4),
        ][knights];
        place(second, 'N');
        place(first, 'N');
        for piece in ['R', 'K', 'R'] {
            place(0, piece);
        }
        let white: String = rank.iter().map(|p| p.unwrap()).collect();
        let black = white.to_lowercase();
        format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1")
    }

    /// The same on every position of the bundled sample's games, and of a
    /// random game from each of the 960 Chess960 start arrays.
    #[test]
    fn legal_castle_is_the_judgement_on_the_sample_and_every_chess960_array() {
        assert_eq!(
            chess960_fen(518),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        let mut legal = 0;
        let mut compare = |pos: &Chess, history: &CastlingHistory| {
            for side in CastlingSide::ALL {
                let j = judge_castle(pos, history, side);
                let judged = match j.play {
                    CastlePlay::Played(m) if j.breaches.is_empty() => Some(m),
                    _ => None,
                };
                let fen = fen_of(pos);
                assert_eq!(
                    legal_castle(pos, history, side),
                    judged,
                    "{side:?} in {fen}"
                );
                legal += usize::from(judged.is_some());
            }
        };
        let record = |history: &mut CastlingHistory, pos: &Chess, m: Move, ply: u32| {
            if m.is_castle() {
                history.record_castle(pos, m, ply);
            } else {
                history.record_move(pos, m, ply);
            }
        };

        let sample = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../corpora/lichess_2025-05_sample.pgn"
        ))
        .unwrap();
        let starts: Vec<usize> = sample.match_indices("[Event ").map(|(i, _)| i).collect();
        let mut castles = 0;
        for (k, &from) in starts.iter().enumerate() {
            let to = starts.get(k + 1).copied().unwrap_or(sample.len());
            let game = Game::parse(&sample.as_bytes()[from..to]);
            let start = start_position(&game.tags).expect("a start position");
            let mut history = CastlingHistory::new(&start);
            let mut pos = start.position.clone();
            for (ply, tok) in (1..).zip(&game.moves) {
                compare(&pos, &history);
                let Ok(m) = tok.san.to_move(&pos) else { break };
                castles += usize::from(m.is_castle());
                record(&mut history, &pos, m, ply);
                pos.play_unchecked(m);
            }
        }

        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let mut below = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            usize::try_from(rng % n as u64).unwrap()
        };
        for n in 0..960 {
            let fen = chess960_fen(n);
            let text = format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n*\n");
            let start = start_position(&Game::parse(text.as_bytes()).tags).expect(&fen);
            let mut history = CastlingHistory::new(&start);
            let mut pos = start.position.clone();
            for ply in 1..=60 {
                compare(&pos, &history);
                let moves = pos.legal_moves();
                let Some(&any) = moves.first() else { break };
                let castle = moves.iter().find(|m| m.is_castle()).copied();
                let m = match castle {
                    Some(m) if below(2) == 0 => m,
                    _ => moves.get(below(moves.len())).copied().unwrap_or(any),
                };
                record(&mut history, &pos, m, ply);
                pos.play_unchecked(m);
            }
        }
        // Games of the sample, castles played in them, legal castles met.
        assert_eq!((starts.len(), castles, legal), (438, 654, 5229));
    }
}
