//! pgn-audit: parse the command line, run, exit with the run's status.
//! `pgn-audit merge ...` merges report folders instead (a file named
//! `merge` can still be audited as `./merge`).

use clap::Parser;
use pgn_audit::{app, cli};

fn main() {
    let status = if std::env::args_os().nth(1).is_some_and(|a| a == "merge") {
        let args = cli::MergeArgs::parse_from(std::env::args_os().skip(1));
        app::run_merge(&args.dirs, &args.out)
    } else {
        app::run(&app::Config::from_args(cli::Args::parse()))
    };
    std::process::exit(status);
}
