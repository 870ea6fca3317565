//! The geometry of one castle (FIDE 3.8.2; Guidelines II.3 for Chess960):
//! where the king and the rook go, the squares they pass over, the pieces
//! in their way and the squares attacked on the king's path, worked out
//! from the position before the castle alone. What the castle breaks in
//! the game's history (a king or rook that moved) is not geometry and is
//! not here.

use shakmaty::{Bitboard, Board, CastlingSide, Color, File, Piece, Square, attacks};

use super::findings::{CastlingReason, Reasons};

/// A castle as written: the side that castles, towards which side, with
/// the king and (where there is one) the rook it is played with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Castle {
    /// The side that castles.
    pub color: Color,
    /// Towards which side.
    pub side: CastlingSide,
    /// Where the king stands.
    pub king: Square,
    /// `None` when the mover has no rook on that side of the king.
    pub rook: Option<Square>,
}

/// The geometry of a [`Castle`] in a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Where the king stands.
    pub king: Square,
    /// Where the king goes: the g- or c-file of its back rank (3.8.2).
    pub king_to: Square,
    /// Where the castling rook stands, if there is one.
    pub rook: Option<Square>,
    /// Where the rook goes: the f- or d-file of the back rank.
    pub rook_to: Square,
    /// The king stands on its back rank: without it the castle has no
    /// path, and only a check is judged.
    pub on_back_rank: bool,
    /// The squares the king passes over, strictly between its square and
    /// `king_to` (3.8.2.2.a: none may be attacked).
    pub king_crosses: Bitboard,
    /// The squares the king passes over or lands on.
    pub king_path: Bitboard,
    /// The squares the rook passes over or lands on.
    pub rook_path: Bitboard,
    /// The squares that must be empty (3.8.2.2.b): both paths, less the
    /// king's and the rook's own squares.
    pub must_be_empty: Bitboard,
    /// The pieces that stand on `must_be_empty`, by square.
    pub blockers: Vec<(Square, Piece)>,
    /// The pieces that give check to the king on its square.
    pub checkers: Bitboard,
    /// Each square of `king_crosses` that is attacked, with its attackers,
    /// judged with the king and the rook lifted off the board.
    pub crossed_attacks: Vec<(Square, Bitboard)>,
    /// The pieces that attack `king_to` once the castle is played as
    /// written (the king and rook on their new squares).
    pub landing_attackers: Bitboard,
    /// Pieces on a square where the king or the rook lands: the castle
    /// cannot be played as written.
    pub landing_blocked: Bitboard,
}

impl Geometry {
    /// The rules of 3.8.2 that this geometry breaks, whatever the game's
    /// history: `no_rook`, `path_blocked`, `in_check`, `through_check`,
    /// `into_check`.
    pub fn breaks(&self) -> Reasons {
        let mut r = Reasons::default();
        let mut add = |yes: bool, reason| {
            if yes {
                r.insert(reason);
            }
        };
        add(
            self.on_back_rank && self.rook.is_none(),
            CastlingReason::NoRook,
        );
        add(!self.blockers.is_empty(), CastlingReason::PathBlocked);
        add(self.checkers.any(), CastlingReason::InCheck);
        add(
            !self.crossed_attacks.is_empty(),
            CastlingReason::ThroughCheck,
        );
        add(self.landing_attackers.any(), CastlingReason::IntoCheck);
        r
    }

    /// The squares of the blockers.
    pub fn blocker_squares(&self) -> Bitboard {
        self.blockers.iter().map(|(sq, _)| *sq).collect()
    }

    /// Every attacked square of the king's way with its attackers: its
    /// start square (in check), the squares it crosses, the one it lands
    /// on; in that order, without repeats.
    pub fn attacked(&self) -> Vec<(Square, Bitboard)> {
        let mut out = Vec::new();
        if self.checkers.any() {
            out.push((self.king, self.checkers));
        }
        out.extend(self.crossed_attacks.iter().copied());
        if self.landing_attackers.any() && self.king_to != self.king {
            out.push((self.king_to, self.landing_attackers));
        }
        out
    }
}

/// The geometry of `castle` on `board`, the position before it.
pub fn geometry(board: &Board, castle: Castle) -> Geometry {
    let Castle {
        color,
        side,
        king,
        rook,
    } = castle;
    let them = !color;
    let occupied = board.occupied();
    let back = color.backrank();
    let king_to = side.king_to(color);
    let rook_to = side.rook_to(color);
    let checkers = board.attacks_to(king, them, occupied);
    let on_back_rank = king.rank() == back;
    let mut g = Geometry {
        king,
        king_to,
        rook,
        rook_to,
        on_back_rank,
        king_crosses: Bitboard::EMPTY,
        king_path: Bitboard::EMPTY,
        rook_path: Bitboard::EMPTY,
        must_be_empty: Bitboard::EMPTY,
        blockers: Vec::new(),
        checkers,
        crossed_attacks: Vec::new(),
        landing_attackers: Bitboard::EMPTY,
        landing_blocked: Bitboard::EMPTY,
    };
    if !on_back_rank {
        return g;
    }
    let movers = Bitboard::from(king) | rook.map_or(Bitboard::EMPTY, Bitboard::from);
    g.king_crosses = attacks::between(king, king_to);
    g.king_path = g.king_crosses.with(king_to);
    let mut landing = Bitboard::from(king_to);
    if let Some(r) = rook {
        g.rook_path = attacks::between(r, rook_to).with(rook_to);
        landing = landing.with(rook_to);
    }
    g.must_be_empty = (g.king_path | g.rook_path) & !movers;
    g.blockers = (g.must_be_empty & occupied)
        .into_iter()
        .filter_map(|sq| Some((sq, board.piece_at(sq)?)))
        .collect();
    // Attacks are judged with the king and the castling rook lifted.
    let lifted = occupied & !movers;
    g.crossed_attacks = g
        .king_crosses
        .into_iter()
        .map(|sq| (sq, board.attacks_to(sq, them, lifted)))
        .filter(|(_, by)| by.any())
        .collect();
    g.landing_attackers = board.attacks_to(king_to, them, lifted | landing);
    g.landing_blocked = landing & occupied & !movers;
    g
}

/// Whether `castle` on `board` breaks none of the rules of its geometry:
/// `geometry(board, castle).breaks()` is empty. The same test without
/// collecting the blockers and the attackers, for the many legal castles.
pub fn is_clear(board: &Board, castle: Castle) -> bool {
    let Castle {
        color,
        side,
        king,
        rook,
    } = castle;
    let them = !color;
    let occupied = board.occupied();
    if board.attacks_to(king, them, occupied).any() {
        return false;
    }
    if king.rank() != color.backrank() {
        return true;
    }
    let Some(rook) = rook else {
        return false;
    };
    let king_to = side.king_to(color);
    let rook_to = side.rook_to(color);
    let movers = Bitboard::from(king) | Bitboard::from(rook);
    let king_crosses = attacks::between(king, king_to);
    let paths = king_crosses.with(king_to) | attacks::between(rook, rook_to).with(rook_to);
    if (paths & !movers & occupied).any() {
        return false;
    }
    let lifted = occupied & !movers;
    if king_crosses
        .into_iter()
        .any(|sq| board.attacks_to(sq, them, lifted).any())
    {
        return false;
    }
    let landing = Bitboard::from(king_to).with(rook_to);
    board.attacks_to(king_to, them, lifted | landing).is_empty()
}

/// The squares of `color`'s back rank on `side` of `king`: the files above
/// the king's (kingside) or below it (queenside).
pub(super) fn beyond(king: Square, side: CastlingSide, color: Color) -> Bitboard {
    let file = u32::from(king.file());
    let files: u64 = match side {
        CastlingSide::KingSide => (0xfe << file) & 0xff,
        CastlingSide::QueenSide => (1 << file) - 1,
    };
    // The files of the first rank, repeated on every rank.
    Bitboard::from_rank(color.backrank()) & Bitboard(files * 0x0101_0101_0101_0101)
}

/// The castles that a castle towards `side` by `color` may be, as far as
/// the position before it tells (the report rows keep no history), most
/// likely first. The king is where it stands. The rook is the one on this
/// side's rook square if one of the mover's rooks stands there, else the
/// one nearest the king on that side of the back rank (`rook_displaced`,
/// Seirawan's rook on b1), else none (`no_rook`). The rook square is the
/// corner in standard chess; in Chess960 the square of the FEN's castling
/// right on that side (`castling_rights`, as shakmaty reads them), else of
/// the other colour's right on that file. A Chess960 position that has
/// neither, with several rooks on that side, does not tell which one
/// started there: then each is a candidate, the nearest first. Empty when
/// `color` has no king.
pub fn castle_candidates(
    board: &Board,
    castling_rights: Bitboard,
    color: Color,
    side: CastlingSide,
    chess960: bool,
) -> Vec<Castle> {
    let Some(king) = board.king_of(color) else {
        return Vec::new();
    };
    let back = color.backrank();
    let file = if king.rank() == back {
        king.file()
    } else {
        File::E
    };
    let on_side = beyond(Square::from_coords(file, back), side, color);
    let ours = board.rooks() & board.by_color(color) & on_side;
    let nearest = match side {
        CastlingSide::KingSide => ours.first(),
        CastlingSide::QueenSide => ours.last(),
    };
    let castle = |rook| Castle {
        color,
        side,
        king,
        rook,
    };
    let home = if chess960 {
        let mirrored = (castling_rights & Bitboard::from_rank((!color).backrank()))
            .into_iter()
            .map(|sq| Square::from_coords(sq.file(), back))
            .find(|sq| on_side.contains(*sq));
        (castling_rights & ours)
            .into_iter()
            .next()
            .or(mirrored.filter(|sq| ours.contains(*sq)))
    } else {
        Some(Square::from_coords(
            match side {
                CastlingSide::KingSide => File::H,
                CastlingSide::QueenSide => File::A,
            },
            back,
        ))
    };
    match home.filter(|h| ours.contains(*h)) {
        Some(h) => vec![castle(Some(h))],
        None if chess960 && home.is_none() && ours.count() > 1 => {
            let mut rooks: Vec<Square> = ours.into_iter().collect();
            if side == CastlingSide::QueenSide {
                rooks.reverse();
            }
            rooks.into_iter().map(|r| castle(Some(r))).collect()
        }
        None => vec![castle(nearest)],
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position, Role};

    use super::*;

    fn of(fen: &str, side: CastlingSide, chess960: bool) -> Geometry {
        let setup = Fen::from_ascii(fen.as_bytes()).unwrap().into_setup();
        let castles = castle_candidates(
            &setup.board,
            setup.castling_rights,
            setup.turn,
            side,
            chess960,
        );
        assert_eq!(castles.len(), 1, "{fen}");
        let g = geometry(&setup.board, castles[0]);
        assert_eq!(
            is_clear(&setup.board, castles[0]),
            g.breaks().is_empty(),
            "{fen} {side:?}"
        );
        g
    }

    fn bb(squares: &[Square]) -> Bitboard {
        squares.iter().copied().collect()
    }

    #[test]
    fn through_check_is_the_crossed_square() {
        // White king e1, rook h1, a black bishop on c4 attacks f1.
        let g = of(
            "4k3/8/8/8/2b5/8/8/4K2R w K - 0 1",
            CastlingSide::KingSide,
            false,
        );
        assert_eq!((g.king, g.king_to), (Square::E1, Square::G1));
        assert_eq!((g.rook, g.rook_to), (Some(Square::H1), Square::F1));
        assert_eq!(g.king_crosses, bb(&[Square::F1]));
        assert_eq!(g.king_path, bb(&[Square::F1, Square::G1]));
        assert_eq!(g.rook_path, bb(&[Square::G1, Square::F1]));
        assert_eq!(g.must_be_empty, bb(&[Square::F1, Square::G1]));
        assert!(g.blockers.is_empty() && g.checkers.is_empty());
        assert_eq!(g.crossed_attacks, [(Square::F1, bb(&[Square::C4]))]);
        assert!(g.landing_attackers.is_empty());
    }

    #[test]
    fn blockers_and_checks() {
        // Black O-O-O: a knight on d6 checks e8 and attacks c8; the bishop
        // on b8 stands in the rook's way.
        let g = of(
            "rb2k3/8/3N4/8/8/8/8/4K3 b q - 0 1",
            CastlingSide::QueenSide,
            false,
        );
        assert_eq!(g.rook, Some(Square::A8));
        assert_eq!(
            g.blockers,
            [(
                Square::B8,
                Piece {
                    color: Color::Black,
                    role: Role::Bishop
                }
            )]
        );
        let d6 = bb(&[Square::D6]);
        assert_eq!(g.checkers, d6);
        assert!(g.crossed_attacks.is_empty(), "d8 is not attacked");
        assert_eq!(g.landing_attackers, d6);
        assert_eq!(g.attacked(), [(Square::E8, d6), (Square::C8, d6)]);
    }

    #[test]
    fn the_rook_of_a_displaced_or_missing_castle() {
        // Seirawan's rook on b1: no rook on a1, the b1 rook castles.
        let g = of(
            "4k3/8/8/8/8/8/8/1R2K3 w - - 0 1",
            CastlingSide::QueenSide,
            false,
        );
        assert_eq!(g.rook, Some(Square::B1));
        assert_eq!(g.rook_path, bb(&[Square::C1, Square::D1]));
        // No rook at all on that side.
        let g = of(
            "4k3/8/8/8/8/8/6b1/R3K2b w Q - 0 1",
            CastlingSide::KingSide,
            false,
        );
        assert_eq!(g.rook, None);
        assert_eq!(g.rook_path, Bitboard::EMPTY);
        // The bishop on h1 is not in the king's way (e1 to g1).
        assert!(g.blockers.is_empty());
        assert_eq!(g.crossed_attacks, [(Square::F1, bb(&[Square::G2]))]);
    }

    /// Chess960: the rook of the right, and another rook in the way
    /// ("the rook on f1 stands in the way").
    #[test]
    fn chess960_rooks() {
        // King b1, rooks a1 and c1 (position 959): the a-side right is
        // the a1 rook; the king goes to c1, where the c1 rook stands, and
        // the rook to d1.
        let g = of(
            "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca - 0 1",
            CastlingSide::QueenSide,
            true,
        );
        assert_eq!(g.rook, Some(Square::A1));
        assert_eq!(g.king_path, bb(&[Square::C1]));
        assert_eq!(g.rook_path, bb(&[Square::B1, Square::C1, Square::D1]));
        assert_eq!(
            g.blocker_squares(),
            bb(&[Square::C1, Square::D1]),
            "the c1 rook and the d1 knight"
        );
        // White's h-side right withheld, Black's names the file: king d1,
        // rooks f1, g1 and h1, Black's right on g8.
        let g = of(
            "3k2r1/8/8/8/8/8/8/3K1RRR w g - 0 1",
            CastlingSide::KingSide,
            true,
        );
        assert_eq!(g.rook, Some(Square::G1));
        assert_eq!(g.blocker_squares(), bb(&[Square::F1]));
    }

    /// A Chess960 position without rights on that side does not tell which
    /// of two rooks started there: both are candidates, the nearest first.
    #[test]
    fn chess960_without_rights_has_candidates() {
        let setup =
            Fen::from_ascii(b"3rBqb1/1kp1p2p/r2p1bp1/1p6/1P6/2P1PPPP/P2P1N2/R1RKN1B1 w - - 5 18")
                .unwrap()
                .into_setup();
        let castles = castle_candidates(
            &setup.board,
            setup.castling_rights,
            Color::White,
            CastlingSide::QueenSide,
            true,
        );
        let rooks: Vec<_> = castles.iter().map(|c| c.rook).collect();
        assert_eq!(rooks, [Some(Square::C1), Some(Square::A1)]);
        let breaks: Vec<String> = castles
            .iter()
            .map(|c| geometry(&setup.board, *c).breaks().codes())
            .collect();
        assert_eq!(breaks, ["", "path_blocked"]);
    }

    /// A legal castle, by shakmaty, has an empty way and no attacked king
    /// square; an illegal one has a blocker or an attacked king square.
    #[test]
    fn legal_castles_are_shakmatys() {
        for fen in [
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/4q3/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/1q6/R3K2R w KQkq - 0 1",
        ] {
            let pos: Chess = Fen::from_ascii(fen.as_bytes())
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            for side in CastlingSide::ALL {
                let g = of(fen, side, false);
                let clear = g.blockers.is_empty() && g.attacked().is_empty();
                assert_eq!(
                    clear,
                    !pos.castling_moves(side).is_empty(),
                    "{fen} {side:?}"
                );
            }
        }
    }
}
