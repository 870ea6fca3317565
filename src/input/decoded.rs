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
use std::ops::ControlFlow;

use super::chunk::last_sync_point;
use super::decode::Chunks;
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
    /// The text is these, back to back.
    pub pieces: Vec<Vec<u8>>,
    /// Their length together.
    pub len: usize,
    /// The source offset of the first byte.
    pub base: u64,
    /// The source's last chunk: it ended (or broke off) after it.
    pub last: bool,
}

impl PieceChunk {
    /// The text in one buffer (`spare`, grown where it must): the buffer,
    /// whose first `len` bytes are the text.
    pub fn join(mut self, mut spare: Vec<u8>) -> Vec<u8> {
        if self.pieces.len() == 1 {
            return self.pieces.pop().unwrap_or_default();
        }
        if spare.len() < self.len {
            spare = vec![0; self.len];
        }
        let mut at = 0;
        for p in &self.pieces {
            spare[at..at + p.len()].copy_from_slice(p);
            at += p.len();
        }
        spare
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
        let mut held: Vec<Vec<u8>> = Vec::new();
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
                        pieces: held,
                        len: held_len,
                        base,
                        last: true,
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
            held.push(piece);
            if held_len < chunk_bytes {
                continue;
            }
            let last = held.last_mut().expect("a piece is held");
            if let Some(p) = last_sync_point(last, 0) {
                let rest = last[p..].to_vec();
                last.truncate(p);
                let len = held_len - rest.len();
                let chunk = PieceChunk {
                    pieces: std::mem::take(&mut held),
                    len,
                    base,
                    last: false,
                };
                if emit(chunk, None).is_break() {
                    return Pieces::Stopped;
                }
                base += len as u64;
                held_len = rest.len();
                held.push(rest);
                continue;
            }
            if held_len >= chunk_bytes.saturating_add(SLACK) {
                // Read in order from the stretch's start, through the NUL-run
                // check where it stands.
                let text: Vec<u8> = held.concat();
                let rest = NulRuns::after(self.chunks, nul.run);
                return Pieces::Serial(base, Box::new(io::Cursor::new(text).chain(rest)));
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
