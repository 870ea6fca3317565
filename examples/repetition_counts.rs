//! Prints, for every game of a PGN file, how often the position after each
//! ply (from ply 0) has stood under FIDE identity, as the audit counts it:
//! one line per game, counts separated by spaces. Used by
//! `tests/crosscheck/repetition_check.py` to compare with python-chess.
//!
//!     cargo run --release --example repetition_counts -- games.pgn

use std::io::{BufWriter, Write};

use pgn_audit::{audit::repetition_counts, pgn::Game};

/// Cuts a PGN file into games: a game starts at a tag line that follows
/// movetext.
fn games(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let (mut start, mut seen_movetext, mut at) = (0, false, 0);
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let trimmed = line.trim_ascii();
        if trimmed.starts_with(b"[") && seen_movetext {
            out.push(&bytes[start..at]);
            start = at;
            seen_movetext = false;
        } else if !trimmed.is_empty() && !trimmed.starts_with(b"[") {
            seen_movetext = true;
        }
        at += line.len();
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}

fn main() -> std::io::Result<()> {
    let path = std::env::args()
        .nth(1)
        .expect("usage: repetition_counts FILE.pgn");
    let bytes = std::fs::read(path)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    for g in games(&bytes) {
        let counts = repetition_counts(&Game::parse(g));
        let line: Vec<String> = counts.iter().map(u32::to_string).collect();
        writeln!(out, "{}", line.join(" "))?;
    }
    out.flush()
}
