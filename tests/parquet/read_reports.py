"""Prints every Parquet report of a report folder, read with pyarrow, as
JSON: {file: {"columns": [[name, type], ...], "rows": [[cell, ...], ...]}},
each cell as the CSV report writes it (an integer in decimal).

    read_reports.py FOLDER
"""

import json
import pathlib
import sys

import pyarrow.parquet as pq

out = {}
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.parquet")):
    table = pq.read_table(path)
    columns = [[f.name, str(f.type)] for f in table.schema]
    rows = [
        ["<null>" if v is None else str(v) for v in row.values()]
        for row in table.to_pylist()
    ]
    out[path.name] = {"columns": columns, "rows": rows}
print(json.dumps(out))
