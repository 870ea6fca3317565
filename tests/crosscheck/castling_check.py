#!/usr/bin/env python3
"""Cross-check cases for the castling audit, labelled by python-chess.

Writes one JSON object per line: {"origin", "pgn", "castles", "stop"} where
`castles` lists every castling move of the mainline as [ply, legal, san] with
`legal` decided by python-chess (is a castle to that side among the legal
moves?), and `stop` is the ply of a castle that cannot be played as written
(the game ends there), or null.

Games come from two places:
  * generated: random games from the standard array, from standard FENs with
    rights withheld, and from random Chess960 arrays (X-FEN or Shredder-FEN),
    where castles are played when legal and also forced when illegal by
    writing O-O / O-O-O (or the king move) into the movetext; an illegal
    castle is then played as written, as the report contract says;
  * every game of every PGN file under the corpus directories.

The Rust test tests/castling_crosscheck.rs runs this script and compares its labels
with the tool's castling rows.

Usage: castling_check.py OUT.jsonl [--games N] [--seed S] [--corpora DIR ...]
"""

import argparse
import json
import os
import random
import re
import sys

import chess
import chess.pgn

CASTLE_TOKEN = re.compile(r"^(?:O-O(?:-O)?|0-0(?:-0)?)")
KING_TOKEN = re.compile(r"^Kx?([a-h][1-8])")


def side_rooks(board, color, king_sq, kingside):
    """Squares of `color`'s rooks on its back rank on that side of the king."""
    rank = 0 if color == chess.WHITE else 7
    squares = []
    for sq in board.pieces(chess.ROOK, color):
        if chess.square_rank(sq) != rank:
            continue
        f, kf = chess.square_file(sq), chess.square_file(king_sq)
        if (kingside and f > kf) or (not kingside and f < kf):
            squares.append(sq)
    return squares


def legal_castle(board, kingside):
    for m in board.legal_moves:
        if board.is_castling(m) and board.is_kingside_castling(m) == kingside:
            return m
    return None


class Homes:
    """The rook squares castling refers to (the contract's rule), per game."""

    def __init__(self, board, chess960):
        self.rook = {}
        for color in chess.COLORS:
            rank = 0 if color == chess.WHITE else 7
            king = board.king(color)
            for kingside in (True, False):
                if not chess960:
                    self.rook[color, kingside] = chess.square(7 if kingside else 0, rank)
                    continue
                own = [sq for sq in chess.SquareSet(board.castling_rights) if chess.square_rank(sq) == rank]
                other = [
                    chess.square(chess.square_file(sq), rank)
                    for sq in chess.SquareSet(board.castling_rights)
                    if chess.square_rank(sq) == 7 - rank
                ]

                def on_side(sq):
                    return king is not None and (
                        chess.square_file(sq) > chess.square_file(king)
                        if kingside
                        else chess.square_file(sq) < chess.square_file(king)
                    )

                pick = [sq for sq in own if on_side(sq)] or [sq for sq in other if on_side(sq)]
                if pick:
                    self.rook[color, kingside] = pick[0]
                    continue
                rooks = side_rooks(board, color, king, kingside) if king is not None else []
                self.rook[color, kingside] = (max(rooks) if kingside else min(rooks)) if rooks else None


def as_written(board, homes, kingside):
    """The castle as written: (move, playable). The king goes to g/c, the rook
    on the side's rook square (else the one nearest the king) to f/d."""
    color = board.turn
    king = board.king(color)
    rank = 0 if color == chess.WHITE else 7
    if king is None or chess.square_rank(king) != rank:
        return None, False
    rooks = side_rooks(board, color, king, kingside)
    if not rooks:
        return None, False
    home = homes.rook[color, kingside]
    if home in rooks:
        rook = home
    else:
        rook = min(rooks) if kingside else max(rooks)
    king_to = chess.square(6 if kingside else 2, rank)
    rook_to = chess.square(5 if kingside else 3, rank)
    for sq in (king_to, rook_to):
        if sq not in (king, rook) and board.piece_at(sq) is not None:
            return chess.Move(king, rook), False
    return chess.Move(king, rook), True


def castle_intent(board, token):
    """O-O, O-O-O (with zeros too), or a king move that can only be castling."""
    m = CASTLE_TOKEN.match(token)
    if m:
        return not m.group(0).endswith(("-O-O", "-0-0"))
    m = KING_TOKEN.match(token)
    if not m:
        return None
    to = chess.parse_square(m.group(1))
    king = board.king(board.turn)
    rank = 0 if board.turn == chess.WHITE else 7
    if king is None or chess.square_rank(king) != rank or chess.square_rank(to) != rank:
        return None
    piece = board.piece_at(to)
    if piece is not None and piece.color == board.turn and piece.piece_type == chess.ROOK:
        return chess.square_file(to) > chess.square_file(king)
    distance = abs(chess.square_file(to) - chess.square_file(king))
    if distance >= 2 and chess.square_file(to) in (2, 6):
        return chess.square_file(to) == 6
    return None


def play_castle(board, homes, kingside):
    """Labels and plays a castle; returns (legal, playable)."""
    legal = legal_castle(board, kingside)
    if legal is not None:
        board.push(legal)
        return True, True
    move, playable = as_written(board, homes, kingside)
    if playable:
        board.push(move)
    return False, playable


def movetext(board_start, tokens):
    """Numbered movetext from the start position."""
    parts = []
    number = board_start.fullmove_number
    white = board_start.turn == chess.WHITE
    for i, tok in enumerate(tokens):
        if white:
            parts.append(f"{number}. {tok}")
        else:
            parts.append(f"{number}... {tok}" if i == 0 else tok)
            number += 1
        white = not white
    return " ".join(parts)


def headers_text(headers):
    return "".join(f'[{k} "{v}"]\n' for k, v in headers.items())


def castle_written(board, kingside, move, rng):
    """How a castle is written: O-O, 0-0, or as a king move."""
    r = rng.random()
    if r < 0.1:
        return "0-0" if kingside else "0-0-0"
    if r < 0.25 and move is not None:
        king = move.from_square
        rook = move.to_square
        if board.chess960:
            return "Kx" + chess.square_name(rook)
        if chess.square_file(king) == 4:
            return "K" + ("g" if kingside else "c") + chess.square_name(king)[1]
    return "O-O" if kingside else "O-O-O"


def pick_move(board, rng):
    moves = [m for m in board.legal_moves if board.piece_type_at(m.to_square) != chess.KING]
    if not moves:
        return None
    castles = [m for m in moves if board.is_castling(m)]
    if castles and rng.random() < 0.5:
        return rng.choice(castles)
    if rng.random() < 0.35:
        walks = [m for m in moves if board.piece_type_at(m.from_square) in (chess.KING, chess.ROOK)]
        if walks:
            return rng.choice(walks)
    return rng.choice(moves)


def generate(rng, index):
    kind = rng.random()
    headers = {"Event": f"crosscheck {index}"}
    chess960 = kind < 0.5
    if chess960:
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        headers["Variant"] = "Chess960"
    else:
        board = chess.Board()
    if rng.random() < 0.3:
        # Withhold some rights in a FEN (the rook squares stay the array's).
        rights = [sq for sq in chess.SquareSet(board.castling_rights) if rng.random() < 0.6]
        board.castling_rights = chess.SquareSet(rights).mask
    if chess960 or board.castling_rights != chess.BB_CORNERS:
        headers["SetUp"] = "1"
        headers["FEN"] = board.fen(shredder=chess960 and rng.random() < 0.5)
    start = board.copy()
    homes = Homes(board, chess960)
    tokens, castles, stop = [], [], None
    force = rng.choice([0.01, 0.03, 0.08])
    for ply in range(1, rng.randrange(20, 90)):
        if board.is_game_over():
            break
        color = board.turn
        king = board.king(color)
        rank = 0 if color == chess.WHITE else 7
        if king is not None and chess.square_rank(king) == rank and rng.random() < force:
            sides = [s for s in (True, False) if side_rooks(board, color, king, s)]
            if rng.random() < 0.85:
                # Mostly castles that can be played, so that the game goes on.
                sides = [s for s in sides if as_written(board, homes, s)[1]]
            elif rng.random() < 0.1:
                sides = [True, False]  # sometimes with no rook at all
            if sides:
                kingside = rng.choice(sides)
                move, _ = as_written(board, homes, kingside)
                written = castle_written(board, kingside, move, rng)
                legal, playable = play_castle(board, homes, kingside)
                tokens.append(written)
                castles.append([ply, legal, written])
                if not playable:
                    stop = ply
                    break
                continue
        m = pick_move(board, rng)
        if m is None:
            break
        if board.is_castling(m):
            kingside = board.is_kingside_castling(m)
            written = castle_written(board, kingside, m, rng)
            castles.append([ply, True, written])
            tokens.append(written)
        else:
            tokens.append(board.san(m))
        board.push(m)
    pgn = headers_text(headers) + "\n" + movetext(start, tokens) + " *\n"
    return {"origin": "generated-960" if chess960 else "generated", "pgn": pgn, "castles": castles, "stop": stop}


class Labeller(chess.pgn.BaseVisitor):
    """Reads a game's mainline, playing illegal castles as written."""

    def begin_game(self):
        self.headers = {}
        self.tokens = []
        self.castles = []
        self.stop = None
        self.homes = None
        self.start = None
        self.failed = None

    def visit_header(self, tagname, tagvalue):
        self.headers[tagname] = tagvalue

    def end_headers(self):
        return None

    def begin_variation(self):
        return chess.pgn.SKIP

    def parse_san(self, board, san):
        if self.start is None:
            self.start = board.copy()
            self.homes = Homes(board, board.chess960)
        if self.failed is not None or self.stop is not None:
            raise ValueError("stopped")
        ply = len(self.tokens) + 1
        try:
            move = board.parse_san(san)
        except ValueError:
            kingside = castle_intent(board, san)
            if kingside is None:
                self.failed = san
                raise
            self.tokens.append(san)
            legal = legal_castle(board, kingside)
            if legal is not None:  # a legal castle written as a king move
                self.castles.append([ply, True, san])
                return legal
            move, playable = as_written(board, self.homes, kingside)
            self.castles.append([ply, False, san])
            if not playable:
                self.stop = ply
                raise ValueError("unplayable castle")
            return move
        self.tokens.append(san)
        if board.is_castling(move):
            self.castles.append([ply, True, san])
        return move

    def handle_error(self, error):
        pass

    def result(self):
        return self


def corpus_cases(dirs):
    for top in dirs:
        paths = []
        for root, _, files in os.walk(top):
            paths += [os.path.join(root, f) for f in files if f.endswith(".pgn")]
        for path in sorted(paths):
            with open(path, encoding="utf-8", errors="replace") as f:
                n = 0
                while True:
                    game = chess.pgn.read_game(f, Visitor=Labeller)
                    if game is None:
                        break
                    n += 1
                    if game.start is None or game.failed is not None:
                        continue  # no moves, or a move no castling explains
                    headers = {k: v for k, v in game.headers.items() if k in ("Event", "Variant", "SetUp", "FEN")}
                    pgn = headers_text(headers) + "\n" + movetext(game.start, game.tokens) + " *\n"
                    yield {"origin": f"{path}#{n}", "pgn": pgn, "castles": game.castles, "stop": game.stop}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--corpora", nargs="*", default=[])
    args = ap.parse_args()
    rng = random.Random(args.seed)
    stats = {"games": 0, "castles": 0, "legal": 0, "illegal": 0}
    with open(args.out, "w") as out:
        cases = [generate(rng, i + 1) for i in range(args.games)]
        for case in cases + list(corpus_cases(args.corpora)):
            out.write(json.dumps(case) + "\n")
            stats["games"] += 1
            stats["castles"] += len(case["castles"])
            stats["legal"] += sum(1 for c in case["castles"] if c[1])
            stats["illegal"] += sum(1 for c in case["castles"] if not c[1])
    print(json.dumps(stats), file=sys.stderr)


if __name__ == "__main__":
    main()
