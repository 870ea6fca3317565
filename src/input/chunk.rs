//! Chunks of a source for the worker pool: the reader thread only reads
//! bytes and cuts them at *sync points*; each worker cuts its own chunk into
//! games ([`ChunkGames`]), and the chunks' games, put back in order, are
//! exactly those of one splitter over the whole source.
//!
//! A sync point is the one the pieces of a file use (see `piece.rs`): the
//! start of a strict tag line (`[`, a name, blanks, `"` within its first
//! [`HEAD`] bytes) that follows `\n`, a line of spaces, tabs, vertical tabs
//! and form feeds only, and `\n` or `\r\n`. A strict tag line after a blank
//! line starts a new game in every state of the splitter and resets all of
//! it, and at the end of the input before it the splitter ends the game in
//! progress exactly where it ends it on meeting the tag line: so a fresh
//! splitter from one sync point to the next finds the games that one
//! splitter over the whole source finds there. No line end is split at a
//! sync point (the byte before it is `\n`, the point itself `[`), so line
//! numbers add up across chunks.
//!
//! The reader fills a buffer to about [`CHUNK_BYTES`] and cuts it at its
//! last sync point, looking back from its end: it reads no other byte. A
//! stretch with no sync point (a file of tagless games one per line, one
//! game of many MiB, a stream that stalls after a game) grows the chunk up
//! to [`Chunker::max_len`]; past that, the stretch up to the next sync
//! point is cut by one splitter as it is read ([`Step::Unsynced`], then
//! [`Chunker::into_rest`], [`UntilSync`] and
//! [`read_batches_at`](super::batch::read_batches_at)), which keeps memory
//! bounded whatever the input and hands out a game as soon as the bytes
//! after it tell it ended, and chunks go on from that sync point
//! ([`Chunker::resume`]).

use std::io::{self, Read};
use std::ops::ControlFlow;

use super::batch::{BATCH_BYTES, Batch, LineCount, buf_index, kept_text, read_batches_at};
use super::piece::SyncScan;
use super::split::{GAME_CAP, GameSpan, HEAD, Splitter, is_tag_line};

/// About how many bytes of text go into one chunk.
pub const CHUNK_BYTES: usize = 1 << 20;

/// Bytes a chunk may grow to beyond its chunk size while it has no sync
/// point: with tiny chunks (tests) games of a few kB still find their sync
/// points.
const UNSYNCED_SLACK: usize = 64 << 10;

/// Consecutive bytes of one source, from a sync point (or the source's
/// start) to the next sync point (or the source's end).
#[derive(Debug)]
pub struct Chunk {
    /// The chunk's text is `bytes[..len]`; the rest is initialised room.
    pub bytes: Vec<u8>,
    /// How many bytes of `bytes` are the chunk's.
    pub len: usize,
    /// The source offset of `bytes[0]`.
    pub base: u64,
    /// The source's last chunk: the input ended (or broke off) after it.
    pub last: bool,
}

/// What the chunker gives next.
#[derive(Debug)]
pub enum Step {
    /// A chunk, cut at a sync point or at the end of the source.
    Chunk(Chunk),
    /// No sync point within [`Chunker::max_len`] bytes: the rest of the
    /// source, from [`Chunker::into_rest`], is to be cut by one splitter.
    Unsynced,
}

/// Reads a source into chunks cut at sync points.
pub struct Chunker<R> {
    reader: R,
    chunk_bytes: usize,
    /// `buf[..filled]` is read and not yet handed out; the rest is
    /// initialised room.
    buf: Vec<u8>,
    filled: usize,
    /// The source offset of `buf[0]`.
    base: u64,
    /// Sync points before this index of `buf` were looked for already.
    searched: usize,
    error: Option<io::Error>,
    eof: bool,
    /// Nothing more to give.
    done: bool,
}

impl<R: Read> Chunker<R> {
    /// A chunker over `reader`, a source from its start, for chunks of
    /// about `chunk_bytes` (at least 1).
    pub fn new(reader: R, chunk_bytes: usize) -> Chunker<R> {
        Chunker::resume(reader, chunk_bytes, 0, Vec::new())
    }

    /// A chunker over `held`, then `reader`: the rest of a source from the
    /// sync point at `base` on (see [`UntilSync`]).
    pub fn resume(reader: R, chunk_bytes: usize, base: u64, held: Vec<u8>) -> Chunker<R> {
        Chunker {
            reader,
            chunk_bytes: chunk_bytes.max(1),
            filled: held.len(),
            buf: held,
            base,
            searched: 0,
            error: None,
            eof: false,
            done: false,
        }
    }

    /// The most bytes a chunk without a sync point grows to before the
    /// stretch is cut by one splitter.
    pub fn max_len(&self) -> usize {
        self.chunk_bytes.saturating_add(UNSYNCED_SLACK)
    }

    /// The next chunk, or the end of the source (`None`). `spare` may give a
    /// buffer that is done with, to read into again (its contents are
    /// ignored).
    pub fn next_chunk(&mut self, spare: &mut impl FnMut() -> Option<Vec<u8>>) -> Option<Step> {
        if self.done {
            return None;
        }
        loop {
            let goal = if self.filled < self.chunk_bytes {
                self.chunk_bytes
            } else {
                self.filled + self.chunk_bytes
            };
            let goal = goal.min(self.max_len());
            if self.filled < goal {
                self.fill(goal, spare);
            }
            if self.eof {
                self.done = true;
                if self.filled == 0 {
                    return None;
                }
                return Some(Step::Chunk(self.take(self.filled, true, spare)));
            }
            if let Some(p) = last_sync_point(&self.buf[..self.filled], self.searched) {
                return Some(Step::Chunk(self.take(p, false, spare)));
            }
            // A point whose tag line is not all read yet may still be one.
            self.searched = self.filled.saturating_sub(HEAD);
            if self.filled >= self.max_len() {
                self.done = true;
                return Some(Step::Unsynced);
            }
        }
    }

    /// After [`Step::Unsynced`]: the rest of the source from the bytes
    /// read and not handed out on, the offset of the first of them, to be
    /// cut by one splitter up to the next sync point.
    pub fn into_rest(self) -> UntilSync<R> {
        let mut buf = self.buf;
        buf.truncate(self.filled);
        UntilSync::new(self.reader, self.base, buf)
    }

    /// The reader, and the read error that ended the source.
    pub fn finish(self) -> (R, Option<io::Error>) {
        (self.reader, self.error)
    }

    /// Hands out `buf[..len]`; what follows moves to the front of the next
    /// buffer.
    fn take(
        &mut self,
        len: usize,
        last: bool,
        spare: &mut impl FnMut() -> Option<Vec<u8>>,
    ) -> Chunk {
        let rest = self.filled - len;
        // A spare is taken whatever its length, which a fill grows where
        // it must: fresh memory costs the reader a page fault per page.
        let mut next = if last {
            Vec::new()
        } else {
            spare()
                .filter(|b| b.len() >= self.chunk_bytes.min(CHUNK_BYTES))
                .unwrap_or_else(|| vec![0; rest + self.chunk_bytes.min(CHUNK_BYTES) * 2])
        };
        if next.len() < rest {
            next.resize(rest, 0);
        }
        next[..rest].copy_from_slice(&self.buf[len..self.filled]);
        let bytes = std::mem::replace(&mut self.buf, next);
        let chunk = Chunk {
            bytes,
            len,
            base: self.base,
            last,
        };
        self.base += len as u64;
        self.filled = rest;
        self.searched = 0;
        chunk
    }

    /// Reads until `buf` holds `goal` bytes, the source ends or a read
    /// fails (which ends it).
    fn fill(&mut self, goal: usize, spare: &mut impl FnMut() -> Option<Vec<u8>>) {
        if self.buf.len() < goal {
            if self.filled == 0 {
                // A spare, or memory that comes zeroed from the system
                // (`resize` would write every byte of it).
                self.buf = spare()
                    .filter(|b| b.len() >= goal)
                    .unwrap_or_else(|| vec![0; goal]);
            } else {
                self.buf.resize(goal, 0);
            }
        }
        while self.filled < goal {
            match self.reader.read(&mut self.buf[self.filled..goal]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e);
                    self.eof = true;
                    break;
                }
            }
        }
    }
}

/// The rest of a source after a stretch without sync points, read through
/// to one splitter up to the next sync point, where it ends: the bytes from
/// there on are kept for the chunks that go on ([`UntilSync::finish`]).
/// Bytes are passed on as they come (a game is handed out as soon as the
/// bytes after it tell it ended, however the source stalls), but for the
/// few of a line that a sync point may start, held until the line tells.
pub struct UntilSync<R> {
    inner: R,
    /// Bytes taken and not passed on: `held[at..]`; `held[0]` is at
    /// `held_base` in the source.
    held: Vec<u8>,
    at: usize,
    held_base: u64,
    /// The stretch's first byte.
    start: u64,
    scan: SyncScan,
    /// The sync point that ends the stretch.
    found: Option<u64>,
    /// The line ends of the bytes passed on.
    lines: LineCount,
    /// `inner` ended (or failed).
    ended: bool,
    error: Option<io::Error>,
}

/// Bytes read from the source at a time while a stretch is read through.
const THROUGH_READ: usize = 64 << 10;

impl<R: Read> UntilSync<R> {
    /// `held` (whose first byte is at `base`, a sync point or the source's
    /// start), then `inner`.
    fn new(inner: R, base: u64, held: Vec<u8>) -> UntilSync<R> {
        UntilSync {
            inner,
            held,
            at: 0,
            held_base: base,
            start: base,
            scan: SyncScan::from(base),
            found: None,
            lines: LineCount::default(),
            ended: false,
            error: None,
        }
    }

    /// The source offset of the stretch's first byte.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// The line ends of the bytes passed on: of the whole stretch, once it
    /// is read through.
    pub fn line_ends(&self) -> u64 {
        self.lines.ends
    }

    /// The reader, and where the stretch ended: at a sync point (its
    /// offset, and the bytes taken from there on), or at the source's end
    /// (`None`).
    pub fn finish(self) -> (R, Option<(u64, Vec<u8>)>) {
        let resume = self.found.map(|p| {
            let from = buf_index(p - self.held_base);
            (p, self.held[from..].to_vec())
        });
        (self.inner, resume)
    }

    /// Drops what was passed on, then reads more after what is held.
    fn take_more(&mut self) {
        self.held.drain(..self.at);
        self.held_base += self.at as u64;
        self.at = 0;
        let len = self.held.len();
        self.held.resize(len + THROUGH_READ, 0);
        loop {
            match self.inner.read(&mut self.held[len..]) {
                Ok(n) => {
                    self.held.truncate(len + n);
                    self.ended = n == 0;
                    return;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.held.truncate(len);
                    self.ended = true;
                    self.error = Some(e);
                    return;
                }
            }
        }
    }
}

impl<R: Read> Read for UntilSync<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let out = self.held_base + self.at as u64;
            let held_end = self.held_base + self.held.len() as u64;
            // Up to the sync point; or as far as the scan passed; or, after
            // a read error, everything read, as one run reads it.
            let limit = match (self.found, &self.error) {
                (Some(p), _) => p,
                (None, Some(_)) => held_end,
                (None, None) => self.scan.pos,
            };
            if out < limit {
                let n = usize::try_from(limit - out).map_or(buf.len(), |k| k.min(buf.len()));
                buf[..n].copy_from_slice(&self.held[self.at..self.at + n]);
                self.lines.add(&buf[..n]);
                self.at += n;
                return Ok(n);
            }
            if self.found.is_some() {
                return Ok(0);
            }
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            if let Some(p) = self.scan.scan(&self.held, self.held_base, self.ended) {
                self.found = Some(p);
                continue;
            }
            if self.scan.pos > out {
                continue;
            }
            if self.ended {
                return Ok(0);
            }
            self.take_more();
        }
    }
}

/// What [`read_chunks`] hands out, in source order.
#[derive(Debug)]
pub enum Portion {
    /// A chunk, to be cut into games ([`ChunkGames`]).
    Chunk(Chunk),
    /// Games of a stretch without sync points, cut by one splitter; their
    /// lines count from the stretch's start.
    Batch(Batch),
    /// The line ends of such a stretch, after its batches.
    StretchLines(u64),
}

/// How [`read_chunks`] ended.
#[derive(Debug)]
pub struct ChunksRead<R> {
    /// The source's reader.
    pub reader: R,
    /// The read error that ended the source.
    pub error: Option<io::Error>,
    /// `emit` broke: the rest was not read.
    pub stopped: bool,
}

/// Reads `reader`, a source, to its end as chunks of about `chunk_bytes` cut
/// at sync points, and each stretch without one as batches cut by one
/// splitter, handing them out in order; `emit` may break to stop early.
/// `spare` may give back a buffer that is done with.
pub fn read_chunks<R: Read>(
    reader: R,
    chunk_bytes: usize,
    spare: impl FnMut() -> Option<Vec<u8>>,
    emit: impl FnMut(Portion) -> ControlFlow<()>,
) -> ChunksRead<R> {
    read_chunks_from(reader, 0, chunk_bytes, spare, emit)
}

/// [`read_chunks`] of the rest of a source from `base` on (a sync point or
/// its start), where `reader` starts.
pub fn read_chunks_from<R: Read>(
    reader: R,
    base: u64,
    chunk_bytes: usize,
    mut spare: impl FnMut() -> Option<Vec<u8>>,
    mut emit: impl FnMut(Portion) -> ControlFlow<()>,
) -> ChunksRead<R> {
    let mut chunker = Chunker::resume(reader, chunk_bytes, base, Vec::new());
    loop {
        let Some(step) = chunker.next_chunk(&mut spare) else {
            let (reader, error) = chunker.finish();
            return ChunksRead {
                reader,
                error,
                stopped: false,
            };
        };
        let mut until = match step {
            Step::Chunk(chunk) => {
                if emit(Portion::Chunk(chunk)).is_break() {
                    let (reader, _) = chunker.finish();
                    return ChunksRead {
                        reader,
                        error: None,
                        stopped: true,
                    };
                }
                continue;
            }
            Step::Unsynced => chunker.into_rest(),
        };
        let start = until.start();
        let mut stopped = false;
        let (_, error) = read_batches_at(&mut until, start, BATCH_BYTES, &mut spare, |b| {
            let flow = emit(Portion::Batch(b));
            stopped |= flow.is_break();
            flow
        });
        stopped = stopped || emit(Portion::StretchLines(until.line_ends())).is_break();
        let (reader, resume) = until.finish();
        match resume {
            Some((base, held)) if !stopped && error.is_none() => {
                chunker = Chunker::resume(reader, chunk_bytes, base, held);
            }
            _ => {
                return ChunksRead {
                    reader,
                    error,
                    stopped,
                };
            }
        }
    }
}

/// The last sync point of `text` at or after `from` whose tag line is read
/// far enough to tell (its line end, or [`HEAD`] bytes of it, in `text`);
/// never 0.
pub(super) fn last_sync_point(text: &[u8], from: usize) -> Option<usize> {
    let floor = from.max(1).min(text.len());
    let mut end = text.len();
    while let Some(k) = memchr::memrchr(b'[', &text[floor..end]) {
        let p = floor + k;
        if is_sync_point(text, p) {
            return Some(p);
        }
        end = p;
    }
    None
}

/// Whether the `[` at `p` is a sync point, all of it within `text`.
pub(super) fn is_sync_point(text: &[u8], p: usize) -> bool {
    // Back from the `[`: `\n` or `\r\n`, blanks, then the `\n` before them.
    let Some(mut j) = p.checked_sub(1).filter(|&j| text[j] == b'\n') else {
        return false;
    };
    if j > 0 && text[j - 1] == b'\r' {
        j -= 1;
    }
    while j > 0 && matches!(text[j - 1], b' ' | b'\t' | b'\x0b' | b'\x0c') {
        j -= 1;
    }
    if j == 0 || text[j - 1] != b'\n' {
        return false;
    }
    let rest = &text[p..text.len().min(p + HEAD)];
    let line = match memchr::memchr2(b'\n', b'\r', rest) {
        Some(k) => &rest[..k],
        None if rest.len() < HEAD => return false,
        None => rest,
    };
    is_tag_line(line)
}

/// A game found in a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkGame {
    /// Its place in the source; for a game longer than [`GAME_CAP`], the
    /// part kept (up to the last blank or line end within the cap).
    pub span: GameSpan,
    /// The 1-based line of its first byte, counted from the chunk's start.
    pub line: u64,
    /// Longer than [`GAME_CAP`]: the rest of it was skipped.
    pub capped: bool,
}

/// Cuts one chunk into games, as many at a time as the caller takes, as one
/// splitter over the whole source cuts them there.
#[derive(Debug)]
pub struct ChunkGames {
    splitter: Splitter,
    /// The chunk's source offset.
    base: u64,
    /// `text[..pos]` was fed to the splitter.
    pos: usize,
    done: bool,
}

impl ChunkGames {
    /// The games of the chunk whose first byte is at `base` in its source.
    pub fn new(base: u64) -> ChunkGames {
        ChunkGames {
            splitter: Splitter::with_block_cap(GAME_CAP as u64),
            base,
            pos: 0,
            done: false,
        }
    }

    /// Appends to `out` the next games of `text` (the chunk's bytes), at
    /// most `most` of them; returns whether any are left.
    pub fn next_games(&mut self, text: &[u8], most: usize, out: &mut Vec<ChunkGame>) -> bool {
        if self.done {
            return false;
        }
        let most = most.max(1);
        let mut found = 0;
        let base = self.base;
        let (used, stopped) = self.splitter.feed_lines_until(
            &text[self.pos..],
            base + self.pos as u64,
            true,
            |mut span, ends| {
                let start = buf_index(span.start - base);
                let capped = span.end - span.start > GAME_CAP as u64;
                if capped {
                    span.end = span.start + kept_text(&text[start..start + GAME_CAP]) as u64;
                }
                out.push(ChunkGame {
                    span,
                    line: ends + 1,
                    capped,
                });
                found += 1;
                if found >= most {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        self.pos += used;
        self.done = !stopped;
        stopped
    }

    /// The line ends in all of `text`, the chunk's bytes: what the lines of
    /// the chunks after it count from. Games not taken yet are dropped.
    pub fn line_ends(&mut self, text: &[u8]) -> u64 {
        if !self.done {
            let at = self.base + self.pos as u64;
            let (used, _) = self
                .splitter
                .feed_lines_until(
                    &text[self.pos..],
                    at,
                    true,
                    |_, _| ControlFlow::Continue(()),
                );
            self.pos += used;
            self.done = true;
        }
        self.splitter.line_ends()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every game of `pgn` read in chunks of `size`: (offset, line, kept
    /// length, capped, ended), lines counted on across chunks as the writer
    /// counts them.
    fn chunked(pgn: &[u8], size: usize) -> Vec<(u64, u64, u64, bool, bool)> {
        let mut out = Vec::new();
        let mut lines_before = 0;
        let read = read_chunks(
            pgn,
            size,
            || None,
            |piece| {
                match piece {
                    Portion::Chunk(chunk) => {
                        let text = &chunk.bytes[..chunk.len];
                        let mut games = ChunkGames::new(chunk.base);
                        let mut found = Vec::new();
                        while games.next_games(text, 3, &mut found) {}
                        for g in found {
                            out.push((
                                g.span.start,
                                g.line + lines_before,
                                g.span.end - g.span.start,
                                g.capped,
                                g.span.ended,
                            ));
                        }
                        lines_before += games.line_ends(text);
                    }
                    Portion::Batch(b) => {
                        let last = b.games.len() - 1;
                        for (k, g) in b.games.iter().enumerate() {
                            out.push((
                                g.start,
                                b.lines[k] + lines_before,
                                g.end - g.start,
                                b.capped && k == last,
                                g.ended,
                            ));
                        }
                    }
                    Portion::StretchLines(n) => lines_before += n,
                }
                ControlFlow::Continue(())
            },
        );
        assert!(read.error.is_none() && !read.stopped);
        out
    }

    /// The same, read by the sequential batch reader.
    fn sequential(pgn: &[u8]) -> Vec<(u64, u64, u64, bool, bool)> {
        let mut out = Vec::new();
        super::super::batch::read_batches(
            pgn,
            1 << 20,
            || None,
            |b| {
                let last = b.games.len() - 1;
                for (k, g) in b.games.iter().enumerate() {
                    out.push((
                        g.start,
                        b.lines[k],
                        g.end - g.start,
                        b.capped && k == last,
                        g.ended,
                    ));
                }
                ControlFlow::Continue(())
            },
        );
        out
    }

    #[test]
    fn sync_points_are_found_from_the_end() {
        let text =
            b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\r\n\r\n1. d4 *\r\n \t\r\n[Site \"x\"]\n\
            \n\r\n[Event \"c\"]\n\n1. c4 *\n\r \n[Event \"d\"]\n\n[Ev";
        let at = |needle: &str| {
            text.windows(needle.len())
                .position(|w| w == needle.as_bytes())
                .unwrap()
        };
        assert_eq!(last_sync_point(text, 0), Some(at("[Event \"c\"]")));
        assert_eq!(
            last_sync_point(&text[..at("[Event \"c\"]") + 12], 0),
            Some(at("[Event \"c\"]"))
        );
        // Its line end not read yet: not told.
        assert_eq!(
            last_sync_point(&text[..at("[Event \"c\"]") + 11], 0),
            Some(at("[Site"))
        );
        assert_eq!(
            last_sync_point(&text[..at("[Site")], 0),
            Some(at("[Event \"b\"]"))
        );
        assert_eq!(last_sync_point(&text[..at("[Event \"b\"]")], 0), None);
        assert_eq!(last_sync_point(text, at("[Event \"c\"]") + 1), None);
        // The source's start is no cut.
        assert_eq!(last_sync_point(b"[Event \"a\"]\n", 0), None);
    }

    #[test]
    fn chunks_cut_the_games_of_one_splitter() {
        let mut pgn =
            b"\xef\xbb\xbf% intro\n\n[Event \"a\"]\r\n\r\n1. e4 { open\n\n[Event \"b\"]\n\n\
            1. d4 *\n\n\n[Event \"c\"] 1. c4 1-0\n \n[Site \"d\"]\n\n1. f4 (1. g4 *\n\n[E \"e\"]\n"
                .to_vec();
        let mut long = b"\n\n[Event \"long\"]\n\n".to_vec();
        while long.len() < GAME_CAP + 5000 {
            long.extend_from_slice(b"1. Nf3 Nf6 2. Ng1 Ng8\n");
        }
        pgn.extend_from_slice(&long);
        pgn.extend_from_slice(b"*\n\n[Event \"after\"]\n\n1. e4 * 1. d4 *\n1. c4\0\0");
        let expected = sequential(&pgn);
        assert_eq!(expected.len(), 8);
        assert!(expected[5].3, "the long game is capped");
        for size in [1, 2, 3, 7, 64, 1000, 4096, 100_000, 1 << 20, 8 << 20] {
            assert_eq!(chunked(&pgn, size), expected, "chunks of {size}");
        }
    }

    /// Lines count every `\n` and every `\r` not followed by one, as the
    /// sequential reader counts them, whatever line ends the games use.
    #[test]
    fn lines_count_every_kind_of_line_end() {
        let pgn = b"[Event \"a\"]\r\r\n\r\r\n1. e4 *\r\r\n\r\r\n[Event \"b\"]\r\r1. d4\r*\r\r\
            [Event \"c\"]\n\n1. c4 *\r\n\r\n[Event \"d\"]\r\n\r\n1. f4 *\r\n\n\r\r\r\n\
            [Event \"e\"]\n\n1. g4 *\r";
        let expected = sequential(pgn);
        assert_eq!(
            expected.iter().map(|g| g.1).collect::<Vec<_>>(),
            [1, 9, 14, 18, 25]
        );
        for size in [1, 2, 3, 7, 64, 1 << 20] {
            assert_eq!(chunked(pgn, size), expected, "chunks of {size}");
        }
    }

    /// A stretch without sync points is cut by one splitter, and the
    /// chunks go on after it.
    #[test]
    fn a_stretch_without_sync_points_is_read_by_one_splitter() {
        let mut pgn = b"1. e4 *\n".repeat(20_000);
        pgn.extend_from_slice(&b"\n[Event \"x\"]\n\n1. d4 *\n".repeat(1000));
        let (mut batches, mut chunks) = (0, 0);
        read_chunks(
            &pgn[..],
            100,
            || None,
            |piece| {
                match piece {
                    Portion::Chunk(_) => chunks += 1,
                    Portion::Batch(_) => batches += 1,
                    Portion::StretchLines(n) => assert_eq!(n, 20_001),
                }
                ControlFlow::Continue(())
            },
        );
        assert!(batches >= 1 && chunks >= 1, "{batches} {chunks}");
        let expected = sequential(&pgn);
        assert_eq!(expected.len(), 21_000);
        for size in [1, 100, 4096, 1 << 20] {
            assert_eq!(chunked(&pgn, size), expected, "chunks of {size}");
        }
    }

    /// A stream that stalls after a game: the game is handed out once the
    /// bytes after it tell it ended, as one splitter hands it out.
    #[test]
    fn a_game_before_a_stall_is_handed_out() {
        struct Stalls(Vec<u8>, usize);
        impl Read for Stalls {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.0.len() - self.1);
                assert!(n > 0, "read past the stall");
                buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
                self.1 += n;
                Ok(n)
            }
        }
        let mut pgn = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n".to_vec();
        pgn.resize(pgn.len() + (3 << 20), b'\n');
        let mut games = 0;
        let stalls = Stalls(pgn, 0);
        let _ = read_chunks(
            stalls,
            1 << 20,
            || None,
            |piece| {
                match piece {
                    Portion::Chunk(c) => {
                        let mut g = ChunkGames::new(c.base);
                        let mut found = Vec::new();
                        while g.next_games(&c.bytes[..c.len], 10, &mut found) {}
                        games += found.len();
                    }
                    Portion::Batch(b) => games += b.games.len(),
                    Portion::StretchLines(_) => {}
                }
                if games == 2 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert_eq!(games, 2);
    }
}
