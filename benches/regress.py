#!/usr/bin/env python3
"""Reports before and after a change, byte for byte.

Builds pgn-audit at a base revision (default HEAD) in a scratch worktree and
at the work tree, runs both on the same inputs at -j1 and -j2 with --split,
and compares every report file (summary.json without `seconds` and
`threads`; report.html is left out, it shows the run's time). The inputs:
the bundled corpora/, and a findings-rich generated corpus (illegal
castles, Chess960, draw claims, missed draws, illegal and ambiguous moves,
notation quirks, random results), seeded, so every run makes the same one.

    benches/regress.py [--base REV] [--games N] [--seed S] [--keep DIR]

Needs python-chess (tests/setup-oracles installs it into target/pydeps).
Exit status 0 when every file is identical, 1 otherwise.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "target", "pydeps"), os.path.join(ROOT, "tests", "crosscheck")]

import chess  # noqa: E402
import castling_check  # noqa: E402
import claims_check  # noqa: E402
import moves_check  # noqa: E402

RESULTS = ["1-0", "0-1", "1/2-1/2", "*"]
ENDINGS = ["", " {Draw by repetition}", " {threefold}", " {50 moves}", " {a triple attack}"]


def generated(rng, n):
    """`n` games, a third each from the castling, claims and moves
    generators, with random results and claim words."""
    games = []
    for i in range(n // 3):
        case = castling_check.generate(rng, i + 1)
        games.append(case["pgn"].replace(" *\n", f" {rng.choice(RESULTS)}\n"))
    for i in range(n // 3):
        fen, board = claims_check.walk(rng)
        text = chess.Board(fen, chess960=board.chess960).variation_san(board.move_stack)
        variant = '[Variant "Chess960"]\n' if board.chess960 else ""
        result = rng.choice(RESULTS)
        games.append(
            f'[Event "claims {i}"]\n{variant}[Result "{result}"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n'
            f"{text}{rng.choice(ENDINGS)} {result}\n"
        )
    moves, _ = moves_check.make_games(rng, n - 2 * (n // 3))
    games += [g.replace(" *\n", f" {rng.choice(RESULTS)}\n") for g in moves]
    rng.shuffle(games)
    return games


def build(tree, target):
    env = dict(os.environ, CARGO_TARGET_DIR=target, CARGO_TERM_COLOR="never")
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=tree, env=env, check=True)
    return os.path.join(target, "release", "pgn-audit")


def reports(binary, inputs, out, threads):
    subprocess.run([binary, *inputs, "-o", out, "-j", str(threads), "--split"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files = {}
    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name)
        if name == "report.html" or not os.path.isfile(path) or name.startswith("."):
            continue
        data = open(path, "rb").read()
        if name == "summary.json":
            s = json.loads(data)
            for k in ("seconds", "threads", "helpmate_seconds"):
                s.pop(k, None)
            data = json.dumps(s, indent=1).encode()
        files[name] = data
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="HEAD")
    ap.add_argument("--games", type=int, default=15000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--keep", help="keep the generated corpus in this folder")
    args = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="pgn-audit-regress-")
    base_tree = os.path.join(scratch, "base")
    subprocess.run(["git", "worktree", "add", "-q", "--detach", base_tree, args.base], cwd=ROOT, check=True)
    try:
        # The base build keeps its own target folder between runs.
        before = build(base_tree, os.path.join(ROOT, "target", "regress-base"))
        after = build(ROOT, os.path.join(ROOT, "target"))
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", base_tree], cwd=ROOT)
    corpus = args.keep or os.path.join(scratch, "corpus")
    os.makedirs(corpus, exist_ok=True)
    games = generated(random.Random(args.seed), args.games)
    with open(os.path.join(corpus, "generated.pgn"), "w") as f:
        f.write("\n".join(games))
    inputs = [os.path.join(ROOT, "corpora"), os.path.join(corpus, "generated.pgn")]
    differ = 0
    for threads in (1, 2):
        a = reports(before, inputs, os.path.join(scratch, f"before-{threads}"), threads)
        b = reports(after, inputs, os.path.join(scratch, f"after-{threads}"), threads)
        for name in sorted(set(a) | set(b)):
            same = a.get(name) == b.get(name)
            differ += not same
            lines = (a.get(name) or b"").count(b"\n")
            print(f"-j{threads} {name:18} {'identical' if same else 'DIFFERS'} ({lines} lines before)")
    print(f"{len(games)} generated games; {differ} files differ; scratch: {scratch}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
