//! Issue 12, items 4, 8, 12, 17 and 18: an honest output folder and honest
//! sources. A run locks its output folder, clears every contract file an
//! earlier run left there (summary.json first), writes under temporary
//! names and renames summary.json last; the output folder is never read as
//! input, and no input is read twice.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};

use super::common::{self, s};
use super::support;

/// The lock file a run holds in its output folder.
const LOCK: &str = ".pgn-audit.lock";

/// The CSV reports every run writes.
const CSV: [&str; 5] = [
    "castling.csv",
    "claims.csv",
    "missed_draws.csv",
    "errors.csv",
    "results.csv",
];

/// The names in a folder, sorted; a directory's name ends with `/`.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let mut n = e.file_name().into_string().unwrap();
            if e.file_type().unwrap().is_dir() {
                n.push('/');
            }
            n
        })
        .collect();
    v.sort();
    v
}

/// `names` expected: the lock, the CSV reports, summary.json and `more`.
fn report_names(more: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [LOCK, "summary.json"]
        .iter()
        .chain(&CSV)
        .chain(more)
        .map(|n| (*n).to_owned())
        .collect();
    v.sort();
    v
}

/// Every file below `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(snapshot(&p));
        } else {
            out.insert(p.clone(), std::fs::read(&p).unwrap());
        }
    }
    out
}

/// The one line of standard error of a run that must exit 2.
fn refusal(o: &Output) -> String {
    let e = String::from_utf8_lossy(&o.stderr).trim_end().to_owned();
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

/// summary.json without the fields that differ between equal runs.
fn stable_summary(out: &Path) -> serde_json::Value {
    let mut v = common::summary(out);
    v.as_object_mut().unwrap().remove("seconds");
    v.as_object_mut().unwrap().remove("helpmate_seconds");
    v.as_object_mut().unwrap().remove("threads");
    v
}

/// The sample, then a game with an illegal move, `copies` times: 439 games
/// a copy, every 439th incomplete.
fn copies(copies: usize) -> Vec<u8> {
    let sample = std::fs::read(common::SAMPLE).unwrap();
    let mut data = Vec::new();
    for i in 0..copies {
        data.extend_from_slice(&sample);
        data.extend_from_slice(format!("\n[Event \"copy {i}\"]\n\n1. e4 Ke7 *\n\n").as_bytes());
    }
    data
}

/// The temporary files in a folder.
fn temporaries(dir: &Path) -> Vec<String> {
    names(dir)
        .into_iter()
        .filter(|n| n.ends_with(".partial"))
        .collect()
}

/// A temporary name as a run makes it: `.NAME.PID-N.partial`.
fn is_temporary_of(name: &str, pid: u32) -> bool {
    let Some(rest) = name
        .strip_prefix('.')
        .and_then(|n| n.strip_suffix(".partial"))
    else {
        return false;
    };
    let Some((file, tag)) = rest.rsplit_once('.') else {
        return false;
    };
    let Some((p, n)) = tag.split_once('-') else {
        return false;
    };
    p == pid.to_string()
        && n.bytes().all(|b| b.is_ascii_digit())
        && CSV
            .iter()
            .chain(&["clean.pgn", "rejected.pgn"])
            .any(|c| *c == file)
}

/// `pgn-audit - ARGS -o OUT` reading a pipe the test keeps open.
fn spawn_on_pipe(args: &[&str], out: &Path) -> Child {
    common::bin()
        .arg("-")
        .args(args)
        .arg("-o")
        .arg(out)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Item 4: while one run writes a folder, a second run on it is refused
/// with exit 2, naming the folder; the first one's reports are then whole
/// (byte-identical to an undisturbed run of the same input).
#[test]
fn a_second_run_on_a_folder_in_use_is_refused() {
    let t = common::tempdir();
    let data = copies(4);
    let reference = t.path().join("reference");
    let d = data.clone();
    let ran = support::audit_stdin(&["-", "-j", "2"], &reference, move |w| w.write_all(&d));
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    assert_eq!(common::counts(&reference), (4 * 439, 4 * 438, 0, 4));

    let out = t.path().join("r");
    let mut first = spawn_on_pipe(&["-j", "2"], &out);
    let mut stdin = first.stdin.take().unwrap();
    let half = data.len() / 2;
    stdin.write_all(&data[..half]).unwrap();
    stdin.flush().unwrap();
    common::wait_for("the first run's reports", || {
        out.is_dir() && !temporaries(&out).is_empty()
    });
    let before = names(&out);
    let second = common::run(&[common::SAMPLE], &out);
    assert_eq!(
        refusal(&second),
        format!(
            "pgn-audit: cannot write reports: {}: in use by another pgn-audit run",
            s(&out)
        )
    );
    assert_eq!(
        names(&out),
        before,
        "the refused run made or removed a file"
    );

    stdin.write_all(&data[half..]).unwrap();
    drop(stdin);
    let o = first.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(names(&out), report_names(&["report.html"]));
    for f in CSV {
        let same = std::fs::read(out.join(f)).unwrap() == std::fs::read(reference.join(f)).unwrap();
        assert!(same, "{f} differs from the undisturbed run's");
    }
    assert_eq!(stable_summary(&out), stable_summary(&reference));
}

/// Item 4: a folder whose lock is held (here by the test) is refused by a
/// run and by a merge, and not one byte in it changes.
#[test]
fn a_locked_folder_is_left_exactly_as_it_was() {
    let t = common::tempdir();
    let out = t.path().join("r");
    common::run_ok(&[common::SAMPLE, "--split"], &out);
    let lock = std::fs::File::options()
        .write(true)
        .open(out.join(LOCK))
        .expect("a run leaves its lock file");
    lock.try_lock().expect("nobody else holds it");
    let before = snapshot(&out);

    let o = common::run(&[common::SAMPLE], &out);
    assert_eq!(
        refusal(&o),
        format!(
            "pgn-audit: cannot write reports: {}: in use by another pgn-audit run",
            s(&out)
        )
    );
    assert_eq!(snapshot(&out), before);

    let shard = t.path().join("shard");
    common::run_ok(&[common::SAMPLE], &shard);
    let o = common::bin()
        .args(["merge", s(&shard), "-o", s(&out)])
        .output()
        .unwrap();
    assert_eq!(
        refusal(&o),
        format!(
            "pgn-audit: merge: {}: in use by another pgn-audit run",
            s(&out)
        )
    );
    assert_eq!(snapshot(&out), before);

    drop(lock);
    common::run_ok(&[common::SAMPLE], &out);
    assert_eq!(common::counts(&out).0, 438);
}

/// Item 18: a run removes every contract file an earlier run left, and
/// only those; temporary files of a killed run go too.
#[test]
fn a_run_clears_the_files_of_an_earlier_run() {
    let t = common::tempdir();
    let out = t.path().join("r");
    common::run_ok(&[common::SAMPLE, "--split"], &out);
    assert_eq!(
        names(&out),
        report_names(&["clean.pgn", "rejected.pgn", "report.html"])
    );
    // Files of this contract that the code does not write yet, another
    // program's files, and what killed runs leave.
    for n in [
        "results.csv",
        "quirks.csv",
        "notes.txt",
        "clean.pgn.bak",
        ".castling.csv.partial",
        ".summary.json.partial",
        ".report.html.99999-3.partial",
    ] {
        common::write(&out, n, b"old");
    }
    std::fs::create_dir(out.join("keep")).unwrap();
    common::write(&out.join("keep"), "errors.csv", b"mine");

    let b = common::write(t.path(), "b.pgn", b"[Event \"b\"]\n\n1. e4 Ke7 *\n");
    common::run_ok(&[s(&b), "--no-html"], &out);
    assert_eq!(
        names(&out),
        report_names(&["clean.pgn.bak", "keep/", "notes.txt"])
    );
    assert_eq!(common::counts(&out), (1, 0, 0, 1));
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"old");
    assert_eq!(std::fs::read(out.join("keep/errors.csv")).unwrap(), b"mine");
}

/// Item 8: a report that cannot be completed (report.html is a directory)
/// means no summary.json and exit 2; a contract name that is a directory is
/// not a file of an earlier run, and is left alone where the run does not
/// write it.
#[test]
fn no_summary_unless_every_other_report_is_complete() {
    let t = common::tempdir();
    let out = t.path().join("r");
    common::run_ok(&[common::SAMPLE], &out);
    std::fs::remove_file(out.join("report.html")).unwrap();
    std::fs::create_dir(out.join("report.html")).unwrap();
    let o = common::run(&[common::SAMPLE], &out);
    assert_eq!(
        refusal(&o),
        format!(
            "pgn-audit: cannot write reports: {}/report.html: is a directory",
            s(&out)
        )
    );
    assert_eq!(
        names(&out),
        vec![LOCK.to_owned(), "report.html/".to_owned()]
    );

    common::run_ok(&[common::SAMPLE, "--no-html"], &out);
    assert_eq!(names(&out), report_names(&["report.html/"]));
}

/// Item 8 and 18 for merge: the merged folder is cleared first, and
/// summary.json is its last file: a report.html that cannot be written
/// leaves none.
#[test]
fn merge_clears_its_folder_and_writes_summary_last() {
    let t = common::tempdir();
    let shard = t.path().join("shard");
    common::run_ok(&[common::SAMPLE, "--no-html"], &shard);
    let out = t.path().join("m");
    common::run_ok(&[common::SAMPLE, "--split"], &out);
    common::write(&out, "notes.txt", b"old");
    common::write(&out, ".errors.csv.partial", b"old");
    let merge = |out: &Path| {
        common::bin()
            .args(["merge", s(&shard), "-o", s(out)])
            .output()
            .unwrap()
    };
    let o = merge(&out);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(names(&out), report_names(&["notes.txt"]));
    assert_eq!(stable_summary(&out), stable_summary(&shard));

    let html = t.path().join("h");
    common::run_ok(&[common::SAMPLE], &html);
    std::fs::remove_file(html.join("report.html")).unwrap();
    std::fs::create_dir(html.join("report.html")).unwrap();
    let shard_html = t.path().join("shard-html");
    common::run_ok(&[common::SAMPLE], &shard_html);
    let o = common::bin()
        .args(["merge", s(&shard_html), "-o", s(&html)])
        .output()
        .unwrap();
    assert_eq!(
        refusal(&o),
        format!("pgn-audit: merge: {}/report.html: is a directory", s(&html))
    );
    assert_eq!(
        names(&html),
        vec![LOCK.to_owned(), "report.html/".to_owned()]
    );
}

/// A second signal ends a run at once: its temporary files stay, no
/// summary.json (not an earlier run's either) and none of the earlier
/// run's reports; the next run clears the leftovers.
#[test]
#[allow(unsafe_code)] // libc on our own child process or terminal
fn a_run_killed_by_a_second_signal_leaves_no_summary() {
    let t = common::tempdir();
    let out = t.path().join("r");
    common::run_ok(&[common::SAMPLE, "--split"], &out);
    let mut child = spawn_on_pipe(&["-j", "2", "--split"], &out);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&copies(2)).unwrap();
    stdin.flush().unwrap();
    // Every CSV report and the two split files, and the input all read:
    // the run is under way.
    common::wait_for("the run's temporary files and its input read", || {
        temporaries(&out).len() == CSV.len() + 2 && common::drained(&stdin)
    });
    let pid = child.id();
    // Two signals at once (two kinds: two pending SIGTERMs would be one),
    // sent while the child is stopped, so that both wait for it.
    let signal = |sig: libc::c_int| {
        // SAFETY: a signal to our own child, which has not been waited for.
        let r = unsafe { libc::kill(pid as libc::pid_t, sig) };
        assert_eq!(r, 0);
    };
    signal(libc::SIGSTOP);
    common::wait_for("the run to stop", || stopped(pid));
    signal(libc::SIGINT);
    signal(libc::SIGTERM);
    signal(libc::SIGCONT);
    let o = child.wait_with_output().unwrap();
    drop(stdin);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("pgn-audit: interrupted twice: stopping now"),
        "{stderr}"
    );
    let left = names(&out);
    assert_eq!(left.len(), CSV.len() + 3, "{left:?}");
    assert!(left.iter().any(|n| n == LOCK), "{left:?}");
    for n in left.iter().filter(|n| *n != LOCK) {
        assert!(is_temporary_of(n, pid), "{n} in {left:?}");
    }

    common::run_ok(&[common::SAMPLE, "--split"], &out);
    assert_eq!(
        names(&out),
        report_names(&["clean.pgn", "rejected.pgn", "report.html"])
    );
}

/// Whether process `pid` is stopped.
fn stopped(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The state follows the command name, which is in parentheses.
    stat.rsplit_once(") ")
        .is_some_and(|(_, rest)| rest.starts_with('T'))
}

/// Item 12: standard input named twice is a usage error; nothing is
/// written.
#[test]
fn standard_input_twice_is_refused() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let sample = std::fs::read(common::SAMPLE).unwrap();
    let ran = support::audit_stdin(&["-", "-"], &out, move |w| w.write_all(&sample));
    assert_eq!(ran.status, Some(2), "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "pgn-audit: -: standard input is named twice: it can be read only once\n"
    );
    assert!(!out.exists());
}

/// Standard input on a pipe named as `-` and as `/dev/stdin`, in either
/// order, is refused: it was read as two sources, the first taking what it
/// read of the pipe and the second the rest (a game cut in two), or none.
#[test]
fn a_piped_standard_input_named_twice_is_refused() {
    let t = common::tempdir();
    let out = t.path().join("r");
    for (args, second, first) in [
        (["-", "/dev/stdin"], "/dev/stdin", "-"),
        (["/dev/stdin", "-"], "-", "/dev/stdin"),
    ] {
        let sample = std::fs::read(common::SAMPLE).unwrap();
        let ran = support::audit_stdin(&args, &out, move |w| w.write_all(&sample));
        assert_eq!(ran.status, Some(2), "{args:?}: {}", ran.stderr);
        assert_eq!(
            ran.stderr,
            format!("pgn-audit: {second}: the same file as {first}, named twice\n"),
            "{args:?}"
        );
        assert!(!out.exists(), "{args:?}");
    }
}

/// Item 12: one file named twice, however, is refused with both names.
#[test]
fn the_same_file_twice_is_refused() {
    let t = common::tempdir();
    let dir = t.path().join("d");
    std::fs::create_dir(&dir).unwrap();
    let a = common::write(&dir, "a.pgn", &std::fs::read(common::SAMPLE).unwrap());
    let other = common::write(t.path(), "other.pgn", b"1. e4 *\n");
    let link = t.path().join("link.pgn");
    std::os::unix::fs::symlink(&a, &link).unwrap();
    let out = t.path().join("r");
    let cases: [(Vec<&str>, &Path, &Path); 4] = [
        (vec![s(&a), s(&other), s(&a)], &a, &a),
        (vec![s(&dir), s(&a)], &a, &a),
        (vec![s(&a), s(&link)], &link, &a),
        (vec![s(&link), s(&dir)], &a, &link),
    ];
    for (args, second, first) in cases {
        let o = common::run(&args, &out);
        assert_eq!(
            refusal(&o),
            format!(
                "pgn-audit: {}: the same file as {}, named twice",
                s(second),
                s(first)
            ),
            "{args:?}"
        );
        assert!(!out.exists(), "{args:?}");
    }
    // Standard input that is one of the files named.
    let o = common::bin()
        .args(["-", s(&a), "-o", s(&out)])
        .stdin(std::fs::File::open(&a).unwrap())
        .output()
        .unwrap();
    assert_eq!(
        refusal(&o),
        format!("pgn-audit: {}: the same file as -, named twice", s(&a))
    );
    assert!(!out.exists());
}

/// Item 17: `--split .` run again and again audits the same games: the
/// default output folder `reports` below `.` is not read. The reports are
/// the same for any number of threads.
#[test]
fn a_directory_walk_skips_the_output_folder() {
    let t = common::tempdir();
    let dir = t.path().join("games");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::copy(common::SAMPLE, dir.join("a.pgn")).unwrap();
    common::write(&dir.join("sub"), "b.pgn", b"[Event \"b\"]\n\n1. e4 Ke7 *\n");
    let mut first = None;
    for threads in ["1", "2", "8", "1"] {
        let o = common::bin()
            .args(["--split", ".", "-j", threads])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out = dir.join("reports");
        assert_eq!(common::counts(&out), (439, 438, 0, 1), "-j {threads}");
        assert_eq!(
            stable_summary(&out)["sources"],
            serde_json::json!(["./a.pgn", "./sub/b.pgn"])
        );
        let files: Vec<Vec<u8>> = CSV
            .iter()
            .chain(&["clean.pgn", "rejected.pgn"])
            .map(|f| std::fs::read(out.join(f)).unwrap())
            .collect();
        let now = (files, stable_summary(&out));
        match &first {
            None => first = Some(now),
            Some(f) => assert!(*f == now, "-j {threads} differs"),
        }
    }
    // The output folder named another way, below a subfolder (the former
    // one is gone: its files would be inputs now).
    std::fs::remove_dir_all(dir.join("reports")).unwrap();
    let out = dir.join("sub/r");
    for _ in 0..2 {
        common::run_ok(&[s(&dir), "--split"], &dir.join("sub/../sub/r"));
        assert_eq!(common::counts(&out), (439, 438, 0, 1));
    }
}

/// Item 17: an input named inside the output folder is refused (the run
/// would clear it), and nothing changes.
#[test]
fn an_input_inside_the_output_folder_is_refused() {
    let t = common::tempdir();
    let out = t.path().join("r");
    common::run_ok(&[common::SAMPLE, "--split"], &out);
    std::fs::create_dir(out.join("sub")).unwrap();
    common::write(&out.join("sub"), "x.pgn", b"1. e4 *\n");
    let before = snapshot(&out);
    let clean = out.join("clean.pgn");
    let sub = out.join("sub");
    for input in [&clean, &out, &sub] {
        let o = common::run(&[s(input)], &out);
        assert_eq!(
            refusal(&o),
            format!(
                "pgn-audit: {}: inside the output folder {}: the output folder is never read",
                s(input),
                s(&out)
            )
        );
        assert_eq!(snapshot(&out), before);
    }
    // Named by another path (a link to the file).
    let link = t.path().join("link.pgn");
    std::os::unix::fs::symlink(&clean, &link).unwrap();
    let o = common::run(&[s(&link)], &out);
    assert_eq!(
        refusal(&o),
        format!(
            "pgn-audit: {}: inside the output folder {}: the output folder is never read",
            s(&link),
            s(&out)
        )
    );
    assert_eq!(snapshot(&out), before);
}

/// A bind mount of one folder on another, undone when dropped.
struct BindMount {
    at: PathBuf,
}

impl BindMount {
    /// Mounts `folder` on `at` (both inside the test's own temporary
    /// folder); `None`, with the reason said, where this process may not.
    /// Under `CI`, which runs as root, a mount that fails is a failure.
    #[allow(unsafe_code)] // libc on our own process
    fn new(folder: &Path, at: &Path) -> Option<BindMount> {
        // SAFETY: a plain FFI call without arguments.
        let root = unsafe { libc::geteuid() } == 0;
        if !root {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI runs as root: the bind mount case must run"
            );
            eprintln!("skipped: a bind mount needs root, and this test is not run as root");
            return None;
        }
        let o = std::process::Command::new("mount")
            .arg("--bind")
            .arg(folder)
            .arg(at)
            .output()
            .expect("run mount");
        if !o.status.success() {
            let why = String::from_utf8_lossy(&o.stderr);
            assert!(
                std::env::var_os("CI").is_none(),
                "mount --bind failed: {why}"
            );
            eprintln!("skipped: mount --bind failed: {why}");
            return None;
        }
        Some(BindMount {
            at: at.to_path_buf(),
        })
    }
}

impl Drop for BindMount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.at).status();
    }
}

/// Issue 23, item 7: an output folder that is an input's folder under
/// another path (a bind mount, which no path comparison sees) is told by
/// its device and inode: the input is refused before anything is removed,
/// and merge refuses a shard that is its output folder. The user's files
/// stay as they were.
#[test]
fn an_output_folder_mounted_over_the_input_folder_is_refused() {
    let t = common::tempdir();
    let input = t.path().join("d");
    let mounted = t.path().join("m");
    std::fs::create_dir(&mounted).unwrap();
    common::run_ok(&[common::SAMPLE, "--split"], &input);
    let clean = input.join("clean.pgn");
    let before = snapshot(&input);
    let Some(_mount) = BindMount::new(&input, &mounted) else {
        return;
    };
    assert_eq!(snapshot(&mounted).len(), before.len());
    for named in [&clean, &input] {
        let o = common::run(&[s(named), "--split"], &mounted);
        assert_eq!(
            refusal(&o),
            format!(
                "pgn-audit: {}: inside the output folder {}: the output folder is never read",
                s(named),
                s(&mounted)
            )
        );
        assert_eq!(snapshot(&input), before, "{}", s(named));
    }
    let o = common::bin()
        .args(["merge", s(&input), "-o", s(&mounted)])
        .output()
        .unwrap();
    assert_eq!(
        refusal(&o),
        format!("pgn-audit: merge: {}: is also the output folder", s(&input))
    );
    assert_eq!(snapshot(&input), before);
}
