//! Pieces of one source, for clusters: a byte range of a plain file, or a
//! range of independent zstd frames, audited alone; `merge` joins the
//! pieces' reports into exactly one run's.
//!
//! A game belongs to the piece in which its first byte lies. A piece reads
//! from its first *sync point* at or after its start (the source's first
//! byte for the piece that starts at 0) up to the first sync point at or
//! after its end, its *seam* (or the end of the source): that is the
//! piece's own range, and the own ranges of consecutive pieces tile the
//! source. A piece with no sync point of its own has an empty own range;
//! its predecessor reads through it.
//!
//! A sync point is the start of a line that follows, in the decompressed
//! bytes, `\n`, then a line of spaces, tabs, vertical tabs and form feeds
//! only (no NUL, Ctrl-Z or BOM), then `\n` or `\r\n`, and that is a strict
//! tag line (`[`, a name, blanks, `"` within its first [`HEAD`] bytes).
//! Where a piece starts or ends, the scan begins at that offset in the
//! state that the [`LOOKBEHIND`] bytes before it leave (a plain file's; a
//! zstd bound's scan begins afresh, since its frame's decoder does), so
//! the predecessor's search for its seam and the successor's search for
//! its first sync point find the same point, and a piece that starts
//! exactly at a game's `[` after a blank line holds that game.
//!
//! Why the pieces cut exactly the games of one sequential run (see the
//! splitter's rules in `split.rs`):
//! - The `\n` ends a line in any state (every `\n` ends a line end), so the
//!   blank line starts right after it; the blank line holds no `\r`, so its
//!   line end is the `\n` or `\r\n` that follows; it is blank and not
//!   padding, and the next line starts at the `[` with no BOM.
//! - A strict tag line right after a blank line starts a new game in every
//!   state of the splitter: between games and after movetext any `[` does;
//!   in a tag section the blank line sets `blank`; inside an open comment a
//!   strict tag line does (the splitter looks at the line's first
//!   [`HEAD`] bytes or the whole line, of which these are a prefix, and a
//!   `"` found in a prefix is found in the whole). Starting it ends the
//!   game in progress (`finish`) and resets every field of the splitter
//!   (state, comment, variations, result, content, the line read): its
//!   state from then on depends only on the bytes from the sync point on,
//!   exactly as a fresh splitter's does on those bytes.
//! - At the seam, the sequential splitter ends the game in progress at the
//!   end of its last line that is not blank; the piece, whose input ends
//!   right after the blank line's line end, ends it there too (at the end
//!   of input no line is being read, and `finish` gives the same span).
//! - Line numbers: the byte before a sync point is `\n` and the point is
//!   `[`, so no `\r\n` is split between two own ranges; the line ends of
//!   the own ranges before a piece add up to the line ends before its
//!   first sync point.
//!
//! A piece's stream is read from its start on, as one run reads it from
//! there: a plain file's bytes, or one zstd decoder over every frame from
//! the piece's first (its bounds are frame starts, where one run's decoder
//! starts afresh too, so the bytes and any read error are one run's). The
//! decoder says where the bounds end in its output: where a frame ends
//! exactly at the end bound. A `pzstd` or Lichess file announces every
//! frame with a skippable frame holding its size, which a plan walks with
//! one seek per frame and no decompression; frames joined without
//! announcements are walked block by block, one read a block. A read
//! error ends the piece
//! after every byte before it is handed out, as it ends one run.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::batch::{LineCount, buf_index};
use super::decode::MaxWindow;
use super::split::{HEAD, is_tag_line};
use super::{Compression, Opened, PathError, Source, io_cause};

/// A piece's bounds as stored: offsets in the file (bytes of text for a
/// plain file, frame starts for a zstd file), `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The first offset of the piece.
    pub start: u64,
    /// One past its last offset.
    pub end: u64,
}

impl std::str::FromStr for Bounds {
    type Err = String;

    /// `START..END`, decimal byte offsets, `START <= END`.
    fn from_str(s: &str) -> Result<Bounds, String> {
        let bad = || format!("{s:?} is not START..END (byte offsets, START <= END)");
        let (a, b) = s.split_once("..").ok_or_else(bad)?;
        let number = |t: &str| {
            (!t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()))
                .then(|| t.parse::<u64>().ok())
                .flatten()
        };
        let (start, end) = (number(a).ok_or_else(bad)?, number(b).ok_or_else(bad)?);
        if start > end {
            return Err(bad());
        }
        Ok(Bounds { start, end })
    }
}

impl std::fmt::Display for Bounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// What a piece's reader found, as far as it read; offsets are in the
/// decompressed bytes from the piece's start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Found {
    /// The decompressed length of the piece's bounds, once read through.
    pub length: Option<u64>,
    /// The piece's first sync point (its own range's start).
    pub first: Option<u64>,
    /// The first sync point at or after `length` (or the source's end):
    /// its own range's end.
    pub seam: Option<u64>,
    /// Line ends in the own range, as far as it was handed out.
    pub lines: u64,
}

/// How a file is cut: its compression and the offsets where a piece may
/// start or end (always 0 and its size).
struct Cuts {
    compression: Compression,
    size: u64,
    /// Offsets a piece may start or end at, in order: every byte of a
    /// plain file (`None`), or the frame starts of a zstd file and its end.
    points: Option<Vec<u64>>,
}

/// How a file may be cut, told by its magic bytes (read as opening it
/// reads them, [`super::Head`]) and, for zstd, by a walk over its frames.
fn cuts(path: &Path, name: &str, window: MaxWindow) -> Result<Cuts, PathError> {
    let err = |e: io::Error| PathError::io(name, e);
    let mut file = File::open(path).map_err(err)?;
    let meta = file.metadata().map_err(err)?;
    if !meta.is_file() {
        return Err(PathError::new(
            name.to_owned(),
            "not a file: only a file can be cut into pieces".to_owned(),
        ));
    }
    let size = meta.len();
    let (head, sniffed, end) = super::sniff(&mut file);
    if let super::Sniffed::Failed(e) = end {
        return Err(err(e));
    }
    if super::table::is_parquet(&head[..sniffed]) {
        return Err(PathError::new(
            name.to_owned(),
            "a Parquet file cannot be cut into pieces: audit it whole (its row groups are audited in parallel)"
                .to_owned(),
        ));
    }
    let compression = match super::Head::of(&head[..sniffed]) {
        super::Head::Zip => {
            return Err(PathError::new(
                name.to_owned(),
                "a zip archive cannot be cut into pieces: audit it whole".to_owned(),
            ));
        }
        super::Head::Refused(format) => {
            return Err(PathError::new(name.to_owned(), super::refusal(format, "")));
        }
        super::Head::Stored(compression) => compression,
    };
    if compression != Compression::None {
        refuse_text(name, path, compression, size, window)?;
    }
    let points = match compression {
        Compression::None => None,
        Compression::Zstd => Some(frame_starts(&mut file, size).map_err(err)?),
        _ => Some(vec![0, size]),
    };
    Ok(Cuts {
        compression,
        size,
        points,
    })
}

/// Reads until `buf` is full or the input ends; the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The `pzstd` skippable frame that announces the next frame's size.
const PZSTD_MAGIC: u32 = 0x184D_2A50;
/// A zstd frame's magic number.
const ZSTD_MAGIC: u32 = 0xFD2F_B528;

/// The frame starts of a zstd file, and its size. A frame that a `pzstd`
/// skippable frame announces (its 12 bytes, then a zstd frame's magic
/// number, then the announced size) is passed with one seek; any other
/// zstd frame block by block (one read of a block's 3-byte header a
/// block: `zstd` in a loop, or python's zstandard, joins frames without
/// announcements), and a skippable frame by its size. The walk stops at
/// anything else, whose rest is one piece.
fn frame_starts(file: &mut File, size: u64) -> io::Result<Vec<u64>> {
    let mut starts = vec![0];
    let mut at = 0u64;
    while at < size {
        file.seek(SeekFrom::Start(at))?;
        let mut header = [0u8; 16];
        let got = read_full(file, &mut header)?;
        if got < 8 {
            break;
        }
        let word =
            |k: usize| u32::from_le_bytes([header[k], header[k + 1], header[k + 2], header[k + 3]]);
        let next = if got == header.len()
            && word(0) == PZSTD_MAGIC
            && word(4) == 4
            && word(12) == ZSTD_MAGIC
        {
            Some(at + 12 + u64::from(word(8)))
        } else if word(0) & 0xFFFF_FFF0 == PZSTD_MAGIC {
            Some(at + 8 + u64::from(word(4)))
        } else if word(0) == ZSTD_MAGIC {
            frame_end(file, at, &header[4..], size)?
        } else {
            None
        };
        match next {
            Some(next) if next > at && next <= size && frame_at(file, next, size)? => {
                at = next;
                starts.push(at);
            }
            _ => break,
        }
    }
    if starts.last() != Some(&size) {
        starts.push(size);
    }
    Ok(starts)
}

/// Whether `at` is the file's end or the start of a frame (a zstd or a
/// skippable one): a walk that a damaged header led astray does not cut
/// there.
fn frame_at(file: &mut File, at: u64, size: u64) -> io::Result<bool> {
    if at == size {
        return Ok(true);
    }
    file.seek(SeekFrom::Start(at))?;
    let mut magic = [0u8; 4];
    if read_full(file, &mut magic)? < 4 {
        return Ok(false);
    }
    let magic = u32::from_le_bytes(magic);
    Ok(magic == ZSTD_MAGIC || magic & 0xFFFF_FFF0 == PZSTD_MAGIC)
}

/// Where the zstd frame at `at` ends, walked block by block from its
/// header (`descriptor`: the bytes after its magic number, the frame
/// header descriptor first; RFC 8878 3.1.1): `None` where it is not whole
/// within `size` or a block is of the reserved type.
fn frame_end(file: &mut File, at: u64, descriptor: &[u8], size: u64) -> io::Result<Option<u64>> {
    let fhd = descriptor[0];
    let single_segment = fhd & 0x20 != 0;
    let checksum = if fhd & 0x04 != 0 { 4 } else { 0 };
    let dictionary = [0, 1, 2, 4][usize::from(fhd & 0x03)];
    let content_size = match fhd >> 6 {
        0 => u64::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let window = u64::from(!single_segment);
    let mut block = at + 4 + 1 + window + dictionary + content_size;
    loop {
        if block + 3 > size {
            return Ok(None);
        }
        file.seek(SeekFrom::Start(block))?;
        let mut head = [0u8; 3];
        if read_full(file, &mut head)? < 3 {
            return Ok(None);
        }
        let bits = u32::from_le_bytes([head[0], head[1], head[2], 0]);
        let last = bits & 1 != 0;
        let length = match (bits >> 1) & 3 {
            // Raw and compressed blocks hold their size; an RLE block
            // one byte.
            0 | 2 => u64::from(bits >> 3),
            1 => 1,
            _ => return Ok(None),
        };
        block += 3 + length;
        if last {
            let end = block + checksum;
            return Ok((end <= size).then_some(end));
        }
    }
}

/// The pieces of the file at `path` (named `name` in messages), each of
/// about `piece_size` bytes as stored: a plain file cut anywhere, a
/// `pzstd` file at the frame start at or after each multiple, any other
/// compressed file whole.
pub fn plan(
    path: &Path,
    name: &str,
    piece_size: u64,
    window: MaxWindow,
) -> Result<Vec<Bounds>, PathError> {
    let cuts = cuts(path, name, window)?;
    Ok(cut(cuts.size, cuts.points.as_deref(), piece_size.max(1)))
}

/// Stored bytes of a zstd file decompressed to estimate its text.
const SAMPLE_STORED: u64 = 8 << 20;

/// About how many bytes of text the file at `path` (named `name` in
/// messages) holds, for a plan of pieces with a least text each: a plain
/// file its size; a zstd file its size times the text its first
/// [`SAMPLE_STORED`] bytes decompress to, over those bytes (measured, since
/// one file compresses 5 times and another, of games that repeat, 40
/// times); any other file, which is never cut, its size.
pub fn text_estimate(path: &Path, name: &str, window: MaxWindow) -> Result<u64, PathError> {
    let cuts = cuts(path, name, window)?;
    if cuts.compression != Compression::Zstd || cuts.size == 0 {
        return Ok(cuts.size);
    }
    let err = |e: io::Error| PathError::io(name, e);
    let sample = cuts.size.min(SAMPLE_STORED);
    let file = File::open(path).map_err(err)?;
    let mut decoder = zstd::stream::read::Decoder::new(file.take(sample)).map_err(err)?;
    decoder.window_log_max(window.log()).map_err(err)?;
    let mut text = 0u64;
    let mut buf = vec![0; 1 << 16];
    // A sample that ends inside a frame ends in an error: what was
    // decompressed before it counts.
    while let Ok(n @ 1..) = decoder.read(&mut buf) {
        text += n as u64;
    }
    let estimate = u128::from(cuts.size) * u128::from(text) / u128::from(sample);
    Ok(u64::try_from(estimate).unwrap_or(u64::MAX))
}

/// `size` bytes cut at `points` (anywhere when `None`): each piece ends at
/// the first point at or after the next multiple of `step` past its start,
/// so that frame-sized overshoots do not add up (pieces ever longer than
/// `step`, and a short last one).
fn cut(size: u64, points: Option<&[u64]>, step: u64) -> Vec<Bounds> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < size {
        let goal = (start / step + 1).saturating_mul(step).min(size);
        let end = match points {
            None => goal,
            Some(points) => points.iter().copied().find(|&p| p >= goal).unwrap_or(size),
        };
        pieces.push(Bounds { start, end });
        start = end;
    }
    if pieces.is_empty() {
        pieces.push(Bounds { start: 0, end: 0 });
    }
    pieces
}

/// Opens `bounds` of `source` (a file) to audit them alone: the reader
/// gives the piece's own range, and `found` says what it found. Bounds
/// that the file cannot be cut at are an error.
pub fn open(
    source: &Source,
    bounds: Bounds,
    raw_read: Arc<AtomicU64>,
    found: Arc<Mutex<Found>>,
    window: MaxWindow,
) -> Result<Opened, PathError> {
    let super::Origin::File(path) = &source.origin else {
        return Err(PathError::new(
            source.name.clone(),
            "--piece takes a file".to_owned(),
        ));
    };
    let fail = |cause: String| PathError::new(source.name.clone(), cause);
    let cuts = cuts(path, &source.name, window)?;
    cuts.check(bounds)
        .map_err(|what| fail(format!("--piece {bounds}: {what}")))?;
    let err = |e: io::Error| fail(io_cause(&e));
    let compression = cuts.compression;
    let mut file = File::open(path).map_err(err)?;
    // A plain file's bytes before the piece tell whether its first byte
    // follows a blank line; a frame's decoder starts afresh.
    let before = match compression {
        Compression::None => {
            let from = bounds.start.saturating_sub(LOOKBEHIND as u64);
            file.seek(SeekFrom::Start(from)).map_err(err)?;
            let mut before = vec![0; buf_index(bounds.start - from)];
            file.read_exact(&mut before).map_err(err)?;
            Some(before)
        }
        _ => None,
    };
    file.seek(SeekFrom::Start(bounds.start)).map_err(err)?;
    let raw = BufReader::with_capacity(
        1 << 20,
        super::Counting {
            inner: file,
            count: raw_read,
        },
    );
    let length = Arc::new(AtomicU64::new(UNKNOWN));
    let stream = bounded_stream(raw, compression, bounds.end - bounds.start, &length, window)
        .map_err(err)?;
    Ok(Opened {
        reader: Box::new(super::nul::NulRuns::new(PieceReader::new(
            stream,
            length,
            bounds.start == 0,
            before,
            found,
        ))),
        compression,
        parquet: None,
        file: None,
        decoded: None,
    })
}

/// Refuses, in one run's words, a compressed file whose text one run
/// refuses (binary data, a Parquet file or a zip archive inside it, a
/// format that is not PGN text), told from its first decompressed bytes,
/// whichever piece is asked for: every piece of it is refused alike, as
/// one run refuses the file. A second compression inside it is refused
/// too: a piece reads one layer. A read error in those bytes is left to
/// the piece that meets it.
fn refuse_text(
    name: &str,
    path: &Path,
    compression: Compression,
    size: u64,
    window: MaxWindow,
) -> Result<(), PathError> {
    let err = |e: io::Error| PathError::io(name, e);
    let raw = BufReader::new(super::Counting {
        inner: File::open(path).map_err(err)?,
        count: Arc::new(AtomicU64::new(0)),
    });
    let length = Arc::new(AtomicU64::new(UNKNOWN));
    let Ok(mut stream) = bounded_stream(raw, compression, size, &length, window) else {
        return Ok(());
    };
    let (head, sniffed, _) = super::sniff(&mut stream);
    let head = &head[..sniffed];
    let inside = super::within(&[compression]);
    let refused = |cause: String| Err(PathError::new(name.to_owned(), cause));
    if super::table::is_parquet(head) {
        return refused(format!(
            "refused: a Parquet file inside {inside}: a Parquet file is read as it is stored, not decompressed"
        ));
    }
    match super::Head::of(head) {
        super::Head::Zip => refused(format!("refused: a zip archive inside {inside}")),
        super::Head::Refused(format) => {
            refused(super::refusal(format, &format!(" inside {inside}")))
        }
        super::Head::Stored(Compression::None) => Ok(()),
        super::Head::Stored(twice) => refused(format!(
            "{} inside {inside} cannot be cut into pieces: audit it whole",
            twice.name()
        )),
    }
}

impl Cuts {
    /// Whether the file can be cut at `bounds`; says why not.
    fn check(&self, bounds: Bounds) -> Result<(), String> {
        if bounds.end > self.size {
            return Err(format!("the file has {} bytes", self.size));
        }
        let Some(points) = &self.points else {
            return Ok(());
        };
        let at = |p: u64| points.binary_search(&p).is_ok();
        if at(bounds.start) && at(bounds.end) {
            return Ok(());
        }
        Err(match self.compression {
            Compression::Zstd if points.len() > 2 => {
                "a zstd piece starts and ends where a pzstd frame starts (see `pgn-audit plan`)"
                    .to_owned()
            }
            c => format!("a {} file is one piece: 0..{}", c.name(), self.size),
        })
    }
}

/// The decompressed stream of `raw` (a file from a piece's start on),
/// which reads on to the source's end, as one run's would, and stores in
/// `length` where the bounds (`span` bytes of the file) end in its output.
fn bounded_stream(
    raw: BufReader<super::Counting<File>>,
    compression: Compression,
    span: u64,
    length: &Arc<AtomicU64>,
    window: MaxWindow,
) -> io::Result<Box<dyn Read + Send>> {
    Ok(match compression {
        Compression::None => {
            length.store(span, Ordering::Relaxed);
            Box::new(raw)
        }
        Compression::Zstd => Box::new(super::decode::ZstdStream::bounded(
            raw,
            span,
            length.clone(),
            window,
        )?),
        // One piece, the whole file: its bounds end where the stream does.
        Compression::Gzip => Box::new(AtEnd::new(
            flate2::read::MultiGzDecoder::new(raw),
            length.clone(),
        )),
        Compression::Bzip2 => Box::new(AtEnd::new(
            bzip2::read::MultiBzDecoder::new(raw),
            length.clone(),
        )),
        Compression::Xz => Box::new(AtEnd::new(
            super::decode::xz_decoder(raw, window)?,
            length.clone(),
        )),
    })
}

/// The bounds' decompressed length, not known yet.
const UNKNOWN: u64 = u64::MAX;

/// A stream whose end is the end of a piece's bounds (a whole file).
struct AtEnd<R> {
    inner: R,
    read: u64,
    length: Arc<AtomicU64>,
}

impl<R> AtEnd<R> {
    fn new(inner: R, length: Arc<AtomicU64>) -> AtEnd<R> {
        AtEnd {
            inner,
            read: 0,
            length,
        }
    }
}

impl<R: Read> Read for AtEnd<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.length.store(self.read, Ordering::Relaxed);
        }
        self.read += n as u64;
        Ok(n)
    }
}

/// Where the scan for a sync point is, after the bytes scanned so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    /// Anything else.
    Other,
    /// A `\n`, then blanks only.
    Blank,
    /// A `\n`, blanks, then `\r`.
    BlankCr,
    /// A line start after `\n`, a blank line and its `\n` or `\r\n`.
    Start,
}

/// How many bytes before a plain piece's bound the scans for a sync point
/// look at, to know whether a line starting at the bound follows a blank
/// line: a blank line of up to about this many blanks.
const LOOKBEHIND: usize = 256;

/// Where a scan for a sync point is after `bytes`, begun afresh before
/// them: the state [`SyncScan::scan`] reaches on them, whatever line
/// starts with `[` in them (a sync point before the bound is not
/// looked for).
fn after(bytes: &[u8]) -> After {
    bytes.iter().fold(After::Other, |at, &b| match (at, b) {
        (After::Other, b'\n') => After::Blank,
        (After::Blank | After::Start, b' ' | b'\t' | b'\x0b' | b'\x0c') => After::Blank,
        (After::Blank | After::Start, b'\r') => After::BlankCr,
        (After::Blank | After::Start | After::BlankCr, b'\n') => After::Start,
        _ => After::Other,
    })
}

/// A scan for the next sync point, from an offset where it began afresh.
#[derive(Debug, Clone, Copy)]
pub(super) struct SyncScan {
    at: After,
    /// The offset of the next byte to scan.
    pub(super) pos: u64,
}

impl SyncScan {
    pub(super) fn from(pos: u64) -> SyncScan {
        SyncScan {
            at: After::Other,
            pos,
        }
    }

    /// A scan from `pos` that follows `before`, the bytes right before it.
    fn after(pos: u64, before: &[u8]) -> SyncScan {
        SyncScan {
            at: after(before),
            pos,
        }
    }

    /// Scans `window` (whose first byte is at `wstart`) from `self.pos` on;
    /// returns the sync point found, or stops at the window's end (or at a
    /// `[` whose line is still to come, unless at `eof`).
    pub(super) fn scan(&mut self, window: &[u8], wstart: u64, eof: bool) -> Option<u64> {
        let mut i = buf_index(self.pos - wstart);
        while i < window.len() {
            let b = window[i];
            self.at = match (self.at, b) {
                (After::Other, _) => match memchr::memchr(b'\n', &window[i..]) {
                    Some(k) => {
                        i += k;
                        After::Blank
                    }
                    None => {
                        i = window.len();
                        break;
                    }
                },
                (After::Start, b'[') => {
                    let rest = &window[i..window.len().min(i + HEAD)];
                    let line = match memchr::memchr2(b'\n', b'\r', rest) {
                        Some(k) => &rest[..k],
                        None if rest.len() < HEAD && !eof => {
                            self.pos = wstart + i as u64;
                            return None;
                        }
                        None => rest,
                    };
                    if is_tag_line(line) {
                        self.pos = wstart + i as u64;
                        return Some(self.pos);
                    }
                    After::Other
                }
                (After::Blank | After::Start, b' ' | b'\t' | b'\x0b' | b'\x0c') => After::Blank,
                (After::Blank | After::Start, b'\r') => After::BlankCr,
                (After::Blank | After::Start | After::BlankCr, b'\n') => After::Start,
                _ => After::Other,
            };
            i += 1;
        }
        self.pos = wstart + i as u64;
        None
    }
}

/// The decompressed bytes from a piece's start on, cut to its own range.
struct PieceReader {
    stream: Box<dyn Read + Send>,
    /// The bounds' decompressed length, once the stream has passed their
    /// end ([`UNKNOWN`] until then).
    length: Arc<AtomicU64>,
    /// Offset of the next byte to read from the stream.
    pos: u64,
    /// The stream's end (or its error) was reached.
    ended: bool,
    /// The bytes read and not yet handed out or passed over: `window[0]`
    /// is at `wstart`, and the window ends at `pos`.
    window: Vec<u8>,
    wstart: u64,
    /// The next byte to hand out, once the first sync point is known.
    out: u64,
    first_scan: SyncScan,
    seam_scan: Option<SyncScan>,
    /// A plain piece's last [`LOOKBEHIND`] bytes before `pos` (its bytes
    /// before the bounds' start included), which the scan for the seam
    /// begins after, as the next piece's scan for its first sync point
    /// does; `None` for a zstd piece, whose bounds' scans begin afresh.
    tail: Option<Vec<u8>>,
    found: Found,
    shared: Arc<Mutex<Found>>,
    lines: LineCount,
    /// A read error, given once the bytes before it are handed out.
    error: Option<io::Error>,
    /// The error was given: nothing more is read.
    failed: bool,
}

/// Bytes read into the window at a time.
const WINDOW_READ: usize = 64 << 10;

impl PieceReader {
    fn new(
        stream: Box<dyn Read + Send>,
        length: Arc<AtomicU64>,
        at_source_start: bool,
        before: Option<Vec<u8>>,
        shared: Arc<Mutex<Found>>,
    ) -> PieceReader {
        let found = Found {
            first: at_source_start.then_some(0),
            ..Found::default()
        };
        PieceReader {
            stream,
            length,
            pos: 0,
            ended: false,
            window: Vec::new(),
            wstart: 0,
            out: 0,
            first_scan: SyncScan::after(0, before.as_deref().unwrap_or_default()),
            seam_scan: None,
            tail: before,
            found,
            shared,
            lines: LineCount::default(),
            error: None,
            failed: false,
        }
    }

    fn publish(&mut self) {
        self.found.lines = self.lines.ends;
        if let Ok(mut f) = self.shared.lock() {
            *f = self.found;
        }
    }

    /// Reads the stream into `buf`; once the bounds' end is passed, the
    /// scan for the seam starts there. A read gives bytes of one side of
    /// that end only (a plain piece's reads stop at it; a zstd block lies
    /// in one frame).
    fn pull(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut buf = buf;
        if self.found.length.is_none() {
            let known = self.length.load(Ordering::Relaxed);
            if known != UNKNOWN && known > self.pos {
                let room =
                    usize::try_from(known - self.pos).map_or(buf.len(), |k| k.min(buf.len()));
                buf = &mut buf[..room];
            }
        }
        let n = self.stream.read(buf)?;
        self.pos += n as u64;
        if let Some(tail) = &mut self.tail {
            tail.extend_from_slice(&buf[..n]);
            tail.drain(..tail.len().saturating_sub(LOOKBEHIND));
        }
        self.note_length();
        Ok(n)
    }

    /// Takes the bounds' length from the stream once it is known.
    fn note_length(&mut self) {
        if self.found.length.is_some() {
            return;
        }
        let known = self.length.load(Ordering::Relaxed);
        if known != UNKNOWN && known <= self.pos {
            self.found.length = Some(known);
            self.seam_scan = Some(match &self.tail {
                Some(tail) if known == self.pos => SyncScan::after(known, tail),
                _ => SyncScan::from(known),
            });
        }
    }
}

impl PieceReader {
    /// Decides the first sync point once the scan for it finds one, or the
    /// stream ends cleanly (`wend`, the window's end); the bytes handed
    /// out start there.
    fn scan_first(&mut self, wend: u64) {
        if self.found.first.is_some() {
            return;
        }
        match self.first_scan.scan(&self.window, self.wstart, self.ended) {
            Some(p) => self.found.first = Some(p),
            None if self.ended && self.error.is_none() => self.found.first = Some(wend),
            None => {}
        }
        if let Some(p) = self.found.first {
            self.out = p;
        }
    }

    /// Decides the seam, the first sync point at or after the bounds' end,
    /// once the scan for it finds one or the stream ends cleanly.
    fn scan_seam(&mut self, wend: u64) {
        if let Some(scan) = &mut self.seam_scan
            && self.found.seam.is_none()
        {
            match scan.scan(&self.window, self.wstart, self.ended) {
                Some(q) => self.found.seam = Some(q),
                None if self.ended && self.error.is_none() => self.found.seam = Some(wend),
                None => {}
            }
        } else if self.ended && self.error.is_none() && self.found.seam.is_none() {
            // The stream ended without passing the bounds' end where a
            // frame ends: the piece read to the source's end, and merge
            // finds that it does not meet the next one.
            self.found.seam = Some(wend);
        }
    }

    /// How far the bytes known to be the own range's reach: up to the seam,
    /// or as far as the scan for it has passed, or (after an error, as one
    /// run would) everything read.
    fn limit(&self, seam: Option<u64>, wend: u64) -> u64 {
        match (seam, &self.seam_scan, &self.error) {
            (Some(q), _, _) => q,
            (None, Some(scan), None) => scan.pos,
            (None, _, _) => wend,
        }
    }

    /// Hands out the window's bytes from `out` on, up to `limit` and as
    /// many as `buf` holds.
    fn hand_out(&mut self, buf: &mut [u8], limit: u64) -> usize {
        let from = buf_index(self.out - self.wstart);
        let n = usize::try_from(limit - self.out).map_or(buf.len(), |k| k.min(buf.len()));
        buf[..n].copy_from_slice(&self.window[from..from + n]);
        self.lines.add(&buf[..n]);
        self.out += n as u64;
        self.publish();
        n
    }

    /// Within the bounds with nothing held, reads straight into `buf`:
    /// the bytes read if they are all within the bounds; none if they
    /// passed their end (they are kept in the window, where the seam is
    /// looked for), the stream ended or failed.
    fn read_through(&mut self, buf: &mut [u8], wend: u64) -> Option<usize> {
        self.window.clear();
        self.wstart = wend;
        match self.pull(buf) {
            Ok(n) if n > 0 && self.seam_scan.is_none_or(|s| s.pos >= self.pos) => {
                self.wstart = self.pos;
                self.out = self.pos;
                self.lines.add(&buf[..n]);
                self.publish();
                Some(n)
            }
            Ok(n) => {
                self.window.extend_from_slice(&buf[..n]);
                self.ended = n == 0;
                None
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => None,
            Err(e) => {
                self.ended = true;
                self.error = Some(e);
                None
            }
        }
    }

    /// Drops from the window what is handed out or passed over by both
    /// scans, then reads more into it.
    fn refill(&mut self) {
        let keep = match self.found.first {
            Some(_) => self.out,
            None => self.first_scan.pos,
        };
        let keep = self
            .seam_scan
            .filter(|_| self.found.seam.is_none())
            .map_or(keep, |s| keep.min(s.pos));
        let drop = usize::try_from(keep.saturating_sub(self.wstart))
            .map_or(self.window.len(), |k| k.min(self.window.len()));
        self.window.drain(..drop);
        self.wstart += drop as u64;
        let at = self.window.len();
        let mut chunk = std::mem::take(&mut self.window);
        chunk.resize(at + WINDOW_READ, 0);
        let got = self.pull(&mut chunk[at..]);
        self.window = chunk;
        match got {
            Ok(n) => {
                self.window.truncate(at + n);
                self.ended = n == 0;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => self.window.truncate(at),
            Err(e) => {
                self.window.truncate(at);
                self.ended = true;
                self.error = Some(e);
            }
        }
    }
}

impl Read for PieceReader {
    /// Hands out the piece's own bytes: from the first sync point at or
    /// after its start to the seam, the first at or after its end.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.failed {
            return Ok(0);
        }
        self.note_length();
        loop {
            let wend = self.wstart + self.window.len() as u64;
            self.scan_first(wend);
            self.scan_seam(wend);
            if let Some(first) = self.found.first {
                let seam = self.found.seam.map(|q| q.max(first));
                let limit = self.limit(seam, wend);
                if self.out < limit {
                    return Ok(self.hand_out(buf, limit));
                }
                if seam.is_some() {
                    self.publish();
                    return Ok(0);
                }
                if self.out == wend
                    && self.seam_scan.is_none()
                    && self.error.is_none()
                    && !self.ended
                {
                    if let Some(n) = self.read_through(buf, wend) {
                        return Ok(n);
                    }
                    continue;
                }
            }
            if let Some(e) = self.error.take() {
                self.failed = true;
                self.publish();
                return Err(e);
            }
            if !self.ended {
                self.refill();
            }
            // At the end, both scans are decided on the next round.
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sync points of `text` at or after `from`, scanned in windows of
    /// `step` bytes.
    fn sync_points(text: &[u8], from: usize, step: usize) -> Vec<u64> {
        let mut found = Vec::new();
        let mut scan = SyncScan::from(from as u64);
        let mut end = from;
        loop {
            let eof = end == text.len();
            match scan.scan(&text[from..end], from as u64, eof) {
                Some(p) => {
                    found.push(p);
                    scan = SyncScan {
                        at: After::Other,
                        pos: p + 1,
                    };
                }
                None if eof => return found,
                None => end = (end + step).min(text.len()),
            }
        }
    }

    #[test]
    fn a_sync_point_is_a_strict_tag_line_after_a_blank_line_after_a_newline() {
        let text = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\r\n\r\n1. d4 *\r\n\r\n\
[Event \"c\"]\n \t\x0c\n[Site \"s\"]\n\n{ open\n\n[Event \"d\"]\n\
1. c4 *\n\0\n[Event \"e\"]\n1. c4 *\r\r\n\r\n[Event \"f\"]\n\n\xef\xbb\xbf[Event \"g\"]\n\n\
[ Event \"h\"]\n\n[Event\n\n[Event \"i\"";
        let at = |needle: &str| {
            text.windows(needle.len())
                .position(|w| w == needle.as_bytes())
                .unwrap() as u64
        };
        let expected = vec![
            at("[Event \"b\""),
            at("[Event \"c\""),
            at("[Site"),
            at("[Event \"d\""),
            // `\r\r\n` is one line end, then a blank line.
            at("[Event \"f\""),
            at("[Event \"i\""),
        ];
        for step in [1, 2, 3, 7, 64, 1000] {
            assert_eq!(sync_points(text, 0, step), expected, "step {step}");
        }
        // A scan that starts afresh needs the newline before the blank line.
        let b = buf_index(at("[Event \"b\"]"));
        assert_eq!(sync_points(text, b - 2, 5)[0], at("[Event \"b\""));
        assert_eq!(sync_points(text, b - 1, 5)[0], at("[Event \"c\""));
    }

    /// What a piece reader gives of `text` when its bounds' length is
    /// `length` (`UNKNOWN`: never passed), and what it found.
    fn piece_of(text: &'static [u8], at_start: bool, length: u64) -> (Vec<u8>, Found) {
        let found = Arc::new(Mutex::new(Found::default()));
        let mut r = PieceReader::new(
            Box::new(text),
            Arc::new(AtomicU64::new(length)),
            at_start,
            None,
            found.clone(),
        );
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        let f = *found.lock().unwrap();
        (out, f)
    }

    #[test]
    fn a_piece_reads_its_own_range() {
        let text: &[u8] = b"1. e4 *\n\n[Event \"a\"]\n\n1. d4 *\n\n[Event \"b\"]\n";
        let (out, f) = piece_of(text, false, 12);
        assert_eq!(out, &text[9..31]);
        assert_eq!(
            f,
            Found {
                length: Some(12),
                first: Some(9),
                seam: Some(31),
                lines: 4
            }
        );
        // A stream that never passes its bounds' end where a frame ends
        // reads to the source's end, and says so.
        let (out, f) = piece_of(text, true, UNKNOWN);
        assert_eq!(out, text);
        assert_eq!((f.length, f.first, f.seam), (None, Some(0), Some(43)));
    }

    #[test]
    fn frames_are_cut_at_the_first_start_after_each_multiple() {
        let bounds = |pieces: Vec<Bounds>| -> Vec<(u64, u64)> {
            pieces.iter().map(|b| (b.start, b.end)).collect()
        };
        // Frames of 300 bytes, pieces of about 700: not 0..900, 900..1800,
        // 1800..2400, whose overshoots add up.
        let frames: Vec<u64> = (0..=8).map(|k| k * 300).collect();
        assert_eq!(
            bounds(cut(2400, Some(&frames), 700)),
            [(0, 900), (900, 1500), (1500, 2100), (2100, 2400)]
        );
        // Frames larger than a piece: one piece each.
        assert_eq!(
            bounds(cut(2400, Some(&frames), 100)),
            (0..8).map(|k| (k * 300, k * 300 + 300)).collect::<Vec<_>>()
        );
        assert_eq!(bounds(cut(2400, Some(&[0, 2400]), 700)), [(0, 2400)]);
        assert_eq!(
            bounds(cut(1000, None, 400)),
            [(0, 400), (400, 800), (800, 1000)]
        );
        assert_eq!(bounds(cut(0, None, 400)), [(0, 0)]);
    }

    #[test]
    fn bounds_are_start_dot_dot_end() {
        assert_eq!("5..30".parse(), Ok(Bounds { start: 5, end: 30 }));
        assert_eq!("0..0".parse(), Ok(Bounds { start: 0, end: 0 }));
        for bad in [
            "5..", "..5", "5-30", "30..5", "+1..2", "1..2..3", "a..b", "",
        ] {
            assert!(bad.parse::<Bounds>().is_err(), "{bad}");
        }
        assert_eq!(Bounds { start: 1, end: 9 }.to_string(), "1..9");
    }
}
