//! The Python package (issue 29): its pytest tests (tests/python), run
//! against the wheel that tests/setup-oracles built from this checkout and
//! installed into target/pydeps, beside pytest, pyarrow, polars, DuckDB and
//! pandas. Ignored where those are missing, failed with CI set (build.rs's
//! `oracle_python_package`), and failed when the installed package is
//! older than the sources, so that it never passes on another checkout's
//! code.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::common::python;

/// The newest modification time of the files below `dir`.
fn newest(dir: &Path) -> SystemTime {
    let mut found = SystemTime::UNIX_EPOCH;
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        let time = if path.is_dir() {
            newest(&path)
        } else {
            entry.metadata().unwrap().modified().unwrap()
        };
        found = found.max(time);
    }
    found
}

/// The extension module that setup-oracles installed.
fn installed_module(pydeps: &Path) -> Option<PathBuf> {
    let dir = pydeps.join("pgn_audit");
    std::fs::read_dir(dir)
        .ok()?
        .map(Result::unwrap)
        .find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name.starts_with("pgn_audit") && name.ends_with(".so")).then(|| e.path())
        })
}

#[test]
#[cfg_attr(
    not(oracle_python_package),
    ignore = "needs the Python package, pytest, pyarrow, polars, DuckDB and pandas: run tests/setup-oracles"
)]
fn the_python_package_passes_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pydeps = Path::new(env!("PGN_AUDIT_PYTHONPATH"));
    let module = installed_module(pydeps).unwrap_or_else(|| {
        panic!(
            "{}: no pgn_audit module: run tests/setup-oracles",
            pydeps.display()
        )
    });
    let built = std::fs::metadata(&module).unwrap().modified().unwrap();
    let sources = [root.join("src"), root.join("Cargo.lock")]
        .iter()
        .map(|p| match p.is_dir() {
            true => newest(p),
            false => std::fs::metadata(p).unwrap().modified().unwrap(),
        })
        .max()
        .unwrap();
    assert!(
        built >= sources,
        "{} is older than the sources: run tests/setup-oracles",
        module.display()
    );
    let out = python()
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/python",
        ])
        .current_dir(root)
        .env("PGN_AUDIT_BIN", env!("CARGO_BIN_EXE_pgn-audit"))
        .output()
        .expect("run pytest");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pytest failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let closing = text.lines().last().unwrap_or_default();
    assert!(
        closing.contains(" passed") && !closing.contains("failed") && !closing.contains("skipped"),
        "pytest ran: {closing}"
    );
    eprintln!("tests/python: {closing}");
}
