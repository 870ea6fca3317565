//! Faults of the operating system ("no silent wrong number", third
//! round): a report whose write fails only at `fsync` or `close` (how NFS
//! and disk quotas report a failed write-back), and a thread the OS
//! refuses (a limit on threads or processes). Each is injected into the
//! child with an `LD_PRELOAD` shim (tests/hostile/faults.c, built here
//! with `cc`): the tests run as root, for which RLIMIT_NPROC is not
//! enforced. Each must end the run with exit 2 and one line that says
//! what happened, without a summary.json, and without blaming an input.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use super::common::{self, gzip, s, xz};
use super::decode::{first_games, zstd_frames};
use super::sources::stored_zip;

/// The shim, built once per test process.
fn shim() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hostile/faults.c");
        let so = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("faults-{}.so", std::process::id()));
        let o = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-O1", "-o"])
            .arg(&so)
            .arg(source)
            .arg("-ldl")
            .output()
            .expect("cc runs");
        assert!(o.status.success(), "cc: {o:?}");
        so
    })
}

/// Runs pgn-audit with `args`, the shim preloaded with `env`.
fn faulty(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = common::bin();
    cmd.args(args).env("LD_PRELOAD", shim());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(std::process::Stdio::null());
    cmd.output().expect("run pgn-audit")
}

/// The folder's files, but the lock.
fn left(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != ".pgn-audit.lock")
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A report whose write fails at `fsync` or at `close` (EIO) is a report
/// that cannot be written: exit 2, one line naming it, no summary.json and
/// no report left, in a run (a CSV and a Parquet report, clean.pgn,
/// report.html, summary.json itself) and in a merge. The temporary files
/// are named `.NAME.PID-N.partial`, so the shim matches the name within.
#[test]
fn a_write_that_fails_at_fsync_or_close_is_an_error() {
    let t = common::tempdir();
    let input = common::write(t.path(), "in.pgn", first_games(30).as_bytes());
    let cases: [(&str, &[&str]); 5] = [
        ("errors.csv", &[]),
        ("claims.parquet", &["--format", "parquet"]),
        ("clean.pgn", &["--split"]),
        ("report.html", &[]),
        ("summary.json", &[]),
    ];
    for call in ["fsync", "close"] {
        for (k, (name, flags)) in cases.into_iter().enumerate() {
            let out = t.path().join(format!("{call}-{k}"));
            let mut args = vec![s(&input), "-o", s(&out), "--quiet"];
            args.extend_from_slice(flags);
            let o = faulty(&args, &[("SHIM_FAIL_CALL", call), ("SHIM_FAIL_NAME", name)]);
            assert_eq!(o.status.code(), Some(2), "{call} {name}: {o:?}");
            assert_eq!(
                String::from_utf8_lossy(&o.stderr),
                format!(
                    "pgn-audit: cannot write reports: {}: Input/output error\n",
                    s(&out.join(name))
                ),
                "{call} {name}"
            );
            assert_eq!(left(&out), Vec::<String>::new(), "{call} {name}");
        }
    }
    // A merge of two runs: its errors.csv fails at close.
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| {
            let shard = t.path().join(format!("shard{k}"));
            let input = common::write(
                t.path(),
                &format!("part{k}.pgn"),
                first_games(10 + k).as_bytes(),
            );
            common::run_ok(&[s(&input), "--quiet"], &shard);
            shard
        })
        .collect();
    let out = t.path().join("merged");
    let o = faulty(
        &["merge", s(&shards[0]), s(&shards[1]), "-o", s(&out)],
        &[
            ("SHIM_FAIL_CALL", "close"),
            ("SHIM_FAIL_NAME", "errors.csv"),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.lines().count() == 1 && said.contains("errors.csv: Input/output error"),
        "{said}"
    );
    assert_eq!(left(&out), Vec::<String>::new());
}

/// Every thread a run starts (the signal handler's, the pool's, the
/// reader's, a decompressor's) may be refused: with the OS refusing every
/// thread after the first N, for every N up to what the run needs, a run
/// either completes with the reports of a run without a limit, or ends
/// with exit 2 and the one line `cannot start a thread: REASON`, no
/// summary.json, and no input blamed (it was exit 101, "internal error",
/// or a gzip input "corrupt or truncated"). Plain text at -j8, and gzip,
/// zstd, xz, a zip archive and Parquet at -j2.
#[test]
fn a_thread_the_os_refuses_is_said_in_one_line() {
    let t = common::tempdir();
    let text = first_games(20);
    let parquet = t.path().join("in.parquet");
    crate::parquet::parquet_table(&parquet, &["movetext"], 20, 5, |row, _| {
        Some(format!("1. e4 e5 2. Nf3 {{ {row} }} Nc6 *"))
    });
    let inputs = [
        (common::write(t.path(), "in.pgn", text.as_bytes()), "8"),
        (
            common::write(t.path(), "in.pgn.gz", &gzip(text.as_bytes())),
            "2",
        ),
        (
            common::write(t.path(), "in.pgn.zst", &zstd_frames(text.as_bytes(), 4000)),
            "2",
        ),
        (
            common::write(t.path(), "in.pgn.xz", &xz(text.as_bytes())),
            "2",
        ),
        (
            common::write(
                t.path(),
                "in.zip",
                &stored_zip(&[("a.pgn", text.as_bytes())]),
            ),
            "2",
        ),
        (parquet, "2"),
    ];
    for (input, j) in &inputs {
        let name = input.file_name().unwrap().to_string_lossy().into_owned();
        let free = t.path().join(format!("{name}-free"));
        let o = common::bin()
            .args([s(input), "-j", j, "--quiet", "-o", s(&free)])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{name}: {o:?}");
        let mut refused = 0;
        let mut completed = false;
        for n in 0..=16 {
            let out = t.path().join(format!("{name}-{n}"));
            let limit = n.to_string();
            let o = faulty(
                &[s(input), "-j", j, "--quiet", "-o", s(&out)],
                &[("SHIM_THREADS", &limit)],
            );
            match o.status.code() {
                Some(0) => {
                    assert_eq!(
                        common::csv_reports(&out),
                        common::csv_reports(&free),
                        "{name} N={n}"
                    );
                    assert!(o.stderr.is_empty(), "{name} N={n}: {o:?}");
                    completed = true;
                }
                Some(2) => {
                    assert!(!completed, "{name}: refused at N={n}, completed below");
                    assert_eq!(
                        String::from_utf8_lossy(&o.stderr),
                        "pgn-audit: cannot start a thread: Resource temporarily unavailable\n",
                        "{name} N={n}"
                    );
                    assert!(!out.join("summary.json").exists(), "{name} N={n}");
                    refused += 1;
                }
                _ => panic!("{name} N={n}: {o:?}"),
            }
        }
        assert!(refused > 0 && completed, "{name}: {refused} refused");
    }
}
