"""Writes the games of a PGN file as a Parquet file in the Lichess open
database's schema (Event, Site, White, Black, Result, WhiteTitle,
BlackTitle, WhiteElo, BlackElo, WhiteRatingDiff, BlackRatingDiff, UTCDate,
UTCTime, ECO, Opening, Termination, TimeControl, movetext), with pyarrow:
ratings as int64, UTCDate as date32, UTCTime as time64, a missing tag as
null. The columns named after OUT (Date, Round) are added as text.

    lichess_parquet.py GAMES.pgn OUT.parquet ROWS_PER_GROUP [EXTRA_COLUMN...]
"""

import datetime
import re
import sys

import pyarrow as pa
import pyarrow.parquet as pq

TEXT = ["Event", "Site", "White", "Black", "Result", "WhiteTitle", "BlackTitle"]
NUMBERS = ["WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff"]
AFTER = ["ECO", "Opening", "Termination", "TimeControl"]
TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')


def games(text):
    """(tags, movetext) of each game: its tag lines, then the rest."""
    for chunk in re.split(r"\n\n(?=\[Event )", text.strip("\n")):
        tags, lines = {}, chunk.split("\n")
        i = 0
        while i < len(lines) and TAG.match(lines[i]):
            name, value = TAG.match(lines[i]).groups()
            tags[name] = value.replace('\\"', '"').replace("\\\\", "\\")
            i += 1
        yield tags, "\n".join(lines[i:]).strip("\n")


def number(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def main():
    source, out, per_group, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    rows = list(games(open(source, encoding="utf-8").read()))
    col = lambda name: [t.get(name) for t, _ in rows]
    arrays, names = [], []
    for name in TEXT:
        arrays.append(pa.array(col(name), pa.string()))
        names.append(name)
    for name in NUMBERS:
        arrays.append(pa.array([number(v) for v in col(name)], pa.int64()))
        names.append(name)
    dates = [datetime.datetime.strptime(v, "%Y.%m.%d").date() if v else None for v in col("UTCDate")]
    times = [datetime.datetime.strptime(v, "%H:%M:%S").time() if v else None for v in col("UTCTime")]
    arrays += [pa.array(dates, pa.date32()), pa.array(times, pa.time64("us"))]
    names += ["UTCDate", "UTCTime"]
    for name in AFTER:
        arrays.append(pa.array(col(name), pa.string()))
        names.append(name)
    arrays.append(pa.array([m for _, m in rows], pa.string()))
    names.append("movetext")
    for name in extra:
        arrays.append(pa.array(col(name), pa.string()))
        names.append(name)
    pq.write_table(pa.table(arrays, names=names), out, row_group_size=per_group)
    print(len(rows))


main()
