//! Cross-check of the FIDE repetition count against python-chess, on the
//! lichess sample and on random endgame walks: the script
//! `tests/crosscheck/repetition_check.py --dump` writes every game with
//! python-chess's count after each ply, and this test compares ours. Ignored where
//! python-chess is missing (and run, so failing, under CI).

use crate::common;

use pgn_audit_core::{Game, repetition_counts};

#[test]
#[cfg_attr(
    not(oracle_python_chess),
    ignore = "needs python-chess: run tests/setup-oracles"
)]
fn repetition_counts_agree_with_python_chess() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.jsonl");
    let status = common::python()
        .arg(format!("{root}/tests/crosscheck/repetition_check.py"))
        .args(["--walks", "300", "--dump"])
        .arg(&out)
        .status()
        .expect("the tests' python runs");
    assert!(status.success(), "repetition_check.py failed: {status}");
    let text = std::fs::read_to_string(&out).unwrap();
    let (mut games, mut positions, mut repeated, mut differ) = (0, 0, 0, Vec::new());
    for line in text.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let label = row["label"].as_str().unwrap();
        let pgn = row["pgn"].as_str().unwrap();
        let theirs: Vec<u32> = serde_json::from_value(row["counts"].clone()).unwrap();
        let ours = repetition_counts(&Game::parse(pgn.as_bytes()));
        games += 1;
        positions += theirs.len();
        repeated += theirs.iter().filter(|&&c| c >= 2).count();
        if ours != theirs {
            differ.push(format!("{label}: ours {ours:?}\n python-chess {theirs:?}"));
        }
    }
    eprintln!(
        "{games} games, {positions} positions, {repeated} repeated: {} differ",
        differ.len()
    );
    assert!(games > 700, "too few games: {games}");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
