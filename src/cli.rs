//! The command line, as fixed by the report contract: flags only, no I/O.
//! `pgn-audit INPUT...` is `pgn-audit audit INPUT...`; `pgn-audit merge`
//! merges report folders. A file literally named `merge` or `audit` is
//! audited as `./merge`.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{ArgGroup, Args, CommandFactory, Parser, Subcommand};

/// What `--help` says after the options: what a run writes and where, and
/// the exit status.
const AUDIT_NOTE: &str = "The reports go into the output folder (default reports/): \
castling.csv, claims.csv, missed_draws.csv, errors.csv, results.csv, with --quirks \
quirks.csv (NAME.parquet with --format parquet), with --split clean.pgn and rejected.pgn, \
summary.json and, unless --no-html, report.html, the page to open in a browser. The \
reports of an earlier run in that folder are removed first. A dead position (FIDE 5.2.2) and a loss on time \
against a side that cannot mate (6.9) are judged by insufficient material or by a \
helpmate analysis (chasolver); the basis column says which.

Exit status: 0 when the run completed (findings are not failures); 1 with \
--fail-on-findings when a game is flagged or incomplete; 2 for a usage or input error, \
a report that cannot be written (at its close too) or a thread the OS refuses; \
130 when interrupted. Any other status is a bug (an internal error): no summary.json is \
written.";

/// Audits chess games in PGN against the Laws of Chess: illegal castles,
/// false draw claims, games played past an automatic draw, results that
/// contradict the final position, and games that cannot be replayed.
#[derive(Debug, Parser)]
#[command(
    name = "pgn-audit",
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = AUDIT_NOTE
)]
pub struct Cli {
    /// `merge`, `plan` or `sources`; none for an audit.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,

    /// The audit's flags and inputs.
    #[command(flatten)]
    pub(crate) audit: AuditArgs,
}

impl Cli {
    /// Parses `args` (the program's name first). A misspelt long option
    /// that clap's own measure finds nothing near (`--ouput`) is given the
    /// nearest long option within two edits (`--out`).
    pub(crate) fn try_parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        Cli::try_parse_from(args).map_err(suggest_long)
    }
}

/// A usage error in one line, as the contract has every error: clap's
/// message without its `error: ` (the arguments it lists after it joined
/// with commas), then each of its tips after `; `; the usage block and the
/// pointer to `--help` left out.
pub(crate) fn usage_error(e: clap::Error, args: &[OsString]) -> String {
    // The same arguments parsed again by the command without its styles:
    // the message then holds no style of clap's, and nothing of the user's
    // own text (an escape sequence in an option) is stripped as if it were
    // one. The caller prints the line with its control characters escaped.
    let plain = Cli::command()
        .styles(clap::builder::Styles::plain())
        .try_get_matches_from(args);
    let text = match plain {
        Err(plain) => suggest_long(plain).render().ansi().to_string(),
        Ok(_) => e.render().to_string(),
    };
    let mut paragraphs = text.split("\n\n").filter(|p| !p.trim().is_empty());
    let mut line = String::new();
    if let Some(first) = paragraphs.next() {
        let mut lines = first.lines();
        let head = lines.next().unwrap_or_default().trim_end();
        line.push_str(head.strip_prefix("error: ").unwrap_or(head));
        let listed: Vec<&str> = lines.map(str::trim).filter(|l| !l.is_empty()).collect();
        if !listed.is_empty() {
            line.push(' ');
            line.push_str(&listed.join(", "));
        }
    }
    for tip in paragraphs
        .flat_map(str::lines)
        .filter_map(|l| l.trim_start().strip_prefix("tip: "))
    {
        line.push_str("; ");
        line.push_str(tip.trim_end());
    }
    line
}

/// Adds the nearest long option to an unknown-argument error that has no
/// suggestion, in place of the advice to pass it after `--`.
fn suggest_long(mut e: clap::Error) -> clap::Error {
    if e.kind() != ErrorKind::UnknownArgument || e.get(ContextKind::SuggestedArg).is_some() {
        return e;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return e;
    };
    let Some(typed) = arg.strip_prefix("--") else {
        return e;
    };
    let typed = typed.split('=').next().unwrap_or(typed).to_owned();
    let mut cmd = Cli::command();
    cmd.build();
    let mut longs: Vec<&str> = cmd
        .get_arguments()
        .chain(cmd.get_subcommands().flat_map(|s| s.get_arguments()))
        .filter_map(|a| a.get_long())
        .collect();
    longs.sort_unstable();
    longs.dedup();
    let nearest = longs
        .into_iter()
        .map(|long| (edits(&typed, long), long))
        .filter(|(d, _)| *d <= 2 && *d < typed.chars().count())
        .min();
    if let Some((_, long)) = nearest {
        e.insert(
            ContextKind::SuggestedArg,
            ContextValue::String(format!("--{long}")),
        );
        e.insert(ContextKind::Suggested, ContextValue::StyledStrs(Vec::new()));
    }
    e
}

/// The Levenshtein distance: single-character insertions, deletions and
/// substitutions that turn `a` into `b`.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// What to do: audit (the default) or merge.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Audits PGN into a report folder (the default: `pgn-audit INPUT...`).
    #[command(after_help = AUDIT_NOTE)]
    Audit(AuditArgs),
    /// Merges report folders made from disjoint inputs into the reports of
    /// one run over them all.
    Merge(MergeArgs),
    /// Prints the pieces a file can be audited in (`--piece`), one
    /// `START..END` a line.
    Plan(PlanArgs),
    /// Prints the sources an audit of the same inputs reads, in its order,
    /// one JSON object a line: `source` (as the reports name it), `path`
    /// (the file that holds it), `format` (plain, zstd, gzip, bzip2, xz,
    /// parquet or zip), `size`, `modified` (as summary.json writes it) and
    /// `modified_ns`.
    Sources(SourcesArgs),
}

/// `pgn-audit [audit]`: the inputs and the options that shape the reports.
#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// PGN files (plain, .zst, .gz, .bz2 or .xz, told by their magic bytes),
    /// Parquet tables of games (a movetext column, tags in the others),
    /// zip archives (every PGN member), directories (every PGN file and zip
    /// archive below, in sorted order; never the output folder), or - for
    /// standard input (once). A file named `merge` or `audit`: write
    /// `./merge`.
    #[arg(required = true, value_name = "INPUT")]
    pub(crate) inputs: Vec<PathBuf>,

    /// Where the reports go; created if missing. The reports of an earlier
    /// run in it are replaced.
    #[arg(short, long, value_name = "DIR", default_value = "reports")]
    pub(crate) out: PathBuf,

    /// Worker threads (default: one per core). More than 4 per core is
    /// lowered to 4 per core, or to 8 on a machine with one or two cores,
    /// with a note.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) threads: Option<u16>,

    /// Also write clean.pgn and rejected.pgn with each game's original bytes.
    #[arg(long)]
    pub(crate) split: bool,

    /// Also write fixed.pgn, every game as read, with the result the Laws
    /// give where the recorded one contradicts the board (a missed
    /// automatic draw, a checkmate or stalemate not scored, a dead position
    /// or a loss on time scored as a win), and corrections.csv, one row per
    /// corrected game.
    #[arg(long)]
    pub(crate) fix: bool,

    /// Also write quirks.csv: one row per accepted move (or tag line, or FEN
    /// castling right) whose notation is sloppy.
    #[arg(long)]
    pub(crate) quirks: bool,

    /// Do not write report.html (the CSV files are the same).
    #[arg(long)]
    pub(crate) no_html: bool,

    /// Write a ' before each CSV cell that starts with =, +, -, @ or a tab,
    /// so that a spreadsheet shows it as text instead of running it as a
    /// formula. Off by default: the cells are the values as read. For CSV
    /// reports only: a Parquet cell is a typed value, not spreadsheet text.
    #[arg(long)]
    pub(crate) excel_safe: bool,

    /// The row reports as CSV files (NAME.csv) or as Parquet files
    /// (NAME.parquet: the same columns, numbers as 64-bit integers).
    #[arg(long, value_name = "FORMAT", default_value = "csv")]
    pub(crate) format: ReportFormat,

    /// No progress bar, no summary table, no notes; errors still go to
    /// standard error.
    #[arg(long)]
    pub(crate) quiet: bool,

    /// Exit 1 (instead of 0) when the run completed and at least one game
    /// is flagged or incomplete.
    #[arg(long)]
    pub(crate) fail_on_findings: bool,

    /// Audits one piece of one file: its bytes START..END as stored (a
    /// multi-frame zstd file is cut at frame starts; see `pgn-audit plan`).
    /// `merge` joins the pieces' folders into one run's reports.
    #[arg(long, value_name = "START..END")]
    pub(crate) piece: Option<pgn_audit_input::piece::Bounds>,

    /// The largest zstd window or xz dictionary a file may ask for, in MiB
    /// (rounded down to a power of two, at most 2048): a file that asks for
    /// more is refused with a read error, so memory stays bounded. `zstd
    /// --long=31` files need 2048.
    #[arg(long, value_name = "MIB", default_value_t = pgn_audit_input::MaxWindow::DEFAULT_MIB,
          value_parser = clap::value_parser!(u32).range(1..=2048))]
    pub(crate) max_window: u32,
}

/// `--format`: how the row reports are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ReportFormat {
    /// NAME.csv.
    Csv,
    /// NAME.parquet.
    Parquet,
}

/// `pgn-audit merge`: merges report folders made from disjoint inputs into
/// the reports one run over all those inputs, in this order, would write.
#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// Report folders, in the order of their inputs, written by this
    /// version of pgn-audit with the same options.
    #[arg(required = true, value_name = "REPORT_DIR")]
    pub(crate) dirs: Vec<PathBuf>,

    /// Where the merged reports go; created if missing. The reports of an
    /// earlier run in it are replaced.
    #[arg(short, long, value_name = "OUT", required = true)]
    pub(crate) out: PathBuf,

    /// No summary table; errors still go to standard error.
    #[arg(long)]
    pub(crate) quiet: bool,
}

/// `pgn-audit plan`: the pieces of one file, for `--piece`; one of
/// `--piece-size` and `--text-estimate` says what to print.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("what").required(true).args(["piece_size", "text_estimate"])))]
pub(crate) struct PlanArgs {
    /// A PGN file, plain or compressed.
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,

    /// About how many bytes (as stored) each piece holds. A plain file is
    /// cut anywhere (each piece starts reading at the first game after its
    /// start); a zstd file of several frames (pzstd's, Lichess's, or
    /// frames joined one after another) at frame starts; any other
    /// compressed file is one piece.
    #[arg(
        long,
        value_name = "BYTES",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub(crate) piece_size: Option<u64>,

    /// Print, instead of pieces, about how many bytes of text the file
    /// holds: a plain file its size, a zstd file its size times what its
    /// first 8 MiB decompress to over 8 MiB, any other file its size. The
    /// Dask driver plans its default pieces from it.
    #[arg(long)]
    pub(crate) text_estimate: bool,

    /// With `--text-estimate`: the largest zstd window the file may ask
    /// for, in MiB, as the audit's `--max-window` (a file that asks for
    /// more is estimated from nothing: 0).
    #[arg(long, value_name = "MIB", default_value_t = pgn_audit_input::MaxWindow::DEFAULT_MIB,
          value_parser = clap::value_parser!(u32).range(1..=2048))]
    pub(crate) max_window: u32,
}

/// `pgn-audit sources`: the sources an audit of these inputs reads.
#[derive(Debug, Args)]
pub(crate) struct SourcesArgs {
    /// The inputs, as an audit takes them: PGN files (plain or compressed),
    /// Parquet tables of games, zip archives, directories, or - for
    /// standard input. A file the audit refuses is said as it says it
    /// (exit 2), and gets no line.
    #[arg(required = true, value_name = "INPUT")]
    pub(crate) inputs: Vec<PathBuf>,

    /// The output folder the audit would write: a directory walk skips it,
    /// and an input inside it is refused, as in the audit.
    #[arg(short, long, value_name = "DIR", default_value = "reports")]
    pub(crate) out: PathBuf,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_count_insertions_deletions_substitutions() {
        assert_eq!(edits("ouput", "out"), 2);
        assert_eq!(edits("split", "split"), 0);
        assert_eq!(edits("spilt", "split"), 2);
        assert_eq!(edits("", "out"), 3);
        assert_eq!(edits("quiet", ""), 5);
    }

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
