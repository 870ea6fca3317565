//! pgn-audit: audits chess games in PGN against the Laws of Chess.
//!
//! The pipeline: `pgn_audit_input` (sources, decompression, games cut at
//! their boundaries) → `pgn_audit_core` (one game's text read, replayed and
//! judged, pure) → `pgn_audit_report` (ordered writers) → [`app`], the run
//! that the command line ([`cli`]) starts.
//!
//! Entry points: [`main`] (the binary's whole run), [`app::audit_bytes`]
//! (the whole-input path in memory, for the fuzzer and the property tests)
//! and [`cli::Cli`] (the command line, for the manual page and the shell
//! completions).

#![forbid(unsafe_code)]

use std::process::ExitCode;

pub mod app;
pub mod cli;
mod progress;

/// Parses the command line, runs the audit, `merge`, `plan` or `sources`
/// it asks for, and gives the run's exit status.
pub fn main() -> ExitCode {
    let cli = cli::Cli::try_parse_args(std::env::args_os()).unwrap_or_else(|e| e.exit());
    let exit = match cli.command {
        Some(cli::Command::Merge(args)) => app::run_merge(&args),
        Some(cli::Command::Plan(args)) => app::run_plan(&args),
        Some(cli::Command::Sources(args)) => app::run_sources(&args),
        Some(cli::Command::Audit(args)) => app::run(&app::Config::from_args(args)),
        None => app::run(&app::Config::from_args(cli.audit)),
    };
    exit.into()
}
