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
//! The analysis runs in two steps. `is_unwinnable_fast` (sound: `true` is
//! a proof) on every position asked about; where it is inconclusive, the
//! full search `winnability` (which proves either way, or gives up at its
//! node limit: `Undecided`) only on a position that [`closed`] picks,
//! since it costs about 40 times as much. A position the fast check cannot
//! prove and [`closed`] does not pick is `NotProven`: it gets no row.
//! On chasolver's own 65,536 positions from Lichess games the fast check
//! alone proves every one of the 2,410 sides that cannot mate.

use std::time::{Duration, Instant};

use chasolver::{Winnability, is_unwinnable_fast, winnability};
use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Position, Role, Square};

use super::findings::Basis;

/// What the analysis says about one side's chance to mate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mating {
    /// Proven: no series of legal moves lets the side mate.
    Impossible(Basis),
    /// The full search found a helpmate for the side.
    Possible,
    /// The fast check could not prove it impossible and the position was
    /// not given the full search: taken as able to mate, no row.
    NotProven,
    /// The analysis could not decide within its bounds.
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
    /// (`is_insufficient_material`), or where the side's material is
    /// insufficient and the other side has nothing but its king. Elsewhere
    /// shakmaty's one-sided test is not the Laws' (two bishops on one
    /// colour mate a king boxed in by its own rooks), so the analysis
    /// decides.
    pub(crate) fn mating(&mut self, pos: &Chess, side: Color) -> Mating {
        let board = pos.board();
        let bare = board.by_color(!side) == board.kings() & board.by_color(!side);
        if pos.is_insufficient_material() || (bare && pos.has_insufficient_material(side)) {
            return Mating::Impossible(Basis::InsufficientMaterial);
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
        if matches!(a, Mating::Possible | Mating::NotProven) {
            return Deadness::Alive;
        }
        match (a, self.mating(pos, !first)) {
            (_, Mating::Possible | Mating::NotProven) => Deadness::Alive,
            (Mating::Impossible(_), Mating::Impossible(_)) => {
                Deadness::Dead(Basis::HelpmateAnalysis)
            }
            _ => Deadness::Undecided,
        }
    }
}

/// The helpmate analysis proper, for a position with mating material.
fn helpmate(pos: &Chess, side: Color) -> Mating {
    let Some((board, dropped)) = board_of(pos) else {
        return Mating::Undecided;
    };
    let winner = color_of(side);
    // A proof without a dropped castling right is no proof with it.
    let unwinnable = if dropped {
        Mating::Undecided
    } else {
        Mating::Impossible(Basis::HelpmateAnalysis)
    };
    if is_unwinnable_fast(&board, winner) {
        return unwinnable;
    }
    if !closed(pos) {
        return Mating::NotProven;
    }
    match winnability(&board, winner) {
        Some(Winnability::Winnable { .. }) => Mating::Possible,
        Some(Winnability::Unwinnable) => unwinnable,
        None => Mating::Undecided,
    }
}

/// Whether a position the fast check could not prove is given the full
/// search: where the side to move has at most two legal moves (a forced
/// line), or where at least three pairs of pawns block each other (a pawn
/// wall). These are the shapes the fast check leaves open in chasolver's
/// constructed test positions; a position of neither shape is taken as
/// able to mate without the full search (see the module's comment).
fn closed(pos: &Chess) -> bool {
    let board = pos.board();
    let white = board.pawns() & board.white();
    let black = board.pawns() & board.black();
    let blocked = (white.shift(8) & black).count();
    blocked >= 3 || pos.legal_moves().len() <= 2
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
                        matches!(verdict, Mating::Possible | Mating::NotProven),
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
    /// those the fast check misses outside [`closed`] are not proven.
    #[test]
    fn chasolvers_constructed_positions_are_never_misjudged() {
        assert_eq!(classify(&crate_file("positions.txt")), (2876, 2657, 3));
    }
}
