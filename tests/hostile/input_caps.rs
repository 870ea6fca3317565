//! Issue 12, items 1, 2, 5, 7, 11 and 13: reading PGN is bounded in memory
//! and linear in time whatever the bytes, and exact around damage: a game
//! keeps at most 2 MiB, bytes between games are not kept, a batch holds at
//! most a few thousand games; an unterminated comment, a BOM in mid-file and
//! `\r\r\n` line ends cost no other game.

use std::io::Write;
use std::path::Path;

use crate::common::{self, counts, records, summary};
use crate::support::{self, PEAK_MIB, audit_stdin, write_repeated};

const CAP_DETAIL: &str =
    "the game is longer than 2 MiB; the rest of it, up to the next game, was skipped";

/// A game with tags and an illegal third ply, so that its errors.csv row
/// shows its identity.
const NAMED: &str = "[Event \"named\"]\n[White \"w\"]\n\n1. e4 e5 2. Ke3 *\n";

/// errors.csv as (game, offset, event, ply, kind, detail).
fn errors(out: &Path) -> Vec<(String, String, String, String, String, String)> {
    records(out, "errors.csv")
        .into_iter()
        .map(|r| {
            (
                r["game"].clone(),
                r["offset"].clone(),
                r["event"].clone(),
                r["ply"].clone(),
                r["kind"].clone(),
                r["detail"].clone(),
            )
        })
        .collect()
}

/// The row of a [`NAMED`] game.
fn named_row(game: u64, offset: u64) -> (String, String, String, String, String, String) {
    (
        game.to_string(),
        offset.to_string(),
        "named".into(),
        "3".into(),
        "illegal_move".into(),
        errors_detail_of_named(),
    )
}

/// The detail of [`NAMED`]'s error, as a run on it alone gives it.
fn errors_detail_of_named() -> String {
    use std::sync::OnceLock;
    static DETAIL: OnceLock<String> = OnceLock::new();
    DETAIL
        .get_or_init(|| {
            let t = common::tempdir();
            let f = common::write(t.path(), "n.pgn", NAMED.as_bytes());
            let out = t.path().join("r");
            common::run_ok(&[common::s(&f), "--no-html"], &out);
            records(&out, "errors.csv")[0]["detail"].clone()
        })
        .clone()
}

/// Writes `copies` whole copies of `chunk`.
fn write_copies(w: &mut impl Write, chunk: &[u8], copies: usize) -> std::io::Result<()> {
    let per_block = ((1 << 20) / chunk.len()).max(1);
    let block = chunk.repeat(per_block);
    let mut left = copies;
    while left > 0 {
        let n = left.min(per_block);
        w.write_all(&block[..n * chunk.len()])?;
        left -= n;
    }
    Ok(())
}

fn stdin_run(
    out: &Path,
    feed: impl FnOnce(&mut std::process::ChildStdin) -> std::io::Result<()> + Send + 'static,
) -> support::Ran {
    let ran = audit_stdin(&["-", "-j", "2", "--no-html"], out, feed);
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    ran
}

/// Item 1: a 256 MiB line without a line end was kept whole and rescanned
/// on every read (5.1 GiB and 165 s for 2 GiB). Now the game keeps its first
/// 2 MiB, up to its last blank, and says so.
#[test]
fn a_line_without_end_is_capped_and_read_once() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let first = b"[Event \"a\"]\n\n1. e4 e5 *\n\n";
    let long = b"[Event \"long\"]\n\n1. e4 e5 ";
    let ran = stdin_run(&out, |w| {
        w.write_all(first)?;
        w.write_all(long)?;
        write_repeated(w, b"x", 256 << 20)
    });
    ran.assert_peak_at_most(PEAK_MIB);
    assert_eq!(counts(&out), (2, 1, 0, 1));
    let rows = records(&out, "errors.csv");
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(
        (
            &r["game"][..],
            &r["offset"][..],
            &r["event"][..],
            &r["ply"][..],
            &r["san"][..]
        ),
        ("2", &first.len().to_string()[..], "long", "3", "")
    );
    assert_eq!(
        (&r["kind"][..], &r["detail"][..]),
        ("parse_error", CAP_DETAIL)
    );
    let bytes = (first.len() + long.len()) as u64 + (256 << 20);
    assert_eq!(summary(&out)["bytes"], bytes);
}

/// Item 1: blank lines (`\n`, lone `\r`, `\r\r\n`), a line of spaces, `%`
/// escape lines and NULs between games (770 MiB for 500 MiB of them) are
/// not kept; the games around them are read exactly. (NULs up to 1 MiB in
/// a row, less one byte: a run of 1 MiB is a read error, below.)
#[test]
fn bytes_between_games_are_not_kept() {
    let t = common::tempdir();
    let out = t.path().join("r");
    const EACH: u64 = 48 << 20;
    const NULS: u64 = (1 << 20) - 1;
    let ran = stdin_run(&out, |w| {
        w.write_all(NAMED.as_bytes())?;
        write_repeated(w, b"\n", EACH)?;
        write_repeated(w, b"\r", EACH)?;
        write_repeated(w, b"\r\r\n", EACH)?;
        write_repeated(w, b" ", EACH)?;
        write_repeated(w, b"\n% an escape line to the end of a MiB", EACH)?;
        for _ in 0..48 {
            write_repeated(w, b"\0", NULS)?;
            w.write_all(b"\n")?;
        }
        w.write_all(NAMED.as_bytes())
    });
    ran.assert_peak_at_most(PEAK_MIB);
    assert_eq!(counts(&out), (2, 0, 0, 2));
    let second = NAMED.len() as u64 + 5 * EACH + 48 * (NULS + 1);
    assert_eq!(errors(&out), vec![named_row(1, 0), named_row(2, second)]);
}

/// The read error of 1 MiB of NUL bytes in a row from standard input.
const NUL_RUN: &str = "pgn-audit: -: read error: 1 MiB of NUL bytes in a row: not PGN text (a \
    device such as /dev/zero, or a part of a file that was never written)";

/// Item 1: NULs are no game, whatever their number (`/dev/zero` aborted,
/// a small `.bz2` of NULs took 2.5 GiB), nor is a Ctrl-Z at the end. Issue
/// 23: nor are they read for ever: 1 MiB of them in a row is a read error
/// (exit 2, `bytes` 1 MiB), not 0 games and exit 0; less is padding.
#[test]
fn nul_bytes_are_no_game_and_are_not_kept() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let refused = |ran: &support::Ran, out: &Path| {
        let said: Vec<&str> = ran
            .stderr
            .lines()
            .filter(|l| l.starts_with("pgn-audit:"))
            .collect();
        assert_eq!(said, [NUL_RUN]);
        assert_eq!(ran.status, Some(2));
        ran.assert_peak_at_most(PEAK_MIB);
        assert_eq!(counts(out), (0, 0, 0, 0));
        assert_eq!(summary(out)["bytes"], 1u64 << 20);
    };
    let ran = audit_stdin(&["-", "-j", "2", "--no-html"], &out, |w| {
        write_repeated(w, b"\0", 256 << 20)
    });
    refused(&ran, &out);
    let ran = stdin_run(&out, |w| write_repeated(w, b"\0", (1 << 20) - 1));
    assert_eq!(counts(&out), (0, 0, 0, 0));
    assert_eq!(summary(&out)["bytes"], (1u64 << 20) - 1);
    ran.assert_peak_at_most(PEAK_MIB);

    // Four bzip2 streams of 64 MiB of NULs each, a few KB in all.
    let mut bz = Vec::new();
    for _ in 0..4 {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            e.write_all(&zeros).unwrap();
        }
        bz.extend_from_slice(&e.finish().unwrap());
    }
    assert!(bz.len() < 16 << 10, "{} bytes", bz.len());
    let ran = audit_stdin(&["-", "-j", "2", "--no-html"], &out, move |w| {
        w.write_all(&bz)
    });
    refused(&ran, &out);

    // A DOS file's Ctrl-Z, and NUL padding after a last line without end.
    for tail in ["\r\n\x1a", "\0\0\0\x1a"] {
        let text = format!("{}{tail}", NAMED.trim_end());
        let ran = stdin_run(&out, move |w| w.write_all(text.as_bytes()));
        ran.assert_peak_at_most(PEAK_MIB);
        assert_eq!(counts(&out), (1, 0, 0, 1), "{tail:?}");
        assert_eq!(errors(&out), vec![named_row(1, 0)]);
    }
}

/// Item 2: 2 million 18-byte games at -j2 took 157 MiB, as a batch held a
/// MiB of games whatever their number. Now a batch holds at most 4096.
#[test]
fn millions_of_tiny_games_stay_in_bounds() {
    let t = common::tempdir();
    let out = t.path().join("r");
    const GAMES: u64 = 2_000_000;
    let game = b"1. e4 e5 2. d4 *\n\n";
    let ran = stdin_run(&out, move |w| {
        write_copies(w, game, usize::try_from(GAMES).unwrap())
    });
    ran.assert_peak_at_most(PEAK_MIB);
    assert_eq!(counts(&out), (GAMES, GAMES, 0, 0));
}

/// Games of just under the cap, back to back, with as many plies as bytes
/// allow: the most a game can hold, in every batch in flight.
#[test]
fn games_at_the_cap_back_to_back_stay_in_bounds() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let mut game = b"[Event \"shuffle\"]\n\n".to_vec();
    let line = b"Nf3 Nf6 Ng1 Ng8 ".repeat(4);
    while game.len() + line.len() + 9 < 2 << 20 {
        game.extend_from_slice(&line);
        game.push(b'\n');
    }
    game.extend_from_slice(b"1/2-1/2\n\n");
    assert!(game.len() <= 2 << 20);
    let ran = stdin_run(&out, move |w| {
        for _ in 0..16 {
            w.write_all(&game)?;
        }
        Ok(())
    });
    ran.assert_peak_at_most(PEAK_MIB);
    // Every game is read whole: fivefold and 75 moves missed, no error.
    assert_eq!(counts(&out), (16, 0, 16, 0));
    assert_eq!(common::total(&out, "errors"), 0);
}

/// Item 5: past 4 GiB, u32 offsets wrapped (a tag there panicked the
/// writer, a move was reported as `xxx`). A game of more than 4 GiB is
/// capped; the game after it is read exactly, at its u64 offset.
#[test]
fn a_game_over_4_gib_then_a_game_read_exactly() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let head = b"[Event \"huge\"]\n\n1. e4 { ";
    const HUGE: u64 = (4 << 30) + (1 << 20);
    let ran = stdin_run(&out, move |w| {
        w.write_all(head)?;
        write_repeated(w, b"x", HUGE)?;
        w.write_all(b" } e5 *\n\n")?;
        w.write_all(NAMED.as_bytes())
    });
    ran.assert_peak_at_most(PEAK_MIB);
    assert_eq!(counts(&out), (2, 0, 0, 2));
    let after = head.len() as u64 + HUGE + 9;
    assert!(after > u32::MAX as u64);
    assert_eq!(
        errors(&out),
        vec![
            (
                "1".into(),
                "0".into(),
                "huge".into(),
                "2".into(),
                "parse_error".into(),
                CAP_DETAIL.into()
            ),
            named_row(2, after)
        ]
    );
}

/// Item 7: `1. e4 { never closes` swallowed 100,000 tagless games after
/// it. Inside an open comment, a line after a blank line that starts with
/// `1.` starts a new game, as a tag line does: the comment costs one game.
#[test]
fn an_unterminated_comment_costs_one_game() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let ran = stdin_run(&out, |w| {
        w.write_all(b"1. e4 { never closes\n\n")?;
        write_copies(w, b"1. e4 e5 *\n\n", 100_000)
    });
    ran.assert_peak_at_most(PEAK_MIB);
    assert_eq!(counts(&out), (100_001, 100_000, 0, 1));
    let e = records(&out, "errors.csv");
    assert_eq!(e.len(), 1);
    assert_eq!(
        (&e[0]["game"][..], &e[0]["ply"][..], &e[0]["kind"][..]),
        ("1", "2", "parse_error")
    );

    // With tags: the tag line after the blank line ends the comment.
    let ran = stdin_run(&out, |w| {
        w.write_all(b"[Event \"open\"]\n\n1. e4 { never closes\n\n")?;
        write_copies(w, b"[Event \"x\"]\n\n1. e4 e5 *\n\n", 1000)
    });
    ran.assert_peak_at_most(PEAK_MIB);
    assert_eq!(counts(&out), (1001, 1000, 0, 1));

    // Without a blank line, the lines are the comment's text: one game.
    let ran = stdin_run(&out, |w| {
        w.write_all(b"1. e4 { never closes\n")?;
        write_copies(w, b"1. e4 e5 *\n", 1000)
    });
    ran.assert_peak_at_most(PEAK_MIB);
    assert_eq!(counts(&out), (1, 0, 0, 1));
}

/// Item 11: `cat a.pgn b.pgn` where b.pgn starts with a BOM turned a's
/// legal game into a parse_error and lost b's Event. A BOM at the start of
/// a line is ignored; b's game starts after it.
#[test]
fn a_bom_in_mid_file_is_ignored() {
    let t = common::tempdir();
    let out = t.path().join("r");
    for a in [
        "[Event \"a\"]\n\n1. e4 e5 *\n",
        "[Event \"a\"]\n\n1. e4 e5 *\n\n",
        "[Event \"a\"]\r\n\r\n1. e4 e5 *\r\n",
        "1. e4 e5 *\n",
    ] {
        let text = format!("{a}\u{feff}{NAMED}");
        let ran = stdin_run(&out, move |w| w.write_all(text.as_bytes()));
        ran.assert_peak_at_most(PEAK_MIB);
        assert_eq!(counts(&out), (2, 1, 0, 1), "{a:?}");
        assert_eq!(
            errors(&out),
            vec![named_row(2, a.len() as u64 + 3)],
            "{a:?}"
        );
    }
}

/// Item 13: a CRLF file converted once more has `\r\r\n` line ends: 20
/// games were read as 341. `\r\r\n` is one line end; a line of a vertical
/// tab or a form feed is blank.
#[test]
fn cr_cr_lf_and_vertical_tab_lines() {
    let t = common::tempdir();
    let games: Vec<String> = common::sample_games().into_iter().take(20).collect();
    let lf = games.join("\n\n") + "\n";
    let crcrlf = lf.replace('\n', "\r\r\n");
    let vt = games.join("\n\x0b\n") + "\n";
    let ff = games.join("\n\x0c\n") + "\n";
    let mut results = Vec::new();
    for (name, text) in [("lf", lf), ("crcrlf", crcrlf), ("vt", vt), ("ff", ff)] {
        let out = t.path().join(name);
        let f = common::write(t.path(), &format!("{name}.pgn"), text.as_bytes());
        common::run_ok(&[common::s(&f), "--no-html"], &out);
        let s = summary(&out);
        let keys = ["castling", "claims", "missed_draws", "errors", "results"];
        results.push((
            counts(&out),
            keys.map(|k| s[k].to_string()),
            records(&out, "claims.csv").len(),
        ));
    }
    assert_eq!(results[0].0.0, 20);
    for r in &results[1..] {
        assert_eq!(r, &results[0]);
    }

    // Vertical tabs and form feeds between moves are blanks too.
    let out = t.path().join("moves");
    let f = common::write(
        t.path(),
        "moves.pgn",
        b"[Event \"x\"]\n\x0b\n1.\x0be4\x0ce5\x0b\x0c2. Nf3 *\x0c\n",
    );
    common::run_ok(&[common::s(&f), "--no-html"], &out);
    assert_eq!(counts(&out), (1, 1, 0, 0));
}

/// Reports are byte-identical at -j1, -j2 and -j8 on damaged input: a
/// capped game, padding, a mid-file BOM, `\r\r\n`, an unterminated comment
/// and more games than a batch holds.
#[test]
fn damaged_input_reports_are_the_same_for_any_threads() {
    let t = common::tempdir();
    let mut text = Vec::new();
    text.extend_from_slice(NAMED.as_bytes());
    text.extend_from_slice(b"\n[Event \"long\"]\n\n");
    text.extend_from_slice(b"1. e4 e5\n");
    for _ in 0..(3 << 20) / 32 {
        text.extend_from_slice(b"{xxxxxxxxxxxxxxxxxxxxxxxxxxxxx}\n");
    }
    text.extend_from_slice(b"*\n\n\0\0\0\n\x1a\n");
    text.extend_from_slice("\u{feff}".as_bytes());
    text.extend_from_slice(&NAMED.replace('\n', "\r\r\n").into_bytes());
    text.extend_from_slice(b"\r\r\n1. e4 { never closes\n\n");
    for i in 0..10_000 {
        let game = if i % 7 == 0 {
            "1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. O-O *"
        } else {
            "1. d4 *"
        };
        text.extend_from_slice(format!("[Round \"{i}\"]\n\n{game}\n\n").as_bytes());
    }
    text.extend_from_slice(NAMED.as_bytes());
    text.extend_from_slice(b"\0\0");
    let f = common::write(t.path(), "damaged.pgn", &text);
    let mut reports = Vec::new();
    for j in ["1", "2", "8"] {
        let out = t.path().join(format!("j{j}"));
        // report.html shows the run's time and threads: it is left out.
        common::run_ok(&[common::s(&f), "-j", j, "--split", "--no-html"], &out);
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                let mut bytes = std::fs::read(&p).unwrap();
                if name == "summary.json" {
                    let mut s = summary(&out);
                    s["seconds"] = 0.into();
                    s["helpmate_seconds"] = 0.into();
                    s["threads"] = 0.into();
                    bytes = s.to_string().into_bytes();
                }
                (name, bytes)
            })
            .collect();
        files.sort();
        reports.push(files);
    }
    let out = t.path().join("j1");
    let games = 1 + 1 + 1 + 1 + 10_000 + 1;
    assert_eq!(counts(&out).0, games);
    let e = errors(&out);
    assert_eq!(e[1].0, "2");
    assert_eq!((&e[1].2[..], &e[1].5[..]), ("long", CAP_DETAIL));
    assert_eq!(
        e[2],
        named_row(
            3,
            text.windows(3)
                .position(|w| w == "\u{feff}".as_bytes())
                .unwrap() as u64
                + 3
        )
    );
    assert!(
        reports[0].len() >= 6,
        "{:?}",
        reports[0].iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(reports[0] == reports[1], "-j1 and -j2 differ");
    assert!(reports[0] == reports[2], "-j1 and -j8 differ");
}

/// Item 1, just past the cap: a game a little over 2 MiB that ends within
/// one read (so it was never being skipped) is cut at the cap like a longer
/// one, and the game after it is read exactly.
#[test]
fn a_game_just_past_the_cap_is_cut_too() {
    for size in [
        (2 << 20) + 1000,
        (2 << 20) + (300 << 10),
        (2 << 20) + (900 << 10),
    ] {
        let t = common::tempdir();
        let long = b"[Event \"long\"]\n\n1. e4 e5 {";
        let mut text = long.to_vec();
        text.extend(std::iter::repeat_n(b'x', size - long.len() - 4));
        text.extend_from_slice(b"} *\n\n");
        let offset = text.len() as u64;
        text.extend_from_slice(NAMED.as_bytes());
        let f = common::write(t.path(), "g.pgn", &text);
        let out = t.path().join("r");
        common::run_ok(&[common::s(&f), "--no-html", "-j", "2"], &out);
        assert_eq!(counts(&out), (2, 0, 0, 2), "{size}");
        let rows = errors(&out);
        assert_eq!(rows[1], named_row(2, offset), "{size}");
        assert_eq!(
            (
                &rows[0].0[..],
                &rows[0].2[..],
                &rows[0].4[..],
                &rows[0].5[..]
            ),
            ("1", "long", "parse_error", CAP_DETAIL),
            "{size}"
        );
    }
}
