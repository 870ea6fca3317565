//! Wires the stages: one reader thread cuts each source into batches of
//! whole games, a rayon pool audits the batches, and this thread writes
//! the results back in input order, so the reports are byte-identical for
//! any number of threads. Owns the progress bar, the interrupt flag and the
//! exit status.

use std::collections::BTreeMap;
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
use crate::report::{GameId, Reports};

/// Exit status: the run completed (findings are not failures).
pub const EXIT_OK: i32 = 0;
/// Exit status: a usage or input/output error.
pub const EXIT_INPUT: i32 = 2;

/// A validated run configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub inputs: Vec<String>,
    pub out: PathBuf,
    pub threads: usize,
    pub split: bool,
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
        bytes: Vec<u8>,
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
/// error row for that game.
fn audit_batch(batch: &Batch) -> Vec<Audited> {
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

/// Runs the audit; returns the exit status.
pub fn run(config: &Config) -> i32 {
    let started = Instant::now();
    let sources = match input::collect_sources(&config.inputs) {
        Ok(s) => s,
        Err(e) => {
            say(&e.to_string());
            return EXIT_INPUT;
        }
    };
    let mut reports = match Reports::create(&config.out, config.split) {
        Ok(mut r) => {
            r.set_html(config.html);
            r
        }
        Err(e) => {
            say(&format!("cannot write reports: {e}"));
            return EXIT_INPUT;
        }
    };
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
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
    let reader = {
        let sources = sources.clone();
        let interrupted = interrupted.clone();
        let raw_read = raw_read.clone();
        std::thread::spawn(move || {
            read_sources(&sources, &pool, &tx, &token_rx, &interrupted, &raw_read)
        })
    };

    let mut status = EXIT_OK;
    let mut pending: BTreeMap<u64, Message> = BTreeMap::new();
    let mut next = 0u64;
    let mut write_failed = false;
    for (seq, message) in rx {
        pending.insert(seq, message);
        while let Some(message) = pending.remove(&next) {
            next += 1;
            match message {
                Message::Batch {
                    source,
                    bytes,
                    games,
                } => {
                    let _ = token_tx.send(());
                    if write_failed {
                        continue;
                    }
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
    let _ = reader.join();
    bar.finish_and_clear();
    if write_failed {
        return EXIT_INPUT;
    }
    reports.summary.seconds = started.elapsed().as_secs_f64();
    reports.summary.threads = config.threads;
    reports.summary.interrupted = interrupted.load(Ordering::SeqCst);
    match reports.finish() {
        Ok(summary) => eprint!("{}", summary.table()),
        Err(e) => {
            say(&format!("cannot write reports: {e}"));
            return EXIT_INPUT;
        }
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

/// The reader thread: every source in order, cut into batches that are
/// audited on the pool. Stops early when interrupted.
fn read_sources(
    sources: &[Source],
    pool: &Arc<rayon::ThreadPool>,
    tx: &mpsc::Sender<(u64, Message)>,
    tokens: &mpsc::Receiver<()>,
    interrupted: &AtomicBool,
    raw_read: &Arc<AtomicU64>,
) {
    let mut seq = 0u64;
    // Sources opened ahead of the one being read, so that their
    // decompression (on threads of their own) runs meanwhile.
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
                continue;
            }
        };
        let compression = opened.compression;
        let (bytes, error) =
            input::read_batches(opened.reader, input::batch::BATCH_BYTES, |batch| {
                if interrupted.load(Ordering::SeqCst) || tokens.recv().is_err() {
                    return ControlFlow::Break(());
                }
                let tx = tx.clone();
                let s = seq;
                seq += 1;
                pool.spawn(move || {
                    let games = audit_batch(&batch);
                    let _ = tx.send((
                        s,
                        Message::Batch {
                            source: index,
                            bytes: batch.bytes,
                            games,
                        },
                    ));
                });
                ControlFlow::Continue(())
            });
        let error = error.map(|e| match compression {
            input::Compression::None => format!("read error: {}", input::io_cause(&e)),
            c => format!(
                "{} stream is corrupt or truncated after {bytes} bytes: {}",
                c.name(),
                input::io_cause(&e)
            ),
        });
        let _ = tx.send((
            seq,
            Message::SourceEnd {
                source: index,
                bytes,
                error,
            },
        ));
        seq += 1;
    }
}
