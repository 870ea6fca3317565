//! The Dask driver (issue 7): a real scheduler and two worker processes on
//! loopback audit a set of files; the merged reports are byte-identical to
//! one pgn-audit run, also when a worker is killed mid-run, and a rerun
//! after an interruption recomputes only the missing shards. Ignored where
//! Python's `distributed` is missing (and run, so failing, under CI).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

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
    fn start(dir: &Path, workers: usize) -> Cluster {
        let file = dir.join("scheduler.json");
        let scheduler = python()
            .args([
                "-m",
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
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
                    ])
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
    let mut cluster = Cluster::start(t.path(), 2);
    let out = t.path().join("merged");
    let log = drive(&cluster.file, &binary, &out, &files);
    assert!(log.contains("computed 6 shards, reused 0"), "{log}");
    assert_same(&single, &out);

    // Resume: two shards lost, only they are computed again.
    let shards = t.path().join("merged.shards");
    let mut names: Vec<_> = std::fs::read_dir(&shards)
        .unwrap()
        .map(|e| e.unwrap().path())
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
