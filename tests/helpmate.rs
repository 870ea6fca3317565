//! Dead positions and losses on time by the Laws' own test (issue 24,
//! FIDE 5.2.2 and 6.9): positions that no series of legal moves leads to
//! a mate, proven by chasolver's helpmate analysis, in missed_draws.csv
//! and results.csv with their `basis`, and summary.json's `undecided`;
//! run through the binary, with exact rows, at -j1, -j2 and -j8.

use std::path::Path;

use crate::common::*;

/// A locked pawn wall: every pawn blocked, White's bishop on the dark
/// squares (Black's pawns stand on light ones), Black's on the light
/// squares (White's pawns stand on dark ones, and capture only there).
const WALL: &str = "4k3/5b2/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/2B1K3 w - - 0 40";
/// The wall before White's h-pawn steps to h4: g4xh3 or h3xg4 still opens it.
const BEFORE_WALL: &str = "4k3/5b2/8/1p1p1p1p/pPpPpPp1/P1P1P1PP/8/2B1K3 w - - 0 40";
/// The wall with Black's bishop on the dark squares: it can be given up
/// on a5, c5, e5 or g5, and a pawn that takes it opens the wall.
const BREAKABLE: &str = "4k3/4b3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/2B1K3 w - - 0 40";
/// White in check from an unprotected queen, with Kxb2 the only move:
/// Black, with a queen, cannot mate; White, with a rook, still can.
const FORCED_CAPTURE: &str = "6k1/8/8/8/8/8/1q6/K6R w - - 0 60";
/// chasolver's README (lichess.org/ijyj0mHa): Black cannot mate, White can.
const README: &str = "5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 60";
/// From chasolver's constructed positions: a wall on the b- and d-files
/// that neither side can break, which its fast check cannot prove dead and
/// its full search can.
const DEAD_BY_SEARCH: &str = "1kb5/1p1p4/1P1P4/KP6/1P6/PP6/8/8 w - - 0 50";
/// From chasolver's constructed positions: Black cannot mate (White can),
/// which only the full search proves.
const BLACK_LOCKED_OUT: &str = "N3k1b1/1p1pPp2/1P1P1Pp1/6P1/8/4p1p1/4P1P1/5BK1 w - - 0 50";
/// One game from `fen` with `tags` after it and `movetext`.
fn game(event: &str, fen: &str, tags: &[(&str, &str)], movetext: &str) -> String {
    let mut s = format!("[Event \"{event}\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n");
    for (k, v) in tags {
        s.push_str(&format!("[{k} \"{v}\"]\n"));
    }
    s.push_str(&format!("\n{movetext}\n\n"));
    s
}

const RESULT_COLUMNS: &[&str] = &[
    "game", "ply", "code", "recorded", "expected", "detail", "fen", "basis",
];
const MISSED_COLUMNS: &[&str] = &["game", "rule", "ply", "plies_after", "fen", "basis"];

#[test]
fn dead_positions_and_timeouts_by_helpmate_analysis() {
    let text = [
        game(
            "Locked wall scored 1-0",
            WALL,
            &[("Result", "1-0")],
            "40. Kd1 Ke7 1-0",
        ),
        game(
            "Played on 20 plies past the wall",
            BEFORE_WALL,
            &[("Result", "1/2-1/2")],
            "40. h4 Kd8 41. Kf1 Kc8 42. Kg1 Kb8 43. Kh1 Ka8 44. Kh2 Ka7 45. Kg2 Kb7 \
             46. Kf2 Kc7 47. Ke2 Kd7 48. Kd2 Ke7 49. Kc2 Kd6 50. Kb2 1/2-1/2",
        ),
        game(
            "Queen against rook, lost on time",
            FORCED_CAPTURE,
            &[("Result", "0-1"), ("Termination", "Time forfeit")],
            "0-1",
        ),
        game(
            "A wall the bishop breaks",
            BREAKABLE,
            &[("Result", "1-0")],
            "40. Kd1 Kd8 1-0",
        ),
        game(
            "README: White's flag fell",
            README,
            &[("Result", "0-1"), ("Termination", "Time forfeit")],
            "0-1",
        ),
        game(
            "README: Black's flag fell",
            README,
            &[("Result", "1-0"), ("Termination", "Time forfeit")],
            "1-0",
        ),
    ]
    .concat();
    let (_t, out) = audit_at_every_thread_count(&text, &[]);
    let dead = "no series of legal moves lets White or Black mate (helpmate analysis), so the \
                position is dead and the game drawn (FIDE 5.2.2), but it is scored 1-0";
    assert_eq!(
        pick(&out, "results.csv", RESULT_COLUMNS),
        strings(&[
            &[
                "1",
                "2",
                "dead_position_not_drawn",
                "1-0",
                "1/2-1/2",
                dead,
                "8/4kb2/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/2BK4 w - - 2 41",
                "helpmate_analysis",
            ],
            &[
                "3",
                "0",
                "timeout_without_mating_material",
                "0-1",
                "1/2-1/2",
                "White's flag fell, but no series of legal moves lets Black mate (helpmate \
                 analysis), so the game is drawn (FIDE 6.9), not 0-1",
                FORCED_CAPTURE,
                "helpmate_analysis",
            ],
            &[
                "5",
                "0",
                "timeout_without_mating_material",
                "0-1",
                "1/2-1/2",
                "White's flag fell, but no series of legal moves lets Black mate (helpmate \
                 analysis), so the game is drawn (FIDE 6.9), not 0-1",
                README,
                "helpmate_analysis",
            ],
        ])
    );
    assert_eq!(
        pick(&out, "missed_draws.csv", MISSED_COLUMNS),
        strings(&[
            &["1", "dead_position", "0", "2", WALL, "helpmate_analysis"],
            &[
                "2",
                "dead_position",
                "1",
                "20",
                "4k3/5b2/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/2B1K3 b - - 0 40",
                "helpmate_analysis",
            ],
        ])
    );
    let summary = summary(&out);
    assert_eq!(
        summary["undecided"],
        serde_json::json!({
            "dead_position": 0,
            "dead_position_not_drawn": 0,
            "timeout_without_mating_material": 0,
        })
    );
    assert!(summary["helpmate_seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(summary["results"]["dead_position_not_drawn"], 1);
    assert_eq!(summary["results"]["timeout_without_mating_material"], 2);
    assert_eq!(summary["missed_draws"]["dead_position"], 2);
    assert_eq!(counts(&out), (6, 2, 4, 0));
}

/// Insufficient material keeps its basis; the other codes have none.
#[test]
fn insufficient_material_and_other_codes_keep_their_basis() {
    let text = [
        game(
            "King and bishop against king, played on",
            "4k3/8/8/8/8/8/3K4/3B4 b - - 0 60",
            &[("Result", "1-0")],
            "60... Kd8 61. Kd3 Ke8 1-0",
        ),
        game(
            "Tag and token disagree",
            "4k3/8/8/8/8/8/3Q4/3K4 w - - 0 60",
            &[("Result", "1-0")],
            "60. Qd7+ 0-1",
        ),
    ]
    .concat();
    let (_t, out) = audit_at_every_thread_count(&text, &[]);
    assert_eq!(
        pick(&out, "results.csv", &["game", "code", "basis"]),
        strings(&[
            &["1", "dead_position_not_drawn", "insufficient_material"],
            &["2", "result_mismatch", ""],
        ])
    );
    assert_eq!(
        pick(&out, "missed_draws.csv", &["game", "rule", "ply", "basis"]),
        strings(&[&["1", "dead_position", "0", "insufficient_material"]])
    );
}

/// A win on time by a side whose material shakmaty's one-sided test
/// (`has_insufficient_material`, the contract's words for 6.9) calls
/// insufficient has the basis `insufficient_material`, whatever the loser
/// has: a knight against a queen, bishops on one colour against a rook.
/// It was `helpmate_analysis` wherever the loser had more than its king.
#[test]
fn a_timeout_the_one_sided_material_test_decides_has_its_basis() {
    let text = [
        game(
            "Knight against queen",
            "4k3/8/8/3q4/8/8/8/4KN2 w - - 0 1",
            &[("Result", "1-0"), ("Termination", "Time forfeit")],
            "1. Kf2 Kd7 1-0",
        ),
        game(
            "Bishop against rook",
            "4k2r/8/8/8/8/8/8/2B1K3 w - - 0 1",
            &[("Result", "1-0"), ("Termination", "Time forfeit")],
            "1. Kd2 Kd7 1-0",
        ),
        game(
            "Knight and pawn against queen",
            "4k3/8/8/3q4/8/8/P7/4KN2 w - - 0 1",
            &[("Result", "1-0"), ("Termination", "Time forfeit")],
            "1. Kf2 Kd7 1-0",
        ),
    ]
    .concat();
    let (_t, out) = audit_at_every_thread_count(&text, &[]);
    let flag = "Black's flag fell, but White cannot mate by any series of legal moves, so the \
                game is drawn (FIDE 6.9), not 1-0";
    assert_eq!(
        pick(&out, "results.csv", RESULT_COLUMNS),
        strings(&[
            &[
                "1",
                "2",
                "timeout_without_mating_material",
                "1-0",
                "1/2-1/2",
                flag,
                "8/3k4/8/3q4/8/8/5K2/5N2 w - - 2 2",
                "insufficient_material",
            ],
            &[
                "2",
                "2",
                "timeout_without_mating_material",
                "1-0",
                "1/2-1/2",
                flag,
                "7r/3k4/8/8/8/8/3K4/2B5 w - - 2 2",
                "insufficient_material",
            ],
        ])
    );
    assert_eq!(counts(&out), (3, 1, 2, 0));
}

/// A rook that must be taken: after `1. Rb2` Black's only move is Kxb2,
/// and king against king follows, so no series of legal moves lets either
/// side mate (the contract: "a forced capture of the last mating
/// material"). Neither side is in check and no pawn is blocked; such a
/// side with a rook was taken as able to mate without the analysis (no
/// row, no count). Played on, the dead position is ply 1, not the king
/// against king of ply 2.
#[test]
fn a_forced_capture_of_the_last_rook_is_a_dead_position() {
    let fen = "8/8/8/8/8/8/2R5/k6K w - - 0 1";
    let text = [
        game(
            "Lost on time",
            fen,
            &[("Result", "1-0"), ("Termination", "Time forfeit")],
            "1. Rb2 1-0",
        ),
        game("Scored 1-0", fen, &[("Result", "1-0")], "1. Rb2 1-0"),
        game(
            "Played on",
            fen,
            &[("Result", "1/2-1/2")],
            "1. Rb2 Kxb2 2. Kg2 Kc3 1/2-1/2",
        ),
    ]
    .concat();
    let (_t, out) = audit_at_every_thread_count(&text, &[]);
    let after = "8/8/8/8/8/8/1R6/k6K b - - 1 1";
    assert_eq!(
        pick(
            &out,
            "results.csv",
            &["game", "ply", "code", "fen", "basis"]
        ),
        strings(&[
            &[
                "1",
                "1",
                "dead_position_not_drawn",
                after,
                "helpmate_analysis"
            ],
            &[
                "1",
                "1",
                "timeout_without_mating_material",
                after,
                "helpmate_analysis"
            ],
            &[
                "2",
                "1",
                "dead_position_not_drawn",
                after,
                "helpmate_analysis"
            ],
        ])
    );
    assert_eq!(
        pick(&out, "missed_draws.csv", MISSED_COLUMNS),
        strings(&[&["3", "dead_position", "1", "3", after, "helpmate_analysis"]])
    );
    assert_eq!(total(&out, "undecided"), 0);
}

/// A locked structure where every pawn on the board is frozen (none can
/// push or capture) and one pair blocks each other: the full search is
/// asked, and the position is dead (a bare king behind a pawn stack; a
/// rook shut in by its own pawns, lost on time). Both were taken as able
/// to mate: no row, no `undecided` count. And the dead positions of a game
/// that ends dead are searched back in full, whatever the filter: the
/// first is at ply 0, not where the filter first let the search in.
#[test]
fn a_frozen_pawn_structure_is_searched_and_a_dead_game_is_searched_back_in_full() {
    let stack = "8/8/6p1/6P1/6P1/6PK/6PP/k7 w - - 0 1";
    let rook = "2k5/6p1/6P1/6PK/6P1/6PR/7P/8 b - - 0 1";
    let fence = "5k2/p1p5/8/8/8/6p1/P1P3Pp/7K w - - 0 1";
    let text = [
        game(
            "Stack",
            stack,
            &[("Result", "1-0")],
            "1. Kh4 Kb1 2. Kh3 Ka1 1-0",
        ),
        game(
            "Rook",
            rook,
            &[("Result", "1-0"), ("Termination", "Time forfeit")],
            "1... Kd8 2. Kh4 Kc8 1-0",
        ),
        game(
            "Fence",
            fence,
            &[("Result", "1/2-1/2")],
            "1. a4 Ke8 2. a5 Kf8 3. a6 Ke8 4. c4 Kf8 5. c5 Ke8 6. c6 Kf8 1/2-1/2",
        ),
    ]
    .concat();
    let (_t, out) = audit_at_every_thread_count(&text, &[]);
    assert_eq!(
        pick(
            &out,
            "missed_draws.csv",
            &["game", "rule", "ply", "plies_after", "fen", "basis"]
        ),
        strings(&[
            &["1", "dead_position", "0", "4", stack, "helpmate_analysis"],
            &["2", "dead_position", "0", "3", rook, "helpmate_analysis"],
        ])
    );
    assert_eq!(
        pick(&out, "results.csv", &["game", "ply", "code", "basis"]),
        strings(&[
            &["1", "4", "dead_position_not_drawn", "helpmate_analysis"],
            &["2", "3", "dead_position_not_drawn", "helpmate_analysis"],
            &[
                "2",
                "3",
                "timeout_without_mating_material",
                "helpmate_analysis"
            ],
        ])
    );
    // The fence's earlier positions are pawn races whose proof exhausts a
    // search of about a million nodes, past a game's budget: where its
    // first dead position is stays undecided.
    assert_eq!(summary(&out)["undecided"]["dead_position"], 1);
}

fn merge(args: &[&str]) -> std::process::Output {
    bin().arg("merge").args(args).output().unwrap()
}

/// A folder of contract v2 (summary.json without `undecided`) is refused
/// by merge with one line and exit 2.
#[test]
fn merge_refuses_a_folder_of_contract_v2() {
    let t = tempdir();
    let input = write(
        t.path(),
        "a.pgn",
        game("g", WALL, &[("Result", "1-0")], "1-0").as_bytes(),
    );
    let (a, v2) = (t.path().join("a"), t.path().join("v2"));
    run_ok(&[s(&input)], &a);
    run_ok(&[s(&input)], &v2);
    let mut v = summary(&v2);
    for k in ["undecided", "helpmate_seconds"] {
        v.as_object_mut().unwrap().remove(k);
    }
    std::fs::write(v2.join("summary.json"), v.to_string()).unwrap();
    let out = t.path().join("out");
    let o = merge(&[s(&a), s(&v2), "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "pgn-audit: merge: {}: a report folder of contract v2 (no undecided): audit its input again\n",
            s(&v2)
        )
    );
    assert!(!Path::new(&out).join("summary.json").exists());
}

/// Positions that only chasolver's full search decides (main's fast check
/// left them `NotProven`, no row): a dead position scored 1-0 and played
/// on for 4 plies, and a loss on time against a side that cannot mate.
#[test]
fn the_full_search_decides_where_the_fast_check_cannot() {
    let text = [
        game(
            "A wall only the full search proves dead",
            DEAD_BY_SEARCH,
            &[("Result", "1-0")],
            "50. Ka4 Ka8 51. Ka5 Kb8 1-0",
        ),
        game(
            "Black cannot mate, White's flag fell",
            BLACK_LOCKED_OUT,
            &[("Result", "0-1"), ("Termination", "Time forfeit")],
            "0-1",
        ),
    ]
    .concat();
    let (_t, out) = audit_at_every_thread_count(&text, &[]);
    assert_eq!(
        pick(&out, "results.csv", RESULT_COLUMNS),
        strings(&[
            &[
                "1",
                "4",
                "dead_position_not_drawn",
                "1-0",
                "1/2-1/2",
                "no series of legal moves lets White or Black mate (helpmate analysis), so the \
                 position is dead and the game drawn (FIDE 5.2.2), but it is scored 1-0",
                "1kb5/1p1p4/1P1P4/KP6/1P6/PP6/8/8 w - - 4 52",
                "helpmate_analysis",
            ],
            &[
                "2",
                "0",
                "timeout_without_mating_material",
                "0-1",
                "1/2-1/2",
                "White's flag fell, but no series of legal moves lets Black mate (helpmate \
                 analysis), so the game is drawn (FIDE 6.9), not 0-1",
                BLACK_LOCKED_OUT,
                "helpmate_analysis",
            ],
        ])
    );
    assert_eq!(
        pick(&out, "missed_draws.csv", MISSED_COLUMNS),
        strings(&[&[
            "1",
            "dead_position",
            "0",
            "4",
            DEAD_BY_SEARCH,
            "helpmate_analysis"
        ]])
    );
    let summary = summary(&out);
    assert_eq!(summary["results"]["dead_position_not_drawn"], 1);
    assert_eq!(summary["results"]["timeout_without_mating_material"], 1);
    assert_eq!(summary["missed_draws"]["dead_position"], 1);
    assert_eq!(
        summary["undecided"],
        serde_json::json!({
            "dead_position": 0,
            "dead_position_not_drawn": 0,
            "timeout_without_mating_material": 0,
        })
    );
    assert_eq!(counts(&out), (2, 0, 2, 0));
}

/// A Chess960 castling right that chasolver's board cannot hold (king on
/// b1, rook on a1) is dropped, and a proof without it is no proof: the
/// loss on time against a queen that must be taken (Kxb2) is undecided,
/// counted in summary.json with no row, where the same position without
/// the right gets its row.
#[test]
fn a_dropped_chess960_right_leaves_the_position_undecided() {
    let text = [
        game(
            "Chess960: the queen is lost",
            "6k1/8/8/8/8/8/1q6/RK6 w A - 0 60",
            &[
                ("Variant", "Chess960"),
                ("Result", "0-1"),
                ("Termination", "Time forfeit"),
            ],
            "0-1",
        ),
        game(
            "Standard: the queen is lost",
            "6k1/8/8/8/8/8/1q6/RK6 w - - 0 60",
            &[("Result", "0-1"), ("Termination", "Time forfeit")],
            "0-1",
        ),
    ]
    .concat();
    let (_t, out) = audit_at_every_thread_count(&text, &[]);
    assert_eq!(
        pick(&out, "results.csv", &["game", "code", "basis"]),
        strings(&[&["2", "timeout_without_mating_material", "helpmate_analysis"]])
    );
    assert_eq!(pick(&out, "missed_draws.csv", &["game"]).len(), 0);
    let summary = summary(&out);
    assert_eq!(
        summary["undecided"],
        serde_json::json!({
            "dead_position": 0,
            "dead_position_not_drawn": 0,
            "timeout_without_mating_material": 1,
        })
    );
    assert_eq!(summary["results"]["timeout_without_mating_material"], 1);
    assert_eq!(counts(&out), (2, 1, 1, 0));
}

/// CHA's test vectors (`../shared/collections/cha/test-vector.txt`: 1,803
/// positions, each labelled by the sides that can still mate), each asked
/// as two losses on time, `1-0` and `0-1`: no side that can mate gets a
/// `timeout_without_mating_material` row and no position where a side can
/// mate a `dead_position_not_drawn` row; of the sides that cannot mate,
/// every one is either proven so (its row) or counted `undecided` by the
/// game's budget, the budget's count fixed here (pawn races whose proof
/// exhausts a search of 1 to 5 M nodes; CHA itself leaves 2 of these sides
/// undetermined within 10 M nodes).
/// Sides that cannot mate with their `timeout_without_mating_material` row.
const TIMEOUT_ROWS: usize = 1606;
/// Dead positions with their `dead_position_not_drawn` row.
const DEAD_ROWS: usize = 1392;
/// Sides that cannot mate whose question the budget left open.
const TIMEOUT_UNDECIDED: u64 = 129;

#[test]
#[cfg_attr(
    not(collections),
    ignore = "needs ../shared/collections/cha/test-vector.txt"
)]
fn chas_test_vectors_as_losses_on_time() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/collections/cha/test-vector.txt"
    );
    let text = std::fs::read_to_string(path).expect(path);
    let mut games = String::new();
    // Per game: whether the winner can mate, whether the position is dead.
    let mut labels = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (class, fen) = line.split_at(2);
        for (result, k, letter) in [("1-0", 0, b'W'), ("0-1", 1, b'B')] {
            games.push_str(&game(
                "CHA",
                fen.trim(),
                &[("Result", result), ("Termination", "Time forfeit")],
                result,
            ));
            labels.push((class.as_bytes()[k] == letter, class == "--"));
        }
    }
    let t = tempdir();
    let input = write(t.path(), "vectors.pgn", games.as_bytes());
    let out = t.path().join("r");
    run_ok(&[s(&input), "-j", "2"], &out);
    let mut codes = vec![Vec::new(); labels.len()];
    for row in pick(&out, "results.csv", &["game", "code"]) {
        codes[row[0].parse::<usize>().unwrap() - 1].push(row[1].clone());
    }
    let has = |i: usize, code: &str| codes[i].iter().any(|c| c == code);
    let mut counts = [0usize; 4];
    for (i, &(can, dead)) in labels.iter().enumerate() {
        let timeout = has(i, "timeout_without_mating_material");
        assert!(!(can && timeout), "game {}: the winner can mate", i + 1);
        assert!(
            dead || !has(i, "dead_position_not_drawn"),
            "game {}: a side can mate",
            i + 1
        );
        counts[0] += usize::from(!can);
        counts[1] += usize::from(!can && timeout);
        counts[2] += usize::from(dead);
        counts[3] += usize::from(dead && has(i, "dead_position_not_drawn"));
    }
    let undecided = &summary(&out)["undecided"];
    assert_eq!(
        (
            counts,
            undecided["timeout_without_mating_material"].as_u64()
        ),
        (
            [1857, TIMEOUT_ROWS, 1612, DEAD_ROWS],
            Some(TIMEOUT_UNDECIDED)
        )
    );
}
