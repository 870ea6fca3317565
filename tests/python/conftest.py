"""Shared fixtures of the Python package's tests: the repository, the
pgn-audit binary built from it, and a findings-rich PGN file."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "corpora" / "lichess_2025-05_sample.pgn"


@pytest.fixture(scope="session")
def binary():
    """The pgn-audit binary of this checkout (tests/python/run builds it)."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = target / "release" / "pgn-audit"
    assert path.exists(), f"{path}: build it with cargo build --release"
    return path


def sample_games():
    text = SAMPLE.read_text(encoding="utf-8").strip("\n")
    games = text.split("\n\n[Event")
    return [g if i == 0 else "[Event" + g for i, g in enumerate(games)]


@pytest.fixture(scope="session")
def rich(tmp_path_factory):
    """The sample with findings in every report: bad FENs (errors),
    coordinate moves (quirks), a mate scored for the mated side (results),
    a fivefold repetition played on (missed draws)."""
    games = []
    for i, g in enumerate(sample_games()):
        if i % 9 == 0:
            g = g.replace("]\n", ']\n[FEN "not a fen"]\n', 1)
        elif i % 9 == 4:
            g = g.replace("\n\n1. e4 ", "\n\n1. e2e4 ", 1)
        games.append(g)
    games.append(sample_games()[0].replace("0-1", "1-0"))
    games.append(
        '[Event "Shuffle"]\n[Site "?"]\n[Date "2025.05.02"]\n[Round "1"]\n'
        '[White "a"]\n[Black "b"]\n[Result "*"]\n\n'
        + "1. Nf3 Nf6 2. Ng1 Ng8 " * 4
        + "9. e4 *"
    )
    games.append(
        '[Event "Walk"]\n[Site "?"]\n[Date "1975.01.01"]\n[Round "2"]\n'
        '[White "c"]\n[Black "d"]\n[Result "*"]\n\n'
        "1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O *"
    )
    path = tmp_path_factory.mktemp("rich") / "rich.pgn"
    path.write_text("\n\n".join(games) + "\n", encoding="utf-8")
    return path


def run_cli(binary, args, out):
    """Runs pgn-audit ARGS -o OUT from the repository root."""
    return subprocess.run(
        [str(binary), *args, "-o", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
