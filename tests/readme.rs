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

/// Runs one of the README's shell lines from the repository root, its
/// virtual environment `.venv` at `venv`.
fn run_sh(line: &str, venv: &Path) {
    let line = line.replace(".venv", &venv.to_string_lossy());
    let run = Command::new("sh")
        .arg("-c")
        .arg(&line)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run sh");
    assert!(
        run.status.success(),
        "{line}\n{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
}

/// One of the README's install lines is run by tests/setup-oracles as it
/// stands, its `.venv` being `venv` there: the tests reach no network.
fn set_up_by_oracles(line: &str, venv: &str) {
    let script =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/setup-oracles"))
            .unwrap();
    let line = line.replace(".venv", venv);
    assert!(
        script.lines().any(|l| l.contains(&line)),
        "tests/setup-oracles runs {line:?}"
    );
}

/// The README's shell block under `heading`: its commands, comments left
/// out, a line ending in `\` joined to the next.
fn sh_lines(heading: &str) -> Vec<String> {
    let (_, lines) = blocks(heading)
        .into_iter()
        .find(|(info, _)| *info == "sh")
        .unwrap_or_else(|| panic!("a sh block under {heading:?}"));
    let mut out: Vec<String> = Vec::new();
    let mut joined = String::new();
    for line in lines.iter().filter(|l| !l.starts_with('#')) {
        match line.strip_suffix('\\') {
            Some(head) => joined.push_str(head),
            None => {
                joined.push_str(line.trim_start());
                out.push(std::mem::take(&mut joined));
            }
        }
    }
    out
}

/// The README's Python steps as a person on a stock Debian follows them
/// (issue 26): a virtual environment made by its commands (PEP 668 keeps
/// pip out of Debian's own Python), where the pandas and DuckDB examples
/// print what the README shows and the Dask LocalCluster line, on
/// corpora/, writes the reports of one run. `.venv` is
/// target/readme-venv here, made by tests/setup-oracles.
#[test]
#[cfg_attr(
    not(oracle_venv),
    ignore = "needs the README's virtual environments: python3-venv, then tests/setup-oracles"
)]
fn python_steps_work_in_a_virtual_environment() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join("target/readme-venv");
    let python = venv.join("bin/python");
    // Loading the reports: pandas and DuckDB.
    let steps = sh_lines("### Loading the reports");
    assert_eq!(
        steps,
        [
            "python3 -m venv .venv",
            ".venv/bin/pip install -r docs/requirements.txt"
        ]
    );
    for line in &steps {
        set_up_by_oracles(line, "target/readme-venv");
    }
    let t = tempdir();
    let run = Command::new(env!("CARGO_BIN_EXE_pgn-audit"))
        .current_dir(root)
        .args(EXAMPLE_ARGS)
        .arg("-o")
        .arg(t.path().join("reports"))
        .arg("--quiet")
        .output()
        .expect("run pgn-audit");
    assert_eq!(run.status.code(), Some(0));
    let found = blocks("### Loading the reports");
    let mut examples = 0;
    for pair in found.windows(2) {
        let [(info, code), (out_info, shown)] = pair else {
            unreachable!()
        };
        if *info != "python" {
            continue;
        }
        assert_eq!(*out_info, "", "each example is followed by its output");
        let mut child = Command::new(&python)
            .arg("-")
            .current_dir(t.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run the venv's python");
        std::io::Write::write_all(
            &mut child.stdin.take().unwrap(),
            (code.join("\n") + "\n").as_bytes(),
        )
        .unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let printed = String::from_utf8(o.stdout).unwrap();
        assert_eq!(
            printed.trim_end_matches('\n').lines().collect::<Vec<_>>(),
            *shown,
            "{}",
            code.join("\n")
        );
        examples += 1;
    }
    assert_eq!(examples, 2, "pandas and DuckDB");

    // Beyond one machine: the same environment takes Dask, and the
    // LocalCluster line audits corpora/ into one run's reports.
    let steps = sh_lines("## Beyond one machine: Dask");
    let local = ".venv/bin/python src/cluster/dask_audit.py --binary target/release/pgn-audit --workers 4 -o reports lichess/";
    assert_eq!(
        steps[..4],
        [
            "python3 -m venv .venv",
            ".venv/bin/pip install -r src/cluster/requirements.txt",
            "cargo build --release",
            local
        ]
    );
    for line in &steps[..2] {
        set_up_by_oracles(line, "target/readme-venv");
    }
    let dask = t.path().join("dask");
    let one = t.path().join("one");
    run_sh(
        &local
            .replace("target/release/pgn-audit", env!("CARGO_BIN_EXE_pgn-audit"))
            .replace(
                "-o reports lichess/",
                &format!("-o {} corpora/", dask.display()),
            ),
        &venv,
    );
    let run = Command::new(env!("CARGO_BIN_EXE_pgn-audit"))
        .current_dir(root)
        .args(["corpora/", "--quiet", "-o"])
        .arg(&one)
        .output()
        .expect("run pgn-audit");
    assert_eq!(run.status.code(), Some(0));
    for file in &CSV_FILES[..5] {
        assert_eq!(
            std::fs::read(dask.join(file)).unwrap(),
            std::fs::read(one.join(file)).unwrap(),
            "{file}"
        );
    }
}

/// The README's install of the Python package, its lines run as they stand
/// by tests/setup-oracles into a virtual environment of their own, made
/// anew (pip builds the crate): there `pgn_audit.audit("corpora/")` gives
/// the castling table of the command line's castling.csv, row for row.
#[test]
#[cfg_attr(
    not(oracle_venv),
    ignore = "needs the README's virtual environments: python3-venv, then tests/setup-oracles"
)]
fn the_python_package_installs_as_the_readme_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join("target/readme-pyvenv");
    let steps = sh_lines("### In Python: the reports as Arrow tables");
    assert_eq!(
        steps,
        [
            "python3 -m venv .venv",
            ".venv/bin/pip install ./src/python polars pandas pyarrow"
        ]
    );
    for line in &steps {
        set_up_by_oracles(line, "target/readme-pyvenv");
    }
    let t = tempdir();
    let run = Command::new(env!("CARGO_BIN_EXE_pgn-audit"))
        .current_dir(root)
        .args(["corpora/", "--quiet", "-o"])
        .arg(t.path())
        .output()
        .expect("run pgn-audit");
    assert_eq!(run.status.code(), Some(0));
    let castles = records(t.path(), "castling.csv");
    let script = "import pandas, polars, pgn_audit\n\
        a = pgn_audit.audit('corpora/')\n\
        castling = polars.DataFrame(a.castling)\n\
        print(castling.height, a.summary['games'])\n\
        print(castling.row(0, named=True)['offset'])\n\
        print(len(pandas.DataFrame.from_arrow(a.castling)))";
    let o = Command::new(venv.join("bin/python"))
        .args(["-c", script])
        .current_dir(root)
        .output()
        .expect("run the venv's python");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let games = summary(t.path())["games"].clone();
    assert!(!castles.is_empty());
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        format!(
            "{} {games}\n{}\n{}\n",
            castles.len(),
            castles[0]["offset"],
            castles.len()
        )
    );
}
