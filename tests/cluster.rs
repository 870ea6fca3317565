//! The Dask driver (issues 7 and 13): a real scheduler and two worker
//! processes on loopback audit a set of files; the merged reports are
//! byte-identical to one pgn-audit run, also when a worker is killed
//! mid-run, and a rerun after an interruption recomputes only the missing
//! shards. A rerun reuses a shard only when it provably belongs to this run:
//! every stale shard (input changed or completed, run interrupted, read
//! error, other options, other binary) is computed again, never reused.
//! Ignored where Python's `distributed` is missing (and run, so failing,
//! under CI).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime};

use common::*;

const DRIVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cluster/dask_audit.py");
const REPORTS: [&str; 8] = [
    "castling.csv",
    "claims.csv",
    "missed_draws.csv",
    "errors.csv",
    "results.csv",
    "clean.pgn",
    "rejected.pgn",
    "summary.json",
];

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

fn drive(scheduler_file: &Path, binary: &Path, out: &Path, files: &[String]) -> String {
    let o = python()
        .arg(DRIVER)
        .arg("--scheduler-file")
        .arg(scheduler_file)
        .arg("--binary")
        .arg(binary)
        .arg("--split")
        .arg("-o")
        .arg(out)
        .args(files)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "driver failed: {err}");
    err
}

fn assert_same(single: &Path, merged: &Path) {
    for f in REPORTS {
        let a = std::fs::read_to_string(single.join(f)).unwrap();
        let b = std::fs::read_to_string(merged.join(f)).unwrap();
        if f == "summary.json" {
            let strip = |t: &str| {
                let mut v: serde_json::Value = serde_json::from_str(t).unwrap();
                for k in ["seconds", "threads"] {
                    v.as_object_mut().unwrap().remove(k);
                }
                v
            };
            assert_eq!(strip(&a), strip(&b));
        } else {
            assert!(a == b, "{f} differs");
        }
    }
}

#[test]
#[cfg_attr(
    not(oracle_dask),
    ignore = "needs dask.distributed: run tests/setup-oracles"
)]
fn dask_cluster_runs_merge_exactly_survive_a_dead_worker_and_resume() {
    let t = tempdir();
    let files = inputs(t.path());
    let single = t.path().join("single");
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.push("--split");
    run_ok(&args, &single);
    assert_eq!(counts(&single), (438, 394, 0, 44));
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_pgn-audit"));

    // Two workers, all goes well.
    let mut cluster = Cluster::start(t.path(), 2, 1);
    let out = t.path().join("merged");
    let log = drive(&cluster.file, &binary, &out, &files);
    assert!(log.contains("computed 6 shards, reused 0"), "{log}");
    assert_same(&single, &out);

    // Resume: two shards lost, only they are computed again.
    let shards = t.path().join("merged.shards");
    let mut names: Vec<_> = std::fs::read_dir(&shards)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    assert_eq!(names.len(), 6);
    std::fs::remove_dir_all(&names[1]).unwrap();
    std::fs::remove_dir_all(&names[4]).unwrap();
    let untouched = std::fs::metadata(names[0].join("summary.json"))
        .unwrap()
        .modified()
        .unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    let log = drive(&cluster.file, &binary, &out, &files);
    assert!(log.contains("computed 2 shards, reused 4"), "{log}");
    assert_eq!(
        std::fs::metadata(names[0].join("summary.json"))
            .unwrap()
            .modified()
            .unwrap(),
        untouched
    );
    assert_same(&single, &out);

    // A worker killed mid-run: slow tasks, then one worker dies.
    let slow = write(
        t.path(),
        "slow-pgn-audit",
        format!("#!/bin/sh\nsleep 1\nexec '{}' \"$@\"\n", binary.display()).as_bytes(),
    );
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&slow)
        .status()
        .unwrap();
    let out = t.path().join("killed");
    let driver = {
        let file = cluster.file.clone();
        let (slow, out, files) = (slow.clone(), out.clone(), files.clone());
        std::thread::spawn(move || drive(&file, &slow, &out, &files))
    };
    std::thread::sleep(Duration::from_millis(2500));
    let mut victim = cluster.workers.remove(0);
    victim.kill().unwrap();
    victim.wait().unwrap();
    let log = driver.join().unwrap();
    assert!(log.contains("computed 6 shards, reused 0"), "{log}");
    assert_same(&single, &out);
    assert_eq!(counts(&out), (438, 394, 0, 44));
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
                for k in ["seconds", "threads"] {
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
    // Another build of the same version, which counts games otherwise.
    let other = script(
        t.path(),
        "other-pgn-audit",
        &format!(
            "{OUT_ARG}'{}' \"$@\"; status=$?\n\
             [ -f \"$out/summary.json\" ] && sed -i '0,/\"games\": [0-9]*/s//\"games\": 7/' \"$out/summary.json\"\n\
             exit $status\n",
            pgn_audit().display()
        ),
    );
    let args = in_dir(t.path(), &["a.pgn", "b.pgn"]);
    let o = run_driver(&shared.cluster, &other, "merged", &args, t.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // That build merged too.
    assert_eq!(summary(&t.path().join("merged"))["games"], 7);

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
            "[ \"$1\" = --version ] || {{ touch '{started}'; sleep 3; }}\nexec '{bin}' \"$@\"\n",
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
            "[ \"$1\" = --version ] && exec '{}' \"$@\"\nexec sleep 60\n",
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
