//! Wires the stages: one reader thread cuts each source into batches of
//! whole games, a rayon pool audits the batches, and this thread writes
//! the results back in input order, so the reports are byte-identical for
//! any number of threads. Owns the progress bar, the interrupt flag and the
//! exit status.

mod ordered;

use std::io::{self, IsTerminal};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use ordered::{Ended, Outbox};

use crate::audit::{self, ErrorKind, GameError, GameReport};
use crate::cli::{AuditArgs, MergeArgs, PlanArgs};
use crate::input::{self, Batch, Origin, Source};
use crate::pgn::{Game, Tags};
use crate::report::{GameId, Options, PieceInfo, Reports, SourceDetail, Summary};

/// Exit status: the run completed (findings are not failures).
pub const EXIT_OK: i32 = 0;
/// Exit status with `--fail-on-findings`: the run completed, and at least
/// one game is flagged or incomplete.
pub const EXIT_FINDINGS: i32 = 1;
/// Exit status: a usage or input/output error.
pub const EXIT_INPUT: i32 = 2;
/// Exit status: interrupted (Ctrl-C, SIGTERM or SIGHUP). The reports cover
/// the games done and summary.json says `"interrupted": true`. A signal
/// before the output folder is touched ends the run at once, writing
/// nothing; a second signal ends the process at once, leaving only
/// `.partial` files (and no summary.json).
pub const EXIT_INTERRUPTED: i32 = 130;
/// Exit status: an internal error (a bug: the reader thread panicked, the
/// signal handler could not be installed), as for a panic. The message
/// says `pgn-audit: internal error: ...`; no summary.json is written, so
/// that no folder vouches for a run that did not complete.
pub const EXIT_INTERNAL: i32 = 101;

/// Worker threads per core at most: workers only audit (the reader and
/// the decompressors have threads of their own), and each holds up to two
/// batches in flight, so more would cost memory and start-up time, not
/// speed.
const THREADS_PER_CORE: usize = 4;
/// Worker threads allowed on any machine, however few its cores, so that
/// `-j 8` means the same everywhere.
const THREADS_ALWAYS: usize = 8;

/// A validated run configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub inputs: Vec<String>,
    pub out: PathBuf,
    /// Worker threads: `-j` or every core, at most 4 per core (8 on any
    /// machine).
    pub threads: usize,
    /// The `-j` asked for, where it was more than that.
    pub threads_asked: Option<usize>,
    pub split: bool,
    /// Write quirks.csv (`--quirks`).
    pub quirks: bool,
    /// Write report.html (off with `--no-html`).
    pub html: bool,
    /// No progress bar, table or notes (`--quiet`).
    pub quiet: bool,
    /// Exit [`EXIT_FINDINGS`] when a game is flagged or incomplete.
    pub fail_on_findings: bool,
    /// The one piece of the one input to audit (`--piece`).
    pub piece: Option<input::piece::Bounds>,
}

impl Config {
    pub fn from_args(args: AuditArgs) -> Config {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let asked = args.threads.map_or(cores, usize::from);
        let threads = asked.min(most_threads(cores));
        Config {
            inputs: args.inputs,
            out: args.out,
            threads,
            threads_asked: (asked > threads).then_some(asked),
            split: args.split,
            quirks: args.quirks,
            html: !args.no_html,
            quiet: args.quiet,
            fail_on_findings: args.fail_on_findings,
            piece: args.piece,
        }
    }
}

/// The most worker threads a run starts on a machine with `cores` cores:
/// [`THREADS_PER_CORE`] per core, and never fewer than [`THREADS_ALWAYS`].
/// A larger `-j` is cut to it, with a note.
fn most_threads(cores: usize) -> usize {
    cores.saturating_mul(THREADS_PER_CORE).max(THREADS_ALWAYS)
}

/// One audited game, ready to be written.
struct Audited {
    index: u64,
    offset: u64,
    line: u64,
    range: (usize, usize),
    tags: Tags,
    report: GameReport,
}

/// What the reader and the workers send to the writer, numbered in input
/// order.
enum Message {
    Batch {
        source: usize,
        /// The source offset just past the batch's last game: what an
        /// interrupted run counts as read of the source.
        end: u64,
        /// The batch's buffer, which its games index.
        bytes: Vec<u8>,
        games: Vec<Audited>,
    },
    SourceEnd {
        source: usize,
        bytes: u64,
        error: Option<String>,
    },
}

/// Writes `pgn-audit: MESSAGE` on standard error. A standard error that
/// cannot be written (closed, a pipe whose reader is gone) costs the
/// message, never the run: the exit status still says how it ended.
fn say(message: &str) {
    to_stderr(&format!("pgn-audit: {message}\n"));
}

/// Writes `text` on standard error, ignoring a failed write (`eprint!`
/// panics on one). The progress bar ignores its write errors too.
fn to_stderr(text: &str) {
    let _ = io::Write::write_all(&mut io::stderr().lock(), text.as_bytes());
}

/// Audits one batch. A panic while reading or auditing a game becomes an
/// error row for that game. `cut` is the read error that broke the source
/// inside the batch's last game.
fn audit_batch(batch: &Batch, cut: Option<&str>) -> Vec<Audited> {
    let last = batch.games.len().wrapping_sub(1);
    batch
        .games
        .iter()
        .enumerate()
        .map(|(k, span)| {
            let range = (
                (span.start - batch.base) as usize,
                (span.end - batch.base) as usize,
            );
            let bytes = &batch.bytes[range.0..range.1];
            let (tags, report) = std::panic::catch_unwind(|| {
                let game = Game::parse(bytes);
                let report = audit::audit_game_caught(&game);
                (game.tags, report)
            })
            .unwrap_or_else(|_| {
                let report = GameReport {
                    error: Some(GameError {
                        ply: 0,
                        san: String::new(),
                        kind: ErrorKind::ParseError,
                        detail: "internal error: reading this game panicked".to_owned(),
                        fen: String::new(),
                    }),
                    ..GameReport::default()
                };
                (Tags::default(), report)
            });
            let mut report = report;
            if batch.capped && k == last {
                mark_cut(
                    &mut report,
                    format!(
                        "the game is longer than {} MiB; the rest of it, up to the next game, was skipped",
                        input::batch::GAME_CAP >> 20
                    ),
                );
            } else if let Some(cause) = cut.filter(|_| k == last) {
                mark_cut(
                    &mut report,
                    format!("the input breaks off in this game: {cause}"),
                );
            }
            Audited {
                index: batch.first_game + k as u64,
                offset: span.start,
                line: batch.lines[k],
                range,
                tags,
                report,
            }
        })
        .collect()
}

/// A game whose text stops short of its end (the source's read error broke
/// it off, or it is longer than the cap and the rest was skipped): whatever
/// its end says (a cut move or comment, or nothing amiss) is replaced by a
/// parse_error with `detail`. An error found before the cut stays.
fn mark_cut(report: &mut GameReport, detail: String) {
    let ply = report.plies + 1;
    let (san, fen) = match report.error.take() {
        Some(e) if e.kind != ErrorKind::ParseError || e.ply != ply => {
            report.error = Some(e);
            return;
        }
        Some(e) => (e.san, e.fen),
        None => (String::new(), String::new()),
    };
    report.claims.clear();
    report.error = Some(GameError {
        ply,
        san,
        kind: ErrorKind::ParseError,
        detail,
        fen,
    });
}

/// What the run does on Ctrl-C, SIGTERM and SIGHUP. Before the output
/// folder is touched, a signal ends the run at once with
/// [`EXIT_INTERRUPTED`]: there is nothing to finish. Once
/// the reports are begun, the first signal stops the reader; the batches
/// in flight are finished and every report is completed and renamed. A
/// second one ends the process at once.
struct Signals {
    /// Set by a signal, and when a report cannot be written: the reader
    /// stops.
    interrupted: Arc<AtomicBool>,
    /// Set by a signal only.
    signalled: Arc<AtomicBool>,
    /// [`STARTING`], [`WRITING`] or [`STOPPED`].
    stage: Arc<AtomicU8>,
}

/// Before the output folder is touched.
const STARTING: u8 = 0;
/// The reports are begun.
const WRITING: u8 = 1;
/// Interrupted while starting: the process is ending.
const STOPPED: u8 = 2;

impl Signals {
    /// Installs the handler, the first thing a run does, so that a signal
    /// is honoured from the start.
    fn install() -> Result<Signals, String> {
        let signals = Signals {
            interrupted: Arc::new(AtomicBool::new(false)),
            signalled: Arc::new(AtomicBool::new(false)),
            stage: Arc::new(AtomicU8::new(STARTING)),
        };
        let (flag, signal, stage) = (
            signals.interrupted.clone(),
            signals.signalled.clone(),
            signals.stage.clone(),
        );
        ctrlc::set_handler(move || {
            flag.store(true, Ordering::SeqCst);
            if signal.swap(true, Ordering::SeqCst) {
                say("interrupted twice: stopping now, the reports are left unfinished");
                std::process::exit(EXIT_INTERRUPTED);
            }
            if stage
                .compare_exchange(STARTING, STOPPED, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                say("interrupted before any report was begun");
                std::process::exit(EXIT_INTERRUPTED);
            }
        })
        .map_err(|e| format!("cannot install the signal handler: {e}"))?;
        Ok(signals)
    }

    /// Moves on to writing the reports; `false` when a signal came first
    /// (its handler is ending the process).
    fn begin_reports(&self) -> bool {
        self.stage
            .compare_exchange(STARTING, WRITING, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }
}

/// Says `internal error: CAUSE`; returns [`EXIT_INTERNAL`].
fn internal_error(cause: &str) -> i32 {
    say(&format!("internal error: {cause}"));
    EXIT_INTERNAL
}

/// Runs the audit; returns the exit status.
pub fn run(config: &Config) -> i32 {
    let started = Instant::now();
    let signals = match Signals::install() {
        Ok(s) => s,
        Err(e) => return internal_error(&e),
    };
    if let Some(asked) = config.threads_asked.filter(|_| !config.quiet) {
        say(&format!(
            "-j {asked}: using {} threads, the most this machine allows \
             ({THREADS_PER_CORE} per core, at least {THREADS_ALWAYS})",
            config.threads
        ));
    }
    if let Err(e) = check_out_folder(&config.out) {
        say(&e);
        return EXIT_INPUT;
    }
    let sources = match input::collect_sources(&config.inputs, &config.out) {
        Ok(s) => s,
        Err(e) => {
            say(&e.to_string());
            return EXIT_INPUT;
        }
    };
    // Size and modification time as the run starts, before any is read
    // (of a zip member, those of its archive).
    let stats: Vec<(Option<u64>, Option<String>)> = sources
        .iter()
        .map(|s| match &s.origin {
            Origin::File(p) | Origin::ZipMember { archive: p, .. } => {
                std::fs::metadata(p).map_or((None, None), |m| SourceDetail::stat(&m))
            }
            Origin::Stdin => (None, None),
        })
        .collect();
    let raw_read = Arc::new(AtomicU64::new(0));
    let found = Arc::new(std::sync::Mutex::new(input::piece::Found::default()));
    let piece = match config.piece {
        None => None,
        Some(bounds) => match open_piece(&sources, bounds, &raw_read, &found) {
            Ok(opened) => Some(opened),
            Err(e) => {
                say(&e);
                return EXIT_INPUT;
            }
        },
    };
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
    {
        Ok(p) => Arc::new(p),
        Err(e) => {
            say(&format!("cannot start {} threads: {e}", config.threads));
            return EXIT_INPUT;
        }
    };
    if !signals.begin_reports() {
        // The handler is ending the process with EXIT_INTERRUPTED.
        loop {
            std::thread::park();
        }
    }
    let mut reports = match Reports::create(&config.out, config.split, config.quirks, config.html) {
        Ok(r) => r,
        Err(e) => {
            say(&format!("cannot write reports: {e}"));
            return EXIT_INPUT;
        }
    };
    reports.summary.options = Options {
        split: config.split,
        quirks: config.quirks,
        html: config.html,
    };
    let total = sources
        .iter()
        .zip(&stats)
        .map(|(s, (size, _))| match s.origin {
            Origin::File(_) => *size,
            Origin::Stdin | Origin::ZipMember { .. } => None,
        })
        .sum::<Option<u64>>();
    if !config.quiet
        && sources.iter().any(|s| s.origin == Origin::Stdin)
        && io::stdin().is_terminal()
    {
        say("reading PGN from standard input (end with Ctrl-D)");
    }
    let bar = crate::progress::bar(total, config.quiet);
    let interrupted = signals.interrupted.clone();

    // Buffers of written batches, back to the reader to read into again.
    let (spare_tx, spare_rx) = mpsc::channel::<Vec<u8>>();
    let reader = {
        let sources = sources.clone();
        let interrupted = interrupted.clone();
        let raw_read = raw_read.clone();
        move |outbox: Outbox<Message>| {
            let stages = Stages {
                pool: &pool,
                outbox: &outbox,
                spares: &spare_rx,
                interrupted: &interrupted,
                raw_read: &raw_read,
            };
            read_sources(&sources, &stages, piece)
        }
    };

    let mut status = EXIT_OK;
    let mut write_failed = false;
    // Games written before the current source.
    let mut games_before = 0;
    let mut source_ended =
        |summary: &mut Summary, source: usize, bytes: u64, error: Option<String>| {
            let (size, modified) = stats[source].clone();
            summary.bytes += bytes;
            summary.sources.push(sources[source].name.clone());
            summary.source_details.push(SourceDetail {
                name: sources[source].name.clone(),
                size,
                modified,
                bytes,
                games: summary.games - games_before,
                error,
            });
            games_before = summary.games;
        };
    // The source being written, and its bytes so far, until its end.
    let mut open_source: Option<(usize, u64)> = None;
    let ended = ordered::in_order(
        config.threads * 2 + 2,
        &signals.signalled,
        reader,
        |message| match message {
            Message::Batch {
                source,
                end,
                bytes,
                games,
            } => {
                if write_failed {
                    return;
                }
                open_source = Some((source, end));
                for g in &games {
                    let id = GameId {
                        source: &sources[source].name,
                        game: g.index,
                        offset: g.offset,
                        line: g.line,
                        tags: &g.tags,
                    };
                    if let Err(e) = reports.write_game(&id, &g.report, &bytes[g.range.0..g.range.1])
                    {
                        bar.suspend(|| say(&format!("cannot write reports: {e}")));
                        write_failed = true;
                        interrupted.store(true, Ordering::SeqCst);
                        break;
                    }
                }
                let _ = spare_tx.send(bytes);
                bar.set_position(raw_read.load(Ordering::Relaxed));
                bar.set_message(crate::progress::message(
                    reports.summary.games,
                    started.elapsed().as_secs_f64(),
                ));
            }
            Message::SourceEnd {
                source,
                bytes,
                error,
            } => {
                open_source = None;
                if let Some(e) = &error {
                    bar.suspend(|| say(&format!("{}: {e}", sources[source].name)));
                    status = EXIT_INPUT;
                }
                source_ended(&mut reports.summary, source, bytes, error);
            }
        },
    );
    bar.finish_and_clear();
    match ended {
        Err(e) => return internal_error(&e),
        Ok(Ended::Stopped) => {
            // Interrupted while the reader waits for input: the source
            // being read counts with the bytes of its games written.
            if let Some((source, bytes)) = open_source {
                source_ended(&mut reports.summary, source, bytes, None);
            }
        }
        Ok(Ended::Complete) => {}
    }
    if write_failed {
        return EXIT_INPUT;
    }
    if let Some(bounds) = config.piece {
        let found = *found
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        reports.summary.piece = Some(PieceInfo {
            source: sources[0].name.clone(),
            start: bounds.start,
            end: bounds.end,
            length: found.length,
            first: found.first,
            seam: found.seam,
            games: reports.summary.games,
            lines: found.lines,
        });
    }
    reports.summary.seconds = started.elapsed().as_secs_f64();
    reports.summary.threads = config.threads;
    let was_interrupted = signals.signalled.load(Ordering::SeqCst);
    reports.summary.interrupted = was_interrupted;
    let summary = match reports.finish() {
        Ok(summary) => summary,
        Err(e) => {
            say(&format!("cannot write reports: {e}"));
            return EXIT_INPUT;
        }
    };
    if !config.quiet {
        to_stderr(&summary.table(&config.out, crate::progress::table_width()));
    }
    if was_interrupted {
        return EXIT_INTERRUPTED;
    }
    if status == EXIT_OK && config.fail_on_findings && summary.flagged + summary.incomplete > 0 {
        return EXIT_FINDINGS;
    }
    status
}

/// An output folder that names something other than a folder is a usage
/// error, said before anything is read.
fn check_out_folder(out: &Path) -> Result<(), String> {
    match std::fs::metadata(out) {
        Ok(m) if !m.is_dir() => Err(format!("{}: is not a directory", out.display())),
        _ => Ok(()),
    }
}

/// Opens the piece `bounds` of the one input, a file; `found` is told what
/// its reader finds. The error is a one-line message.
fn open_piece(
    sources: &[Source],
    bounds: input::piece::Bounds,
    raw_read: &Arc<AtomicU64>,
    found: &Arc<std::sync::Mutex<input::piece::Found>>,
) -> Result<input::Opened, String> {
    match sources {
        [source] if matches!(source.origin, Origin::File(_)) => {
            input::piece::open(source, bounds, raw_read.clone(), found.clone())
                .map_err(|e| e.to_string())
        }
        [source] => Err(format!("{}: --piece takes a file", source.name)),
        _ => Err(format!(
            "--piece {bounds}: takes exactly one input file, not {} sources",
            sources.len()
        )),
    }
}

/// Runs `pgn-audit plan`: prints the pieces of a file, one `START..END` a
/// line; returns the exit status.
pub fn run_plan(args: &PlanArgs) -> i32 {
    let name = args.file.to_string_lossy();
    match input::piece::plan(&args.file, &name, args.piece_size) {
        Ok(pieces) => {
            let text: String = pieces.iter().map(|p| format!("{p}\n")).collect();
            match io::Write::write_all(&mut io::stdout().lock(), text.as_bytes()) {
                Ok(()) => EXIT_OK,
                Err(e) => {
                    say(&format!("standard output: {}", input::io_cause(&e)));
                    EXIT_INPUT
                }
            }
        }
        Err(e) => {
            say(&e.to_string());
            EXIT_INPUT
        }
    }
}

/// Runs `pgn-audit merge`; returns the exit status.
pub fn run_merge(args: &MergeArgs) -> i32 {
    if let Err(e) = check_out_folder(&args.out) {
        say(&e);
        return EXIT_INPUT;
    }
    match crate::merge::merge(&args.dirs, &args.out) {
        Ok(summary) => {
            if !args.quiet {
                to_stderr(&summary.table(&args.out, crate::progress::table_width()));
            }
            EXIT_OK
        }
        Err(e) => {
            say(&format!("merge: {e}"));
            EXIT_INPUT
        }
    }
}

/// How many sources after the one being read are opened (and decompressed)
/// ahead of it.
const SOURCES_AHEAD: usize = 2;

/// The whole-input path without files or threads: `data` cut into games and
/// batches exactly as a source is, every game read and audited (a panic is
/// not caught here: this is what the fuzzer and the property tests drive).
pub fn audit_bytes(data: &[u8], batch_bytes: usize) -> Summary {
    let mut summary = Summary::default();
    let (bytes, _) = input::read_batches(
        data,
        batch_bytes.max(1),
        || None,
        |batch| {
            for span in &batch.games {
                let game = &batch.bytes
                    [(span.start - batch.base) as usize..(span.end - batch.base) as usize];
                let report = audit::audit_game(&Game::parse(game));
                let class = report.class();
                summary.add_game(&report, class);
            }
            ControlFlow::Continue(())
        },
    );
    summary.bytes = bytes;
    summary
}

/// What the reader thread works with.
struct Stages<'a> {
    pool: &'a Arc<rayon::ThreadPool>,
    /// Numbers the messages to the writer; a batch waits for a slot.
    outbox: &'a Outbox<Message>,
    /// Buffers of batches written, to read into again.
    spares: &'a mpsc::Receiver<Vec<u8>>,
    interrupted: &'a AtomicBool,
    raw_read: &'a Arc<AtomicU64>,
}

/// The reader thread: every source in order, cut into batches that are
/// audited on the pool. Stops early when interrupted.
/// `piece`, where given, is the one source's piece, already opened.
fn read_sources(sources: &[Source], st: &Stages, mut piece: Option<input::Opened>) {
    let Stages {
        pool,
        outbox,
        spares,
        interrupted,
        raw_read,
    } = *st;
    // Sources opened ahead of the one being read, so that their
    // decompression (on threads of their own, but for zstd at two threads
    // or fewer) runs meanwhile.
    let mut ahead: std::collections::VecDeque<Result<input::Opened, input::InputError>> =
        std::collections::VecDeque::new();
    let mut next_open = 0;
    for (index, _) in sources.iter().enumerate() {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        while next_open < sources.len() && next_open <= index + SOURCES_AHEAD {
            if let Some(opened) = piece.take() {
                ahead.push_back(Ok(opened));
                next_open += 1;
                continue;
            }
            ahead.push_back(input::open(
                &sources[next_open],
                raw_read.clone(),
                pool,
                pool.current_num_threads(),
            ));
            next_open += 1;
        }
        let opened = match ahead.pop_front().expect("opened ahead") {
            Ok(o) => o,
            Err(e) => {
                outbox.number().send(Message::SourceEnd {
                    source: index,
                    bytes: 0,
                    error: Some(e.cause),
                });
                continue;
            }
        };
        let compression = opened.compression;
        // The read error, seen as it happens, with the bytes read before
        // it: the batch handed out after it is the last one, and its last
        // game may be cut.
        let failed: std::cell::RefCell<Option<(u64, io::Error)>> = std::cell::RefCell::new(None);
        let spy = ErrorSpy {
            inner: opened.reader,
            read: 0,
            failed: &failed,
        };
        let spare = || spares.try_recv().ok();
        let (bytes, error) = input::read_batches(spy, input::batch::BATCH_BYTES, spare, |batch| {
            if interrupted.load(Ordering::SeqCst) {
                return ControlFlow::Break(());
            }
            let Some(ticket) = outbox.slot() else {
                return ControlFlow::Break(());
            };
            // The stream broke inside the source's last game unless that
            // game's text ends with its result token and a line end: then
            // the error came after it, and the game is whole. (The bytes of
            // the reads before the failed one may fill several batches.)
            let cut = failed
                .borrow()
                .as_ref()
                .filter(|_| batch.last)
                .and_then(|(at, e)| {
                    let last = batch.games.last()?;
                    let text = &batch.bytes[(last.start - batch.base) as usize..batch.len];
                    (!input::ends_with_result_line(text)).then(|| read_error(compression, *at, e))
                });
            pool.spawn(move || {
                let games = audit_batch(&batch, cut.as_deref());
                ticket.send(Message::Batch {
                    source: index,
                    end: batch.base + batch.len as u64,
                    bytes: batch.bytes,
                    games,
                });
            });
            ControlFlow::Continue(())
        });
        let error = error.map(|e| read_error(compression, bytes, &e));
        outbox.number().send(Message::SourceEnd {
            source: index,
            bytes,
            error,
        });
    }
}

/// The one-line cause of a read error.
fn read_error(compression: input::Compression, bytes: u64, e: &io::Error) -> String {
    match compression {
        input::Compression::None => format!("read error: {}", input::io_cause(e)),
        c => format!(
            "{} stream is corrupt or truncated after {bytes} bytes: {}",
            c.name(),
            input::io_cause(e)
        ),
    }
}

/// Passes reads on, keeping a copy of the first error with the number of
/// bytes read before it.
struct ErrorSpy<'a, R> {
    inner: R,
    read: u64,
    failed: &'a std::cell::RefCell<Option<(u64, io::Error)>>,
}

impl<R: io::Read> io::Read for ErrorSpy<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf).inspect_err(|e| {
            let mut failed = self.failed.borrow_mut();
            if failed.is_none() && e.kind() != io::ErrorKind::Interrupted {
                *failed = Some((self.read, io::Error::new(e.kind(), e.to_string())));
            }
        })?;
        self.read += n as u64;
        Ok(n)
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
        assert_eq!(
            Signals::install().err().as_deref(),
            Some(
                "cannot install the signal handler: \
                 Ctrl-C error: Ctrl-C signal handler already registered"
            )
        );
    }
}
