//! `--fix` (contract v4): fixed.pgn holds every game as read, with the
//! result the Laws give where the recorded one contradicts the board, and
//! corrections.csv one row per corrected game; merge joins them as one run
//! writes them.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;

/// Knights out and back four times from the start: the start position
/// stands for the fifth time after Black's 8th move (ply 16).
const FIVE_TIMES: &str = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 \
                          7. Nf3 Nf6 8. Ng1 Ng8";

/// The fivefold repetition's detail.
const FIVEFOLD_DETAIL: &str =
    "the game was drawn by a fivefold repetition after Black's 8th move (FIDE 9.6.1)";

/// A game: its tags (`[Name "value"]` lines) and its movetext.
fn game(tags: &[(&str, &str)], movetext: &str) -> String {
    let mut text: String = tags
        .iter()
        .map(|(k, v)| format!("[{k} \"{v}\"]\n"))
        .collect();
    text.push('\n');
    text.push_str(movetext);
    text.push('\n');
    text
}

/// The comment `--fix` writes.
fn comment(from: &str, to: &str, detail: &str) -> String {
    format!("{{pgn-audit: result {from} corrected to {to}: {detail}}}")
}

/// One case of the contract's table: a game, and its corrections.csv row
/// (`ply`, `code`, `from`, `to`, `detail`) and fixed text, or none.
struct Case {
    text: String,
    row: Option<[&'static str; 5]>,
    fixed: String,
}

fn cases() -> Vec<Case> {
    let mate = "White is checkmated, so Black won (FIDE 5.1.1), but the game is scored 1/2-1/2";
    let stalemate = "Black is stalemated, so the game is drawn (FIDE 5.2.1), but it is scored 1-0";
    let dead = "neither side has the material to mate, so the position is dead and the game \
                drawn (FIDE 5.2.2), but it is scored 1-0";
    let timeout = "Black's flag fell, but White cannot mate by any series of legal moves, so the \
                   game is drawn (FIDE 6.9), not 1-0";
    let seventy_five =
        "the game was drawn by the 75-move rule after White's 80th move (FIDE 9.6.2)";
    let dead_missed = "the game was drawn by a dead position after White's 1st move, neither side \
                       having the material to mate (FIDE 5.2.2)";
    let dead_fen = "4k3/8/8/8/8/8/3r4/3BK3 w - - 0 1";
    let mut out = Vec::new();
    let mut case =
        |tags: &[(&str, &str)],
         moves: &str,
         row: Option<[&'static str; 5]>,
         fixed_tags: &[(&str, &str)],
         fixed: &str| push(&mut out, tags, moves, row, fixed_tags, fixed);
    // 9.6.1, then a move: drawn after Black's 8th move.
    case(
        &[("Event", "fivefold"), ("Result", "1-0")],
        &format!("{FIVE_TIMES} 9. e4 1-0"),
        Some(["16", "fivefold", "1-0", "1/2-1/2", FIVEFOLD_DETAIL]),
        &[("Event", "fivefold"), ("Result", "1/2-1/2")],
        &format!(
            "{FIVE_TIMES} 9. e4 {} 1/2-1/2",
            comment("1-0", "1/2-1/2", FIVEFOLD_DETAIL)
        ),
    );
    // 9.6.2 from a FEN whose halfmove clock stands at 149.
    let fen75 = "r3k3/8/8/8/8/8/8/R3K3 w - - 149 80";
    case(
        &[
            ("Event", "75"),
            ("SetUp", "1"),
            ("FEN", fen75),
            ("Result", "0-1"),
        ],
        "80. Ra2 Ra7 0-1",
        Some(["1", "seventy_five_moves", "0-1", "1/2-1/2", seventy_five]),
        &[
            ("Event", "75"),
            ("SetUp", "1"),
            ("FEN", fen75),
            ("Result", "1/2-1/2"),
        ],
        &format!(
            "80. Ra2 Ra7 {} 1/2-1/2",
            comment("0-1", "1/2-1/2", seventy_five)
        ),
    );
    // A dead position played on, and dead at the end: the missed draw,
    // which came first, decides.
    case(
        &[("Event", "dead"), ("FEN", dead_fen), ("Result", "1-0")],
        "1. Kxd2 Ke7 2. Bc2 1-0",
        Some(["1", "dead_position", "1-0", "1/2-1/2", dead_missed]),
        &[("Event", "dead"), ("FEN", dead_fen), ("Result", "1/2-1/2")],
        &format!(
            "1. Kxd2 Ke7 2. Bc2 {} 1/2-1/2",
            comment("1-0", "1/2-1/2", dead_missed)
        ),
    );
    case(
        &[("Event", "mate"), ("Result", "1/2-1/2")],
        "1. f3 e5 2. g4 Qh4# 1/2-1/2",
        Some(["4", "checkmate_not_scored", "1/2-1/2", "0-1", mate]),
        &[("Event", "mate"), ("Result", "0-1")],
        &format!(
            "1. f3 e5 2. g4 Qh4# {} 0-1",
            comment("1/2-1/2", "0-1", mate)
        ),
    );
    let fen_stale = "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1";
    case(
        &[
            ("Event", "stalemate"),
            ("FEN", fen_stale),
            ("Result", "1-0"),
        ],
        "1. Qf7 1-0",
        Some(["1", "stalemate_not_drawn", "1-0", "1/2-1/2", stalemate]),
        &[
            ("Event", "stalemate"),
            ("FEN", fen_stale),
            ("Result", "1/2-1/2"),
        ],
        &format!("1. Qf7 {} 1/2-1/2", comment("1-0", "1/2-1/2", stalemate)),
    );
    case(
        &[("Event", "dead end"), ("FEN", dead_fen), ("Result", "1-0")],
        "1. Kxd2 1-0",
        Some(["1", "dead_position_not_drawn", "1-0", "1/2-1/2", dead]),
        &[
            ("Event", "dead end"),
            ("FEN", dead_fen),
            ("Result", "1/2-1/2"),
        ],
        &format!("1. Kxd2 {} 1/2-1/2", comment("1-0", "1/2-1/2", dead)),
    );
    let fen_bare = "4k3/4q3/8/8/8/8/8/4K3 w - - 0 1";
    let flag = [
        ("Event", "flag"),
        ("FEN", fen_bare),
        ("Result", "1-0"),
        ("Termination", "Time forfeit"),
    ];
    let mut flag_fixed = flag;
    flag_fixed[2].1 = "1/2-1/2";
    case(
        &flag,
        "1. Kd2 Qe5 1-0",
        Some([
            "2",
            "timeout_without_mating_material",
            "1-0",
            "1/2-1/2",
            timeout,
        ]),
        &flag_fixed,
        &format!("1. Kd2 Qe5 {} 1/2-1/2", comment("1-0", "1/2-1/2", timeout)),
    );
    // A fivefold repetition, then a checkmate: the game ended drawn at
    // the repetition, whatever came after.
    let then_mate = format!("{FIVE_TIMES} 9. f3 e5 10. g4 Qh4#");
    case(
        &[("Event", "fivefold then mate"), ("Result", "1-0")],
        &format!("{then_mate} 1-0"),
        Some(["16", "fivefold", "1-0", "1/2-1/2", FIVEFOLD_DETAIL]),
        &[("Event", "fivefold then mate"), ("Result", "1/2-1/2")],
        &format!(
            "{then_mate} {} 1/2-1/2",
            comment("1-0", "1/2-1/2", FIVEFOLD_DETAIL)
        ),
    );
    // Scored drawn: the draw stands, the mate after it changes nothing.
    case(
        &[("Event", "drawn then mate"), ("Result", "1/2-1/2")],
        &format!("{then_mate} 1/2-1/2"),
        None,
        &[],
        "",
    );
    // A tag and a token that disagree, and nothing else: no correction.
    case(
        &[("Event", "mismatch"), ("Result", "1-0")],
        "1. e4 e5 0-1",
        None,
        &[],
        "",
    );
    // A missed draw in a game that was not replayed to its end.
    case(
        &[("Event", "illegal"), ("Result", "1-0")],
        &format!("{FIVE_TIMES} 9. Ke3 1-0"),
        None,
        &[],
        "",
    );
    // An illegal castle and a false claim: nothing to correct.
    case(
        &[
            ("Event", "castle"),
            ("Result", "1/2-1/2"),
            ("Termination", "threefold repetition"),
        ],
        "1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 5. Bc4 Bc5 6. O-O 1/2-1/2",
        None,
        &[],
        "",
    );
    // Chess960: a fivefold repetition of knights from the corners.
    let c960 = "nrbqkbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBQKBRN w GBgb - 0 1";
    let knights = "1. Nb3 Nb6 2. Na1 Na8 3. Nb3 Nb6 4. Na1 Na8 5. Nb3 Nb6 6. Na1 Na8 \
                   7. Nb3 Nb6 8. Na1 Na8 9. e4";
    case(
        &[
            ("Event", "960"),
            ("Variant", "Chess960"),
            ("FEN", c960),
            ("Result", "0-1"),
        ],
        &format!("{knights} 0-1"),
        Some(["16", "fivefold", "0-1", "1/2-1/2", FIVEFOLD_DETAIL]),
        &[
            ("Event", "960"),
            ("Variant", "Chess960"),
            ("FEN", c960),
            ("Result", "1/2-1/2"),
        ],
        &format!(
            "{knights} {} 1/2-1/2",
            comment("0-1", "1/2-1/2", FIVEFOLD_DETAIL)
        ),
    );
    out
}

/// Adds a case: the game of `tags` and `moves`; where it has a correction
/// `row`, its fixed text is the game of `fixed_tags` and `fixed`.
fn push(
    out: &mut Vec<Case>,
    tags: &[(&str, &str)],
    moves: &str,
    row: Option<[&'static str; 5]>,
    fixed_tags: &[(&str, &str)],
    fixed: &str,
) {
    let text = game(tags, moves);
    let fixed = match row {
        Some(_) => game(fixed_tags, fixed),
        None => text.clone(),
    };
    out.push(Case { text, row, fixed });
}

/// The games of `cases`, one blank line apart (as fixed.pgn writes them).
fn joined<'a>(texts: impl Iterator<Item = &'a str>) -> String {
    texts.collect::<Vec<_>>().join("\n")
}

/// Every row of the contract's table, on games made for it: the
/// corrections.csv row, the fixed text byte for byte, summary.json's
/// `corrected` and `fix`, and no other report changed by `--fix`.
#[test]
fn each_row_of_the_table_corrects_its_games() {
    let cases = cases();
    let t = tempdir();
    let input = joined(cases.iter().map(|c| c.text.as_str()));
    let file = write(t.path(), "games.pgn", input.as_bytes());
    let fixed_out = t.path().join("fix");
    run_ok(&[s(&file), "--fix", "--quiet"], &fixed_out);
    let expected: Vec<Vec<String>> = cases
        .iter()
        .enumerate()
        .filter_map(|(k, c)| {
            c.row.map(|row| {
                let mut r = vec![(k + 1).to_string()];
                r.extend(row.iter().map(|c| (*c).to_owned()));
                r
            })
        })
        .collect();
    assert_eq!(
        pick(
            &fixed_out,
            "corrections.csv",
            &["game", "ply", "code", "from", "to", "detail"]
        ),
        expected
    );
    let header = std::fs::read_to_string(fixed_out.join("corrections.csv")).unwrap();
    assert!(header.starts_with(
        "source,game,offset,line,event,site,date,round,white,black,result,variant,ply,code,from,to,detail\n"
    ));
    let fixed = std::fs::read_to_string(fixed_out.join("fixed.pgn")).unwrap();
    assert_eq!(fixed, joined(cases.iter().map(|c| c.fixed.as_str())));
    let v = summary(&fixed_out);
    assert_eq!(v["corrected"], expected.len() as u64);
    assert_eq!(v["options"]["fix"], true);
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    let at = |k: &str| keys.iter().position(|x| *x == k).unwrap();
    assert_eq!(at("corrected"), at("helpmate_seconds") + 1);
    let options: Vec<&String> = v["options"].as_object().unwrap().keys().collect();
    assert_eq!(options.last().map(|s| s.as_str()), Some("fix"));
    // Without --fix: the same other reports, `corrected` 0, no fix files.
    let plain = t.path().join("plain");
    run_ok(&[s(&file), "--quiet"], &plain);
    let mut fix_reports = csv_reports(&fixed_out);
    fix_reports.remove("corrections.csv");
    assert_eq!(csv_reports(&plain), fix_reports);
    let v = summary(&plain);
    assert_eq!(
        (&v["corrected"], &v["options"]["fix"]),
        (&0.into(), &false.into())
    );
    assert!(!plain.join("fixed.pgn").exists());
    assert!(!plain.join("corrections.csv").exists());
}

/// A game's own line ends and encoding are kept around the change: a
/// CRLF game gets its added Result tag with `\r\n`, a Windows-1252 game
/// keeps its bytes; a missing token is added after the last move.
#[test]
fn line_ends_and_encodings_are_kept_byte_for_byte() {
    let mate = |scored: &str| {
        format!("White is checkmated, so Black won (FIDE 5.1.1), but the game is scored {scored}")
    };
    let crlf = b"[Event \"crlf\"]\r\n[White \"A\"]\r\n\r\n1. f3 e5 {a\r\nb} 2. g4 Qh4# *\r\n";
    let latin = b"[White \"M\xfcller\"]\n[Result \"1/2\"]\n\n1. f3 e5 {Caf\xe9} 2. g4 Qh4# 1/2\n";
    let untokened = b"[Event \"open\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4#\n";
    let tagless = b"1. f3 e5 2. g4 Qh4# 1-0\n";
    let t = tempdir();
    let mut input = Vec::new();
    // The game without a token last: a game runs to its token, blank
    // lines between its moves included.
    for g in [&crlf[..], latin, tagless, untokened] {
        input.extend_from_slice(g);
        input.push(b'\n');
    }
    let file = write(t.path(), "games.pgn", &input);
    let out = t.path().join("out");
    run_ok(&[s(&file), "--fix", "--quiet"], &out);
    let mut expected = Vec::new();
    expected.extend_from_slice(
        format!(
            "[Event \"crlf\"]\r\n[White \"A\"]\r\n[Result \"0-1\"]\r\n\r\n1. f3 e5 {{a\r\nb}} 2. g4 Qh4# {} 0-1\r\n\n",
            comment("*", "0-1", &mate("*"))
        )
        .as_bytes(),
    );
    expected.extend_from_slice(
        b"[White \"M\xfcller\"]\n[Result \"0-1\"]\n\n1. f3 e5 {Caf\xe9} 2. g4 Qh4# ",
    );
    expected.extend_from_slice(comment("1/2-1/2", "0-1", &mate("1/2-1/2")).as_bytes());
    expected.extend_from_slice(b" 0-1\n\n");
    expected.extend_from_slice(
        format!(
            "1. f3 e5 2. g4 Qh4# {} 0-1\n\n",
            comment("1-0", "0-1", &mate("1-0"))
        )
        .as_bytes(),
    );
    expected.extend_from_slice(
        format!(
            "[Event \"open\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# {} 0-1\n",
            comment("1-0", "0-1", &mate("1-0"))
        )
        .as_bytes(),
    );
    let fixed = std::fs::read(out.join("fixed.pgn")).unwrap();
    assert!(
        fixed == expected,
        "{}\n---\n{}",
        String::from_utf8_lossy(&fixed),
        String::from_utf8_lossy(&expected)
    );
    assert_eq!(
        pick(&out, "corrections.csv", &["game", "white", "from", "to"]),
        strings(&[
            &["1", "A", "*", "0-1"],
            &["2", "M\u{fc}ller", "1/2-1/2", "0-1"],
            &["3", "", "1-0", "0-1"],
            &["4", "", "1-0", "0-1"],
        ])
    );
    assert_eq!(summary(&out)["corrected"], 4);
}

/// The reports of a run, row by row, without the columns that place a
/// game in its file (`source`, `offset`, `line`).
fn placeless(dir: &Path, file: &str) -> Vec<Vec<String>> {
    rows(dir, file)
        .into_iter()
        .map(|r| {
            r.into_iter()
                .enumerate()
                .filter(|(i, _)| ![0, 2, 3].contains(i))
                .map(|(_, c)| c)
                .collect()
        })
        .collect()
}

/// The table's games and the damaged sample, their games in turn.
fn mixed() -> Vec<u8> {
    let mut input = crate::pieces::damaged();
    for c in cases() {
        input.extend_from_slice(c.text.as_bytes());
        input.extend_from_slice(b"\n");
    }
    input.extend_from_slice(&crate::pieces::damaged()[..20_000]);
    input
}

/// fixed.pgn audited again: a corrected game has no results.csv row, and
/// every other game has the rows it had; fixed.pgn fixes nothing more.
#[test]
fn fixed_pgn_audited_again_has_no_result_to_correct() {
    let t = tempdir();
    let file = write(t.path(), "games.pgn", &mixed());
    let first = t.path().join("first");
    run_ok(&[s(&file), "--fix", "--quiet"], &first);
    let corrected: Vec<String> = pick(&first, "corrections.csv", &["game"])
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(corrected.len(), 9, "{corrected:?}");
    let again = t.path().join("again");
    run_ok(&[s(&first.join("fixed.pgn")), "--fix", "--quiet"], &again);
    assert_eq!(summary(&again)["games"], summary(&first)["games"]);
    assert_eq!(summary(&again)["corrected"], 0);
    assert!(rows(&again, "corrections.csv").is_empty());
    // A corrected game has no results.csv row, but the one whose draw the
    // players played on past into a checkmate: results.csv judges the
    // final position, and the game ended drawn before it.
    let results: Vec<Vec<String>> = placeless(&again, "results.csv")
        .into_iter()
        .filter(|r| corrected.contains(&r[0]))
        .map(|r| vec![r[1].clone(), r[10].clone(), r[11].clone()])
        .collect();
    assert_eq!(
        results,
        strings(&[&["fivefold then mate", "checkmate_not_scored", "1/2-1/2"]])
    );
    let uncorrected = |dir: &Path, file: &str| -> Vec<Vec<String>> {
        placeless(dir, file)
            .into_iter()
            .filter(|r| !corrected.contains(&r[0]))
            .collect()
    };
    for file in [
        "castling.csv",
        "claims.csv",
        "missed_draws.csv",
        "errors.csv",
        "results.csv",
    ] {
        assert_eq!(
            uncorrected(&first, file),
            uncorrected(&again, file),
            "{file}"
        );
    }
    // The corrected games keep their other rows (the moves are the same;
    // the `result` column is the corrected tag), and the comment claims
    // nothing.
    for file in [
        "castling.csv",
        "missed_draws.csv",
        "errors.csv",
        "claims.csv",
    ] {
        let of = |dir: &Path| -> Vec<Vec<String>> {
            placeless(dir, file)
                .into_iter()
                .filter(|r| corrected.contains(&r[0]))
                .map(|mut r| {
                    r.remove(7);
                    r
                })
                .collect()
        };
        assert_eq!(of(&first), of(&again), "{file}");
    }
    let refixed = std::fs::read(again.join("fixed.pgn")).unwrap();
    assert!(refixed == std::fs::read(first.join("fixed.pgn")).unwrap());
}

/// Where nothing is corrected, fixed.pgn is the games of clean.pgn and
/// rejected.pgn in input order: split again, it gives them back, and it
/// holds their bytes and one blank line between games. fixed.pgn and
/// corrections.csv are the same bytes at -j1 and -j8, on damaged input.
#[test]
fn fixed_pgn_is_every_game_as_read_at_every_thread_count() {
    let t = tempdir();
    let damaged = crate::pieces::damaged();
    let file = write(t.path(), "damaged.pgn", &damaged);
    let one = t.path().join("j1");
    let eight = t.path().join("j8");
    run_ok(&[s(&file), "--fix", "--split", "-j", "1", "--quiet"], &one);
    run_ok(
        &[s(&file), "--fix", "--split", "-j", "8", "--quiet"],
        &eight,
    );
    for name in ["fixed.pgn", "corrections.csv", "clean.pgn", "rejected.pgn"] {
        assert!(
            std::fs::read(one.join(name)).unwrap() == std::fs::read(eight.join(name)).unwrap(),
            "{name}"
        );
    }
    assert_eq!(summary(&one)["corrected"], 0);
    let read = |dir: &Path, name: &str| std::fs::read(dir.join(name)).unwrap();
    let (clean, rejected) = (read(&one, "clean.pgn"), read(&one, "rejected.pgn"));
    let fixed = read(&one, "fixed.pgn");
    assert!(!clean.is_empty() && !rejected.is_empty());
    assert_eq!(fixed.len(), clean.len() + 1 + rejected.len());
    let again = t.path().join("again");
    run_ok(&[s(&one.join("fixed.pgn")), "--split", "--quiet"], &again);
    assert!(read(&again, "clean.pgn") == clean);
    assert!(read(&again, "rejected.pgn") == rejected);
    assert_eq!(summary(&again)["games"], summary(&one)["games"]);
    // With corrections too: the same bytes at every thread count.
    let file = write(t.path(), "mixed.pgn", &mixed());
    let (one, eight) = (t.path().join("m1"), t.path().join("m8"));
    run_ok(&[s(&file), "--fix", "-j", "1", "--quiet"], &one);
    run_ok(&[s(&file), "--fix", "-j", "8", "--quiet"], &eight);
    assert!(read(&one, "fixed.pgn") == read(&eight, "fixed.pgn"));
    assert!(read(&one, "corrections.csv") == read(&eight, "corrections.csv"));
}

/// Pieces of a file audited with `--fix` merge into the reports of one
/// run: fixed.pgn and corrections.csv joined, `corrected` added up.
#[test]
fn pieces_with_fix_merge_to_the_single_run() {
    let t = tempdir();
    let file = write(t.path(), "games.pgn", &mixed());
    let single = t.path().join("single");
    run_ok(
        &[s(&file), "--fix", "--split", "-j", "2", "--quiet"],
        &single,
    );
    assert_eq!(summary(&single)["corrected"], 9);
    for size in [4000, 50_000] {
        let pieces = crate::pieces::plan(&file, size);
        assert!(pieces.len() > 1);
        let root = t.path().join(format!("size{size}"));
        let runs = crate::pieces::audit_pieces(&file, &pieces, &root, &["--fix", "--split"]);
        assert!(runs.iter().all(|(_, code)| *code == 0));
        let dirs: Vec<PathBuf> = runs.into_iter().map(|(d, _)| d).collect();
        let merged = root.join("merged");
        let o = crate::pieces::merge(&dirs, &merged);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        crate::pieces::assert_same(&single, &merged);
    }
}

/// merge refuses a folder of contract v3 (no `corrected`), and folders
/// written with and without `--fix`.
#[test]
fn merge_refuses_v3_folders_and_folders_without_fix() {
    let t = tempdir();
    let a = write(t.path(), "a.pgn", cases()[3].text.as_bytes());
    let b = write(t.path(), "b.pgn", cases()[0].text.as_bytes());
    let (fa, fb, plain) = (
        t.path().join("fa"),
        t.path().join("fb"),
        t.path().join("plain"),
    );
    run_ok(&[s(&a), "--fix", "--quiet"], &fa);
    run_ok(&[s(&b), "--fix", "--quiet"], &fb);
    run_ok(&[s(&b), "--quiet"], &plain);
    let merge = |dirs: &[&Path], out: &Path| {
        bin()
            .arg("merge")
            .args(dirs)
            .arg("-o")
            .arg(out)
            .arg("--quiet")
            .output()
            .unwrap()
    };
    // Two folders with --fix: fixed.pgn joined in order.
    let both = t.path().join("both");
    let o = merge(&[&fa, &fb], &both);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let fixed = |d: &Path| std::fs::read_to_string(d.join("fixed.pgn")).unwrap();
    assert_eq!(fixed(&both), format!("{}\n{}", fixed(&fa), fixed(&fb)));
    assert_eq!(summary(&both)["corrected"], 2);
    assert_eq!(rows(&both, "corrections.csv").len(), 2);
    let o = merge(&[&fa, &plain], &t.path().join("odd"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--fix there, not here"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut v = summary(&fb);
    v.as_object_mut().unwrap().remove("corrected");
    std::fs::write(fb.join("summary.json"), v.to_string()).unwrap();
    let out = t.path().join("out");
    let o = merge(&[&fa, &fb], &out);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "pgn-audit: merge: {}: a report folder of contract v3 (no corrected): audit its input again\n",
            s(&fb)
        )
    );
    assert!(!out.join("summary.json").exists());
    // A count that its rows do not bear out is refused.
    let mut v = summary(&fa);
    v["corrected"] = 5.into();
    std::fs::write(fa.join("summary.json"), v.to_string()).unwrap();
    let o = merge(&[&fa], &t.path().join("bad"));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("summary.json counts corrected 5, but corrections.csv has 1 rows"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// With `--format parquet`, corrections.parquet; for Parquet input,
/// fixed.pgn holds the PGN text its rows make, corrected.
#[test]
fn parquet_input_and_output() {
    let t = tempdir();
    let path = t.path().join("games.parquet");
    crate::parquet::parquet_table(
        &path,
        &["Event", "Result", "movetext"],
        2,
        2,
        |r, c| match (r, c) {
            (_, 0) => Some(format!("E{r}")),
            (0, 1) => Some("1/2-1/2".into()),
            (0, _) => Some("1. f3 e5 2. g4 Qh4# 1/2-1/2".into()),
            (_, 1) => Some("1-0".into()),
            _ => Some("1. e4 e5 1-0".into()),
        },
    );
    let out = t.path().join("out");
    run_ok(&[s(&path), "--fix", "--format", "parquet", "--quiet"], &out);
    assert_eq!(
        crate::parquet::parquet_text_column(&out.join("corrections.parquet"), "to"),
        ["0-1"]
    );
    assert!(!out.join("corrections.csv").exists());
    let fixed = std::fs::read_to_string(out.join("fixed.pgn")).unwrap();
    assert!(
        fixed.contains("[Event \"E0\"]\n[Result \"0-1\"]\n"),
        "{fixed}"
    );
    assert!(
        fixed.contains(&format!(
            "1. f3 e5 2. g4 Qh4# {} 0-1\n",
            comment(
                "1/2-1/2",
                "0-1",
                "White is checkmated, so Black won (FIDE 5.1.1), but the game is scored 1/2-1/2"
            )
        )),
        "{fixed}"
    );
    assert!(
        fixed.contains("[Event \"E1\"]\n[Result \"1-0\"]\n"),
        "{fixed}"
    );
    // The text audited again as PGN: nothing more to correct.
    let again = t.path().join("again");
    run_ok(&[s(&out.join("fixed.pgn")), "--fix", "--quiet"], &again);
    assert_eq!(summary(&again)["games"], 2);
    assert_eq!(summary(&again)["corrected"], 0);
    assert!(rows(&again, "results.csv").is_empty());
}
