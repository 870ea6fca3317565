//! pgn-audit: parse the command line, run, exit with the run's status.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use pgn_audit::{app, cli};

fn main() -> ExitCode {
    let cli = cli::Cli::try_parse_args(std::env::args_os()).unwrap_or_else(|e| e.exit());
    let exit = match cli.command {
        Some(cli::Command::Merge(args)) => app::run_merge(&args),
        Some(cli::Command::Plan(args)) => app::run_plan(&args),
        Some(cli::Command::Audit(args)) => app::run(&app::Config::from_args(args)),
        None => app::run(&app::Config::from_args(cli.audit)),
    };
    exit.into()
}
