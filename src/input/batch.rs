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
    pub bytes: Vec<u8>,
    /// The games, with offsets in the source (subtract `base` to index).
    pub games: Vec<GameSpan>,
    /// 1-based index of the first game within its source.
    pub first_game: u64,
}

/// Reads `reader` to its end, handing out batches of whole games in order.
/// Returns the number of bytes read, or the read error (after the games
/// completed before it were handed out; a game cut by the error is handed
/// out as it stands). `emit` may break to stop early.
pub fn read_batches(
    mut reader: impl Read,
    batch_bytes: usize,
    mut emit: impl FnMut(Batch) -> ControlFlow<()>,
) -> (u64, Option<io::Error>) {
    let mut splitter = Splitter::new();
    let mut buf: Vec<u8> = Vec::with_capacity(batch_bytes * 2);
    let mut base = 0u64;
    let mut fed = 0usize;
    let mut games: Vec<GameSpan> = Vec::new();
    let mut next_game = 1u64;
    let mut error = None;
    loop {
        let eof;
        let want = batch_bytes as u64;
        match (&mut reader).take(want).read_to_end(&mut buf) {
            Ok(n) => eof = (n as u64) < want,
            Err(e) => {
                error = Some(e);
                eof = true;
            }
        }
        fed += splitter.feed(&buf[fed..], base + fed as u64, eof, |g| games.push(g));
        let ready = games.last().map_or(0, |g| (g.end - base) as usize);
        if ready > 0 && (ready >= batch_bytes || eof) {
            let rest = buf.split_off(ready);
            let bytes = std::mem::replace(&mut buf, rest);
            let n = games.len() as u64;
            let batch = Batch {
                base,
                bytes,
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
            return (base + buf.len() as u64, error);
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
            let (read, err) = read_batches(&pgn[..], size, |b| {
                for (k, g) in b.games.iter().enumerate() {
                    let text = &b.bytes[(g.start - b.base) as usize..(g.end - b.base) as usize];
                    seen.push((b.first_game + k as u64, g.start, text.to_vec()));
                }
                ControlFlow::Continue(())
            });
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
