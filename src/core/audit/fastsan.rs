//! A faster `San::to_move` for the common cases: the same answer as
//! shakmaty's, without building the full candidate move list.
//!
//! shakmaty's `to_move` asks `san_candidates` for a `MoveList` (an array of
//! 270 moves, copied on return) and filters it; the profile of the audit
//! showed that list, its copy and its filter as the largest single cost of
//! the replay. For a piece, king or pawn move that is not a promotion or an
//! en passant capture, the candidates are found here with a few bitboard
//! operations and the same pin test shakmaty uses (in check: each candidate
//! played on the bitboards, legal when no enemy piece then attacks the king).
//! Where exactly one candidate may make the move, that is the answer;
//! everything else (several candidates, none, promotions, en passant) is
//! left to shakmaty (`None`): rare enough that repeating its rules here
//! does not pay.

use shakmaty::{
    Bitboard, Board, Chess, Color, File, Move, Position, Rank, Role, Square, attacks, san::San,
};

/// The legal move `san` names in `pos`, in the common case only: an
/// ordinary move (no castling, promotion or en passant), written with or
/// without `x` as it is or is not a capture, and exactly one of our pieces
/// of that role (of those on the file or rank written) able to reach the
/// square. That piece may make the move unless it leaves our king attacked
/// (FIDE 3.9): out of check, unless it is pinned to our king and leaves
/// the line of the pin, or it is the king and the square is attacked; in
/// check, see [`exposed`]. `None` for everything else, legal or not:
/// those are left to shakmaty's `San::to_move`. Where it answers, the
/// answer is shakmaty's. Inlined into the replay loop, its caller on
/// every ply (and into the cold replay of a game that ends dead).
#[inline(always)]
pub(crate) fn common_move(pos: &Chess, san: San, in_check: bool) -> Option<Move> {
    let San::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion: None,
    } = san
    else {
        return None;
    };
    let board = pos.board();
    let turn = pos.turn();
    let occupied = board.occupied();
    // A capture takes one of their pieces, never their king (a castle into
    // check can leave it in reach: the rare path refuses that move); any
    // other move goes to an empty square.
    let fits = if capture {
        (board.by_color(!turn) & !board.kings()).contains(to)
    } else {
        !occupied.contains(to)
    };
    if !fits {
        return None;
    }
    let mut from_set = reaching(board, turn, role, to, capture, in_check)?;
    if let Some(f) = file {
        from_set &= Bitboard::from_file(f);
    }
    if let Some(r) = rank {
        from_set &= Bitboard::from_rank(r);
    }
    let from = from_set.single_square()?;
    let king = board.king_of(turn)?;
    let illegal = if in_check {
        exposed(pos, king, from, to)
    } else {
        pinned_off_line(pos, king, from, to)
    };
    if illegal {
        return None;
    }
    Some(Move::Normal {
        role,
        from,
        capture: if capture { board.role_at(to) } else { None },
        to,
        promotion: None,
    })
}

/// Our pieces of `role` that reach `to` by the move's geometry: a pawn by
/// its capture, or by its push (one square, or two from its start through
/// an empty square; not onto a promotion square); a piece by its attacks; the
/// king only to a square no enemy piece attacks (FIDE 3.9; in check,
/// [`exposed`] judges it). `None` where none can.
#[inline(always)]
fn reaching(
    board: &Board,
    turn: Color,
    role: Role,
    to: Square,
    capture: bool,
    in_check: bool,
) -> Option<Bitboard> {
    let ours = board.by_piece(role.of(turn));
    let occupied = board.occupied();
    Some(match role {
        Role::Pawn if to.rank() == Rank::First || to.rank() == Rank::Eighth => {
            return None; // a promotion square
        }
        Role::Pawn if capture => attacks::pawn_attacks(!turn, to) & ours,
        Role::Pawn => {
            // A push: one square, or two from the pawn's start through an
            // empty square.
            let one = to.offset(turn.fold_wb(-8, 8))?;
            if ours.contains(one) {
                Bitboard::from_square(one)
            } else if !occupied.contains(one) && to.rank() == turn.relative_rank(Rank::Fourth) {
                Bitboard::from_square(one.offset(turn.fold_wb(-8, 8))?) & ours
            } else {
                return None;
            }
        }
        Role::Knight => attacks::knight_attacks(to) & ours,
        Role::Bishop => attacks::bishop_attacks(to, occupied) & ours,
        Role::Rook => attacks::rook_attacks(to, occupied) & ours,
        Role::Queen => attacks::queen_attacks(to, occupied) & ours,
        Role::King => {
            // Our king (on a square `to` attacks as a king would), moving
            // to a square no enemy piece attacks. Out of check, no slider
            // attacks through the king's own square, so the board as it
            // stands tells; in check, [`exposed`] does.
            if !in_check && board.attacks_to(to, !turn, occupied).any() {
                return None;
            }
            attacks::king_attacks(to) & ours
        }
    })
}

/// The file and rank SAN writes for the legal move of our `role` piece
/// (not a pawn) from `from` to `to` in `pos` (PGN standard 8.2.3.4): none
/// when no other of our pieces of that role can legally go to `to`; else
/// the file of departure when no such piece stands on that file, the rank
/// when one does but none on that rank, and both when there are pieces on
/// each. The same answer as shakmaty's `San::from_move`, without listing
/// the candidate moves; `None` only without a king of ours, left to
/// shakmaty. `in_check` is `pos.is_check()`.
pub(crate) fn disambiguation(
    pos: &Chess,
    role: Role,
    from: Square,
    to: Square,
    in_check: bool,
) -> Option<(Option<File>, Option<Rank>)> {
    let board = pos.board();
    let turn = pos.turn();
    let occupied = board.occupied();
    // Our pieces of that role that reach `to`; a king is alone of its role.
    let reach = match role {
        Role::Pawn | Role::King => Bitboard(0),
        Role::Knight => attacks::knight_attacks(to),
        Role::Bishop => attacks::bishop_attacks(to, occupied),
        Role::Rook => attacks::rook_attacks(to, occupied),
        Role::Queen => attacks::queen_attacks(to, occupied),
    };
    let others = reach & board.by_piece(role.of(turn)) & !Bitboard::from_square(from);
    let king = board.king_of(turn)?;
    let (mut ambiguous, mut same_file, mut same_rank) = (false, false, false);
    for other in others {
        let illegal = if in_check {
            exposed(pos, king, other, to)
        } else {
            pinned_off_line(pos, king, other, to)
        };
        if !illegal {
            ambiguous = true;
            same_file |= other.file() == from.file();
            same_rank |= other.rank() == from.rank();
        }
    }
    Some((
        (ambiguous && (!same_file || same_rank)).then(|| from.file()),
        same_file.then(|| from.rank()),
    ))
}

/// Whether our piece (not a pawn) on `from` may legally move to the empty
/// square `to` in `pos`: it stands there, is of `role`, reaches `to` by its
/// attacks over the board as it stands, and leaves no enemy piece
/// attacking our king (FIDE 3.9). The same answer as shakmaty's `is_legal`
/// for such a move, without its candidate list; for the helpmate
/// analysis's quiet lines (`helpmate::cycle`). Castling is no such move.
pub(crate) fn quiet_move_is_legal(pos: &Chess, role: Role, from: Square, to: Square) -> bool {
    let board = pos.board();
    let turn = pos.turn();
    let occupied = board.occupied();
    role != Role::Pawn
        && !occupied.contains(to)
        && board.piece_at(from) == Some(role.of(turn))
        && attacks::attacks(from, role.of(turn), occupied).contains(to)
        && board
            .king_of(turn)
            .is_some_and(|king| keeps_king_safe(pos, king, role, from, to, pos.is_check()))
}

/// Whether our `role` piece's move from `from` to `to` leaves no enemy
/// piece attacking our king on `king` (FIDE 3.9), `in_check` whether it
/// is attacked now: the test of [`common_move`], for a move known to be
/// possible but for that.
#[inline]
pub(crate) fn keeps_king_safe(
    pos: &Chess,
    king: Square,
    role: Role,
    from: Square,
    to: Square,
    in_check: bool,
) -> bool {
    if role == Role::King || in_check {
        !exposed(pos, king, from, to)
    } else {
        !pinned_off_line(pos, king, from, to)
    }
}

/// Whether moving our piece from `from` to `to` leaves our king (on
/// `king` before the move) attacked by an enemy piece other than the one
/// captured on `to` (FIDE 3.9). Used when our king is in check, so that
/// the move must capture the checker, block, or step away; out of line,
/// as few moves are made in check.
#[inline(never)]
fn exposed(pos: &Chess, king: Square, from: Square, to: Square) -> bool {
    let board = pos.board();
    let after = (board.occupied() ^ Bitboard::from_square(from)) | Bitboard::from_square(to);
    let our_king = if from == king { to } else { king };
    (board.attacks_to(our_king, !pos.turn(), after) & !Bitboard::from_square(to)).any()
}

/// Whether our piece on `from`, our king on `king` not in check, may not
/// go to `to` because it would expose the king to an enemy slider (FIDE 3.9:
/// no move may leave one's own king attacked). Only a piece on a line with
/// its king can be pinned, and only when it leaves that line.
#[inline(always)]
fn pinned_off_line(pos: &Chess, king: Square, from: Square, to: Square) -> bool {
    // Empty when `from` is not on a rank, file or diagonal with the king.
    let line = attacks::ray(king, from);
    if line.contains(to) {
        return false;
    }
    let board = pos.board();
    let straight = king.file() == from.file() || king.rank() == from.rank();
    let sliders = if straight {
        board.rooks_and_queens()
    } else {
        board.bishops_and_queens()
    };
    let snipers = line & sliders & pos.them();
    if snipers.is_empty() {
        return false;
    }
    // The king is not in check: an enemy slider it sees on this line once
    // `from` is empty stands behind `from`.
    let without = board.occupied() ^ Bitboard::from_square(from);
    let seen = if straight {
        attacks::rook_attacks(king, without)
    } else {
        attacks::bishop_attacks(king, without)
    };
    (seen & snipers).any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, EnPassantMode, File, fen::Fen};

    /// Compares with shakmaty on every SAN (without promotion) of every
    /// role to every square; `full` adds every file and rank combination.
    /// Where [`common_move`] answers, shakmaty must give the same move (an
    /// illegal or ambiguous SAN must get no answer). Returns how many it
    /// answered.
    fn check(pos: &Chess, full: bool) -> usize {
        let files = std::iter::once(None).chain(File::ALL.map(Some));
        let ranks = || std::iter::once(None).chain(Rank::ALL.map(Some));
        let mut hints: Vec<(Option<File>, Option<Rank>)> = Vec::new();
        for f in files {
            for r in ranks() {
                if full || f.is_none() || r.is_none() {
                    hints.push((f, r));
                }
            }
        }
        let mut n = 0;
        for role in Role::ALL {
            for to in Square::ALL {
                for capture in [false, true] {
                    for &(file, rank) in &hints {
                        let san = San::Normal {
                            role,
                            file,
                            rank,
                            capture,
                            to,
                            promotion: None,
                        };
                        if let Some(m) = common_move(pos, san, pos.is_check()) {
                            assert_eq!(
                                Ok(m),
                                san.to_move(pos),
                                "common {san} in {}",
                                Fen::from_position(pos, EnPassantMode::Always)
                            );
                            n += 1;
                        }
                    }
                }
            }
        }
        n
    }

    /// Compares [`disambiguation`] with shakmaty's SAN for every legal
    /// piece move of `pos`.
    fn check_disambiguation(pos: &Chess) -> usize {
        let mut n = 0;
        for m in pos.legal_moves() {
            let Move::Normal { role, from, to, .. } = m else {
                continue;
            };
            if role == Role::Pawn {
                continue;
            }
            let San::Normal { file, rank, .. } = San::from_move(pos, m) else {
                unreachable!("a normal move's SAN");
            };
            assert_eq!(
                disambiguation(pos, role, from, to, pos.is_check()),
                Some((file, rank)),
                "{m:?} in {}",
                Fen::from_position(pos, EnPassantMode::Always)
            );
            n += 1;
        }
        n
    }

    /// The positions of `fens`.
    fn positions(fens: &[&str]) -> Vec<Chess> {
        fens.iter()
            .map(|fen| {
                fen.parse::<Fen>()
                    .unwrap()
                    .into_position(CastlingMode::Standard)
                    .unwrap()
            })
            .collect()
    }

    /// The positions before each move of every `game_step`th game of the
    /// bundled sample, every `ply_step`th of them.
    fn sample_positions(game_step: usize, ply_step: usize) -> Vec<Chess> {
        let sample = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../corpora/lichess_2025-05_sample.pgn"
        ))
        .unwrap();
        let mut games = Vec::new();
        pgn_audit_input::Splitter::new().feed(&sample, 0, true, |g| games.push(g));
        let mut out = Vec::new();
        for span in games.iter().step_by(game_step) {
            let game = crate::pgn::Game::parse(
                &sample[usize::try_from(span.start).unwrap()..usize::try_from(span.end).unwrap()],
            );
            let mut pos = Chess::default();
            for (i, tok) in game.moves.iter().enumerate() {
                if i % ply_step == 0 {
                    out.push(pos.clone());
                }
                let Ok(m) = tok.san.to_move(&pos) else { break };
                pos.play_unchecked(m);
            }
        }
        out
    }

    #[test]
    fn disambiguation_agrees_with_shakmaty_on_the_sample_and_on_pins() {
        let fens = [
            "4k3/8/8/8/2N3N1/8/2N3N1/4K3 w - - 0 1",
            "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
            "4k3/8/8/1b6/8/3n4/5R2/r3K2R w K - 0 1",
            // Three queens, rooks on a file and a rank, a pinned one.
            "7k/8/2Q1Q3/8/2Q5/8/8/4K3 w - - 0 1",
            "1k2r3/8/8/4R3/8/R3R3/8/4K3 w - - 0 1",
            "k7/8/8/8/8/2N1N3/3R4/r2K4 w - - 0 1",
            "k6b/8/8/8/8/2N1N3/8/N3K3 w - - 0 1",
            // In check: only some of the pieces can block or capture.
            "1k2r3/8/8/8/8/2N3N1/8/R3K2R w - - 0 1",
            "1k6/8/8/1q6/8/3N1N2/8/R3K3 w - - 0 1",
            "4k3/8/8/8/1q6/2P5/3PB3/4K1N1 w - - 0 1",
        ];
        let n: usize = positions(&fens)
            .iter()
            .chain(&sample_positions(1, 1))
            .map(check_disambiguation)
            .sum();
        assert!(n > 500_000, "{n} moves");
    }

    #[test]
    fn agrees_with_shakmaty_on_the_sample_and_on_pins() {
        let fens = [
            "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
            "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
            "8/8/8/K2pP2r/8/8/8/7k w - d6 0 2",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "4k3/8/8/8/8/5n2/4PP2/4K3 w - - 0 1",
            "4k3/8/8/8/2N3N1/8/2N3N1/4K3 w - - 0 1",
            // In check: blocks, captures, double check, x-rays, pinned
            // defenders.
            "4k3/8/8/8/7b/8/2N1N3/R3K2R w KQ - 0 1",
            "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1",
            "4k3/4r3/8/8/8/8/3P4/4K3 w - - 0 1",
            "4k3/8/8/8/1q6/2P5/3PB3/4K1N1 w - - 0 1",
            "4k3/8/8/1b6/8/3n4/5R2/r3K2R w K - 0 1",
            "3rk3/8/8/8/8/8/3Q4/3K4 w - - 0 1",
            "4k3/8/8/3pP3/4K3/8/8/8 w - d6 0 2",
            "r3k3/8/8/8/8/8/6n1/R3K2R w KQq - 0 1",
        ];
        let n: usize = positions(&fens)
            .iter()
            .map(|p| check(p, true))
            .sum::<usize>()
            + sample_positions(20, 3)
                .iter()
                .map(|p| check(p, false))
                .sum::<usize>();
        // The fixed positions and every third position of every 20th sample
        // game give some 36,000 answers to compare.
        assert!(n > 30_000, "{n} moves answered");
    }
}
