//! The Dask driver (issues 7 and 13): a real scheduler and two worker
//! processes on loopback audit a set of files, a file larger than
//! `--piece-size` in pieces (a month of 1M games in pzstd frames, audited
//! by both workers); the merged reports are byte-identical to one
//! pgn-audit run, also when a worker is killed while it runs a piece, and a
//! rerun after an interruption recomputes only the missing shards. A rerun
//! reuses a shard only when it provably belongs to this run:
//! every stale shard (input changed or completed, run interrupted, read
//! error, other options, other binary) is computed again, never reused,
//! and the shard folders of an older plan are removed. `--slurm-dry-run`
//! prints the Slurm job script that `--slurm` would submit.
//! Ignored where Python's `distributed` is missing (and run, so failing,
//! under CI).

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime};

use common::*;

const DRIVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cluster/dask_audit.py");

/// A scheduler and its workers, ended when dropped.
struct Cluster {
    scheduler: Child,
    workers: Vec<Child>,
    file: PathBuf,
}

impl Cluster {
    /// A scheduler and `workers` workers of one thread each, advertising
    /// `cores` of the resource `cores`. The scheduler ends itself after two
    /// idle minutes and the workers a while after it, should this process
    /// die without dropping them.
    fn start(dir: &Path, workers: usize, cores: usize) -> Cluster {
        let file = dir.join("scheduler.json");
        let scheduler = python()
            .args([
                "-m",
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--idle-timeout",
                "120",
            ])
            .args(["--no-dashboard", "--scheduler-file"])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while !file.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "scheduler did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let workers = (0..workers)
            .map(|_| {
                python()
                    .args([
                        "-m",
                        "distributed.cli.dask_worker",
                        "--no-nanny",
                        "--nthreads",
                        "1",
                        "--death-timeout",
                        "30",
                        "--resources",
                    ])
                    .arg(format!("cores={cores}"))
                    .args(["--no-dashboard", "--host", "127.0.0.1", "--scheduler-file"])
                    .arg(&file)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        Cluster {
            scheduler,
            workers,
            file,
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for w in &mut self.workers {
            let _ = w.kill();
            let _ = w.wait();
        }
        let _ = self.scheduler.kill();
        let _ = self.scheduler.wait();
    }
}

/// Six input files, every tenth game given a row, one compressed.
fn inputs(dir: &Path) -> Vec<String> {
    let games: Vec<String> = sample_games()
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if i % 10 == 0 {
                with_bad_fen(g)
            } else {
                g.clone()
            }
        })
        .collect();
    let mut files = Vec::new();
    for (k, chunk) in games.chunks(73).enumerate() {
        let body = chunk.join("\n\n") + "\n";
        let path = if k == 2 {
            write(
                dir,
                &format!("part{k}.pgn.zst"),
                &zstd::encode_all(body.as_bytes(), 3).unwrap(),
            )
        } else {
            write(dir, &format!("part{k}.pgn"), body.as_bytes())
        };
        files.push(s(&path).to_owned());
    }
    files
}

fn drive(scheduler_file: &Path, binary: &Path, out: &Path, args: &[String]) -> String {
    let o = python()
        .arg(DRIVER)
        .arg("--scheduler-file")
        .arg(scheduler_file)
        .arg("--binary")
        .arg(binary)
        .arg("-o")
        .arg(out)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "driver failed: {err}");
    err
}

/// Games in a month file, each with its own Lichess-like Site: two short
/// games in turn, and every 1000th game one with a finding (an implied
/// threefold claim, a checkmate scored for the mated side, a castle after
/// the rook moved).
fn month_games(games: usize) -> Vec<u8> {
    const DRAW: &str = "[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n\n";
    const MATE: &str = "[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n";
    const FINDINGS: [&str; 3] = [
        "[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n\n",
        "[Result \"0-1\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 0-1\n\n",
        "[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. Rg1 Nf6 5. Rh1 d6 6. O-O *\n\n",
    ];
    const ID: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut text = Vec::with_capacity(games * 100);
    let mut seed: u64 = 13;
    for i in 0..games {
        text.extend_from_slice(b"[Site \"https://lichess.org/");
        for _ in 0..8 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.push(ID[(seed >> 33) as usize % ID.len()]);
        }
        text.extend_from_slice(b"\"]\n");
        let game = match (i % 1000, i % 2) {
            (999, _) => FINDINGS[i / 1000 % 3],
            (_, 0) => DRAW,
            _ => MATE,
        };
        text.extend_from_slice(game.as_bytes());
    }
    text
}

/// `text` as pzstd and Lichess write it: frames of `step` bytes of text,
/// each announced by a skippable frame that holds its size; and where
/// each frame starts.
fn pzstd(text: &[u8], step: usize) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut starts = Vec::new();
    for chunk in text.chunks(step) {
        starts.push(out.len());
        let frame = zstd::encode_all(chunk, 1).unwrap();
        out.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
        out.extend_from_slice(&4u32.to_le_bytes());
        let size = u32::try_from(frame.len()).expect("a pzstd frame fits its u32 size field");
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&frame);
    }
    (out, starts)
}

/// The games each worker process audited of `source`'s pieces, read from
/// the shards: the identity record's `ran_on.pid` and summary.json's
/// `piece.games`.
fn games_per_worker(shards: &[PathBuf], source: &str) -> Vec<(u64, u64)> {
    let mut per: std::collections::BTreeMap<u64, u64> = Default::default();
    for shard in shards {
        let s = summary(shard);
        if s["piece"]["source"] != source {
            continue;
        }
        let record: serde_json::Value =
            serde_json::from_slice(&std::fs::read(shard.join("dask_audit.json")).unwrap()).unwrap();
        *per.entry(record["ran_on"]["pid"].as_u64().unwrap())
            .or_default() += s["piece"]["games"].as_u64().unwrap();
    }
    per.into_iter().collect()
}

/// A month file of 1M games in pzstd frames, between small files: the
/// driver splits it into pieces that both workers audit, and the merged
/// reports are one run's; so after losing two shards (exactly those are
/// computed again) and after a worker is SIGKILLed while it runs a piece.
#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn a_month_in_pieces_on_two_workers_merges_exactly_survives_a_dead_worker_and_resumes() {
    const GAMES: u64 = 1_000_000;
    let t = tempdir();
    let small = inputs(t.path());
    let (month, _) = pzstd(
        &month_games(usize::try_from(GAMES).expect("1M fits a usize")),
        1 << 20,
    );
    let month_path = write(t.path(), "month.pgn.zst", &month);
    let month_name = s(&month_path).to_owned();
    let mut files = small[..3].to_vec();
    files.push(month_name.clone());
    files.extend_from_slice(&small[3..]);
    let single = t.path().join("single");
    let mut single_args: Vec<&str> = files.iter().map(String::as_str).collect();
    single_args.extend(["-j", "2"]);
    run_ok(&single_args, &single);
    assert_eq!(counts(&single).0, GAMES + 438);
    // The month's findings: those of the run without it, and 1,000 more.
    let rest = t.path().join("rest");
    run_ok(&small.iter().map(String::as_str).collect::<Vec<_>>(), &rest);
    let (with, without) = (summary(&single), summary(&rest));
    for (group, code, more) in [
        ("claims", "valid", 334),
        ("results", "checkmate_not_scored", 333),
        ("castling", "rook_moved", 333),
    ] {
        assert_eq!(
            with[group][code],
            without[group][code].as_u64().unwrap() + more
        );
    }
    let binary = pgn_audit();
    // About sixteen pieces of the month; the small files stay whole.
    let piece_size = (month.len() / 16 + 1).to_string();
    let mut args = files.clone();
    args.extend(["--piece-size".to_owned(), piece_size]);

    // Two workers of one core, all goes well.
    let mut cluster = Cluster::start(t.path(), 2, 1);
    let out = t.path().join("merged");
    let log = drive(&cluster.file, &binary, &out, &args);
    let shards = shard_folders(&out);
    let pieces: Vec<&PathBuf> = shards
        .iter()
        .filter(|s| summary(s)["piece"]["source"] == month_name.as_str())
        .collect();
    assert_eq!(
        pieces.len(),
        plan(&month_name, month.len() as u64 / 16 + 1).len()
    );
    assert!(pieces.len() >= 12, "{pieces:?}");
    assert_eq!(shards.len(), 6 + pieces.len());
    assert!(
        log.contains(&format!("computed {} shards, reused 0", shards.len())),
        "{log}"
    );
    assert_same_run(&single, &out);
    let per = games_per_worker(&shards, &month_name);
    let pids: Vec<u64> = cluster.workers.iter().map(|w| w.id() as u64).collect();
    assert_eq!(per.len(), 2, "{per:?}");
    for (pid, games) in &per {
        assert!(pids.contains(pid), "{per:?} {pids:?}");
        assert!(*games * 4 >= GAMES, "{per:?}");
    }
    assert_eq!(per.iter().map(|p| p.1).sum::<u64>(), GAMES);

    // Resume: two pieces lost, exactly they are computed again.
    let lost = [pieces[1].clone(), pieces[pieces.len() - 2].clone()];
    let kept: Vec<(PathBuf, SystemTime)> = shards
        .iter()
        .filter(|s| !lost.contains(s))
        .map(|s| {
            let m = std::fs::metadata(s.join("dask_audit.json")).unwrap();
            (s.clone(), m.modified().unwrap())
        })
        .collect();
    for l in &lost {
        std::fs::remove_dir_all(l).unwrap();
    }
    std::fs::remove_dir_all(&out).unwrap();
    let log = drive(&cluster.file, &binary, &out, &args);
    assert!(
        log.contains(&format!("computed 2 shards, reused {}", shards.len() - 2)),
        "{log}"
    );
    for (shard, modified) in &kept {
        let m = std::fs::metadata(shard.join("dask_audit.json")).unwrap();
        assert_eq!(
            m.modified().unwrap(),
            *modified,
            "{shard:?} was written again"
        );
    }
    assert_eq!(shard_folders(&out), shards);
    assert_same_run(&single, &out);

    // A worker SIGKILLed while it runs a piece: the binary notes its pid and
    // its worker's when it starts the first piece, then waits 2 s.
    let started = t.path().join("started");
    std::fs::create_dir(&started).unwrap();
    let slow = script(
        t.path(),
        "slow-pgn-audit",
        &format!(
            "case \" $* \" in *\" --piece \"*) if mkdir '{started}/first' 2>/dev/null; then\n\
             echo $$ $PPID > '{started}/pids.tmp'; mv '{started}/pids.tmp' '{started}/pids'\n\
             sleep 2; kill -0 $PPID 2>/dev/null || exit 137; fi;; esac\nexec '{bin}' \"$@\"\n",
            started = started.display(),
            bin = binary.display()
        ),
    );
    let out = t.path().join("killed");
    let driver = {
        let file = cluster.file.clone();
        let (slow, out, args) = (slow.clone(), out.clone(), args.clone());
        std::thread::spawn(move || drive(&file, &slow, &out, &args))
    };
    let begin = Instant::now();
    let (task, worker) = loop {
        if let Ok(text) = std::fs::read_to_string(started.join("pids")) {
            let pids: Vec<u32> = text
                .split_whitespace()
                .map(|p| p.parse().unwrap())
                .collect();
            break (pids[0].to_string(), pids[1]);
        }
        assert!(
            begin.elapsed() < Duration::from_secs(60),
            "no piece started"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let k = cluster
        .workers
        .iter()
        .position(|w| w.id() == worker)
        .expect("the piece runs on a worker");
    // The piece's process still runs when its worker dies.
    let running = Command::new("kill").args(["-0", &task]).status().unwrap();
    assert!(running.success());
    let mut victim = cluster.workers.remove(k);
    victim.kill().unwrap();
    victim.wait().unwrap();
    let log = driver.join().unwrap();
    assert!(
        log.contains(&format!("computed {} shards, reused 0", shards.len())),
        "{log}"
    );
    assert_same_run(&single, &out);
}

/// The cluster the resume tests share: two workers advertising 2 cores
/// each. Started by the first test that asks for it, ended when the last
/// test holding it is done.
struct Shared {
    cluster: Cluster,
    _dir: tempfile::TempDir,
}

fn shared_cluster() -> Arc<Shared> {
    static SHARED: Mutex<Weak<Shared>> = Mutex::new(Weak::new());
    let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(running) = shared.upgrade() {
        return running;
    }
    let dir = tempdir();
    let started = Arc::new(Shared {
        cluster: Cluster::start(dir.path(), 2, 2),
        _dir: dir,
    });
    *shared = Arc::downgrade(&started);
    started
}

fn pgn_audit() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pgn-audit"))
}

/// Runs the driver in `cwd` on the shared cluster with `binary`, into
/// `out`, with `args` (inputs and flags).
fn run_driver(cluster: &Cluster, binary: &Path, out: &str, args: &[String], cwd: &Path) -> Output {
    driver_command(cluster, binary, out, args, cwd)
        .output()
        .unwrap()
}

fn driver_command(
    cluster: &Cluster,
    binary: &Path,
    out: &str,
    args: &[String],
    cwd: &Path,
) -> Command {
    let mut cmd = python();
    cmd.current_dir(cwd)
        .arg(DRIVER)
        .arg("--scheduler-file")
        .arg(&cluster.file)
        .arg("--binary")
        .arg(binary)
        .args(["-o", out])
        .args(args)
        .stdin(Stdio::null());
    cmd
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The lines pgn-audit printed (`pgn-audit: PATH: cause`).
fn audit_messages(o: &Output) -> Vec<String> {
    stderr(o)
        .lines()
        .filter(|l| l.starts_with("pgn-audit:"))
        .map(str::to_owned)
        .collect()
}

/// One pgn-audit run over `args` in `cwd`, into `cwd/single`; its output.
fn one_run(args: &[String], cwd: &Path) -> (PathBuf, Output) {
    let single = cwd.join("single");
    let o = bin()
        .current_dir(cwd)
        .args(args)
        .args(["-o", "single", "--quiet"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (single, o)
}

/// The report files of a folder (not its lock files), by name.
fn report_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// `merged` holds exactly the reports of one run, `single`: the same files,
/// the same bytes (summary.json but for `seconds` and `threads`).
fn assert_same_run(single: &Path, merged: &Path) {
    assert_eq!(report_files(single), report_files(merged));
    for f in report_files(single) {
        let a = std::fs::read(single.join(&f)).unwrap();
        let b = std::fs::read(merged.join(&f)).unwrap();
        if f == "summary.json" {
            let strip = |t: &[u8]| {
                let mut v: serde_json::Value = serde_json::from_slice(t).unwrap();
                for k in ["seconds", "threads", "helpmate_seconds"] {
                    v.as_object_mut().unwrap().remove(k);
                }
                v
            };
            assert_eq!(strip(&a), strip(&b));
        } else if f != "report.html" {
            assert!(a == b, "{f} differs");
        }
    }
}

/// An executable shell script.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = write(dir, name, format!("#!/bin/sh\n{body}").as_bytes());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Shell that sets `$out` to the argument after `-o`.
const OUT_ARG: &str =
    "out=; prev=\nfor a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n";

/// Arguments with the names of `dir`'s files made absolute: the tests of
/// resume give the driver absolute paths, which every driver could read.
fn in_dir(dir: &Path, args: &[&str]) -> Vec<String> {
    args.iter()
        .map(|a| match dir.join(a) {
            path if path.exists() => s(&path).to_owned(),
            _ => (*a).to_owned(),
        })
        .collect()
}

/// `games` as one PGN text.
fn pgn(games: &[String]) -> String {
    games.join("\n\n") + "\n"
}

/// The shard folders of a driver's output `out`, sorted.
fn shard_folders(out: &Path) -> Vec<PathBuf> {
    let shards = PathBuf::from(format!("{}.shards", out.display()));
    let mut names: Vec<PathBuf> = std::fs::read_dir(&shards)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    names
}

/// Asserts the driver's last line: how many shards it computed and reused.
fn computed(o: &Output, computed: usize, reused: usize) {
    let want = format!("dask_audit: computed {computed} shards, reused {reused}\n");
    assert!(stderr(o).contains(&want), "want {want}: {}", stderr(o));
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn resume_recomputes_a_shard_whose_input_changed_with_its_size_kept() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    let a = write(t.path(), "a.pgn", pgn(&games[..60]).as_bytes());
    write(t.path(), "b.pgn", pgn(&games[60..120]).as_bytes());
    let args = in_dir(t.path(), &["a.pgn", "b.pgn"]);
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 2, 0);

    // The same games in another order, dated back as a download tool may
    // date a file: same size, older modification time.
    let mut reordered = games[..60].to_vec();
    reordered.reverse();
    std::fs::write(&a, pgn(&reordered)).unwrap();
    assert_eq!(
        std::fs::metadata(&a).unwrap().len(),
        pgn(&games[..60]).len() as u64
    );
    std::fs::File::options()
        .write(true)
        .open(&a)
        .unwrap()
        .set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000))
        .unwrap();
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 1, 1);
    let (single, fresh) = one_run(&args, t.path());
    assert_eq!(fresh.status.code(), Some(0));
    assert_same_run(&single, &t.path().join("merged"));
    assert_eq!(counts(&t.path().join("merged")).0, 120);
    // Each task ran with the cores it reserved: the workers' 2.
    for shard in shard_folders(&t.path().join("merged")) {
        assert_eq!(summary(&shard)["threads"], 2);
    }
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn resume_recomputes_a_partial_download_once_completed() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    let full = zstd::encode_all(pgn(&games[..300]).as_bytes(), 3).unwrap();
    let part = write(t.path(), "month.pgn.zst", &full[..full.len() * 2 / 5]);
    write(t.path(), "b.pgn", pgn(&games[300..360]).as_bytes());
    let args = in_dir(t.path(), &["month.pgn.zst", "b.pgn"]);
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    let (_, fresh) = one_run(&args, t.path());
    assert_eq!(fresh.status.code(), Some(2));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(audit_messages(&o), audit_messages(&fresh));

    // The download completes: same name, more bytes.
    std::fs::write(&part, &full).unwrap();
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 1, 1);
    let (single, fresh) = one_run(&args, t.path());
    assert_eq!(fresh.status.code(), Some(0));
    assert_same_run(&single, &t.path().join("merged"));
    assert_eq!(counts(&t.path().join("merged")).0, 360);
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn an_interrupted_shard_is_never_kept_and_a_rerun_recomputes_it() {
    let shared = shared_cluster();
    let t = tempdir();
    let sample = std::fs::read(SAMPLE).unwrap();
    let big: Vec<u8> = (0..30)
        .flat_map(|_| sample.iter().chain(b"\n").copied())
        .collect();
    write(t.path(), "big.pgn", &big);
    write(t.path(), "small.pgn", pgn(&sample_games()[..40]).as_bytes());
    // A binary whose run on big.pgn gets SIGTERM once its reports are begun,
    // as a worker's shutdown or a job's time limit sends it.
    let interrupted = script(
        t.path(),
        "interrupted-pgn-audit",
        &format!(
            "{OUT_ARG}case \"$1\" in *big.pgn) ;; *) exec '{bin}' \"$@\";; esac\n\
             '{bin}' \"$@\" & pid=$!\n\
             while kill -0 $pid 2>/dev/null && ! ls -A \"$out\" 2>/dev/null | grep -q partial; do sleep 0.01; done\n\
             kill -TERM $pid 2>/dev/null\nwait $pid\n",
            bin = pgn_audit().display()
        ),
    );
    let args = in_dir(t.path(), &["big.pgn", "small.pgn", "--retries", "0"]);
    let o = run_driver(&shared.cluster, &interrupted, "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "dask_audit: {}: pgn-audit was interrupted (exit 130): its shard is not kept\n",
            args[0]
        )),
        "{}",
        stderr(&o)
    );
    assert!(!t.path().join("merged/summary.json").exists());
    let kept = shard_folders(&t.path().join("merged"));
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].to_string_lossy().ends_with("small.pgn"), "{kept:?}");

    // small.pgn's shard is of another binary: both are computed.
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 2, 0);
    let (single, fresh) = one_run(&args[..2], t.path());
    assert_eq!(fresh.status.code(), Some(0));
    assert_same_run(&single, &t.path().join("merged"));
    assert_eq!(counts(&t.path().join("merged")).0, 30 * 438 + 40);
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn a_reused_shard_keeps_its_read_error_and_exit_status() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    let z = zstd::encode_all(pgn(&games[..300]).as_bytes(), 3).unwrap();
    write(t.path(), "a.pgn", pgn(&games[300..340]).as_bytes());
    write(t.path(), "cut.pgn.zst", &z[..z.len() / 2]);
    let args = in_dir(t.path(), &["a.pgn", "cut.pgn.zst"]);
    let (single, fresh) = one_run(&args, t.path());
    assert_eq!(fresh.status.code(), Some(2));
    let message = audit_messages(&fresh);
    assert_eq!(message.len(), 1);
    assert!(
        message[0].starts_with(&format!(
            "pgn-audit: {}: zstd stream is corrupt or truncated",
            args[1]
        )),
        "{message:?}"
    );
    for (computed_now, reused) in [(2, 0), (0, 2)] {
        let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(audit_messages(&o), message);
        computed(&o, computed_now, reused);
        assert_same_run(&single, &t.path().join("merged"));
    }
}

/// A shard's report edited after it was written (one cell of its
/// castling.csv), its summary.json untouched, is not reused: its checksum
/// in the identity record no longer holds, so it is computed again and the
/// merge is the one run's.
#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn a_shard_edited_after_it_was_written_is_computed_again() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    write(t.path(), "a.pgn", pgn(&games[..40]).as_bytes());
    write(t.path(), "b.pgn", pgn(&games[40..80]).as_bytes());
    let args = in_dir(t.path(), &["a.pgn", "b.pgn"]);
    let (single, _) = one_run(&args, t.path());
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 2, 0);
    let shards = shard_folders(&t.path().join("merged"));
    let castling = shards[1].join("castling.csv");
    let text = std::fs::read_to_string(&castling).unwrap();
    std::fs::write(&castling, text.replacen("source", "sourcE", 1)).unwrap();
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 1, 1);
    assert!(
        stderr(&o).contains(": not reused: its castling.csv was changed after it was written"),
        "{}",
        stderr(&o)
    );
    assert_same_run(&single, &t.path().join("merged"));
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn split_given_or_dropped_on_rerun_recomputes_every_shard() {
    let shared = shared_cluster();
    let t = tempdir();
    let games: Vec<String> = sample_games()[..80]
        .iter()
        .enumerate()
        .map(|(i, g)| {
            if i % 7 == 0 {
                with_bad_fen(g)
            } else {
                g.clone()
            }
        })
        .collect();
    write(t.path(), "a.pgn", pgn(&games[..40]).as_bytes());
    write(t.path(), "b.pgn", pgn(&games[40..]).as_bytes());
    for (flags, computed_now) in [(&[][..], 2), (&["--split"][..], 2), (&[][..], 2)] {
        let mut args = in_dir(t.path(), &["a.pgn", "b.pgn"]);
        args.extend(flags.iter().map(|f| f.to_string()));
        let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        computed(&o, computed_now, 0);
        let (single, fresh) = one_run(&args, t.path());
        assert_eq!(fresh.status.code(), Some(0));
        assert_same_run(&single, &t.path().join("merged"));
        assert_eq!(
            t.path().join("merged/clean.pgn").exists(),
            !flags.is_empty()
        );
    }
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn shards_of_another_binary_of_the_same_version_are_recomputed() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    write(t.path(), "a.pgn", pgn(&games[..50]).as_bytes());
    write(t.path(), "b.pgn", pgn(&games[50..100]).as_bytes());
    // Another build of the same version, which counts notation quirks
    // otherwise (a count that, without --quirks, no rows check: its
    // folders keep every identity that merge checks).
    let other = script(
        t.path(),
        "other-pgn-audit",
        &format!(
            "{OUT_ARG}'{}' \"$@\"; status=$?\n\
             [ -f \"$out/summary.json\" ] && sed -i 's/\"notation_quirks\": [0-9]*/\"notation_quirks\": 7/' \"$out/summary.json\"\n\
             exit $status\n",
            pgn_audit().display()
        ),
    );
    let args = in_dir(t.path(), &["a.pgn", "b.pgn"]);
    let o = run_driver(&shared.cluster, &other, "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // That build merged too: its two shards' 7 each, then its own 7.
    assert_eq!(summary(&t.path().join("merged"))["notation_quirks"], 7);

    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 2, 0);
    let (single, _) = one_run(&args, t.path());
    assert_same_run(&single, &t.path().join("merged"));
    assert_eq!(counts(&t.path().join("merged")).0, 100);
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn a_failed_merge_leaves_no_summary_of_an_earlier_run() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    let a = write(t.path(), "a.pgn", pgn(&games[..50]).as_bytes());
    write(t.path(), "b.pgn", pgn(&games[50..100]).as_bytes());
    let args = in_dir(t.path(), &["a.pgn", "b.pgn"]);
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // The input changes, and the merge will fail once it has begun.
    std::fs::write(&a, pgn(&games[100..130])).unwrap();
    let merged = t.path().join("merged");
    std::fs::remove_file(merged.join("report.html")).unwrap();
    std::fs::create_dir(merged.join("report.html")).unwrap();
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    computed(&o, 1, 1);
    assert_eq!(
        audit_messages(&o),
        [format!(
            "pgn-audit: merge: {}: is a directory",
            merged.join("report.html").display()
        )]
    );
    assert_eq!(report_files(&merged), ["report.html"]);
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn a_second_driver_on_the_same_output_is_refused() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    write(t.path(), "a.pgn", pgn(&games[..50]).as_bytes());
    write(t.path(), "b.pgn", pgn(&games[50..100]).as_bytes());
    let slow = script(
        t.path(),
        "slow-pgn-audit",
        &format!(
            "case \"$1\" in --version|sources) ;; *) touch '{started}'; sleep 3;; esac\n\
             exec '{bin}' \"$@\"\n",
            started = t.path().join("started").display(),
            bin = pgn_audit().display()
        ),
    );
    let args = in_dir(t.path(), &["a.pgn", "b.pgn"]);
    let mut first = driver_command(&shared.cluster, &slow, "merged", &args, t.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the first driver's tasks run, a second one is refused.
    let start = Instant::now();
    while !t.path().join("started").exists() {
        assert!(
            first.try_wait().unwrap().is_none(),
            "the first driver ended"
        );
        assert!(start.elapsed() < Duration::from_secs(60), "no task started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    assert_eq!(
        stderr(&second),
        format!(
            "dask_audit: {}: in use by another dask_audit driver\n",
            t.path().join("merged").display()
        )
    );
    let first = first.wait_with_output().unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    computed(&first, 2, 0);
    let (single, _) = one_run(&args, t.path());
    assert_same_run(&single, &t.path().join("merged"));
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn relative_inputs_work_on_workers_started_elsewhere_and_dead_temporaries_go() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    write(t.path(), "a.pgn", pgn(&games[..50]).as_bytes());
    std::fs::create_dir(t.path().join("sub")).unwrap();
    write(t.path(), "sub/b.pgn", pgn(&games[50..100]).as_bytes());
    // What a worker killed mid-task leaves.
    let dead = t
        .path()
        .join("merged.shards/000000-a.pgn.tmp-0123456789abcdef");
    std::fs::create_dir_all(&dead).unwrap();
    write(&dead, "castling.csv", b"half a report");

    let args = ["a.pgn", "sub/b.pgn"].map(String::from);
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 2, 0);
    let (single, _) = one_run(&args, t.path());
    assert_same_run(&single, &t.path().join("merged"));
    assert_eq!(
        summary(&t.path().join("merged"))["sources"],
        serde_json::json!(args)
    );
    assert!(!dead.exists());
    assert_eq!(
        report_files(&t.path().join("merged.shards")),
        ["000000-a.pgn", "000001-sub_b.pgn"]
    );
}

/// Issue 25: a folder of a.pgn, b.pgn.xz and d.zip (two PGN members and a
/// note) is read by the driver as pgn-audit reads it, every source in
/// pgn-audit's order: the merged reports are one run's, and a rerun
/// reuses the three shards (one per file, the archive's members in one).
#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn a_folder_of_xz_and_zip_files_is_read_as_one_run_reads_it() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    let dir = t.path().join("games");
    std::fs::create_dir(&dir).unwrap();
    write(&dir, "a.pgn", pgn(&games[..40]).as_bytes());
    write(&dir, "b.pgn.xz", &xz(pgn(&games[40..90]).as_bytes()));
    let (first, second) = (pgn(&games[90..150]), pgn(&games[150..200]));
    write(
        &dir,
        "d.zip",
        &zip_of(&[
            ("first.pgn", first.as_bytes()),
            ("notes.txt", b"not PGN"),
            ("second.pgn", second.as_bytes()),
        ]),
    );
    let args = ["games".to_owned()];
    let (single, fresh) = one_run(&args, t.path());
    assert_eq!(fresh.status.code(), Some(0), "{}", stderr(&fresh));
    let sources = [
        "games/a.pgn",
        "games/b.pgn.xz",
        "games/d.zip/first.pgn",
        "games/d.zip/second.pgn",
    ];
    assert_eq!(summary(&single)["sources"], serde_json::json!(sources));
    assert_eq!(counts(&single).0, 200);
    for (computed_now, reused) in [(3, 0), (0, 3)] {
        let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        computed(&o, computed_now, reused);
        assert_same_run(&single, &t.path().join("merged"));
    }
    assert_eq!(
        report_files(&t.path().join("merged.shards")),
        [
            "000000-games_a.pgn",
            "000001-games_b.pgn.xz",
            "000002-games_d.zip"
        ]
    );
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn a_task_past_its_timeout_is_ended_and_nothing_is_merged() {
    let shared = shared_cluster();
    let t = tempdir();
    write(t.path(), "a.pgn", pgn(&sample_games()[..20]).as_bytes());
    let stuck = script(
        t.path(),
        "stuck-pgn-audit",
        &format!(
            "case \"$1\" in --version|sources) exec '{}' \"$@\";; esac\nexec sleep 60\n",
            pgn_audit().display()
        ),
    );
    let args = in_dir(t.path(), &["a.pgn", "--timeout", "1", "--retries", "0"]);
    let started = Instant::now();
    let o = run_driver(&shared.cluster, &stuck, "merged", &args, t.path());
    assert!(started.elapsed() < Duration::from_secs(40));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let merged = t.path().join("merged");
    assert!(
        stderr(&o).ends_with(&format!(
            "dask_audit: {}: timed out after 1 s\n\
             dask_audit: computed 1 shards, reused 0\n\
             dask_audit: {}: not merged: 1 of 1 shards failed\n",
            args[0],
            merged.display()
        )),
        "{}",
        stderr(&o)
    );
    assert!(shard_folders(&merged).is_empty());
    assert_eq!(report_files(&merged), Vec::<String>::new());
}

/// The identity records' units of `out`'s shards: source, start, end.
fn units(out: &Path) -> Vec<(String, Option<u64>, Option<u64>)> {
    shard_folders(out)
        .iter()
        .map(|shard| {
            let record: serde_json::Value =
                serde_json::from_slice(&std::fs::read(shard.join("dask_audit.json")).unwrap())
                    .unwrap();
            let unit = &record["unit"];
            (
                unit["source"].as_str().unwrap().to_owned(),
                unit["start"].as_u64(),
                unit["end"].as_u64(),
            )
        })
        .collect()
}

/// `pgn-audit plan FILE --piece-size SIZE`, as (start, end) pairs.
fn plan(file: &str, size: u64) -> Vec<(Option<u64>, Option<u64>)> {
    let o = bin()
        .args(["plan", file, "--piece-size", &size.to_string()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (a, b) = l.split_once("..").unwrap();
            (Some(a.parse().unwrap()), Some(b.parse().unwrap()))
        })
        .collect()
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn a_file_above_the_piece_size_is_audited_in_pieces_and_a_change_recomputes_them_all() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    let big = write(t.path(), "big.pgn", pgn(&games).as_bytes());
    write(t.path(), "small.pgn", pgn(&games[..20]).as_bytes());
    let mut args = in_dir(t.path(), &["small.pgn", "big.pgn"]);
    let pieces = plan(&args[1], 250_000);
    assert_eq!(pieces.len(), 4);
    args.extend(["--piece-size".to_owned(), "250000".to_owned()]);
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 5, 0);
    // The small file whole, then the big one's pieces in plan order.
    let mut want = vec![(args[0].clone(), None, None)];
    want.extend(pieces.iter().map(|&(a, b)| (args[1].clone(), a, b)));
    let merged = t.path().join("merged");
    assert_eq!(units(&merged), want);
    let (single, fresh) = one_run(&args[..2], t.path());
    assert_eq!(fresh.status.code(), Some(0));
    assert_same_run(&single, &merged);

    // The same bytes, dated otherwise: every piece is computed again.
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000))
        .unwrap();
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 4, 1);
    for shard in &shard_folders(&merged)[1..] {
        assert!(
            stderr(&o).contains(&format!(
                "dask_audit: {}: not reused: made from another state of its input",
                shard.display()
            )),
            "{}",
            stderr(&o)
        );
    }
    let (single, _) = one_run(&args[..2], t.path());
    assert_same_run(&single, &merged);
    assert_eq!(counts(&merged).0, 458);
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn a_corrupt_frame_in_a_piece_ends_its_source_as_in_one_run_also_when_reused() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    let (mut z, starts) = pzstd(pgn(&games).as_bytes(), 20_000);
    // Damage the sixth frame's compressed data.
    z[starts[5] + 30] ^= 0x5a;
    write(t.path(), "month.pgn.zst", &z);
    write(t.path(), "after.pgn", pgn(&games[..30]).as_bytes());
    let mut args = in_dir(t.path(), &["month.pgn.zst", "after.pgn"]);
    let (single, fresh) = one_run(&args, t.path());
    assert_eq!(fresh.status.code(), Some(2));
    let message = audit_messages(&fresh);
    assert_eq!(message.len(), 1);
    assert!(
        message[0].starts_with(&format!(
            "pgn-audit: {}: zstd stream is corrupt or truncated after 100000 bytes: ",
            args[0]
        )),
        "{message:?}"
    );
    // Both files in pieces, the month's damaged one among them.
    let month = plan(&args[0], 10_000).len();
    let after = plan(&args[1], 10_000).len();
    assert!(month >= 4 && after >= 2, "{month} {after}");
    args.extend(["--piece-size".to_owned(), "10000".to_owned()]);
    for (computed_now, reused) in [(month + after, 0), (0, month + after)] {
        let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(audit_messages(&o), message);
        computed(&o, computed_now, reused);
        assert_same_run(&single, &t.path().join("merged"));
    }
}

/// The name the driver gives the `index`-th shard folder: its number, then
/// its source as a file name (its last 80 characters) and a piece's bounds.
fn shard_name(index: usize, source: &str, piece: Option<(u64, u64)>) -> String {
    let safe: Vec<char> = source
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe: String = safe[safe.len().saturating_sub(80)..].iter().collect();
    match piece {
        Some((start, end)) => format!("{index:06}-{safe}.{start}-{end}"),
        None => format!("{index:06}-{safe}"),
    }
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn shard_folders_of_an_older_plan_are_removed_and_never_merged() {
    let shared = shared_cluster();
    let t = tempdir();
    let games = sample_games();
    write(t.path(), "small.pgn", pgn(&games[..20]).as_bytes());
    write(t.path(), "big.pgn", pgn(&games).as_bytes());
    let files = in_dir(t.path(), &["small.pgn", "big.pgn"]);
    let merged = t.path().join("merged");
    let mut args = files.clone();
    args.extend(["--piece-size".to_owned(), "250000".to_owned()]);
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 5, 0);
    let older = shard_folders(&merged);
    assert_eq!(older.len(), 5);
    // Not a shard folder: left alone.
    let notes = t.path().join("merged.shards/notes");
    std::fs::create_dir(&notes).unwrap();

    // Another piece size: big.pgn is planned otherwise.
    let pieces = plan(&files[1], 400_000);
    assert_eq!(pieces.len(), 3);
    let mut args = files.clone();
    args.extend(["--piece-size".to_owned(), "400000".to_owned()]);
    let o = run_driver(&shared.cluster, &pgn_audit(), "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    computed(&o, 3, 1);
    for old in &older[1..] {
        assert!(
            stderr(&o).contains(&format!(
                "dask_audit: {}: removed: not a shard of this run\n",
                old.display()
            )),
            "{}",
            stderr(&o)
        );
    }
    let mut want = vec![shard_name(0, &files[0], None)];
    for (k, &(start, end)) in pieces.iter().enumerate() {
        want.push(shard_name(
            k + 1,
            &files[1],
            Some((start.unwrap(), end.unwrap())),
        ));
    }
    want.push("notes".to_owned());
    assert_eq!(report_files(&t.path().join("merged.shards")), want);
    assert_eq!(older[0], t.path().join("merged.shards").join(&want[0]));
    let (single, fresh) = one_run(&files, t.path());
    assert_eq!(fresh.status.code(), Some(0));
    assert_same_run(&single, &merged);
    assert_eq!(counts(&merged).0, 458);
}

/// `--slurm JOBS --slurm-dry-run` with the SLURM settings of Dask's
/// configuration (here from the environment, no jobqueue.yaml): the job
/// script, printed and not submitted.
fn slurm_dry_run(dir: &Path, settings: &[(&str, &str)]) -> Output {
    write(dir, "a.pgn", pgn(&sample_games()[..5]).as_bytes());
    let mut cmd = python();
    cmd.current_dir(dir)
        .arg(DRIVER)
        .args(["--slurm", "3", "--slurm-dry-run", "--binary"])
        .arg(pgn_audit())
        .args(["-o", "merged", "a.pgn"])
        .env("DASK_CONFIG", dir.join("no-dask-config"))
        // The other tests' clusters may hold the dashboard's port: Dask
        // warns that it takes another.
        .env("PYTHONWARNINGS", "ignore::UserWarning")
        .stdin(Stdio::null());
    for (name, value) in settings {
        cmd.env(format!("DASK_JOBQUEUE__SLURM__{name}"), value);
    }
    cmd.output().unwrap()
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed and dask-jobqueue: run tests/setup-oracles"
)]
fn slurm_dry_run_prints_a_job_script_of_one_worker_with_the_job_s_cores() {
    let settings = [
        ("CORES", "8"),
        ("MEMORY", "16GB"),
        ("WALLTIME", "02:00:00"),
        ("QUEUE", "long"),
    ];
    for (processes, worker) in [
        (
            None,
            "--nthreads 8 --memory-limit 14.90GiB --nanny --death-timeout 60 --resources cores=8",
        ),
        (
            Some("2"),
            "--nthreads 4 --memory-limit 7.45GiB --nworkers 2 --nanny --death-timeout 60 --resources cores=4",
        ),
    ] {
        let t = tempdir();
        let mut settings = settings.to_vec();
        settings.extend(processes.map(|p| ("PROCESSES", p)));
        let o = slurm_dry_run(t.path(), &settings);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let script = String::from_utf8(o.stdout).unwrap();
        let sbatch: Vec<&str> = script
            .lines()
            .filter(|l| l.starts_with("#SBATCH"))
            .collect();
        assert_eq!(
            sbatch,
            [
                "#SBATCH -J dask-worker",
                "#SBATCH -p long",
                "#SBATCH -n 1",
                "#SBATCH --cpus-per-task=8",
                "#SBATCH --mem=15G",
                "#SBATCH -t 02:00:00",
            ],
            "{script}"
        );
        let command: Vec<&str> = script
            .lines()
            .filter(|l| l.contains("distributed.cli.dask_worker"))
            .collect();
        assert_eq!(command.len(), 1, "{script}");
        assert!(command[0].ends_with(worker), "{script}");
        // Nothing submitted, nothing written.
        assert!(!t.path().join("merged").exists());
        assert!(!t.path().join("merged.shards").exists());
    }
}

/// Waits until `n` workers are connected to `cluster`'s scheduler.
fn wait_for_workers(cluster: &Cluster, n: usize) {
    let o = python()
        .args([
            "-c",
            "import sys\nfrom distributed import Client\n\
             with Client(scheduler_file=sys.argv[1]) as c:\n    c.wait_for_workers(int(sys.argv[2]), timeout=120)",
        ])
        .arg(&cluster.file)
        .arg(n.to_string())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

/// The driver's `default_piece_size(ARGS)` (`size, text, cores`), as
/// Python computes it.
fn default_piece_size(args: &str) -> u64 {
    let o = python()
        .args([
            "-c",
            &format!(
                "import sys\nsys.path.insert(0, sys.argv[1])\nimport dask_audit\n\
                 print(dask_audit.default_piece_size({args}))"
            ),
        ])
        .arg(Path::new(DRIVER).parent().unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
}

/// Issue 27: without `--piece-size`, one large file gives every core of
/// the cluster work. A pzstd file of 12 copies of the sample on two
/// workers of one core each (the least text of a piece lowered to 1 MB to
/// keep the file small) is cut into at least four pieces, which both
/// workers audit, merged into one run's reports; and the defaults cut
/// 2,400 copies of the sample (2.4 GB of text) on 2 cores into 6 pieces of
/// at least 256 MiB of text each, whether they are stored in 503 MB (small
/// frames) or 57 MB (pzstd's own, where copies repeat inside a frame), a
/// Lichess month (30 GB stored, 200 GB of text) on 64 cores into 192, and
/// keep a file of less than a least piece's text whole.
#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn the_default_plan_gives_every_core_of_the_cluster_pieces() {
    const MIB: u64 = 1 << 20;
    let text_2400: u64 = 2400 * 999_562;
    for stored in [503_000_000u64, 57_000_000] {
        let piece = default_piece_size(&format!("{stored}, {text_2400}, 2"));
        assert_eq!(stored.div_ceil(piece), 6, "{stored}: {piece}");
        assert!(text_2400 / 6 >= 256 * MIB);
    }
    let month = 30_000_000_000u64;
    assert_eq!(
        month.div_ceil(default_piece_size(&format!("{month}, 7 * {month}, 64"))),
        192
    );
    assert_eq!(default_piece_size("10 * 2**20, 10 * 2**20, 8"), 10 * MIB);
    assert_eq!(default_piece_size("10 * 2**20, 200 * 2**20, 8"), 10 * MIB);
    assert_eq!(default_piece_size("10 * 2**20, 600 * 2**20, 8"), 5 * MIB);

    let t = tempdir();
    let sample = std::fs::read(corpus("lichess_2025-05_sample.pgn")).unwrap();
    let mut text = Vec::new();
    for _ in 0..12 {
        text.extend_from_slice(&sample);
        text.extend_from_slice(b"\n");
    }
    let (stored, _) = pzstd(&text, 256 << 10);
    let file = write(t.path(), "copies.pgn.zst", &stored);
    let name = s(&file).to_owned();
    let single = t.path().join("single");
    run_ok(&[&name, "-j", "2"], &single);
    let cluster = Cluster::start(t.path(), 2, 1);
    wait_for_workers(&cluster, 2);
    let out = t.path().join("merged");
    let args = [
        name.clone(),
        "--min-piece-text".to_owned(),
        "1000000".to_owned(),
    ];
    let log = drive(&cluster.file, &pgn_audit(), &out, &args);
    let shards = shard_folders(&out);
    // Three pieces per core, each of at least 1 MB of text (12 MB of text
    // as `plan --text-estimate` measures it): six of about a sixth of the
    // file.
    let size = (stored.len() as u64).div_ceil(6);
    assert!(size > 250_000);
    assert_eq!(units(&out).len(), plan(&name, size).len(), "{log}");
    assert!(shards.len() >= 4, "{shards:?}");
    assert_same_run(&single, &out);
    let per = games_per_worker(&shards, &name);
    assert_eq!(per.len(), 2, "both workers audit pieces: {per:?}");
}

/// `--format parquet` is passed to every task, and the driver merges the
/// Parquet shards into the Parquet reports of one run (a file in two
/// pieces among them); `--excel-safe` is refused with it, as by pgn-audit.
#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn the_driver_writes_parquet_reports_with_format_parquet() {
    let t = tempdir();
    let files = inputs(t.path());
    let single = t.path().join("single");
    let mut single_args: Vec<&str> = files.iter().map(String::as_str).collect();
    single_args.extend(["--format", "parquet"]);
    run_ok(&single_args, &single);
    assert!(single.join("castling.parquet").exists());
    let cluster = Cluster::start(t.path(), 2, 1);
    let out = t.path().join("merged");
    let mut args = vec!["--format".to_owned(), "parquet".to_owned()];
    args.extend(["--piece-size".to_owned(), "20000".to_owned()]);
    args.extend(files.iter().cloned());
    drive(&cluster.file, &pgn_audit(), &out, &args);
    assert!(shard_folders(&out).len() > files.len());
    assert_same_run(&single, &out);
    assert_eq!(summary(&out)["options"]["format"], "parquet");

    let o = python()
        .arg(DRIVER)
        .args(["--format", "parquet", "--excel-safe", "-o"])
        .arg(t.path().join("refused"))
        .args(&files)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "--excel-safe: Parquet reports hold typed values, not spreadsheet text: \
             use it with --format csv"
        ),
        "{}",
        stderr(&o)
    );
    assert!(!t.path().join("refused").exists());
}

/// Every option of the driver says what it does in `--help` (`--binary`
/// and `--retries` did not).
#[test]
fn every_option_of_the_driver_has_help() {
    let o = python().arg(DRIVER).arg("--help").output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let help = String::from_utf8(o.stdout).unwrap();
    let options = help.split("options:\n").nth(1).unwrap();
    let lines: Vec<&str> = options.lines().collect();
    let mut named = 0;
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with("  -") {
            continue;
        }
        named += 1;
        // The help follows the option on its line, after two blanks, or
        // on the next line, indented further.
        let same_line = line.trim_start().contains("  ");
        let next_line = lines
            .get(i + 1)
            .is_some_and(|next| next.starts_with("          ") && !next.trim().is_empty());
        assert!(same_line || next_line, "no help: {line}\n{help}");
    }
    assert!(named >= 20, "{help}");
    for option in [
        "--binary BINARY",
        "--retries RETRIES",
        "--format {csv,parquet}",
    ] {
        assert!(help.contains(option), "{option}\n{help}");
    }
}

/// `--slurm` without the cores of a job in Dask's configuration is refused
/// with a line that names the key and where it goes; with them but no
/// walltime, the job script has dask-jobqueue's default time limit,
/// 00:30:00, and the driver says so.
#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed and dask-jobqueue: run tests/setup-oracles"
)]
fn slurm_without_configuration_says_what_to_set() {
    let t = tempdir();
    let o = slurm_dry_run(t.path(), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "dask_audit: --slurm: no cores per job in Dask's configuration \
         (jobqueue.slurm.cores, as in ~/.config/dask/jobqueue.yaml: the README's Dask section \
         has a sample)\n"
    );
    let o = slurm_dry_run(t.path(), &[("CORES", "8"), ("MEMORY", "16GB")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let script = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(script.contains("\n#SBATCH -t 00:30:00\n"), "{script}");
    assert_eq!(
        stderr(&o),
        "dask_audit: --slurm: each job ends after dask-jobqueue's default time limit, \
         00:30:00 (set jobqueue.slurm.walltime for a longer run)\n"
    );
}

/// The README's sample jobqueue.yaml, as Dask reads it from a
/// configuration folder: the job script has its partition, account,
/// cores, memory and time limit, and one worker advertising 8 cores.
#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed and dask-jobqueue: run tests/setup-oracles"
)]
fn the_readme_s_sample_jobqueue_yaml_makes_its_jobs() {
    let readme = include_str!("../README.md");
    let yaml = readme
        .split("```yaml\n")
        .nth(1)
        .and_then(|rest| rest.split("```\n").next())
        .expect("the README has a sample jobqueue.yaml");
    let t = tempdir();
    write(t.path(), "a.pgn", pgn(&sample_games()[..5]).as_bytes());
    let config = t.path().join("dask");
    std::fs::create_dir(&config).unwrap();
    write(&config, "jobqueue.yaml", yaml.as_bytes());
    let o = python()
        .current_dir(t.path())
        .arg(DRIVER)
        .args(["--slurm", "3", "--slurm-dry-run", "--binary"])
        .arg(pgn_audit())
        .args(["-o", "merged", "a.pgn"])
        .env("DASK_CONFIG", &config)
        // The other tests' clusters may hold the dashboard's port: Dask
        // warns that it takes another.
        .env("PYTHONWARNINGS", "ignore::UserWarning")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(0), ""));
    let script = String::from_utf8(o.stdout).unwrap();
    let sbatch: Vec<&str> = script
        .lines()
        .filter(|l| l.starts_with("#SBATCH"))
        .collect();
    assert_eq!(
        sbatch,
        [
            "#SBATCH -J dask-worker",
            "#SBATCH -p long",
            "#SBATCH -A chess-lab",
            "#SBATCH -n 1",
            "#SBATCH --cpus-per-task=8",
            "#SBATCH --mem=15G",
            "#SBATCH -t 12:00:00",
        ],
        "{script}"
    );
    assert!(script.contains("--resources cores=8"), "{script}");
}
