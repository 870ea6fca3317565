//! Cross-check of the FIDE repetition count against python-chess, on the
//! lichess sample and on random endgame walks: the script
//! `tests/crosscheck/repetition_check.py --dump` writes every game with
//! python-chess's count after each ply, and this test compares ours. Without
//! python3 or python-chess it prints a note and passes.

use std::process::Command;

use pgn_audit::{audit::repetition_counts, pgn::Game};

#[test]
fn repetition_counts_agree_with_python_chess() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.jsonl");
    let status = Command::new("python3")
        .arg(format!("{root}/tests/crosscheck/repetition_check.py"))
        .args(["--walks", "300", "--dump"])
        .arg(&out)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) if s.code() == Some(2) => {
            eprintln!("note: python-chess is not installed; repetition cross-check skipped");
            return;
        }
        Ok(s) => panic!("repetition_check.py failed: {s}"),
        Err(e) => {
            eprintln!("note: python3 cannot be run ({e}); repetition cross-check skipped");
            return;
        }
    }
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
