"""The Python package (issue 29): its Arrow tables are the CLI's CSV
reports of the same inputs cell for cell, pandas, polars and DuckDB load
every one, audit_game judges one game, a bad input raises the CLI's
message, Ctrl-C stops a large audit within a second, and the README's
notebook example runs."""

import csv
import json
import re
import signal
import subprocess
import sys
import threading
import time

import duckdb
import pandas
import polars
import pyarrow
import pytest

import pgn_audit
from conftest import KARPOV_MILES, ROOT, SAMPLE, run_cli, sample_games

REPORTS = ["castling", "claims", "missed_draws", "results", "errors", "quirks"]
# The contract's integer columns (v3, "Parquet"); every other one is text.
INTEGERS = {
    "game",
    "offset",
    "line",
    "ply",
    "occurrences",
    "occurrences_ignoring_rights",
    "plies_after",
}
# What differs between two runs of the same inputs: the clock, the
# threads, and the options that say how the reports were written.
VOLATILE = ["seconds", "threads", "helpmate_seconds", "options"]


def csv_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def cells(value):
    return str(value)


@pytest.mark.parametrize("corpus", ["corpora", "rich"])
def test_tables_equal_the_csv_reports_cell_for_cell(binary, rich, tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(ROOT)
    inputs = ["corpora/"] if corpus == "corpora" else [str(rich)]
    ran = run_cli(binary, [*inputs, "--quirks", "--no-html"], tmp_path / "csv")
    assert ran.returncode == 0, ran.stderr
    a = pgn_audit.audit(inputs, quirks=True, threads=2)
    rows_seen = {}
    for name in REPORTS:
        header, rows = csv_rows(tmp_path / "csv" / f"{name}.csv")
        table = pyarrow.table(getattr(a, name))
        assert table.column_names == header, name
        for field in table.schema:
            want = pyarrow.int64() if field.name in INTEGERS else pyarrow.string()
            assert field.type == want, (name, field.name)
        got = [[cells(v) for v in row.values()] for row in table.to_pylist()]
        assert got == rows, name
        assert len(getattr(a, name)) == len(rows) == getattr(a, name).num_rows
        rows_seen[name] = len(rows)
    # Rows to compare: in every report of the findings-rich file.
    assert sum(rows_seen.values()) > 10, rows_seen
    if corpus == "rich":
        assert all(n > 0 for n in rows_seen.values()), rows_seen
    want = json.loads((tmp_path / "csv" / "summary.json").read_text(encoding="utf-8"))
    got = dict(a.summary)
    assert got["options"] == {**want["options"], "format": "parquet"}
    for key in VOLATILE:
        want.pop(key, None)
        got.pop(key, None)
    assert got == want


def test_the_tables_do_not_depend_on_the_threads(rich):
    one = pgn_audit.audit(str(rich), threads=1, quirks=True)
    four = pgn_audit.audit(str(rich), threads=4, quirks=True)
    for name in REPORTS:
        assert pyarrow.table(getattr(one, name)) == pyarrow.table(getattr(four, name)), name


def test_every_table_loads_in_polars_duckdb_and_pandas(rich):
    a = pgn_audit.audit([rich], quirks=True)
    for name in REPORTS:
        table = getattr(a, name)
        n = table.num_rows
        assert n > 0, name
        want = pyarrow.table(table)
        frame = polars.DataFrame(table)
        assert frame.height == n and frame.columns == want.column_names, name
        assert frame.to_arrow().cast(want.schema) == want, name
        assert polars.DataFrame(table).height == n, name
        t = table
        assert duckdb.sql("select count(*) from t").fetchall()[0][0] == n, name
        assert duckdb.sql("select * from t").arrow().read_all().cast(want.schema) == want, name
        df = pandas.DataFrame(want.to_pandas())
        assert len(df) == n and list(df.columns) == want.column_names, name
        assert df.to_dict("records") == want.to_pylist(), name
    castling = a.castling
    assert duckdb.sql("select count(*) from castling").fetchall()[0][0] == castling.num_rows
    assert polars.DataFrame(a.claims)["ply"].dtype == polars.Int64


def test_text_inputs_are_audited_and_named_as_given():
    games = "\n\n".join(sample_games()[:3]) + "\n"
    a = pgn_audit.audit([games.encode(), games])
    assert a.summary["sources"] == ["<text 1>", "<text 2>"]
    assert a.summary["games"] == 6
    one = pgn_audit.audit(karpov_miles().encode())
    assert pyarrow.table(one.claims).column("source").to_pylist() == ["<text 1>"]


def karpov_miles():
    """The Karpov-Miles game, the fixture's first."""
    text = KARPOV_MILES.read_text(encoding="utf-8").strip("\n")
    return text.split("\n\n[Event")[0] + "\n"


def test_audit_game_gives_karpov_miles_false_claim():
    text = karpov_miles()
    report = pgn_audit.audit_game(text)
    assert report["class"] == "flagged"
    assert [(c["claim"], c["verdict"]) for c in report["claims"]] == [
        ("threefold", "false_castling_rights")
    ]
    claim = report["claims"][0]
    assert claim["source"] == "<text>" and claim["game"] == 1 and claim["line"] == 1
    assert isinstance(claim["ply"], int) and claim["ply"] > 0
    assert claim["white"].startswith("Karpov")
    assert report["errors"] == [] and report["castling"] == []
    assert pgn_audit.audit_game(text.encode()) == report
    # The same row as audit()'s claims table for the same text.
    table = pyarrow.table(pgn_audit.audit(text.encode()).claims).to_pylist()
    assert [{**row, "source": "<text>"} for row in table] == report["claims"]


def test_audit_game_and_audit_give_the_same_rows_for_any_game():
    """audit_game runs the workers' function, so a game over the 2 MiB cap
    is incomplete with the cap's parse_error, as audit() says."""
    long = "[Event \"long\"]\n\n1. e4 { " + "x" * (3 << 20) + " } e5 *\n"
    damaged = '[Event "cut"]\n\n1. e4 e5 2. Nf3 {unclosed'
    for text in [long, damaged, karpov_miles(), "1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. O-O *\n"]:
        one = pgn_audit.audit_game(text)
        whole = pgn_audit.audit(text.encode(), quirks=True)
        assert whole.summary["games"] == 1
        assert whole.summary[one["class"]] == 1
        for name in REPORTS:
            rows = pyarrow.table(getattr(whole, name)).to_pylist()
            assert [{**row, "source": "<text>"} for row in rows] == one[name], name
    errors = pgn_audit.audit_game(long)["errors"]
    assert [(e["kind"], e["detail"]) for e in errors] == [
        ("parse_error", "the game is longer than 2 MiB; the rest of it, up to the next game, was skipped")
    ]


def test_a_bytes_input_is_read_from_the_callers_buffer():
    """150 MB of text given as bytes is read where the caller holds it:
    the process's peak memory grows by far less than the text."""
    import resource

    game = sample_games()[0].encode() + b"\n\n"
    text = game * ((150 << 20) // len(game))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    a = pgn_audit.audit(text, threads=2)
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) << 10
    assert a.summary["games"] == len(text) // len(game)
    assert a.summary["bytes"] == len(text)
    assert grown < 75 << 20, f"peak memory grew by {grown >> 20} MiB"


def test_audit_game_takes_one_game():
    two = karpov_miles() + "\n\n" + sample_games()[0]
    with pytest.raises(ValueError, match="holds 2 games"):
        pgn_audit.audit_game(two)


def test_a_missing_file_raises_with_the_cli_message(binary, tmp_path):
    missing = str(tmp_path / "missing.pgn")
    ran = run_cli(binary, [missing], tmp_path / "out")
    assert ran.returncode == 2
    with pytest.raises(pgn_audit.AuditError) as e:
        pgn_audit.audit(missing)
    assert ran.stderr == "pgn-audit: " + str(e.value) + "\n"
    assert str(e.value) == f"{missing}: no such file or directory"
    # The reports of the other inputs, as the CLI writes them.
    with pytest.raises(pgn_audit.AuditError) as e:
        pgn_audit.audit([missing, KARPOV_MILES])
    alone = pgn_audit.audit(KARPOV_MILES)
    assert e.value.audit.summary["games"] == alone.summary["games"] == 4
    assert pyarrow.table(e.value.audit.claims) == pyarrow.table(alone.claims)
    assert e.value.audit.claims.num_rows > 0


def test_an_interrupted_audit_of_a_fifo_leaves_no_thread(tmp_path):
    """Ctrl-C while audit() waits for a FIFO's writer raises
    KeyboardInterrupt and leaves no thread of the package behind: the
    next audit() of the same FIFO reads all of its 20,000 games."""
    import os

    fifo = tmp_path / "games.pgn"
    os.mkfifo(fifo)
    def threads():
        """The package's threads: the call's, the reader, the pool's."""
        names = []
        for task in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{task}/comm") as f:
                    names.append(f.read().strip())
            except OSError:
                pass
        return sorted(n for n in names if n in ("pgn-audit", "reader") or n.startswith("audit-"))

    assert threads() == []
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        pgn_audit.audit(str(fifo), threads=2)
    timer.join()
    # The pool's threads end on their own once it is dropped: on a loaded
    # machine that may take a moment.
    deadline = time.monotonic() + 10
    while threads() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threads() == [], "threads of the interrupted audit are left"
    game = b'[Event "x"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n'

    def write():
        with open(fifo, "wb") as f:
            f.write(game * 20_000)

    writer = threading.Thread(target=write)
    writer.start()
    a = pgn_audit.audit(str(fifo), threads=2)
    writer.join()
    assert a.summary["games"] == 20_000


def test_ctrl_c_stops_a_large_audit_within_a_second():
    """A child Python audits an endless stream of games from its standard
    input (the sample, again and again); SIGINT while it runs raises
    KeyboardInterrupt in it within a second."""
    script = (
        "import pgn_audit\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    pgn_audit.audit('-', threads=2)\n"
        "    print('completed', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=False,
    )
    sample = SAMPLE.read_bytes() + b"\n"

    def feed():
        try:
            while True:
                child.stdin.write(sample)
        except (BrokenPipeError, ValueError, OSError):
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    assert child.stdout.readline() == b"started\n"
    time.sleep(1.5)
    assert child.poll() is None, "the audit of an endless input ended"
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    line = child.stdout.readline()
    took = time.monotonic() - sent
    assert line == b"interrupted\n"
    assert took < 1.0, took
    assert child.wait(timeout=30) == 0
    feeder.join(timeout=30)
    try:
        child.stdin.close()
    except BrokenPipeError:
        pass


def test_the_readme_notebook_example_runs(monkeypatch, capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"### A notebook example\n.*?```python\n(.*?)```\n\n```\n(.*?)```", readme, re.S)
    assert block, "the README has its notebook example and its output"
    code, shown = block.group(1), block.group(2)
    assert len(code.strip().splitlines()) <= 10
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == shown


def test_the_readme_pandas_example_runs(monkeypatch, capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"### With pandas\n.*?```python\n(.*?)```\n\n```\n(.*?)```", readme, re.S)
    assert block, "the README has its pandas example and its output"
    code, shown = block.group(1), block.group(2)
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == shown
