//! Parallel splitting (issue 27): the reader only reads bytes and cuts
//! them into chunks at sync points, the pool cuts each chunk into games,
//! and the reports are those of one splitter over the whole source, byte
//! for byte, whatever the chunk size and the thread count, damaged and
//! hostile input included. The chunk size is the hidden variable
//! `PGN_AUDIT_CHUNK_BYTES`; 0 is the reference: every source cut into
//! games on the reader thread by one splitter, as before chunks.

use crate::common;
use crate::pieces::{Case, case, damaged, error_lines, files, pzstd, reports, stored};

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use proptest::prelude::*;

/// Audits `file` with chunks of `chunk` bytes on `threads` threads into
/// `out`, writing every report.
fn audit(file: &Path, chunk: usize, threads: &str, out: &Path) -> Output {
    bin()
        .env("PGN_AUDIT_CHUNK_BYTES", chunk.to_string())
        .args([s(file), "--split", "--quirks", "-j", threads, "--quiet"])
        .args(["-o", s(out)])
        .output()
        .unwrap()
}

/// Whether two report folders hold the same reports (summary.json without
/// its timing and thread count); says the first that differs.
fn differs(a: &Path, b: &Path) -> Option<String> {
    let (x, y) = (reports(a), reports(b));
    if x.len() != y.len() {
        return Some(format!("{} reports against {}", y.len(), x.len()));
    }
    x.iter()
        .zip(&y)
        .find(|((_, p), (_, q))| p != q)
        .map(|((name, p), (_, q))| {
            format!(
                "{name} differs:\n--- one splitter\n{}\n--- chunks\n{}",
                String::from_utf8_lossy(p),
                String::from_utf8_lossy(q)
            )
        })
}

/// Audits `file` with one splitter, then with every chunk size of `chunks`
/// at -j1 and -j8: the same exit status, error lines and reports each
/// time. Returns the reference run's folder.
fn same_split(file: &Path, chunks: &[usize], root: &Path) -> Result<PathBuf, String> {
    let reference = root.join("one-splitter");
    let one = audit(file, 0, "1", &reference);
    let code = one.status.code();
    if !matches!(code, Some(0 | 2)) {
        return Err(String::from_utf8_lossy(&one.stderr).into_owned());
    }
    for &chunk in chunks {
        for threads in ["1", "8"] {
            let out = root.join(format!("c{chunk}-j{threads}"));
            let o = audit(file, chunk, threads, &out);
            let what = format!("{}, chunks of {chunk}, -j{threads}", file.display());
            if o.status.code() != code || error_lines(&o) != error_lines(&one) {
                return Err(format!(
                    "{what}: exit {:?} {:?}, one splitter: exit {code:?} {:?}",
                    o.status.code(),
                    error_lines(&o),
                    error_lines(&one)
                ));
            }
            if let Some(d) = differs(&reference, &out) {
                return Err(format!("{what}: {d}"));
            }
        }
    }
    Ok(reference)
}

/// Chunk sizes from a byte to several MiB.
const CHUNKS: &[usize] = &[1, 2, 3, 7, 100, 4093, 65_536, 1 << 20, 5 << 20];

/// Text that tries the splitter's every rule at a chunk's seams: open
/// comments over blank lines and tag lines, prose, BOMs, lone CRs and
/// `\r\r\n`, NUL and Ctrl-Z padding, a tag right after a result, tags
/// inside a comment after a blank line, tagless games, `%` lines, tag
/// lines longer than a sync point looks at, (v4) results and tags with no
/// blank before them (`a5*[Event`).
fn hostile_text() -> Vec<u8> {
    let long_name = format!("[{} \"x\"]\n", "N".repeat(300));
    let long_value = format!("[Event \"{}\"]\n", "v".repeat(5000));
    let parts: Vec<&[u8]> = vec![
        b"Poikovsky 2002\n--------------\n\n",
        b"[Event \"a\"]\n[Site \"s\"]\n\n1. e4 { an open comment\n\n[Event \"b\"]\n\n1. d4 d5 *\n\n",
        b"\xef\xbb\xbf[Event \"c\"]\r\n\r\n1. e4 e5 1-0 [Event \"d\"] 1. d4 *\r\n\r\n",
        b"[Event \"e\"]\r\r\n\r\r\n1. c4 {\n\n[Event \"inside\"]\n\n} 1-0\n\n",
        b"\0\0\n\x1a\n\n[Event \"f\"]\n\n1. f4 (1. g4 *\n\n[Event \"g\"]\n \t\x0c\n",
        b"\n[Event \"h\"]\n\n1. e4 *\n1. d4 *\n e4 e5 1/2-1/2\n\n% escape\n\n",
        long_name.as_bytes(),
        b"\n1. e4 *\n\n",
        long_value.as_bytes(),
        b"\n\n1. Nf3 \xc2\xbd-\xc2\xbd\n\n{ a block }\n; comments\n\n",
        b"[Event \"i\"]\n\n1. e4\r\r1. d4 *\r\r[Event \"j\"]\r\r1. c4\0\0\x1a",
        b"\n\n[Event\"k\"][Round \"11\"]a4(b4$6)a6!?{comment}a5*[Event\"l\"]h4(g4)h6{c}h5*\n\
          1. e4 **[Event \"m\"] 1. d4 1-0[Event \"n\"]\n\n*** prose ***\n\n",
    ];
    let mut text = Vec::new();
    for _ in 0..3 {
        for p in &parts {
            text.extend_from_slice(p);
        }
        text.extend_from_slice(b"\n\n");
    }
    text
}

/// A game longer than the game cap between others, so that at small chunk
/// sizes the reader cuts the rest of the source itself (no sync point in
/// the chunk's most bytes) and at large ones a worker caps the game.
fn capped_text() -> Vec<u8> {
    let mut text = b"[Event \"before\"]\n\n1. e4 e5 *\n\n[Event \"long\"]\n\n".to_vec();
    while text.len() < pgn_audit_input::GAME_CAP + 10_000 {
        text.extend_from_slice(b"1. Nf3 Nf6 2. Ng1 Ng8 { [%clk 0:03:00] }\n");
    }
    text.extend_from_slice(b"*\n\n");
    text.extend_from_slice(&damaged()[..20_000]);
    text
}

/// Tagless games one per line: no sync point for 100 kB, then tagged
/// games.
fn tagless_text() -> Vec<u8> {
    let mut text = Vec::new();
    for i in 0..2500 {
        text.extend_from_slice(format!("1. e4 e5 2. Nf3 {{ {i} }} 1-0\n").as_bytes());
    }
    text.extend_from_slice(b"\n\n");
    text.extend_from_slice(&damaged()[..20_000]);
    text
}

/// NUL padding of one byte less than a run that ends a source, games,
/// then such a run (1 MiB): a worker's chunk never holds it, the reader
/// reads the stretch in order and ends the source there.
fn nul_run_text() -> Vec<u8> {
    let mib = usize::try_from(pgn_audit_input::NUL_RUN_LIMIT).unwrap();
    let games = damaged();
    let mut text = games[..20_000].to_vec();
    text.extend_from_slice(b"\n\n");
    text.extend(vec![0; mib - 1]);
    text.extend_from_slice(b"\n\n");
    text.extend_from_slice(&games[20_000..40_000]);
    text.extend(vec![0; mib + 10]);
    text.extend_from_slice(b"\n\n");
    text.extend_from_slice(&games[40_000..60_000]);
    text
}

/// Tagless games one per line for 2.5 MiB (no sync point within the most
/// bytes of a chunk a worker reads, nor in a decoder's pieces for longer
/// than their chunks may grow), then tagged games.
fn long_tagless_text() -> Vec<u8> {
    let mut text = b"[Event \"first\"]\n\n1. e4 *\n\n".to_vec();
    let mut i = 0;
    while text.len() < (5 << 20) / 2 {
        text.extend_from_slice(format!("1. e4 e5 2. Nf3 {{ {i} }} 1-0\n").as_bytes());
        i += 1;
    }
    text.extend_from_slice(b"\n\n");
    text.extend_from_slice(&damaged()[..20_000]);
    text
}

#[test]
fn every_chunk_size_cuts_the_games_of_one_splitter() {
    let t = tempdir();
    let sample = std::fs::read(corpus("lichess_2025-05_sample.pgn")).unwrap();
    let text = damaged();
    let (frames, starts) = pzstd(&text, 10_000);
    // A middle frame's magic number broken (a flipped byte inside a frame
    // may decode, wrongly: pzstd writes no checksums).
    let mut corrupt = frames.clone();
    let middle = usize::try_from(starts[starts.len() / 2]).unwrap() + 12;
    corrupt[middle..middle + 4].fill(0xff);
    let gz = gzip(&text);
    // Blocks of 128 KiB of text: half the frame holds whole ones.
    let one_frame = zstd::encode_all(&sample[..600_000], 3).unwrap();
    let inputs: Vec<(&str, Vec<u8>, &[usize])> = vec![
        ("damaged.pgn", text.clone(), CHUNKS),
        ("hostile.pgn", hostile_text(), CHUNKS),
        ("capped.pgn", capped_text(), &[3, 4093, 1 << 20]),
        ("tagless.pgn", tagless_text(), &[1, 4093, 1 << 20]),
        (
            "nul-run.pgn",
            nul_run_text(),
            &[1, 65_536, 1 << 20, 5 << 20],
        ),
        (
            "long-tagless.pgn",
            long_tagless_text(),
            &[7, 1 << 20, 5 << 20],
        ),
        (
            "sample-part.pgn",
            sample[..300_001].to_vec(),
            &[7, 65_536, 1 << 20],
        ),
        ("corrupt.pgn.zst", corrupt, &[5, 4093, 1 << 20]),
        (
            "cut.pgn.zst",
            frames[..frames.len() * 2 / 3].to_vec(),
            &[5, 4093, 1 << 20],
        ),
        (
            "one-frame-cut.pgn.zst",
            one_frame[..one_frame.len() / 2].to_vec(),
            &[5, 1 << 20],
        ),
        ("cut.pgn.gz", gz[..gz.len() * 3 / 5].to_vec(), &[5, 1 << 20]),
    ];
    for (name, bytes, chunks) in inputs {
        let file = write(t.path(), name, &bytes);
        let root = t.path().join(format!("{name}.out"));
        let reference = same_split(&file, chunks, &root).unwrap_or_else(|e| panic!("{e}"));
        // The inputs are what they are meant to be: games in each, and a
        // read error where the input is damaged.
        let games = summary(&reference)["games"].as_u64().unwrap();
        assert!(games > 5, "{name}: {games} games");
        let broken = summary(&reference)["source_details"][0]["error"].is_string();
        assert_eq!(
            broken,
            name.contains("cut") || name.contains("corrupt") || name.contains("nul"),
            "{name}"
        );
    }
}

proptest! {
    // 16 cases (PROPTEST_CASES for more): each runs some 20 processes.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(16),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any input of the pieces' property test (plain or pzstd, damaged or
    /// not), cut into chunks of random sizes: one splitter's reports at
    /// -j1 and -j8.
    #[test]
    fn random_inputs_in_random_chunks_are_cut_as_by_one_splitter(case in case(), big in 0usize..(6 << 20)) {
        let games = sample_games();
        let (bytes, _) = stored(&case, &games, &files());
        let t = tempdir();
        let name = if case.frame.is_some() { "in.pgn.zst" } else { "in.pgn" };
        let file = write(t.path(), name, &bytes);
        let mut chunks: Vec<usize> = case.cuts.iter().map(|&c| c as usize % 5000 + 1).collect();
        chunks.push(big + 1);
        let checked = same_split(&file, &chunks, t.path());
        prop_assert!(checked.is_ok(), "{:?}: {}", Case::clone(&case), checked.unwrap_err());
    }
}

/// Every caller audits a game by one path: the command line over a file,
/// and `audit_bytes` (which the fuzzer and the property tests drive) over
/// the same bytes in memory at any chunk size, count the same games the
/// same way, a game over the cap and one that the input breaks off
/// included.
#[test]
fn the_command_line_and_audit_bytes_give_the_same_summary() {
    let t = tempdir();
    // A game whose comment passes the cap, then a small one.
    let mut scratch = b"[Event \"long\"]\n\n1. e4 { ".to_vec();
    scratch.resize(3 << 20, b'x');
    scratch.extend_from_slice(b" } e5 *\n\n[Event \"small\"]\n\n1. d4 d5 *\n");
    let (frames, _) = pzstd(&damaged(), 10_000);
    let gz = gzip(&damaged());
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("scratch.pgn", scratch),
        ("hostile.pgn", hostile_text()),
        ("capped.pgn", capped_text()),
        ("damaged.pgn", damaged()),
        ("cut.pgn.zst", frames[..frames.len() * 2 / 3].to_vec()),
        ("cut.pgn.gz", gz[..gz.len() * 3 / 5].to_vec()),
    ];
    // The counts of a summary, and its one source's bytes, games and
    // read error.
    let counts = |mut s: serde_json::Value| {
        let mut detail = s["source_details"][0].take();
        let o = s.as_object_mut().unwrap();
        for volatile in [
            "seconds",
            "helpmate_seconds",
            "threads",
            "sources",
            "source_details",
            "options",
        ] {
            o.remove(volatile);
        }
        (
            s,
            detail["bytes"].take(),
            detail["games"].take(),
            detail["error"].take(),
        )
    };
    for (name, bytes) in inputs {
        let file = write(t.path(), name, &bytes);
        let out = t.path().join(format!("{name}.out"));
        let _ = run(&[s(&file), "--quiet", "--no-html"], &out);
        let cli = counts(summary(&out));
        for chunk in [0, 4093, 1 << 20] {
            let json = pgn_audit::app::audit_bytes(&bytes, chunk)
                .to_json()
                .unwrap();
            let memory = counts(serde_json::from_str(&json).unwrap());
            assert_eq!(memory, cli, "{name} in chunks of {chunk}");
        }
    }
    let scratch = summary(&t.path().join("scratch.pgn.out"));
    assert_eq!(
        (scratch["clean"].as_u64(), scratch["incomplete"].as_u64()),
        (Some(1), Some(1))
    );
}
