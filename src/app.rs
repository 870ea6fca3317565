//! Wires the stages: one reader thread cuts each source into batches of
//! whole games, a rayon pool audits the batches, and this thread writes
//! the results back in input order, so the reports are byte-identical for
//! any number of threads. Owns the progress bar, the interrupt flag and the
//! exit status.

use std::collections::BTreeMap;
use std::io;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use crate::audit::{self, ErrorKind, GameError, GameReport};
use crate::cli::Args;
use crate::input::{self, Batch, Origin, Source};
use crate::pgn::{Game, Tags};
use crate::report::{GameId, Reports, Summary};

/// Exit status: the run completed (findings are not failures).
pub const EXIT_OK: i32 = 0;
/// Exit status: a usage or input/output error.
pub const EXIT_INPUT: i32 = 2;
/// Exit status: interrupted (Ctrl-C, SIGTERM or SIGHUP). The reports cover
/// the games done and summary.json says `"interrupted": true`. A second
/// signal ends the process at once with this status, leaving only
/// `.partial` files (and no summary.json).
pub const EXIT_INTERRUPTED: i32 = 130;

/// A validated run configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub inputs: Vec<String>,
    pub out: PathBuf,
    pub threads: usize,
    pub split: bool,
    /// Write quirks.csv (`--quirks`).
    pub quirks: bool,
    /// Write report.html (off with `--no-html`).
    pub html: bool,
}

impl Config {
    pub fn from_args(args: Args) -> Config {
        let threads = args.threads.map(usize::from).unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        Config {
            inputs: args.inputs,
            out: args.out,
            threads,
            split: args.split,
            quirks: args.quirks,
            html: !args.no_html,
        }
    }
}

/// One audited game, ready to be written.
struct Audited {
    index: u64,
    offset: u64,
    range: (usize, usize),
    tags: Tags,
    report: GameReport,
}

/// What the reader and the workers send to the writer, numbered in input
/// order.
enum Message {
    Batch {
        source: usize,
        /// The batch's buffer: its text is `bytes[..len]`.
        bytes: Vec<u8>,
        len: usize,
        games: Vec<Audited>,
    },
    SourceEnd {
        source: usize,
        bytes: u64,
        error: Option<String>,
    },
}

fn say(message: &str) {
    eprintln!("pgn-audit: {message}");
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
            if let Some(cause) = cut.filter(|_| k == last) {
                mark_cut(&mut report, cause);
            }
            Audited {
                index: batch.first_game + k as u64,
                offset: span.start,
                range,
                tags,
                report,
            }
        })
        .collect()
}

/// A game that the source's read error broke off: whatever its end says
/// (a cut move or comment, or nothing amiss) is replaced by a parse_error
/// that says so. An error found before the cut stays.
fn mark_cut(report: &mut GameReport, cause: &str) {
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
        detail: format!("the input breaks off in this game: {cause}"),
        fen,
    });
}

/// Runs the audit; returns the exit status.
pub fn run(config: &Config) -> i32 {
    let started = Instant::now();
    let sources = match input::collect_sources(&config.inputs, &config.out) {
        Ok(s) => s,
        Err(e) => {
            say(&e.to_string());
            return EXIT_INPUT;
        }
    };
    // The handler goes in before any report file exists, so that a signal
    // never finds them half made. The first signal stops the reader; the
    // batches in flight are finished and every report is completed and
    // renamed. A second one ends the process at once.
    let interrupted = Arc::new(AtomicBool::new(false));
    let signalled = Arc::new(AtomicBool::new(false));
    {
        let (flag, signal) = (interrupted.clone(), signalled.clone());
        let _ = ctrlc::set_handler(move || {
            flag.store(true, Ordering::SeqCst);
            if signal.swap(true, Ordering::SeqCst) {
                say("interrupted twice: stopping now, the reports are left unfinished");
                std::process::exit(EXIT_INTERRUPTED);
            }
        });
    }
    let mut reports = match Reports::create(&config.out, config.split, config.quirks, config.html) {
        Ok(r) => r,
        Err(e) => {
            say(&format!("cannot write reports: {e}"));
            return EXIT_INPUT;
        }
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
    let total = sources
        .iter()
        .map(|s| match &s.origin {
            Origin::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Origin::Stdin => None,
        })
        .sum::<Option<u64>>();
    let bar = crate::progress::bar(total);
    let raw_read = Arc::new(AtomicU64::new(0));

    let in_flight = config.threads * 2 + 2;
    let (token_tx, token_rx) = mpsc::sync_channel::<()>(in_flight);
    for _ in 0..in_flight {
        let _ = token_tx.send(());
    }
    let (tx, rx) = mpsc::channel::<(u64, Message)>();
    // Buffers of written batches, back to the reader to read into again.
    let (spare_tx, spare_rx) = mpsc::channel::<Vec<u8>>();
    // How many messages the reader has numbered: once interrupted, the
    // writer stops when it has written them all, even if the reader is
    // stuck in a read (standard input that gives nothing more).
    let issued = Arc::new(AtomicU64::new(0));
    let reader = {
        let sources = sources.clone();
        let interrupted = interrupted.clone();
        let raw_read = raw_read.clone();
        let issued = issued.clone();
        std::thread::spawn(move || {
            let stages = Stages {
                pool: &pool,
                tx: &tx,
                tokens: &token_rx,
                spares: &spare_rx,
                interrupted: &interrupted,
                raw_read: &raw_read,
                issued: &issued,
            };
            read_sources(&sources, &stages)
        })
    };

    let mut status = EXIT_OK;
    let mut pending: BTreeMap<u64, Message> = BTreeMap::new();
    let mut next = 0u64;
    let mut write_failed = false;
    // The source being written, and its bytes so far, until its end.
    let mut open_source: Option<(usize, u64)> = None;
    let mut reader_done = false;
    loop {
        let (seq, message) = match rx.recv_timeout(std::time::Duration::from_millis(50)) {
            Ok(m) => m,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                reader_done = true;
                break;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if signalled.load(Ordering::SeqCst) && next == issued.load(Ordering::SeqCst) {
                    break;
                }
                continue;
            }
        };
        pending.insert(seq, message);
        while let Some(message) = pending.remove(&next) {
            next += 1;
            match message {
                Message::Batch {
                    source,
                    bytes,
                    len,
                    games,
                } => {
                    let _ = token_tx.send(());
                    if write_failed {
                        continue;
                    }
                    let done = open_source
                        .filter(|(s, _)| *s == source)
                        .map_or(0, |(_, b)| b);
                    open_source = Some((source, done + len as u64));
                    for g in &games {
                        let id = GameId {
                            source: &sources[source].name,
                            game: g.index,
                            offset: g.offset,
                            tags: &g.tags,
                        };
                        if let Err(e) =
                            reports.write_game(&id, &g.report, &bytes[g.range.0..g.range.1])
                        {
                            say(&format!("cannot write reports: {e}"));
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
                    reports.summary.bytes += bytes;
                    reports.summary.sources.push(sources[source].name.clone());
                    if let Some(e) = error {
                        bar.suspend(|| say(&format!("{}: {e}", sources[source].name)));
                        status = EXIT_INPUT;
                    }
                }
            }
        }
    }
    if reader_done {
        let _ = reader.join();
    } else if let Some((source, bytes)) = open_source {
        // Interrupted while the reader waits for input: the source being
        // read counts with the bytes of its games written.
        reports.summary.bytes += bytes;
        reports.summary.sources.push(sources[source].name.clone());
    }
    bar.finish_and_clear();
    if write_failed {
        return EXIT_INPUT;
    }
    reports.summary.seconds = started.elapsed().as_secs_f64();
    reports.summary.threads = config.threads;
    let was_interrupted = signalled.load(Ordering::SeqCst);
    reports.summary.interrupted = was_interrupted;
    match reports.finish() {
        Ok(summary) => eprint!("{}", summary.table()),
        Err(e) => {
            say(&format!("cannot write reports: {e}"));
            return EXIT_INPUT;
        }
    }
    if was_interrupted {
        return EXIT_INTERRUPTED;
    }
    status
}

/// Runs `pgn-audit merge`; returns the exit status.
pub fn run_merge(dirs: &[PathBuf], out: &std::path::Path) -> i32 {
    match crate::merge::merge(dirs, out) {
        Ok(summary) => {
            eprint!("{}", summary.table());
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
    tx: &'a mpsc::Sender<(u64, Message)>,
    tokens: &'a mpsc::Receiver<()>,
    /// Buffers of batches written, to read into again.
    spares: &'a mpsc::Receiver<Vec<u8>>,
    interrupted: &'a AtomicBool,
    raw_read: &'a Arc<AtomicU64>,
    /// How many messages are numbered so far.
    issued: &'a AtomicU64,
}

/// The reader thread: every source in order, cut into batches that are
/// audited on the pool. Stops early when interrupted.
fn read_sources(sources: &[Source], st: &Stages) {
    let Stages {
        pool,
        tx,
        tokens,
        spares,
        interrupted,
        raw_read,
        issued,
    } = *st;
    let mut seq = 0u64;
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
                let _ = tx.send((
                    seq,
                    Message::SourceEnd {
                        source: index,
                        bytes: 0,
                        error: Some(e.cause),
                    },
                ));
                seq += 1;
                issued.store(seq, Ordering::SeqCst);
                continue;
            }
        };
        let compression = opened.compression;
        // The read error, seen as it happens: the batch handed out after it
        // is the last one, and its last game may be cut.
        let failed: std::cell::RefCell<Option<io::Error>> = std::cell::RefCell::new(None);
        let spy = ErrorSpy {
            inner: opened.reader,
            failed: &failed,
        };
        let spare = || spares.try_recv().ok();
        let (bytes, error) = input::read_batches(spy, input::batch::BATCH_BYTES, spare, |batch| {
            if interrupted.load(Ordering::SeqCst) || tokens.recv().is_err() {
                return ControlFlow::Break(());
            }
            // The stream broke inside the last game when it reaches the
            // last byte read: its text is all there is, not the whole game.
            let end = batch.base + batch.len as u64;
            let cut = failed
                .borrow()
                .as_ref()
                .filter(|_| batch.games.last().is_some_and(|g| g.end == end))
                .map(|e| read_error(compression, end, e));
            let tx = tx.clone();
            let s = seq;
            seq += 1;
            issued.store(seq, Ordering::SeqCst);
            pool.spawn(move || {
                let games = audit_batch(&batch, cut.as_deref());
                let _ = tx.send((
                    s,
                    Message::Batch {
                        source: index,
                        bytes: batch.bytes,
                        len: batch.len,
                        games,
                    },
                ));
            });
            ControlFlow::Continue(())
        });
        let error = error.map(|e| read_error(compression, bytes, &e));
        let _ = tx.send((
            seq,
            Message::SourceEnd {
                source: index,
                bytes,
                error,
            },
        ));
        seq += 1;
        issued.store(seq, Ordering::SeqCst);
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

/// Passes reads on, keeping a copy of the first error.
struct ErrorSpy<'a, R> {
    inner: R,
    failed: &'a std::cell::RefCell<Option<io::Error>>,
}

impl<R: io::Read> io::Read for ErrorSpy<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).inspect_err(|e| {
            let mut failed = self.failed.borrow_mut();
            if failed.is_none() {
                *failed = Some(io::Error::new(e.kind(), e.to_string()));
            }
        })
    }
}
