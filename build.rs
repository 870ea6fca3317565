//! Finds the tests' oracles (python-chess, Dask, Chromium) once per build,
//! so that a test whose oracle is missing is marked ignored rather than
//! passed. With `CI` set every oracle counts as present: its tests run, and
//! fail if it is in fact missing.

use std::path::Path;
use std::process::{Command, Stdio};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=tests/requirements.txt");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=PGN_AUDIT_PYTHON");
    let python = python();
    println!("cargo::rustc-env=PGN_AUDIT_PYTHON={python}");
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    // (cfg, program, arguments that succeed only where the oracle is)
    let oracles = [
        (
            "oracle_python_chess",
            python.as_str(),
            ["-c", "import chess"],
        ),
        ("oracle_dask", python.as_str(), ["-c", "import distributed"]),
        ("oracle_chromium", "chromium", ["--headless", "--version"]),
    ];
    for (cfg, program, args) in oracles {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if ci || runs(program, &args) {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}

/// The Python the tests run: `PGN_AUDIT_PYTHON`, else the project's
/// `.venv` where there is one, else `python3` on PATH.
fn python() -> String {
    if let Ok(p) = std::env::var("PGN_AUDIT_PYTHON") {
        return p;
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    if venv.exists() {
        return venv.to_string_lossy().into_owned();
    }
    "python3".to_owned()
}

fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
