//! Finds the tests' oracles (python-chess, pyarrow, DuckDB, Dask, Python's
//! venv, Chromium with chromedriver, selenium and Pillow) once per build,
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
    // The tests' Python packages, installed by tests/setup-oracles, which
    // copies tests/requirements.txt there last: that one file is watched,
    // not the folder (cargo would walk its thousands of files on every
    // build, and Python's own writes there, its __pycache__, would make
    // this script run and the package build again). Where it is missing it
    // is made empty (which setup-oracles' comparison never takes for an
    // install), since a missing watched file makes this script run on
    // every build.
    // Read when the script runs, not when it was built: a build script
    // compiled in another checkout must not point at that checkout's folder.
    let root = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let pydeps = Path::new(&root).join("target/pydeps");
    let installed = pydeps.join("requirements.txt");
    if !installed.exists() {
        let _ = std::fs::create_dir_all(&pydeps);
        let _ = std::fs::write(&installed, b"");
    }
    println!("cargo::rerun-if-changed={}", installed.display());
    let pydeps = pydeps.to_string_lossy();
    println!("cargo::rustc-env=PGN_AUDIT_PYTHON={python}");
    println!("cargo::rustc-env=PGN_AUDIT_PYTHONPATH={pydeps}");
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    // (cfg, the commands that all succeed only where the oracle is)
    type Command<'a> = (&'a str, &'a [&'a str]);
    let py = python.as_str();
    let oracles: [(&str, &[Command]); 7] = [
        ("oracle_python_chess", &[(py, &["-c", "import chess"])]),
        // Parquet inputs written by the Arrow project's Python library.
        ("oracle_pyarrow", &[(py, &["-c", "import pyarrow.parquet"])]),
        // Parquet reports read back by another engine than the one that
        // wrote them.
        ("oracle_duckdb", &[(py, &["-c", "import duckdb"])]),
        // The Python package's tests (tests/python): the wheel that
        // setup-oracles builds and installs, pytest, and the libraries that
        // load its tables.
        (
            "oracle_python_package",
            &[(
                py,
                &[
                    "-c",
                    "import pgn_audit, pytest, pyarrow, polars, duckdb, pandas",
                ],
            )],
        ),
        (
            "oracle_dask",
            &[(py, &["-c", "import distributed, dask_jobqueue"])],
        ),
        // The README's Python steps: a virtual environment of the python3
        // on PATH, as the README makes it (pip then installs from PyPI).
        (
            "oracle_venv",
            &[("python3", &["-c", "import ensurepip, venv"])],
        ),
        // The browser test: Debian's chromium and chromedriver, driven by
        // selenium; Pillow reads its screenshots.
        (
            "oracle_chromium",
            &[
                ("chromium", &["--headless", "--version"]),
                ("chromedriver", &["--version"]),
                (py, &["-c", "import selenium, PIL"]),
            ],
        ),
    ];
    collections(ci);
    for (cfg, checks) in oracles {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if ci
            || checks
                .iter()
                .all(|(program, args)| runs(program, args, &pydeps))
        {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}

/// Marks the tests' data set from the shared collections beside the
/// repository as present (`collection_cha`: CHA's test vectors), as the
/// oracles are: with `CI` set it counts as present.
fn collections(ci: bool) {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let path = std::path::Path::new(&root).join("../shared/collections/cha/test-vector.txt");
    println!("cargo::rustc-check-cfg=cfg(collection_cha)");
    if ci || path.is_file() {
        println!("cargo::rustc-cfg=collection_cha");
    }
}

/// The Python the tests run: `PGN_AUDIT_PYTHON`, else `python3` on PATH.
fn python() -> String {
    std::env::var("PGN_AUDIT_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

fn runs(program: &str, args: &[&str], pythonpath: &str) -> bool {
    Command::new(program)
        .args(args)
        .env("PYTHONPATH", pythonpath)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
