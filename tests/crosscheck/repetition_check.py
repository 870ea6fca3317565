#!/usr/bin/env python3
"""Cross-check of the FIDE repetition count (art. 9.2.3) against python-chess.

For every game, the number of times the position after each ply (from ply 0)
has stood, with the same side to move, placement, castling rights and legal
en-passant capture, is computed here with python-chess over the whole game
(no window). Every game (re-exported by python-chess) is written with those
counts as one JSON line {"label", "pgn", "counts"}; the cargo test
`tests/crosscheck.rs` compares them with pgn-audit's counts.

Inputs: the PGN files given as arguments (default: corpora/lichess_2025-05_sample.pgn)
plus random walks in endgames with few pieces, castling rights and en-passant
chances, biased toward undoing moves so that repetitions happen.

    python3 tests/crosscheck/repetition_check.py --dump OUT.jsonl [--walks N] [--seed S] [FILE.pgn ...]

Exit status 0 when written, 2 without python-chess.
"""

import argparse
import json
import os
import random
import sys

try:
    import chess
    import chess.pgn
except ImportError:
    print("python-chess is not installed (pip install chess)", file=sys.stderr)
    sys.exit(2)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Few pieces, castling rights to lose, pawns that can capture en passant.
WALK_STARTS = [
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/p7/8/1P6/8/8/8/R3K2R b KQkq - 0 1",
    "4k2r/8/8/8/3p4/8/4P3/R3K3 w Qk - 0 1",
    "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
    "8/8/4k3/8/8/3K4/8/Q7 w - - 0 1",
    "r3k3/8/8/2pP4/8/8/8/4K2R w Kq c6 0 2",
    "4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1",
    "1n2k1n1/8/8/8/8/8/8/1N2K1N1 w - - 0 1",
    "r3k2r/8/8/3Pp3/8/8/8/R3K2R w KQkq e6 0 2",
    "4k3/8/8/8/1p1p4/8/2P5/4K3 w - - 0 1",
]


def fide_key(board):
    ep = board.ep_square if board.has_legal_en_passant() else None
    return (board.board_fen(), board.turn, board.clean_castling_rights(), ep)


def rights_sensitive(game):
    """How many positions count differently when rights are ignored."""
    board = game.board()
    strict, loose, n = {}, {}, 0
    for move in [None] + list(game.mainline_moves()):
        if move is not None:
            board.push(move)
        k = fide_key(board)
        l = (board.board_fen(), board.turn)
        strict[k] = strict.get(k, 0) + 1
        loose[l] = loose.get(l, 0) + 1
        n += strict[k] != loose[l]
    return n


def counts_of(game):
    board = game.board()
    seen = {}
    out = []
    key = fide_key(board)
    seen[key] = 1
    out.append(1)
    for move in game.mainline_moves():
        board.push(move)
        key = fide_key(board)
        seen[key] = seen.get(key, 0) + 1
        out.append(seen[key])
    return out


def random_walk(rng, fen, plies):
    board = chess.Board(fen)
    game = chess.pgn.Game()
    game.setup(board)
    node = game
    history = []
    for _ in range(plies):
        if board.is_game_over(claim_draw=False):
            break
        moves = list(board.legal_moves)
        reversible = [m for m in moves if not board.is_zeroing(m)]
        choice = None
        # Undo the mover's previous move when possible: repetitions.
        if len(history) >= 2 and rng.random() < 0.6:
            back = chess.Move(history[-2].to_square, history[-2].from_square)
            if back in reversible:
                choice = back
        if choice is None:
            pool = reversible if reversible and rng.random() < 0.93 else moves
            choice = rng.choice(pool)
        board.push(choice)
        history.append(choice)
        node = node.add_variation(choice)
    game.headers["Event"] = "walk"
    game.headers["Result"] = "*"
    return game


def dump(args, files):
    rng = random.Random(args.seed)
    with open(args.dump, "w", encoding="utf-8") as out:
        def put(label, g):
            row = {"label": label, "pgn": str(g) + "\n", "counts": counts_of(g)}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        for path in files:
            with open(path, encoding="utf-8", errors="replace") as f:
                i = 0
                while (g := chess.pgn.read_game(f)) is not None:
                    i += 1
                    put(f"{os.path.basename(path)} game {i}", g)
        for i in range(args.walks):
            put(f"walk {i + 1} (seed {args.seed})",
                random_walk(rng, WALK_STARTS[i % len(WALK_STARTS)], args.plies))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--walks", type=int, default=400)
    ap.add_argument("--plies", type=int, default=200)
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--dump", metavar="OUT.jsonl", required=True)
    args = ap.parse_args()
    files = args.files or [os.path.join(ROOT, "corpora", "lichess_2025-05_sample.pgn")]
    dump(args, files)


if __name__ == "__main__":
    main()
