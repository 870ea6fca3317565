//! Issue 23, the input side (items 1, 2, 3, 4, 5, 9 and 10): pipes read
//! once, files that shrink while read, compression inside compression and
//! binary data, repeated zip member names, an interrupted run's bytes, a
//! missing input or unreadable folder among others, and file names that
//! are not UTF-8.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::common::{self, gzip, s, xz};
use super::decode::{first_games, rows_but_source, same_at_every_thread_count};
use super::support;

/// The `pgn-audit:` lines of a run's standard error.
fn said(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| l.starts_with("pgn-audit:"))
        .map(str::to_owned)
        .collect()
}

/// Waits for `child` at most `limit`; kills it and fails past that.
pub(super) fn wait_at_most(mut child: Child, limit: Duration, what: &str) -> (Option<i32>, String) {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            if let Some(mut e) = child.stderr.take() {
                std::io::Read::read_to_string(&mut e, &mut stderr).unwrap();
            }
            return (status.code(), stderr);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The reports of `text` as a plain file: the rows a pipe of it must give.
fn plain_rows(t: &Path, text: &[u8]) -> Vec<(String, Vec<Vec<String>>)> {
    let plain = common::write(t, "plain.pgn", text);
    let out = t.join("plain-reports");
    common::run_ok(&["--no-html", s(&plain)], &out);
    rows_but_source(&out)
}

fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::encode_all(data, 3).unwrap()
}

/// Item 1: a pipe, `/dev/stdin`, a process substitution and a named FIFO
/// are opened once and read once, their format told from what was read:
/// 7 games give 7 games, zstd is decompressed, and a FIFO does not hang.
#[test]
fn a_pipe_is_opened_once_and_read_once() {
    let t = common::tempdir();
    let text = first_games(7);
    let expected = plain_rows(t.path(), text.as_bytes());
    for (name, bytes) in [
        ("plain", text.as_bytes().to_vec()),
        ("zstd", zstd(text.as_bytes())),
    ] {
        let out = t.path().join(format!("stdin-{name}"));
        let ran = support::audit_stdin(&["--no-html", "/dev/stdin"], &out, move |w| {
            w.write_all(&bytes)
        });
        assert_eq!(ran.status, Some(0), "/dev/stdin, {name}: {}", ran.stderr);
        assert_eq!(common::counts(&out).0, 7, "/dev/stdin, {name}");
        assert_eq!(rows_but_source(&out), expected, "/dev/stdin, {name}");
        assert_eq!(
            common::summary(&out)["sources"],
            serde_json::json!(["/dev/stdin"])
        );
    }
    // A process substitution, of the zstd file.
    let packed = common::write(t.path(), "seven.pgn.zst", &zstd(text.as_bytes()));
    let out = t.path().join("substituted");
    let o = Command::new("bash")
        .args(["-c", r#""$0" --no-html -o "$1" <(cat "$2")"#])
        .arg(env!("CARGO_BIN_EXE_pgn-audit"))
        .arg(&out)
        .arg(&packed)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(common::counts(&out).0, 7);
    assert_eq!(rows_but_source(&out), expected);
    // A named FIFO: one writer, one reader, once.
    let fifo = t.path().join("games.fifo");
    common::mkfifo(&fifo);
    let out = t.path().join("fifo");
    let child = common::bin()
        .args(["--no-html", s(&fifo), "-o", s(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let path = fifo.clone();
    let data = text.clone().into_bytes();
    let writer = std::thread::spawn(move || {
        // Opening blocks until the run opens the FIFO to read it.
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|mut f| f.write_all(&data));
    });
    let (status, stderr) = wait_at_most(child, Duration::from_secs(60), "a run on a FIFO");
    writer.join().unwrap();
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(common::counts(&out).0, 7);
    assert_eq!(rows_but_source(&out), expected);
}

/// Item 2: a file cut short after the run started (here while the run
/// waits on a FIFO before it) is a read error, exit 2, as a corrupt stream
/// is: the cut game, `[Even`, is a `parse_error` "the input breaks off in
/// this game", and summary.json says the size at the start and the bytes
/// read; the same CSV reports at -j1, -j2 and -j8.
#[test]
fn a_file_that_shrinks_while_it_is_read_is_a_read_error() {
    let games = common::sample_games();
    // Game 5 starts after the first four and their blank lines.
    let fifth = games[..4].join("\n\n").len() + 2;
    let mut reports = Vec::new();
    for j in ["1", "2", "8"] {
        let t = common::tempdir();
        // Each run in a folder of its own: the rows but `source`.
        let out = shrunk_run(t.path(), j, &first_games(40), fifth, 5);
        reports.push(rows_but_source(&out));
    }
    assert_eq!(reports[0], reports[1], "-j1 and -j2 differ");
    assert_eq!(reports[0], reports[2], "-j1 and -j8 differ");
}

/// A file that shrinks below the bytes its format is told by (262) before
/// it is read: the games before the cut are audited, and the cut one broke
/// off, as in a larger file. The source could not be opened: no game.
#[test]
fn a_small_file_that_shrinks_before_it_is_read_keeps_its_games() {
    let text =
        "[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 d5 *\n\n[Event \"c\"]\n\n1. c4 *\n";
    let second = text.find("[Event \"b").unwrap();
    for j in ["1", "2"] {
        let t = common::tempdir();
        shrunk_run(t.path(), j, text, second, 2);
    }
}

/// One run of the shrinking file `text` at `-j j` in `t`, cut 5 bytes into
/// game `game` (1-based), which starts at `start`: asserts its outcome and
/// returns its folder.
fn shrunk_run(t: &Path, j: &str, text: &str, start: usize, game: u64) -> PathBuf {
    let target = common::write(t, "target.pgn", text.as_bytes());
    assert_eq!(&text[start..start + 6], "[Event");
    let cut = start + 5;
    let fifo = t.join("first.fifo");
    common::mkfifo(&fifo);
    let out = t.join("out");
    let child = common::bin()
        .args(["--no-html", "-j", j, s(&fifo), s(&target), "-o", s(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The sizes are taken before the lock; the FIFO holds the reader.
    let lock = out.join(".pgn-audit.lock");
    let started = Instant::now();
    while !lock.exists() {
        assert!(started.elapsed() < Duration::from_secs(30), "no lock");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(&target)
        .unwrap()
        .set_len(cut as u64)
        .unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .unwrap()
        .write_all(first_games(2).as_bytes())
        .unwrap();
    let (status, stderr) = wait_at_most(child, Duration::from_secs(60), "the run");
    let cause = format!(
        "read error: the file shrank while it was read: it ends after {cut} of the {} bytes it had at the start",
        text.len()
    );
    assert_eq!(
        said(&stderr),
        [format!("pgn-audit: {}: {cause}", s(&target))]
    );
    assert_eq!(status, Some(2));
    assert_eq!(common::counts(&out).0, 2 + game);
    let errors = common::records(&out, "errors.csv");
    let cut_rows: Vec<_> = errors
        .iter()
        .filter(|r| r["source"] == s(&target))
        .collect();
    assert_eq!(cut_rows.len(), 1, "{errors:?}");
    let row = cut_rows[0];
    assert_eq!(
        (
            row["game"].as_str(),
            row["offset"].as_str(),
            row["kind"].as_str()
        ),
        (
            game.to_string().as_str(),
            start.to_string().as_str(),
            "parse_error"
        )
    );
    assert_eq!(
        row["detail"],
        format!("the input breaks off in this game: {cause}")
    );
    let summary = common::summary(&out);
    let fifo_detail = &summary["source_details"][0];
    assert_eq!(fifo_detail["size"], serde_json::Value::Null);
    let detail = &summary["source_details"][1];
    assert_eq!(detail["size"], text.len() as u64);
    assert_eq!(detail["bytes"], cut as u64);
    assert_eq!(detail["games"], game);
    assert_eq!(detail["error"], cause);
    out
}

/// Bytes that look like compressed data: no text, no magic of any format.
fn noise(len: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[3]
        })
        .collect()
}

/// `data` in the legacy LZMA format (`.lzma`, `xz --format=lzma`).
fn lzma_alone(data: &[u8]) -> Vec<u8> {
    let options = liblzma::stream::LzmaOptions::new_preset(6).unwrap();
    let stream = liblzma::stream::Stream::new_lzma_encoder(&options).unwrap();
    let mut enc = liblzma::write::XzEncoder::new_stream(Vec::new(), stream);
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Item 3: a zstd stream inside a gzip file is decompressed again, and
/// reads as its plain text at any thread count; a third layer is refused,
/// and so are a legacy `.lzma` file and binary data, plain or inside a
/// compression: none of them is counted as games.
#[test]
fn compressed_inside_compressed_is_decompressed_again_or_refused() {
    let t = common::tempdir();
    let text = first_games(30);
    let expected = plain_rows(t.path(), text.as_bytes());
    let nested = common::write(t.path(), "nested.pgn.gz", &gzip(&zstd(text.as_bytes())));
    let runs = t.path().join("nested");
    std::fs::create_dir(&runs).unwrap();
    let (out, status, stderr) = same_at_every_thread_count(&runs, &nested);
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(rows_but_source(&out), expected);
    assert_eq!(common::summary(&out)["bytes"], text.len() as u64);

    let three = common::write(
        t.path(),
        "three.pgn.zst",
        &zstd(&xz(&gzip(text.as_bytes()))),
    );
    let lzma = common::write(t.path(), "old.pgn.lzma", &lzma_alone(text.as_bytes()));
    let binary = common::write(t.path(), "noise.pgn", &noise(4096));
    let packed_noise = common::write(t.path(), "noise.pgn.gz", &gzip(&noise(4096)));
    let good = common::write(t.path(), "good.pgn", first_games(3).as_bytes());
    let out = t.path().join("refused");
    let o = common::run(
        &[
            "--no-html",
            s(&three),
            s(&lzma),
            s(&binary),
            s(&packed_noise),
            s(&good),
        ],
        &out,
    );
    assert_eq!(
        said(&String::from_utf8_lossy(&o.stderr)),
        [
            format!(
                "pgn-audit: {}: refused: compressed more than 2 times (gzip inside xz inside zstd)",
                s(&three)
            ),
            format!(
                "pgn-audit: {}: refused: a legacy LZMA stream (.lzma), not PGN text",
                s(&lzma)
            ),
            format!(
                "pgn-audit: {}: refused: binary data, not PGN text",
                s(&binary)
            ),
            format!(
                "pgn-audit: {}: refused: binary data inside gzip, not PGN text",
                s(&packed_noise)
            ),
        ]
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(common::counts(&out).0, 3);
    let games: Vec<u64> = common::summary(&out)["source_details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["games"].as_u64().unwrap())
        .collect();
    assert_eq!(games, [0, 0, 0, 0, 3]);
}

/// A zip archive of `members` (name, bytes), stored, written by hand: a
/// zip writer refuses a name twice, and archives in the wild hold that.
pub(super) fn stored_zip(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, bytes) in members {
        let mut crc = flate2::Crc::new();
        crc.update(bytes);
        let offset = u32::try_from(out.len()).unwrap();
        let size = u32::try_from(bytes.len()).unwrap();
        let name_len = u16::try_from(name.len()).unwrap();
        // version 20, no flags, stored, no time: the same in both headers.
        let mut common = Vec::new();
        common.extend_from_slice(&20u16.to_le_bytes());
        common.extend_from_slice(&[0; 6]);
        common.extend_from_slice(&[0; 2]);
        common.extend_from_slice(&crc.sum().to_le_bytes());
        common.extend_from_slice(&size.to_le_bytes());
        common.extend_from_slice(&size.to_le_bytes());
        common.extend_from_slice(&name_len.to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&common);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(bytes);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&common);
        // comment length, disk, internal attributes
        central.extend_from_slice(&[0; 6]);
        central.extend_from_slice(&0u32.to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let count = u16::try_from(members.len()).unwrap();
    let start = u32::try_from(out.len()).unwrap();
    let length = u32::try_from(central.len()).unwrap();
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&length.to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// Item 4: a zip archive whose member names repeat gives every member,
/// in archive order, the later ones named `NAME#2`, `NAME#3`: 10 games of
/// 10, the same at any thread count.
#[test]
fn repeated_zip_member_names_are_all_read_and_numbered() {
    let t = common::tempdir();
    let games = common::sample_games();
    let part = |r: std::ops::Range<usize>| games[r].join("\n\n") + "\n";
    let (a1, b, a2, a3) = (part(0..3), part(3..5), part(5..9), part(9..10));
    let archive = common::write(
        t.path(),
        "twic.zip",
        &stored_zip(&[
            ("a.pgn", a1.as_bytes()),
            ("b.pgn", b.as_bytes()),
            ("a.pgn", a2.as_bytes()),
            ("a.pgn", a3.as_bytes()),
        ]),
    );
    let (out, status, stderr) = same_at_every_thread_count(t.path(), &archive);
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(common::counts(&out).0, 10);
    let z = s(&archive);
    let details: Vec<(String, u64)> = common::summary(&out)["source_details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_owned(),
                d["games"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        details,
        [
            (format!("{z}/a.pgn"), 3),
            (format!("{z}/b.pgn"), 2),
            (format!("{z}/a.pgn#2"), 4),
            (format!("{z}/a.pgn#3"), 1),
        ]
    );
    let plain = common::write(t.path(), "all.pgn", (part(0..10)).as_bytes());
    let base = t.path().join("base");
    common::run_ok(&["--no-html", s(&plain)], &base);
    // Row by row the same games; `game`, `offset` and `line` count within
    // each member.
    let tail = |out: &Path| -> Vec<(String, Vec<Vec<String>>)> {
        rows_but_source(out)
            .into_iter()
            .map(|(name, rows)| (name, rows.into_iter().map(|r| r[3..].to_vec()).collect()))
            .collect()
    };
    assert_eq!(tail(&out), tail(&base));
}

/// Item 5: an interrupted run's `bytes` end at the last game written,
/// never a batch (4096 games) further on, where a resume would start.
#[test]
#[allow(unsafe_code)] // libc on our own child process
fn an_interrupted_run_counts_bytes_to_the_last_game_written() {
    let t = common::tempdir();
    let game = b"[Event \"g\"]\n\n1. e4 e5 *\n";
    let each = game.len() as u64 + 1;
    let copies = 1_500_000_u64;
    let input = t.path().join("many.pgn");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        let mut chunk = game.to_vec();
        chunk.push(b'\n');
        support::write_repeated(&mut f, &chunk, copies * each).unwrap();
        f.flush().unwrap();
    }
    for trial in 0..3 {
        let out = t.path().join(format!("r{trial}"));
        let child = common::bin()
            .args([s(&input), "-j", "1", "--no-html", "-o", s(&out)])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lock = out.join(".pgn-audit.lock");
        while !lock.exists() {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(300 + 200 * trial));
        // SAFETY: a signal to our own child, which has not been waited for.
        assert_eq!(
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) },
            0
        );
        let (status, stderr) = wait_at_most(child, Duration::from_secs(60), "the run");
        assert_eq!(status, Some(130), "{stderr}");
        let summary = common::summary(&out);
        assert_eq!(summary["interrupted"], true);
        let games = summary["games"].as_u64().unwrap();
        assert!(games > 0 && games < copies, "trial {trial}: {games} games");
        let end = (games - 1) * each + game.len() as u64;
        assert_eq!(summary["bytes"], end, "trial {trial}: {games} games");
        assert_eq!(summary["source_details"][0]["bytes"], end);
    }
}

/// Item 9: a missing input and a folder that cannot be listed stop no
/// other source: each is said in one line, listed in summary.json with its
/// error, and the run exits 2 after auditing the rest (as ripgrep does).
#[test]
fn a_missing_input_or_unreadable_folder_stops_no_other_source() {
    let t = common::tempdir();
    let first = common::write(t.path(), "first.pgn", first_games(3).as_bytes());
    let missing = t.path().join("missing.pgn");
    let dir = t.path().join("dir");
    std::fs::create_dir_all(dir.join("deep")).unwrap();
    common::write(&dir, "ok.pgn", first_games(2).as_bytes());
    // A folder nested past PATH_MAX cannot be listed, even by root: made
    // in two halves, each path shorter than that, the second moved into
    // the first.
    let level = "x".repeat(200);
    let half = |root: &Path| (0..12).fold(root.to_path_buf(), |p, _| p.join(&level));
    std::fs::create_dir_all(half(&dir.join("deep"))).unwrap();
    std::fs::create_dir_all(half(&t.path().join("part"))).unwrap();
    std::fs::rename(t.path().join("part"), half(&dir.join("deep")).join("part")).unwrap();
    let mut unlisted = half(&dir.join("deep")).join("part");
    while unlisted.as_os_str().len() < 4096 {
        unlisted.push(&level);
    }
    let unlisted = unlisted.to_string_lossy().into_owned();
    let out = t.path().join("out");
    let o = common::run(&["--no-html", s(&first), s(&missing), s(&dir)], &out);
    assert_eq!(
        said(&String::from_utf8_lossy(&o.stderr)),
        [
            format!("pgn-audit: {}: no such file or directory", s(&missing)),
            format!("pgn-audit: {unlisted}: File name too long"),
        ]
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(common::counts(&out).0, 5);
    let summary = common::summary(&out);
    let details = summary["source_details"].as_array().unwrap();
    assert_eq!(details.len(), 4);
    assert_eq!(
        details[1],
        serde_json::json!({
            "name": s(&missing), "size": null, "modified": null,
            "bytes": 0, "games": 0, "error": "no such file or directory",
            "modified_ns": null, "ends_crc32": null,
        })
    );
    assert_eq!(details[2]["name"], unlisted);
    assert_eq!(details[2]["error"], "File name too long");
    assert_eq!(details[3]["name"], format!("{}/ok.pgn", s(&dir)));
    assert_eq!(details[3]["games"], 2);
}

/// Item 10: a file name that is not UTF-8 is named on the command line and
/// found in a folder; `source` writes it lossily, with U+FFFD.
#[test]
fn a_file_name_that_is_not_utf8_is_read() {
    let t = common::tempdir();
    let dir = t.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.pgn");
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, "[Event \"x\"]\n\n1. e4 Ke7 *\n").unwrap();
    let lossy = format!("{}/caf\u{FFFD}.pgn", s(&dir));
    for (input, what) in [
        (path.as_os_str(), "the file"),
        (dir.as_os_str(), "its folder"),
    ] {
        let out = t.path().join("out");
        let o = common::bin()
            .arg("--no-html")
            .arg(input)
            .arg("-o")
            .arg(&out)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let errors = common::rows(&out, "errors.csv");
        assert_eq!(errors.len(), 1, "{what}");
        assert_eq!(errors[0][0], lossy, "{what}");
        assert_eq!(common::summary(&out)["sources"], serde_json::json!([lossy]));
    }
}

/// Item 3's second look at decompressed bytes reads no fault early: a gzip
/// stream whose trailer is cut, inside its first few hundred decoded bytes,
/// still gives its one game, broken off, and the stream's read error with
/// the bytes decoded before it.
#[test]
fn a_stream_that_fails_in_its_first_bytes_keeps_them() {
    let t = common::tempdir();
    let game = b"[Event \"x\"]\n\n1. e4 e5 2. Nf3";
    let mut packed = gzip(game);
    packed.truncate(packed.len() - 8);
    let input = common::write(t.path(), "cut.pgn.gz", &packed);
    let runs = t.path().join("runs");
    std::fs::create_dir(&runs).unwrap();
    let (out, status, stderr) = same_at_every_thread_count(&runs, &input);
    let cause = format!(
        "gzip stream is corrupt or truncated after {} bytes",
        game.len()
    );
    assert!(
        stderr.starts_with(&format!("pgn-audit: {}: {cause}: ", s(&input))),
        "{stderr}"
    );
    assert_eq!(status, Some(2));
    assert_eq!(common::counts(&out), (1, 0, 0, 1));
    let errors = common::records(&out, "errors.csv");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["kind"], "parse_error");
    assert!(
        errors[0]["detail"].starts_with(&format!("the input breaks off in this game: {cause}: ")),
        "{}",
        errors[0]["detail"]
    );
}

/// The one line that ends a source at a run of NUL bytes.
const NUL_RUN: &str = "read error: 1 MiB of NUL bytes in a row: not PGN text (a device such \
    as /dev/zero, or a part of a file that was never written)";

/// A regular file whose last chunk ends in a run of 1 MiB of NUL bytes, the
/// file ending within a tag line's length past the most a worker reads (a
/// hole where a download stopped): the same read error, exit 2, as through
/// a pipe, at -j1 and -j2. The file's last chunk was read by its worker
/// without the NUL-run check: exit 0, no error.
#[test]
fn a_nul_run_at_the_end_of_a_file_is_a_read_error_at_every_length() {
    let t = common::tempdir();
    let text = b"[Event \"x\"]\n\n1. e4 ";
    for nuls in [1 << 20, (1 << 20) + 100, (1 << 20) + 300, 1_100_000] {
        let mut bytes = text.to_vec();
        bytes.resize(text.len() + nuls, 0);
        let file = common::write(t.path(), &format!("hole{nuls}.pgn"), &bytes);
        for j in ["1", "2"] {
            let out = t.path().join(format!("out{nuls}-{j}"));
            let o = common::run(&["--no-html", "--quiet", "-j", j, s(&file)], &out);
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{nuls} NULs, -j{j}: {stderr}");
            assert_eq!(
                stderr.trim_end(),
                format!("pgn-audit: {}: {NUL_RUN}", s(&file)),
                "{nuls} NULs, -j{j}"
            );
            assert_eq!(common::counts(&out), (1, 0, 0, 1), "{nuls} NULs, -j{j}");
        }
    }
}

/// Item 2's other side: the size check holds a regular file to its size at
/// the start, and nothing else to any: a FIFO, `/dev/stdin`, a process
/// substitution and a zip member (stored, so smaller than its archive)
/// give all their 7 games, exit 0, with no error; what is not a regular
/// file has no `size` (`stat` says 0 for it). `/dev/null` is an empty
/// source. `/dev/zero`, which never ends, is no hang: its NUL bytes are
/// padding up to 1 MiB in a row, then a read error, exit 2, 0 games.
#[test]
fn the_size_check_holds_regular_files_only() {
    let t = common::tempdir();
    let text = first_games(7);
    let detail = |out: &Path| common::summary(out)["source_details"][0].clone();
    let whole = |out: &Path, what: &str| {
        let d = detail(out);
        assert_eq!(common::counts(out).0, 7, "{what}");
        assert_eq!(
            (&d["size"], &d["bytes"], &d["games"], &d["error"]),
            (
                &serde_json::Value::Null,
                &serde_json::json!(text.len()),
                &serde_json::json!(7),
                &serde_json::Value::Null
            ),
            "{what}"
        );
    };
    // /dev/stdin, a pipe.
    let out = t.path().join("stdin");
    let bytes = text.clone().into_bytes();
    let ran = support::audit_stdin(&["--no-html", "/dev/stdin"], &out, move |w| {
        w.write_all(&bytes)
    });
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    whole(&out, "/dev/stdin");
    // A process substitution.
    let plain = common::write(t.path(), "seven.pgn", text.as_bytes());
    let out = t.path().join("substituted");
    let o = Command::new("bash")
        .args(["-c", r#""$0" --no-html -o "$1" <(cat "$2")"#])
        .arg(env!("CARGO_BIN_EXE_pgn-audit"))
        .arg(&out)
        .arg(&plain)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    whole(&out, "<(cat seven.pgn)");
    // A named FIFO.
    let fifo = t.path().join("games.fifo");
    common::mkfifo(&fifo);
    let out = t.path().join("fifo");
    let child = common::bin()
        .args(["--no-html", s(&fifo), "-o", s(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let path = fifo.clone();
    let data = text.clone().into_bytes();
    let writer = std::thread::spawn(move || {
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|mut f| f.write_all(&data));
    });
    let (status, stderr) = wait_at_most(child, Duration::from_secs(60), "a run on a FIFO");
    writer.join().unwrap();
    assert_eq!(status, Some(0), "{stderr}");
    whole(&out, "a FIFO");
    // A stored zip member: its 7 games, its archive's size.
    let archive = stored_zip(&[("seven.pgn", text.as_bytes())]);
    assert!(archive.len() > text.len());
    let zip = common::write(t.path(), "seven.zip", &archive);
    let out = t.path().join("zip");
    common::run_ok(&["--no-html", s(&zip)], &out);
    assert_eq!(common::counts(&out).0, 7);
    let d = detail(&out);
    assert_eq!(d["name"], format!("{}/seven.pgn", s(&zip)));
    assert_eq!(
        (&d["size"], &d["bytes"], &d["error"]),
        (
            &serde_json::json!(archive.len()),
            &serde_json::json!(text.len()),
            &serde_json::Value::Null
        )
    );
    // /dev/null: empty.
    let out = t.path().join("null");
    common::run_ok(&["--no-html", "/dev/null"], &out);
    assert_eq!(common::counts(&out), (0, 0, 0, 0));
    assert_eq!(detail(&out)["size"], serde_json::Value::Null);
    // /dev/zero: never ends; bounded by the NUL run.
    let out = t.path().join("zero");
    let child = common::bin()
        .args(["--no-html", "-j", "2", "/dev/zero", "-o", s(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, stderr) = wait_at_most(child, Duration::from_secs(60), "a run on /dev/zero");
    assert_eq!(said(&stderr), [format!("pgn-audit: /dev/zero: {NUL_RUN}")]);
    assert_eq!(status, Some(2));
    assert_eq!(common::counts(&out), (0, 0, 0, 0));
    let d = detail(&out);
    assert_eq!(
        (&d["size"], &d["bytes"], &d["games"]),
        (
            &serde_json::Value::Null,
            &serde_json::json!(1 << 20),
            &serde_json::json!(0)
        )
    );
    assert_eq!(d["error"], NUL_RUN);
}

/// Item 2's hole: NUL bytes pad files, but 1 MiB of them in a row is no
/// padding (a part of a file never written, a device): the source ends
/// there with a read error, exit 2, its `bytes` the run's start plus 1
/// MiB, the games before it whole (padding of 1 MiB less one byte passes),
/// a game the run breaks off in a `parse_error`, and those after it not
/// read; plain or gzip, the same at -j1, -j2, -j3 and -j8.
#[test]
fn a_mebibyte_of_nul_bytes_ends_the_source_with_a_read_error() {
    let t = common::tempdir();
    let games = common::sample_games();
    let mib = 1 << 20;
    // Five games, padding just below the limit, a sixth, then the run.
    let mut between = (games[..5].join("\n\n") + "\n\n").into_bytes();
    between.extend(vec![0; mib - 1]);
    between.extend(format!("\n{}\n\n", games[5]).into_bytes());
    let run_at = between.len();
    between.extend(vec![0; mib + 10]);
    between.extend(format!("\n{}\n", games[6]).into_bytes());
    // Two games, then the run inside the third's movetext.
    let mut inside = games[..2].join("\n\n").into_bytes();
    let third = &games[2];
    let moves = third.find("\n\n").unwrap() + 2;
    let cut = inside.len() + 2 + moves + 10;
    inside.extend(format!("\n\n{}", &third[..moves + 10]).into_bytes());
    inside.extend(vec![0; mib]);
    inside.extend(format!("{}\n", &third[moves + 10..]).into_bytes());
    for (name, data, games, bytes) in [
        ("between", &between, 6, run_at + mib),
        ("inside", &inside, 3, cut + mib),
    ] {
        for (kind, stored) in [("plain", data.clone()), ("gzip", gzip(data))] {
            let dir = t.path().join(format!("{name}-{kind}"));
            std::fs::create_dir(&dir).unwrap();
            let input = common::write(&dir, "games.pgn", &stored);
            let (out, status, stderr) = same_at_every_thread_count(&dir, &input);
            assert_eq!(stderr, format!("pgn-audit: {}: {NUL_RUN}", s(&input)));
            assert_eq!(status, Some(2), "{name}, {kind}");
            assert_eq!(common::counts(&out).0, games, "{name}, {kind}");
            let d = &common::summary(&out)["source_details"][0];
            assert_eq!(d["bytes"], bytes as u64, "{name}, {kind}");
            assert_eq!(d["error"], NUL_RUN);
            let errors = common::pick(&out, "errors.csv", &["game", "kind", "detail"]);
            if name == "inside" {
                assert_eq!(
                    errors,
                    common::strings(&[&[
                        "3",
                        "parse_error",
                        &format!("the input breaks off in this game: {NUL_RUN}")
                    ]])
                );
            } else {
                assert_eq!(errors, Vec::<Vec<String>>::new(), "{name}, {kind}");
            }
        }
    }
}
