//! Cross-check of the castling audit against python-chess.
//!
//! `tests/crosscheck/castling_check.py` generates games (random legal games
//! and games with illegal castles forced into the movetext, standard and
//! Chess960) and reads every game under `corpora/`, labelling every castle
//! legal or illegal with python-chess. Here each game is audited: a castle
//! python-chess calls legal must have no castling row, one it calls illegal
//! must have one, and there must be no other rows. Ignored where python-chess
//! is missing (and run, so failing, under CI). `CROSSCHECK_GAMES` sets the
//! number of generated games (default 3000), `CROSSCHECK_SEED` the seed,
//! `CROSSCHECK_CASES` a cases file the script wrote earlier.

use crate::common;

use std::collections::BTreeSet;

use pgn_audit_core::Game;
use pgn_audit_core::audit::{ErrorKind, audit_game};

#[test]
#[cfg_attr(
    not(oracle_python_chess),
    ignore = "needs python-chess: run tests/setup-oracles"
)]
fn castling_agrees_with_python_chess() {
    let root = env!("CARGO_MANIFEST_DIR");
    let games = std::env::var("CROSSCHECK_GAMES").unwrap_or_else(|_| "3000".to_owned());
    let seed = std::env::var("CROSSCHECK_SEED").unwrap_or_else(|_| "2025".to_owned());
    let dir = tempfile::tempdir().unwrap();
    let out = match std::env::var_os("CROSSCHECK_CASES") {
        // A cases file written earlier by the script.
        Some(path) => std::path::PathBuf::from(path),
        None => {
            let out = dir.path().join("cases.jsonl");
            let status = common::python()
                .arg(format!("{root}/tests/crosscheck/castling_check.py"))
                .arg(&out)
                .args(["--games", &games, "--seed", &seed, "--corpora"])
                .arg(format!("{root}/corpora"))
                .status()
                .expect("python3 runs");
            assert!(status.success(), "castling_check.py failed");
            out
        }
    };

    let text = std::fs::read_to_string(&out).unwrap();
    let (mut n_games, mut castles, mut legal, mut illegal) = (0, 0, 0, 0);
    let mut disagreements = Vec::new();
    let mut by_reason = std::collections::BTreeMap::<&str, u32>::new();
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let pgn = case["pgn"].as_str().unwrap();
        let origin = case["origin"].as_str().unwrap();
        let stop = case["stop"]
            .as_u64()
            .map(|p| u32::try_from(p).expect("a ply"));
        let report = audit_game(&Game::parse(pgn.as_bytes()));
        n_games += 1;

        let mut python_illegal = BTreeSet::new();
        let mut python_all = BTreeSet::new();
        for c in case["castles"].as_array().unwrap() {
            let ply = u32::try_from(c[0].as_u64().unwrap()).expect("a ply");
            let ok = c[1].as_bool().unwrap();
            castles += 1;
            python_all.insert(ply);
            if ok {
                legal += 1;
            } else {
                illegal += 1;
                python_illegal.insert(ply);
            }
        }
        for v in &report.castling {
            for r in v.reasons.iter() {
                *by_reason.entry(r.code()).or_default() += 1;
            }
        }
        let tool_rows: BTreeSet<u32> = report.castling.iter().map(|v| v.ply).collect();
        let mut problems = Vec::new();
        for ply in python_all.iter().filter(|p| stop.is_none_or(|s| **p <= s)) {
            let tool_illegal = tool_rows.contains(ply);
            if tool_illegal != python_illegal.contains(ply) {
                problems.push(format!(
                    "ply {ply}: python-chess says {}, the tool {}",
                    if tool_illegal { "legal" } else { "illegal" },
                    if tool_illegal {
                        "reports it"
                    } else {
                        "does not"
                    }
                ));
            }
        }
        for ply in tool_rows.difference(&python_all) {
            problems.push(format!(
                "ply {ply}: a castling row where python-chess saw no castle"
            ));
        }
        match (&report.error, stop) {
            (None, None) => {}
            (Some(e), Some(s)) if e.kind == ErrorKind::UnplayableCastle && e.ply == s => {}
            (e, s) => problems.push(format!("replay: error {e:?}, python-chess stops at {s:?}")),
        }
        if !problems.is_empty() {
            disagreements.push(format!("{origin}: {}\n{pgn}", problems.join("; ")));
        }
    }
    let agreements = n_games - disagreements.len();
    eprintln!(
        "castling cross-check: {n_games} games, {castles} castles ({legal} legal, {illegal} illegal \
         for python-chess), {agreements} games agree, {} disagree; reasons reported: {by_reason:?}",
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{}",
        disagreements
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    assert!(n_games > 0 && legal > 0 && illegal > 0);
}
