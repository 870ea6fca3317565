//! The writer stage, on the run's own thread: takes the reader's messages
//! in input order and writes each game into the reports, counts each
//! source when it ends, and moves the progress bar. A report that cannot
//! be written, or a thread that a source's reading needs and the OS
//! refused, stops the reader; the run then ends without a summary.json.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Instant;

use indicatif::ProgressBar;

use super::worker::Audited;
use super::{Message, say};
use pgn_audit_input::{self as input, PathError, Source};
use pgn_audit_report::{FileStat, GameId, Reports, SourceDetail, Summary};

/// A source file as the run started.
pub(super) type Stat = FileStat;

/// Where the messages go.
pub(super) struct Sink<'a> {
    pub(super) reports: Reports,
    pub(super) sources: &'a [Source],
    pub(super) stats: &'a [Stat],
    pub(super) bar: &'a ProgressBar,
    pub(super) started: Instant,
    pub(super) raw_read: &'a AtomicU64,
    /// Set when a report cannot be written: the reader stops.
    pub(super) interrupted: &'a AtomicBool,
    /// Buffers of written batches, back to the reader.
    pub(super) spares: mpsc::SyncSender<Vec<u8>>,
    /// A report could not be written, or a thread could not start:
    /// nothing more is.
    pub(super) write_failed: bool,
    /// Games written before the current source.
    pub(super) games_before: u64,
    /// The source being written, until its end.
    pub(super) open_source: Option<OpenSource>,
    /// Where the rest of a chunk is audited once a part of it is written.
    pub(super) pool: Arc<rayon::ThreadPool>,
    /// Where a source's read error is said.
    pub(super) tell: Tell,
    /// The read errors kept with [`Tell::Collect`], in input order.
    pub(super) read_errors: Vec<String>,
}

/// Where the sink says a source's read error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tell {
    /// On standard error, as the command line does.
    Stderr,
    /// Kept for the caller (a run embedded in another program).
    Collect,
}

/// What the writer counts of the source being written: its games are
/// numbered and their lines counted on here, in input order, since each
/// chunk counts from its own start.
#[derive(Clone, Copy, Debug)]
pub(super) struct OpenSource {
    source: usize,
    /// The end of its last game written: the bytes an interrupted run
    /// counts.
    end: u64,
    /// Its games written.
    games: u64,
    /// The line ends before the chunk being written.
    lines: u64,
}

impl Sink<'_> {
    /// Takes the next message in input order.
    pub(super) fn take(&mut self, message: Message) {
        match message {
            Message::Batch {
                source,
                end,
                bytes,
                games,
                lines,
                more,
            } => {
                // The rest of the chunk is audited while this part is
                // written (even after a write failure: its parts must
                // still come for the stage to end).
                if let Some(job) = more {
                    self.pool.spawn(move || job.run());
                }
                let open = match self.open_source {
                    Some(open) if open.source == source => open,
                    _ => OpenSource {
                        source,
                        end: 0,
                        games: 0,
                        lines: 0,
                    },
                };
                if !self.write_failed {
                    self.write_batch(open, &bytes, &games);
                    self.bar.set_position(self.raw_read.load(Ordering::Relaxed));
                    self.bar.set_message(crate::progress::message(
                        self.reports.summary.games,
                        self.started.elapsed().as_secs_f64(),
                    ));
                }
                self.open_source = Some(OpenSource {
                    end: end.unwrap_or(open.end),
                    games: open.games + games.len() as u64,
                    lines: open.lines + lines,
                    ..open
                });
                if let Ok(bytes) = Arc::try_unwrap(bytes) {
                    let _ = self.spares.try_send(bytes);
                }
                // Their memory is freed on the pool: a free per game's tag
                // and finding was a third of this thread's time.
                if !games.is_empty() {
                    self.pool.spawn(move || drop(games));
                }
            }
            Message::SourceEnd {
                source,
                bytes,
                error,
            } => {
                let written = self
                    .open_source
                    .take()
                    .filter(|o| o.source == source)
                    .map_or(0, |o| o.end);
                self.source_end(source, bytes.unwrap_or(written), error);
            }
        }
    }

    /// Writes a batch's games, numbered and their lines counted on from
    /// `open`; on an error says so and stops the reader.
    fn write_batch(&mut self, open: OpenSource, bytes: &[u8], games: &[Audited]) {
        for (k, g) in games.iter().enumerate() {
            let id = GameId {
                source: &self.sources[open.source].name,
                game: open.games + k as u64 + 1,
                offset: g.offset,
                line: open.lines + g.line,
                tags: &g.tags,
            };
            if let Err(e) = self
                .reports
                .write_game(&id, &g.report, &bytes[g.range.0..g.range.1])
            {
                self.write_failure(&e);
                return;
            }
        }
    }

    /// A report that cannot be written: said at once, and the reader
    /// stops.
    fn write_failure(&mut self, e: &PathError) {
        self.bar
            .suspend(|| say(&format!("cannot write reports: {e}")));
        self.write_failed = true;
        self.interrupted.store(true, Ordering::SeqCst);
    }

    /// A thread that a source's reading needs could not start: said at
    /// once, as no fault of the source, and the reader stops, as for a
    /// report that cannot be written.
    fn thread_failure(&mut self, e: &input::NoThread) {
        let said = e.to_string();
        match self.tell {
            Tell::Stderr => self.bar.suspend(|| say(&said)),
            Tell::Collect => self.read_errors.push(said),
        }
        self.write_failed = true;
        self.interrupted.store(true, Ordering::SeqCst);
    }

    /// A source's end: its read error said, and its line in the summary.
    fn source_end(&mut self, source: usize, bytes: u64, error: Option<PathError>) {
        if let Some(no_thread) = error.as_ref().and_then(no_thread) {
            return self.thread_failure(no_thread);
        }
        if let Some(e) = &error {
            match self.tell {
                Tell::Stderr => self.bar.suspend(|| say(&e.to_string())),
                Tell::Collect => self
                    .read_errors
                    .push(input::printable(&e.to_string()).into_owned()),
            }
        }
        self.count_source(source, bytes, error.map(|e| e.cause));
    }

    /// Interrupted while the reader waits for input: the source being read
    /// counts with the bytes of its games written.
    pub(super) fn stopped(&mut self) {
        if let Some(open) = self.open_source.take() {
            self.count_source(open.source, open.end, None);
        }
    }

    fn count_source(&mut self, source: usize, bytes: u64, error: Option<String>) {
        let summary: &mut Summary = &mut self.reports.summary;
        let FileStat {
            size,
            modified,
            modified_ns,
            ends_crc32,
        } = self.stats[source].clone();
        summary.bytes += bytes;
        summary.sources.push(self.sources[source].name.clone());
        summary.source_details.push(SourceDetail {
            name: self.sources[source].name.clone(),
            size,
            modified,
            bytes,
            games: summary.games - self.games_before,
            error,
            modified_ns,
            ends_crc32,
        });
        self.games_before = summary.games;
    }
}

/// The thread that could not start behind a source's read error, if that
/// is what ended it.
fn no_thread(e: &PathError) -> Option<&input::NoThread> {
    e.source
        .as_deref()?
        .downcast_ref::<std::io::Error>()
        .and_then(input::NoThread::of)
}
