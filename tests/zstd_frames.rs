//! Multi-frame zstd input (issue 5): frames decompressed in parallel, games
//! straddling frame boundaries stitched back, the same reports as plain.

use crate::common;

use std::io::Write;

use common::*;

/// `data` cut every `step` bytes into zstd frames, each announced by a
/// pzstd skippable frame when `pzstd_headers`.
fn frames(data: &[u8], step: usize, pzstd_headers: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in data.chunks(step) {
        let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        enc.include_contentsize(!pzstd_headers).unwrap();
        enc.set_pledged_src_size(Some(piece.len() as u64)).unwrap();
        enc.write_all(piece).unwrap();
        let f = enc.finish().unwrap();
        if pzstd_headers {
            out.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
            out.extend_from_slice(&4u32.to_le_bytes());
            out.extend_from_slice(&u32::try_from(f.len()).unwrap().to_le_bytes());
        }
        out.extend_from_slice(&f);
    }
    out
}

#[test]
fn multi_frame_zstd_gives_the_same_reports_as_plain() {
    let t = tempfile::tempdir().unwrap();
    let sample = std::fs::read(SAMPLE).unwrap();
    let mut data = sample.clone();
    data.extend_from_slice(b"\n\n1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. O-O *\n\n");
    data.extend_from_slice(&sample);
    let plain = t.path().join("all.pgn");
    std::fs::write(&plain, &data).unwrap();
    let base = t.path().join("plain");
    run_ok(&["-j", "2", plain.to_str().unwrap()], &base);
    assert_eq!(counts(&base).0, 2 * 438 + 1);
    for (name, step, headers) in [("pz", 33_333, true), ("frames", 100_001, false)] {
        let z = t.path().join(format!("{name}.pgn.zst"));
        std::fs::write(&z, frames(&data, step, headers)).unwrap();
        for threads in ["1", "3"] {
            let out = t.path().join(format!("{name}{threads}"));
            run_ok(&["-j", threads, z.to_str().unwrap()], &out);
            for f in [
                "castling.csv",
                "claims.csv",
                "missed_draws.csv",
                "errors.csv",
            ] {
                let strip = |rows: Vec<Vec<String>>| -> Vec<Vec<String>> {
                    rows.into_iter().map(|r| r[1..].to_vec()).collect()
                };
                assert_eq!(
                    strip(rows(&base, f)),
                    strip(rows(&out, f)),
                    "{name} -j{threads} {f}"
                );
            }
            assert_eq!(counts(&base), counts(&out), "{name} -j{threads}");
            assert_eq!(
                summary(&base)["bytes"],
                summary(&out)["bytes"],
                "{name} -j{threads}"
            );
        }
    }
}
