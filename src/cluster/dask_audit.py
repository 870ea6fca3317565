#!/usr/bin/env python3
"""Run pgn-audit over many PGN files on a Dask cluster, then merge exactly.

One task per input file: a worker runs the pgn-audit binary on that file into
its own shard folder (written under a temporary name, renamed when complete),
and the driver merges the shards, in input order, with `pgn-audit merge`. The
merged reports are byte for byte those of one pgn-audit run over the same
files. Shards already complete are reused, so an interrupted run resumes where
it stopped; a task whose worker dies is run again elsewhere by Dask.

    python3 dask_audit.py -o reports INPUT...                      # LocalCluster
    python3 dask_audit.py --scheduler tcp://host:8786 -o reports INPUT...
    python3 dask_audit.py --scheduler-file sched.json -o reports INPUT...
    python3 dask_audit.py --slurm 20 -o reports INPUT...           # dask-jobqueue

The binary, the inputs and the output folder must be reachable under the same
paths on every worker (a shared file system).
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
import uuid

PGN_SUFFIXES = (".pgn", ".pgn.zst", ".pgn.zstd", ".pgn.gz", ".pgn.bz2")


def is_pgn_name(name):
    return name.lower().endswith(PGN_SUFFIXES)


def expand(inputs):
    """The source files, named and ordered as pgn-audit names and orders them:
    a file as given; a directory's PGN files below it, sorted by path
    components (as Rust sorts paths)."""
    files = []
    for given in inputs:
        if os.path.isdir(given):
            found = []
            for root, dirs, names in os.walk(given):
                dirs.sort()
                for name in names:
                    if is_pgn_name(name):
                        found.append(os.path.join(root, name))
            found.sort(key=lambda p: p.split(os.sep))
            files.extend(found)
        elif os.path.exists(given):
            files.append(given)
        else:
            sys.exit(f"dask_audit: {given}: no such file or directory")
    return files


def shard_dir(shards, index, source):
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in source)[-80:]
    return os.path.join(shards, f"{index:06d}-{safe}")


def is_complete(folder):
    return os.path.isfile(os.path.join(folder, "summary.json"))


def audit_shard(binary, source, folder, threads, split):
    """Runs on a worker: audits one source into `folder`. Returns the exit
    status, the message lines and the number of games."""
    import json

    if is_complete(folder):
        return {"status": 0, "stderr": "", "games": None, "reused": True}
    tmp = f"{folder}.tmp-{uuid.uuid4().hex}"
    cmd = [binary, source, "-o", tmp, "-j", str(threads)]
    if split:
        cmd.append("--split")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if not is_complete(tmp):
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError(f"{source}: pgn-audit wrote no reports: {proc.stderr.strip()}")
    try:
        os.rename(tmp, folder)
    except OSError:
        # Another attempt (a worker thought dead) finished first: same bytes.
        shutil.rmtree(tmp, ignore_errors=True)
    with open(os.path.join(folder, "summary.json")) as f:
        games = json.load(f)["games"]
    lines = [l for l in proc.stderr.splitlines() if l.startswith("pgn-audit:")]
    return {"status": proc.returncode, "stderr": "\n".join(lines), "games": games, "reused": False}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", metavar="INPUT")
    ap.add_argument("-o", "--out", required=True, help="the merged report folder")
    ap.add_argument("--shards", help="where shard folders go (default: OUT.shards)")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler")
    ap.add_argument("--scheduler-file", help="a running scheduler's JSON file")
    ap.add_argument("--slurm", type=int, metavar="JOBS",
                    help="start a dask-jobqueue SLURMCluster of JOBS jobs (queue, account, "
                         "cores and memory come from dask's jobqueue.yaml config)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    ap.add_argument("--threads", type=int, default=1, help="pgn-audit threads per task")
    ap.add_argument("--binary", default=shutil.which("pgn-audit") or "pgn-audit")
    ap.add_argument("--split", action="store_true", help="pass --split to pgn-audit")
    ap.add_argument("--retries", type=int, default=2)
    args = ap.parse_args(argv)

    from dask.distributed import Client, LocalCluster, as_completed

    sources = expand(args.inputs)
    binary = os.path.abspath(args.binary) if os.sep in args.binary else args.binary
    shards = os.path.abspath(args.shards or args.out.rstrip("/") + ".shards")
    os.makedirs(shards, exist_ok=True)
    folders = [shard_dir(shards, i, s) for i, s in enumerate(sources)]

    if args.scheduler_file:
        client = Client(scheduler_file=args.scheduler_file)
    elif args.scheduler:
        client = Client(args.scheduler)
    elif args.slurm:
        from dask_jobqueue import SLURMCluster

        cluster = SLURMCluster()
        cluster.scale(jobs=args.slurm)
        client = Client(cluster)
    else:
        client = Client(LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                     dashboard_address=None))
    todo = [(s, f) for s, f in zip(sources, folders) if not is_complete(f)]
    reused = len(sources) - len(todo)
    started = time.time()
    futures = {
        client.submit(audit_shard, binary, s, f, args.threads, args.split,
                      key=f"pgn-audit-{uuid.uuid4().hex}", pure=False,
                      retries=args.retries): s
        for s, f in todo
    }
    status, games, done = 0, 0, 0
    for fut in as_completed(futures):
        try:
            result = fut.result()
        except Exception as e:  # the task failed on every attempt
            print(f"dask_audit: {futures[fut]}: {e}", file=sys.stderr)
            status = 2
            continue
        done += 1
        games += result["games"] or 0
        if result["status"] != 0:
            status = 2
            print(result["stderr"], file=sys.stderr)
        rate = games / max(time.time() - started, 1e-9)
        print(f"dask_audit: {done}/{len(todo)} files, {games} games, {rate:.0f} games/s",
              file=sys.stderr, flush=True)
    client.close()
    print(f"dask_audit: computed {len(todo)} shards, reused {reused}", file=sys.stderr)

    merge = subprocess.run([binary, "merge", *folders, "-o", args.out],
                           capture_output=True, text=True)
    if merge.returncode != 0:
        print(merge.stderr.strip(), file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
