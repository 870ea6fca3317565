//! The reader stage, on a thread of its own: every source in order, opened
//! a few ahead, read into chunks cut at sync points (see
//! `pgn_audit_input::Chunker`); each chunk is cut into games and audited on
//! the pool and sent to the writer with its number in input order, then a
//! message for the source's end. The reader only reads bytes and looks
//! back from a chunk's end for its last sync point; a stretch without one
//! (past `Chunker::max_len`) is cut into batches here, by one splitter, as
//! before. Stops early when interrupted.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use super::Message;
use super::ordered::{Outbox, Ticket};
use super::worker::{ChunkJob, audit_batch};
use pgn_audit_input::{
    self as input, Batch, Chunk, ChunkGames, Compression, Opened, ParquetSource, PathError,
    Portion, Source,
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
    /// About how many bytes go into a chunk; 0: every source is cut into
    /// batches here, by one splitter (the tests' reference).
    pub(super) chunk_bytes: usize,
}

/// How many batches a row group's reading runs ahead of the batches
/// handed on before it waits: a row group ahead of the one handed on is
/// read this far meanwhile.
const GROUP_BATCHES_AHEAD: usize = 4;

/// What a row group's reading sends back, in order.
enum GroupPart {
    /// A batch of its rows, its offsets counted from the row group's start.
    Batch(Batch),
    /// Its end: the length of its rows' text, and the error that ended it
    /// early, if one did.
    End(u64, Option<String>),
}

/// The reading of a row group on the pool, a step at a time: once it is
/// [`GROUP_BATCHES_AHEAD`] batches ahead of the ones taken it waits in its
/// [`Flow`], and the reader puts it back on the pool as it takes them.
struct GroupJob {
    rows: input::GroupReader,
    parts: mpsc::Sender<GroupPart>,
    flow: Arc<Mutex<Flow>>,
    pool: Arc<rayon::ThreadPool>,
    raw_read: Arc<AtomicU64>,
    interrupted: Arc<AtomicBool>,
    abandoned: Arc<AtomicBool>,
}

/// A row group's batches sent and taken, and its reading while it waits.
#[derive(Default)]
struct Flow {
    sent: usize,
    taken: usize,
    waiting: Option<Box<GroupJob>>,
}

impl GroupJob {
    /// The reading of `rows`, and where its parts come.
    fn new(
        rows: input::GroupReader,
        reader: &Reader,
        abandoned: &Arc<AtomicBool>,
    ) -> (GroupJob, mpsc::Receiver<GroupPart>) {
        let (tx, rx) = mpsc::channel();
        let job = GroupJob {
            rows,
            parts: tx,
            flow: Arc::default(),
            pool: reader.pool.clone(),
            raw_read: reader.raw_read.clone(),
            interrupted: reader.interrupted.clone(),
            abandoned: abandoned.clone(),
        };
        (job, rx)
    }

    fn spawn(self) {
        let pool = self.pool.clone();
        pool.spawn(move || Box::new(self).run());
    }

    /// Reads on until the row group ends (its end sent), the reading is
    /// far enough ahead (then it waits), or the run stops. A panic in the
    /// Parquet reader is the row group's read error.
    fn run(mut self: Box<Self>) {
        loop {
            if self.interrupted.load(Ordering::SeqCst) || self.abandoned.load(Ordering::SeqCst) {
                return;
            }
            let (tx, flow) = (&self.parts, &self.flow);
            let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.rows.step(&self.raw_read, |batch| {
                    lock(flow).sent += 1;
                    let _ = tx.send(GroupPart::Batch(batch));
                })
            }));
            let end = step.unwrap_or_else(|panic| {
                let cause = super::ordered::panic_message(panic.as_ref());
                Some((0, Some(format!("a row group cannot be decoded: {cause}"))))
            });
            if let Some((len, error)) = end {
                let _ = self.parts.send(GroupPart::End(len, error));
                return;
            }
            let flow = self.flow.clone();
            let mut flow = lock(&flow);
            if flow.sent - flow.taken >= GROUP_BATCHES_AHEAD {
                flow.waiting = Some(self);
                return;
            }
        }
    }

    /// A batch of the row group whose flow is `flow` was taken: its reading
    /// goes on if it waits.
    fn taken(flow: &Mutex<Flow>, pool: &rayon::ThreadPool) {
        let mut flow = lock(flow);
        flow.taken += 1;
        if let Some(job) = flow.waiting.take() {
            pool.spawn(move || job.run());
        }
    }

    /// The row group will not be read on: its waiting reading is dropped.
    fn abandon(flow: &Mutex<Flow>) {
        drop(lock(flow).waiting.take());
    }
}

/// Locks a row group's flow; one poisoned by a panic is still sound (its
/// counts are updated whole).
fn lock(flow: &Mutex<Flow>) -> std::sync::MutexGuard<'_, Flow> {
    flow.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How far a Parquet source's reading got.
struct ParquetRead {
    /// Where the text of the row group being handed on starts.
    base: u64,
    /// The end of the last batch handed out.
    handed_out: u64,
    /// The reading stopped: interrupted, or the writer is gone.
    stopped: bool,
}

/// A read error seen as it happens, with the bytes read before it.
type Failed = RefCell<Option<(u64, io::Error)>>;

/// The chunks of a regular file that their workers read: how many are
/// being read, how far the file was read, and the first offset where a
/// reading stopped short, with its error.
#[derive(Default)]
struct Reads {
    state: Mutex<ReadsState>,
    changed: Condvar,
}

#[derive(Default)]
struct ReadsState {
    pending: usize,
    end: u64,
    failed: Option<(u64, io::Error)>,
}

impl Reads {
    fn start(&self) {
        self.lock().pending += 1;
    }

    /// A chunk read up to `end`, stopped short at `failed` if it was.
    fn done(&self, end: u64, failed: Option<(u64, io::Error)>) {
        let mut state = self.lock();
        state.pending -= 1;
        state.end = state.end.max(end);
        if let Some((at, e)) = failed
            && state.failed.as_ref().is_none_or(|(first, _)| at < *first)
        {
            state.failed = Some((at, e));
        }
        drop(state);
        self.changed.notify_all();
    }

    /// Once every chunk is read: how far, and where a reading stopped short.
    fn wait(&self) -> (u64, Option<(u64, io::Error)>) {
        let mut state = self.lock();
        while state.pending > 0 {
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        (state.end, state.failed.take())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ReadsState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

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
            // A source that is no regular file (a FIFO, a pipe, standard
            // input) is opened only in its turn: opening it may wait for a
            // writer, and the sources before it would wait too.
            while next_open < self.sources.len()
                && next_open <= index + SOURCES_AHEAD
                && (next_open == index || self.opens_at_once(next_open))
            {
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
                    bytes: Some(0),
                    error: Some(e),
                }),
            }
        }
    }

    /// Whether source `index` opens without waiting: a regular file (its
    /// size was taken at the start), a zip archive's member, text in
    /// memory, or one that cannot be read.
    fn opens_at_once(&self, index: usize) -> bool {
        self.sizes[index].is_some()
            || matches!(
                self.sources[index].origin,
                input::Origin::ZipMember { .. }
                    | input::Origin::Unreadable(_)
                    | input::Origin::Memory(_)
            )
    }

    fn open(&self, index: usize) -> Result<Opened, PathError> {
        input::open(
            &self.sources[index],
            self.sizes[index],
            self.window,
            self.raw_read.clone(),
            &self.pool,
            self.pool.current_num_threads(),
            &self.interrupted,
        )
    }

    /// Reads source `index` into chunks, each cut into games and audited
    /// on the pool (a stretch without sync points into batches, cut here),
    /// then sends its end with the read error that ended it, if one did.
    fn read_source(&self, index: usize, opened: Opened, outbox: &Outbox<Message>) {
        if let Some(table) = opened.parquet {
            return self.read_parquet(index, table, outbox);
        }
        let compression = opened.compression;
        if let Some(file) = opened.file.filter(|_| self.chunk_bytes > 0) {
            return self.read_file(index, Arc::new(file), outbox);
        }
        let reader = match opened.decoded {
            Some(decoded) if self.chunk_bytes > 0 => {
                return self.read_decoded(index, decoded, compression, outbox);
            }
            Some(decoded) => decoded.into_reader(),
            None => opened.reader,
        };
        let failed: Failed = RefCell::new(None);
        let spy = ErrorSpy {
            inner: reader,
            read: 0,
            failed: &failed,
        };
        let spare = || self.spares.try_recv().ok();
        if self.chunk_bytes == 0 {
            let mut stopped = false;
            let (read, error) = input::read_batches(spy, input::BATCH_BYTES, spare, |batch| {
                let flow = self.dispatch(index, batch, compression, &failed, outbox);
                stopped |= flow.is_break();
                flow
            });
            let bytes = (!stopped).then_some(read);
            return self.end_source(index, bytes, read, error, compression, outbox);
        }
        let read = input::read_chunks(spy, self.chunk_bytes, spare, |portion| {
            self.dispatch_portion(index, portion, compression, &failed, outbox)
        });
        let total = read.reader.read;
        let bytes = (!read.stopped).then_some(total);
        self.end_source(index, bytes, total, read.error, compression, outbox);
    }

    /// Reads the regular file of source `index` as chunks that their
    /// workers read (see `pgn_audit_input::FileCuts`), and from a stretch
    /// without sync points on in order, as any source; then sends its end,
    /// once every chunk handed out is read, with the read error that ended
    /// it at the first offset where one did.
    fn read_file(&self, index: usize, file: Arc<input::RegularFile>, outbox: &Outbox<Message>) {
        let reads = Arc::new(Reads::default());
        let mut cuts = input::FileCuts::new(file.clone(), self.chunk_bytes);
        let mut serial = None;
        let mut stopped = false;
        while let Some(cut) = cuts.next_cut() {
            match cut {
                input::Cut::Chunk(cut, error) => {
                    let flow = self.dispatch_cut(index, cut, error, &file, &reads, outbox);
                    if flow.is_break() {
                        stopped = true;
                        break;
                    }
                }
                input::Cut::Serial(start) => serial = Some(start),
            }
        }
        if stopped {
            return self.end_source(index, None, 0, None, Compression::None, outbox);
        }
        let (end, failed) = reads.wait();
        if let Some((at, e)) = failed {
            return self.end_source(index, Some(at), at, Some(e), Compression::None, outbox);
        }
        let Some(start) = serial else {
            return self.end_source(index, Some(end), end, None, Compression::None, outbox);
        };
        let inner = match file.reader_from(start) {
            Ok(inner) => inner,
            Err(e) => {
                return self.end_source(
                    index,
                    Some(start),
                    start,
                    Some(e),
                    Compression::None,
                    outbox,
                );
            }
        };
        self.read_rest(index, inner, start, Compression::None, outbox);
    }

    /// Reads the rest of source `index` from `start` (a sync point or its
    /// start) on, in order, as chunks and batches; then sends its end.
    fn read_rest(
        &self,
        index: usize,
        inner: Box<dyn io::Read + Send>,
        start: u64,
        compression: Compression,
        outbox: &Outbox<Message>,
    ) {
        let failed: Failed = RefCell::new(None);
        let spy = ErrorSpy {
            inner,
            read: start,
            failed: &failed,
        };
        let spare = || self.spares.try_recv().ok();
        let read = input::read_chunks_from(spy, start, self.chunk_bytes, spare, |portion| {
            self.dispatch_portion(index, portion, compression, &failed, outbox)
        });
        let total = read.reader.read;
        let bytes = (!read.stopped).then_some(total);
        self.end_source(index, bytes, total, read.error, compression, outbox);
    }

    /// Reads a decompressed source as chunks made of its decoder's pieces,
    /// which their workers put together (see `pgn_audit_input::Decoded`),
    /// and from a stretch without sync points on in order; then sends its
    /// end.
    fn read_decoded(
        &self,
        index: usize,
        decoded: input::Decoded,
        compression: Compression,
        outbox: &Outbox<Message>,
    ) {
        let buffers = decoded.buffers();
        let ended = decoded.read_pieces(self.chunk_bytes, |chunk, error| {
            let Some(ticket) = self.ticket(outbox) else {
                return ControlFlow::Break(());
            };
            let cut = error.map(|e| read_error(compression, chunk.base + chunk.len as u64, e));
            // A spent piece goes back to the decoder, unless this chunk
            // (across two pieces) is to be copied into it.
            let mut spare = self.spares.try_recv().unwrap_or_default();
            if !chunk.is_joined() {
                buffers.give(std::mem::take(&mut spare));
            }
            self.pool.spawn(move || {
                let base = chunk.base;
                let (text, span) = chunk.join(spare);
                let job = ChunkJob {
                    source: index,
                    games: ChunkGames::new(base),
                    text,
                    span,
                    base,
                    cut,
                    ticket,
                };
                job.run();
            });
            ControlFlow::Continue(())
        });
        match ended {
            input::Pieces::Ended(end, error) => {
                self.end_source(index, Some(end), end, error, compression, outbox);
            }
            input::Pieces::Stopped => self.end_source(index, None, 0, None, compression, outbox),
            input::Pieces::Serial(start, inner) => {
                self.read_rest(index, inner, start, compression, outbox);
            }
        }
    }

    /// Hands a chunk of a regular file to the pool, to read and audit,
    /// once the writer has room for it; breaks when interrupted or when
    /// the writer is gone. `error` is the read error the reader saw at the
    /// end of the source's last chunk.
    fn dispatch_cut(
        &self,
        index: usize,
        cut: input::FileCut,
        error: Option<io::Error>,
        file: &Arc<input::RegularFile>,
        reads: &Arc<Reads>,
        outbox: &Outbox<Message>,
    ) -> ControlFlow<()> {
        let Some(ticket) = self.ticket(outbox) else {
            return ControlFlow::Break(());
        };
        reads.start();
        let spare = self.spares.try_recv().unwrap_or_default();
        let file = file.clone();
        let reads = reads.clone();
        self.pool.spawn(move || {
            let read = file.read_cut(&cut, spare);
            // The reading stopped short here, or the source ends with the
            // chunk for the reason the reader saw.
            let failed = read
                .failed
                .or_else(|| error.filter(|_| cut.last).map(|e| (read.end, e)));
            let cut_by = failed
                .as_ref()
                .map(|(at, e)| read_error(Compression::None, *at, e));
            reads.done(read.end, failed);
            let job = ChunkJob {
                source: index,
                games: ChunkGames::new(cut.start),
                text: Arc::new(read.bytes),
                span: 0..read.len,
                base: cut.start,
                cut: cut_by,
                ticket,
            };
            job.run();
        });
        ControlFlow::Continue(())
    }

    /// Hands a portion of a source read in order to the pool.
    fn dispatch_portion(
        &self,
        index: usize,
        portion: Portion,
        compression: Compression,
        failed: &Failed,
        outbox: &Outbox<Message>,
    ) -> ControlFlow<()> {
        match portion {
            Portion::Chunk(chunk) => self.dispatch_chunk(index, chunk, compression, failed, outbox),
            Portion::Batch(batch) => self.dispatch(index, batch, compression, failed, outbox),
            Portion::StretchLines(lines) => {
                outbox.number().send(Message::Batch {
                    source: index,
                    end: None,
                    bytes: Arc::new(Vec::new()),
                    games: Vec::new(),
                    lines,
                    more: None,
                });
                ControlFlow::Continue(())
            }
        }
    }

    /// Hands a chunk to the pool once the writer has room for it; breaks
    /// when interrupted or when the writer is gone.
    fn dispatch_chunk(
        &self,
        index: usize,
        chunk: Chunk,
        compression: Compression,
        failed: &Failed,
        outbox: &Outbox<Message>,
    ) -> ControlFlow<()> {
        let Some(ticket) = self.ticket(outbox) else {
            return ControlFlow::Break(());
        };
        let cut = chunk
            .last
            .then(|| {
                let failed = failed.borrow();
                let (at, e) = failed.as_ref()?;
                Some(read_error(compression, *at, e))
            })
            .flatten();
        let job = ChunkJob {
            source: index,
            games: ChunkGames::new(chunk.base),
            text: Arc::new(chunk.bytes),
            span: 0..chunk.len,
            base: chunk.base,
            cut,
            ticket,
        };
        self.pool.spawn(move || job.run());
        ControlFlow::Continue(())
    }

    /// Sends the end of source `index`: the bytes it counts (`None` when
    /// the reading stopped early: the end of the last game written, which
    /// the writer knows), and the read error that ended it, said with the
    /// `read` bytes before it.
    fn end_source(
        &self,
        index: usize,
        bytes: Option<u64>,
        read: u64,
        error: Option<io::Error>,
        compression: Compression,
        outbox: &Outbox<Message>,
    ) {
        let error = error.map(|e| {
            let cause = read_error(compression, read, &e);
            PathError::caused(&self.sources[index].name, cause, e)
        });
        outbox.number().send(Message::SourceEnd {
            source: index,
            bytes,
            error,
        });
    }

    /// Reads the Parquet source `index`, row by row as games: its row
    /// groups are read on the pool, the pool's threads and one more at
    /// once, each at most [`GROUP_BATCHES_AHEAD`] batches ahead of what is
    /// handed on (so what is held is bounded, however large the row
    /// groups), into a channel of its own; the batches are handed on in
    /// row order to be audited on the pool. Then sends the source's end
    /// with the error that ended it, if one did (the row groups after it
    /// are not read). Its bytes are those of the games' PGN text, up to
    /// the end of the last game handed out.
    fn read_parquet(&self, index: usize, table: ParquetSource, outbox: &Outbox<Message>) {
        let table = Arc::new(table);
        let first_rows = table.first_rows();
        let abandoned = Arc::new(AtomicBool::new(false));
        let at_once = self.pool.current_num_threads() + 1;
        let mut reading = VecDeque::new();
        let mut launched = 0;
        let mut last = None;
        let mut read = ParquetRead {
            base: 0,
            handed_out: 0,
            stopped: false,
        };
        let mut error = None;
        'groups: for _ in 0..first_rows.len() {
            while launched < first_rows.len() && reading.len() < at_once {
                let spare = std::iter::from_fn(|| self.spares.try_recv().ok())
                    .take(GROUP_BATCHES_AHEAD)
                    .collect();
                let rows = table.read_group(launched, first_rows[launched], spare);
                let (job, parts) = GroupJob::new(rows, self, &abandoned);
                reading.push_back((parts, job.flow.clone()));
                job.spawn();
                launched += 1;
            }
            let Some((parts, flow)) = reading.pop_front() else {
                break;
            };
            loop {
                let part = match parts.recv_timeout(std::time::Duration::from_millis(50)) {
                    Ok(part) => part,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if self.interrupted.load(Ordering::SeqCst) {
                            read.stopped = true;
                            break 'groups;
                        }
                        continue;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        error = Some("a row group's reading stopped short".to_owned());
                        break 'groups;
                    }
                };
                match part {
                    GroupPart::Batch(batch) => {
                        GroupJob::taken(&flow, &self.pool);
                        let batch = batch.moved_to(read.base);
                        if let Some(before) = last.replace(batch)
                            && self
                                .dispatch_rows(index, before, &mut read, outbox)
                                .is_break()
                        {
                            break 'groups;
                        }
                    }
                    GroupPart::End(len, failed) => {
                        read.base += len;
                        if failed.is_some() {
                            error = failed;
                            break 'groups;
                        }
                        break;
                    }
                }
            }
        }
        abandoned.store(true, Ordering::SeqCst);
        for (_, flow) in reading {
            GroupJob::abandon(&flow);
        }
        if let Some(mut batch) = last.filter(|_| !read.stopped) {
            batch.last = true;
            let _ = self.dispatch_rows(index, batch, &mut read, outbox);
        }
        let error = error.filter(|_| !read.stopped).map(|cause| {
            PathError::new(
                &self.sources[index].name,
                format!("Parquet read error: {cause}"),
            )
        });
        outbox.number().send(Message::SourceEnd {
            source: index,
            bytes: Some(read.handed_out),
            error,
        });
    }

    /// Hands a batch of rows to the pool, as [`Reader::dispatch`] does,
    /// counting it in `read`; breaks when the reading stops.
    fn dispatch_rows(
        &self,
        index: usize,
        batch: Batch,
        read: &mut ParquetRead,
        outbox: &Outbox<Message>,
    ) -> ControlFlow<()> {
        let no_error: Failed = RefCell::new(None);
        let end = batch.base + batch.len as u64;
        let flow = self.dispatch(index, batch, Compression::None, &no_error, outbox);
        match flow {
            ControlFlow::Continue(()) => read.handed_out = end,
            ControlFlow::Break(()) => read.stopped = true,
        }
        flow
    }

    /// A place in the writer's order for the next message, once the writer
    /// has room; `None` when interrupted or when the writer is gone.
    fn ticket(&self, outbox: &Outbox<Message>) -> Option<Ticket<Message>> {
        if self.interrupted.load(Ordering::SeqCst) {
            return None;
        }
        outbox.slot()
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
        let Some(ticket) = self.ticket(outbox) else {
            return ControlFlow::Break(());
        };
        let cut = cut_by(&batch, compression, failed);
        self.pool.spawn(move || {
            let games = audit_batch(&batch, cut.as_deref());
            ticket.send(Message::Batch {
                source: index,
                end: Some(batch.base + batch.len as u64),
                bytes: Arc::new(batch.bytes),
                games,
                lines: 0,
                more: None,
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
        // No text where text should be: the stream itself may be sound.
        _ if input::NulRun::is(e) => format!("read error: {}", input::io_cause(e)),
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
                let copy = if input::NulRun::is(e) {
                    io::Error::new(e.kind(), input::NulRun)
                } else {
                    io::Error::new(e.kind(), e.to_string())
                };
                *failed = Some((self.read, copy));
            }
        })?;
        self.read += n as u64;
        Ok(n)
    }
}
