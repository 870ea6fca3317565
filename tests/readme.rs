//! The README's snippets (issue 15): its example rows are what the binary
//! writes for the command it shows, and its commands that find a game from
//! a row print that game.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::*;

const README: &str = include_str!("../README.md");

/// The README's example run, after `pgn-audit`, from the repository root.
const EXAMPLE_ARGS: [&str; 3] = ["--quirks", "corpora/", "tests/readme/examples.pgn"];

/// Every report CSV file the example run writes.
const CSV_FILES: [&str; 6] = [
    "castling.csv",
    "claims.csv",
    "missed_draws.csv",
    "results.csv",
    "errors.csv",
    "quirks.csv",
];

/// The README's fenced blocks under the heading `heading` (up to the next
/// heading), as (info string, lines).
fn blocks(heading: &str) -> Vec<(&'static str, Vec<&'static str>)> {
    let start = README
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("README has the heading {heading:?}"));
    let mut found = Vec::new();
    let mut open: Option<(&str, Vec<&str>)> = None;
    for line in README[start + 1..].lines().skip(1) {
        match open.take() {
            None if line.starts_with('#') => break,
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some((info, Vec::new()));
                }
            }
            Some(block) if line == "```" => found.push(block),
            Some((info, mut lines)) => {
                lines.push(line);
                open = Some((info, lines));
            }
        }
    }
    assert!(open.is_none(), "a block under {heading:?} is never closed");
    found
}

#[test]
fn example_rows_are_what_the_binary_writes() {
    assert!(
        README.contains(&format!("    pgn-audit {}\n", EXAMPLE_ARGS.join(" "))),
        "the README shows the example run"
    );
    let t = tempdir();
    let out = t.path().join("r");
    let run = Command::new(env!("CARGO_BIN_EXE_pgn-audit"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(EXAMPLE_ARGS)
        .arg("-o")
        .arg(&out)
        .arg("--quiet")
        .output()
        .expect("run pgn-audit");
    assert_eq!(run.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&run.stderr), "");
    let csv: Vec<Vec<&str>> = blocks("### Example rows")
        .into_iter()
        .filter(|(info, _)| *info == "csv")
        .map(|(_, lines)| lines)
        .collect();
    assert_eq!(csv.len(), CSV_FILES.len(), "one block per CSV file");
    for (file, block) in CSV_FILES.iter().zip(&csv) {
        assert!(
            README.contains(&format!("`{file}`:\n\n```csv\n{}\n", block[0])),
            "the block of {file} is named"
        );
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        let written: Vec<&str> = text.lines().collect();
        assert_eq!(block[0], written[0], "{file}: header");
        assert_eq!(block.len(), 4, "{file}: header and three rows");
        // Each row is a line of the file, in the file's order.
        let mut at = 0;
        for row in &block[1..] {
            let i = written[at + 1..]
                .iter()
                .position(|w| w == row)
                .unwrap_or_else(|| panic!("{file}: the README's row is not written:\n{row}"));
            at += 1 + i;
        }
    }
}

#[test]
fn finding_a_game_prints_it() {
    let found = blocks("### Finding a game from a row");
    let (sh, shown) = (&found[0], &found[1]);
    assert_eq!((sh.0, shown.0), ("sh", ""));
    // What the README shows, up to its `…`.
    let shown: Vec<&str> = shown.1.iter().copied().take_while(|l| *l != "…").collect();
    let commands: Vec<&str> =
        sh.1.iter()
            .copied()
            .filter(|c| !c.starts_with("vim "))
            .collect();
    assert_eq!(commands.len(), 3, "sed, tail and dd");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for command in commands {
        let run = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(root)
            .output()
            .expect("run sh");
        assert!(run.status.success(), "{command}");
        let text = String::from_utf8(run.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() >= shown.len(), "{command}");
        assert_eq!(lines[..shown.len()], shown[..], "{command}");
    }
}
