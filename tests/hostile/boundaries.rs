//! Contract v2 game boundaries under volume: a block of comments between
//! games is no game and is not kept, however long; a game whose movetext
//! has blank lines and no result runs to the next tag line, capped like any
//! other game.

use std::io::Write;

use crate::common::{self, counts, records, summary};
use crate::support::{PEAK_MIB, audit_stdin, write_repeated};

const NAMED: &str = "[Event \"named\"]\n\n1. e4 e5 2. Ke3 *\n\n";

/// (game, offset, event, kind) of every errors.csv row.
fn rows(out: &std::path::Path) -> Vec<(String, String, String, String)> {
    records(out, "errors.csv")
        .into_iter()
        .map(|r| {
            (
                r["game"].clone(),
                r["offset"].clone(),
                r["event"].clone(),
                r["kind"].clone(),
            )
        })
        .collect()
}

/// The bytes of as many whole copies of `chunk` as fit in `total`.
fn whole(chunk: &[u8], total: u64) -> u64 {
    total / chunk.len() as u64 * chunk.len() as u64
}

fn row(game: u64, offset: u64, event: &str, kind: &str) -> (String, String, String, String) {
    (
        game.to_string(),
        offset.to_string(),
        event.into(),
        kind.into(),
    )
}

#[test]
fn comment_blocks_between_games_are_no_game_and_not_kept() {
    let t = common::tempdir();
    let out = t.path().join("r");
    const SEMI: &[u8] = b"; a TCEC header line between games\n";
    const BRACE: &[u8] = b"{ a comment block }\n\n";
    let (semi, brace) = (whole(SEMI, 32 << 20), whole(BRACE, 32 << 20));
    let ran = audit_stdin(&["-", "-j", "2", "--no-html"], &out, move |w| {
        w.write_all(NAMED.as_bytes())?;
        write_repeated(w, SEMI, semi)?;
        write_repeated(w, BRACE, brace)?;
        w.write_all(NAMED.as_bytes())
    });
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    ran.assert_peak_at_most(PEAK_MIB);
    assert_eq!(counts(&out), (2, 0, 0, 2));
    let second = NAMED.len() as u64 + semi + brace;
    assert_eq!(
        rows(&out),
        vec![
            row(1, 0, "named", "illegal_move"),
            row(2, second, "named", "illegal_move")
        ]
    );
    assert_eq!(summary(&out)["bytes"], second + NAMED.len() as u64);
}

#[test]
fn a_game_without_result_runs_to_the_next_tag_line_capped() {
    let t = common::tempdir();
    let out = t.path().join("r");
    const LONG: &str = "[Event \"long\"]\n\n1. e4 e5\n\n";
    const NOTE: &[u8] = b"{ a note between moves }\n\n";
    let each = whole(NOTE, 32 << 20);
    let ran = audit_stdin(&["-", "-j", "2", "--no-html"], &out, move |w| {
        w.write_all(LONG.as_bytes())?;
        write_repeated(w, NOTE, each)?;
        w.write_all(NAMED.as_bytes())
    });
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    ran.assert_peak_at_most(PEAK_MIB);
    assert_eq!(counts(&out), (2, 0, 0, 2));
    let second = LONG.len() as u64 + each;
    assert_eq!(
        rows(&out),
        vec![
            row(1, 0, "long", "parse_error"),
            row(2, second, "named", "illegal_move")
        ]
    );
    assert_eq!(
        records(&out, "errors.csv")[0]["detail"],
        "the game is longer than 2 MiB; the rest of it, up to the next game, was skipped"
    );
}
