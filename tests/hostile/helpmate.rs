//! The helpmate analysis's budget (docs/reports.md, "What the helpmate
//! analysis can decide"): games built from positions that keep chasolver's
//! searches busy for seconds, a thousand copies each streamed to the
//! binary at -j2, cost at most 50 ms of CPU time a game on average and stay
//! within the memory bound; what the budget cannot decide is counted in
//! summary.json's `undecided`, never a guessed row.

use crate::common::{pick, summary};
use crate::support;

/// Copies of each game.
const COPIES: u64 = 1_000;

/// The most CPU time a game may cost on average.
const CPU_PER_GAME: std::time::Duration = std::time::Duration::from_millis(50);

/// One game from `fen`, no moves, `tags` and `movetext` after it.
fn game(fen: &str, tags: &str, movetext: &str) -> String {
    format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n{tags}\n{movetext}\n\n")
}

/// A loss on time by Black in `fen` (White's win), with no moves.
fn timeout(fen: &str) -> String {
    game(
        fen,
        "[Result \"1-0\"]\n[Termination \"Time forfeit\"]\n",
        "1-0",
    )
}

/// `COPIES` copies of `text` streamed to `pgn-audit - -j 2`: the summary
/// and the measured run, which exited 0, within the memory bound and the
/// CPU time a game.
fn audit_copies(text: String) -> (tempfile::TempDir, std::path::PathBuf, support::Ran) {
    let t = crate::common::tempdir();
    let out = t.path().join("r");
    let ran = support::audit_stdin(&["-", "-j", "2", "--quiet"], &out, move |w| {
        for _ in 0..COPIES {
            std::io::Write::write_all(w, text.as_bytes())?;
        }
        Ok(())
    });
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    assert_eq!(summary(&out)["games"], COPIES);
    let per_game = ran.cpu / u32::try_from(COPIES).unwrap();
    eprintln!(
        "{COPIES} games: {:?} CPU, {per_game:?} a game, peak {} MiB",
        ran.cpu,
        ran.peak_mib()
    );
    assert!(per_game <= CPU_PER_GAME, "{per_game:?} a game");
    ran.assert_peak_at_most(support::PEAK_MIB);
    (t, out, ran)
}

/// From chasolver's constructed positions: neither side can mate, but the
/// proofs need more nodes than a game's budget (the fast check's depth-15
/// search ran for about a second, the full search's deepening 164,640
/// nodes for White): undecided, each of the three questions, every game.
#[test]
fn a_thousand_games_whose_proof_exceeds_the_budget_are_undecided() {
    let (_t, out, _) = audit_copies(timeout("kb6/b1p2p1p/1pP5/1P6/8/8/5P1P/5K2 w - -"));
    let undecided = &summary(&out)["undecided"];
    assert_eq!(undecided["timeout_without_mating_material"], COPIES);
    assert_eq!(undecided["dead_position_not_drawn"], COPIES);
    assert_eq!(undecided["dead_position"], COPIES);
    assert!(pick(&out, "results.csv", &["code"]).is_empty());
}

/// From CHA's test vectors (undetermined by CHA within 10 M nodes):
/// White can mate, but chasolver's full search finds the helpmate only
/// after 8.8 M nodes, its tables growing past 180 MiB. Undecided for
/// White (no row); Black's helpmate, found within its half of the budget,
/// settles that the position is not dead.
#[test]
fn a_thousand_games_that_kept_the_search_busy_for_seconds_stay_bounded() {
    let (_t, out, _) = audit_copies(timeout("N1b1N1N1/1pPpPpPp/1P1P1P1P/8/8/8/8/kb2B1K1 w - -"));
    let undecided = &summary(&out)["undecided"];
    assert_eq!(undecided["timeout_without_mating_material"], COPIES);
    assert_eq!(undecided["dead_position_not_drawn"], 0);
    assert_eq!(undecided["dead_position"], 0);
    assert!(pick(&out, "results.csv", &["code"]).is_empty());
}

/// A locked structure with a knight, dead from its start, drawn after 64
/// plies of king moves: its first dead position (ply 0) is found by a
/// logarithmic number of analyses, each decided by chasolver's static
/// analysis.
#[test]
fn a_thousand_games_played_on_in_a_dead_position_find_its_first_ply() {
    let fen = "1nk5/1p1p1p2/bPbPbP2/BpPpBp2/1P1P1P2/8/8/7K w - -";
    let moves: Vec<String> = (1..=32)
        .map(|n| {
            let (w, b) = if n % 2 == 1 {
                ("Kg1", "Kd8")
            } else {
                ("Kh1", "Kc8")
            };
            format!("{n}. {w} {b}")
        })
        .collect();
    let text = game(
        fen,
        "[Result \"1/2-1/2\"]\n",
        &format!("{} 1/2-1/2", moves.join(" ")),
    );
    let (_t, out, _) = audit_copies(text);
    let rows = pick(
        &out,
        "missed_draws.csv",
        &["rule", "ply", "plies_after", "fen", "basis"],
    );
    let dead: Vec<_> = rows.iter().filter(|r| r[0] == "dead_position").collect();
    assert_eq!(dead.len() as u64, COPIES);
    for row in dead {
        assert_eq!(
            row[1..],
            [
                "0".to_owned(),
                "64".to_owned(),
                format!("{fen} 0 1"),
                "helpmate_analysis".to_owned()
            ]
        );
    }
    assert_eq!(summary(&out)["undecided"]["dead_position"], 0);
}
