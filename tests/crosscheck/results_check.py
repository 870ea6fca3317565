#!/usr/bin/env python3
"""Cross-check of results.csv and the missed draw `dead_position` against
python-chess.

Random games from the start position and from endgames, captures preferred
(so that material runs out) and mates and stalemates taken where the walk
finds them, each given a random recorded result: a Result tag (sometimes
missing) and a result token (usually the same, sometimes another, sometimes
missing), and sometimes a loss on time (Termination `Time forfeit`, or a
final comment `White won on time`). python-chess decides the rows each game
must have:
- result_mismatch: the tag and the token are both there and differ;
- checkmate_not_scored: `is_checkmate()`, and the result is not the win of
  `outcome().winner`;
- stalemate_not_drawn: `is_stalemate()`, and the result is not `1/2-1/2`;
- dead_position_not_drawn: `is_insufficient_material()`, and a win;
- timeout_without_mating_material: lost on time, a win, and
  `has_insufficient_material(winner)`;
- missed_draws `dead_position`: the first ply after which
  `is_insufficient_material()` holds, when plies follow it.
The recorded result is the tag, or the token where the tag is missing.

python-chess has no helpmate search. A row pgn-audit gives on the basis
`helpmate_analysis` (v3) is checked instead by playing out every legal
continuation from its position with python-chess, up to 10 plies: no line
may end in a mate by the side said unable to mate, and every line must end
within them (in insufficient material for that side, or a stalemate, or a
mate by the other side). Such a dead position comes no later than the one
insufficient material gives (every position after a dead one is dead).

    results_check.py PGN_AUDIT_BINARY [--games N] [--seed S]

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
    chess.STARTING_FEN,
    "4k3/8/8/8/8/8/8/RN2K3 w Q - 0 40",
    "4k3/3p4/8/2b5/8/8/4P3/2B1K3 w - - 0 30",
    "2n1k3/8/8/8/8/8/8/1N2K2R w K - 0 50",
    "4k3/8/2q5/8/8/5N2/8/4K3 b - - 0 45",
    "r3k3/1p6/8/8/8/8/6P1/4K2R w Kq - 0 25",
    "4k3/8/8/8/3b4/8/4p3/4K3 b - - 0 60",
]

RESULTS = ["1-0", "0-1", "1/2-1/2", "*"]
CODES = [
    "result_mismatch",
    "checkmate_not_scored",
    "stalemate_not_drawn",
    "dead_position_not_drawn",
    "timeout_without_mating_material",
]


def ends_game(board, m):
    """Whether `m` mates or stalemates."""
    board.push(m)
    over = not any(board.generate_legal_moves())
    board.pop()
    return over


def walk(rng):
    board = chess.Board(rng.choice(STARTS))
    for _ in range(rng.randint(0, 160)):
        legal = list(board.legal_moves)
        if not legal:
            break
        if rng.random() < 0.2:
            enders = [m for m in legal if ends_game(board, m)]
            if enders:
                board.push(rng.choice(enders))
                continue
        captures = [m for m in legal if board.is_capture(m)]
        if captures and rng.random() < 0.7:
            board.push(rng.choice(captures))
        else:
            board.push(rng.choice(legal))
    return board


def expected_rows(board, tag, token, timeout):
    recorded = tag if tag is not None else (token or "")
    rows = []
    if tag is not None and token is not None and tag != token:
        rows.append(("result_mismatch", recorded, ""))
    outcome = board.outcome()
    if board.is_checkmate():
        win = "1-0" if outcome.winner == chess.WHITE else "0-1"
        if recorded != win:
            rows.append(("checkmate_not_scored", recorded, win))
    if board.is_stalemate() and recorded != "1/2-1/2":
        rows.append(("stalemate_not_drawn", recorded, "1/2-1/2"))
    winner = {"1-0": chess.WHITE, "0-1": chess.BLACK}.get(recorded)
    if winner is not None:
        if board.is_insufficient_material():
            rows.append(("dead_position_not_drawn", recorded, "1/2-1/2"))
        if timeout and board.has_insufficient_material(winner):
            rows.append(("timeout_without_mating_material", recorded, "1/2-1/2"))
    return rows


def expected_dead(board):
    """(ply, plies_after, fen) of the first dead position, or None."""
    replay = board.root()
    n = len(board.move_stack)
    for ply in range(n + 1):
        if replay.is_insufficient_material():
            return (ply, n - ply, replay.fen()) if ply < n else None
        if ply < n:
            replay.push(board.move_stack[ply])
    return None


def can_mate(board, side, depth=10):
    """True if some line of at most `depth` plies ends in a mate by `side`,
    False if every line ends without one, None if some line runs longer."""
    if board.is_checkmate():
        return board.turn != side
    if board.is_stalemate() or board.has_insufficient_material(side):
        return False
    if depth == 0:
        return None
    unknown = False
    for move in list(board.legal_moves):
        board.push(move)
        r = can_mate(board, side, depth - 1)
        board.pop()
        if r:
            return True
        unknown |= r is None
    return None if unknown else False


def proven_dead(fen):
    board = chess.Board(fen)
    return all(can_mate(board, side) is False for side in (chess.WHITE, chess.BLACK))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2017)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    games, cases = [], []
    for g in range(args.games):
        board = walk(rng)
        root = board.root()
        tag = rng.choice(RESULTS) if rng.random() < 0.9 else None
        token = tag if rng.random() < 0.8 else rng.choice(RESULTS + [None])
        if tag is None and token is None:
            token = rng.choice(RESULTS)
        timeout = rng.random() < 0.3
        comment_timeout = timeout and rng.random() < 0.3
        tags = [f'[Event "g{g}"]']
        if tag is not None:
            tags.append(f'[Result "{tag}"]')
        if root.fen() != chess.STARTING_FEN:
            tags.append(f'[SetUp "1"]\n[FEN "{root.fen()}"]')
        if timeout and not comment_timeout:
            tags.append('[Termination "Time forfeit"]')
        text = root.variation_san(board.move_stack)
        if comment_timeout:
            text += " {%s won on time}" % rng.choice(["White", "Black"])
        if token is not None:
            text += " " + token
        games.append("\n".join(tags) + "\n\n" + text + "\n")
        cases.append((board, tag, token, timeout))
    with tempfile.TemporaryDirectory() as d:
        pgn = os.path.join(d, "games.pgn")
        with open(pgn, "w") as f:
            f.write("\n".join(games))
        out = os.path.join(d, "reports")
        subprocess.run([args.binary, "--no-html", pgn, "-o", out], check=True, capture_output=True)

        def read(name):
            with open(os.path.join(out, name)) as f:
                return list(csv.DictReader(f))

        results, missed, errors = read("results.csv"), read("missed_draws.csv"), read("errors.csv")
    wrong = [f"game {e['game']}: error {e['kind']} {e['detail']}" for e in errors]
    ours, theirs = {}, {}
    helpmate = 0
    for r in results:
        if r["basis"] == "helpmate_analysis":
            helpmate += 1
            board = chess.Board(r["fen"])
            if r["code"] == "dead_position_not_drawn":
                ok = proven_dead(r["fen"])
            else:
                winner = chess.WHITE if r["recorded"] == "1-0" else chess.BLACK
                ok = can_mate(board, winner) is False
            if not ok:
                wrong.append(f"game {r['game']}: {r['code']} by helpmate analysis, "
                             f"not so in python-chess's search from {r['fen']}")
            continue
        ours.setdefault(int(r["game"]) - 1, []).append(
            (r["code"], r["recorded"], r["expected"], int(r["ply"]), r["fen"]))
    dead_ours = {int(r["game"]) - 1: (int(r["ply"]), int(r["plies_after"]), r["fen"], r["basis"])
                 for r in missed if r["rule"] == "dead_position"}
    counts = {c: 0 for c in CODES}
    dead_rows = 0
    for i, (board, tag, token, timeout) in enumerate(cases):
        n = len(board.move_stack)
        want = [(c, rec, exp, n, board.fen()) for c, rec, exp in expected_rows(board, tag, token, timeout)]
        # A row the helpmate analysis gives stands in for python-chess's
        # where both are about the same code (checked above).
        mine = {r["code"] for r in results
                if int(r["game"]) == i + 1 and r["basis"] == "helpmate_analysis"}
        want = [w for w in want if w[0] not in mine]
        for c, *_ in want:
            counts[c] += 1
        got = ours.get(i, [])
        if got != want:
            wrong.append(f"game {i + 1}: results {got}, python-chess {want} "
                         f"(tag {tag}, token {token}, timeout {timeout})")
        dead = expected_dead(board)
        dead_rows += dead is not None
        got = dead_ours.get(i)
        if got is not None and got[3] == "helpmate_analysis":
            helpmate += 1
            if not proven_dead(got[2]) or (dead is not None and dead[0] <= got[0]):
                wrong.append(f"game {i + 1}: dead_position {got} by helpmate analysis, "
                             f"python-chess {dead}")
        elif (got and got[:3]) != dead:
            wrong.append(f"game {i + 1}: dead_position {got}, python-chess {dead}")
    print(f"results cross-check: {len(cases)} games; " +
          ", ".join(f"{k} {v}" for k, v in counts.items()) +
          f", missed dead_position {dead_rows}, by helpmate analysis {helpmate}"
          f"; {len(wrong)} disagree")
    for w in wrong[:20]:
        print(w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
