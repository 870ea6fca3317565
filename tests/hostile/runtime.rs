//! Issue 12, items 2 (report.html), 3, 9 and 16: a run never fails
//! silently. report.html's memory stays bounded whatever the tags, a closed
//! standard error costs no report, a huge `-j` is bounded and a signal is
//! honoured from the start.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use super::common::{self, SAMPLE, s};
use super::support;

/// A castle after the king went out and came back: one castling.csv row
/// (`king_moved`), the game flagged.
const CASTLE: &[u8] = b"1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O *\n\n";
/// An illegal move: one errors.csv row, the game incomplete.
const ILLEGAL: &[u8] = b"1. e4 e5 2. Qh6 *\n\n";

/// Item 2: 120 games, each with a 2 MiB White tag and a row in the reports
/// (half castling.csv, half errors.csv). report.html keeps 50 examples per
/// group, cut as the page shows them, so neither the run's memory nor the
/// page grows with the tags.
#[test]
fn html_report_keeps_huge_tags_cut() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let ran = support::audit_stdin(&["-", "-j", "2"], &out, |w| {
        let name = vec![b'W'; 2 << 20];
        for i in 0..120 {
            w.write_all(format!("[Event \"huge {i}\"]\n[White \"").as_bytes())?;
            w.write_all(&name)?;
            w.write_all(b"\"]\n\n")?;
            w.write_all(if i % 2 == 0 { CASTLE } else { ILLEGAL })?;
        }
        Ok(())
    });
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    assert_eq!(common::counts(&out), (120, 0, 60, 60));
    assert_eq!(common::records(&out, "castling.csv").len(), 60);
    ran.assert_peak_at_most(support::PEAK_MIB);
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.len() < 400_000, "report.html: {} bytes", page.len());
    // 50 castles and 50 errors shown, each name cut at 300 characters.
    let cut = format!("{}…", "W".repeat(300));
    assert_eq!(page.matches(&format!("<h4>{cut} – ?")).count(), 50);
    assert_eq!(page.matches(&format!("{cut} – <br>")).count(), 50);
    assert!(page.contains("… and 10 more in castling.csv."));
}

/// A gzip stream cut in the middle of the sample: the sample's first
/// games, a cut game and a read error.
fn cut_gzip(dir: &Path) -> String {
    let sample = std::fs::read(SAMPLE).unwrap();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&sample).unwrap();
    let gz = e.finish().unwrap();
    s(&common::write(dir, "cut.pgn.gz", &gz[..gz.len() / 2])).to_owned()
}

/// The report files of a folder, summary.json without its timing.
fn report_files(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let mut bytes = std::fs::read(e.path()).unwrap();
            if name == "summary.json" {
                let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                v.as_object_mut().unwrap().remove("seconds");
                bytes = v.to_string().into_bytes();
            }
            (name, bytes)
        })
        .filter(|(name, _)| name != "report.html")
        .collect();
    files.sort();
    files
}

/// Item 3: standard error is a pipe whose reader is gone before the first
/// message. The run still ends with the input error's status 2, not a
/// panic, and writes the same complete reports as with standard error
/// read.
#[test]
fn closed_standard_error_neither_panics_nor_loses_reports() {
    let t = common::tempdir();
    let gz = cut_gzip(t.path());
    let seen = t.path().join("seen");
    let o = common::run(&[&gz, SAMPLE, "-j", "2"], &seen);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "pgn-audit: {gz}: gzip stream is corrupt or truncated after "
        )),
        "{stderr}"
    );
    let (games, ..) = common::counts(&seen);
    assert!(games > 438 + 1, "{games} games");
    assert_eq!(common::summary(&seen)["errors"]["parse_error"], 1);

    let out = t.path().join("r");
    let mut child = common::bin()
        .args([&gz, SAMPLE, "-j", "2", "-o", s(&out)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(2));
    assert_eq!(common::counts(&out), common::counts(&seen));
    assert_eq!(report_files(&out), report_files(&seen));
}
