//! The command line, as fixed by the report contract: flags only, no I/O.

use std::path::PathBuf;

use clap::Parser;

/// Audits chess games in PGN against the Laws of Chess: illegal castles,
/// false draw claims, games played past an automatic draw, and games that
/// cannot be replayed. Writes CSV reports and summary.json.
#[derive(Debug, Parser)]
#[command(
    name = "pgn-audit",
    version,
    after_help = "Also: pgn-audit merge <REPORT_DIR>... -o <OUT> merges report folders \
                  made from disjoint inputs into the reports of one run over them all."
)]
pub struct Args {
    /// PGN files (plain, .zst, .gz or .bz2, told by their magic bytes),
    /// directories (every PGN file below, in sorted order), or - for
    /// standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,

    /// Where the reports go; created if missing.
    #[arg(short, long, value_name = "DIR", default_value = "reports")]
    pub out: PathBuf,

    /// Worker threads (default: every core).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    /// Also write clean.pgn and rejected.pgn with each game's original bytes.
    #[arg(long)]
    pub split: bool,

    /// Also write quirks.csv: one row per accepted move (or tag line, or FEN
    /// castling right) whose notation is sloppy.
    #[arg(long)]
    pub quirks: bool,

    /// Do not write report.html (the CSV files and summary.json are the same).
    #[arg(long)]
    pub no_html: bool,
}

/// `pgn-audit merge`: merges report folders made from disjoint inputs into
/// the reports one run over all those inputs, in this order, would write.
#[derive(Debug, Parser)]
#[command(name = "pgn-audit merge", version)]
pub struct MergeArgs {
    /// Report folders, in the order of their inputs.
    #[arg(required = true, value_name = "REPORT_DIR")]
    pub dirs: Vec<PathBuf>,

    /// Where the merged reports go; created if missing.
    #[arg(short, long, value_name = "OUT", required = true)]
    pub out: PathBuf,
}
