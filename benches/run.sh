#!/usr/bin/env bash
# pgn-audit benchmark: builds the corpora it needs and pgn-reader 0.29's
# example validators (copied from the cargo registry at bench time), then
# times everything side by side in one run and prints one table.
#
#   benches/run.sh [--scratch DIR] [--runs N] [--big]
#   benches/run.sh --shares [--scratch DIR] [--runs N]
#   benches/run.sh --driver [--copies N] [--scratch DIR] [--runs N]
#   benches/run.sh --parquet [--scratch DIR] [--runs N]
#   benches/run.sh --python [--scratch DIR] [--runs N]
#
#   --scratch DIR  where corpora and builds go (default: $BENCH_SCRATCH or
#                  /work/bench-scratch, else ./target/bench-scratch)
#   --runs N       rounds, one run of every command each (default 5);
#                  medians are shown
#   --big          also make a 2 GB corpus and measure peak RSS on it
#   --shares       only the CPU share of each thread outside the pool
#                  (printed after the table too): pgn-audit -j2 on the plain
#                  and the pzstd corpus, each thread's CPU time polled from
#                  /proc/PID/task/*/sched (or stat) every 5 ms, over the
#                  total of the process (wait4); target <= 0.03 each
#   --driver       only the Dask driver (src/cluster/dask_audit.py): a month
#                  of 1M short games in 4 MB pzstd frames, cut into pieces,
#                  on a cluster of 1 and of 2 workers (1 thread each), and
#                  the merge's peak RSS, beside pgn-audit -j1 and -j2 on the
#                  same file; needs Python's dask.distributed
#                  (tests/setup-oracles puts it in target/pydeps)
#   --copies N     with --driver: instead of the month, N copies of the
#                  sample compressed by pzstd (2400: 2.3 GB of text), cut
#                  by the driver's default piece plan (no --piece-size),
#                  and the merged reports compared with pgn-audit -j2's
#   --parquet      only Parquet: the 200-copy corpus as a Parquet table in
#                  the Lichess schema (written by pyarrow, which
#                  tests/setup-oracles puts in target/pydeps) audited
#                  against the same games as PGN, and --format parquet
#                  reports against CSV ones
#   --python       only the Python package: pgn_audit.audit() on the
#                  200-copy corpus against the CLI on the same file, both
#                  with every core (the package as tests/setup-oracles
#                  installs it into target/pydeps)
#   (every pgn-audit run also reports the helpmate analysis's time per game,
#   summary.json's helpmate_seconds; one of them is on the sample's games
#   lost on time)
#
# Needs: cargo, zstd + pzstd, GNU time (/usr/bin/time), python3.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
scratch="${BENCH_SCRATCH:-}"
if [[ -z "$scratch" ]]; then
    if [[ -d /work ]]; then scratch=/work/bench-scratch; else scratch="$here/target/bench-scratch"; fi
fi
runs=5
copies=0
big=0
driver=0
shares=0
parquet_only=0
python_only=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --scratch) scratch="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --big) big=1; shift ;;
        --driver) driver=1; shift ;;
        --copies) copies="$2"; shift 2 ;;
        --shares) shares=1; shift ;;
        --parquet) parquet_only=1; shift ;;
        --python) python_only=1; shift ;;
        -h|--help) sed -n 2,45p "$0"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
for tool in cargo zstd pzstd python3; do
    command -v "$tool" >/dev/null || { echo "benches/run.sh: needs $tool" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "benches/run.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
mkdir -p "$scratch"
corpora="$scratch/corpora"
mkdir -p "$corpora"
sample="$here/corpora/lichess_2025-05_sample.pgn"

# ------------------------------------------------------- the Dask driver
if [[ $driver == 1 ]]; then
    echo "building pgn-audit" >&2
    (cd "$here" && cargo build -q --release)
    audit="${CARGO_TARGET_DIR:-$here/target}/release/pgn-audit"
    export PYTHONPATH="$here/target/pydeps${PYTHONPATH:+:$PYTHONPATH}"
    python3 -c "import distributed" 2>/dev/null ||
        { echo "benches/run.sh: --driver needs dask.distributed (run tests/setup-oracles)" >&2; exit 2; }
    exec python3 - "$here" "$audit" "$corpora" "$scratch/driver" "$runs" "$copies" "$sample" <<'PY'
import os, shutil, statistics, struct, subprocess, sys, time
here, audit, corpora, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
copies, sample = int(sys.argv[6]), sys.argv[7]
driver = os.path.join(here, "src/cluster/dask_audit.py")
month = os.path.join(corpora, "month-1m.pgn.zst")
games = 1_000_000
if copies:
    # N copies of the sample, as one pzstd file (frames decompressed on the
    # pool), cut by the driver's default plan.
    month = os.path.join(corpora, f"copies-{copies}.pzstd.pgn.zst")
    data = open(sample, "rb").read()
    games = copies * data.count(b"[Event ")
    if not os.path.exists(month):
        print(f"making {month}", file=sys.stderr)
        with open(month + ".tmp", "wb") as out:
            pz = subprocess.Popen(["pzstd", "-q", "-p", "2", "-c", "-"], stdin=subprocess.PIPE, stdout=out)
            for i in range(copies):
                if i:
                    pz.stdin.write(b"\n")
                pz.stdin.write(data)
            pz.stdin.close()
            assert pz.wait() == 0
        os.rename(month + ".tmp", month)
elif not os.path.exists(month):
    # Games of 40 plies (the Breyer Ruy Lopez) with Lichess-like Sites,
    # every 1000th a threefold claim, in frames of 4 MB of text, each
    # announced by a skippable frame holding its size, as pzstd and the
    # Lichess dumps write them.
    import random
    print(f"making {month}", file=sys.stderr)
    alphabet = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    breyer = (b'[Result "1/2-1/2"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 '
              b'6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7\n11. Nbd2 Bb7 12. Bc2 Re8 '
              b'13. Nf1 Bf8 14. Ng3 g6 15. a4 c5 16. d5 c4 17. Bg5 h6 18. Be3 Nc5\n'
              b'19. Qd2 h5 20. Bg5 Be7 1/2-1/2\n\n')
    claim = (b'[Result "1/2-1/2"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 '
             b'1/2-1/2\n\n')
    ids = random.Random(13).randbytes(8 * games).translate(
        bytes(alphabet[b % len(alphabet)] for b in range(256)))
    text = bytearray()
    for i in range(games):
        text += b'[Site "https://lichess.org/' + ids[8 * i:8 * i + 8] + b'"]\n'
        text += claim if i % 1000 == 999 else breyer
    with open(month + ".tmp", "wb") as f:
        for at in range(0, len(text), 4 << 20):
            frame = subprocess.run(["zstd", "-q", "-1", "-c"], input=bytes(text[at:at + (4 << 20)]),
                                   capture_output=True, check=True).stdout
            f.write(struct.pack("<III", 0x184D2A50, 4, len(frame)) + frame)
    os.rename(month + ".tmp", month)
size = os.path.getsize(month)
piece_size = size // 8 + 1
plan = [] if copies else ["--piece-size", str(piece_size)]
os.makedirs(work, exist_ok=True)

def cluster(name, workers):
    """A scheduler and `workers` workers of 1 thread and 1 core each."""
    sched = os.path.join(work, f"{name}.json")
    if os.path.exists(sched):
        os.remove(sched)
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                               "127.0.0.1", "--port", "0", "--no-dashboard", "--idle-timeout",
                               "600", "--scheduler-file", sched], **quiet)]
    while not os.path.exists(sched):
        time.sleep(0.1)
    for k in range(workers):
        # Worker k and the pgn-audit it starts run on core k only: a worker
        # is a one-core machine. pgn-audit -j1 has a reader thread beside its
        # auditing thread, so an unpinned worker would use more than its one
        # core whenever the machine has an idle one.
        cpu = sorted(os.sched_getaffinity(0))[k % len(os.sched_getaffinity(0))]
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker",
                                       "--no-nanny", "--nthreads", "1", "--resources", "cores=1",
                                       "--no-dashboard", "--host", "127.0.0.1", "--death-timeout",
                                       "60", "--scheduler-file", sched],
                                      preexec_fn=lambda cpu=cpu: os.sched_setaffinity(0, {cpu}),
                                      **quiet))
    from distributed import Client
    with Client(scheduler_file=sched) as c:
        c.wait_for_workers(workers, timeout=120)
    return sched, procs

def drive(sched, out):
    for d in (out, out + ".shards"):
        shutil.rmtree(d, ignore_errors=True)
    start = time.perf_counter()
    subprocess.run([sys.executable, driver, "--scheduler-file", sched, "--binary", audit,
                    "--threads", "1", *plan, "-o", out, month],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start

clusters = {n: cluster(f"cluster{n}", n) for n in (1, 2)}
walls = {1: [], 2: [], "j1": [], "j2": [], "core": []}
# The clock starts with the clusters running: a user's driver on an
# existing scheduler (--scheduler-file) waits for its Python start, the
# Dask import, the connection, the plan, the tasks, the merge and its exit,
# all of which is timed; the scheduler's and workers' start is not.
load = [os.getloadavg()[0]]
try:
    for r in range(runs + 1):
        print(f"round {r}/{runs}" + (" (warm-up)" if r == 0 else ""), file=sys.stderr)
        for n, (sched, _) in clusters.items():
            wall = drive(sched, os.path.join(work, f"out{n}"))
            if r > 0:
                walls[n].append(wall)
        # What two cores give at this moment without Dask:
        # pgn-audit itself on the whole month at -j1 and -j2, and at -j1 on
        # one core (as a pinned worker runs it).
        first = min(os.sched_getaffinity(0))
        for j in ("j1", "j2", "core"):
            start = time.perf_counter()
            subprocess.run([audit, month, "-j2" if j == "j2" else "-j1", "--quiet", "-o",
                            os.path.join(work, j)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True,
                           preexec_fn=(lambda: os.sched_setaffinity(0, {first})) if j == "core" else None)
            if r > 0:
                walls[j].append(time.perf_counter() - start)
finally:
    load.append(os.getloadavg()[0])
    for _, procs in clusters.values():
        for p in reversed(procs):
            p.kill()
            p.wait()
out = os.path.join(work, "out2")
shards = sorted(os.path.join(out + ".shards", d) for d in os.listdir(out + ".shards")
                if not d.startswith("."))
rss = os.path.join(work, "rss.txt")
start = time.perf_counter()
subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss, audit, "merge", *shards, "-o",
                os.path.join(work, "merged")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
               check=True)
merge_wall = time.perf_counter() - start
merge_rss = int(open(rss).read().split()[-1]) / 1024
shard_mib = sum(os.path.getsize(os.path.join(d, f)) for d in shards for f in os.listdir(d)) / 2**20
one, two = statistics.median(walls[1]), statistics.median(walls[2])
print()
pieces1 = len([d for d in os.listdir(os.path.join(work, "out1.shards")) if not d.startswith(".")])
if copies:
    print(f"{copies} copies of the sample: {games:,} games, {size / 2**20:.1f} MiB stored; "
          f"default plan: {pieces1} pieces on 1 worker, {len(shards)} on 2")
else:
    print(f"month: {games:,} games, {size / 2**20:.1f} MiB stored, {len(shards)} pieces of about {piece_size:,} bytes")
# The merged reports of the 2-worker run against pgn-audit -j2's on the
# same file: every CSV report byte for byte, summary.json's counts.
import json
def counts(d):
    s = json.load(open(os.path.join(d, "summary.json")))
    return {k: v for k, v in s.items() if isinstance(v, (int, dict)) and k not in ("options", "seconds")
            and k not in ("helpmate_seconds", "threads")}
same = all(open(os.path.join(out, f), "rb").read() == open(os.path.join(work, "j2", f), "rb").read()
           for f in sorted(os.listdir(os.path.join(work, "j2"))) if f.endswith(".csv"))
same_counts = counts(out) == counts(os.path.join(work, "j2"))
print(f"load average (1 min) on {os.cpu_count()} cores: {load[0]:.2f} before, {load[1]:.2f} after")
print()
print("| driver | median s | games/s |")
print("|---|---:|---:|")
for n, wall in ((1, one), (2, two)):
    print(f"| {n} worker{'s' if n > 1 else ''}, each 1 thread on a core of its own | {wall:.2f} | {games / wall:,.0f} |")
print(f"| merge of {len(shards)} shards ({shard_mib:.0f} MiB) | {merge_wall:.2f} | |")
j1, j2 = statistics.median(walls["j1"]), statistics.median(walls["j2"])
for j, wall in (("-j1", j1), ("-j2", j2), ("-j1 on one core", statistics.median(walls["core"]))):
    print(f"| for comparison: pgn-audit {j} on the month, no Dask | {wall:.2f} | {games / wall:,.0f} |")
print()
print("| target | measured | limit | met |")
print("|---|---:|---:|:-:|")
print(f"| 2 workers / 1 worker | {two / one:.2f} | ≤ 0.65 | {'yes' if two <= 0.65 * one else 'NO'} |")
print(f"| for comparison: pgn-audit -j2 / -j1 | {j2 / j1:.2f} | | |")
print(f"| merge peak RSS, MiB | {merge_rss:.0f} | ≤ 100 | {'yes' if merge_rss <= 100 else 'NO'} |")
if copies:
    print(f"| pieces of the default plan, 2 workers | {len(shards)} | ≥ 4 | {'yes' if len(shards) >= 4 else 'NO'} |")
    print(f"| merged reports = pgn-audit -j2's (CSV bytes, summary counts) | {'equal' if same and same_counts else 'DIFFERENT'} | equal | {'yes' if same and same_counts else 'NO'} |")
PY
fi

# ---------------------------------------------------------------- corpora
make_copies() { # out copies
    local out="$1" n="$2"
    [[ -s "$out" ]] && return
    echo "making $out ($n copies of the sample)" >&2
    python3 - "$sample" "$out.tmp" "$n" <<'PY'
import sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
with open(out, "wb") as f:
    for i in range(n):
        if i:
            f.write(b"\n")
        f.write(data)
PY
    mv "$out.tmp" "$out"
}
make_copies "$corpora/200mb.pgn" 200

# ------------------------------------------------------------ Parquet
if [[ $parquet_only == 1 ]]; then
    echo "building pgn-audit" >&2
    (cd "$here" && cargo build -q --release)
    audit="${CARGO_TARGET_DIR:-$here/target}/release/pgn-audit"
    export PYTHONPATH="$here/target/pydeps${PYTHONPATH:+:$PYTHONPATH}"
    python3 -c "import pyarrow" 2>/dev/null ||
        { echo "benches/run.sh: --parquet needs pyarrow (run tests/setup-oracles)" >&2; exit 2; }
    parquet="$corpora/200mb.lichess.parquet"
    [[ -s "$parquet" ]] || python3 "$here/tests/parquet/lichess_parquet.py" \
        "$corpora/200mb.pgn" "$parquet" 100000 Date Round >/dev/null
    exec python3 - "$audit" "$corpora/200mb.pgn" "$parquet" "$scratch/parquet" "$runs" "$(nproc)" <<'PY'
import os, statistics, subprocess, sys, time
audit, pgn, parquet, out = sys.argv[1:5]
runs, threads = int(sys.argv[5]), sys.argv[6]
os.makedirs(out, exist_ok=True)
base = [audit, "-j", threads, "--quiet", "--no-html", "-o"]
cases = {
    f"pgn-audit -j{threads}, PGN": base + [f"{out}/pgn", pgn],
    f"pgn-audit -j{threads}, Parquet (Lichess schema)": base + [f"{out}/pq", parquet],
    f"pgn-audit -j{threads} --format parquet, PGN": base + [f"{out}/fmt", "--format", "parquet", pgn],
}
walls = {k: [] for k in cases}
for r in range(runs + 1):
    print(f"round {r}/{runs}" + (" (warm-up)" if r == 0 else ""), file=sys.stderr)
    for name, cmd in cases.items():
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        if r > 0:
            walls[name].append(time.perf_counter() - start)
m = {k: statistics.median(v) for k, v in walls.items()}
names = list(m)
print()
print("| command | median s | games/s |")
print("|---|---:|---:|")
for name, wall in m.items():
    print(f"| {name} | {wall:.3f} | {87600 / wall:,.0f} |")
print()
print(f"Parquet input / PGN input: {m[names[1]] / m[names[0]]:.2f}")
print(f"--format parquet / CSV reports: {m[names[2]] / m[names[0]]:.2f}")
PY
fi
# ------------------------------------------------------------ Python
if [[ $python_only == 1 ]]; then
    echo "building pgn-audit" >&2
    (cd "$here" && cargo build -q --release)
    audit="${CARGO_TARGET_DIR:-$here/target}/release/pgn-audit"
    export PYTHONPATH="$here/target/pydeps${PYTHONPATH:+:$PYTHONPATH}"
    python3 -c "import pgn_audit" 2>/dev/null ||
        { echo "benches/run.sh: --python needs the package (run tests/setup-oracles)" >&2; exit 2; }
    exec python3 - "$audit" "$corpora/200mb.pgn" "$scratch/python" "$runs" "$(nproc)" <<'PY'
import os, statistics, subprocess, sys, time
audit, pgn, out = sys.argv[1:4]
runs, threads = int(sys.argv[4]), sys.argv[5]
os.makedirs(out, exist_ok=True)
# Each a process of its own, timed from its start to its exit: the Python
# one includes the interpreter's start and the import.
script = f"import pgn_audit; a = pgn_audit.audit({pgn!r}, threads={threads}); assert a.summary['games'] == 87600"
cases = {
    f"pgn-audit -j{threads} --no-html (CSV reports)": [audit, "-j", threads, "--quiet", "--no-html", "-o", out, pgn],
    f"python3: pgn_audit.audit(threads={threads}) (Arrow tables)": [sys.executable, "-c", script],
}
walls = {k: [] for k in cases}
load = os.getloadavg()[0]
for r in range(runs + 1):
    print(f"round {r}/{runs}" + (" (warm-up)" if r == 0 else ""), file=sys.stderr)
    for name, cmd in cases.items():
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        if r > 0:
            walls[name].append(time.perf_counter() - start)
m = {k: statistics.median(v) for k, v in walls.items()}
names = list(m)
print()
print("| command | median s | games/s |")
print("|---|---:|---:|")
for name, wall in m.items():
    print(f"| {name} | {wall:.3f} | {87600 / wall:,.0f} |")
print()
ratio = m[names[1]] / m[names[0]]
print(f"Python / CLI: {ratio:.2f} (target: at most 1.10: {'yes' if ratio <= 1.10 else 'NO'})")
print(f"load average: {load:.1f} before, {os.getloadavg()[0]:.1f} after")
PY
fi
[[ -s "$corpora/200mb.pzstd.pgn.zst" ]] || pzstd -q -p 2 -3 "$corpora/200mb.pgn" -o "$corpora/200mb.pzstd.pgn.zst"
[[ -s "$corpora/200mb.zstd.pgn.zst" ]] || zstd -q -3 --single-thread "$corpora/200mb.pgn" -o "$corpora/200mb.zstd.pgn.zst"
if [[ $big == 1 ]]; then
    make_copies "$corpora/2gb.pgn" 2000
fi
# The sample's games lost on time (Termination "Time forfeit"), 200 copies:
# the helpmate analysis asks about every winner there (issue 24).
if [[ ! -s "$corpora/timeouts.pgn" ]]; then
    python3 - "$sample" "$corpora/timeouts.pgn" <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
games = [g if i == 0 else "[Event" + g for i, g in enumerate(text.split("\n\n[Event"))]
lost = [g.strip() + "\n" for g in games if '[Termination "Time forfeit"]' in g]
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write("\n".join(lost * 200))
PY
fi
# Long legal games: knights shuffling, so every ply is legal; the same
# number of plies in total in both files, once as 100-ply games and once as
# 5,000-ply games.
if [[ ! -s "$corpora/long5000.pgn" ]]; then
    python3 - "$corpora" <<'PY'
import sys
out = sys.argv[1]
cycle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nc3", "Nc6", "Nb1", "Nb8"]
def game(plies, i):
    moves = []
    for p in range(plies):
        if p % 2 == 0:
            moves.append(f"{p // 2 + 1}.")
        moves.append(cycle[p % len(cycle)])
    body = " ".join(moves)
    lines, line = [], ""
    for tok in body.split(" "):
        if len(line) + len(tok) + 1 > 79:
            lines.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    lines.append(line + " *")
    return f'[Event "long {plies} #{i}"]\n[Site "?"]\n[Result "*"]\n\n' + "\n".join(lines) + "\n\n"
total = 2_000_000
for plies in (100, 5000):
    with open(f"{out}/long{plies}.pgn", "w") as f:
        for i in range(total // plies):
            f.write(game(plies, i))
PY
fi

# -------------------------------------- CPU shares outside the pool
# The threads that are not the pool's (the writer on the main thread, the
# reader, the decompressor) bound what any number of cores can gain: a run
# takes at least the CPU time of the busiest of them.
cpu_shares() {
    python3 - "$runs" "$1" "$corpora/200mb.pgn" "$corpora/200mb.pzstd.pgn.zst" "$scratch/shares" <<'PY'
import os, subprocess, sys, time
runs, audit, plain, pzstd, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
tick = os.sysconf("SC_CLK_TCK")

def threads(pid):
    """Each thread of `pid` now: its name and CPU seconds, from the
    scheduler's own count (sum_exec_runtime in /proc/PID/task/TID/sched,
    to the microsecond) where the kernel has it, else from stat's ticks."""
    got = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return got
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        seconds = (int(fields[11]) + int(fields[12])) / tick
        try:
            with open(f"/proc/{pid}/task/{tid}/sched") as f:
                for line in f:
                    if line.startswith("se.sum_exec_runtime"):
                        seconds = float(line.split(":")[1]) / 1000
                        break
        except (OSError, ValueError):
            pass
        got[int(tid)] = (name, seconds)
    return got

def run(path):
    """CPU seconds by thread group over one run at -j2, and the total."""
    p = subprocess.Popen([audit, "-j2", "--quiet", "-o", out, path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    last = {}
    while True:
        last.update(threads(p.pid))
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.005)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"benches/run.sh: pgn-audit failed ({p.returncode}) on {path}")
    groups = {}
    for tid, (name, seconds) in last.items():
        group = "main (writer)" if tid == p.pid else "pool" if name.startswith("audit-") else name
        groups[group] = groups.get(group, 0) + seconds
    return groups, usage.ru_utime + usage.ru_stime

load = os.getloadavg()[0]
rows = []
for label, path in (("plain", plain), ("pzstd", pzstd)):
    run(path)  # warm-up
    sums, total = {}, 0.0
    for _ in range(runs):
        groups, cpu = run(path)
        total += cpu
        for g, sec in groups.items():
            sums[g] = sums.get(g, 0) + sec
    rows.append((label, {g: sec / total for g, sec in sums.items()}, total / runs))
print()
print(f"CPU share of each thread at -j2 ({runs} runs each, /proc/PID/task polled every 5 ms; "
      f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after, {os.cpu_count()} cores)")
print()
names = ["reader", "decode", "main (writer)", "pool"]
print("| input | " + " | ".join(names) + " | CPU s per run |")
print("|---|" + "---:|" * (len(names) + 1))
for label, share, cpu in rows:
    print(f"| {label} | " + " | ".join(f"{share.get(n, 0):.3f}" for n in names) + f" | {cpu:.2f} |")
print()
print("| target | measured | limit | met |")
print("|---|---:|---:|:-:|")
for label, share, _ in rows:
    outside = max(v for g, v in share.items() if g != "pool")
    print(f"| {label}: the busiest thread outside the pool | {outside:.3f} | ≤ 0.03 | "
          f"{'yes' if outside <= 0.03 else 'NO'} |")
PY
}
if [[ $shares == 1 ]]; then
    echo "building pgn-audit" >&2
    (cd "$here" && cargo build -q --release)
    cpu_shares "${CARGO_TARGET_DIR:-$here/target}/release/pgn-audit"
    exit 0
fi

# ------------------------------------------------- pgn-reader's examples
# Built from the registry copy of the crate, in a scratch cargo project
# (their sources are not part of this repository).
registry_crate="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/pgn-reader-0.29.0 2>/dev/null | head -1 || true)"
if [[ -z "$registry_crate" ]]; then
    (cd "$here" && cargo fetch -q)
    registry_crate="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/pgn-reader-0.29.0 | head -1)"
fi
examples="$scratch/pgn-reader-examples"
mkdir -p "$examples/src/bin"
for ex in validate parallel_validate stats; do
    cp "$registry_crate/examples/$ex.rs" "$examples/src/bin/$ex.rs"
done
cat > "$examples/Cargo.toml" <<TOML
[package]
name = "pgn-reader-examples"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
pgn-reader = "=0.29.0"
shakmaty = "0.30"
zstd = "0.13"
crossbeam = "0.8"

[profile.release]
debug = false
TOML
echo "building pgn-reader examples in $examples" >&2
(cd "$examples" && CARGO_TARGET_DIR="$examples/target" cargo build -q --release)
ex_bin="$examples/target/release"

# --------------------------------------------------------------- pgn-audit
echo "building pgn-audit" >&2
(cd "$here" && cargo build -q --release)
audit="${CARGO_TARGET_DIR:-$here/target}/release/pgn-audit"

# ------------------------------------------------------------- measuring
out="$scratch/out"
mkdir -p "$out"
threads="$(nproc)"
# name | games | plain PGN (for MiB/s) | command
cases=(
    "validate (pgn-reader, 1 thread)|87600|$corpora/200mb.pgn|$ex_bin/validate $corpora/200mb.pgn"
    "parallel_validate (pgn-reader, 1+3 threads)|87600|$corpora/200mb.pgn|$ex_bin/parallel_validate $corpora/200mb.pgn"
    "stats (pgn-reader, parse only)|87600|$corpora/200mb.pgn|$ex_bin/stats $corpora/200mb.pgn"
    "pgn-audit -j1|87600|$corpora/200mb.pgn|$audit -j1 -o $out/j1 $corpora/200mb.pgn"
    "pgn-audit -j$threads|87600|$corpora/200mb.pgn|$audit -j$threads -o $out/jn $corpora/200mb.pgn"
    "pgn-audit -j$threads, pzstd .zst (multi-frame)|87600|$corpora/200mb.pgn|$audit -j$threads -o $out/pzstd $corpora/200mb.pzstd.pgn.zst"
    "pgn-audit -j$threads, zstd .zst (one frame)|87600|$corpora/200mb.pgn|$audit -j$threads -o $out/zstd $corpora/200mb.zstd.pgn.zst"
    "pgn-audit -j1, 100-ply games|20000|$corpora/long100.pgn|$audit -j1 -o $out/l100 $corpora/long100.pgn"
    "pgn-audit -j1, 5000-ply games|400|$corpora/long5000.pgn|$audit -j1 -o $out/l5000 $corpora/long5000.pgn"
    "pgn-audit -j1, games lost on time|27600|$corpora/timeouts.pgn|$audit -j1 -o $out/timeouts $corpora/timeouts.pgn"
)
if [[ $big == 1 ]]; then
    cases+=("pgn-audit -j$threads, 2 GB|876000|$corpora/2gb.pgn|$audit -j$threads -o $out/big $corpora/2gb.pgn")
fi

# Every command runs once per round, in turn, for --runs rounds (after one
# warm-up round): a burst of load from elsewhere on a shared machine then
# slows all of them alike instead of one command's block of runs, and the
# ratios stay fair. Wall time is the median over the rounds; peak RSS the
# largest over them (from GNU time).
printf '%s\n' "${cases[@]}" > "$scratch/cases.txt"
python3 - "$runs" "$big" "$threads" "$scratch/cases.txt" "$scratch" <<'PY'
import os, statistics, subprocess, sys, time
runs, big, threads, scratch = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3], sys.argv[5]
cases = [line.rstrip("\n").split("|", 3) for line in open(sys.argv[4]) if line.strip()]

def run(cmd):
    # Peak RSS from GNU time, which forks the program from its own small
    # process: a child forked from this Python process would count
    # Python's pages in its peak.
    rss_file = os.path.join(scratch, "rss.txt")
    argv = ["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd.split()
    start = time.perf_counter()
    status = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"benches/run.sh: failed ({status}): {cmd}")
    return wall, int(open(rss_file).read().split()[-1])  # KiB

def helpmate_seconds(cmd):
    """summary.json's helpmate_seconds of a pgn-audit run, None for others."""
    argv = cmd.split()
    if "-o" not in argv:
        return None
    import json
    return json.load(open(os.path.join(argv[argv.index("-o") + 1], "summary.json")))["helpmate_seconds"]

walls = {name: [] for name, *_ in cases}
rss = {name: 0 for name, *_ in cases}
helpmate = {name: [] for name, *_ in cases}
for r in range(runs + 1):
    print(f"round {r}/{runs}" + (" (warm-up)" if r == 0 else ""), file=sys.stderr)
    for name, _, _, cmd in cases:
        wall, peak = run(cmd)
        rss[name] = max(rss[name], peak)
        if r > 0:
            walls[name].append(wall)
            h = helpmate_seconds(cmd)
            if h is not None:
                helpmate[name].append(h)

t = {}
print()
print(f"| command | input | median s | games/s | MiB/s | peak RSS MiB |")
print(f"|---|---|---:|---:|---:|---:|")
for name, games, path, _ in cases:
    games, size = int(games), os.path.getsize(path)
    median = statistics.median(walls[name])
    t[name] = (median, rss[name])
    print(f"| {name} | {size / 2**20:.0f} MiB | {median:.3f} | {games / median:,.0f} | {size / 2**20 / median:,.0f} | {rss[name] / 1024:.0f} |")
def g(prefix):
    for k, v in t.items():
        if k.startswith(prefix):
            return v
    return None
# The helpmate analysis's own time (issue 24), summary.json's
# helpmate_seconds over the games, median over the rounds.
print()
print("| command | helpmate analysis s | per game µs |")
print("|---|---:|---:|")
for name, games, _, _ in cases:
    if helpmate[name]:
        h = statistics.median(helpmate[name])
        print(f"| {name} | {h:.3f} | {h / int(games) * 1e6:.2f} |")
v, pv = g("validate")[0], g("parallel_validate")[0]
j1, jn = g("pgn-audit -j1")[0], g(f"pgn-audit -j{threads}")[0]
pz, zs = g(f"pgn-audit -j{threads}, pzstd")[0], g(f"pgn-audit -j{threads}, zstd")[0]
l100, l5000 = g("pgn-audit -j1, 100-ply")[0], g("pgn-audit -j1, 5000-ply")[0]
checks = [
    (f"-j{threads} / parallel_validate", jn / pv, 1.0),
    (f"-j{threads} / validate", jn / v, 0.55),
    ("-j1 / validate", j1 / v, 1.15),
    ("pzstd .zst / plain", pz / jn, 1.15),
    ("zstd .zst (one frame) / plain", zs / jn, 1.15),
    ("5000-ply game / 100-ply game, per ply", l5000 / l100, 1.10),
]
audit_rss = max(r for k, (_, r) in t.items() if k.startswith("pgn-audit"))
print()
print("| target | measured | limit | met |")
print("|---|---:|---:|:-:|")
for name, value, limit in checks:
    print(f"| {name} | {value:.2f} | ≤ {limit:.2f} | {'yes' if value <= limit else 'NO'} |")
print(f"| pgn-audit peak RSS, MiB | {audit_rss / 1024:.0f} | ≤ 100 | {'yes' if audit_rss <= 100 * 1024 else 'NO'} |")
if big:
    small, large = g(f"pgn-audit -j{threads}")[1], g(f"pgn-audit -j{threads}, 2 GB")[1]
    print(f"| peak RSS 2 GB / 200 MB | {large / small:.2f} | ≤ 1.10 | {'yes' if large <= 1.10 * small else 'NO'} |")
PY
cpu_shares "$audit"

# ------------------------------------------------ CPU per core (issue 27)
# The whole audit at -j1 against validate by CPU time, user + sys of the
# whole process (every thread: the reader's too), where the table above
# gives wall time, in which the reader thread's work on the second core
# does not count. Rounds of their own, interleaved as above; medians.
cpu_per_core() { # runs validate stats audit corpus out
    python3 - "$@" <<'PY'
import os, statistics, subprocess, sys
runs, validate, stats, audit, corpus, out = int(sys.argv[1]), *sys.argv[2:]

def cpu(argv):
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"benches/run.sh: failed ({status}): {' '.join(argv)}")
    return usage.ru_utime + usage.ru_stime

commands = {
    "validate (pgn-reader, 1 thread)": [validate, corpus],
    "stats (pgn-reader, parse only)": [stats, corpus],
    "pgn-audit -j1": [audit, "-j1", "-o", out, corpus],
}
seconds = {name: [] for name in commands}
load = os.getloadavg()[0]
for r in range(runs + 1):
    print(f"CPU round {r}/{runs}" + (" (warm-up)" if r == 0 else ""), file=sys.stderr)
    for name, argv in commands.items():
        spent = cpu(argv)
        if r > 0:
            seconds[name].append(spent)
median = {name: statistics.median(s) for name, s in seconds.items()}
ratio = median["pgn-audit -j1"] / median["validate (pgn-reader, 1 thread)"]
print()
print(f"CPU time per core, load average (1 min) {load:.2f} before, {os.getloadavg()[0]:.2f} after:")
print()
print("| command | median CPU s (user + sys) |")
print("|---|---:|")
for name, s in median.items():
    print(f"| {name} | {s:.3f} |")
print()
print("| target (issue 27) | measured | limit | met |")
print("|---|---:|---:|:-:|")
print(f"| -j1 CPU / validate CPU | {ratio:.2f} | ≤ 0.65 | {'yes' if ratio <= 0.65 else 'NO'} |")
PY
}
cpu_per_core "$runs" "$ex_bin/validate" "$ex_bin/stats" "$audit" "$corpora/200mb.pgn" "$out/cpu-j1"
