//! pgn-audit: parse the command line, run, exit with the run's status.

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    pgn_audit::main()
}
