//! Chunks of a decompressed source made of its decoder's pieces (see
//! `decode.rs`), without copying them on the reader thread: the reader
//! looks for the last sync point in each piece only (a point whose blank
//! line or tag line crosses into another piece is not one it sees: any
//! sync point is a valid cut, see `chunk.rs`), and hands the pieces of a
//! chunk to its worker, which puts them together. Every byte passes the
//! NUL-run check as it would through [`NulRuns`](super::nul::NulRuns); a
//! stretch without a sync point in a piece for more than [`SLACK`] bytes
//! beyond the chunk size is read in order from its start to the source's
//! end, as any source.

use std::io::{self, Read};
use std::ops::{ControlFlow, Range};
use std::sync::Arc;

use super::chunk::last_sync_point;
use super::decode::{Chunks, PieceBuffers};
use super::nul::{NUL_RUN_LIMIT, NulCount, NulRun, NulRuns};

/// Bytes a chunk may hold beyond its chunk size while no piece has a sync
/// point.
const SLACK: usize = 2 << 20;

/// A decompressed source's text, in its decoder's pieces.
pub struct Decoded {
    /// The text's first bytes, read to sniff what it is.
    head: Vec<u8>,
    chunks: Chunks,
    /// The error after the head, where the decoder failed at once.
    pending: Option<io::Error>,
}

/// A chunk's text, in pieces: from a sync point (or the source's start) to
/// the next sync point (or the source's end).
#[derive(Debug)]
pub struct PieceChunk {
    /// The text is these stretches of the decoder's pieces, back to back.
    segments: Vec<Segment>,
    /// Their length together.
    pub len: usize,
    /// The source offset of the first byte.
    pub base: u64,
    /// The source's last chunk: it ended (or broke off) after it.
    pub last: bool,
    /// Where a piece goes back to once this chunk was its last use.
    buffers: PieceBuffers,
}

/// A stretch of one of the decoder's pieces: `piece[start..end]`. A piece
/// larger than a chunk (a zstd frame decompressed whole) is shared by the
/// chunks cut from it.
#[derive(Debug, Clone)]
struct Segment {
    piece: Arc<Vec<u8>>,
    start: usize,
    end: usize,
}

impl Segment {
    fn len(&self) -> usize {
        self.end - self.start
    }

    fn text(&self) -> &[u8] {
        &self.piece[self.start..self.end]
    }
}

impl PieceChunk {
    /// Whether the chunk lies across pieces, so that [`PieceChunk::join`]
    /// copies it into a buffer of its own.
    pub fn is_joined(&self) -> bool {
        self.segments.len() > 1
    }

    /// The text in one buffer, and where in it: a chunk that lies within
    /// one piece is that piece (shared, not copied); one across pieces is
    /// copied into `spare`, grown where it must.
    pub fn join(self, mut spare: Vec<u8>) -> (Arc<Vec<u8>>, Range<usize>) {
        if let [one] = &self.segments[..] {
            return (one.piece.clone(), one.start..one.end);
        }
        if spare.len() < self.len {
            spare = vec![0; self.len];
        }
        let mut at = 0;
        for s in self.segments {
            spare[at..at + s.len()].copy_from_slice(s.text());
            at += s.len();
            if let Ok(spent) = Arc::try_unwrap(s.piece) {
                self.buffers.give(spent);
            }
        }
        (Arc::new(spare), 0..self.len)
    }
}

/// How [`Decoded::read_pieces`] ended.
pub enum Pieces {
    /// The source's end: the text's length, and the read error that ended
    /// it, if one did.
    Ended(u64, Option<io::Error>),
    /// `emit` broke: the rest was not read.
    Stopped,
    /// No sync point for a stretch from this offset (a sync point or the
    /// source's start): the rest of the source from there, read in order.
    Serial(u64, Box<dyn Read + Send>),
}

impl Decoded {
    pub(super) fn new(head: Vec<u8>, chunks: Chunks) -> Decoded {
        Decoded {
            head,
            chunks,
            pending: None,
        }
    }

    /// Where the buffers of spent pieces go back to, for the decoder to
    /// fill again.
    pub fn buffers(&self) -> PieceBuffers {
        self.chunks.buffers.clone()
    }

    /// The text read in order, as any source's.
    pub fn into_reader(self) -> Box<dyn Read + Send> {
        let head = io::Cursor::new(self.head);
        Box::new(NulRuns::new(head.chain(self.chunks)))
    }

    /// Reads the source to its end as chunks of about `chunk_bytes` or
    /// more, handing them out in order, the last with the read error that
    /// ended the source after it, if one did; `emit` may break to stop
    /// early.
    pub fn read_pieces(
        mut self,
        chunk_bytes: usize,
        mut emit: impl FnMut(PieceChunk, Option<&io::Error>) -> ControlFlow<()>,
    ) -> Pieces {
        let chunk_bytes = chunk_bytes.max(1);
        let mut nul = NulCount::default();
        let mut held: Vec<Segment> = Vec::new();
        let mut held_len = 0;
        let mut base = 0u64;
        let mut first = Some(std::mem::take(&mut self.head));
        loop {
            let piece = match self.next(&mut first, &mut nul) {
                Ok(Some(piece)) => piece,
                end => {
                    let error = end.err();
                    if held_len == 0 {
                        return Pieces::Ended(base, error);
                    }
                    let chunk = PieceChunk {
                        segments: held,
                        len: held_len,
                        base,
                        last: true,
                        buffers: self.chunks.buffers.clone(),
                    };
                    let end = base + held_len as u64;
                    return match emit(chunk, error.as_ref()) {
                        ControlFlow::Break(()) => Pieces::Stopped,
                        ControlFlow::Continue(()) => Pieces::Ended(end, error),
                    };
                }
            };
            if piece.is_empty() {
                continue;
            }
            held_len += piece.len();
            held.push(Segment {
                end: piece.len(),
                piece: Arc::new(piece),
                start: 0,
            });
            // Every chunk the text held has a sync point for, each of
            // about `chunk_bytes`.
            while held_len >= chunk_bytes {
                let last = held.last().expect("a piece is held");
                let before = held_len - last.len();
                let Some(p) = chunk_end(last, chunk_bytes.saturating_sub(before), before == 0)
                else {
                    if held_len >= chunk_bytes.saturating_add(SLACK) {
                        // Read in order from the stretch's start, through the
                        // NUL-run check where it stands.
                        let text: Vec<u8> = held.iter().flat_map(Segment::text).copied().collect();
                        let rest = NulRuns::after(self.chunks, nul.run);
                        return Pieces::Serial(base, Box::new(io::Cursor::new(text).chain(rest)));
                    }
                    break;
                };
                let mut segments = std::mem::take(&mut held);
                let cut = segments.last_mut().expect("a piece is held");
                let rest = Segment {
                    start: p,
                    ..cut.clone()
                };
                cut.end = p;
                if cut.start == cut.end {
                    segments.pop();
                }
                let len = held_len - rest.len();
                let chunk = PieceChunk {
                    segments,
                    len,
                    base,
                    last: false,
                    buffers: self.chunks.buffers.clone(),
                };
                if emit(chunk, None).is_break() {
                    return Pieces::Stopped;
                }
                base += len as u64;
                held_len = rest.len();
                held.push(rest);
            }
        }
    }

    /// The next piece (the sniffed head first, with what follows it),
    /// passed through the NUL-run check: a run that reaches the limit ends
    /// the piece there, and the source with a [`NulRun`] after it.
    fn next(
        &mut self,
        first: &mut Option<Vec<u8>>,
        nul: &mut NulCount,
    ) -> io::Result<Option<Vec<u8>>> {
        if nul.at_limit() {
            return Err(io::Error::new(io::ErrorKind::InvalidData, NulRun));
        }
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let mut piece = match first.take() {
            Some(mut head) => {
                match self.chunks.next_piece() {
                    Ok(Some(more)) => head.extend_from_slice(&more),
                    Ok(None) => {}
                    Err(e) => self.pending = Some(e),
                }
                head
            }
            None => match self.chunks.next_piece()? {
                Some(piece) => piece,
                None => return Ok(None),
            },
        };
        // The check looks at reads of at most the limit.
        let limit = usize::try_from(NUL_RUN_LIMIT).unwrap_or(usize::MAX);
        let mut passed = 0;
        while passed < piece.len() && !nul.at_limit() {
            let end = piece.len().min(passed + limit);
            passed += nul.pass(&piece[passed..end]);
        }
        piece.truncate(passed);
        Ok(Some(piece))
    }
}

/// Where a chunk that takes about `want` more bytes of `segment` ends: the
/// last sync point within those bytes, else within twice as many, and so
/// on to the segment's end (after its first byte where the chunk would
/// otherwise be empty).
fn chunk_end(segment: &Segment, want: usize, nonempty: bool) -> Option<usize> {
    let from = segment.start + usize::from(nonempty);
    let mut want = want.max(1);
    loop {
        let near = segment.end.min(segment.start.saturating_add(want));
        if let Some(p) = last_sync_point(&segment.piece[..near], from) {
            return Some(p);
        }
        if near == segment.end {
            return None;
        }
        want = want.saturating_mul(2);
    }
}
