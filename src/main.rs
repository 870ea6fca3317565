//! pgn-audit: parse the command line, run, exit with the run's status.

use clap::Parser;

fn main() {
    let args = pgn_audit::cli::Args::parse();
    let status = pgn_audit::app::run(&pgn_audit::app::Config::from_args(args));
    std::process::exit(status);
}
