//! Pieces of one source (issue 13): `--piece START..END` audits a byte
//! range of a plain file or a range of pzstd frames, `plan` says where a
//! file may be cut, and `merge` joins the pieces' folders into exactly the
//! reports of one run over the file.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use proptest::prelude::*;

/// Every report a run writes, summary.json without its timing.
pub(crate) fn reports(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for name in [
        "castling.csv",
        "claims.csv",
        "missed_draws.csv",
        "errors.csv",
        "results.csv",
        "quirks.csv",
        "clean.pgn",
        "rejected.pgn",
        "corrections.csv",
        "fixed.pgn",
    ] {
        if let Ok(bytes) = std::fs::read(dir.join(name)) {
            out.push((name.to_owned(), bytes));
        }
    }
    let mut v = summary(dir);
    let o = v.as_object_mut().unwrap();
    o.remove("seconds");
    o.remove("helpmate_seconds");
    o.remove("threads");
    out.push(("summary.json".to_owned(), v.to_string().into_bytes()));
    out
}

pub(crate) fn assert_same(single: &Path, merged: &Path) {
    let (a, b) = (reports(single), reports(merged));
    assert_eq!(
        a.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        b.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(
            x == y,
            "{name} differs:\n--- one run\n{}\n--- merged pieces\n{}",
            String::from_utf8_lossy(x),
            String::from_utf8_lossy(y)
        );
    }
}

pub(crate) fn plan(file: &Path, size: u64) -> Vec<String> {
    let o = bin()
        .args(["plan", s(file), "--piece-size", &size.to_string()])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

pub(crate) fn merge(dirs: &[PathBuf], out: &Path) -> Output {
    bin()
        .arg("merge")
        .args(dirs)
        .arg("-o")
        .arg(out)
        .arg("--quiet")
        .output()
        .unwrap()
}

/// Audits every piece of `plan` into folders under `root`; returns them
/// with each run's exit status.
pub(crate) fn audit_pieces(
    file: &Path,
    plan: &[String],
    root: &Path,
    args: &[&str],
) -> Vec<(PathBuf, i32)> {
    plan.iter()
        .enumerate()
        .map(|(k, piece)| {
            let out = root.join(format!("piece{k}"));
            let mut a = vec![s(file), "--piece", piece, "--quiet"];
            a.extend_from_slice(args);
            let o = run(&a, &out);
            (out, o.status.code().unwrap())
        })
        .collect()
}

/// The error line of a run that must fail with exit status 2.
/// The `pgn-audit:` lines a run or merge said on standard error.
pub(crate) fn error_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("pgn-audit: "))
        .map(str::to_owned)
        .collect()
}

fn error_of(o: &Output) -> String {
    let e = String::from_utf8_lossy(&o.stderr).trim().to_owned();
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

/// Sample games, damaged as real files are: bad FENs and illegal moves,
/// tagless games, CRLF line ends, a BOM, NUL and Ctrl-Z padding, comment
/// blocks between games, an open comment that a tag line ends, tags after
/// a blank line inside an open comment.
pub(crate) fn damaged() -> Vec<u8> {
    let games = sample_games();
    let mut out = Vec::new();
    for (i, g) in games.iter().take(120).enumerate() {
        let g = match i % 11 {
            0 => with_bad_fen(g),
            1 => g.replacen("\n\n1. ", "\n\n1. Ke2 ", 1),
            2 => g.replace('\n', "\r\n"),
            3 => g[g.find("\n\n").unwrap() + 2..].to_owned(),
            4 => g.replacen("\n\n1. ", "\n\n1. e4 { an open comment\n\n", 1),
            5 => format!("\u{feff}{g}"),
            6 => format!("{{ a comment block }}\n\n{g}"),
            7 => g.replacen("\n\n1. ", "\n\n{ open\n\n[Event \"inside\"]\n\n1. ", 1),
            _ => g.clone(),
        };
        out.extend_from_slice(g.as_bytes());
        out.extend_from_slice(match i % 5 {
            0 => &b"\n\n"[..],
            1 => b"\n\0\0\n\n",
            2 => b"\r\n\r\n",
            3 => b"\n \t\n\n",
            _ => b"\n\x1a\n\n",
        });
    }
    out
}

#[test]
fn pieces_of_a_plain_file_merge_to_the_single_run() {
    let t = tempdir();
    let text = damaged();
    let file = write(t.path(), "games.pgn", &text);
    let single = t.path().join("single");
    run_ok(&[s(&file), "--split", "--quirks", "-j", "2"], &single);
    let v = summary(&single);
    assert_eq!(
        (
            v["games"].as_u64(),
            v["incomplete"].as_u64(),
            v["bytes"].as_u64()
        ),
        (Some(131), Some(36), Some(text.len() as u64))
    );
    for (size, threads) in [(3000, "1"), (17_777, "2"), (100_000, "1"), (1 << 30, "2")] {
        let pieces = plan(&file, size);
        assert_eq!(
            pieces.len() as u64,
            (text.len() as u64).div_ceil(size).max(1)
        );
        let root = t.path().join(format!("size{size}"));
        let runs = audit_pieces(
            &file,
            &pieces,
            &root,
            &["--split", "--quirks", "-j", threads],
        );
        assert!(runs.iter().all(|(_, code)| *code == 0));
        let merged = root.join("merged");
        let dirs: Vec<PathBuf> = runs.into_iter().map(|(d, _)| d).collect();
        let o = merge(&dirs, &merged);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_same(&single, &merged);
    }
}

#[test]
fn a_piece_records_its_bounds_its_own_range_and_its_seam() {
    let t = tempdir();
    // Three games of 20 bytes; the second piece starts inside the first
    // game and ends inside the second, so it reads the second game only,
    // up to the third game's tag line: its seam.
    let text =
        b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n\n[Event \"c\"]\n\n1. c4 *\n";
    let file = write(t.path(), "g.pgn", text);
    let out = t.path().join("p");
    run_ok(&[s(&file), "--piece", "5..30", "--quiet"], &out);
    let v = summary(&out);
    assert_eq!(
        v["piece"],
        serde_json::json!({
            "source": s(&file), "start": 5, "end": 30, "length": 25,
            "first": 17, "seam": 39, "games": 1, "lines": 4,
        })
    );
    assert_eq!(v["games"], 1);
    assert_eq!(v["bytes"], 22);
    assert_eq!(v["source_details"][0]["bytes"], 22);
    // No sync point within 5..10: the piece is empty, its predecessor
    // reads through it.
    let empty = t.path().join("empty");
    run_ok(&[s(&file), "--piece", "5..10", "--quiet"], &empty);
    let v = summary(&empty);
    assert_eq!(
        (
            &v["games"],
            &v["piece"]["first"],
            &v["piece"]["seam"],
            &v["piece"]["lines"]
        ),
        (
            &serde_json::json!(0),
            &serde_json::json!(17),
            &serde_json::json!(17),
            &serde_json::json!(0)
        )
    );
}

/// A game belongs to the piece in which its first byte lies, also where a
/// piece starts exactly at a game's `[`: the blank line before it lies in
/// the piece before. Cut at each game's offset, every piece holds its own
/// game; the first piece held all three, the others none. A blank line
/// of spaces and a `\r\n` before the `[` count too.
#[test]
fn a_piece_that_starts_at_a_games_first_byte_holds_that_game() {
    let t = tempdir();
    let text =
        b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n  \r\n[Event \"c\"]\n\n1. c4 *\n";
    let file = write(t.path(), "g.pgn", text);
    let one = t.path().join("one");
    run_ok(&[s(&file), "--quiet"], &one);
    assert_eq!(summary(&one)["games"], 3);
    let bounds = ["0..22", "22..47", &format!("47..{}", text.len())];
    let mut dirs = Vec::new();
    for (k, b) in bounds.iter().enumerate() {
        let out = t.path().join(format!("p{k}"));
        run_ok(&[s(&file), "--piece", b, "--quiet"], &out);
        let v = summary(&out);
        assert_eq!(
            (&v["games"], &v["piece"]["first"]),
            (&serde_json::json!(1), &serde_json::json!(0)),
            "{b}: {v}"
        );
        dirs.push(out);
    }
    let merged = t.path().join("merged");
    let o = merge(&dirs, &merged);
    assert_eq!(o.status.code(), Some(0), "{}", error_of(&o));
    assert_same(&one, &merged);
}

/// A compressed file whose text one run refuses (binary data inside
/// zstd) is refused by `plan` and by each of its pieces in the same words,
/// as a plain file is. A piece never looked at the decompressed bytes: it
/// audited the binary data as text, exit 0.
#[test]
fn a_piece_refuses_what_one_run_refuses_inside_a_compression() {
    let t = tempdir();
    let mut text: Vec<u8> = (0..64u8).map(|i| 1 + i % 8).collect();
    text.extend(b"\n\n[Event \"x\"]\n\n1. e4 *\n".repeat(20));
    let (z, starts) = pzstd(&text, 176);
    let file = write(t.path(), "bin.pgn.zst", &z);
    let said = format!(
        "pgn-audit: {}: refused: binary data inside zstd, not PGN text",
        s(&file)
    );
    let out = t.path().join("out");
    assert_eq!(error_of(&run(&[s(&file), "--quiet"], &out)), said);
    let o = bin()
        .args(["plan", s(&file), "--piece-size", "100"])
        .output()
        .unwrap();
    assert_eq!((o.status.code(), error_of(&o)), (Some(2), said.clone()));
    for piece in [
        format!("0..{}", starts[1]),
        format!("{}..{}", starts[1], z.len()),
    ] {
        let o = run(&[s(&file), "--piece", &piece, "--quiet"], &out);
        assert_eq!((o.status.code(), error_of(&o)), (Some(2), said.clone()));
    }
    // zstd inside zstd: one run reads both layers, a piece one.
    let twice = write(
        t.path(),
        "twice.pgn.zst",
        &zstd::encode_all(&z[..], 3).unwrap(),
    );
    let o = run(&[s(&twice), "--piece", "0..10", "--quiet"], &out);
    assert_eq!(
        error_of(&o),
        format!(
            "pgn-audit: {}: zstd inside zstd cannot be cut into pieces: audit it whole",
            s(&twice)
        )
    );
}

/// A zstd file of frames joined one after the other, as `zstd` in a loop
/// or python's zstandard write them (no pzstd announcements; a frame with
/// its content size and checksum, one without, a raw and an RLE block, a
/// skippable frame between), is cut at its frame starts like a pzstd
/// file, and its pieces merge to one run. It was one piece, and `--piece`
/// at its second frame was refused.
#[test]
fn frames_without_announcements_are_walked_block_by_block() {
    let t = tempdir();
    let games: Vec<String> = sample_games().into_iter().take(60).collect();
    let mut z = Vec::new();
    let mut starts = Vec::new();
    for (k, chunk) in games.chunks(12).enumerate() {
        starts.push(z.len() as u64);
        let text = chunk.join("\n\n") + "\n\n";
        let mut encoder = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        encoder.include_checksum(k % 2 == 0).unwrap();
        encoder.include_contentsize(k % 2 == 1).unwrap();
        encoder.set_pledged_src_size(None).unwrap();
        std::io::Write::write_all(&mut encoder, text.as_bytes()).unwrap();
        z.extend(encoder.finish().unwrap());
        if k == 2 {
            // A skippable frame of 5 bytes, then a frame of one RLE block
            // of blank lines.
            z.extend_from_slice(&0x184D_2A5Bu32.to_le_bytes());
            z.extend_from_slice(&5u32.to_le_bytes());
            z.extend_from_slice(b"notes");
            starts.push(z.len() as u64);
            z.extend(zstd::encode_all(&[b'\n'; 4000][..], 19).unwrap());
            starts.push(z.len() as u64);
            z.extend(zstd::encode_all(&b"[Event \"raw\"]\n\n1. e4 *\n\n"[..], -5).unwrap());
        }
    }
    let file = write(t.path(), "joined.pgn.zst", &z);
    let planned = plan(&file, 1);
    let walked: Vec<u64> = planned
        .iter()
        .map(|p| p.split_once("..").unwrap().0.parse().unwrap())
        .collect();
    for start in &starts {
        assert!(walked.contains(start), "{start} not in {planned:?}");
    }
    let single = t.path().join("single");
    run_ok(&[s(&file), "--quiet"], &single);
    assert_eq!(summary(&single)["games"], 61);
    let runs = audit_pieces(&file, &planned, t.path(), &[]);
    for (dir, code) in &runs {
        assert_eq!(*code, 0, "{}", dir.display());
    }
    let merged = t.path().join("merged");
    let dirs: Vec<PathBuf> = runs.into_iter().map(|(d, _)| d).collect();
    let o = merge(&dirs, &merged);
    assert_eq!(o.status.code(), Some(0), "{}", error_of(&o));
    assert_same(&single, &merged);
}

/// `data` as pzstd writes it: frames of `step` bytes of text, each
/// announced by a skippable frame that holds its size.
pub(crate) fn pzstd(data: &[u8], step: usize) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut starts = Vec::new();
    for piece in data.chunks(step) {
        starts.push(out.len() as u64);
        let frame = zstd::encode_all(piece, 3).unwrap();
        out.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
        out.extend_from_slice(&4u32.to_le_bytes());
        out.extend_from_slice(&u32::try_from(frame.len()).unwrap().to_le_bytes());
        out.extend_from_slice(&frame);
    }
    (out, starts)
}

/// `data` in zstd frames of `step` bytes of text joined one after another,
/// as `zstd` in a loop writes them: no announcements.
pub(crate) fn joined_frames(data: &[u8], step: usize) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut starts = Vec::new();
    for piece in data.chunks(step) {
        starts.push(out.len() as u64);
        out.extend(zstd::encode_all(piece, 3).unwrap());
    }
    (out, starts)
}

#[test]
fn pieces_of_a_pzstd_file_are_frames_and_merge_to_the_single_run() {
    let t = tempdir();
    let text = damaged();
    let (z, starts) = pzstd(&text, 5000);
    let file = write(t.path(), "games.pgn.zst", &z);
    // One piece per frame when pieces are smaller than frames.
    let mut expected: Vec<String> = starts
        .windows(2)
        .map(|w| format!("{}..{}", w[0], w[1]))
        .collect();
    expected.push(format!("{}..{}", starts.last().unwrap(), z.len()));
    assert_eq!(plan(&file, 1), expected);
    let single = t.path().join("single");
    run_ok(&[s(&file), "--split", "-j", "1"], &single);
    for size in [1, 6000, 1 << 30] {
        let pieces = plan(&file, size);
        let root = t.path().join(format!("size{size}"));
        let runs = audit_pieces(&file, &pieces, &root, &["--split", "-j", "2"]);
        assert!(runs.iter().all(|(_, code)| *code == 0));
        let merged = root.join("merged");
        let dirs: Vec<PathBuf> = runs.into_iter().map(|(d, _)| d).collect();
        let o = merge(&dirs, &merged);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_same(&single, &merged);
    }
}

#[test]
fn a_corrupt_frame_ends_the_source_in_its_piece_at_its_global_offset() {
    let t = tempdir();
    let text = damaged();
    let (mut z, starts) = pzstd(&text, 5000);
    // Damage the sixth frame's compressed data.
    let at = usize::try_from(starts[5]).unwrap() + 30;
    z[at] ^= 0x5a;
    let file = write(t.path(), "games.pgn.zst", &z);
    let single = t.path().join("single");
    let o = run(&[s(&file), "-j", "1", "--quiet"], &single);
    let e = error_of(&o);
    assert!(
        e.starts_with(&format!(
            "pgn-audit: {}: zstd stream is corrupt or truncated after 25000 bytes: ",
            s(&file)
        )),
        "{e}"
    );
    let pieces = plan(&file, 3000);
    let runs = audit_pieces(&file, &pieces, t.path(), &["-j", "1"]);
    // The piece with the damaged frame fails, and those before it do not.
    let damaged = pieces
        .iter()
        .position(|p| {
            p.starts_with(&format!("{}..", starts[5])) || {
                let (a, b) = p.split_once("..").unwrap();
                a.parse::<u64>().unwrap() < starts[5] && starts[5] < b.parse::<u64>().unwrap()
            }
        })
        .unwrap();
    assert!(damaged >= 1, "{pieces:?}");
    let codes: Vec<i32> = runs.iter().map(|(_, c)| *c).collect();
    assert_eq!(codes[..=damaged], [vec![0; damaged], vec![2]].concat());
    let merged = t.path().join("merged");
    let dirs: Vec<PathBuf> = runs.into_iter().map(|(d, _)| d).collect();
    // The merge says the read error as the one run does, and exits as it
    // does: the merged reports hold only what was read of the source.
    let o = merge(&dirs, &merged);
    assert_eq!(error_of(&o), e);
    assert_same(&single, &merged);
    assert!(
        summary(&merged)["source_details"][0]["error"]
            .as_str()
            .unwrap()
            .contains("after 25000 bytes"),
    );
}

#[test]
fn bounds_a_file_cannot_be_cut_at_are_refused() {
    let t = tempdir();
    let text = damaged();
    let plain = write(t.path(), "games.pgn", &text);
    let (z, starts) = pzstd(&text, 5000);
    let zst = write(t.path(), "games.pgn.zst", &z);
    let one_frame = write(
        t.path(),
        "one.pgn.zst",
        &zstd::encode_all(&text[..], 3).unwrap(),
    );
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, &text).unwrap();
        write(t.path(), "games.pgn.gz", &e.finish().unwrap())
    };
    let out = t.path().join("out");
    let refused = |args: &[&str]| error_of(&run(args, &out));
    assert_eq!(
        refused(&[s(&zst), "--piece", &format!("0..{}", starts[1] + 1)]),
        format!(
            "pgn-audit: {}: --piece 0..{}: a zstd piece starts and ends where a pzstd frame starts (see `pgn-audit plan`)",
            s(&zst),
            starts[1] + 1
        )
    );
    let size = std::fs::metadata(&gz).unwrap().len();
    assert_eq!(
        refused(&[s(&gz), "--piece", "0..10"]),
        format!(
            "pgn-audit: {}: --piece 0..10: a gzip file is one piece: 0..{size}",
            s(&gz)
        )
    );
    let size = std::fs::metadata(&one_frame).unwrap().len();
    assert_eq!(
        refused(&[s(&one_frame), "--piece", "0..10"]),
        format!(
            "pgn-audit: {}: --piece 0..10: a zstd file is one piece: 0..{size}",
            s(&one_frame)
        )
    );
    assert_eq!(
        refused(&[s(&plain), "--piece", "0..99999999"]),
        format!(
            "pgn-audit: {}: --piece 0..99999999: the file has {} bytes",
            s(&plain),
            text.len()
        )
    );
    assert_eq!(
        refused(&[s(&plain), s(&zst), "--piece", "0..10"]),
        "pgn-audit: --piece 0..10: takes exactly one input file, not 2 sources"
    );
    assert_eq!(
        refused(&[s(t.path()), "--piece", "0..10"]),
        "pgn-audit: --piece 0..10: takes exactly one input file, not 4 sources"
    );
    let o = run(&[s(&plain), "--piece", "10..5"], &out);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"10..5\" is not START..END"));
    assert!(!out.join("summary.json").exists(), "nothing is written");
    // A whole gzip file is one piece, and plan says so.
    assert_eq!(
        plan(&gz, 100),
        vec![format!("0..{}", std::fs::metadata(&gz).unwrap().len())]
    );
}

/// Issue 25: a file's first bytes are read one way, whatever asks. A file
/// the audit refuses (binary data, UTF-16 text, a zip archive) is refused
/// by `plan`, by `--piece` and by `sources` with the audit's words, never
/// cut into pieces, and `sources` prints no line for it.
#[test]
fn plan_and_pieces_refuse_what_the_audit_refuses_in_its_words() {
    let t = tempdir();
    let binary: Vec<u8> = (0u8..=255).cycle().take(4096).collect();
    let utf16: Vec<u8> = "\u{feff}[Event \"e\"]\n\n1. e4 *\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let zip = zip_of(&[("a.pgn", b"1. e4 *\n")]);
    let out = t.path().join("out");
    for (name, bytes, cause) in [
        ("x.bin", &binary, "refused: binary data, not PGN text"),
        (
            "x16.pgn",
            &utf16,
            "refused: UTF-16LE text, not UTF-8 (convert it to UTF-8)",
        ),
    ] {
        let file = write(t.path(), name, bytes);
        let said = format!("pgn-audit: {}: {cause}", s(&file));
        assert_eq!(error_of(&run(&[s(&file), "--quiet"], &out)), said);
        let o = bin()
            .args(["plan", s(&file), "--piece-size", "100"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{name}: {o:?}");
        assert_eq!(error_of(&o), said);
        assert!(o.stdout.is_empty());
        assert_eq!(error_of(&run(&[s(&file), "--piece", "0..100"], &out)), said);
        let o = bin().args(["sources", s(&file)]).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{name}: {o:?}");
        assert_eq!(error_of(&o), said);
        assert!(o.stdout.is_empty());
    }
    let file = write(t.path(), "x.zip", &zip);
    let o = bin()
        .args(["plan", s(&file), "--piece-size", "100"])
        .output()
        .unwrap();
    assert_eq!(
        error_of(&o),
        format!(
            "pgn-audit: {}: a zip archive cannot be cut into pieces: audit it whole",
            s(&file)
        )
    );
}

#[test]
fn pieces_that_do_not_tile_the_file_are_refused() {
    let t = tempdir();
    let text = damaged();
    let file = write(t.path(), "games.pgn", &text);
    let pieces = plan(&file, 70_000);
    assert_eq!(pieces.len(), 4);
    let dirs: Vec<PathBuf> = audit_pieces(&file, &pieces, t.path(), &[])
        .into_iter()
        .map(|(d, code)| {
            assert_eq!(code, 0);
            d
        })
        .collect();
    let out = t.path().join("merged");
    let refused = |dirs: &[PathBuf]| error_of(&merge(dirs, &out));
    let name = s(&file);
    assert_eq!(
        refused(&[dirs[0].clone(), dirs[2].clone(), dirs[3].clone()]),
        format!(
            "pgn-audit: merge: {}: piece 140000..210000 of {name} does not follow piece 0..70000 ({}): pieces must be contiguous and all present",
            s(&dirs[2]),
            s(&dirs[0])
        )
    );
    assert_eq!(
        refused(&dirs[1..]),
        format!(
            "pgn-audit: merge: {}: the first piece of {name} starts at 70000, not 0: a piece is missing",
            s(&dirs[1])
        )
    );
    assert_eq!(
        refused(&dirs[..3]),
        format!(
            "pgn-audit: merge: {}: the last piece of {name} ends at 210000, but the file has {} bytes: a piece is missing",
            s(&dirs[2]),
            text.len()
        )
    );
    // A seam that does not meet the next piece's first game.
    let path = dirs[1].join("summary.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let seam = v["piece"]["seam"].as_u64().unwrap();
    v["piece"]["seam"] = serde_json::json!(seam + 1);
    std::fs::write(&path, v.to_string()).unwrap();
    let first = summary(&dirs[2])["piece"]["first"].as_u64().unwrap();
    assert_eq!(
        refused(&dirs),
        format!(
            "pgn-audit: merge: {}: piece 140000..210000 of {name} starts reading at its first game ({first}) where piece 70000..140000 ({}) did not stop ({}): the seam does not match",
            s(&dirs[2]),
            s(&dirs[1]),
            first + 1
        )
    );
    assert!(!out.exists(), "nothing is written");
}

/// What the property test cuts: text assembled from these pieces, the
/// sample's games, the fixtures and the fuzz corpora where present.
const PALETTE: &[&[u8]] = &[
    b"\n",
    b"\r\n",
    b"\r",
    b"\n\n",
    b"\r\n\r\n",
    b"\r\r\n",
    b"\n\0\0\n",
    b"\x1a",
    b"\xef\xbb\xbf",
    b" \t\x0c\n",
    b"[Event \"x\"]\n",
    b"[Site \"y\"]\r\n",
    b"[White \"a \"b\"\"]\n",
    b"[Bad tag\n",
    b"Date \"2001.01.01\"]\n",
    b"1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n",
    b"1. d4 { an open comment\n",
    b"} 2. c4 ",
    b"{ closed } ",
    b"; a line comment\n",
    b"1-0\n",
    b"0-1 [Event \"z\"]\n",
    b"(1. c4 ",
    b") ",
    b"%escape\n",
    b"1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. O-O 1/2-1/2\n",
    b"1.",
    b"[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n",
    b"a4(b4$6)a6!?{c}a5*[Event\"w\"]h4",
    b"***",
];

/// Texts of whole files to draw from: the fixtures, and the fuzz corpora
/// where present.
pub(crate) fn files() -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![root.join("corpora/fixtures"), root.join("fuzz/corpus")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                dirs.push(p);
            } else if let Ok(bytes) = std::fs::read(&p)
                && bytes.len() < 200_000
            {
                found.push(bytes);
            }
        }
    }
    found
}

/// One drawn input: text from parts, stored plain or as zstd frames of
/// `frame` bytes (pzstd's for an even `frame`, joined without
/// announcements for an odd one; maybe damaged at `damage`, flipped or
/// cut there), cut at `cuts` (fractions of the stored size).
#[derive(Debug, Clone)]
pub(crate) struct Case {
    pub(crate) parts: Vec<(u8, usize)>,
    pub(crate) frame: Option<usize>,
    pub(crate) damage: Option<(bool, u32)>,
    pub(crate) cuts: Vec<u32>,
}

pub(crate) fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((0u8..4, any::<usize>()), 1..40),
        prop::option::of(64usize..4000),
        prop::option::of((any::<bool>(), any::<u32>())),
        prop::collection::vec(any::<u32>(), 0..8),
    )
        .prop_map(|(parts, frame, damage, cuts)| Case {
            parts,
            frame,
            damage,
            cuts,
        })
}

/// The stored bytes of a case, and the offsets a piece may start at.
pub(crate) fn stored(case: &Case, games: &[String], files: &[Vec<u8>]) -> (Vec<u8>, Vec<u64>) {
    let mut text = Vec::new();
    for &(kind, k) in &case.parts {
        match kind {
            0 | 1 => text.extend_from_slice(PALETTE[k % PALETTE.len()]),
            2 => {
                text.extend_from_slice(games[k % games.len()].as_bytes());
                text.extend_from_slice(b"\n\n");
            }
            _ if !files.is_empty() => text.extend_from_slice(&files[k % files.len()]),
            _ => {}
        }
    }
    let Some(frame) = case.frame else {
        let points = (0..=text.len() as u64).collect();
        return (text, points);
    };
    // An odd frame size: frames joined without pzstd's announcements,
    // which the plan walks block by block.
    let (mut z, mut starts) = if frame % 2 == 1 {
        joined_frames(&text, frame)
    } else {
        pzstd(&text, frame)
    };
    if let Some((flip, at)) = case.damage
        && !z.is_empty()
    {
        let at = at as usize % z.len();
        if flip {
            z[at] ^= 0x24;
        } else {
            z.truncate(at);
            starts.retain(|&s| s < at as u64);
        }
    }
    starts.push(z.len() as u64);
    (z, starts)
}

proptest! {
    // 24 cases (PROPTEST_CASES for more): each runs some 20 processes.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(24),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any input cut at random points into 1 to 8 pieces: the merged
    /// pieces are one run's reports, byte for byte, at -j1 and -j2.
    #[test]
    fn merged_pieces_are_one_run(case in case()) {
        let games = sample_games();
        let files = files();
        let (bytes, points) = stored(&case, &games, &files);
        let t = tempdir();
        let name = if case.frame.is_some() { "in.pgn.zst" } else { "in.pgn" };
        let file = write(t.path(), name, &bytes);
        let single = t.path().join("single");
        let single_run = run(&[s(&file), "--split", "-j", "1", "--quiet"], &single);
        let single_code = single_run.status.code();
        prop_assert!(matches!(single_code, Some(0 | 2)), "{}", String::from_utf8_lossy(&single_run.stderr));
        // A file one run refuses (binary data first, as a fuzz corpus file
        // may be) is refused by plan and by a piece in the same words: no
        // folder to merge.
        if error_lines(&single_run).iter().any(|l| l.contains(": refused: ")) {
            let o = bin().args(["plan", s(&file), "--piece-size", "1"]).output().unwrap();
            prop_assert_eq!(error_lines(&o), error_lines(&single_run));
            let whole = format!("0..{}", bytes.len());
            let o = run(&[s(&file), "--piece", &whole, "--quiet"], &t.path().join("refused"));
            prop_assert_eq!(o.status.code(), Some(2));
            prop_assert_eq!(error_lines(&o), error_lines(&single_run));
            return Ok(());
        }
        // Where a plan may cut: a stored offset, for pzstd a frame start
        // that the plan's walk finds (a damaged announcement ends it).
        let walked: Vec<u64> = match case.frame {
            Some(_) => plan(&file, 1)
                .iter()
                .map(|p| p.split_once("..").unwrap().0.parse().unwrap())
                .collect(),
            None => Vec::new(),
        };
        let mut cuts: Vec<u64> = case
            .cuts
            .iter()
            .map(|&c| points[c as usize % points.len()])
            .filter(|c| case.frame.is_none() || walked.contains(c))
            .filter(|&c| c > 0 && c < bytes.len() as u64)
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut bounds = vec![0];
        bounds.extend(cuts);
        bounds.push(bytes.len() as u64);
        let pieces: Vec<String> = bounds.windows(2).map(|w| format!("{}..{}", w[0], w[1])).collect();
        for threads in ["1", "2"] {
            let root = t.path().join(format!("j{threads}"));
            let runs = audit_pieces(&file, &pieces, &root, &["--split", "-j", threads]);
            for (dir, code) in &runs {
                prop_assert!(matches!(code, 0 | 2), "{}", dir.display());
            }
            let merged = root.join("merged");
            let dirs: Vec<PathBuf> = runs.into_iter().map(|(d, _)| d).collect();
            let o = merge(&dirs, &merged);
            // The merge exits as the one run does (2 for a read error),
            // with the same error line.
            prop_assert_eq!(o.status.code(), single_code, "{:?}: {}", pieces, String::from_utf8_lossy(&o.stderr));
            prop_assert_eq!(error_lines(&o), error_lines(&single_run));
            assert_same(&single, &merged);
        }
    }
}

/// `pgn-audit plan --text-estimate` (issue 27, the driver's default plan):
/// a zstd file's text measured from what its first 8 MiB decompress to,
/// whether it compresses 5 times (small frames of distinct games) or 40
/// (large frames of copies of one file, as 2,400 copies of the sample
/// written by pzstd are); a plain file's and a gzip file's is their size;
/// a missing file is one line and exit 2; `--piece-size` and
/// `--text-estimate` are one or the other.
#[test]
fn the_text_estimate_measures_how_a_zstd_file_compresses() {
    let t = tempdir();
    let sample = std::fs::read(corpus("lichess_2025-05_sample.pgn")).unwrap();
    let mut text = Vec::new();
    for _ in 0..40 {
        text.extend_from_slice(&sample);
        text.push(b'\n');
    }
    let estimate = |file: &Path| {
        let o = bin()
            .args(["plan", "--text-estimate", s(file)])
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout)
            .unwrap()
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    let within = |got: u64, want: usize| {
        let want = want as f64;
        assert!((got as f64 - want).abs() <= 0.03 * want, "{got} for {want}");
    };
    // Frames of 256 KiB: no copy repeats inside one, about 5 times.
    let (small, _) = pzstd(&text, 256 << 10);
    assert!(small.len() * 6 > text.len() && small.len() * 4 < text.len());
    within(
        estimate(&write(t.path(), "small.pgn.zst", &small)),
        text.len(),
    );
    // Frames of 16 MiB: each copy but the first of a frame is a repeat.
    let (large, _) = pzstd(&text, 16 << 20);
    assert!(large.len() * 20 < text.len(), "{}", large.len());
    within(
        estimate(&write(t.path(), "large.pgn.zst", &large)),
        text.len(),
    );
    let plain = write(t.path(), "plain.pgn", &text);
    assert_eq!(estimate(&plain), text.len() as u64);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &text).unwrap();
    let gz = gz.finish().unwrap();
    assert_eq!(estimate(&write(t.path(), "x.pgn.gz", &gz)), gz.len() as u64);
    let missing = t.path().join("missing.pgn.zst");
    let o = bin()
        .args(["plan", "--text-estimate", s(&missing)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        error_lines(&o),
        [format!(
            "pgn-audit: {}: no such file or directory",
            s(&missing)
        )]
    );
    let o = bin()
        .args(["plan", "--text-estimate", "--piece-size", "9", s(&plain)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(error_lines(&o).len(), 1, "{o:?}");
}
