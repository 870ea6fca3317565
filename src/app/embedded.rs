//! The audit run inside another program's process (the Python package,
//! the tests, the fuzzer): the stages of `pgn-audit INPUT...`, their
//! reports kept in memory as Arrow tables ([`Reports::in_memory`]) instead
//! of a folder, with no signal handler of its own (the program owns the
//! process's signals and stops the run with a flag), and nothing said on
//! standard error but the progress bar where it is asked for: the read
//! errors are handed back. Inputs may be text held in memory
//! ([`Input::Memory`]), read as standard input is.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::game::audit_game_text;
use super::signals::Signals;
use super::worker::batch_end;
use super::{Config, Stages, Tell, most_threads, raw_size, start_pool, stat_sources};
use pgn_audit_core::audit::GameClass;
use pgn_audit_input::{self as input, Input};
use pgn_audit_report::{GameId, Reports, Summary, Tables};

/// An audit of `inputs`, as `pgn-audit INPUT...` runs it (with `--quirks`
/// where `quirks`).
#[derive(Debug, Clone, Default)]
pub struct Embedded {
    /// The inputs: paths as the command line takes them, or text in memory.
    pub inputs: Vec<Input>,
    /// About how many bytes of text go into a chunk of a source
    /// ([`input::CHUNK_BYTES`] where `None`; 0 cuts every source into
    /// games on the reader thread): the reports are the same whatever it
    /// is, which the tests check.
    pub chunk_bytes: Option<usize>,
    /// Worker threads (`-j`); every core by default.
    pub threads: Option<usize>,
    /// `--quirks`: the quirks table too.
    pub quirks: bool,
    /// A progress bar on standard error, where it is a terminal.
    pub progress: bool,
}

/// A run that read its inputs, to their end or until it was stopped.
#[derive(Debug)]
pub struct Finished {
    /// The reports' rows.
    pub tables: Tables,
    /// summary.json's counts.
    pub summary: Summary,
    /// The stop flag ended the run: the tables hold the games read before.
    pub interrupted: bool,
    /// What the command line says, after `pgn-audit: `, of each source that
    /// could not be read or not to its end, in input order: it then exits
    /// 2, its reports written.
    pub read_errors: Vec<String>,
}

impl Embedded {
    /// Runs the audit; setting `stop` stops it as the command line's first
    /// signal does (the reader stops, the batches in flight are finished).
    /// `Err` is the command line's one-line message of a run that cannot
    /// start (an input named twice, a pool that cannot be started).
    pub fn run(&self, stop: &Arc<AtomicBool>) -> Result<Finished, String> {
        let started = Instant::now();
        let signals = Signals::external(stop.clone());
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let config = Config {
            inputs: self.inputs.clone(),
            out: PathBuf::new(),
            threads: self.threads.unwrap_or(cores).min(most_threads(cores)),
            threads_asked: None,
            split: false,
            fix: false,
            quirks: self.quirks,
            html: false,
            excel_safe: false,
            quiet: !self.progress,
            fail_on_findings: false,
            piece: None,
            window: input::MaxWindow::default(),
            format: pgn_audit_report::Format::Parquet,
            chunk_bytes: self.chunk_bytes.unwrap_or(input::CHUNK_BYTES),
        };
        let failed = |e: &dyn std::fmt::Display| input::printable(&e.to_string()).into_owned();
        // No output folder: the empty path names none.
        let sources =
            input::collect_sources(&config.inputs, Path::new("")).map_err(|e| failed(&e))?;
        let stats = stat_sources(&sources);
        let pool = start_pool(config.threads).map_err(|e| failed(&e))?;
        signals.begin_reports();
        let bar = crate::progress::bar(raw_size(&sources, &stats), config.quiet);
        let stages = Stages {
            config: &config,
            sources: &sources,
            stats: &stats,
            bar: &bar,
            started,
            raw_read: Arc::default(),
        };
        let reports = Reports::in_memory(self.quirks);
        let (read, read_errors) = stages
            .read_all(reports, Arc::new(pool), &signals, None, Tell::Collect)
            .map_err(|e| failed(&e))?;
        // Rows kept in memory are never a write that fails.
        let (summary, tables) = read
            .and_then(Reports::into_tables)
            .ok_or("internal error: the reports kept in memory were lost")?;
        Ok(Finished {
            tables,
            summary,
            interrupted: signals.signalled(),
            read_errors,
        })
    }
}

/// One game audited on its own (`pgn_audit.audit_game`).
#[derive(Debug)]
pub struct OneGame {
    /// `clean`, `flagged` or `incomplete`, as summary.json counts it.
    pub class: &'static str,
    /// The plies replayed.
    pub plies: u32,
    /// The moves accepted with sloppy notation.
    pub notation_quirks: u64,
    /// Its rows, as a run over a source `<text>` that holds only this game
    /// writes them, quirks included.
    pub tables: Tables,
}

/// Audits the one game of `text`, as a run over a source named `<text>`
/// that holds it: cut by the reader's splitter and audited by the
/// workers' function (a panic while reading it is its parse_error, a game
/// over the cap is marked so, as in a run). `Err` says why `text` is not
/// one game.
pub fn audit_one_game(text: &[u8]) -> Result<OneGame, String> {
    let mut reports = Reports::in_memory(true);
    let mut games = 0_u64;
    let mut last = None;
    let mut failed = None;
    input::read_batches(
        text,
        text.len().max(1),
        || None,
        |batch| {
            for (k, span) in batch.games.iter().enumerate() {
                games += 1;
                let bytes = &batch.bytes[batch.range(*span)];
                let (tags, report) = audit_game_text(bytes, batch_end(&batch, k, None));
                let id = GameId {
                    source: "<text>",
                    game: games,
                    offset: span.start,
                    line: batch.lines[k],
                    tags: &tags,
                };
                if let Err(e) = reports.write_game(&id, &report, bytes) {
                    failed = Some(e.to_string());
                }
                last = Some((report.class(), report.plies));
            }
            ControlFlow::Continue(())
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    let (class, plies) = match (last, games) {
        (Some(one), 1) => one,
        (None, _) => return Err("the text holds no game".to_owned()),
        (Some(_), n) => {
            return Err(format!(
                "the text holds {n} games: audit() takes a text of several"
            ));
        }
    };
    let (summary, tables) = reports
        .into_tables()
        .ok_or("internal error: the reports kept in memory were lost")?;
    Ok(OneGame {
        class: match class {
            GameClass::Clean => "clean",
            GameClass::Flagged => "flagged",
            GameClass::Incomplete => "incomplete",
        },
        plies,
        notation_quirks: summary.notation_quirks,
        tables,
    })
}
