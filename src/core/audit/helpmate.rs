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
//! The analysis is chasolver's fast check, `is_unwinnable_fast`: sound (a
//! `true` is a proof), about 7,000 instructions on a final position of the
//! Lichess sample, and asked only where the question is open (see
//! [`open_question`]). Where it cannot prove a side unable to mate, the
//! side is `NotProven`: taken as able to mate, no row. chasolver's full
//! search, `winnability`, which proves either way or gives up at its node
//! limit, costs about 40 times as much: run where the fast check failed on
//! positions with a pawn wall or at most two legal moves only, it added 45
//! % to the instructions of the whole audit of the sample (the budget is
//! 10 %), so it does not run. A position is `Undecided` where chasolver's
//! board cannot hold it: the `chess` crate refuses it, or a Chess960
//! castling right had to be dropped (above).

use std::time::{Duration, Instant};

use chasolver::is_unwinnable_fast;
use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Position, Role, Square};

use super::findings::Basis;

/// What the analysis says about one side's chance to mate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mating {
    /// Proven: no series of legal moves lets the side mate.
    Impossible(Basis),
    /// The fast check could not prove it impossible: taken as able to
    /// mate, no row.
    NotProven,
    /// chasolver's board cannot hold the position, or its proof would not
    /// stand in it (a dropped Chess960 castling right).
    Undecided,
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

/// The helpmate analysis of one game: the time it took, added up.
#[derive(Debug, Default)]
pub(crate) struct Analyst {
    /// Time spent in chasolver and in copying positions for it.
    pub(crate) spent: Duration,
}

impl Analyst {
    /// Whether `side` can mate in `pos` by any series of legal moves.
    ///
    /// The material alone decides it where neither side can mate by it
    /// (`is_insufficient_material`), where the side has nothing but its
    /// king, or where its material is insufficient and the other side has
    /// nothing but its king. Elsewhere shakmaty's one-sided test is not the
    /// Laws' (two bishops on one colour mate a king boxed in by its own
    /// rooks), so the analysis decides.
    pub(crate) fn mating(&mut self, pos: &Chess, side: Color) -> Mating {
        let board = pos.board();
        let bare = |color: Color| board.by_color(color) == board.kings() & board.by_color(color);
        if pos.is_insufficient_material()
            || bare(side)
            || (bare(!side) && pos.has_insufficient_material(side))
        {
            return Mating::Impossible(Basis::InsufficientMaterial);
        }
        if !open_question(pos, side) {
            return Mating::NotProven;
        }
        let started = Instant::now();
        let verdict = helpmate(pos, side);
        self.spent += started.elapsed();
        verdict
    }

    /// Whether `pos` is dead, asking `first` first (the side most likely
    /// to be able to mate: the other is not asked where it can); `known`
    /// is `first`'s verdict where it was asked already.
    pub(crate) fn deadness(
        &mut self,
        pos: &Chess,
        first: Color,
        known: Option<Mating>,
    ) -> Deadness {
        if pos.is_insufficient_material() {
            return Deadness::Dead(Basis::InsufficientMaterial);
        }
        let a = known.unwrap_or_else(|| self.mating(pos, first));
        if a == Mating::NotProven {
            return Deadness::Alive;
        }
        match (a, self.mating(pos, !first)) {
            (_, Mating::NotProven) => Deadness::Alive,
            (Mating::Impossible(_), Mating::Impossible(_)) => {
                Deadness::Dead(Basis::HelpmateAnalysis)
            }
            _ => Deadness::Undecided,
        }
    }
}

/// Whether the analysis is asked about `side` in `pos` at all: where the
/// side has no queen and no rook, or a pawn stands blocked by an enemy pawn
/// (the start of a wall), or the side to move is in check (the start of a
/// forced line). A side with a queen or a rook, in a position where no pawn
/// is blocked by a pawn and no king is in check, is taken as able to mate
/// (`NotProven`) without the analysis, which would cost more than 10 % of
/// the whole audit on the final positions of the Lichess sample (where this
/// saves nearly half the calls). That is the class the filter skips: none
/// of the 2,410 sides of chasolver's Lichess test positions that cannot
/// mate is in it, and 40 of the 2,877 of its constructed ones are.
fn open_question(pos: &Chess, side: Color) -> bool {
    let board = pos.board();
    let heavy = board.rooks_and_queens() & board.by_color(side);
    let white = board.pawns() & board.white();
    let black = board.pawns() & board.black();
    heavy.is_empty() || (white.shift(8) & black).any() || pos.is_check()
}

/// The helpmate analysis proper, for a position with mating material.
fn helpmate(pos: &Chess, side: Color) -> Mating {
    let Some((board, dropped)) = board_of(pos) else {
        return Mating::Undecided;
    };
    match (is_unwinnable_fast(&board, color_of(side)), dropped) {
        (false, _) => Mating::NotProven,
        // A proof without a dropped castling right is no proof with it.
        (true, true) => Mating::Undecided,
        (true, false) => Mating::Impossible(Basis::HelpmateAnalysis),
    }
}

/// The chasolver colour of a side.
fn color_of(side: Color) -> chess::Color {
    match side {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    }
}

/// `pos` as a `chess` board, and whether a castling right was dropped (a
/// Chess960 right it cannot hold); `None` where that crate refuses the
/// position.
fn board_of(pos: &Chess) -> Option<(chess::Board, bool)> {
    let board = pos.board();
    let mut builder = chess::BoardBuilder::new();
    for (square, piece) in board {
        let role = match piece.role {
            Role::Pawn => chess::Piece::Pawn,
            Role::Knight => chess::Piece::Knight,
            Role::Bishop => chess::Piece::Bishop,
            Role::Rook => chess::Piece::Rook,
            Role::Queen => chess::Piece::Queen,
            Role::King => chess::Piece::King,
        };
        builder.piece(
            chess::ALL_SQUARES[usize::from(square)],
            role,
            color_of(piece.color),
        );
    }
    builder.side_to_move(color_of(pos.turn()));
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
        builder.castle_rights(color_of(side), rights);
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
    use shakmaty::{CastlingMode, FromSetup, fen::Fen};

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
            let (board, dropped) = board_of(&pos).unwrap();
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
        let (board, dropped) = board_of(&pos).unwrap();
        assert!(dropped);
        assert_eq!(
            board.castle_rights(chess::Color::White),
            chess::CastleRights::NoRights
        );
        let pos = position(
            "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
            CastlingMode::Chess960,
        );
        let (board, dropped) = board_of(&pos).unwrap();
        assert!(!dropped);
        assert_eq!(
            board.castle_rights(chess::Color::Black),
            chess::CastleRights::Both
        );
    }

    /// chasolver's own test files (they ship with the crate), found in
    /// cargo's registry.
    fn crate_file(name: &str) -> String {
        let home = std::env::var_os("CARGO_HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo")
            });
        let src = home.join("registry/src");
        for index in std::fs::read_dir(&src).unwrap() {
            let path = index
                .unwrap()
                .path()
                .join("chasolver-3.0.0/tests")
                .join(name);
            if let Ok(text) = std::fs::read_to_string(&path) {
                return text;
            }
        }
        panic!(
            "chasolver-3.0.0/tests/{name} not found under {}",
            src.display()
        );
    }

    /// Each side of each position of `text` (`W-`, `-B`, `WB` or `--`,
    /// then a FEN) through [`Analyst::mating`]: how many sides the crate
    /// classifies as unable to mate, how many of them the wrapper proves
    /// so, and how many positions shakmaty refuses. A side able to mate is
    /// never proven unable.
    fn classify(text: &str) -> (usize, usize, usize) {
        let mut analyst = Analyst::default();
        let (mut cannot, mut proven, mut refused) = (0, 0, 0);
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let (class, fen) = line.split_at(2);
            let setup = Fen::from_ascii(fen.trim().as_bytes()).unwrap().into_setup();
            let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard)
                .or_else(shakmaty::PositionError::ignore_too_much_material)
            else {
                refused += 1;
                continue;
            };
            for (side, letter) in [(Color::White, b'W'), (Color::Black, b'B')] {
                let can = class.as_bytes()[usize::from(side == Color::Black)] == letter;
                let verdict = analyst.mating(&pos, side);
                if can {
                    assert!(
                        verdict == Mating::NotProven,
                        "{line}: {side:?} can mate, but {verdict:?}"
                    );
                } else {
                    cannot += 1;
                    proven += usize::from(matches!(verdict, Mating::Impossible(_)));
                }
            }
        }
        (cannot, proven, refused)
    }

    /// The crate's positions from Lichess games: every side it says cannot
    /// mate is proven so, every side it says can mate is not.
    #[test]
    fn chasolvers_lichess_positions_keep_their_classification() {
        assert_eq!(classify(&crate_file("lichess.txt")), (2410, 2410, 0));
    }

    /// The crate's constructed positions (queries to its analyzer): no
    /// side able to mate is proven unable; of the sides unable to mate,
    /// those the fast check misses (chasolver's full search, which does
    /// not run, proves them) are not proven.
    #[test]
    fn chasolvers_constructed_positions_are_never_misjudged() {
        assert_eq!(classify(&crate_file("positions.txt")), (2876, 2310, 3));
    }
}
