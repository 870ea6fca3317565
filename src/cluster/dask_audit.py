#!/usr/bin/env python3
"""Run pgn-audit over many PGN files on a Dask cluster, then merge exactly.

The inputs are resolved by the binary (`pgn-audit sources`): the files
and their order are those one pgn-audit run reads. One task per unit of
work: a whole input file (a zip archive with all its members), or, for a
file larger than a piece, each piece that `pgn-audit plan` gives (byte
ranges of a plain file, frame ranges of a pzstd or Lichess .zst file).
A piece holds `--piece-size` stored bytes, or by default a share of the
file that gives every core of the cluster work: about PIECES_PER_CORE
pieces per core of the workers connected when the driver starts, but no
piece of less than `--min-piece-text` bytes of text (a zstd file's text
as `pgn-audit plan --text-estimate` measures it from its first 8 MiB), so
that a piece's start-up stays small beside its work. A worker runs the pgn-audit binary on its unit
(`--piece START..END` for a piece) into a shard folder of its own
(written under a temporary name, renamed when complete), and the driver
merges the shards, in input order and each file's pieces in plan order,
with `pgn-audit merge`. The merged
reports are byte for byte those of one pgn-audit run over the same files,
and the exit status and read-error lines are that run's.

    python3 dask_audit.py -o reports INPUT...                      # LocalCluster
    python3 dask_audit.py --scheduler tcp://host:8786 -o reports INPUT...
    python3 dask_audit.py --scheduler-file sched.json -o reports INPUT...
    python3 dask_audit.py --slurm 20 -o reports INPUT...           # dask-jobqueue
    python3 dask_audit.py --slurm 20 --slurm-dry-run -o reports INPUT...  # its job script
    python3 dask_audit.py --piece-size 500000000 -o reports month.pgn.zst  # pieces of 500 MB

Workers are started with one thread and the resource `cores` (the cores
pgn-audit may use there): `dask worker --nthreads 1 --resources cores=8`.
Each task reserves `--threads` cores (default: the fewest any worker has)
and runs pgn-audit with that many threads. The binary, the inputs and the
output folders must be reachable under the same paths on every worker (a
shared file system); relative input paths are resolved against the
driver's working directory.

A rerun resumes: a shard is reused only when its identity record
(dask_audit.json, written into the shard before it is renamed into place)
and its summary.json show that this run would write it again: the same
binary (SHA-256) and version, the same options, the same source name, path,
size and modification time, the piece bounds, a complete run that was not
interrupted, its read error, if any, recorded (the rerun exits 2 again), and
every file of it as it was written (the record keeps each file's SHA-256).
Any other shard is removed and computed again. Before the merge every shard
is checked so again: one changed while the run went on is not merged. Shard folders that are not
this run's (of an earlier plan: another `--piece-size`, another state or
list of the inputs) are removed, with a line each, and never merged.
"""

import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

#: The identity record a shard folder holds next to its reports.
IDENTITY = "dask_audit.json"
#: The lock a driver holds in its output and shard folders.
LOCK = ".dask_audit.lock"
#: What the identity record's layout is; a record of another is not reused.
IDENTITY_FORMAT = 3
#: A shard folder's name: its unit's number, a dash, its source.
SHARD_NAME = re.compile(r"[0-9]{6}-.")
#: The exit status of pgn-audit for an input error, and of this driver for
#: any usage, input or cluster error.
EXIT_ERROR = 2
#: The report formats of pgn-audit's `--format`, its default first; `pgn-audit
#: merge` joins shards of one format into that format.
FORMATS = ("csv", "parquet")
#: dask-jobqueue's default time limit of a SLURM job (jobqueue.slurm.walltime),
#: after which Slurm ends its workers: a run that needs longer sets its own.
SLURM_DEFAULT_WALLTIME = "00:30:00"
#: Pieces per core of the cluster that a large file is cut into by
#: default: several, so that a core that finishes early takes another and
#: none waits for the last piece of a slower one.
PIECES_PER_CORE = 3
#: The least text a default piece holds (`--min-piece-text`), in bytes.
MIN_PIECE_TEXT = 256 << 20
#: A zstd file compresses its text at most about this many times (games
#: that repeat, as copies of one file do, 40 times): one of fewer stored
#: bytes than the least text over this is never cut, and its text is not
#: estimated.
MAX_TEXT_PER_STORED = 64


def default_piece_size(size, text, cores, min_text=MIN_PIECE_TEXT):
    """The stored bytes of a default piece of a file of `size` stored bytes
    and about `text` bytes of text on a cluster of `cores` cores:
    PIECES_PER_CORE pieces per core, but no more pieces than `min_text`
    goes into `text`."""
    pieces = min(PIECES_PER_CORE * max(1, cores), max(1, text // max(1, min_text)))
    return max(1, -(-size // pieces))


def text_estimate(binary, file, max_window_mib):
    """About how many bytes of text `file` (one of `resolve`'s) holds: a
    plain file its size; a zstd file as `pgn-audit plan --text-estimate`
    measures it (its size times what its first 8 MiB decompress to), or 0
    where that fails (the audit then says why)."""
    size = file["size"] or 0
    if file["format"] != "zstd":
        return size
    command = [binary, "plan", "--text-estimate", file["path"]]
    if max_window_mib is not None:
        command += ["--max-window", str(max_window_mib)]
    out = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    return int(out.stdout) if out.returncode == 0 else 0


class Refused(Exception):
    """A usage or input error: `dask_audit: PATH: cause`, exit 2."""


class Failed(Exception):
    """pgn-audit refused the run and said why: the driver exits with its
    status."""


def resolve(binary, inputs, out):
    """The files to audit, one per unit of work, in pgn-audit's order:
    `pgn-audit sources` resolves the inputs (a directory walked, a zip
    archive's PGN members listed, the output folder skipped) exactly as
    one run over them would. A file is named as given to pgn-audit
    (`path`), with the sources it holds as the reports name them (a zip
    archive's members; else the file itself), its format, size and
    modification time. pgn-audit's own lines (`pgn-audit: PATH: cause`,
    warnings) are passed on; an input it cannot read or refuses (a 7z
    archive, binary data) refuses the run, as one run says it."""
    got = subprocess.run([binary, "sources", "-o", out, "--", *inputs],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True)
    sys.stderr.write(got.stderr)
    if got.returncode != 0:
        raise Failed(got.returncode)
    files = []
    for line in got.stdout.splitlines():
        source = json.loads(line)
        if source["path"] is None:
            raise Refused(f"{source['source']}: standard input cannot be read on a cluster")
        if files and files[-1]["path"] == source["path"]:
            files[-1]["sources"].append(source["source"])
            continue
        files.append({"path": source["path"], "sources": [source["source"]],
                      "format": source["format"], "size": source["size"],
                      "modified": source["modified"], "mtime_ns": source["modified_ns"]})
    return files


def units_of(file, cwd, binary, piece_size):
    """The units a task each audits of `file` (one of `resolve`'s), in
    plan order: the whole file (`start`, `end`: None) when it holds at
    most `piece_size` stored bytes, is an archive or a Parquet file, or `pgn-audit plan`
    gives it one piece, else each piece of the plan. A unit names its file
    as given (`source`) and the sources it holds, finds the file through
    its absolute path, and holds its state (size, modification time) as
    resolved. A file `plan` cannot read stays whole: its audit reports the
    error as one run does."""
    path = os.path.normpath(os.path.join(cwd, file["path"]))
    whole = {"source": file["path"], "sources": file["sources"], "path": path,
             "start": None, "end": None, "size": file["size"], "mtime_ns": file["mtime_ns"],
             "modified": file["modified"]}
    if file["size"] is None or file["size"] <= piece_size or file["format"] in ("zip", "parquet"):
        return [whole]
    out = subprocess.run([binary, "plan", path, "--piece-size", str(piece_size)],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if out.returncode != 0:
        return [whole]
    bounds = [tuple(int(n) for n in line.split("..")) for line in out.stdout.split()]
    if file_state(path) != file_state_of(whole):
        raise Refused(f"{file['path']}: changed while its pieces were planned")
    if len(bounds) < 2:
        return [whole]
    return [dict(whole, start=start, end=end) for start, end in bounds]


def is_piece(unit):
    return unit["start"] is not None


def unit_args(unit):
    """pgn-audit's arguments that name a unit: its source, and the bounds
    of a piece."""
    if is_piece(unit):
        return [unit["source"], "--piece", f"{unit['start']}..{unit['end']}"]
    return [unit["source"]]


def weight(unit):
    """The stored bytes a unit reads: tasks start biggest first."""
    return unit["end"] - unit["start"] if is_piece(unit) else unit["size"]


def file_state(path):
    """What tells two versions of an input apart without reading it: its
    size and modification time (ns)."""
    st = os.stat(path)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def file_state_of(unit):
    """The state of a unit's file when the run was planned."""
    return {"size": unit["size"], "mtime_ns": unit["mtime_ns"]}


def sha256(path):
    """The SHA-256 of a file, in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def shard_dir(shards, index, unit):
    """The shard folder of the `index`-th unit: its number, then its source
    as a file name (and a piece's bounds)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in unit["source"])[-80:]
    if is_piece(unit):
        safe += f".{unit['start']}-{unit['end']}"
    return os.path.join(shards, f"{index:06d}-{safe}")


def read_json(path):
    """The JSON in a file, or None when it is missing or unreadable."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def shard_files(folder):
    """The SHA-256 of each file of a shard, its identity record aside, as
    the identity record keeps them: a reuse and the merge check the shard's
    files against them, so that a report edited or cut short after it was
    written is never merged."""
    return {name: sha256(os.path.join(folder, name))
            for name in sorted(os.listdir(folder))
            if name != IDENTITY and os.path.isfile(os.path.join(folder, name))}


def stale_because(folder, want, check_files=True):
    """Why the shard in `folder` is not the one this run would write (None
    when it is). `want` is the identity record this run writes: the binary,
    the options and the unit with its input's state now. With
    `check_files`, every file of the shard is read and checked against the
    checksum its identity record holds."""
    if not os.path.isdir(folder):
        return "missing"
    summary = read_json(os.path.join(folder, "summary.json"))
    if summary is None:
        return "incomplete (no summary.json)"
    record = read_json(os.path.join(folder, IDENTITY))
    if record is None:
        return f"no identity record ({IDENTITY})"
    if record.get("format") != IDENTITY_FORMAT:
        return "an identity record of another driver"
    if (record.get("binary") or {}).get("sha256") != want["binary"]["sha256"]:
        return "written by another pgn-audit binary"
    if summary.get("version") != want["version"]:
        return f"written by pgn-audit {summary.get('version')}, not {want['version']}"
    if summary.get("options") != want["options"] or record.get("args") != want["args"]:
        return f"written with other options ({json.dumps(summary.get('options'))})"
    if summary.get("interrupted"):
        return "its run was interrupted"
    unit = want["unit"]
    if record.get("unit") != unit:
        return f"made from another state of its input ({describe(record.get('unit'))})"
    details = summary.get("source_details") or []
    if summary.get("sources") != unit["sources"] or len(details) != len(unit["sources"]):
        return "its summary.json names other sources"
    for detail in details:
        if (detail.get("size"), detail.get("modified")) != (unit["size"], unit["modified"]):
            return "its summary.json read another state of its input"
    piece = summary.get("piece")
    if not is_piece(unit):
        if piece is not None:
            return "its summary.json is of a piece, not of its whole input"
    elif not isinstance(piece, dict) or (piece.get("source"), piece.get("start"),
                                         piece.get("end")) != (
            unit["source"], unit["start"], unit["end"]):
        return "its summary.json is of another piece"
    if record.get("status") != (EXIT_ERROR if read_error(summary) else 0):
        return "its read error is not recorded"
    files = record.get("files")
    if not isinstance(files, dict):
        return "its identity record holds no checksums of its files"
    if check_files:
        now = shard_files(folder)
        if sorted(now) != sorted(files):
            return "its files are not those it was written with"
        for name in sorted(files):
            if now[name] != files[name]:
                return f"its {name} was changed after it was written"
    return None


def describe(unit):
    """A unit of an identity record, for a message."""
    if not isinstance(unit, dict):
        return "unknown"
    piece = ""
    if unit.get("start") is not None:
        piece = f", piece {unit.get('start')}..{unit.get('end')}"
    return (f"{unit.get('source')}, {unit.get('size')} bytes, "
            f"mtime {unit.get('mtime_ns')} ns{piece}")


def read_error(summary):
    """Whether a source of a shard's summary ended in a read error."""
    return any(d.get("error") is not None for d in summary.get("source_details") or [])


def ran_on():
    """Where a task runs, for its identity record: host, process and Dask
    worker."""
    try:
        from distributed import get_worker

        worker = get_worker().address
    except (ImportError, ValueError):
        worker = None
    return {"host": socket.gethostname(), "pid": os.getpid(), "worker": worker}


def audit_shard(task):
    """Runs on a worker: audits one unit into its shard folder and writes
    the shard's identity record into it before the folder gets its final
    name. Raises when no shard can be kept (no reports, interrupted, the
    input changed meanwhile, another binary, timed out), so that Dask runs
    it again. Returns the exit status and the games audited."""
    want, folder, timeout = task["identity"], task["folder"], task["timeout"]
    unit = want["unit"]
    if sha256(want["binary"]["path"]) != want["binary"]["sha256"]:
        raise RuntimeError(f"{want['binary']['path']}: not the binary the driver hashed")
    before = file_state(unit["path"])
    if before != file_state_of(unit):
        raise RuntimeError(f"{unit['source']}: changed since the driver planned the run")
    tmp = f"{folder}.tmp-{uuid.uuid4().hex}"
    cmd = [want["binary"]["path"], *unit_args(unit), "-o", tmp, "-j", str(task["threads"])]
    cmd += want["args"]
    try:
        # Standard error goes to a file: a pipe would stay open as long as
        # any child of a killed binary lives.
        with tempfile.TemporaryFile("w+") as err:
            proc = subprocess.Popen(cmd, cwd=task["cwd"], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=err)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise RuntimeError(f"{unit['source']}: timed out after {timeout:g} s")
            err.seek(0)
            stderr = err.read()
        summary = read_json(os.path.join(tmp, "summary.json"))
        if summary is None:
            raise RuntimeError(f"{unit['source']}: pgn-audit wrote no reports "
                               f"(exit {proc.returncode}): {stderr.strip()}")
        if summary.get("interrupted"):
            raise RuntimeError(f"{unit['source']}: pgn-audit was interrupted "
                               f"(exit {proc.returncode}): its shard is not kept")
        if file_state(unit["path"]) != before:
            raise RuntimeError(f"{unit['source']}: changed while it was audited")
        record = dict(want, status=proc.returncode, ran_on=ran_on(), files=shard_files(tmp))
        if proc.returncode != (EXIT_ERROR if read_error(summary) else 0):
            raise RuntimeError(f"{unit['source']}: pgn-audit exited {proc.returncode}: "
                               f"{stderr.strip()}")
        with open(os.path.join(tmp, IDENTITY), "w", encoding="utf-8") as f:
            json.dump(record, f, indent=1)
        # Published only when a rerun would reuse it (its files were just
        # read for their checksums).
        why = stale_because(tmp, want, check_files=False)
        if why is not None:
            raise RuntimeError(f"{unit['source']}: its shard is not kept: {why}")
        publish(tmp, folder, want)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"status": proc.returncode, "games": summary["games"]}


def publish(tmp, folder, want):
    """Gives a complete shard its final name. Another attempt at the same
    unit (a worker thought dead) may have finished first: its shard is
    kept when it is the same, replaced otherwise."""
    for _ in range(3):
        try:
            os.rename(tmp, folder)
            return
        except OSError:
            if stale_because(folder, want) is None:
                return
            aside = f"{folder}.tmp-{uuid.uuid4().hex}"
            try:
                os.rename(folder, aside)
            except FileNotFoundError:
                pass
            shutil.rmtree(aside, ignore_errors=True)
    raise RuntimeError(f"{folder}: cannot be renamed into place")


def lock(folder):
    """Takes the driver's lock in `folder`, kept until the process ends: a
    second driver on the same output or shard folder is refused."""
    path = os.path.join(folder, LOCK)
    f = open(path, "a")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        raise Refused(f"{folder}: in use by another dask_audit driver")
    return f


def remove_temporaries(shards):
    """Removes the temporary shard folders of killed workers and drivers."""
    for name in os.listdir(shards):
        if ".tmp-" in name:
            shutil.rmtree(os.path.join(shards, name), ignore_errors=True)


def remove_other_shards(shards, folders):
    """Removes the shard folders in `shards` that are not among `folders`,
    this run's: those of an earlier plan (another `--piece-size`, another
    state or list of the inputs) would pile up there. They are never
    merged. Entries not named as shard folders are left alone."""
    keep = {os.path.basename(f) for f in folders}
    for name in sorted(os.listdir(shards)):
        path = os.path.join(shards, name)
        if name in keep or not SHARD_NAME.match(name) or not os.path.isdir(path):
            continue
        print(f"dask_audit: {path}: removed: not a shard of this run", file=sys.stderr)
        shutil.rmtree(path)


def binary_identity(given):
    """The binary as the identity record names it: its absolute path and
    SHA-256 (two builds of one version differ), and its version."""
    found = shutil.which(given)
    if found is None:
        raise Refused(f"{given}: no such executable")
    path = os.path.abspath(found)
    out = subprocess.run([path, "--version"], capture_output=True, text=True)
    words = out.stdout.split()
    if out.returncode != 0 or len(words) != 2 or words[0] != "pgn-audit":
        raise Refused(f"{path}: not pgn-audit (--version says {out.stdout.strip()!r})")
    return {"path": path, "sha256": sha256(path)}, words[1]


def connect(args):
    """The client, the cluster this driver started (None for a running
    scheduler), and the cores each task reserves."""
    from dask.distributed import Client, LocalCluster

    cluster = None
    if args.scheduler_file:
        client = Client(scheduler_file=args.scheduler_file)
    elif args.scheduler:
        client = Client(args.scheduler)
    elif args.slurm:
        cluster = slurm_cluster()
        cluster.scale(jobs=args.slurm)
        client = Client(cluster)
    else:
        per_worker = args.threads or max(1, (os.cpu_count() or 1) // args.workers)
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                               resources={"cores": per_worker}, dashboard_address=None)
        client = Client(cluster)
    where = args.scheduler or args.scheduler_file or "the cluster"
    try:
        client.wait_for_workers(1, timeout=args.worker_wait)
    except TimeoutError:
        client.close()
        raise Refused(f"{where}: no worker came within {args.worker_wait:g} s")
    have = worker_cores(client)
    threads = args.threads or min((c for c in have if c > 0), default=None)
    if threads is None or threads > max(have):
        client.close()
        raise Refused(f"{where}: no worker has {threads or 1} of the resource `cores` "
                      "(start workers with --resources cores=N)")
    return client, cluster, threads


def slurm_cluster():
    """A dask-jobqueue SLURMCluster (no job submitted yet) from Dask's
    `jobqueue.slurm` configuration (jobqueue.yaml or DASK_JOBQUEUE__SLURM__*
    variables: queue, account, cores, memory, walltime). A job runs
    `processes` worker processes (default 1, not dask-jobqueue's guess of
    about the square root of the cores), each advertising the job's cores
    over its processes as the resource `cores`."""
    try:
        import dask
        from dask_jobqueue import SLURMCluster
    except ImportError as e:
        raise Refused(f"--slurm: needs dask-jobqueue ({e})")
    cores = dask.config.get("jobqueue.slurm.cores", None)
    if not cores:
        raise Refused("--slurm: no cores per job in Dask's configuration (jobqueue.slurm.cores, "
                      "as in ~/.config/dask/jobqueue.yaml: the README's Dask section has a "
                      "sample)")
    walltime = dask.config.get("jobqueue.slurm.walltime", None)
    if walltime == SLURM_DEFAULT_WALLTIME:
        print(f"dask_audit: --slurm: each job ends after dask-jobqueue's default time limit, "
              f"{walltime} (set jobqueue.slurm.walltime for a longer run)",
              file=sys.stderr, flush=True)
    processes = dask.config.get("jobqueue.slurm.processes", None) or 1
    extra = list(dask.config.get("jobqueue.slurm.worker-extra-args", None) or [])
    return SLURMCluster(processes=processes, worker_extra_args=[
        *extra, "--resources", f"cores={max(1, int(cores) // processes)}"])


def print_slurm_job():
    """Prints the job script that `--slurm` would submit, and submits
    nothing."""
    cluster = slurm_cluster()
    try:
        print(cluster.job_script(), flush=True)
    finally:
        cluster.close()
    return 0


def worker_cores(client):
    """The resource `cores` of every worker now connected."""
    workers = client.scheduler_info(n_workers=-1)["workers"].values()
    return [int(w.get("resources", {}).get("cores", 0)) for w in workers]


def run_tasks(client, tasks, retries):
    """Runs the tasks, biggest unit first, handing out no more at a time
    than the connected workers have room for (their `cores` over the
    threads a task takes): a worker that joins late, or is idle, gets the
    next task, rather than the scheduler queueing every task on the
    workers there at the start. Returns the number of failed tasks."""
    from dask.distributed import TimeoutError, wait

    pending = sorted(tasks, key=lambda task: -weight(task["identity"]["unit"]))
    running = set()
    failed, games, done = 0, 0, 0
    started = time.time()
    while pending or running:
        threads = tasks[0]["threads"]
        room = sum(c // threads for c in worker_cores(client))
        while pending and len(running) < max(room, 1):
            task = pending.pop(0)
            running.add(client.submit(audit_shard, task, key=f"pgn-audit-{uuid.uuid4().hex}",
                                      pure=False, retries=retries,
                                      resources={"cores": task["threads"]}))
        try:
            finished = wait(list(running), timeout=1, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            continue
        for fut in finished:
            running.discard(fut)
            try:
                result = fut.result()
            except Exception as e:  # the task failed on every attempt
                print(f"dask_audit: {e}", file=sys.stderr)
                failed += 1
                continue
            done += 1
            games += result["games"]
            rate = games / max(time.time() - started, 1e-9)
            print(f"dask_audit: {done}/{len(tasks)} shards, {games} games, {rate:.0f} games/s",
                  file=sys.stderr, flush=True)
    return failed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", metavar="INPUT")
    ap.add_argument("-o", "--out", required=True, help="the merged report folder")
    ap.add_argument("--shards", help="where shard folders go (default: OUT.shards)")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler")
    ap.add_argument("--scheduler-file", help="a running scheduler's JSON file")
    ap.add_argument("--slurm", type=int, metavar="JOBS",
                    help="start a dask-jobqueue SLURMCluster of JOBS jobs (queue, account, "
                         "cores, memory and walltime come from Dask's configuration, "
                         "~/.config/dask/jobqueue.yaml; a job ends after its walltime, "
                         f"{SLURM_DEFAULT_WALLTIME} unless it says more)")
    ap.add_argument("--slurm-dry-run", action="store_true",
                    help="print the job script of --slurm's jobs and end, submitting none")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    ap.add_argument("--threads", type=int,
                    help="cores each task reserves and pgn-audit threads it runs "
                         "(default: the fewest `cores` any worker has)")
    ap.add_argument("--timeout", type=float, metavar="SECONDS",
                    help="end a task that runs longer (it is retried)")
    ap.add_argument("--worker-wait", type=float, default=600, metavar="SECONDS",
                    help="how long to wait for a first worker (default 600)")
    ap.add_argument("--piece-size", type=int, metavar="BYTES",
                    help="audit a file of more stored bytes in pieces of about BYTES, one "
                         "task each (default: planned from the file's size and the cluster's "
                         f"cores: about {PIECES_PER_CORE} pieces per core of the workers "
                         "connected at the start, each of at least --min-piece-text bytes of "
                         "text, a zstd file's text estimated by `pgn-audit plan "
                         "--text-estimate` from what its first 8 MiB decompress to; a plan "
                         "that changes with the cluster recomputes the shards of the old one)")
    ap.add_argument("--min-piece-text", type=int, default=MIN_PIECE_TEXT, metavar="BYTES",
                    help="the least text a default piece holds "
                         f"(default {MIN_PIECE_TEXT}, {MIN_PIECE_TEXT >> 20} MiB)")
    ap.add_argument("--binary", default="pgn-audit",
                    help="the pgn-audit binary every worker runs, under the same path "
                         "(default: pgn-audit on PATH); a shard written by another binary "
                         "(told by its SHA-256) is not reused")
    ap.add_argument("--split", action="store_true", help="pass --split to pgn-audit")
    ap.add_argument("--quirks", action="store_true", help="pass --quirks to pgn-audit")
    ap.add_argument("--fix", action="store_true",
                    help="pass --fix to pgn-audit: the merged folder holds fixed.pgn and "
                         "corrections.csv")
    ap.add_argument("--no-html", action="store_true", help="pass --no-html to pgn-audit")
    ap.add_argument("--excel-safe", action="store_true", help="pass --excel-safe to pgn-audit")
    ap.add_argument("--format", choices=FORMATS, default="csv",
                    help="pass --format to pgn-audit: the row reports as CSV (default) or "
                         "Parquet files; the shards are merged in that format")
    ap.add_argument("--max-window", type=int, metavar="MIB",
                    help="pass --max-window to pgn-audit (default: its own, 128)")
    ap.add_argument("--retries", type=int, default=2,
                    help="how many more times a task that fails (its worker died, it timed "
                         "out, pgn-audit wrote no complete shard) is run before the driver "
                         "gives up on it and merges nothing (default 2)")
    args = ap.parse_args(argv)
    if args.threads is not None and args.threads < 1:
        ap.error("--threads must be at least 1")
    if args.piece_size is not None and args.piece_size < 1:
        ap.error("--piece-size must be at least 1")
    if args.min_piece_text < 1:
        ap.error("--min-piece-text must be at least 1")
    if args.excel_safe and args.format == "parquet":
        ap.error("--excel-safe: Parquet reports hold typed values, not spreadsheet text: "
                 "use it with --format csv")
    if args.retries < 0:
        ap.error("--retries must be at least 0")
    if args.slurm_dry_run and not args.slurm:
        ap.error("--slurm-dry-run needs --slurm JOBS")
    try:
        if args.slurm_dry_run:
            return print_slurm_job()
        return drive(args)
    except Refused as e:
        print(f"dask_audit: {e}", file=sys.stderr)
        return EXIT_ERROR
    except Failed as e:
        return e.args[0]
    except OSError as e:
        print(f"dask_audit: {e.filename}: {e.strerror}", file=sys.stderr)
        return EXIT_ERROR


def max_window(mib):
    """The limit summary.json records for `--max-window MIB`: pgn-audit's
    default (128) without one, else MIB within 1 and 2048, rounded down to a
    power of two, as pgn-audit applies it."""
    if mib is None:
        return 128
    return 1 << (min(max(mib, 1), 2048).bit_length() - 1)


def drive(args):
    cwd = os.getcwd()
    binary, version = binary_identity(args.binary)
    out = os.path.abspath(args.out)
    files = resolve(binary["path"], args.inputs, out)
    # The default plan needs the cluster's cores: connected first where a
    # file may be cut.
    connected = None
    texts = {}
    if args.piece_size is None:
        for i, f in enumerate(files):
            if may_be_cut(f, args.min_piece_text):
                texts[i] = text_estimate(binary["path"], f, args.max_window)
        if any(text > args.min_piece_text for text in texts.values()):
            connected = connect(args)
    cores = sum(worker_cores(connected[0])) if connected else 0

    def piece_size(i, file):
        if args.piece_size is not None:
            return args.piece_size
        if i not in texts:
            return file["size"] or 0
        return default_piece_size(file["size"] or 0, texts[i], cores, args.min_piece_text)

    try:
        return audit_units(args, cwd, binary, version, out, files, piece_size, connected)
    finally:
        if connected is not None:
            connected[0].close()
            if connected[1] is not None:
                connected[1].close()


def may_be_cut(file, min_text):
    """Whether the default plan may cut `file`: a plain file of more than
    a least piece's text, a zstd file that may hold that much."""
    size = file["size"]
    if size is None:
        return False
    if file["format"] == "plain":
        return size > min_text
    return file["format"] == "zstd" and size * MAX_TEXT_PER_STORED > min_text


def audit_units(args, cwd, binary, version, out, files, piece_size, connected):
    """Plans the units of `files`, audits those no shard of an earlier run
    holds on the cluster (`connected`, or one connected now), and merges."""
    units = [u for i, f in enumerate(files)
             for u in units_of(f, cwd, binary["path"], piece_size(i, f))]
    shards = os.path.abspath(args.shards or out.rstrip("/") + ".shards")
    for folder in (out, shards):
        os.makedirs(folder, exist_ok=True)
    locks = [lock(out), lock(shards)]
    # From here on the output folder vouches for no earlier run.
    try:
        os.remove(os.path.join(out, "summary.json"))
    except FileNotFoundError:
        pass
    remove_temporaries(shards)

    flags = [f for f, on in (("--split", args.split), ("--quirks", args.quirks),
                             ("--no-html", args.no_html), ("--excel-safe", args.excel_safe),
                             ("--fix", args.fix))
             if on]
    if args.format != "csv":
        flags += ["--format", args.format]
    if args.max_window is not None:
        flags += ["--max-window", str(args.max_window)]
    options = {"split": args.split, "quirks": args.quirks, "html": not args.no_html,
               "excel_safe": args.excel_safe, "format": args.format,
               "max_window": max_window(args.max_window), "fix": args.fix}
    wants, folders = [], []
    for i, unit in enumerate(units):
        wants.append({"format": IDENTITY_FORMAT, "binary": binary, "version": version,
                      "options": options, "args": flags, "unit": unit})
        folders.append(shard_dir(shards, i, unit))
    remove_other_shards(shards, folders)
    todo = []
    for want, folder in zip(wants, folders):
        why = stale_because(folder, want)
        if why is None:
            continue
        if why != "missing":
            print(f"dask_audit: {folder}: not reused: {why}", file=sys.stderr)
            shutil.rmtree(folder)
        todo.append((want, folder))
    reused = len(units) - len(todo)

    failed = 0
    if todo:
        client, cluster, threads = connected or connect(args)
        tasks = [{"identity": w, "folder": f, "cwd": cwd, "threads": threads,
                  "timeout": args.timeout} for w, f in todo]
        try:
            failed = run_tasks(client, tasks, args.retries)
        finally:
            if connected is None:
                client.close()
                if cluster is not None:
                    cluster.close()
    print(f"dask_audit: computed {len(todo)} shards, reused {reused}", file=sys.stderr)
    if failed:
        print(f"dask_audit: {out}: not merged: {failed} of {len(units)} shards failed",
              file=sys.stderr)
        return EXIT_ERROR

    for want, folder in zip(wants, folders):
        why = stale_because(folder, want)
        if why is not None:
            raise Refused(f"{folder}: changed during the run: {why}")

    # merge says each read error as one run says it (the offset counted
    # from the start of its source) and exits as that run does.
    merge = subprocess.run([binary["path"], "merge", "--quiet", *folders, "-o", out],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
    for held in locks:
        held.close()
    sys.stderr.write(merge.stderr)
    return merge.returncode


def leave(status):
    """Ends the driver with `status`. Once Dask is loaded, without Python's
    teardown of its modules (0.3 s or more, a sixth of a short run's
    fixed cost): the client and cluster are closed, the merge is done and
    nothing is left to write but the buffered output."""
    if "distributed" not in sys.modules:
        sys.exit(status)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    leave(main())
