//! Issue 18 (Tags and Moves) under load: quirks.csv rows stream out game by
//! game in bounded memory, their number exactly `notation_quirks`, the same
//! for any number of threads; a tag line of a megabyte that cannot be read
//! costs one short row, not the game.

use std::io::Write;

use super::common::{counts, records, summary, tempdir};
use super::support;

/// A game in coordinate notation, as an engine log writes it: four quirks.
const UCI_GAME: &[u8] = b"[Event \"engine log\"]\n\n1. e2e4 e7e5 2. g1f3 b8c6 *\n\n";

#[test]
fn quirk_rows_stream_in_bounded_memory() {
    const GAMES: u64 = 60_000;
    let t = tempdir();
    let mut reports = Vec::new();
    for threads in ["1", "2"] {
        let out = t.path().join(format!("j{threads}"));
        let ran = support::audit_stdin(&["-", "-j", threads, "--quirks", "--no-html"], &out, |w| {
            let mut w = std::io::BufWriter::new(w);
            (0..GAMES).try_for_each(|_| w.write_all(UCI_GAME))?;
            w.flush()
        });
        assert_eq!(ran.status, Some(0), "{}", ran.stderr);
        ran.assert_peak_at_most(support::PEAK_MIB);
        assert_eq!(counts(&out), (GAMES, GAMES, 0, 0));
        assert_eq!(summary(&out)["notation_quirks"], 4 * GAMES);
        reports.push(std::fs::read(out.join("quirks.csv")).unwrap());
    }
    assert!(reports[0] == reports[1], "-j1 and -j2 differ");
    let text = String::from_utf8(reports.pop().unwrap()).unwrap();
    assert_eq!(text.lines().count() as u64, 1 + 4 * GAMES);
    assert!(
        text.lines()
            .last()
            .unwrap()
            .ends_with(",4,b8c6,coordinate_notation,Nc6"),
        "{}",
        text.lines().last().unwrap()
    );
}

#[test]
fn a_megabyte_tag_line_that_cannot_be_read_is_one_short_row() {
    let t = tempdir();
    let out = t.path().join("r");
    let ran = support::audit_stdin(&["-", "-j", "2", "--quirks", "--no-html"], &out, |w| {
        w.write_all(b"[Event \"x\"]\n[Annotator \"")?;
        support::write_repeated(w, b"annotated ", 1 << 20)?;
        w.write_all(b"\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n")
    });
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    ran.assert_peak_at_most(support::PEAK_MIB);
    assert_eq!(counts(&out), (1, 1, 0, 0));
    let rows = records(&out, "quirks.csv");
    assert_eq!(rows.len(), 1);
    let expected = format!("[Annotator \"{}", "annotated ".repeat(7));
    assert_eq!(
        (rows[0]["ply"].as_str(), rows[0]["san"].as_str()),
        ("0", &expected[..80])
    );
    assert_eq!(rows[0]["quirk"], "unreadable_tag_line");
    assert_eq!(rows[0]["result"], "1-0");
}
