//! The `line` identity column (contract v2, issue 15): the 1-based line of
//! a game's first byte, where a line ends at `\n`, `\r\n` or a lone `\r`.
//! Every case is checked against a count made here, byte by byte, of the
//! line ends before each game's `offset`, at -j1, -j2 and -j8 (reports
//! byte-identical).

use crate::common;

use std::path::Path;

use common::*;

/// Line ends in `bytes`, counted the contract's way: every `\r`, and every
/// `\n` that does not follow a `\r`.
fn line_ends(bytes: &[u8]) -> u64 {
    let mut ends = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\r' || (b == b'\n' && (i == 0 || bytes[i - 1] != b'\r')) {
            ends += 1;
        }
    }
    ends
}

/// The (game, offset, line) of every errors.csv row.
fn identities(out: &Path) -> Vec<(u64, u64, u64)> {
    pick(out, "errors.csv", &["game", "offset", "line"])
        .iter()
        .map(|r| {
            (
                r[0].parse().unwrap(),
                r[1].parse().unwrap(),
                r[2].parse().unwrap(),
            )
        })
        .collect()
}

/// Audits `text`, whose `games` games each have one errors.csv row (an
/// illegal `1. e5`), at every thread count; asserts that each game's line
/// is 1 + the line ends before its offset, where its first tag or move
/// stands; returns the lines.
fn lines_of(text: &str, games: u64) -> Vec<u64> {
    let (_t, out) = audit_at_every_thread_count(text, &[]);
    let ids = identities(&out);
    assert_eq!(ids.len() as u64, games);
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    for (k, (game, offset, line)) in ids.into_iter().enumerate() {
        assert_eq!(game, k as u64 + 1);
        let at = usize::try_from(offset).unwrap();
        assert!(
            matches!(bytes[at], b'[' | b'1' | b'{'),
            "game {game} at {at}"
        );
        assert_eq!(line, 1 + line_ends(&bytes[..at]), "game {game}");
        lines.push(line);
    }
    lines
}

/// A game with an illegal first move, its lines ended by `nl`; with its
/// tags when `tagged`.
fn game(i: usize, tagged: bool, nl: &str) -> String {
    if tagged {
        format!("[Event \"e{i}\"]{nl}[Site \"?\"]{nl}{nl}1. e5 *{nl}")
    } else {
        format!("1. e5 *{nl}")
    }
}

/// `games` games, tagged and untagged by turns, each followed by
/// `blanks(i)` blank lines.
fn file(games: usize, nl: &str, blanks: impl Fn(usize) -> usize) -> String {
    (0..games)
        .map(|i| game(i, i % 2 == 0, nl) + &nl.repeat(blanks(i)))
        .collect()
}

#[test]
fn lf_games_after_one_blank_line() {
    let text: String = (0..3).map(|i| game(i, true, "\n") + "\n").collect();
    assert_eq!(lines_of(&text, 3), [1, 6, 11]);
}

#[test]
fn every_line_end_with_one_and_several_blank_lines() {
    for nl in ["\n", "\r\n", "\r"] {
        assert_eq!(
            lines_of(&file(6, nl, |_| 1), 6),
            [1, 6, 8, 13, 15, 20],
            "{nl:?}"
        );
        let several = file(6, nl, |i| 1 + i % 4);
        assert_eq!(lines_of(&several, 6), [1, 6, 9, 16, 21, 26], "{nl:?}");
    }
}

#[test]
fn cr_cr_lf_ends_two_lines() {
    // One game boundary for the splitter, two line ends for an editor.
    let text = file(3, "\r\r\n", |_| 1);
    assert_eq!(lines_of(&text, 3), [1, 11, 15]);
}

#[test]
fn mixed_line_ends_in_one_file() {
    let ends = ["\n", "\r\n", "\r", "\r\r\n"];
    let text: String = (0..12)
        .map(|i| game(i, i % 3 != 1, ends[i % 4]) + &ends[(i + 1) % 4].repeat(1 + i % 3))
        .collect();
    lines_of(&text, 12);
}

#[test]
fn a_byte_order_mark_changes_no_line() {
    // Files concatenated with `cat`: a BOM before every game.
    let text: String = (0..3)
        .map(|i| format!("\u{feff}{}\n", game(i, true, "\n")))
        .collect();
    assert_eq!(lines_of(&text, 3), [1, 6, 11]);
    let crlf: String = (0..3)
        .map(|i| format!("\u{feff}{}\r\n", game(i, i != 1, "\r\n")))
        .collect();
    assert_eq!(lines_of(&crlf, 3), [1, 6, 8]);
}

#[test]
fn escape_lines_count_as_lines() {
    for nl in ["\n", "\r\n", "\r"] {
        let text = [
            format!("% exported{nl}% twice{nl}"),
            game(0, true, nl),
            format!("{nl}% between{nl}{nl}"),
            game(1, false, nl),
            format!("{nl}%{nl}"),
            game(2, true, nl),
        ]
        .concat();
        assert_eq!(lines_of(&text, 3), [3, 10, 13], "{nl:?}");
    }
}

#[test]
fn lines_carry_across_batches() {
    // More games than a batch holds (4096) and more bytes than it reads
    // (1 MiB), with every kind of line end, so that batches and reads end
    // anywhere, between a `\r` and its `\n` too.
    let ends = ["\n", "\r\n", "\r", "\r\r\n"];
    let pad = "x".repeat(200);
    let text: String = (0..5000)
        .map(|i| {
            let nl = ends[i % 4];
            let body = format!("{{ {pad} }}{nl}1. e5 *{nl}");
            let head = if i % 3 == 0 {
                format!("[Event \"e{i}\"]{nl}{nl}")
            } else {
                String::new()
            };
            head + &body + &nl.repeat(1 + i % 3)
        })
        .collect();
    assert!(text.len() > 1 << 20);
    let lines = lines_of(&text, 5000);
    assert!(lines[4999] > 5000 * 4, "{}", lines[4999]);
}

#[test]
fn a_game_past_the_cap_keeps_the_next_games_line() {
    // The skipped bytes of a game longer than 2 MiB count their lines (4
    // MiB: a game of less than the cap and one read more may be kept whole).
    let mut long = String::from("[Event \"long\"]\r\n\r\n");
    let ends = ["\r\n", "\r", "\n", "\r\r\n"];
    let mut k = 0;
    while long.len() < 4 << 20 {
        long.push_str("1. Nf3 Nf6 2. Ng1 Ng8");
        long.push_str(ends[k % 4]);
        k += 1;
    }
    long.push_str("*\r\n");
    let text = format!(
        "{long}\r\n\r\n{}\n{}",
        game(1, true, "\r\n"),
        game(2, false, "\r")
    );
    let (_t, out) = audit_at_every_thread_count(&text, &[]);
    let ids = identities(&out);
    let second = long.len() + 4;
    let third = second + game(1, true, "\r\n").len() + 1;
    let expected = |offset: usize| 1 + line_ends(&text.as_bytes()[..offset]);
    assert_eq!(
        ids,
        [
            (1, 0, 1),
            (2, second as u64, expected(second)),
            (3, third as u64, expected(third))
        ]
    );
    assert!(expected(second) > k as u64);
    let kinds = pick(&out, "errors.csv", &["kind"]);
    assert_eq!(
        kinds,
        strings(&[&["parse_error"], &["illegal_move"], &["illegal_move"]])
    );
}

#[test]
fn sample_lines_count_its_newlines() {
    // The sample (LF), every game given a bad FEN so that it has a row.
    let sample = std::fs::read_to_string(SAMPLE).unwrap();
    assert!(!sample.contains('\r'));
    let text = sample.replace("\n[Site ", "\n[FEN \"not a fen\"]\n[Site ");
    let (_t, out) = audit_at_every_thread_count(&text, &[]);
    let ids = identities(&out);
    assert_eq!(ids.len(), 438);
    for (k, (game, offset, line)) in ids.into_iter().enumerate() {
        assert_eq!(game, k as u64 + 1);
        let before = &text.as_bytes()[..usize::try_from(offset).unwrap()];
        let newlines = before.iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(line, 1 + newlines, "game {game}");
    }
}
