//! results.csv (issue 17): results that contradict the final position or
//! the Laws, and missed_draws.csv rule `dead_position`, run through the
//! binary with exact rows and summary counts.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::*;

const MATE: &str = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
const STALEMATE: &str = "5bnr/4p1pq/4Qpkr/7p/7P/4P3/PPPP1PP1/RNB1KBNR b KQ - 2 10";
/// Sam Loyd's stalemate in 10 moves: Black to move has none.
const LOYD: &str = "1. e3 a5 2. Qh5 Ra6 3. Qxa5 h5 4. h4 Rah6 5. Qxc7 f6 6. Qxd7+ Kf7 \
                    7. Qxb7 Qd3 8. Qxb8 Qh7 9. Qxc8 Kg6 10. Qe6";
const PAWN_MOVES: &str = "7k/5Q2/8/8/8/p7/8/K7 b - - 0 1";
const BARE_STALEMATE: &str = "7k/5Q2/8/8/8/8/8/K7 b - - 0 1";
/// White king and bishop against Black's king and rook, White to take it.
const ROOK_FALLS: &str = "4k3/8/8/8/8/8/3r4/3BK3 w - - 0 60";
const BISHOP_ONLY: &str = "4k3/8/8/8/8/8/3K4/3B4 b - - 0 60";

/// One game's PGN: tags (Event first, then `tags`) and movetext.
fn game(tags: &[(&str, &str)], movetext: &str) -> String {
    let mut s = String::from("[Event \"t\"]\n");
    for (k, v) in tags {
        s.push_str(&format!("[{k} \"{v}\"]\n"));
    }
    s.push('\n');
    s.push_str(movetext);
    s.push_str("\n\n");
    s
}

fn fen_tags<'a>(fen: &'a str, more: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut t = vec![("SetUp", "1"), ("FEN", fen)];
    t.extend_from_slice(more);
    t
}

/// Runs the binary over `pgn` (extra arguments first) into `DIR/r`.
fn audit(dir: &Path, pgn: &str, args: &[&str]) -> std::path::PathBuf {
    let input = write(dir, "in.pgn", pgn.as_bytes());
    let out = dir.join("r");
    let mut all = vec![s(&input)];
    all.extend_from_slice(args);
    run_ok(&all, &out);
    out
}

/// The results.csv rows, own columns only: (game, ply, code, recorded,
/// expected, fen).
fn result_rows(out: &Path) -> Vec<[String; 6]> {
    records(out, "results.csv")
        .into_iter()
        .map(|r| {
            [
                r["game"].clone(),
                r["ply"].clone(),
                r["code"].clone(),
                r["recorded"].clone(),
                r["expected"].clone(),
                r["fen"].clone(),
            ]
        })
        .collect()
}

fn row(game: u32, ply: u32, code: &str, recorded: &str, expected: &str, fen: &str) -> [String; 6] {
    [
        game.to_string(),
        ply.to_string(),
        code.to_owned(),
        recorded.to_owned(),
        expected.to_owned(),
        fen.to_owned(),
    ]
}

/// summary.json `results`, by code.
fn result_counts(out: &Path) -> BTreeMap<String, u64> {
    summary(out)["results"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect()
}

fn expected_counts(nonzero: &[(&str, u64)]) -> BTreeMap<String, u64> {
    let mut m: BTreeMap<String, u64> = [
        "result_mismatch",
        "checkmate_not_scored",
        "stalemate_not_drawn",
        "dead_position_not_drawn",
        "timeout_without_mating_material",
    ]
    .iter()
    .map(|k| ((*k).to_owned(), 0))
    .collect();
    for (k, n) in nonzero {
        m.insert((*k).to_owned(), *n);
    }
    m
}

#[test]
fn mate_scored_as_a_draw_as_the_wrong_win_and_as_a_star() {
    let t = tempdir();
    let fool = "1. f3 e5 2. g4 Qh4#";
    let pgn = [
        game(&[("Result", "1/2-1/2")], &format!("{fool} 1/2-1/2")),
        game(&[("Result", "1-0")], &format!("{fool} 1-0")),
        game(&[("Result", "*")], &format!("{fool} *")),
        game(&[("Result", "0-1")], &format!("{fool} 0-1")),
        // No Result tag: the result token is the recorded result.
        game(&[], &format!("{fool} 1-0")),
        game(&[], &format!("{fool} 0-1")),
    ]
    .concat();
    let out = audit(t.path(), &pgn, &[]);
    assert_eq!(
        result_rows(&out),
        [
            row(1, 4, "checkmate_not_scored", "1/2-1/2", "0-1", MATE),
            row(2, 4, "checkmate_not_scored", "1-0", "0-1", MATE),
            row(3, 4, "checkmate_not_scored", "*", "0-1", MATE),
            row(5, 4, "checkmate_not_scored", "1-0", "0-1", MATE),
        ]
    );
    assert_eq!(
        records(&out, "results.csv")[0]["detail"],
        "White is checkmated, so Black won (FIDE 5.1.1), but the game is scored 1/2-1/2"
    );
    assert_eq!(counts(&out), (6, 2, 4, 0));
    assert_eq!(
        result_counts(&out),
        expected_counts(&[("checkmate_not_scored", 4)])
    );
}

#[test]
fn stalemate_scored_as_a_win() {
    let t = tempdir();
    let pgn = [
        game(&[("Result", "1-0")], &format!("{LOYD} 1-0")),
        game(&[("Result", "1/2-1/2")], &format!("{LOYD} 1/2-1/2")),
        game(&[("Result", "*")], &format!("{LOYD} *")),
        // Black's king cannot step, but its pawn can: no stalemate.
        game(&fen_tags(PAWN_MOVES, &[("Result", "1-0")]), "1-0"),
        // Nothing of Black's can move: the FEN itself is stalemate.
        game(&fen_tags(BARE_STALEMATE, &[("Result", "1-0")]), "1-0"),
    ]
    .concat();
    let out = audit(t.path(), &pgn, &[]);
    assert_eq!(
        result_rows(&out),
        [
            row(1, 19, "stalemate_not_drawn", "1-0", "1/2-1/2", STALEMATE),
            row(3, 19, "stalemate_not_drawn", "*", "1/2-1/2", STALEMATE),
            row(
                5,
                0,
                "stalemate_not_drawn",
                "1-0",
                "1/2-1/2",
                BARE_STALEMATE
            ),
        ]
    );
    assert_eq!(
        records(&out, "results.csv")[0]["detail"],
        "Black is stalemated, so the game is drawn (FIDE 5.2.1), but it is scored 1-0"
    );
    assert_eq!(counts(&out), (5, 2, 3, 0));
}

#[test]
fn king_and_bishop_against_king_scored_as_a_win() {
    let t = tempdir();
    let pgn = [
        game(&fen_tags(ROOK_FALLS, &[("Result", "1-0")]), "60. Kxd2 1-0"),
        game(
            &fen_tags(ROOK_FALLS, &[("Result", "1/2-1/2")]),
            "60. Kxd2 1/2-1/2",
        ),
        game(&fen_tags(ROOK_FALLS, &[("Result", "*")]), "60. Kxd2 *"),
    ]
    .concat();
    let out = audit(t.path(), &pgn, &[]);
    assert_eq!(
        result_rows(&out),
        [row(
            1,
            1,
            "dead_position_not_drawn",
            "1-0",
            "1/2-1/2",
            BISHOP_ONLY
        )]
    );
    // Reached on the last ply: no missed draw.
    assert!(rows(&out, "missed_draws.csv").is_empty());
    assert_eq!(counts(&out), (3, 2, 1, 0));
    assert_eq!(
        result_counts(&out),
        expected_counts(&[("dead_position_not_drawn", 1)])
    );
    assert_eq!(summary(&out)["missed_draws"]["dead_position"], 0);
}

#[test]
fn dead_position_played_on_for_ten_plies() {
    let t = tempdir();
    let moves = "60. Kxd2 Kf7 61. Ke3 Kf6 62. Kf4 Ke6 63. Ke4 Kd6 64. Kd4 Kc6 65. Kc4";
    let pgn = game(
        &fen_tags(ROOK_FALLS, &[("Result", "1/2-1/2")]),
        &format!("{moves} 1/2-1/2"),
    );
    let out = audit(t.path(), &pgn, &[]);
    let missed = records(&out, "missed_draws.csv");
    assert_eq!(missed.len(), 1);
    let m = &missed[0];
    assert_eq!(
        (
            m["rule"].as_str(),
            m["ply"].as_str(),
            m["plies_after"].as_str(),
            m["fen"].as_str()
        ),
        ("dead_position", "1", "10", BISHOP_ONLY)
    );
    assert!(rows(&out, "results.csv").is_empty());
    assert_eq!(counts(&out), (1, 0, 1, 0));
    assert_eq!(summary(&out)["missed_draws"]["dead_position"], 1);
}

#[test]
fn dead_from_the_start_position_and_by_promotion() {
    let t = tempdir();
    let pgn = [
        // Dead at ply 0 (the FEN), two plies played.
        game(
            &fen_tags("4k3/8/8/8/8/8/8/4K3 w - - 0 1", &[("Result", "1/2-1/2")]),
            "1. Kd2 Kd7 1/2-1/2",
        ),
        // A pawn promoted to a bishop against a bare king: dead at ply 1.
        game(
            &fen_tags("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", &[("Result", "1/2-1/2")]),
            "1. b8=B Kd7 2. Kd2 1/2-1/2",
        ),
        // Promoted to a rook: not dead.
        game(
            &fen_tags("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", &[("Result", "1/2-1/2")]),
            "1. b8=R Kd7 2. Kd2 1/2-1/2",
        ),
    ]
    .concat();
    let out = audit(t.path(), &pgn, &[]);
    let missed: Vec<[String; 4]> = records(&out, "missed_draws.csv")
        .into_iter()
        .map(|r| {
            [
                r["game"].clone(),
                r["rule"].clone(),
                r["ply"].clone(),
                r["plies_after"].clone(),
            ]
        })
        .collect();
    assert_eq!(
        missed,
        [
            ["1", "dead_position", "0", "2"].map(str::to_owned),
            ["2", "dead_position", "1", "2"].map(str::to_owned),
        ]
    );
}

#[test]
fn lost_on_time_by_a_side_that_could_not_mate() {
    let t = tempdir();
    let bare = "4k3/8/8/8/8/8/8/3QK3 w - - 0 50";
    let knight = "4k3/4n3/8/8/8/8/4P3/4K3 w - - 0 50";
    let forfeit = [("Result", "0-1"), ("Termination", "Time forfeit")];
    let pgn = [
        // Lichess: White's flag fell, Black has a bare king.
        game(&fen_tags(bare, &forfeit), "50. Qd2 Kf7 0-1"),
        // Black's knight against White's king and pawn: a mate is still
        // possible (FIDE 6.9), the win stands.
        game(&fen_tags(knight, &forfeit), "50. Kd2 Nd5 0-1"),
        // The words in a final comment, and in a Termination tag.
        game(
            &fen_tags(bare, &[("Result", "0-1")]),
            "50. Qd2 Kf7 {Black won on time} 0-1",
        ),
        game(
            &fen_tags(
                bare,
                &[("Result", "0-1"), ("Termination", "White forfeits on time")],
            ),
            "50. Qd2 Kf7 0-1",
        ),
        // No word of time: a resignation, nothing to say.
        game(&fen_tags(bare, &[("Result", "0-1")]), "50. Qd2 Kf7 0-1"),
        // The winner (White) has the queen.
        game(
            &fen_tags(bare, &[("Result", "1-0"), ("Termination", "Time forfeit")]),
            "50. Qd2 Kf7 1-0",
        ),
    ]
    .concat();
    let out = audit(t.path(), &pgn, &[]);
    let fen = "8/5k2/8/8/8/8/3Q4/4K3 w - - 2 51";
    let code = "timeout_without_mating_material";
    assert_eq!(
        result_rows(&out),
        [
            row(1, 2, code, "0-1", "1/2-1/2", fen),
            row(3, 2, code, "0-1", "1/2-1/2", fen),
            row(4, 2, code, "0-1", "1/2-1/2", fen),
        ]
    );
    assert_eq!(
        records(&out, "results.csv")[0]["detail"],
        "White's flag fell, but Black cannot mate by any series of legal moves, so the game is \
         drawn (FIDE 6.9), not 0-1"
    );
    assert_eq!(counts(&out), (6, 3, 3, 0));
    assert_eq!(result_counts(&out), expected_counts(&[(code, 3)]));
}

#[test]
fn result_tag_and_token_that_disagree() {
    let t = tempdir();
    let after = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let pgn = [
        game(&[("Result", "1-0")], "1. e4 e5 0-1"),
        // `1/2` means `1/2-1/2`.
        game(&[("Result", "1/2")], "1. e4 e5 1/2-1/2"),
        game(&[("Result", "1/2-1/2")], "1. e4 e5 1/2"),
        // No token: nothing to compare.
        game(&[("Result", "1-0")], "1. e4 e5"),
        // Not replayed to its end: still a mismatch, without a position.
        game(&[("Result", "1-0")], "1. e4 e5 2. Ke3 *"),
        // Mate and mismatch: both rows, in the table's order.
        game(&[("Result", "1-0")], "1. f3 e5 2. g4 Qh4# 1/2-1/2"),
    ]
    .concat();
    let out = audit(t.path(), &pgn, &[]);
    assert_eq!(
        result_rows(&out),
        [
            row(1, 2, "result_mismatch", "1-0", "", after),
            row(5, 2, "result_mismatch", "1-0", "", ""),
            row(6, 4, "result_mismatch", "1-0", "", MATE),
            row(6, 4, "checkmate_not_scored", "1-0", "0-1", MATE),
        ]
    );
    assert_eq!(
        records(&out, "results.csv")[0]["detail"],
        "the Result tag says 1-0 but the movetext ends with 0-1"
    );
    assert_eq!(counts(&out), (6, 3, 2, 1));
    assert_eq!(
        result_counts(&out),
        expected_counts(&[("result_mismatch", 3), ("checkmate_not_scored", 1)])
    );
}

/// `result_mismatch` is checked for every game: also one whose start
/// position cannot be set up (a `bad_fen`, an `unsupported_variant`), at
/// ply 0, and one whose movetext breaks before its result token, which
/// still ends it. Neither had the row. A result inside an unterminated
/// comment or variation ends nothing.
#[test]
fn a_result_mismatch_is_found_in_every_game() {
    let t = tempdir();
    let pgn = [
        game(
            &[
                ("Result", "1-0"),
                ("SetUp", "1"),
                ("FEN", "4k3/8/8/8/8/8/8/8 w - - 0 1"),
            ],
            "1. e4 0-1",
        ),
        game(&[("Result", "1-0"), ("Variant", "Atomic")], "0-1"),
        game(&[("Result", "1-0")], "1. e4 $$$ e5 0-1"),
        // The token that ends the text is no result: nothing to compare.
        game(&[("Result", "1-0")], "1. e4 $$$ e5 0-1 Nf3"),
        game(&[("Result", "1-0"), ("Variant", "Atomic")], "1-0"),
        // A result inside a comment or variation that never closes is no
        // token: nothing to compare (these had the row).
        game(&[("Result", "1-0")], "1. e4 {oops 0-1"),
        game(&[("Result", "1-0")], "1. e4 (1. d4 0-1"),
    ]
    .concat();
    let out = audit(t.path(), &pgn, &[]);
    assert_eq!(
        result_rows(&out),
        [
            row(1, 0, "result_mismatch", "1-0", "", ""),
            row(2, 0, "result_mismatch", "1-0", "", ""),
            row(3, 1, "result_mismatch", "1-0", "", ""),
        ]
    );
    assert_eq!(counts(&out), (7, 0, 0, 7));
    assert_eq!(
        result_counts(&out),
        expected_counts(&[("result_mismatch", 3)])
    );
}

#[test]
fn a_results_row_sends_the_game_to_rejected_pgn() {
    let t = tempdir();
    let wrong = game(&[("Result", "1/2-1/2")], "1. f3 e5 2. g4 Qh4# 1/2-1/2");
    let right = game(&[("Result", "0-1")], "1. f3 e5 2. g4 Qh4# 0-1");
    let out = audit(t.path(), &format!("{wrong}{right}"), &["--split"]);
    assert_eq!(
        std::fs::read_to_string(out.join("rejected.pgn")).unwrap(),
        wrong.trim_end().to_owned() + "\n"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("clean.pgn")).unwrap(),
        right.trim_end().to_owned() + "\n"
    );
}

#[test]
fn every_code_is_in_summary_html_and_table_with_zeros() {
    let t = tempdir();
    let pgn = game(&[("Result", "1-0")], "1. e4 e5 1-0");
    let input = write(t.path(), "in.pgn", pgn.as_bytes());
    let out = t.path().join("r");
    let ran = run_ok(&[s(&input)], &out);
    assert_eq!(result_counts(&out), expected_counts(&[]));
    let missed = summary(&out)["missed_draws"].clone();
    assert_eq!(
        missed,
        serde_json::json!({"fivefold": 0, "seventy_five_moves": 0, "dead_position": 0})
    );
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(
        stderr.contains("  missed draws    0\n  result problems 0\n"),
        "{stderr}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for code in [
        "result_mismatch",
        "checkmate_not_scored",
        "stalemate_not_drawn",
        "dead_position_not_drawn",
        "timeout_without_mating_material",
    ] {
        assert!(
            html.contains(&format!(
                r#"<div class="bar" data-label="{code}" data-count="0">"#
            )),
            "{code}"
        );
    }
}

#[test]
fn html_shows_results_and_dead_positions() {
    let t = tempdir();
    let pgn = [
        game(&[("Result", "1/2-1/2")], "1. f3 e5 2. g4 Qh4# 1/2-1/2"),
        game(
            &fen_tags(ROOK_FALLS, &[("Result", "1/2-1/2")]),
            "60. Kxd2 Kf7 61. Ke3 1/2-1/2",
        ),
    ]
    .concat();
    let out = audit(t.path(), &pgn, &[]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains(r#"<div class="bar" data-label="checkmate_not_scored" data-count="1">"#));
    assert!(html.contains(r#"id="results-total" data-count="1""#));
    assert!(html.contains(r#"id="results-checkmate_not_scored" data-total="1""#));
    assert!(html.contains(r#"id="missed-dead_position" data-total="1""#));
    // The page rebuilt from the folder (as `merge` does) is the same.
    assert_eq!(pgn_audit_report::page_from_report_dir(&out).unwrap(), html);
}

#[test]
fn results_are_the_same_for_any_thread_count() {
    let t = tempdir();
    let mut pgn = String::new();
    for i in 0..300 {
        pgn += &match i % 6 {
            0 => game(&[("Result", "1/2-1/2")], "1. f3 e5 2. g4 Qh4# 1/2-1/2"),
            1 => game(&[("Result", "1-0")], &format!("{LOYD} 1-0")),
            2 => game(
                &fen_tags(ROOK_FALLS, &[("Result", "1-0")]),
                "60. Kxd2 Kf7 1-0",
            ),
            3 => game(&[("Result", "1-0")], "1. e4 e5 2. Ke3 0-1"),
            // Damaged: a token that is no move.
            4 => game(&[("Result", "1-0")], "1. e4 e5 2. Qq9 1-0"),
            _ => game(&[("Result", "1-0")], "1. e4 e5 1-0"),
        };
    }
    let input = write(t.path(), "in.pgn", pgn.as_bytes());
    let read = |j: &str| {
        let out = t.path().join(format!("r{j}"));
        run_ok(&[s(&input), "-j", j, "--no-html"], &out);
        let mut files = Vec::new();
        for f in [
            "results.csv",
            "missed_draws.csv",
            "errors.csv",
            "claims.csv",
        ] {
            files.push(std::fs::read(out.join(f)).unwrap());
        }
        let mut s = summary(&out);
        let o = s.as_object_mut().unwrap();
        o.remove("seconds");
        o.remove("helpmate_seconds");
        o.remove("threads");
        (files, s)
    };
    let one = read("1");
    assert_eq!(
        one.1["results"],
        serde_json::json!({
            "result_mismatch": 50,
            "checkmate_not_scored": 50,
            "stalemate_not_drawn": 50,
            "dead_position_not_drawn": 50,
            "timeout_without_mating_material": 0,
        })
    );
    assert_eq!(one.1["missed_draws"]["dead_position"], 50);
    for j in ["2", "8"] {
        assert!(read(j) == one, "-j {j} differs from -j 1");
    }
}

#[test]
fn lichess_sample_has_no_results_and_no_dead_positions() {
    let t = tempdir();
    let out = t.path().join("r");
    run_ok(&[SAMPLE, "--no-html"], &out);
    assert!(rows(&out, "results.csv").is_empty());
    assert_eq!(result_counts(&out), expected_counts(&[]));
    assert_eq!(summary(&out)["missed_draws"]["dead_position"], 0);
    assert_eq!(rows(&out, "claims.csv").len(), 9);
}
