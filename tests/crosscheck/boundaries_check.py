#!/usr/bin/env python3
"""Cross-check of game boundaries (contract v2, "Game boundaries" and "Not
games") against python-chess's `read_game` loop.

Random legal games, none of them ending in mate, stalemate or a dead
position (so every game is clean and `--split` writes each to clean.pgn),
written with every boundary form: blank lines in every allowed
place, no blank line between games, tag-only sections (Lichess studies),
`;` and `{ }` comment blocks and `%` lines between games, two games on one
line, NUL and Ctrl-Z tails, CRLF line ends. Two files are audited:

- `plain.pgn` holds only the forms python-chess reads as the contract
  does: pgn-audit must find as many games as python-chess, and its games
  (clean.pgn, read back by python-chess) must hold the same moves.
- `every.pgn` holds every form: pgn-audit must find the games the
  generator wrote, each one's text whole and in order in clean.pgn; the
  forms python-chess reads otherwise are printed (see DIFFERENCES).

    boundaries_check.py PGN_AUDIT_BINARY [--games N] [--seed S]

Exit status: 0 when all agree, 1 on a difference, 2 without python-chess.
"""
import argparse
import io
import json
import os
import random
import subprocess
import sys
import tempfile

try:
    import chess
    import chess.pgn
    import logging
except ImportError:
    print("python-chess is not installed", file=sys.stderr)
    sys.exit(2)

logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)

RESULTS = ["1-0", "0-1", "1/2-1/2", "*"]

# Forms python-chess reads otherwise, and how.
DIFFERENCES = {
    "blank_in_movetext": "a blank line inside the movetext ends python-chess's game",
    "comment_blank_first_move": "a blank line between a comment and `1.` ends python-chess's game",
    "two_blanks_after_tags": "two blank lines after the tags end python-chess's game before its moves",
    "tag_only_section": "python-chess joins a tag-only section to the next game's tags",
    "brace_block": "python-chess reads a `{ }` comment block between games as a game",
    "same_line": "python-chess reads a game that follows a result on its line as more moves of the first",
    "nul_tail": "python-chess reads a line of NULs or Ctrl-Z at the end as a game",
}


def movetext(rng):
    """Random legal moves as numbered SAN tokens, none of them ending the
    game (so every game is clean, whatever its result), and the moves."""
    board, tokens = chess.Board(), []
    for _ in range(rng.randint(1, 40)):
        moves = [m for m in board.legal_moves if not ends(board, m)]
        if not moves:
            break
        m = rng.choice(moves)
        if board.turn == chess.WHITE:
            tokens.append(f"{board.fullmove_number}.")
        tokens.append(board.san(m))
        board.push(m)
    return tokens, [m.uci() for m in board.move_stack]


def ends(board, move):
    board.push(move)
    over = board.is_game_over() or board.has_insufficient_material(chess.WHITE) \
        or board.has_insufficient_material(chess.BLACK)
    board.pop()
    return over


def game(rng, i, form, nl):
    """One game as text in `form`, and its moves (none for a tag-only
    section)."""
    result = rng.choice(RESULTS)
    tags = f'[Event "Game {i}"]{nl}[Site "x"]{nl}[Result "{result}"]{nl}'
    if form == "tag_only_section":
        return tags, []
    tokens, moves = movetext(rng)
    if form == "blank_in_movetext":
        k = rng.randint(1, len(tokens) - 1)
        body = " ".join(tokens[:k]) + nl + nl + " ".join(tokens[k:])
    else:
        body = " ".join(tokens)
    if form == "comment_blank_first_move":
        body = "{ Notes }" + nl + nl + body
    sep = nl if form != "two_blanks_after_tags" else nl + nl
    return f"{tags}{sep}{body} {result}", moves


PLAIN = ["plain", "plain", "plain", "no_blank_after", "semicolon_block", "percent_line"]
EVERY = PLAIN + list(DIFFERENCES)


def build(rng, n, forms, nl):
    """The file's text, and each game's form, text and moves."""
    chosen = [rng.choice(forms) for _ in range(n)]
    chosen = ["plain" if f == "nul_tail" else f for f in chosen]
    parts, games = [], []
    for i, form in enumerate(chosen, 1):
        text, moves = game(rng, i, form, nl)
        games.append((form, text, moves))
        if form == "semicolon_block":
            parts.append(f"; TCEC game {i}{nl}; engine notes{nl}{nl}")
        elif form == "percent_line":
            parts.append(f"% escape {i}{nl}")
        elif form == "brace_block":
            parts.append(f"{{ block {i} }}{nl}{nl}")
        parts.append(text)
        following = chosen[i] if i < n else None
        if form == "same_line" and following in ("plain", "same_line", "no_blank_after"):
            # The next game's tags right after the result.
            parts.append(" ")
        elif form == "no_blank_after":
            parts.append(nl)
        else:
            parts.append(nl + nl)
    if "nul_tail" in forms:
        parts.append("\0\0" + nl + "\x1a")
        games.append(("nul_tail", None, None))
    return "".join(parts), games


def python_chess(text):
    """The moves of each game python-chess reads in `text`."""
    handle, out = io.StringIO(text, newline=""), []
    while True:
        g = chess.pgn.read_game(handle)
        if g is None:
            return out
        out.append([m.uci() for m in g.mainline_moves()])


def pgn_audit(binary, text, tmp, name):
    """pgn-audit's summary and its clean.pgn (every game must be clean)."""
    path = os.path.join(tmp, name)
    with open(path, "w", newline="") as f:
        f.write(text)
    out = os.path.join(tmp, name + ".out")
    subprocess.run([binary, path, "-o", out, "-j", "2", "--no-html", "--quiet", "--split"], check=True)
    summary = json.load(open(os.path.join(out, "summary.json")))
    with open(os.path.join(out, "clean.pgn"), newline="") as f:
        return summary, f.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--seed", type=int, default=18)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for nl in ["\n", "\r\n"]:
            # Only forms python-chess reads as the contract does: pgn-audit's
            # games, read back from clean.pgn, are python-chess's.
            text, games = build(rng, args.games, PLAIN, nl)
            theirs = python_chess(text)
            summary, clean = pgn_audit(args.binary, text, tmp, "plain.pgn")
            ours = python_chess(clean)
            if (summary["games"], summary["clean"]) != (len(theirs), len(theirs)):
                print(f"plain {nl!r}: {summary['games']} games, {summary['clean']} clean, "
                      f"python-chess {len(theirs)}")
                bad += 1
            for i, (a, b) in enumerate(zip(ours, theirs), 1):
                if a != b:
                    print(f"plain {nl!r} game {i}: {len(a)} moves, python-chess {len(b)}")
                    bad += 1
            print(f"plain {nl!r}: {summary['games']} games, python-chess {len(theirs)}")
            # Every form: the games as written, each one's text whole and in
            # order in clean.pgn, nothing else of a game between them.
            text, games = build(rng, args.games, EVERY, nl)
            written = [(f, t, m) for f, t, m in games if t is not None]
            summary, clean = pgn_audit(args.binary, text, tmp, "every.pgn")
            if (summary["games"], summary["clean"]) != (len(written), len(written)):
                print(f"every {nl!r}: {summary['games']} games, {summary['clean']} clean, "
                      f"{len(written)} written")
                bad += 1
            at = 0
            for i, (form, t, _) in enumerate(written, 1):
                k = clean.find(t, at)
                if k < 0 or "[Event" in clean[at:k]:
                    print(f"every {nl!r} game {i} ({form}) is not read as written")
                    bad += 1
                    break
                at = k + len(t)
            theirs = python_chess(text)
            same = sum(a == b for a, (_, _, b) in zip(theirs, written))
            forms = sorted({f for f, _, _ in games if f in DIFFERENCES})
            print(f"every {nl!r}: {len(written)} games, python-chess {len(theirs)} "
                  f"({same} read alike from the start); "
                  f"forms it reads otherwise: {', '.join(forms)}")
    print(f"{2 * args.games} plain and {2 * args.games} mixed games: {bad} disagree")
    for form, why in DIFFERENCES.items():
        print(f"  {form}: {why}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
