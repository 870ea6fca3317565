"""Shared fixtures of the Python package's tests (tests/python_package.rs
runs them): the repository, the pgn-audit binary built from it, and a
findings-rich PGN file."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "corpora" / "lichess_2025-05_sample.pgn"
KARPOV_MILES = ROOT / "corpora" / "fixtures" / "claims" / "karpov_miles.pgn"


@pytest.fixture(scope="session")
def binary():
    """The pgn-audit binary that the suite was built with (PGN_AUDIT_BIN),
    else this checkout's release build."""
    path = pathlib.Path(
        os.environ.get("PGN_AUDIT_BIN", ROOT / "target" / "release" / "pgn-audit")
    )
    assert path.exists(), f"{path}: build it with cargo build --release"
    return path


def sample_games():
    """The Lichess sample's games, one string each."""
    text = SAMPLE.read_text(encoding="utf-8").strip("\n")
    games = text.split("\n\n[Event")
    return [g if i == 0 else "[Event" + g for i, g in enumerate(games)]


def game(event, date, moves, result="*", tags=""):
    """A game's PGN text with the seven tags."""
    return (
        f'[Event "{event}"]\n[Site "?"]\n[Date "{date}"]\n[Round "1"]\n'
        f'[White "a"]\n[Black "b"]\n[Result "{result}"]\n{tags}\n{moves} {result}'
    )


@pytest.fixture(scope="session")
def rich(tmp_path_factory):
    """The sample and Karpov-Miles, with a row in every report between
    them: a castle after the king moved (with zeros: a quirk), a mate scored
    for the mated side (a check mark missing: a quirk), a fivefold
    repetition played on, an illegal king move, a bad FEN."""
    shuffle = " ".join(f"{n}. Nf3 Nf6 {n + 1}. Ng1 Ng8" for n in range(1, 9, 2))
    games = sample_games() + [
        KARPOV_MILES.read_text(encoding="utf-8").strip("\n"),
        game(
            "Walk",
            "1975.01.01",
            "1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. 0-0",
        ),
        game("Mate", "1983.03.03", "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7", "0-1"),
        game("Shuffle", "1999.09.09", shuffle + " 9. e4"),
        game("Illegal", "2001.01.01", "1. e4 e5 2. Ke3"),
        game("Fen", "2011.11.11", "1. e4", tags='[SetUp "1"]\n[FEN "not a fen"]\n'),
    ]
    path = tmp_path_factory.mktemp("rich") / "rich.pgn"
    path.write_text("\n\n".join(games) + "\n", encoding="utf-8")
    return path


def run_cli(binary, args, out):
    """Runs pgn-audit ARGS -o OUT --quiet from the repository root."""
    return subprocess.run(
        [str(binary), *args, "-o", str(out), "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
