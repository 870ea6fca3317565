#!/usr/bin/env python3
"""chasolver's helpmates, replayed by python-chess.

python-chess has no helpmate search, but it can check a helpmate: each line
of LINES is `FEN;white|black;UCI MOVES`, a helpmate that chasolver's full
search found for that side through pgn-audit's wrapper (the audit's
`Possible`: the side can mate, no row). Every move must be legal in
python-chess, from the FEN as given (so the board the wrapper copied for
chasolver is the position), and the last must checkmate the other side.

    helpmate_check.py PGN_AUDIT_BINARY LINES

(the binary is not run: the lines come from the Rust test.) Exit status: 0
when every line mates, 1 otherwise, 2 without python-chess.
"""
import sys

try:
    import chess
except ImportError:
    print("python-chess is not installed", file=sys.stderr)
    sys.exit(2)


def check(fen, side, moves):
    """Why the line is no helpmate by `side`, or None where it is one."""
    board = chess.Board(fen)
    for i, uci in enumerate(moves):
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            return f"move {i + 1}, {uci}, is not legal in {board.fen()}"
        board.push(move)
    if not board.is_checkmate():
        return f"the line ends in {board.fen()}, no checkmate"
    if board.turn == side:
        return "the line mates the side that was to mate"
    return None


def main():
    lines = open(sys.argv[2]).read().splitlines()
    wrong = []
    plies = 0
    for line in lines:
        fen, side, moves = line.split(";")
        moves = moves.split()
        plies += len(moves)
        why = check(fen, side == "white", moves)
        if why:
            wrong.append(f"{line}: {why}")
    for w in wrong:
        print(w)
    print(f"helpmate cross-check: {len(lines)} helpmates of {plies} plies, {len(wrong)} disagree")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
