"""Seeds the fuzz corpora from corpora/: one game a file for audit_game,
three games a file for audit_bytes, and a few hand-made damaged inputs."""
import os
import re

here = os.path.dirname(os.path.abspath(__file__))
data = open(os.path.join(here, '..', 'corpora', 'lichess_2025-05_sample.pgn'), 'rb').read()
games = re.split(rb'\n\n(?=\[Event)', data)
for d in ('audit_game', 'audit_bytes'):
    os.makedirs(os.path.join(here, 'corpus', d), exist_ok=True)
for i, g in enumerate(games):
    open(os.path.join(here, 'corpus', 'audit_game', f'g{i:03d}'), 'wb').write(g)
for i in range(0, len(games), 20):
    open(os.path.join(here, 'corpus', 'audit_bytes', f'b{i:03d}'), 'wb').write(b'\n\n'.join(games[i:i + 3]))
extra = [
    b'1. e4 { x\n\n} e5 (1. d4 (1. c4)) $1 1-0 2. Nf3\n\n\xef\xbb\xbf[Event "a"\r\n\r\n1. -- Z0 O-O 0-0-0 e8Q *',
    b'[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]\n[Variant "Chess960"]\n\n1. e4 *\n%esc\n\n\x00\xff[',
    b'[FEN "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w GEge - 0 1"]\n\n1. g3 g6 2. Bg2 Bg7 3. Ne3 Ne6 4. O-O O-O *',
    # A castle into check and a reply that takes the king; prose and a
    # second result after a result; a German promotion.
    b'[FEN "4k3/6r1/8/8/8/8/8/4K2R w K - 0 1"]\n\n1. O-O Rxg1 *\n',
    b'[Result "1-0"]\n\n1. e4 e5 1-0 0-1\nWhite won.\n----\n1. d4 *\n',
    b'[FEN "8/P6k/8/8/8/8/7K/8 w - - 0 1"]\n\n1. a8=D Kg6 2. Dg8+ *\n',
    # An e.p. apart with its check mark, a promotion apart, long algebraic,
    # a forum's [pgn] wrapper, and a rook whose capture is forced.
    b'[FEN "8/8/8/2k5/3pP3/8/5K2/8 b - e3 0 10"]\n\n10... dxe3 e.p.+ 11. Kxe3 *\n',
    b'[FEN "8/4P1k1/8/8/8/8/7p/4K3 w - - 0 1"]\n\n1. e8 =Q Kh6 2. Qh8+ Kg5 3. Kd2 h1 =D+ *\n',
    b'[pgn]\n[White "A"]\n\n1. b2-b3 e7-e5 2. Bc1-b2 d7-d6 3. e2-e4 =Q *\n[/pgn]\n\n[Annotator]\n[Eve',
    b'[FEN "8/8/8/8/8/8/2R5/k6K w - - 0 1"]\n[Result "1-0"]\n[Termination "Time forfeit"]\n\n1. Rb2 1-0\n',
    # A tag line without its [, a check mark apart, French R moves and a
    # rook onto a castling square, a frozen pawn stack, a tab in a claim.
    b'[Event "a"]\nDate "1983.10.23"]\n[Site "b"]\n\n1. e4 e5 2. Bb5 + c6 3. Rg1 *\n\nRound "1"]\n\n1. d4 *\n',
    b'[FEN "8/4P1k1/8/8/8/8/8/4K3 w - - 0 1"]\n\n1. Rd2 Rf6 2. Re3 *\n',
    b'[FEN "8/8/6p1/6P1/6P1/6PK/6PP/k7 w - - 0 1"]\n[Result "1-0"]\n\n1. Kh4 Kb1 2. Kh3 Ka1 {50\tmoves} 1-0\n',
    # A result with no blank before the next game's tag (pgn4web), a run
    # of asterisks, a drawn game whose comment is wrapped mid-sentence and
    # one whose sentences a blank line parts.
    b'[Event"a"][Round "11"]a4(b4$6)a6!?{comment}a5*[Event"b"]h4(g4)h6{c}h5*\n1. e4**[Event "c"]\n\n*****\n',
    b'[Result "1/2-1/2"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 {no alternative to checking again and\r\ncreating a third repetition.\r\n\r\nDraw by repetition} 1/2-1/2\n',
]
for i, e in enumerate(extra):
    for d in ('audit_game', 'audit_bytes'):
        open(os.path.join(here, 'corpus', d, f'x{i}'), 'wb').write(e)
