//! Batches of whole games: the unit of parallel work. A batch owns its
//! bytes, so workers need nothing else to parse and audit them.

use std::io::{self, Read};
use std::ops::ControlFlow;

use super::split::{GameSpan, Splitter};

/// About how many bytes of games go into one batch.
pub const BATCH_BYTES: usize = 1 << 20;

/// Consecutive games of one source.
#[derive(Debug)]
pub struct Batch {
    /// Offset of `bytes[0]` in the source's decompressed bytes.
    pub base: u64,
    /// The batch's text is `bytes[..len]`; the rest is slack, kept
    /// initialised so that the buffer can be read into again without
    /// zeroing it (see [`read_batches`]'s `spare`).
    pub bytes: Vec<u8>,
    /// How many bytes of `bytes` are the batch's games.
    pub len: usize,
    /// The games, with offsets in the source (subtract `base` to index).
    pub games: Vec<GameSpan>,
    /// 1-based index of the first game within its source.
    pub first_game: u64,
}

impl Batch {
    /// The batch's text: its games, back to back.
    pub fn text(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Reads `reader` to its end, handing out batches of whole games in order.
/// Returns the number of bytes read, or the read error (after the games
/// completed before it were handed out; a game cut by the error is handed
/// out as it stands). `emit` may break to stop early.
///
/// `spare` may give back the buffer of a batch that is done with (its
/// contents are ignored): reads go straight into buffers that are already
/// allocated and initialised, so the reader neither zeroes nor grows a
/// fresh buffer for every batch.
pub fn read_batches(
    mut reader: impl Read,
    batch_bytes: usize,
    mut spare: impl FnMut() -> Option<Vec<u8>>,
    mut emit: impl FnMut(Batch) -> ControlFlow<()>,
) -> (u64, Option<io::Error>) {
    let mut splitter = Splitter::new();
    // `buf[..filled]` is the text read and not yet handed out; the rest of
    // `buf` is initialised room to read into. A batch is cut once a game
    // ends past `batch_bytes`, which takes one or two reads of
    // `batch_bytes` after the game carried over: buffers have room for
    // both, so that they are not grown (and the growth zeroed) on the way.
    let room = batch_bytes * 3;
    let mut buf: Vec<u8> = vec![0; room];
    let mut filled = 0usize;
    let mut base = 0u64;
    let mut fed = 0usize;
    let mut games: Vec<GameSpan> = Vec::new();
    let mut next_game = 1u64;
    let mut error = None;
    loop {
        // Up to `batch_bytes` more, as `take(batch_bytes).read_to_end` would.
        if buf.len() < filled + batch_bytes {
            buf.resize((filled + batch_bytes).max(buf.len() * 2), 0);
        }
        let goal = filled + batch_bytes;
        let mut eof = false;
        while filled < goal {
            match reader.read(&mut buf[filled..goal]) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    error = Some(e);
                    eof = true;
                    break;
                }
            }
        }
        fed += splitter.feed(&buf[fed..filled], base + fed as u64, eof, |g| games.push(g));
        let ready = games.last().map_or(0, |g| (g.end - base) as usize);
        if ready > 0 && (ready >= batch_bytes || eof) {
            // The unfinished game after the batch moves to the front of the
            // next buffer.
            let rest = filled - ready;
            // A fresh buffer comes zeroed from the allocator (`vec!` asks
            // for zeroed memory, which the system gives without a memset).
            let mut next = spare().unwrap_or_else(|| vec![0; room]);
            if next.len() < rest + batch_bytes {
                next.resize(rest + batch_bytes, 0);
            }
            next[..rest].copy_from_slice(&buf[ready..filled]);
            let bytes = std::mem::replace(&mut buf, next);
            filled = rest;
            let n = games.len() as u64;
            let batch = Batch {
                base,
                bytes,
                len: ready,
                games: std::mem::take(&mut games),
                first_game: next_game,
            };
            next_game += n;
            base += ready as u64;
            fed -= ready;
            if emit(batch).is_break() {
                return (base + fed as u64, error);
            }
        }
        if eof {
            return (base + filled as u64, error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_every_game_once_in_order() {
        let mut pgn = Vec::new();
        for i in 0..500 {
            pgn.extend_from_slice(format!("[Event \"{i}\"]\n\n1. e4 e5 {{ c }} *\n\n").as_bytes());
        }
        for size in [7, 64, 1000, 1 << 20] {
            let mut seen = Vec::new();
            let (read, err) = read_batches(
                &pgn[..],
                size,
                || None,
                |b| {
                    for (k, g) in b.games.iter().enumerate() {
                        let text = &b.bytes[(g.start - b.base) as usize..(g.end - b.base) as usize];
                        seen.push((b.first_game + k as u64, g.start, text.to_vec()));
                    }
                    ControlFlow::Continue(())
                },
            );
            assert!(err.is_none());
            assert_eq!(read, pgn.len() as u64);
            assert_eq!(seen.len(), 500, "size {size}");
            for (i, (index, start, text)) in seen.iter().enumerate() {
                assert_eq!(*index, i as u64 + 1);
                assert_eq!(
                    &pgn[*start as usize..*start as usize + text.len()],
                    &text[..]
                );
                assert!(text.starts_with(format!("[Event \"{i}\"]").as_bytes()));
            }
        }
    }
}
