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
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match cli::Cli::try_parse_args(&args) {
        Ok(cli) => cli,
        // --help and --version: standard output, exit 0, as clap has them.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            app::say(&cli::usage_error(e, &args));
            return app::Exit::Input.into();
        }
    };
    let exit = match cli.command {
        Some(cli::Command::Merge(args)) => app::run_merge(&args),
        Some(cli::Command::Plan(args)) => app::run_plan(&args),
        Some(cli::Command::Sources(args)) => app::run_sources(&args),
        Some(cli::Command::Audit(args)) => app::run(&app::Config::from_args(args)),
        None => app::run(&app::Config::from_args(cli.audit)),
    };
    exit.into()
}
