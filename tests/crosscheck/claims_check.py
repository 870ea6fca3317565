#!/usr/bin/env python3
"""Cross-check of draw-claim verdicts against python-chess.

Random walks from endgame and castling positions, one of them Chess960 (few pieces, many
reversible moves, so positions repeat; FEN halfmove clocks near 100), each
ending with a comment that claims both a threefold repetition and the
fifty-move rule. For each game, pgn-audit's claims.csv rows are compared with
python-chess:
- threefold: `occurrences` equals python-chess's count of the final position
  (FIDE identity: `Board._transposition_key`, legal en passant), and the
  verdict upholds the claim (valid, valid_on_announced_move) exactly when
  `Board.can_claim_threefold_repetition()` does, but for the contract's one
  exception: a final position that stands three times when rights are
  ignored is judged on itself (Karpov-Miles), even where a move could make
  another position's third occurrence;
- fifty moves: valid exactly when the halfmove clock is at least 100, and
  valid or valid_on_announced_move exactly when
  `Board.can_claim_fifty_moves()` says so (but for announced moves that all
  mate, which python-chess does not exclude, and for games ending in mate or
  stalemate, where python-chess allows no claim at all).

    claims_check.py PGN_AUDIT_BINARY [--games N] [--seed S]

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

STARTS = [
    "4k3/8/8/8/8/8/8/R3K3 w - - {c} 60",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - {c} 30",
    "4k3/8/3q4/8/8/3R4/8/4K3 w - - {c} 45",
    "4k3/3p4/8/4P3/8/8/8/4K3 b - - {c} 40",
    "1n2k3/8/8/8/8/8/8/1N2K3 w - - {c} 70",
    "r3k3/8/8/8/8/8/8/4K2R b q - {c} 22",
    # Chess960 (Shredder-FEN rights): rooks on b and g, king on e.
    "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - {c} 12",
]


def walk(rng):
    fen = rng.choice(STARTS).format(c=rng.choice([0, 0, 90, 95, 96, 97, 98, 99]))
    board = chess.Board(fen, chess960="GB" in fen)
    for _ in range(rng.randint(1, 60)):
        legal = list(board.legal_moves)
        if not legal or board.is_fivefold_repetition():
            break
        # Back-and-forth moves make repetitions: prefer undoing the last move.
        if board.move_stack and rng.random() < 0.5 and len(board.move_stack) >= 2:
            back = board.move_stack[-2]
            undo = chess.Move(back.to_square, back.from_square)
            if undo in legal:
                board.push(undo)
                continue
        board.push(rng.choice(legal))
    return fen, board


def fide_count(board):
    key = board._transposition_key()
    probe = board.copy()
    n = int(probe._transposition_key() == key)
    while probe.move_stack:
        probe.pop()
        n += probe._transposition_key() == key
    return n


def loose_count(board):
    key = (board.board_fen(), board.turn)
    probe = board.copy()
    n = 1
    while probe.move_stack:
        probe.pop()
        n += (probe.board_fen(), probe.turn) == key
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=2025)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    games, boards = [], []
    for g in range(args.games):
        fen, board = walk(rng)
        text = chess.Board(fen, chess960=board.chess960).variation_san(board.move_stack)
        variant = '[Variant "Chess960"]\n' if board.chess960 else ""
        games.append(
            f'[Event "g{g}"]\n{variant}[Result "1/2-1/2"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n'
            f"{text} {{claims a threefold repetition and the fifty-move rule}} 1/2-1/2\n"
        )
        boards.append(board)
    with tempfile.TemporaryDirectory() as d:
        pgn = os.path.join(d, "games.pgn")
        with open(pgn, "w") as f:
            f.write("\n".join(games))
        out = os.path.join(d, "reports")
        subprocess.run([args.binary, "--no-html", pgn, "-o", out], check=True, capture_output=True)
        rows = {}
        with open(os.path.join(out, "claims.csv")) as f:
            for r in csv.DictReader(f):
                rows[(int(r["game"]) - 1, r["claim"])] = r
        with open(os.path.join(out, "errors.csv")) as f:
            errors = list(csv.DictReader(f))
    wrong = [f"game {e['game']}: error {e['kind']} {e['detail']}" for e in errors]
    counts = {"threefold upheld": 0, "threefold false": 0, "karpov": 0,
              "fifty upheld": 0, "fifty false": 0}
    upheld = ("valid", "valid_on_announced_move")
    for i, board in enumerate(boards):
        t = rows.get((i, "threefold"))
        f = rows.get((i, "fifty_moves"))
        if t is None or f is None:
            wrong.append(f"game {i + 1}: a claim row is missing")
            continue
        if int(t["occurrences"]) != fide_count(board):
            wrong.append(f"game {i + 1}: occurrences {t['occurrences']}, python-chess {fide_count(board)}")
        if int(t["occurrences_ignoring_rights"]) != loose_count(board):
            wrong.append(f"game {i + 1}: ignoring rights {t['occurrences_ignoring_rights']}, "
                         f"python-chess {loose_count(board)}")
        theirs = board.can_claim_threefold_repetition()
        ours = t["verdict"] in upheld
        if ours == theirs:
            counts["threefold upheld" if ours else "threefold false"] += 1
        elif theirs and not board.is_repetition(3) and loose_count(board) >= 3 \
                and t["verdict"] in ("false_castling_rights", "false_en_passant"):
            counts["karpov"] += 1
        else:
            wrong.append(f"game {i + 1}: threefold {t['verdict']}, python-chess "
                         f"can_claim={theirs} ({board.fen()})")
        if (f["verdict"] == "valid") != (board.halfmove_clock >= 100):
            wrong.append(f"game {i + 1}: fifty {f['verdict']} with clock {board.halfmove_clock}")
        if board.is_checkmate() or board.is_stalemate():
            # python-chess allows no claim once the game is over; the
            # contract judges the clock alone.
            continue
        theirs = board.can_claim_fifty_moves()
        ours = f["verdict"] in upheld
        if ours == theirs:
            counts["fifty upheld" if ours else "fifty false"] += 1
        else:
            mates = all(board.is_zeroing(m) or board.gives_check(m) and _mates(board, m)
                        for m in board.legal_moves)
            if not (theirs and mates):
                wrong.append(f"game {i + 1}: fifty {f['verdict']}, python-chess can_claim={theirs}")
    print(f"claims cross-check: {len(boards)} games; " +
          ", ".join(f"{k} {v}" for k, v in counts.items()) + f"; {len(wrong)} disagree")
    for w in wrong[:20]:
        print(w)
    return 1 if wrong else 0


def _mates(board, m):
    board.push(m)
    mate = board.is_checkmate()
    board.pop()
    return mate


if __name__ == "__main__":
    sys.exit(main())
