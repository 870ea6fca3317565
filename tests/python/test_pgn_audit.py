"""The Python package (issue 29): its Arrow tables are the CLI's CSV
reports cell for cell, pandas, polars and DuckDB load them, audit_game
judges one game, a bad input raises the CLI's message, and Ctrl-C stops
a large audit within a second."""

import csv
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import duckdb
import pandas
import polars
import pyarrow
import pytest

import pgn_audit
from conftest import ROOT, SAMPLE, run_cli

REPORTS = ["castling", "claims", "missed_draws", "results", "errors", "quirks"]
INTEGERS = {
    "game", "offset", "line", "ply", "occurrences",
    "occurrences_ignoring_rights", "plies_after",
}


def csv_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


@pytest.mark.parametrize("inputs", [["corpora/"], ["rich"]])
def test_tables_equal_the_csv_reports_cell_for_cell(binary, rich, tmp_path, inputs, monkeypatch):
    monkeypatch.chdir(ROOT)
    inputs = [str(rich) if i == "rich" else i for i in inputs]
    ran = run_cli(binary, [*inputs, "--quirks", "--no-html"], tmp_path / "csv")
    assert ran.returncode == 0, ran.stderr
    a = pgn_audit.audit(inputs, quirks=True, threads=2)
    seen = 0
    for name in REPORTS:
        header, rows = csv_rows(tmp_path / "csv" / f"{name}.csv")
        table = pyarrow.table(getattr(a, name))
        assert table.column_names == header, name
        for field in table.schema:
            want = pyarrow.int64() if field.name in INTEGERS else pyarrow.string()
            assert field.type == want, (name, field.name)
        got = [[str(v) for v in row.values()] for row in table.to_pylist()]
        assert got == rows, name
        assert len(getattr(a, name)) == len(rows)
        seen += len(rows)
    assert seen > 100
    import json
    want = json.loads((tmp_path / "csv" / "summary.json").read_text())
    for key in ["seconds", "threads"]:
        want.pop(key)
        a.summary.pop(key)
    want["options"]["format"] = "parquet"
    assert a.summary == want


def test_every_table_loads_in_polars_duckdb_and_pandas(rich):
    a = pgn_audit.audit([str(rich)], quirks=True)
    for name in REPORTS:
        table = getattr(a, name)
        n = table.num_rows
        assert n > 0, name
        frame = polars.from_arrow(pyarrow.table(table))
        assert frame.height == n
        assert polars.DataFrame(table).height == n
        t = table
        assert duckdb.sql("select count(*) from t").fetchone()[0] == n
        assert duckdb.from_arrow(table).shape[0] == n
        assert len(pandas.DataFrame(pyarrow.table(table).to_pandas())) == n
        if hasattr(pandas.DataFrame, "from_arrow"):
            assert len(pandas.DataFrame.from_arrow(table)) == n
    castling = a.castling
    assert duckdb.sql("select count(*) from castling").fetchone()[0] == castling.num_rows
    assert polars.DataFrame(a.claims)["ply"].dtype == polars.Int64


def test_text_inputs_are_named_as_given():
    games = "\n\n".join(sample_games_text()[:3]) + "\n"
    a = pgn_audit.audit([games.encode(), games])
    assert a.summary["sources"] == ["<text 1>", "<text 2>"]
    assert a.summary["games"] == 6


def sample_games_text():
    text = SAMPLE.read_text(encoding="utf-8").strip("\n")
    games = text.split("\n\n[Event")
    return [g if i == 0 else "[Event" + g for i, g in enumerate(games)]


def test_audit_game_gives_karpov_miles_false_claim():
    text = (ROOT / "corpora/fixtures/claims/karpov_miles.pgn").read_text(encoding="utf-8")
    report = pgn_audit.audit_game(text)
    assert report["class"] == "flagged"
    assert [c["verdict"] for c in report["claims"]] == ["false_castling_rights"]
    assert report["claims"][0]["claim"] == "threefold"
    assert report["error"] is None
    assert pgn_audit.audit_game(text.encode()) == report


def test_a_missing_file_raises_with_the_cli_message(binary, tmp_path):
    missing = str(tmp_path / "missing.pgn")
    ran = run_cli(binary, [missing], tmp_path / "out")
    assert ran.returncode == 2
    with pytest.raises(pgn_audit.AuditError) as e:
        pgn_audit.audit([missing])
    assert "pgn-audit: " + str(e.value) + "\n" == ran.stderr


def test_ctrl_c_stops_a_large_audit_within_a_second(tmp_path):
    big = tmp_path / "big.pgn"
    text = SAMPLE.read_bytes()
    with open(big, "wb") as f:
        for _ in range(300):
            f.write(text)
            f.write(b"\n")
    script = (
        "import sys, time, pgn_audit\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    pgn_audit.audit([sys.argv[1]], threads=1)\n"
        "    print('completed', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(big)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout.readline() == "started\n"
    time.sleep(1.0)
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=30)
    took = time.monotonic() - sent
    assert out == "interrupted\n"
    assert took < 1.0, took


def test_the_readme_notebook_example_runs(monkeypatch, capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"### A notebook example\n.*?```python\n(.*?)```", readme, re.S)
    assert block, "the README has its notebook example"
    code = block.group(1)
    assert len(code.strip().splitlines()) <= 10
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})
    shown = capsys.readouterr().out
    assert "decade" in shown and "castles" in shown, shown
