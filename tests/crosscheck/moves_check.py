#!/usr/bin/env python3
"""Cross-check of move resolution against python-chess.

Random legal games (checks preferred, so evasions and pins come up), some
with one move replaced by a random SAN (a piece or pawn to a random square,
with or without `x`): python-chess says which ply is the first it rejects and
how (illegal or ambiguous), and pgn-audit's errors.csv must say the same.
The only differences allowed are the contract's own: a king move written
from e1/e8 to the g- or c-file is a castle (a castling row, and
`unplayable_castle` when it cannot be played), and a missing or extra `x`,
or a pawn capture without its file (`xd5`), that still names exactly one
legal move is a notation quirk, not an error. Some moves are written in
coordinate notation (`g1f3`, `e7e8q`, as UCI writes them; python-chess's
`parse_san` reads them too), legal or not; a king from e1/e8 in coordinates
to the g- or c-file or onto its own rook is a castle.

    moves_check.py PGN_AUDIT_BINARY [--games N] [--seed S]

Exit status: 0 when all agree, 1 on a difference, 2 without python-chess.
"""
import argparse
import csv
import os
import random
import subprocess
import sys
import tempfile

try:
    import chess
except ImportError:
    print("python-chess is not installed", file=sys.stderr)
    sys.exit(2)


def make_games(rng, n):
    games, expected = [], []
    for g in range(n):
        board = chess.Board()
        sans, bad = [], None
        for ply in range(1, rng.randint(1, 120) + 1):
            legal = list(board.legal_moves)
            if not legal:
                break
            if rng.random() < 0.03:
                tok = coordinate(rng, board, legal)
                sans.append(tok)
                try:
                    board.push(board.parse_san(tok))
                    continue
                except (chess.IllegalMoveError, chess.InvalidMoveError):
                    bad = (ply, tok, "illegal_move", board.copy())
                break
            if rng.random() < 0.03:
                piece = rng.choice("NBRQK") if rng.random() < 0.7 else ""
                tok = piece + ("x" if rng.random() < 0.4 else "") + chess.square_name(rng.randrange(64))
                sans.append(tok)
                try:
                    board.push(board.parse_san(tok))
                    continue
                except chess.AmbiguousMoveError:
                    bad = (ply, tok, "ambiguous_move", board.copy())
                except (chess.IllegalMoveError, chess.InvalidMoveError):
                    bad = (ply, tok, "illegal_move", board.copy())
                break
            checks = [m for m in legal if board.gives_check(m)]
            m = rng.choice(checks) if checks and rng.random() < 0.3 else rng.choice(legal)
            sans.append(board.san(m))
            board.push(m)
        text = []
        for i, s in enumerate(sans):
            if i % 2 == 0:
                text.append(f"{i // 2 + 1}.")
            text.append(s)
        games.append(f'[Event "g{g}"]\n\n' + " ".join(text) + " *\n")
        expected.append(bad)
    return games, expected


def coordinate(rng, board, legal):
    """A move in coordinate notation: a legal one, or one of our pieces to
    a random square (promoted where a pawn reaches its last rank)."""
    if rng.random() < 0.5:
        return rng.choice(legal).uci()
    ours = [sq for sq in chess.SQUARES if board.color_at(sq) == board.turn]
    frm, to = rng.choice(ours), rng.randrange(64)
    promotion = ""
    if board.piece_type_at(frm) == chess.PAWN and chess.square_rank(to) in (0, 7):
        promotion = rng.choice("qrbn")
    return chess.square_name(frm) + chess.square_name(to) + promotion


def pawn_captures(board, square):
    """How many legal pawn captures land on `square`."""
    to = chess.parse_square(square)
    return sum(1 for m in board.legal_moves
               if m.to_square == to and board.piece_type_at(m.from_square) == chess.PAWN
               and board.is_capture(m))


def allowed(bad, got):
    """A difference the contract asks for."""
    ply, tok, _, board = bad
    king = board.king(board.turn)
    back = 0 if board.turn == chess.WHITE else 7
    if got is None and king == chess.square(4, back) and tok.replace("x", "") in (
            f"Kg{back + 1}", f"Kc{back + 1}"):
        # A castle written as a king move from e1/e8: judged in castling.csv
        # (illegal castles included), not an error.
        return True
    if king == chess.square(4, back) and tok[:2] == chess.square_name(king) and (
            tok[2:] in (f"g{back + 1}", f"c{back + 1}")
            or (len(tok) == 4 and board.piece_at(chess.parse_square(tok[2:]))
                == chess.Piece(chess.ROOK, board.turn))):
        # A castle in coordinates (`e1g1`, or the king onto its own rook):
        # judged in castling.csv, as `Kg1` is.
        return got is None or got[:3] == (ply, tok, "unplayable_castle")
    if got is None and tok.startswith("x"):
        # A pawn capture without its file: one legal pawn capture there.
        return pawn_captures(board, tok[1:]) == 1
    if got is not None and got[:2] == (ply, tok) and got[2] == "ambiguous_move":
        # A pawn capture without its file, or a missing or extra x, that
        # fits more than one legal move: ambiguous, not illegal.
        if tok.startswith("x"):
            return pawn_captures(board, tok[1:]) > 1
        flipped = tok.replace("x", "") if "x" in tok else tok[0] + "x" + tok[1:]
        try:
            board.parse_san(flipped)
        except chess.AmbiguousMoveError:
            return True
        except ValueError:
            pass
        return False
    if got is None:
        # A missing or extra x that names one legal move.
        flipped = tok.replace("x", "") if "x" in tok else tok[0] + "x" + tok[1:]
        try:
            board.parse_san(flipped)
            return True
        except ValueError:
            return False
    return (
        got[2] == "unplayable_castle"
        and tok.startswith("K")
        and tok[-2] in "gc"
        and king == chess.square(4, back)
        and tok[-1] == str(back + 1)
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=2025)
    args = ap.parse_args()
    games, expected = make_games(random.Random(args.seed), args.games)
    with tempfile.TemporaryDirectory() as d:
        pgn = os.path.join(d, "games.pgn")
        with open(pgn, "w") as f:
            f.write("\n".join(games))
        out = os.path.join(d, "reports")
        subprocess.run([args.binary, "--no-html", pgn, "-o", out], check=True, capture_output=True)
        with open(os.path.join(out, "errors.csv")) as f:
            got = {int(r["game"]) - 1: (int(r["ply"]), r["san"], r["kind"]) for r in csv.DictReader(f)}
    bad_games = agree = contract = 0
    wrong = []
    for i, bad in enumerate(expected):
        mine = got.get(i)
        if bad is None:
            if mine is None:
                agree += 1
            else:
                wrong.append(f"game {i + 1}: python-chess accepts every move, pgn-audit {mine}")
            continue
        bad_games += 1
        if mine == bad[:3]:
            agree += 1
        elif allowed(bad, mine):
            contract += 1
        else:
            wrong.append(f"game {i + 1}: python-chess {bad[:3]}, pgn-audit {mine}")
    print(
        f"moves cross-check: {len(games)} games ({bad_games} with a rejected move): "
        f"{agree} agree, {contract} differ as the contract asks, {len(wrong)} disagree"
    )
    for w in wrong[:20]:
        print(w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
