#!/usr/bin/env python3
"""Cross-check of the v3 readings that python-chess reads as the contract
does (issue 28): evaluation glyphs standing alone between moves (`+-`,
`=`, `±`, `!?`), en-passant captures written with `ep` or `e.p.` before
their check mark (`exf6ep+`), and a FEN whose en-passant square no double
step can have made (dropped).

Random legal games (en-passant captures preferred, where one is legal),
some from positions of random games with an impossible en-passant square
written into their FEN, each ending `{Draw by repetition} 1/2-1/2` so that
pgn-audit's claims.csv names the final position and the last ply. For every
game python-chess must read it without an error, and pgn-audit must audit
it to its end (no errors.csv row) to the same final position (claims.csv's
`fen`) after the same number of plies; quirks.csv must hold exactly one
`annotation_glyph` row per glyph written, at the ply it follows, one
`en_passant_suffix` row per suffix written, and one
`impossible_en_passant_square` row per square written.

    reading_check.py PGN_AUDIT_BINARY [--games N] [--seed S]

Exit status: 0 when all agree, 1 on a difference, 2 without python-chess.
"""
import argparse
import csv
import io
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter

try:
    import chess
    import chess.pgn
except ImportError:
    print("python-chess is not installed", file=sys.stderr)
    sys.exit(2)

GLYPHS = ["+-", "-+", "+/-", "-/+", "=", "+=", "=+", "±", "∓", "⩲", "⩱", "∞", "=/∞",
          "!!", "??", "!?", "?!", "‼", "⁇", "⁉", "⁈", "□"]


def impossible_ep(rng, board):
    """An en-passant square on the rank behind the side that just moved's
    pawns where no pawn of theirs stands in front of it, if any."""
    rank = 5 if board.turn == chess.WHITE else 2
    front = 4 if board.turn == chess.WHITE else 3
    them = not board.turn
    squares = [chess.square(f, rank) for f in range(8)
               if board.piece_at(chess.square(f, front)) != chess.Piece(chess.PAWN, them)]
    return rng.choice(squares) if squares else None


def make_game(rng, i):
    """One game's text, and what it must read as: python-chess's final
    board, the plies, the glyph plies, the suffixes and the dropped square."""
    start = chess.Board()
    fen_tag, dropped = "", None
    if rng.random() < 0.3:
        for _ in range(rng.randint(2, 30)):
            legal = list(start.legal_moves)
            if not legal:
                break
            start.push(rng.choice(legal))
        if start.is_game_over():
            start = chess.Board()
        else:
            ep = impossible_ep(rng, start)
            if ep is not None:
                parts = start.fen().split()
                parts[3] = chess.square_name(ep)
                fen_tag = " ".join(parts)
                dropped = chess.square_name(ep)
                start = chess.Board(fen_tag)
    board = start.copy(stack=False)
    tokens, glyph_plies, suffixes = [], [], 0
    for ply in range(1, rng.randint(1, 80) + 1):
        legal = list(board.legal_moves)
        if dropped and ply == 1:
            # python-chess takes the dropped square's "capture" of a pawn
            # that is not there: left out, python-chess reads it wrong.
            legal = [m for m in legal if not board.is_en_passant(m)]
        if not legal:
            break
        ep_moves = [m for m in legal if board.is_en_passant(m)]
        m = rng.choice(ep_moves) if ep_moves and rng.random() < 0.8 else rng.choice(legal)
        if board.turn == chess.WHITE:
            tokens.append(f"{board.fullmove_number}.")
        elif ply == 1:
            tokens.append(f"{board.fullmove_number}...")
        san = board.san(m)
        if board.is_en_passant(m):
            mark = san[len(san.rstrip("+#")):]
            body = san[: len(san) - len(mark)]
            suffix = rng.choice(["ep", "e.p.", "ep", "ep"])
            san = body + suffix + mark
            suffixes += 1
        tokens.append(san)
        board.push(m)
        if rng.random() < 0.15:
            tokens.append(rng.choice(GLYPHS))
            glyph_plies.append(ply)
    plies = len(board.move_stack)
    tags = f'[Event "Game {i}"]\n[Result "1/2-1/2"]\n'
    if fen_tag:
        tags += f'[SetUp "1"]\n[FEN "{fen_tag}"]\n'
    text = f"{tags}\n{' '.join(tokens)} {{Draw by repetition}} 1/2-1/2\n"
    return text, board, plies, glyph_plies, suffixes, dropped


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=28)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    games = [make_game(rng, i) for i in range(1, args.games + 1)]
    bad = 0
    # python-chess reads every game as written.
    for i, (text, board, plies, *_rest) in enumerate(games, 1):
        g = chess.pgn.read_game(io.StringIO(text))
        end = g.end().board()
        if g.errors or end.fen() != board.fen() or len(list(g.mainline_moves())) != plies:
            print(f"game {i}: python-chess reads it otherwise: {g.errors}")
            bad += 1
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "games.pgn")
        with open(path, "w") as f:
            f.write("\n".join(t for t, *_ in games))
        out = os.path.join(tmp, "out")
        subprocess.run([args.binary, path, "-o", out, "-j", "2", "--quiet", "--no-html",
                        "--quirks"], check=True)
        errors = rows(os.path.join(out, "errors.csv"))
        claims = {int(r["game"]): r for r in rows(os.path.join(out, "claims.csv"))}
        quirks = rows(os.path.join(out, "quirks.csv"))
    for r in errors:
        print(f"game {r['game']}: {r['kind']} at ply {r['ply']} {r['san']}: {r['detail']}")
        bad += 1
    glyphs, suffixes, squares = Counter(), Counter(), {}
    for q in quirks:
        g = int(q["game"])
        codes = q["quirk"].split(";")
        if "annotation_glyph" in codes:
            glyphs[g, int(q["ply"])] += 1
        if "en_passant_suffix" in codes:
            suffixes[g] += 1
        if "impossible_en_passant_square" in codes:
            squares[g] = q["san"]
    for i, (_, board, plies, glyph_plies, n_suffixes, dropped) in enumerate(games, 1):
        c = claims.get(i)
        if c is None or c["fen"] != board.fen() or int(c["ply"]) != plies:
            print(f"game {i}: pgn-audit ends at {c and (c['ply'], c['fen'])}, "
                  f"python-chess at {plies}, {board.fen()}")
            bad += 1
        if Counter({(i, p): n for p, n in Counter(glyph_plies).items()}) != \
                Counter({k: n for k, n in glyphs.items() if k[0] == i}):
            print(f"game {i}: glyphs at {sorted(glyph_plies)}, quirks.csv "
                  f"{sorted(p for (g, p) in glyphs.elements() if g == i)}")
            bad += 1
        if suffixes[i] != n_suffixes or squares.get(i) != dropped:
            print(f"game {i}: {n_suffixes} suffixes and {dropped} dropped written, "
                  f"quirks.csv {suffixes[i]} and {squares.get(i)}")
            bad += 1
    print(f"{len(games)} games, {sum(len(g[3]) for g in games)} glyphs, "
          f"{sum(g[4] for g in games)} en-passant suffixes, "
          f"{sum(g[5] is not None for g in games)} impossible en-passant squares: "
          f"{bad} disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
