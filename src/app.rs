//! Wires the stages: the reader ([`reader`], on a thread of its own) cuts
//! each source into batches of whole games, a rayon pool audits them
//! ([`worker`]), the reorder buffer ([`ordered`]) hands them back in input
//! order, and the sink ([`sink`]) writes them, so the reports are
//! byte-identical for any number of threads. Owns the progress bar, the
//! interrupt flag ([`signals`]) and the exit status. [`embedded`] runs the
//! same stages inside another program (the Python package), the reports
//! kept in memory.

pub mod embedded;
mod game;
mod merge;
mod ordered;
mod plan;
mod reader;
mod signals;
mod sink;
mod sources;
mod worker;

pub(crate) use merge::run_merge;
pub(crate) use plan::run_plan;
pub(crate) use sources::run_sources;

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use ordered::{Ended, StageError};
use reader::Reader;
use signals::Signals;
use sink::{Sink, Stat, Tell};
use worker::Audited;

use crate::cli::{AuditArgs, ReportFormat};
use pgn_audit_input::{self as input, Input, Origin, PathError, Source};
use pgn_audit_report::{FileStat, Format, MergeError, Options, PieceInfo, Reports, Summary};

/// How a run ends: its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// The run completed (findings are not failures).
    Completed,
    /// With `--fail-on-findings`: the run completed, and at least one game
    /// is flagged or incomplete.
    Findings,
    /// A usage or input/output error.
    Input,
    /// An internal error (a bug: the reader thread panicked, the signal
    /// handler could not be installed), as for a panic. The message says
    /// `pgn-audit: internal error: ...`; no summary.json is written, so
    /// that no folder vouches for a run that did not complete.
    Internal,
    /// Interrupted (Ctrl-C, SIGTERM or SIGHUP). The reports cover the
    /// games done and summary.json says `"interrupted": true`. A signal
    /// before the output folder is touched ends the run at once, writing
    /// nothing; a second signal ends the process at once, leaving only
    /// `.partial` files (and no summary.json).
    Interrupted,
}

impl Exit {
    /// The process's exit status: 0, 1, 2, 101 or 130.
    pub(crate) fn status(self) -> u8 {
        match self {
            Exit::Completed => 0,
            Exit::Findings => 1,
            Exit::Input => 2,
            Exit::Internal => 101,
            Exit::Interrupted => 130,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.status())
    }
}

/// Why a run or a merge ends before it completes, said in one line after
/// `pgn-audit: `.
#[derive(Debug, thiserror::Error)]
enum Failure {
    /// The inputs cannot be read (a missing file, an input named twice),
    /// or the output folder names something other than a folder.
    #[error(transparent)]
    Input(#[from] PathError),
    /// `-o -`: the reports are a folder of files, which standard output is
    /// not.
    #[error("-: standard output is no report folder: name a folder with -o DIR")]
    StandardOutput,
    /// `--excel-safe` with `--format parquet`: the quote is for spreadsheet
    /// text, and a Parquet cell is a typed value.
    #[error(
        "--excel-safe: Parquet reports hold typed values, not spreadsheet text: use it with --format csv"
    )]
    ExcelSafeParquet,
    /// The OS refused a thread (its limit on threads or processes, memory
    /// for a stack): the reason it gave.
    #[error("cannot start a thread: {0}")]
    Thread(String),
    #[error("cannot write reports: {0}")]
    Output(PathError),
    #[error("merge: {0}")]
    Merge(#[from] MergeError),
    /// A signal stopped a merge while it wrote the folder.
    #[error("merge interrupted: {} holds no reports", .0.display())]
    MergeInterrupted(PathBuf),
    /// `--piece` given bounds or inputs it cannot take.
    #[error("{0}")]
    Piece(String),
    #[error("internal error: cannot install the signal handler: {0}")]
    Signals(#[source] ctrlc::Error),
    /// The reader stage failed: the reports are not the whole input.
    #[error("internal error: {0}")]
    Stage(#[source] StageError),
}

impl Failure {
    /// A thread that the OS refused to start, for `e`, the error it gave.
    fn thread(e: &io::Error) -> Failure {
        Failure::Thread(input::io_cause(e))
    }
}

impl From<ctrlc::Error> for Failure {
    /// The handler's thread refused (`EAGAIN`, or no memory for its stack)
    /// is a limit of the OS, not a bug.
    fn from(e: ctrlc::Error) -> Failure {
        match e {
            ctrlc::Error::System(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::OutOfMemory
                ) =>
            {
                Failure::thread(&e)
            }
            e => Failure::Signals(e),
        }
    }
}

impl From<StageError> for Failure {
    fn from(e: StageError) -> Failure {
        match e {
            StageError::Spawn(e) => Failure::thread(&e),
            e => Failure::Stage(e),
        }
    }
}

impl Failure {
    fn exit(&self) -> Exit {
        match self {
            Failure::Signals(_) | Failure::Stage(_) => Exit::Internal,
            Failure::MergeInterrupted(_) => Exit::Interrupted,
            _ => Exit::Input,
        }
    }
}

/// Worker threads per core at most: workers only audit (the reader and
/// the decompressors have threads of their own), and each holds up to two
/// batches in flight, so more would cost memory and start-up time, not
/// speed.
const THREADS_PER_CORE: usize = 4;
/// Worker threads allowed on any machine, however few its cores, so that
/// `-j 8` means the same everywhere.
const THREADS_ALWAYS: usize = 8;

/// The hidden environment variable that sets [`Config::chunk_bytes`].
const CHUNK_BYTES_VAR: &str = "PGN_AUDIT_CHUNK_BYTES";

/// A validated run configuration.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// The inputs as given: files, folders, `-` for standard input (OS
    /// strings: a file name need not be UTF-8), or text in memory.
    pub(crate) inputs: Vec<Input>,
    /// The output folder (`-o`).
    pub(crate) out: PathBuf,
    /// Worker threads: `-j` or every core, at most 4 per core (8 on any
    /// machine).
    pub(crate) threads: usize,
    /// The `-j` asked for, where it was more than that.
    pub(crate) threads_asked: Option<usize>,
    /// Write the split PGN files (`--split`).
    pub(crate) split: bool,
    /// Write fixed.pgn and corrections.csv (`--fix`).
    pub(crate) fix: bool,
    /// Write quirks.csv (`--quirks`).
    pub(crate) quirks: bool,
    /// Write report.html (off with `--no-html`).
    pub(crate) html: bool,
    /// Quote the CSV cells a spreadsheet would run (`--excel-safe`).
    pub(crate) excel_safe: bool,
    /// The row reports' format (`--format`).
    pub(crate) format: Format,
    /// No progress bar, table or notes (`--quiet`).
    pub(crate) quiet: bool,
    /// Exit with [`Exit::Findings`] when a game is flagged or incomplete.
    pub(crate) fail_on_findings: bool,
    /// The one piece of the one input to audit (`--piece`).
    pub(crate) piece: Option<input::piece::Bounds>,
    /// The largest zstd window or xz dictionary a source may ask for
    /// (`--max-window`).
    pub(crate) window: input::MaxWindow,
    /// About how many bytes of text go into a chunk of a source: the
    /// hidden variable `PGN_AUDIT_CHUNK_BYTES` for the tests, whose reports
    /// are the same whatever its value; 0 cuts every source into games on
    /// the reader thread, by one splitter.
    pub(crate) chunk_bytes: usize,
}

impl Config {
    /// The configuration of the audit `args` ask for on this machine.
    pub(crate) fn from_args(args: AuditArgs) -> Config {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let asked = args.threads.map_or(cores, usize::from);
        let threads = asked.min(most_threads(cores));
        Config {
            inputs: path_inputs(&args.inputs),
            out: args.out,
            threads,
            threads_asked: (asked > threads).then_some(asked),
            split: args.split,
            fix: args.fix,
            quirks: args.quirks,
            html: !args.no_html,
            excel_safe: args.excel_safe,
            format: match args.format {
                ReportFormat::Csv => Format::Csv,
                ReportFormat::Parquet => Format::Parquet,
            },
            quiet: args.quiet,
            fail_on_findings: args.fail_on_findings,
            piece: args.piece,
            window: input::MaxWindow::mib(args.max_window),
            chunk_bytes: std::env::var(CHUNK_BYTES_VAR)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(input::CHUNK_BYTES),
        }
    }
}

/// The command line's inputs, each a path.
fn path_inputs(paths: &[PathBuf]) -> Vec<Input> {
    paths.iter().cloned().map(Input::Path).collect()
}

/// The most worker threads a run starts on a machine with `cores` cores:
/// [`THREADS_PER_CORE`] per core, and never fewer than [`THREADS_ALWAYS`].
/// A larger `-j` is cut to it, with a note.
fn most_threads(cores: usize) -> usize {
    cores.saturating_mul(THREADS_PER_CORE).max(THREADS_ALWAYS)
}

/// What the reader and the workers send to the writer, numbered in input
/// order.
enum Message {
    /// Games of a source: a batch the reader cut, or a part of a chunk.
    Batch {
        source: usize,
        /// The source offset just past the last game, if there is one: what
        /// an interrupted run counts as read of the source.
        end: Option<u64>,
        /// The buffer the games index.
        bytes: Arc<Vec<u8>>,
        games: Vec<Audited>,
        /// The line ends of the whole chunk, on its last part (0 for the
        /// other parts, and for a batch the reader cut): the lines of the
        /// next chunk count on from them.
        lines: u64,
        /// The rest of the chunk, to audit once this part is written.
        more: Option<Box<worker::ChunkJob>>,
    },
    SourceEnd {
        source: usize,
        /// The bytes read of the source; `None` where the reading stopped
        /// early: then the end of the last game written.
        bytes: Option<u64>,
        /// The error that ended the source, if one did.
        error: Option<PathError>,
    },
}

/// Writes `pgn-audit: MESSAGE` on standard error, in one line: a control
/// character in it (a newline or an escape sequence in a file name) is
/// written escaped. A standard error that cannot be written (closed, a
/// pipe whose reader is gone) costs the message, never the run: the exit
/// status still says how it ended.
pub(crate) fn say(message: &str) {
    to_stderr(&format!("pgn-audit: {}\n", input::printable(message)));
}

/// Writes `text` on standard error, its lines ended where it ends them and
/// any other control character escaped, ignoring a failed write (`eprint!`
/// panics on one). The progress bar ignores its write errors too.
fn to_stderr(text: &str) {
    let lines: Vec<_> = text.split('\n').map(input::printable).collect();
    let _ = io::Write::write_all(&mut io::stderr().lock(), lines.join("\n").as_bytes());
}

/// Runs the audit; says why it failed, if it did.
pub(crate) fn run(config: &Config) -> Exit {
    Signals::install()
        .map_err(Failure::from)
        .and_then(|signals| audit_inputs(config, &signals))
        .unwrap_or_else(|e| {
            say(&e.to_string());
            e.exit()
        })
}

/// The run's stages, in order: the sources, the pool, the output folder,
/// then reader, pool and sink until the input ends (`signals` installed
/// first, so that a signal is honoured from the start).
fn audit_inputs(config: &Config, signals: &Signals) -> Result<Exit, Failure> {
    let started = Instant::now();
    if let Some(asked) = config.threads_asked.filter(|_| !config.quiet) {
        say(&format!(
            "-j {asked}: using {} threads, the most this machine allows \
             ({THREADS_PER_CORE} per core, at least {THREADS_ALWAYS})",
            config.threads
        ));
    }
    check_out_folder(&config.out)?;
    if config.excel_safe && config.format == Format::Parquet {
        return Err(Failure::ExcelSafeParquet);
    }
    let sources = input::collect_sources(&config.inputs, &config.out)?;
    let stats = stat_sources(&sources);
    // A piece is opened before the output folder is touched, so that a
    // bound it cannot take writes nothing.
    let raw_read = Arc::new(AtomicU64::new(0));
    let piece = match config.piece {
        Some(bounds) => Some(open_piece(&sources, bounds, &raw_read, config.window)?),
        None => None,
    };
    let pool = start_pool(config.threads)?;
    signals.begin_reports();
    let reports = create_reports(config)?;
    if !config.quiet
        && sources.iter().any(|s| s.origin == Origin::Stdin)
        && io::stdin().is_terminal()
    {
        say("reading PGN from standard input (end with Ctrl-D)");
    }
    let bar = crate::progress::bar(raw_size(&sources, &stats), config.quiet);
    let stages = Stages {
        config,
        sources: &sources,
        stats: &stats,
        bar: &bar,
        started,
        raw_read,
    };
    let summary = stages.run(reports, Arc::new(pool), signals, piece)?;
    let Some(summary) = summary else {
        return Ok(Exit::Input);
    };
    if !config.quiet {
        to_stderr(&summary.table(&config.out, crate::progress::table_width()));
    }
    Ok(exit_status(config, &summary, signals))
}

/// The pool of `threads` workers that audit the batches.
fn start_pool(threads: usize) -> Result<rayon::ThreadPool, Failure> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        // `audit-N`, so that a profile, `top -H` and a user see who works.
        .thread_name(|i| format!("audit-{i}"))
        // A worker's panic (a bug: a game's own panic is caught as its
        // error row) was said by the panic hook; its batch's ticket,
        // dropped unsent, makes the run an internal error, not an abort.
        .panic_handler(|_| {})
        .build()
        .map_err(|e| {
            match std::error::Error::source(&e).and_then(|s| s.downcast_ref::<io::Error>()) {
                Some(e) => Failure::thread(e),
                None => Failure::Thread(e.to_string()),
            }
        })
}

/// The run's report files, created in the output folder (as `.partial`
/// files until they are complete), with the options that made them.
fn create_reports(config: &Config) -> Result<Reports, Failure> {
    let options = Options {
        split: config.split,
        quirks: config.quirks,
        html: config.html,
        excel_safe: config.excel_safe,
        format: config.format,
        max_window: config.window.in_mib(),
        fix: config.fix,
    };
    Reports::create(&config.out, options).map_err(Failure::Output)
}

/// The exit status of a run that wrote its reports: interrupted, a source
/// that could not be read, findings with `--fail-on-findings`, or none.
fn exit_status(config: &Config, summary: &Summary, signals: &Signals) -> Exit {
    if signals.signalled() {
        Exit::Interrupted
    } else if summary.source_details.iter().any(|d| d.error.is_some()) {
        Exit::Input
    } else if config.fail_on_findings && summary.flagged + summary.incomplete > 0 {
        Exit::Findings
    } else {
        Exit::Completed
    }
}

/// Each source file as the run starts, before any is read: its size,
/// modification time and the check of its ends (of a zip member, those of
/// its archive, taken once for its members).
fn stat_sources(sources: &[Source]) -> Vec<Stat> {
    let mut last: Option<(&Path, Stat)> = None;
    sources
        .iter()
        .map(|s| match &s.origin {
            Origin::File(p) | Origin::ZipMember { archive: p, .. } => match &last {
                Some((q, stat)) if q == p => stat.clone(),
                _ => last.insert((p, FileStat::of(p))).1.clone(),
            },
            Origin::Stdin | Origin::Unreadable(_) | Origin::Memory(_) => FileStat::default(),
        })
        .collect()
}

/// The raw size of the input, where every source's is known: the
/// progress bar's total.
fn raw_size(sources: &[Source], stats: &[Stat]) -> Option<u64> {
    sources
        .iter()
        .zip(stats)
        .map(|(s, stat)| match &s.origin {
            Origin::File(_) => stat.size,
            Origin::Unreadable(_) => Some(0),
            Origin::Memory(text) => Some(text.bytes().len() as u64),
            Origin::Stdin | Origin::ZipMember { .. } => None,
        })
        .sum()
}

/// What the stages of a run share.
struct Stages<'a> {
    config: &'a Config,
    sources: &'a [Source],
    stats: &'a [Stat],
    bar: &'a indicatif::ProgressBar,
    started: Instant,
    /// Raw (compressed) bytes read, for the progress bar.
    raw_read: Arc<AtomicU64>,
}

/// The one piece of the one input that a run audits (`--piece`), opened.
struct OpenPiece {
    bounds: input::piece::Bounds,
    opened: input::Opened,
    /// What its reader finds: its own range and its seam.
    found: Arc<Mutex<input::piece::Found>>,
}

/// Opens the piece `bounds` of the one input, a file.
fn open_piece(
    sources: &[Source],
    bounds: input::piece::Bounds,
    raw_read: &Arc<AtomicU64>,
    window: input::MaxWindow,
) -> Result<OpenPiece, Failure> {
    let found = Arc::new(Mutex::new(input::piece::Found::default()));
    let opened = match sources {
        [source] if matches!(source.origin, Origin::File(_)) => {
            input::piece::open(source, bounds, raw_read.clone(), found.clone(), window)?
        }
        [source] => {
            return Err(Failure::Piece(format!(
                "{}: --piece takes a file",
                source.name
            )));
        }
        _ => {
            return Err(Failure::Piece(format!(
                "--piece {bounds}: takes exactly one input file, not {} sources",
                sources.len()
            )));
        }
    };
    Ok(OpenPiece {
        bounds,
        opened,
        found,
    })
}

impl Stages<'_> {
    /// Reads every source into `reports` through the pool, in input order;
    /// completes the reports, summary.json last. `None` when a report
    /// could not be written (said as it happened).
    fn run(
        &self,
        reports: Reports,
        pool: Arc<rayon::ThreadPool>,
        signals: &Signals,
        piece: Option<OpenPiece>,
    ) -> Result<Option<Summary>, Failure> {
        let (read, _) = self.read_all(reports, pool, signals, piece, Tell::Stderr)?;
        match read {
            Some(reports) => Ok(Some(reports.finish().map_err(Failure::Output)?)),
            None => Ok(None),
        }
    }

    /// Reads every source into `reports` through the pool, in input order,
    /// and completes their counts. `None` when a report could not be
    /// written (said as it happened). A source's read error is said as
    /// `tell` asks; with [`Tell::Collect`] the messages are returned, in
    /// input order.
    fn read_all(
        &self,
        reports: Reports,
        pool: Arc<rayon::ThreadPool>,
        signals: &Signals,
        piece: Option<OpenPiece>,
        tell: Tell,
    ) -> Result<(Option<Reports>, Vec<String>), Failure> {
        let raw_read = &self.raw_read;
        let (opened, piece) = match piece {
            Some(p) => (Some(p.opened), Some((p.bounds, p.found))),
            None => (None, None),
        };
        // One message in flight per worker and two more: each holds a chunk
        // (a stretch of 2 MiB games at most 2 MiB more), so that at -j2 a run
        // of games at the cap stays within the suite's 100 MiB
        // (hostile::input_caps); as many spare buffers are kept.
        let in_flight = self.config.threads + 2;
        let (spare_tx, spare_rx) = mpsc::sync_channel::<Vec<u8>>(in_flight);
        let reader = Reader {
            sources: self.sources.to_vec(),
            sizes: self.stats.iter().map(|stat| stat.size).collect(),
            window: self.config.window,
            pool: pool.clone(),
            chunk_bytes: self.config.chunk_bytes,
            spares: spare_rx,
            interrupted: signals.interrupted.clone(),
            raw_read: raw_read.clone(),
            piece: opened,
        };
        let mut sink = Sink {
            reports,
            sources: self.sources,
            stats: self.stats,
            bar: self.bar,
            started: self.started,
            raw_read,
            interrupted: &signals.interrupted,
            spares: spare_tx,
            write_failed: false,
            games_before: 0,
            open_source: None,
            pool,
            tell,
            read_errors: Vec::new(),
        };
        let ended = ordered::in_order(
            in_flight,
            &signals.signalled,
            move |outbox| reader.run(&outbox),
            |message| sink.take(message),
        );
        self.bar.finish_and_clear();
        if ended? == Ended::Stopped {
            sink.stopped();
        }
        if sink.write_failed {
            return Ok((None, sink.read_errors));
        }
        let mut reports = sink.reports;
        if let Some((bounds, found)) = piece {
            reports.summary.piece = Some(self.piece_info(bounds, &found, reports.summary.games));
        }
        reports.summary.seconds = self.started.elapsed().as_secs_f64();
        reports.summary.threads = self.config.threads;
        reports.summary.interrupted = signals.signalled();
        Ok((Some(reports), sink.read_errors))
    }

    /// What summary.json says of the piece `bounds` that was audited, of
    /// which its reader `found` what it says and `games` games.
    fn piece_info(
        &self,
        bounds: input::piece::Bounds,
        found: &Mutex<input::piece::Found>,
        games: u64,
    ) -> PieceInfo {
        let found = *found.lock().unwrap_or_else(PoisonError::into_inner);
        PieceInfo {
            source: self.sources[0].name.clone(),
            start: bounds.start,
            end: bounds.end,
            length: found.length,
            first: found.first,
            seam: found.seam,
            games,
            lines: found.lines,
        }
    }
}

/// An output folder that names something other than a folder, standard
/// output (`-`) included, is a usage error, said before anything is read.
fn check_out_folder(out: &Path) -> Result<(), Failure> {
    if out.as_os_str() == "-" {
        return Err(Failure::StandardOutput);
    }
    match std::fs::metadata(out) {
        Ok(m) if !m.is_dir() => Err(PathError::new(out, "is not a directory").into()),
        _ => Ok(()),
    }
}

/// The whole-input path over bytes in memory, for the fuzzer and the
/// tests: `data` read as one source named `<bytes>` (decompressed, refused
/// or cut into games exactly as standard input is), through the stages of
/// a run at two workers with chunks of about `chunk_bytes` (0: cut
/// into batches by one splitter), every game audited by the workers'
/// function and counted by the reports kept in memory. Its summary's
/// times are zero, so that two runs of the same data compare equal.
pub fn audit_bytes(data: &[u8], chunk_bytes: usize) -> Summary {
    let run = embedded::Embedded {
        inputs: vec![Input::Memory {
            name: "<bytes>".to_owned(),
            text: input::Memory::new(data.to_vec()),
        }],
        chunk_bytes: Some(chunk_bytes),
        threads: Some(2),
        quirks: true,
        progress: false,
    };
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    match run.run(&stop) {
        Ok(finished) => Summary {
            seconds: 0.0,
            helpmate_seconds: 0.0,
            ..finished.summary
        },
        Err(e) => panic!("the audit of bytes in memory cannot run: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_bounded_per_core() {
        assert_eq!(most_threads(1), 8);
        assert_eq!(most_threads(2), 8);
        assert_eq!(most_threads(3), 12);
        assert_eq!(most_threads(64), 256);
        assert_eq!(most_threads(usize::MAX), usize::MAX);
    }

    /// A handler that cannot be installed (here: one is in place already)
    /// is an error the run reports, not a run without one.
    #[test]
    fn a_handler_that_cannot_be_installed_is_an_error() {
        let _first = Signals::install();
        let failure = Failure::from(Signals::install().err().unwrap());
        assert_eq!(
            failure.to_string(),
            "internal error: cannot install the signal handler: \
             Ctrl-C error: Ctrl-C signal handler already registered"
        );
        assert_eq!(failure.exit(), Exit::Internal);
        assert!(std::error::Error::source(&failure).is_some());
    }
}
