//! Decompression off the reader thread.
//!
//! A gzip, bzip2, xz or zstd source is decompressed on a thread of its
//! own, which hands the decompressed bytes over in order through a small
//! bounded channel ([`Chunks`]), so the reader thread only cuts chunks
//! while decompression runs beside it, and the next sources can be
//! decompressed ahead.
//!
//! A zstd stream made of many frames (as `pzstd` writes them, each frame
//! announced by a skippable frame) is decompressed frame by frame on the
//! worker pool: the source thread walks the frames (headers and block
//! headers only), hands a few of them to the pool and passes their output
//! on in order. Games that straddle two frames need no care: the output is
//! one stream again, cut into games afterwards. Whatever cannot be walked
//! that way (one huge frame, a frame of unknown size that no `pzstd` header
//! announced, a truncated or corrupt frame) is decompressed as a stream
//! from there on, exactly as a single-threaded decoder would, so the bytes
//! delivered before an error are the same.

use std::collections::VecDeque;
use std::io::{self, BufRead, Cursor, Read};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, SyncSender};

/// Bytes read from a stream decoder per chunk.
const CHUNK: usize = 1 << 20;
/// The largest frame output decompressed whole on the pool (`pzstd` cuts
/// its input into frames of at most 32 MiB).
const MAX_FRAME: usize = 32 << 20;
/// Decompressed bytes the frames in flight may hold together.
const FRAME_BUDGET: usize = 32 << 20;

/// What a decoder thread hands over: decompressed bytes, then the end of
/// the stream or its error. A thread that stops without saying either
/// (it panicked, or returned early) failed: [`Chunks`] reads an error then,
/// never a short stream that looks complete.
pub(super) enum Piece {
    Bytes(Vec<u8>),
    End,
    Failed(io::Error),
}

pub(super) type Sender = SyncSender<Piece>;

/// The decompressed bytes of one source, in order, from its own thread.
pub(crate) struct Chunks {
    rx: Receiver<Piece>,
    current: Vec<u8>,
    pos: usize,
    done: bool,
    /// Where spent pieces go back to, for the decoder to fill again.
    pub(crate) buffers: PieceBuffers,
}

/// Buffers of spent pieces, handed back to a source's decoder, which
/// decompresses the next frames into them, so that a run seldom allocates
/// a new one. Each new 8 MiB piece was fresh memory (43,000 page faults on
/// 191 MiB of pzstd text at -j2), and the pieces freed and kept by the
/// allocator took the peak RSS from 58 to 88 MiB; with one buffer kept it
/// is 58 MiB again and 15,000 faults (four kept: 92 MiB).
#[derive(Clone, Debug, Default)]
pub struct PieceBuffers(Arc<Mutex<Vec<Vec<u8>>>>);

impl PieceBuffers {
    /// How many spent buffers wait for the decoder at the most: the others
    /// are freed.
    const KEPT: usize = 1;

    /// Hands a spent piece's buffer back (dropped where enough wait).
    pub fn give(&self, mut buffer: Vec<u8>) {
        if buffer.capacity() == 0 {
            return;
        }
        buffer.clear();
        if let Ok(mut kept) = self.0.lock()
            && kept.len() < PieceBuffers::KEPT
        {
            kept.push(buffer);
        }
    }

    /// A buffer to decompress into: a spent one where one waits.
    fn take(&self) -> Vec<u8> {
        self.0
            .lock()
            .ok()
            .and_then(|mut kept| kept.pop())
            .unwrap_or_default()
    }
}

impl Read for Chunks {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.pos < self.current.len() {
                let n = buf.len().min(self.current.len() - self.pos);
                buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
                self.pos += n;
                return Ok(n);
            }
            if self.done {
                return Ok(0);
            }
            // The spent chunk is freed before waiting for the next one.
            self.current = Vec::new();
            self.pos = 0;
            match self.rx.recv() {
                Ok(Piece::Bytes(chunk)) => self.current = chunk,
                Ok(Piece::End) => self.done = true,
                Ok(Piece::Failed(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Err(stopped_early());
                }
            }
        }
    }
}

impl Chunks {
    /// The next bytes as the decoder handed them over (after what reads
    /// took of them), or the end of the stream (`None`), or its error.
    pub(crate) fn next_piece(&mut self) -> io::Result<Option<Vec<u8>>> {
        if self.pos < self.current.len() {
            let mut rest = std::mem::take(&mut self.current);
            rest.drain(..self.pos);
            self.pos = 0;
            return Ok(Some(rest));
        }
        self.current = Vec::new();
        self.pos = 0;
        if self.done {
            return Ok(None);
        }
        match self.rx.recv() {
            Ok(Piece::Bytes(chunk)) => Ok(Some(chunk)),
            Ok(Piece::End) => {
                self.done = true;
                Ok(None)
            }
            Ok(Piece::Failed(e)) => {
                self.done = true;
                Err(e)
            }
            Err(_) => {
                self.done = true;
                Err(stopped_early())
            }
        }
    }
}

/// The error of a decoder thread that ended without saying how.
fn stopped_early() -> io::Error {
    io::Error::other("the decompressor stopped before the end of the stream")
}

fn channel() -> (Sender, Chunks) {
    let (tx, rx) = mpsc::sync_channel(1);
    let chunks = Chunks {
        rx,
        current: Vec::new(),
        pos: 0,
        done: false,
        buffers: PieceBuffers::default(),
    };
    (tx, chunks)
}

/// Runs `work` on a new thread, `decode`, that feeds the returned
/// [`Chunks`]. A panic there reaches the reader as an error that says so,
/// and a thread that cannot start as a [`NoThread`] error.
pub(super) fn spawn(work: impl FnOnce(&Sender) + Send + 'static) -> Chunks {
    let (tx, chunks) = channel();
    let unstarted = tx.clone();
    let started = std::thread::Builder::new()
        .name("decode".to_owned())
        .spawn(move || {
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&tx)));
            if let Err(panic) = caught {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let _ = tx.send(Piece::Failed(io::Error::other(format!(
                    "the decompressor failed: {what}"
                ))));
            }
        });
    if let Err(e) = started {
        let _ = unstarted.try_send(Piece::Failed(io::Error::new(e.kind(), NoThread(e))));
    }
    chunks
}

/// A thread that reading a source needs could not be started: the OS
/// refused it (its limit on threads or processes, memory for the stack),
/// which is no fault of the input. Said as `cannot start a thread:
/// REASON`; the run cannot go on.
#[derive(Debug, thiserror::Error)]
#[error("cannot start a thread: {}", super::io_cause(.0))]
pub struct NoThread(pub io::Error);

impl NoThread {
    /// The [`NoThread`] that `e` is, if it is one.
    pub fn of(e: &io::Error) -> Option<&NoThread> {
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<NoThread>())
    }
}

/// Reads `reader` to its end on a new thread. The thread stops when the
/// [`Chunks`] are dropped.
pub(crate) fn spawn_stream(reader: Box<dyn Read + Send>) -> Chunks {
    spawn(move |tx| pump(reader, tx))
}

/// Sends the error that ends the stream.
pub(super) fn fail(tx: &Sender, e: io::Error) {
    let _ = tx.send(Piece::Failed(e));
}

/// Sends what `reader` gives, chunk by chunk, then the end or its error.
/// Stops early when the receiver is gone.
pub(super) fn pump(mut reader: impl Read, tx: &Sender) {
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        match (&mut reader).take(CHUNK as u64).read_to_end(&mut chunk) {
            Ok(0) => {
                let _ = tx.send(Piece::End);
                return;
            }
            Ok(_) => {
                if tx.send(Piece::Bytes(chunk)).is_err() {
                    return;
                }
            }
            Err(e) => {
                if !chunk.is_empty() && tx.send(Piece::Bytes(chunk)).is_err() {
                    return;
                }
                let _ = tx.send(Piece::Failed(e));
                return;
            }
        }
    }
}

/// The largest zstd window or xz dictionary a source may ask for
/// (`--max-window MIB`): a frame or stream that asks for more is refused
/// with a read error naming the option, so that memory stays bounded
/// whatever the input, as the zstd tool refuses such a frame by default.
/// `zstd --long=31` writes frames with a 2 GiB window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxWindow {
    mib: u32,
}

impl MaxWindow {
    /// The limit without `--max-window`: 128 MiB, the zstd tool's own.
    pub const DEFAULT_MIB: u32 = 128;
    /// The largest limit: 2 GiB, the largest window zstd writes.
    pub const LARGEST_MIB: u32 = 2048;

    /// A limit of `mib` MiB (rounded down to a power of two, within 1 MiB
    /// and [`MaxWindow::LARGEST_MIB`]).
    pub fn mib(mib: u32) -> MaxWindow {
        let mib = mib.clamp(1, MaxWindow::LARGEST_MIB);
        MaxWindow {
            mib: 1 << mib.ilog2(),
        }
    }

    /// The limit in MiB, as applied (a power of two).
    pub fn in_mib(self) -> u32 {
        self.mib
    }

    /// The largest zstd window log allowed.
    pub(crate) fn log(self) -> u32 {
        20 + self.mib.ilog2()
    }

    /// What an xz stream may take to decode: its dictionary and the
    /// decoder's few MiB beside it.
    pub(crate) fn xz_memlimit(self) -> u64 {
        (u64::from(self.mib) + 4) << 20
    }

    /// The read error of a frame or stream that asks for more.
    pub(crate) fn refusal(self, what: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!(
                "{what} is larger than the limit of {} MiB (--max-window {} reads it, with up to that much more memory)",
                self.mib,
                MaxWindow::LARGEST_MIB
            ),
        )
    }

    /// `e` as the refusal of a window above the limit, where zstd says
    /// that is what it is.
    fn zstd_error(self, e: io::Error) -> io::Error {
        if e.to_string() == "Frame requires too much memory for decoding" {
            self.refusal("the zstd window")
        } else {
            e
        }
    }
}

impl Default for MaxWindow {
    fn default() -> MaxWindow {
        MaxWindow::mib(MaxWindow::DEFAULT_MIB)
    }
}

/// An xz decoder's reads, a dictionary above the limit said as such.
pub(crate) struct XzLimited<R> {
    pub(crate) inner: R,
    pub(crate) window: MaxWindow,
}

impl<R: Read> Read for XzLimited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if e.to_string() == "memory limit reached" {
                self.window.refusal("the xz dictionary")
            } else {
                e
            }
        })
    }
}

/// An xz decoder of every stream of `src` (as `xz` concatenates them),
/// within the memory of `window`.
pub(crate) fn xz_decoder<R: BufRead>(
    src: R,
    window: MaxWindow,
) -> io::Result<XzLimited<liblzma::bufread::XzDecoder<R>>> {
    let stream = liblzma::stream::Stream::new_stream_decoder(
        window.xz_memlimit(),
        liblzma::stream::CONCATENATED,
    )?;
    Ok(XzLimited {
        inner: liblzma::bufread::XzDecoder::new_stream(src, stream),
        window,
    })
}

/// The most one zstd block decompresses to.
const ZSTD_BLOCK: usize = zstd::zstd_safe::BLOCKSIZE_MAX as usize;

/// The input a zstd decoder is given before it has read a frame header:
/// the header's fixed prefix (`ZSTD_FRAMEHEADERSIZE_PREFIX`, which
/// zstd-safe exposes only with libzstd's experimental API).
const FRAME_PREFIX: usize = 5;

/// A zstd stream decoder that keeps every block decoded before a fault,
/// as `zstd -dc` does. Each step gives the decoder only the input it asks
/// for next (at most the rest of one block and the next block header) and
/// room for a whole block, so a step completes at most one block and
/// delivers it whole: the step that fails has delivered nothing that a
/// later read would lose. The bytes given before an error are therefore
/// the same however the caller's reads are sized.
pub(crate) struct ZstdStream<R> {
    src: R,
    decoder: zstd::stream::raw::Decoder<'static>,
    /// A block decoded for a read with less than a block's room.
    spill: Vec<u8>,
    spill_pos: usize,
    /// The input the decoder asked for next.
    want: usize,
    /// A frame is begun and not finished.
    in_frame: bool,
    /// The last step finished a frame: the next input starts another.
    frame_done: bool,
    /// After an error or the end.
    done: bool,
    /// For a piece (`--piece`): where its bounds end, in input bytes.
    bound: Option<Bound>,
    /// The largest window a frame may ask for.
    window: MaxWindow,
}

/// Where a piece's bounds end in a zstd stream's input, and what the
/// stream found there.
struct Bound {
    /// Input bytes to the end of the bounds.
    at: u64,
    /// Input bytes consumed, and output bytes decoded, so far.
    consumed: u64,
    produced: u64,
    /// The output bytes before the bounds' end, once a frame ended right
    /// there (`u64::MAX` until then, and for good when the input passed
    /// that point inside a frame).
    length: Arc<std::sync::atomic::AtomicU64>,
}

impl<R: BufRead> ZstdStream<R> {
    /// A stream that stores in `length`, once a frame ends exactly `at`
    /// input bytes in, the output bytes decoded up to there: the
    /// decompressed length of a piece's bounds.
    pub(super) fn bounded(
        src: R,
        at: u64,
        length: Arc<std::sync::atomic::AtomicU64>,
        window: MaxWindow,
    ) -> io::Result<ZstdStream<R>> {
        if at == 0 {
            length.store(0, std::sync::atomic::Ordering::Relaxed);
        }
        let mut stream = ZstdStream::new(src, window)?;
        stream.bound = Some(Bound {
            at,
            consumed: 0,
            produced: 0,
            length,
        });
        Ok(stream)
    }

    pub(crate) fn new(src: R, window: MaxWindow) -> io::Result<ZstdStream<R>> {
        let mut decoder = zstd::stream::raw::Decoder::new()?;
        decoder.set_parameter(zstd::stream::raw::DParameter::WindowLogMax(window.log()))?;
        Ok(ZstdStream {
            src,
            decoder,
            spill: Vec::new(),
            spill_pos: 0,
            want: FRAME_PREFIX,
            in_frame: false,
            frame_done: false,
            done: false,
            bound: None,
            window,
        })
    }

    /// One decoder step into `out` (at least [`ZSTD_BLOCK`] long); the
    /// number of bytes decoded, 0 at the end of the stream.
    fn step(&mut self, out: &mut [u8]) -> io::Result<usize> {
        use zstd::stream::raw::{InBuffer, Operation, OutBuffer};
        loop {
            let input = match self.src.fill_buf() {
                Ok(i) => i,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if input.is_empty() {
                if self.in_frame {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "incomplete frame",
                    ));
                }
                return Ok(0);
            }
            if self.frame_done {
                self.decoder.reinit()?;
                self.frame_done = false;
            }
            let mut inb = InBuffer::around(&input[..input.len().min(self.want)]);
            let mut outb = OutBuffer::around(&mut *out);
            let window = self.window;
            let hint = self
                .decoder
                .run(&mut inb, &mut outb)
                .map_err(|e| window.zstd_error(e))?;
            let (read, written) = (inb.pos(), outb.pos());
            self.src.consume(read);
            if let Some(b) = &mut self.bound {
                b.consumed += read as u64;
                if hint == 0 && b.consumed == b.at {
                    b.length.store(
                        b.produced + written as u64,
                        std::sync::atomic::Ordering::Relaxed,
                    );
                }
                b.produced += written as u64;
            }
            self.in_frame = hint != 0;
            self.frame_done = hint == 0;
            self.want = if hint == 0 { FRAME_PREFIX } else { hint };
            if written > 0 {
                return Ok(written);
            }
        }
    }
}

impl<R: BufRead> Read for ZstdStream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.spill_pos < self.spill.len() {
            let n = buf.len().min(self.spill.len() - self.spill_pos);
            buf[..n].copy_from_slice(&self.spill[self.spill_pos..self.spill_pos + n]);
            self.spill_pos += n;
            return Ok(n);
        }
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        // Straight into the caller's buffer when a block fits there.
        let got = if buf.len() >= ZSTD_BLOCK {
            self.step(buf)
        } else {
            let mut spill = std::mem::take(&mut self.spill);
            spill.resize(ZSTD_BLOCK, 0);
            let got = self.step(&mut spill);
            self.spill = spill;
            got.map(|n| {
                self.spill.truncate(n);
                let k = n.min(buf.len());
                buf[..k].copy_from_slice(&self.spill[..k]);
                self.spill_pos = k;
                k
            })
        };
        match got {
            Ok(0) | Err(_) => self.done = true,
            Ok(_) => {}
        }
        got
    }
}

/// A zstd decoder over `reader`, as a single-threaded reader would use it.
fn stream_decoder<'a>(
    reader: impl BufRead + Send + 'a,
    window: MaxWindow,
) -> io::Result<Box<dyn Read + Send + 'a>> {
    Ok(Box::new(ZstdStream::new(reader, window)?))
}

/// Decompresses a zstd stream on a new thread, its frames in parallel on
/// `pool` when they can be walked, at most `threads` at a time.
pub(crate) fn spawn_zstd<R: BufRead + Send + 'static>(
    src: R,
    pool: Arc<rayon::ThreadPool>,
    threads: usize,
    window: MaxWindow,
) -> Chunks {
    let buffers = PieceBuffers::default();
    let given = buffers.clone();
    let mut chunks = spawn(move |tx| zstd_frames(src, &pool, threads, window, &given, tx));
    chunks.buffers = buffers;
    chunks
}

/// Frames back from the pool, with their output when they decompressed
/// whole within [`MAX_FRAME`].
type FrameResult = (Vec<u8>, Option<Vec<u8>>);

fn zstd_frames<R: BufRead + Send + 'static>(
    mut src: R,
    pool: &rayon::ThreadPool,
    threads: usize,
    window: MaxWindow,
    buffers: &PieceBuffers,
    tx: &Sender,
) {
    let mut queue: VecDeque<Receiver<FrameResult>> = VecDeque::new();
    // Bytes taken from `src` from which on everything is streamed.
    let mut tail: Option<Vec<u8>> = None;
    let mut in_flight = threads.max(1);
    loop {
        while tail.is_none() && queue.len() < in_flight {
            let (frames, ended) = next_frames(&mut src, &mut tail);
            if !frames.is_empty() {
                queue.push_back(spawn_frames(pool, frames, window, buffers.clone()));
            }
            if ended {
                break;
            }
        }
        let Some(frx) = queue.pop_front() else {
            break;
        };
        let Ok((frame, out)) = frx.recv() else {
            let _ = tx.send(Piece::Failed(frame_failed()));
            return;
        };
        match out {
            Some(out) => {
                in_flight = (FRAME_BUDGET / out.len().max(1)).clamp(1, threads.max(1));
                if !out.is_empty() && tx.send(Piece::Bytes(out)).is_err() {
                    return;
                }
            }
            None => {
                // A frame that failed or outgrew MAX_FRAME: from its first
                // byte on, the rest is one stream, as a single-threaded
                // decoder would have read it.
                let Some(taken) = taken_since(frame, &mut queue, tail.take()) else {
                    let _ = tx.send(Piece::Failed(frame_failed()));
                    return;
                };
                tail = Some(taken);
                break;
            }
        }
    }
    stream_rest(tail, src, window, tx);
}

/// At most how many compressed bytes of frames go into one task on the
/// pool, and about how many bytes they decompress to: tiny frames (a few
/// games each) are decompressed a group at a time, so that a pool task and
/// a hand-over cost the group, not each frame (at -j8 on frames of 64
/// bytes: 50x the time of -j2 frame by frame).
const GROUP_BYTES: usize = 64 << 10;
const GROUP_OUTPUT: u64 = 4 << 20;

/// The next frames that can be walked, back to back (each with the
/// skippable frames before it), up to [`GROUP_BYTES`] or about
/// [`GROUP_OUTPUT`] of output (a frame whose output is not in its header
/// counts as that much); and whether the stream ended. Where a frame
/// cannot be walked, the bytes taken for it go to `tail`, to be streamed.
fn next_frames(src: &mut impl BufRead, tail: &mut Option<Vec<u8>>) -> (Vec<u8>, bool) {
    let mut frames = Vec::new();
    let mut output = 0;
    while frames.len() < GROUP_BYTES && output < GROUP_OUTPUT {
        let mut frame = Vec::new();
        match next_frame(src, &mut frame) {
            Ok(Walk::Frame(start)) => {
                output += match zstd::zstd_safe::get_frame_content_size(&frame[start..]) {
                    Ok(Some(size)) => size,
                    _ => GROUP_OUTPUT,
                };
                frames.extend_from_slice(&frame);
            }
            Ok(Walk::End) => return (frames, true),
            // A read error comes out of the stream decoder in turn.
            Ok(Walk::Stream) | Err(_) => {
                *tail = Some(frame);
                break;
            }
        }
    }
    (frames, false)
}

/// Decompresses `frames` (whole frames, back to back) on the pool; the
/// result comes back on the returned channel. A panic leaves the channel
/// without a result (the stream then fails), rather than reaching the
/// pool.
fn spawn_frames(
    pool: &rayon::ThreadPool,
    frames: Vec<u8>,
    window: MaxWindow,
    buffers: PieceBuffers,
) -> Receiver<FrameResult> {
    let (ftx, frx) = mpsc::sync_channel(1);
    pool.spawn(move || {
        let out = std::panic::catch_unwind(|| decompress_frames(&frames, window, buffers.take()));
        if let Ok(out) = out {
            let _ = ftx.send((frames, out));
        }
    });
    frx
}

/// The bytes of `frame`, of every frame after it in `queue`, and of
/// `tail`, in order: what a stream decoder reads from there on. `None`
/// when a frame's decompression panicked.
fn taken_since(
    frame: Vec<u8>,
    queue: &mut VecDeque<Receiver<FrameResult>>,
    tail: Option<Vec<u8>>,
) -> Option<Vec<u8>> {
    let mut taken = frame;
    for later in queue.drain(..) {
        let (f, _) = later.recv().ok()?;
        taken.extend_from_slice(&f);
    }
    if let Some(t) = tail {
        taken.extend_from_slice(&t);
    }
    Some(taken)
}

/// Ends the stream: the bytes taken, then the rest of `src`, through a
/// stream decoder; or the end, where every frame was walked.
fn stream_rest<R: BufRead + Send + 'static>(
    tail: Option<Vec<u8>>,
    src: R,
    window: MaxWindow,
    tx: &Sender,
) {
    match tail {
        Some(taken) => match stream_decoder(Cursor::new(taken).chain(src), window) {
            Ok(d) => pump(d, tx),
            Err(e) => {
                let _ = tx.send(Piece::Failed(e));
            }
        },
        None => {
            let _ = tx.send(Piece::End);
        }
    }
}

/// The error of a frame whose decompression on the pool panicked.
fn frame_failed() -> io::Error {
    io::Error::other("the decompressor failed on a zstd frame")
}

/// Whole frames decompressed into one buffer (`out`, emptied first), each
/// in a single pass (straight into the buffer: no copy through a stream
/// decoder's window, no zeroing of the buffer first), unless one fails,
/// asks for a window above `window`, or their output outgrows
/// [`MAX_FRAME`]: then a stream decoder reads them again from the first, to
/// give what it gives at any thread count.
fn decompress_frames(frames: &[u8], window: MaxWindow, mut out: Vec<u8>) -> Option<Vec<u8>> {
    use zstd::zstd_safe::{self, DCtx, MAGIC_SKIPPABLE_MASK, MAGIC_SKIPPABLE_START};
    let mut dctx = DCtx::try_create()?;
    out.clear();
    let mut rest = frames;
    while !rest.is_empty() {
        let size = zstd_safe::find_frame_compressed_size(rest).ok()?;
        let (frame, after) = rest.split_at_checked(size).filter(|_| size > 0)?;
        rest = after;
        let magic = u32::from_le_bytes(*frame.first_chunk()?);
        if magic & MAGIC_SKIPPABLE_MASK == MAGIC_SKIPPABLE_START {
            continue;
        }
        if !within_window(frame, window)? {
            return None;
        }
        let bound = usize::try_from(zstd_safe::decompress_bound(frame).ok()?).ok()?;
        if bound > MAX_FRAME {
            return None;
        }
        out.reserve(bound);
        let at = out.len();
        let mut tail = Cursor::new(&mut out);
        tail.set_position(at as u64);
        dctx.decompress(&mut tail, frame).ok()?;
        if out.len() > MAX_FRAME {
            return None;
        }
    }
    Some(out)
}

/// Whether a zstd frame's window is one a stream decoder limited to
/// `window` accepts (`ZSTD_d_windowLogMax`: at most 2^log + 1 bytes, the
/// window of a single-segment frame being its content size); `None` where
/// its header cannot be read. A single pass needs no window, so the limit
/// is applied here, to refuse what the stream decoder refuses.
fn within_window(frame: &[u8], window: MaxWindow) -> Option<bool> {
    let descriptor = *frame.get(4)?;
    let size = if descriptor & 0x20 != 0 {
        zstd::zstd_safe::get_frame_content_size(frame).ok()??
    } else {
        let byte = *frame.get(5)?;
        let base = 1u64 << (10 + u32::from(byte >> 3));
        base + base / 8 * u64::from(byte & 7)
    };
    Some(size <= (1u64 << window.log()) + 1)
}

enum Walk {
    /// `frame` holds one whole frame, from this offset, after the
    /// skippable frames before it.
    Frame(usize),
    /// The end of the stream.
    End,
    /// Stream from here: `frame` holds the bytes taken so far.
    Stream,
}

/// Reads the next frame into `frame`: skippable frames, then one zstd
/// frame. A frame is walked only when its output is known to be small: a
/// content size up to [`MAX_FRAME`] in its header, or announced by a
/// `pzstd` skippable frame.
fn next_frame(src: &mut impl BufRead, frame: &mut Vec<u8>) -> io::Result<Walk> {
    use zstd::zstd_safe::{MAGIC_SKIPPABLE_MASK, MAGIC_SKIPPABLE_START, MAGICNUMBER};
    let mut announced = false;
    loop {
        if src.fill_buf()?.is_empty() {
            return Ok(if frame.is_empty() {
                Walk::End
            } else {
                Walk::Stream
            });
        }
        let start = frame.len();
        if !take_frame(src, frame)? {
            return Ok(Walk::Stream);
        }
        let whole = &frame[start..];
        // zstd-safe wraps no ZSTD_isSkippableFrame: the magic number tells.
        let Some(magic) = whole.first_chunk().map(|m| u32::from_le_bytes(*m)) else {
            return Ok(Walk::Stream);
        };
        if magic & MAGIC_SKIPPABLE_MASK == MAGIC_SKIPPABLE_START {
            // pzstd: a skippable frame of 4 bytes, the next frame's size.
            announced = magic == MAGIC_SKIPPABLE_START && whole.len() == 12;
            continue;
        }
        if magic != MAGICNUMBER {
            return Ok(Walk::Stream);
        }
        let small = match zstd::zstd_safe::get_frame_content_size(whole) {
            Ok(Some(size)) => size <= MAX_FRAME as u64,
            Ok(None) => announced,
            Err(_) => false,
        };
        return Ok(if small {
            Walk::Frame(start)
        } else {
            Walk::Stream
        });
    }
}

/// Moves the next frame (zstd or skippable) from `src` to `frame`, cut
/// where libzstd's `ZSTD_findFrameCompressedSize` ends it. False where it
/// cannot be cut out (damaged, cut short, longer than [`MAX_FRAME`], or
/// announcing more output than that): `frame` then holds the bytes taken
/// from `src` so far, for the stream decoder.
fn take_frame(src: &mut impl BufRead, frame: &mut Vec<u8>) -> io::Result<bool> {
    use zstd::zstd_safe::{self, zstd_sys::ZSTD_ErrorCode};
    let start = frame.len();
    // The usual case: the whole frame lies in what `src` holds, and is cut
    // out of it without copying the rest (copying a buffer's worth for each
    // of many tiny frames took most of their time).
    let available = src.fill_buf()?;
    if let Ok(size) = zstd_safe::find_frame_compressed_size(available)
        && size > 0
        && size <= available.len()
    {
        frame.extend_from_slice(&available[..size]);
        src.consume(size);
        return Ok(true);
    }
    loop {
        let taken = frame.len() - start;
        let available = src.fill_buf()?;
        let more = available.len().min(MAX_FRAME - taken);
        if more == 0 {
            return Ok(false);
        }
        frame.extend_from_slice(&available[..more]);
        let whole = &frame[start..];
        match zstd_safe::find_frame_compressed_size(whole) {
            Ok(size) if size > taken => {
                src.consume(size - taken);
                frame.truncate(start + size);
                return Ok(true);
            }
            Err(code)
                if zstd_safe::is_error_kind(code, ZSTD_ErrorCode::ZSTD_error_srcSize_wrong)
                    && !matches!(
                        zstd_safe::get_frame_content_size(whole),
                        Ok(Some(size)) if size > MAX_FRAME as u64
                    ) =>
            {
                src.consume(more);
            }
            _ => {
                frame.truncate(start + taken);
                return Ok(false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> Arc<rayon::ThreadPool> {
        Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .unwrap(),
        )
    }

    fn pgn(games: usize) -> Vec<u8> {
        let mut v = Vec::new();
        for i in 0..games {
            v.extend_from_slice(
                format!("[Event \"{i}\"]\n[Site \"x\"]\n\n1. e4 {{ c }} e5 2. Nf3 Nc6 *\n\n")
                    .as_bytes(),
            );
        }
        v
    }

    /// Frames of `step` bytes each, cut anywhere (games straddle frames),
    /// with or without pzstd's skippable headers, with or without content
    /// sizes.
    fn frames(data: &[u8], step: usize, pzstd_headers: bool, sizes: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for piece in data.chunks(step) {
            let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
            enc.include_contentsize(sizes).unwrap();
            if sizes {
                enc.set_pledged_src_size(Some(piece.len() as u64)).unwrap();
            }
            std::io::Write::write_all(&mut enc, piece).unwrap();
            let f = enc.finish().unwrap();
            if pzstd_headers {
                out.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
                out.extend_from_slice(&4u32.to_le_bytes());
                out.extend_from_slice(&u32::try_from(f.len()).unwrap().to_le_bytes());
            }
            out.extend_from_slice(&f);
        }
        out
    }

    fn decode(z: Vec<u8>) -> (Vec<u8>, Option<io::Error>) {
        let mut chunks = spawn_zstd(
            Cursor::new(z),
            pool(),
            2,
            MaxWindow::mib(MaxWindow::LARGEST_MIB),
        );
        let mut out = Vec::new();
        let err = chunks.read_to_end(&mut out).err();
        (out, err)
    }

    #[test]
    fn multi_frame_streams_come_out_whole_and_in_order() {
        let data = pgn(3000);
        for (headers, sizes) in [(true, false), (false, true), (true, true), (false, false)] {
            for step in [1000, 77_777] {
                let z = frames(&data, step, headers, sizes);
                let (out, err) = decode(z);
                assert!(err.is_none(), "{headers} {sizes} {step}: {err:?}");
                assert!(
                    out == data,
                    "{headers} {sizes} {step}: {} vs {}",
                    out.len(),
                    data.len()
                );
            }
        }
        // Walking: a frame is cut out exactly, skippable frames included.
        let z = frames(&data, 50_000, true, false);
        let mut src = Cursor::new(&z[..]);
        let mut total = 0;
        loop {
            let mut frame = Vec::new();
            match next_frame(&mut src, &mut frame).unwrap() {
                Walk::Frame(_) => total += frame.len(),
                Walk::End => break,
                Walk::Stream => panic!("pzstd frames are walked"),
            }
        }
        assert_eq!(total, z.len());
    }

    /// A frame is cut out whole however the reads cut it: through a
    /// buffer of 7 bytes, every frame (skippable ones included) is walked.
    #[test]
    fn frames_are_cut_out_across_reads() {
        let data = pgn(500);
        for (headers, sizes) in [(true, false), (false, true)] {
            let z = frames(&data, 3000, headers, sizes);
            let mut src = io::BufReader::with_capacity(7, Cursor::new(&z[..]));
            let (mut walked, mut total) = (0, 0);
            loop {
                let mut frame = Vec::new();
                match next_frame(&mut src, &mut frame).unwrap() {
                    Walk::Frame(_) => {
                        walked += 1;
                        total += frame.len();
                    }
                    Walk::End => break,
                    Walk::Stream => panic!("{headers} {sizes}: a frame was not walked"),
                }
            }
            assert_eq!(walked, data.len().div_ceil(3000));
            assert_eq!(total, z.len());
        }
    }

    /// A frame whose header announces more than [`MAX_FRAME`] is streamed,
    /// and only the bytes read until its header was seen are taken; so is
    /// a damaged frame, and one cut short.
    #[test]
    fn large_damaged_and_cut_frames_are_streamed() {
        let big: Vec<u8> = pgn(1).repeat(MAX_FRAME / 40);
        assert!(big.len() > MAX_FRAME);
        let z = frames(&big, big.len(), false, true);
        let mut src = io::BufReader::with_capacity(1000, Cursor::new(&z[..]));
        let mut frame = Vec::new();
        assert!(matches!(next_frame(&mut src, &mut frame), Ok(Walk::Stream)));
        assert_eq!(frame.len(), 0, "nothing taken past the header's read");
        let small = frames(&pgn(50), 1 << 20, false, true);
        let mut cut = small.clone();
        cut.truncate(small.len() - 2);
        let mut damaged = small.clone();
        damaged[small.len() / 2] = 0xff;
        damaged[4] |= 0x08;
        for bytes in [cut, damaged] {
            let mut src = Cursor::new(&bytes[..]);
            let mut frame = Vec::new();
            assert!(matches!(next_frame(&mut src, &mut frame), Ok(Walk::Stream)));
            let mut rest = Vec::new();
            src.read_to_end(&mut rest).unwrap();
            frame.extend_from_slice(&rest);
            assert!(
                frame == bytes,
                "the bytes taken and the rest are the stream"
            );
        }
    }

    /// What a decoder fed one byte at a time gives before it fails (each
    /// step then completes at most one block, so nothing decoded is lost),
    /// and its error.
    fn byte_fed(z: &[u8]) -> (Vec<u8>, Option<String>) {
        use zstd::stream::raw::{DParameter, Decoder, InBuffer, Operation, OutBuffer};
        let mut d = Decoder::new().unwrap();
        d.set_parameter(DParameter::WindowLogMax(31)).unwrap();
        let mut out = Vec::new();
        let mut buf = vec![0u8; 1 << 18];
        let mut hint = 0;
        for byte in z.chunks(1) {
            if hint == 0 {
                d.reinit().unwrap();
            }
            let mut input = InBuffer::around(byte);
            let mut output = OutBuffer::around(&mut buf[..]);
            match d.run(&mut input, &mut output) {
                Ok(h) => hint = h,
                Err(e) => return (out, Some(e.to_string())),
            }
            let n = output.pos();
            out.extend_from_slice(&buf[..n]);
        }
        let err = (hint != 0).then(|| "incomplete frame".to_owned());
        (out, err)
    }

    /// Reads `r` to its end in reads of `size` bytes.
    fn read_all(mut r: impl Read, size: usize) -> (Vec<u8>, Option<String>) {
        let mut out = Vec::new();
        let mut buf = vec![0u8; size];
        loop {
            match r.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => return (out, Some(e.to_string())),
            }
        }
    }

    #[test]
    fn errors_come_after_every_block_decoded_before_them() {
        let data = pgn(3000);
        for z in [
            frames(&data, 40_000, true, false),
            frames(&data, 40_000, false, true),
            zstd::encode_all(&data[..], 3).unwrap(),
        ] {
            let mut damaged = Vec::new();
            for cut in [z.len() / 3, z.len() / 2, z.len() - 3] {
                damaged.push(z[..cut].to_vec());
                let mut corrupt = z.clone();
                corrupt[cut] ^= 0x55;
                damaged.push(corrupt);
            }
            for (k, d) in damaged.into_iter().enumerate() {
                let (reference, reference_err) = byte_fed(&d);
                // A cut always fails; a corrupt byte may also decode.
                assert!(k % 2 == 1 || reference_err.is_some(), "case {k}");
                for size in [1 << 20, 1 << 17, 1000, 7] {
                    let (out, err) = read_all(
                        ZstdStream::new(
                            Cursor::new(&d[..]),
                            MaxWindow::mib(MaxWindow::LARGEST_MIB),
                        )
                        .unwrap(),
                        size,
                    );
                    assert_eq!(err, reference_err, "case {k}, reads of {size}");
                    assert!(
                        out == reference,
                        "case {k}, reads of {size}: {} vs {}",
                        out.len(),
                        reference.len()
                    );
                }
                let (out, err) = decode(d);
                assert_eq!(err.map(|e| e.to_string()), reference_err, "case {k}");
                assert!(out == reference, "case {k}: frames on the pool");
            }
        }
    }

    /// Gives `data`, then panics.
    struct Panicking {
        data: Cursor<Vec<u8>>,
    }

    impl Read for Panicking {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.data.read(buf)? {
                0 => panic!("a decoder bug"),
                n => Ok(n),
            }
        }
    }

    #[test]
    fn a_decoder_thread_that_panics_is_a_read_error() {
        let data = pgn(100);
        let mut chunks = spawn_stream(Box::new(Panicking {
            data: Cursor::new(data.clone()),
        }));
        let mut out = Vec::new();
        let err = chunks.read_to_end(&mut out).unwrap_err();
        assert_eq!(err.to_string(), "the decompressor failed: a decoder bug");
        // The chunk being read when it panicked is lost with the panic.
        assert!(data.starts_with(&out));
        assert_eq!(chunks.read(&mut [0; 8]).unwrap(), 0, "after the error");
    }

    #[test]
    fn a_decoder_thread_that_stops_early_is_a_read_error() {
        let mut chunks = spawn(|tx| {
            let _ = tx.send(Piece::Bytes(b"[Event \"x\"]\n".to_vec()));
        });
        let mut out = Vec::new();
        let err = chunks.read_to_end(&mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the decompressor stopped before the end of the stream"
        );
        assert_eq!(out, b"[Event \"x\"]\n");
    }
}
