//! The reader stage, on a thread of its own: every source in order, opened
//! a few ahead, cut into batches of whole games; each batch is audited on
//! the pool and sent to the writer with its number in input order, then a
//! message for the source's end. Stops early when interrupted.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

use super::Message;
use super::ordered::Outbox;
use super::worker::audit_batch;
use pgn_audit_input::{
    self as input, Batch, Compression, Opened, ParquetSource, PathError, Source,
};

/// How many sources after the one being read are opened (and decompressed)
/// ahead of it.
const SOURCES_AHEAD: usize = 2;

/// What the reader works with.
pub(super) struct Reader {
    pub(super) sources: Vec<Source>,
    /// Each source's size as the run started, where it is a regular file:
    /// one that ends before it is a read error.
    pub(super) sizes: Vec<Option<u64>>,
    /// The largest zstd window or xz dictionary a source may ask for.
    pub(super) window: input::MaxWindow,
    pub(super) pool: Arc<rayon::ThreadPool>,
    /// Buffers of batches written, to read into again.
    pub(super) spares: mpsc::Receiver<Vec<u8>>,
    pub(super) interrupted: Arc<AtomicBool>,
    /// Raw (compressed) bytes read, for the progress bar.
    pub(super) raw_read: Arc<AtomicU64>,
    /// With `--piece`, the one source's piece, already opened.
    pub(super) piece: Option<Opened>,
}

/// A read error seen as it happens, with the bytes read before it.
type Failed = RefCell<Option<(u64, io::Error)>>;

impl Reader {
    /// Reads every source in order into `outbox`.
    pub(super) fn run(mut self, outbox: &Outbox<Message>) {
        let mut piece = self.piece.take();
        // Sources opened ahead of the one being read, so that their
        // decompression (on threads of their own, but for zstd at two
        // threads or fewer) runs meanwhile.
        let mut ahead: VecDeque<Result<Opened, PathError>> = VecDeque::new();
        let mut next_open = 0;
        for index in 0..self.sources.len() {
            if self.interrupted.load(Ordering::SeqCst) {
                break;
            }
            while next_open < self.sources.len() && next_open <= index + SOURCES_AHEAD {
                ahead.push_back(match piece.take() {
                    Some(opened) => Ok(opened),
                    None => self.open(next_open),
                });
                next_open += 1;
            }
            let Some(opened) = ahead.pop_front() else {
                break;
            };
            match opened {
                Ok(opened) => self.read_source(index, opened, outbox),
                Err(e) => outbox.number().send(Message::SourceEnd {
                    source: index,
                    bytes: 0,
                    error: Some(e),
                }),
            }
        }
    }

    fn open(&self, index: usize) -> Result<Opened, PathError> {
        input::open(
            &self.sources[index],
            self.sizes[index],
            self.window,
            self.raw_read.clone(),
            &self.pool,
            self.pool.current_num_threads(),
        )
    }

    /// Cuts source `index` into batches, each audited on the pool, then
    /// sends its end with the read error that ended it, if one did.
    fn read_source(&self, index: usize, opened: Opened, outbox: &Outbox<Message>) {
        if let Some(table) = opened.parquet {
            return self.read_parquet(index, table, outbox);
        }
        let compression = opened.compression;
        let failed: Failed = RefCell::new(None);
        let spy = ErrorSpy {
            inner: opened.reader,
            read: 0,
            failed: &failed,
        };
        let spare = || self.spares.try_recv().ok();
        // The end of the last game handed out, and whether the reading
        // stopped early: an interrupted source counts its bytes up to the
        // end of the last game written, not of what was read ahead.
        let mut handed_out = 0;
        let mut stopped = false;
        let (read, error) = input::read_batches(spy, input::BATCH_BYTES, spare, |batch| {
            let end = batch.base + batch.len as u64;
            let flow = self.dispatch(index, batch, compression, &failed, outbox);
            match flow {
                ControlFlow::Continue(()) => handed_out = end,
                ControlFlow::Break(()) => stopped = true,
            }
            flow
        });
        let bytes = if stopped { handed_out } else { read };
        let error = error.map(|e| {
            let cause = read_error(compression, bytes, &e);
            PathError::caused(&self.sources[index].name, cause, e)
        });
        outbox.number().send(Message::SourceEnd {
            source: index,
            bytes,
            error,
        });
    }

    /// Reads the Parquet source `index`, row by row as games, in batches
    /// audited on the pool, then sends its end with the error that ended
    /// it, if one did. Its bytes are those of the games' PGN text, up to
    /// the end of the last game handed out.
    fn read_parquet(&self, index: usize, table: ParquetSource, outbox: &Outbox<Message>) {
        let no_error: Failed = RefCell::new(None);
        let spare = || self.spares.try_recv().ok();
        let mut handed_out = 0;
        let error = table.read_batches(&self.raw_read, spare, |batch| {
            let end = batch.base + batch.len as u64;
            let flow = self.dispatch(index, batch, Compression::None, &no_error, outbox);
            if flow.is_continue() {
                handed_out = end;
            }
            flow
        });
        let error = error.map(|cause| {
            PathError::new(
                &self.sources[index].name,
                format!("Parquet read error: {cause}"),
            )
        });
        outbox.number().send(Message::SourceEnd {
            source: index,
            bytes: handed_out,
            error,
        });
    }

    /// Hands a batch to the pool once the writer has room for it; breaks
    /// when interrupted or when the writer is gone.
    fn dispatch(
        &self,
        index: usize,
        batch: Batch,
        compression: Compression,
        failed: &Failed,
        outbox: &Outbox<Message>,
    ) -> ControlFlow<()> {
        if self.interrupted.load(Ordering::SeqCst) {
            return ControlFlow::Break(());
        }
        let Some(ticket) = outbox.slot() else {
            return ControlFlow::Break(());
        };
        let cut = cut_by(&batch, compression, failed);
        self.pool.spawn(move || {
            let games = audit_batch(&batch, cut.as_deref());
            ticket.send(Message::Batch {
                source: index,
                end: batch.base + batch.len as u64,
                bytes: batch.bytes,
                games,
            });
        });
        ControlFlow::Continue(())
    }
}

/// The read error that broke the source inside `batch`'s last game. The
/// stream broke inside the source's last game unless the splitter saw that
/// game end with its result token and a line end ([`GameSpan::ended`]):
/// then the error came after it, and the game is whole. (The bytes of the
/// reads before the failed one may fill several batches: only the last one
/// is cut.)
///
/// [`GameSpan::ended`]: pgn_audit_input::GameSpan::ended
fn cut_by(batch: &Batch, compression: Compression, failed: &Failed) -> Option<String> {
    let failed = failed.borrow();
    let (at, e) = failed.as_ref().filter(|_| batch.last)?;
    let last = batch.games.last()?;
    (!last.ended).then(|| read_error(compression, *at, e))
}

/// The one-line cause of a read error.
fn read_error(compression: Compression, bytes: u64, e: &io::Error) -> String {
    match compression {
        Compression::None => format!("read error: {}", input::io_cause(e)),
        // A window or dictionary above `--max-window`: refused, not broken.
        c if e.kind() == io::ErrorKind::OutOfMemory => format!(
            "{} stream refused after {bytes} bytes: {}",
            c.name(),
            input::io_cause(e)
        ),
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
    failed: &'a Failed,
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
