"""Prints every Parquet report of a report folder, read back by DuckDB (an
engine other than the one that wrote them), as JSON: {file: {"columns":
[[name, type], ...], "rows": [[cell, ...], ...]}}, each cell as the CSV
report writes it (an integer in decimal), a null as "<null>", the rows in
the file's order.

    read_reports.py FOLDER
"""

import json
import pathlib
import sys

import duckdb

out = {}
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.parquet")):
    table = duckdb.read_parquet(str(path), file_row_number=True).order("file_row_number")
    columns = [[name, str(kind)] for name, kind in zip(table.columns, table.types)]
    rows = [["<null>" if v is None else str(v) for v in row[:-1]] for row in table.fetchall()]
    out[path.name] = {"columns": columns[:-1], "rows": rows}
print(json.dumps(out))
