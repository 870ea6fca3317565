//! Issue 12 (items 6, 13, 14, 15, 16) and issue 15: damaged and unusual
//! compressed input, refused formats, xz and zip.

use std::io::Write;
use std::path::Path;

use super::common::{self, gzip, xz, zip_of};

/// The sample, `copies` times over.
pub(super) fn games(copies: usize) -> Vec<u8> {
    std::fs::read(common::SAMPLE).unwrap().repeat(copies)
}

/// `data` as zstd frames of `step` bytes each, every frame with its
/// content size (so that more than two threads decode them in parallel).
pub(super) fn zstd_frames(data: &[u8], step: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in data.chunks(step) {
        let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        enc.set_pledged_src_size(Some(piece.len() as u64)).unwrap();
        enc.write_all(piece).unwrap();
        out.extend_from_slice(&enc.finish().unwrap());
    }
    out
}

/// What a zstd decoder gives before it fails, fed one byte at a time: a
/// step then completes at most one block, so nothing decoded before the
/// fault is lost (as `zstd -dc` gives it).
fn zstd_reference(z: &[u8]) -> Vec<u8> {
    use zstd::stream::raw::{DParameter, Decoder, InBuffer, Operation, OutBuffer};
    let mut d = Decoder::new().unwrap();
    d.set_parameter(DParameter::WindowLogMax(31)).unwrap();
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 18];
    let mut finished = false;
    for byte in z.chunks(1) {
        if finished {
            d.reinit().unwrap();
        }
        let mut input = InBuffer::around(byte);
        let mut output = OutBuffer::around(&mut buf[..]);
        match d.run(&mut input, &mut output) {
            Ok(hint) => finished = hint == 0,
            Err(_) => return out,
        }
        let n = output.pos();
        out.extend_from_slice(&buf[..n]);
    }
    out
}

/// Report files by name, with their bytes.
pub(super) type ReportBytes = Vec<(String, Vec<u8>)>;

/// Every report of a run but summary.json, and summary.json without the
/// two fields that differ between runs (`seconds`, `threads`).
pub(super) fn report_bytes(out: &Path) -> ReportBytes {
    let mut files: Vec<_> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    files.sort();
    let mut v: Vec<_> = files
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(p).unwrap(),
            )
        })
        .collect();
    let mut s = common::summary(out);
    let o = s.as_object_mut().unwrap();
    o.remove("seconds");
    o.remove("helpmate_seconds");
    o.remove("threads");
    v.push(("summary.json".to_owned(), s.to_string().into_bytes()));
    v
}

/// The rows of every CSV report, without their `source` column, by file.
pub(super) fn rows_but_source(out: &Path) -> Vec<(String, Vec<Vec<String>>)> {
    let mut names: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let rows = common::rows(out, &n)
                .into_iter()
                .map(|r| r[1..].to_vec())
                .collect();
            (n, rows)
        })
        .collect()
}

/// Runs `input` at -j1, -j2, -j3 and -j8: the same exit status and
/// message every time, byte-identical reports; returns the -j1 folder's
/// parent, its exit status and its standard error.
pub(super) fn same_at_every_thread_count(
    t: &Path,
    input: &Path,
) -> (std::path::PathBuf, Option<i32>, String) {
    let mut first: Option<(ReportBytes, Option<i32>, String)> = None;
    for j in ["1", "2", "3", "8"] {
        let out = t.join(format!("j{j}"));
        let o = common::run(&["-j", j, "--no-html", common::s(input)], &out);
        let stderr = String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter(|l| l.starts_with("pgn-audit:"))
            .collect::<Vec<_>>()
            .join("\n");
        let got = (report_bytes(&out), o.status.code(), stderr);
        match &first {
            None => first = Some(got),
            Some(f) => {
                assert_eq!(f.1, got.1, "-j{j} exit status");
                assert_eq!(f.2, got.2, "-j{j} stderr");
                for ((name, a), (_, b)) in f.0.iter().zip(&got.0) {
                    assert!(a == b, "-j{j}: {name} differs from -j1");
                }
            }
        }
    }
    let (_, status, stderr) = first.unwrap();
    (t.join("j1"), status, stderr)
}

/// Item 6: a corrupt or truncated zstd source gives the same reports at
/// every thread count, and keeps every game decoded before the fault: as
/// many bytes and games as a decoder fed block by block gives.
#[test]
fn damaged_zstd_keeps_what_decoded_before_the_fault_at_any_thread_count() {
    let data = games(3);
    let many = zstd_frames(&data, 1 << 20);
    let one = zstd::encode_all(&data[..], 3).unwrap();
    let mut cases = Vec::new();
    for (name, z) in [("frames", &many), ("one", &one)] {
        let mut corrupt = z.clone();
        let mid = z.len() / 2;
        for b in &mut corrupt[mid..mid + 8] {
            *b ^= 0x5a;
        }
        cases.push((format!("{name}-corrupt"), corrupt));
        cases.push((format!("{name}-cut"), z[..z.len() * 2 / 3].to_vec()));
    }
    for (name, z) in cases {
        let t = common::tempdir();
        let reference = zstd_reference(&z);
        assert!(
            !reference.is_empty() && reference.len() < data.len(),
            "{name}"
        );
        let plain = common::write(t.path(), "reference.pgn", &reference);
        let base = t.path().join("base");
        common::run_ok(&["-j", "2", "--no-html", common::s(&plain)], &base);
        let expected_games = common::counts(&base).0;
        let input = common::write(t.path(), &format!("{name}.pgn.zst"), &z);
        let (out, status, stderr) = same_at_every_thread_count(t.path(), &input);
        assert_eq!(status, Some(2), "{name}");
        let prefix = format!(
            "pgn-audit: {}: zstd stream is corrupt or truncated after {} bytes: ",
            common::s(&input),
            reference.len()
        );
        assert!(stderr.starts_with(&prefix), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        let s = common::summary(&out);
        assert_eq!(s["bytes"], reference.len() as u64, "{name}");
        assert_eq!(common::counts(&out).0, expected_games, "{name}");
    }
}

/// One zstd frame of `data` with the window that `zstd --long=31` writes:
/// 2 GiB (the content size unknown, so the window is not shrunk to it),
/// announced by a pzstd skippable frame when `pzstd_header`.
fn long_window_frame(data: &[u8], pzstd_header: bool) -> Vec<u8> {
    // Without long-distance matching, whose tables for this window would
    // take over 100 MiB of this test process (and so of the peak RSS
    // that a child spawned meanwhile reports, see support.rs).
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    enc.window_log(31).unwrap();
    enc.include_contentsize(false).unwrap();
    enc.write_all(data).unwrap();
    let frame = enc.finish().unwrap();
    // The window descriptor (RFC 8878, 3.1.1.1.2): no single-segment flag,
    // then exponent and mantissa.
    assert_eq!(frame[4] & 0x20, 0, "a window descriptor");
    let (exponent, mantissa) = (u64::from(frame[5] >> 3), u64::from(frame[5] & 7));
    let base = 1u64 << (10 + exponent);
    assert!(
        base + base / 8 * mantissa > 128 << 20,
        "the window needs > 128 MiB"
    );
    let mut out = Vec::new();
    if pzstd_header {
        out.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
        out.extend_from_slice(&4u32.to_le_bytes());
        out.extend_from_slice(&u32::try_from(frame.len()).unwrap().to_le_bytes());
    }
    out.extend_from_slice(&frame);
    out
}

/// Item 15: a frame with a window larger than the library's default limit
/// (`zstd --long=31`) is read with `--max-window 2048` (issue 23, item
/// 11), on the reader thread (-j1), by the stream
/// decoder (-j3, no frame size known) and on the pool (-j3, announced by
/// a pzstd header): the same reports as the plain text.
#[test]
fn zstd_long_31_frames_are_read() {
    let t = common::tempdir();
    let data = games(1);
    let plain = common::write(t.path(), "plain.pgn", &data);
    let base = t.path().join("base");
    common::run_ok(&["--no-html", common::s(&plain)], &base);
    let expected = rows_but_source(&base);
    for header in [false, true] {
        let z = common::write(
            t.path(),
            &format!("long{header}.pgn.zst"),
            &long_window_frame(&data, header),
        );
        for j in ["1", "3"] {
            let out = t.path().join(format!("out{header}{j}"));
            let o = common::run(
                &["-j", j, "--no-html", "--max-window", "2048", common::s(&z)],
                &out,
            );
            assert_eq!(
                o.status.code(),
                Some(0),
                "pzstd header {header}, -j{j}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(common::counts(&out).0, 438);
            assert_eq!(
                rows_but_source(&out),
                expected,
                "pzstd header {header}, -j{j}"
            );
        }
    }
}

/// The refusal of a zstd window above the default limit, after `bytes`.
fn window_refused(source: &str, bytes: u64) -> String {
    format!(
        "pgn-audit: {source}: zstd stream refused after {bytes} bytes: the zstd window is larger \
         than the limit of 128 MiB (--max-window 2048 reads it, with up to that much more memory)"
    )
}

/// Issue 23, item 11: a zstd frame that declares a 2 GiB window is refused
/// without `--max-window`, before its 250 MB fill any memory: the peak RSS
/// stays within the bound at -j1 and -j3 (streamed in), and the refusal is
/// the same at every thread count, also for a frame a pzstd header
/// announces (decoded on the pool at -j3).
#[test]
fn a_zstd_window_above_the_limit_is_refused_in_bounded_memory() {
    let t = common::tempdir();
    let sample = games(1);
    for j in ["1", "3"] {
        let out = t.path().join(format!("j{j}"));
        let sample = sample.clone();
        let ran = super::support::audit_stdin(&["--no-html", "-j", j, "-"], &out, move |w| {
            let mut enc = zstd::stream::Encoder::new(w, 1)?;
            enc.window_log(31)?;
            enc.include_contentsize(false)?;
            for _ in 0..250 {
                enc.write_all(&sample)?;
            }
            enc.finish().map(|_| ())
        });
        let lines: Vec<&str> = ran
            .stderr
            .lines()
            .filter(|l| l.starts_with("pgn-audit:"))
            .collect();
        assert_eq!(lines, [window_refused("-", 0)], "-j{j}");
        assert_eq!(ran.status, Some(2), "-j{j}");
        assert_eq!(common::counts(&out).0, 0, "-j{j}");
        ran.assert_peak_at_most(super::support::PEAK_MIB);
    }
    let z = common::write(t.path(), "long.pgn.zst", &long_window_frame(&sample, true));
    let (_, status, stderr) = same_at_every_thread_count(t.path(), &z);
    assert_eq!(status, Some(2));
    assert_eq!(stderr, window_refused(common::s(&z), 0));
}

/// An xz writer that declares a dictionary of `dict_byte` (the LZMA2
/// property byte: `(2 | (b & 1)) << (b / 2 + 11)` bytes) in its first block
/// header, whatever the encoder used: a stream encoded with a small
/// dictionary decodes with a larger one, so this is what `xz -9e` (64 MiB,
/// byte 28) or `xz --lzma2=dict=1536MiB` (byte 37) writes, without the
/// encoder's gigabytes (xz-file-format 3.1.5, 5.3.1).
struct XzDictionary<W: Write> {
    out: W,
    dict_byte: u8,
    /// The stream's first bytes, until the block header is whole.
    head: Option<Vec<u8>>,
}

impl<W: Write> XzDictionary<W> {
    fn new(out: W, dict_byte: u8) -> XzDictionary<W> {
        XzDictionary {
            out,
            dict_byte,
            head: Some(Vec::new()),
        }
    }
}

impl<W: Write> Write for XzDictionary<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Some(head) = &mut self.head else {
            return self.out.write(buf);
        };
        head.extend_from_slice(buf);
        // The 12-byte stream header, then the block header: its size byte,
        // flags (no sizes when streamed), one filter: LZMA2 (0x21), one
        // property byte, padding, CRC-32.
        if head.len() > 12 && head.len() >= 12 + (usize::from(head[12]) + 1) * 4 {
            let size = (usize::from(head[12]) + 1) * 4;
            let header = &mut head[12..12 + size];
            assert_eq!(header[1] & 0xc0, 0, "no sizes in the block header");
            assert_eq!(&header[2..4], [0x21, 1], "one LZMA2 filter");
            header[4] = self.dict_byte;
            let mut crc = flate2::Crc::new();
            crc.update(&header[..size - 4]);
            header[size - 4..].copy_from_slice(&crc.sum().to_le_bytes());
            self.out.write_all(head)?;
            self.head = None;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// `copies` of the sample through an xz encoder (preset 0) into `w`,
/// declaring the dictionary of `dict_byte`.
fn xz_declaring(w: impl Write, dict_byte: u8, copies: usize) -> std::io::Result<()> {
    let sample = games(1);
    let mut enc = liblzma::write::XzEncoder::new(XzDictionary::new(w, dict_byte), 0);
    for _ in 0..copies {
        enc.write_all(&sample)?;
    }
    enc.finish()?.flush()
}

/// The refusal of an xz dictionary above the default limit.
fn dictionary_refused(source: &str) -> String {
    format!(
        "pgn-audit: {source}: xz stream refused after 0 bytes: the xz dictionary is larger \
         than the limit of 128 MiB (--max-window 2048 reads it, with up to that much more memory)"
    )
}

/// Issue 23, item 11, for xz: a stream that declares a 1536 MiB dictionary
/// (`xz --lzma2=dict=1536MiB`) is refused in one line before it fills any
/// memory (250 MB streamed in, peak RSS within the bound at -j1 and -j3;
/// the same refusal at every thread count) and read with `--max-window
/// 2048`; one that declares 64 MiB (`xz -9e`) is read, and its dictionary,
/// filled by 72 MB of text, is all the memory it adds: the peak RSS is
/// within the bound plus 64 MiB.
#[test]
fn an_xz_dictionary_above_the_limit_is_refused_in_bounded_memory() {
    let t = common::tempdir();
    for j in ["1", "3"] {
        let out = t.path().join(format!("stdin-j{j}"));
        let ran = super::support::audit_stdin(&["--no-html", "-j", j, "-"], &out, |w| {
            xz_declaring(w, 37, 250)
        });
        let lines: Vec<&str> = ran
            .stderr
            .lines()
            .filter(|l| l.starts_with("pgn-audit:"))
            .collect();
        assert_eq!(lines, [dictionary_refused("-")], "-j{j}");
        assert_eq!(ran.status, Some(2), "-j{j}");
        assert_eq!(common::counts(&out).0, 0, "-j{j}");
        ran.assert_peak_at_most(super::support::PEAK_MIB);
    }
    let mut huge = Vec::new();
    xz_declaring(&mut huge, 37, 1).unwrap();
    let z = common::write(t.path(), "huge-dictionary.pgn.xz", &huge);
    let (_, status, stderr) = same_at_every_thread_count(t.path(), &z);
    assert_eq!(status, Some(2));
    assert_eq!(stderr, dictionary_refused(common::s(&z)));
    let out = t.path().join("raised");
    common::run_ok(&["--no-html", "--max-window", "2048", common::s(&z)], &out);
    assert_eq!(common::counts(&out).0, 438);

    let out = t.path().join("nine-e");
    let ran = super::support::audit_stdin(&["--no-html", "-j", "2", "-"], &out, |w| {
        xz_declaring(w, 28, 72)
    });
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    assert_eq!(common::counts(&out).0, 72 * 438);
    assert!(
        ran.peak_mib() >= 64,
        "peak {} MiB: the 64 MiB dictionary was not filled",
        ran.peak_mib()
    );
    ran.assert_peak_at_most(super::support::PEAK_MIB + 64);
}

/// What a gzip decoder gives before it fails.
fn gunzip_prefix(z: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let failed = std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(z), &mut out);
    assert!(failed.is_err(), "the gzip stream is damaged");
    out
}

/// Item 14: a gzip stream that fails after the last game's result and line
/// end (garbage after the member, a missing trailer) leaves that game whole:
/// not "breaks off"; one that fails inside a game marks it. The offset in
/// the message on standard error and in errors.csv is the same: the bytes
/// decoded before the fault.
#[test]
fn gzip_failing_after_the_last_game_leaves_it_whole() {
    let data = games(1);
    let z = gzip(&data);
    let mut garbage = z.clone();
    garbage.extend_from_slice(b"this is no gzip member\n");
    let no_trailer = z[..z.len() - 8].to_vec();
    let cut = z[..z.len() / 2].to_vec();
    // A last game without a result, then blank lines: it may go on.
    let mut open_end = gzip(&[&data[..], b"\n[Event \"x\"]\n\n1. e4 e5\n\n\n"].concat());
    open_end.extend_from_slice(b"garbage");
    for (name, damaged, whole) in [
        ("garbage", garbage, true),
        ("no-trailer", no_trailer, true),
        ("cut", cut, false),
        ("open-end", open_end, false),
    ] {
        let t = common::tempdir();
        let decoded = gunzip_prefix(&damaged);
        assert_eq!(
            decoded.starts_with(&data),
            whole || name == "open-end",
            "{name}"
        );
        let input = common::write(t.path(), &format!("{name}.pgn.gz"), &damaged);
        let (out, status, stderr) = same_at_every_thread_count(t.path(), &input);
        assert_eq!(status, Some(2), "{name}");
        let message = format!(
            "gzip stream is corrupt or truncated after {} bytes: ",
            decoded.len()
        );
        assert!(
            stderr.starts_with(&format!("pgn-audit: {}: {message}", common::s(&input))),
            "{name}: {stderr}"
        );
        assert_eq!(common::summary(&out)["bytes"], decoded.len() as u64);
        let cut_rows: Vec<_> = common::records(&out, "errors.csv")
            .into_iter()
            .filter(|r| r["detail"].starts_with("the input breaks off in this game"))
            .collect();
        if whole {
            assert_eq!(common::counts(&out).0, 438, "{name}");
            assert!(cut_rows.is_empty(), "{name}: {cut_rows:?}");
        } else {
            let plain = common::write(t.path(), "decoded.pgn", &decoded);
            let base = t.path().join("base");
            common::run_ok(&["--no-html", common::s(&plain)], &base);
            let games = common::counts(&base).0;
            assert_eq!(common::counts(&out).0, games, "{name}");
            assert_eq!(cut_rows.len(), 1, "{name}");
            assert_eq!(cut_rows[0]["game"], games.to_string());
            assert!(
                cut_rows[0]["detail"].contains(&message),
                "{name}: {}",
                cut_rows[0]["detail"]
            );
        }
    }
}

/// Issue 25, point 1: a gzip stream whose last game ends `… Nc6 ½-½` and
/// whose trailer is cut leaves that complete game whole and clean, as the
/// same game ending `1/2-1/2` or `1/2` does: the splitter, which reads
/// every result token, marks where a game ended by its result.
#[test]
fn gzip_cut_after_a_last_game_ending_in_a_half_half_leaves_it_clean() {
    for result in ["½-½", "1/2-1/2", "1/2"] {
        let t = common::tempdir();
        let data = format!("[Event \"x\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 {result}\n");
        let z = gzip(data.as_bytes());
        let no_trailer = &z[..z.len() - 8];
        assert_eq!(gunzip_prefix(no_trailer), data.as_bytes(), "{result}");
        let input = common::write(t.path(), "half.pgn.gz", no_trailer);
        let (out, status, stderr) = same_at_every_thread_count(t.path(), &input);
        assert_eq!(status, Some(2), "{result}: {stderr}");
        assert_eq!(common::counts(&out), (1, 1, 0, 0), "{result}");
        assert_eq!(
            common::rows(&out, "errors.csv"),
            Vec::<Vec<String>>::new(),
            "{result}"
        );
    }
}

/// Item 14, at the batch limit: a gzip stream that breaks off after many
/// thousands of short games, none with a result (each ends at the next
/// one's tag line), read in one go, so that the games after the fault fill
/// several batches (a batch holds at most 4096 games). Only the source's
/// very last game breaks off, not the last game of every batch handed out
/// after the fault.
#[test]
fn only_the_last_game_of_the_source_breaks_off() {
    let t = common::tempdir();
    let data: Vec<u8> = (0..20_000)
        .flat_map(|_| *b"[Event \"x\"]\n1. e4\n")
        .collect();
    let z = gzip(&data);
    let cut = &z[..z.len() - 12];
    let decoded = gunzip_prefix(cut);
    let input = common::write(t.path(), "short.pgn.gz", cut);
    let (out, status, _) = same_at_every_thread_count(t.path(), &input);
    assert_eq!(status, Some(2));
    let games = String::from_utf8(decoded)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('['))
        .count() as u64;
    assert_eq!(common::counts(&out), (games, games - 1, 0, 1));
    let rows = common::records(&out, "errors.csv");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["game"], games.to_string());
    assert!(rows[0]["detail"].starts_with("the input breaks off in this game"));
}

/// The first `n` games of the sample.
pub(super) fn first_games(n: usize) -> String {
    common::sample_games()[..n].join("\n\n") + "\n"
}

/// Item 13: UTF-16 and UTF-32 text, archives and executables that are not
/// read are refused, each with one line naming its format; the run goes on
/// with the next source, lists the refused ones in `sources`, and exits 2.
#[test]
fn foreign_formats_are_refused_and_the_run_goes_on() {
    let t = common::tempdir();
    let text = first_games(20);
    let utf16 = |big: bool, bom: bool| -> Vec<u8> {
        let mut v = Vec::new();
        if bom {
            v.extend_from_slice(if big { b"\xfe\xff" } else { b"\xff\xfe" });
        }
        for u in text.encode_utf16() {
            v.extend_from_slice(&if big {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
        v
    };
    let mut utf32 = b"\xff\xfe\0\0".to_vec();
    for c in text.chars() {
        utf32.extend_from_slice(&(c as u32).to_le_bytes());
    }
    let files: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "le.pgn",
            utf16(false, true),
            "refused: UTF-16LE text, not UTF-8 (convert it to UTF-8)",
        ),
        (
            "be.pgn",
            utf16(true, true),
            "refused: UTF-16BE text, not UTF-8 (convert it to UTF-8)",
        ),
        (
            "le-nobom.pgn",
            utf16(false, false),
            "refused: UTF-16LE text, not UTF-8 (convert it to UTF-8)",
        ),
        (
            "u32.pgn",
            utf32,
            "refused: UTF-32LE text, not UTF-8 (convert it to UTF-8)",
        ),
        (
            "a.7z",
            b"7z\xbc\xaf\x27\x1c\0\x04rest".to_vec(),
            "refused: a 7z archive, not PGN text",
        ),
        (
            "a.rar",
            b"Rar!\x1a\x07\x01\0rest".to_vec(),
            "refused: a RAR archive, not PGN text",
        ),
        (
            "elf.pgn",
            b"\x7fELF\x02\x01\x01\0".to_vec(),
            "refused: an ELF executable, not PGN text",
        ),
        (
            "exe.pgn",
            b"MZ\x90\0\x03\0\0\0".to_vec(),
            "refused: a Windows executable, not PGN text",
        ),
        // (v3, issue 28) A browser's "save as" of a game's page, and XML.
        (
            "game.pgn",
            b"\n  <!DOCTYPE html>\n<html lang=\"en\"><head><title>Rated blitz game</title></head>\
              <body><pre>[Event \"Rated blitz game\"]\n\n1. e4 e5 *</pre></body></html>\n"
                .to_vec(),
            "refused: an HTML page, not PGN text",
        ),
        (
            "feed.pgn",
            b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<games><game>1. e4 *</game></games>\n"
                .to_vec(),
            "refused: an HTML page, not PGN text",
        ),
    ];
    let mut args = vec!["--no-html".to_owned()];
    let mut expected = Vec::new();
    for (name, bytes, cause) in &files {
        let p = common::write(t.path(), name, bytes);
        expected.push(format!("pgn-audit: {}: {cause}", common::s(&p)));
        args.push(common::s(&p).to_owned());
    }
    let good = common::write(t.path(), "good.pgn", text.as_bytes());
    args.push(common::s(&good).to_owned());
    let out = t.path().join("out");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = common::run(&args, &out);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("pgn-audit:"))
        .collect();
    assert_eq!(lines, expected);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(common::counts(&out).0, 20);
    let s = common::summary(&out);
    assert_eq!(s["sources"].as_array().unwrap().len(), files.len() + 1);
    assert_eq!(s["bytes"], text.len() as u64);
}

/// Issue 15: an xz file of two streams (as `xz` concatenates them), cut in
/// the middle of a game, gives the same rows as the plain text, at any
/// thread count, and is taken from a directory.
#[test]
fn xz_multi_stream_reads_as_the_plain_text() {
    let t = common::tempdir();
    let data = games(1);
    let plain = common::write(t.path(), "plain.pgn", &data);
    let base = t.path().join("base");
    common::run_ok(&["--no-html", common::s(&plain)], &base);
    let half = data.len() / 2;
    let z = [xz(&data[..half]), xz(&data[half..])].concat();
    let dir = t.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    let input = common::write(&dir, "games.pgn.xz", &z);
    let (out, status, stderr) = same_at_every_thread_count(t.path(), &input);
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(common::counts(&out).0, 438);
    assert_eq!(rows_but_source(&out), rows_but_source(&base));
    let rows = common::records(&out, "claims.csv");
    assert_eq!(rows.len(), 9);
    assert!(rows.iter().all(|r| r["source"] == common::s(&input)));
    let from_dir = t.path().join("dir");
    common::run_ok(&["--no-html", common::s(&dir)], &from_dir);
    assert_eq!(common::summary(&from_dir)["sources"][0], common::s(&input));
    assert_eq!(common::counts(&from_dir).0, 438);
}

/// The rows of every CSV report, with `from` in the `source` column
/// replaced by `to`.
fn rows_renamed(out: &Path, from: &str, to: &str) -> Vec<(String, Vec<Vec<String>>)> {
    let mut names: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let mut rows = common::rows(out, &n);
            for r in &mut rows {
                r[0] = r[0].replacen(from, to, 1);
            }
            (n, rows)
        })
        .collect()
}

/// Issue 15: a zip archive gives its PGN members in archive order (one in
/// a folder, one gzip-compressed), each as the source `ARCHIVE.zip/MEMBER`
/// with the rows of the plain file, at any thread count; other members are
/// skipped, a zip without PGN gets a warning, and directories take zips.
#[test]
fn zip_members_read_as_their_plain_files() {
    let t = common::tempdir();
    let games = common::sample_games();
    let a = games[..200].join("\n\n") + "\n";
    let b = games[200..400].join("\n\n") + "\n";
    let c = games[400..].join("\n\n") + "\n";
    let plain = t.path().join("plain");
    std::fs::create_dir_all(plain.join("sub")).unwrap();
    let pa = common::write(&plain, "a.pgn", a.as_bytes());
    let pb = common::write(&plain, "sub/b.pgn", b.as_bytes());
    let pc = common::write(&plain, "c.pgn.gz", &gzip(c.as_bytes()));
    let base = t.path().join("base");
    common::run_ok(
        &["--no-html", common::s(&pa), common::s(&pb), common::s(&pc)],
        &base,
    );
    let dir = t.path().join("in");
    std::fs::create_dir(&dir).unwrap();
    let archive = common::write(
        &dir,
        "games.zip",
        &zip_of(&[
            ("a.pgn", a.as_bytes()),
            ("readme.txt", b"not a game"),
            ("sub/b.pgn", b.as_bytes()),
            ("c.pgn.gz", &gzip(c.as_bytes())),
        ]),
    );
    let zipped = format!("{}/", common::s(&archive));
    let expected = rows_renamed(&base, &format!("{}/", common::s(&plain)), &zipped);
    let (out, status, stderr) = same_at_every_thread_count(t.path(), &archive);
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(common::counts(&out).0, 438);
    assert_eq!(rows_renamed(&out, "", ""), expected);
    let sources = common::summary(&out)["sources"].clone();
    assert_eq!(
        sources,
        serde_json::json!(["a.pgn", "sub/b.pgn", "c.pgn.gz"].map(|m| format!("{zipped}{m}")))
    );
    // The same archive found in a directory walk, beside a zip without PGN.
    common::write(&dir, "notes.zip", &zip_of(&[("notes.txt", b"x")]));
    let walked = t.path().join("walked");
    let o = common::run(&["--no-html", common::s(&dir)], &walked);
    assert_eq!(o.status.code(), Some(0));
    let warnings: Vec<String> = String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("pgn-audit:"))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        warnings,
        [format!(
            "pgn-audit: {}/notes.zip: warning: no PGN member in this zip archive",
            common::s(&dir)
        )]
    );
    assert_eq!(common::summary(&walked)["sources"], sources);
    assert_eq!(rows_renamed(&walked, "", ""), expected);
}

/// Issue 15: a zip archive that cannot be read, or one on standard input,
/// is refused with one line; the run goes on and exits 2.
#[test]
fn unreadable_zips_are_refused() {
    let t = common::tempdir();
    let bad = common::write(t.path(), "bad.zip", b"PK\x03\x04 no archive follows");
    let good = common::write(t.path(), "good.pgn", first_games(3).as_bytes());
    let out = t.path().join("out");
    let zipped = zip_of(&[("a.pgn", first_games(2).as_bytes())]);
    let ran = super::support::audit_stdin(
        &["--no-html", common::s(&bad), "-", common::s(&good)],
        &out,
        move |w| w.write_all(&zipped),
    );
    let lines: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|l| l.starts_with("pgn-audit:"))
        .collect();
    assert_eq!(lines.len(), 2, "{}", ran.stderr);
    assert!(
        lines[0].starts_with(&format!(
            "pgn-audit: {}: refused: a zip archive that cannot be read: ",
            common::s(&bad)
        )),
        "{}",
        lines[0]
    );
    assert_eq!(
        lines[1],
        "pgn-audit: -: refused: a zip archive on standard input (give its path)"
    );
    assert_eq!(ran.status, Some(2));
    assert_eq!(common::counts(&out).0, 3);
}
