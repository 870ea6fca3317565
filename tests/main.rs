//! The integration tests: one test binary, a module per area (as ripgrep's
//! `tests/` is), so that a change is linked into one executable instead of
//! one per file. `common` and `support` are the shared helpers; `hostile`
//! holds the hostile-input cases, a module per area of its own.
//!
//! Cargo's automatic test discovery is off (`autotests = false`): a file
//! here that is not declared below would not be built at all, and
//! `every_test_file_is_a_module` fails if one is missing.

mod common;
mod hostile;
mod support;

mod bad_input;
mod boundaries;
mod boundaries_crosscheck;
mod castling;
mod castling_crosscheck;
mod chunks;
mod claims;
mod claims_crosscheck;
mod cli;
mod cluster;
mod crosscheck;
mod fix;
mod helpmate;
mod helpmate_crosscheck;
mod html;
mod interrupt;
mod line;
mod manual;
mod merge;
mod moves_crosscheck;
mod parquet;
mod pieces;
mod pipeline;
mod properties;
mod python_package;
mod reading;
mod reading_fen;
mod readme;
mod results;
mod results_crosscheck;
mod zstd_frames;

/// Every `tests/*.rs` file and every folder holding a `mod.rs` is declared
/// as a module above: with automatic test discovery off, an undeclared file
/// would silently never run.
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = if path.extension().is_some_and(|e| e == "rs") {
            path.file_stem().unwrap().to_string_lossy().into_owned()
        } else if path.join("mod.rs").is_file() {
            path.file_name().unwrap().to_string_lossy().into_owned()
        } else {
            continue;
        };
        if name != "main" && !main.contains(&format!("\nmod {name};\n")) {
            missing.push(name);
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "not declared in tests/main.rs: {missing:?}"
    );
}
