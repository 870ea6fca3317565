//! Batches of whole games: the unit of parallel work. A batch owns its
//! bytes, so workers need nothing else to parse and audit them.
//!
//! What the reader holds is bounded whatever the input: a batch holds at
//! most [`BATCH_GAMES`] games, bytes between games are dropped as soon as
//! the splitter has read them, and a game keeps at most [`GAME_CAP`] bytes:
//! the rest of a longer one is read by the splitter (to find where the next
//! game starts) and dropped, and the game ends its batch, marked
//! [`Batch::capped`].

use std::io::{self, Read};
use std::ops::{ControlFlow, Range};

use super::split::{GAME_CAP, GameSpan, Splitter};

/// About how many bytes of games go into one batch.
pub const BATCH_BYTES: usize = 1 << 20;

/// At most how many games go into one batch, so that the results of the
/// batches in flight stay bounded however small the games are.
pub const BATCH_GAMES: usize = 4096;

/// The limits a source is read with.
#[derive(Clone, Copy, Debug)]
struct Limits {
    /// About how many bytes of games go into one batch (and are read at a
    /// time).
    batch_bytes: usize,
    /// At most how many games go into one batch.
    batch_games: usize,
    /// At most how many bytes of one game are kept.
    game_cap: usize,
}

impl Limits {
    /// The limits of a run, with batches of about `batch_bytes`.
    fn new(batch_bytes: usize) -> Limits {
        Limits {
            batch_bytes: batch_bytes.max(1),
            batch_games: BATCH_GAMES,
            game_cap: GAME_CAP,
        }
    }

    /// The size of a fresh buffer: room for two reads of `batch_bytes`
    /// after the bytes carried over.
    fn room(self) -> usize {
        self.batch_bytes * 3
    }
}

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
    /// The 1-based line of each game's first byte in the source, in the
    /// order of `games`.
    pub lines: Vec<u64>,
    /// 1-based index of the first game within its source.
    pub first_game: u64,
    /// The `offset` of each game, in the order of `games`, where it is not
    /// its first byte's (a Parquet row's 0-based index); empty for PGN
    /// text.
    pub offsets: Vec<u64>,
    /// The last game is longer than [`GAME_CAP`]: its span is the
    /// part kept, and the rest of it, up to the next game, was skipped.
    pub capped: bool,
    /// The source's last batch: the input ended (or broke off) after it.
    pub last: bool,
}

impl Batch {
    /// The batch's text: its games, back to back.
    pub fn text(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Where `span`, one of the batch's games, lies in `bytes`.
    pub fn range(&self, span: GameSpan) -> Range<usize> {
        buf_index(span.start - self.base)..buf_index(span.end - self.base)
    }
}

/// A game past the cap: its first bytes are kept, the rest is dropped as
/// the splitter reads it.
#[derive(Clone, Copy, Debug)]
struct Skip {
    /// The game's first byte in the source.
    start: u64,
    /// Where the kept part ends in the buffer, and the dropped bytes go.
    kept: usize,
    /// How many bytes were dropped there.
    dropped: u64,
}

/// Counts the lines of a source as its bytes go by, each byte once, in
/// order: a line ends at `\n`, `\r\n` or a lone `\r`, so every `\r` ends
/// one and so does every `\n` that does not follow a `\r` (`\r\r\n` ends
/// two lines). A BOM is a byte of its line like any other.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LineCount {
    /// Line ends in the bytes counted so far.
    pub(super) ends: u64,
    /// The last byte counted is a `\r`: a `\n` right after it ends no line.
    after_cr: bool,
}

impl LineCount {
    /// Counts `bytes`, which follow the bytes counted so far.
    pub(super) fn add(&mut self, bytes: &[u8]) {
        let Some(&last) = bytes.last() else {
            return;
        };
        // Every `\n` and every `\r`, less the `\n`s that follow a `\r`
        // (vectorised counts: an LF file costs no work per line).
        let mut ends = memchr::memchr_iter(b'\n', bytes).count() as u64;
        if self.after_cr && bytes[0] == b'\n' {
            ends -= 1;
        }
        for i in memchr::memchr_iter(b'\r', bytes) {
            if bytes.get(i + 1) != Some(&b'\n') {
                ends += 1;
            }
        }
        self.ends += ends;
        self.after_cr = last == b'\r';
    }

    /// The 1-based line of the next byte.
    fn line(&self) -> u64 {
        self.ends + 1
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
    reader: impl Read,
    batch_bytes: usize,
    spare: impl FnMut() -> Option<Vec<u8>>,
    emit: impl FnMut(Batch) -> ControlFlow<()>,
) -> (u64, Option<io::Error>) {
    read_batches_at(reader, 0, batch_bytes, spare, emit)
}

/// [`read_batches`] of a reader whose first byte is at `base` in its source
/// and starts a line there (the rest of a source from a sync point, or its
/// start): offsets count from `base`, lines and game numbers from 1.
pub fn read_batches_at(
    reader: impl Read,
    base: u64,
    batch_bytes: usize,
    spare: impl FnMut() -> Option<Vec<u8>>,
    emit: impl FnMut(Batch) -> ControlFlow<()>,
) -> (u64, Option<io::Error>) {
    read_limited(reader, base, Limits::new(batch_bytes), spare, emit)
}

/// [`read_batches_at`] with `limits`: fill, feed the splitter, hand out the
/// batch that is complete, drop what is read and no longer needed.
fn read_limited(
    reader: impl Read,
    base: u64,
    limits: Limits,
    mut spare: impl FnMut() -> Option<Vec<u8>>,
    mut emit: impl FnMut(Batch) -> ControlFlow<()>,
) -> (u64, Option<io::Error>) {
    let first = spare().filter(|b| b.len() >= limits.room());
    let mut source = BatchReader::new(reader, base, limits, first);
    // The splitter stays a local, lent to each step: as a field of the
    // reader its per-line state costs 0.2 % more instructions (callgrind).
    let mut splitter = Splitter::with_block_cap(limits.game_cap as u64);
    loop {
        let known = source.games.len();
        let stopped = source.feed(&mut splitter);
        source.take_lines(known, &splitter);
        let done = source.eof && !stopped;
        if let Some(cut) = source.cut(done) {
            let batch = source.hand_out(cut, done, &splitter, &mut spare);
            if emit(batch).is_break() {
                return (source.offset(source.fed) - base, source.error);
            }
        }
        source.drop_read(&splitter);
        if stopped {
            continue;
        }
        if done {
            return (source.read, source.error);
        }
        source.fill();
    }
}

/// Where a complete batch ends in the buffer.
#[derive(Clone, Copy, Debug)]
struct Cut {
    /// The batch's text is `buf[..len]`.
    len: usize,
    /// Its last game is past the cap.
    capped: bool,
}

/// A source being read into batches: the bytes read and not yet handed
/// out, how far the splitter has read them, and the games it found.
struct BatchReader<R> {
    reader: R,
    limits: Limits,
    /// `buf[..filled]` is the text read and not yet handed out (but for the
    /// bytes a skip dropped); the rest of `buf` is initialised room to read
    /// into. Buffers have room for two reads of `batch_bytes` after the
    /// bytes carried over, so that they are not grown (and the growth
    /// zeroed) on the way.
    buf: Vec<u8>,
    filled: usize,
    /// The source offset of `buf[0]`.
    base: u64,
    /// `buf[..fed]` has been consumed by the splitter.
    fed: usize,
    skip: Option<Skip>,
    /// The games of the batch being made.
    games: Vec<GameSpan>,
    /// The line of each game in `games`.
    lines_of: Vec<u64>,
    /// The game in progress (by its first byte) and its line.
    in_progress: Option<(u64, u64)>,
    /// The lines of `buf[..counted]`, which is always `buf[..fed]` once the
    /// games' lines are taken.
    lines: LineCount,
    counted: usize,
    /// The index of the first game of the batch being made.
    next_game: u64,
    /// Bytes read from `reader`.
    read: u64,
    /// The read error that ended the source.
    error: Option<io::Error>,
    /// The source has ended (or broken off).
    eof: bool,
}

impl<R: Read> BatchReader<R> {
    /// A reader whose first buffer is `first`, or a fresh one.
    fn new(reader: R, base: u64, limits: Limits, first: Option<Vec<u8>>) -> BatchReader<R> {
        BatchReader {
            reader,
            limits,
            buf: first.unwrap_or_else(|| vec![0; limits.room()]),
            filled: 0,
            base,
            fed: 0,
            skip: None,
            games: Vec::new(),
            lines_of: Vec::new(),
            in_progress: None,
            lines: LineCount::default(),
            counted: 0,
            next_game: 1,
            read: 0,
            error: None,
            eof: false,
        }
    }

    /// The source offset of `buf[i]`.
    fn offset(&self, i: usize) -> u64 {
        offset(self.skip, self.base, i)
    }

    /// Feeds the splitter the bytes read and not consumed yet, collecting
    /// the games that end in them. Returns whether it stopped after a game
    /// that ends the batch: the skipped game, one past the cap, or the
    /// batch's last by number.
    fn feed(&mut self, splitter: &mut Splitter) -> bool {
        let at = self.offset(self.fed);
        let skipped = self.skip.map(|s| s.start);
        let Limits {
            batch_games,
            game_cap,
            ..
        } = self.limits;
        let games = &mut self.games;
        let (used, stopped) =
            splitter.feed_until(&self.buf[self.fed..self.filled], at, self.eof, |g| {
                games.push(g);
                // A game past the cap that ended within one feed (it was
                // not being skipped yet) ends its batch too, to be cut
                // there.
                let over = skipped.is_none() && g.end - g.start > game_cap as u64;
                if Some(g.start) == skipped || over || games.len() >= batch_games {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
        self.fed += used;
        stopped
    }

    /// Takes the lines of the games found after the first `known`, and of
    /// the game in progress, then counts the lines up to `fed`.
    fn take_lines(&mut self, known: usize, splitter: &Splitter) {
        for k in known..self.games.len() {
            let start = self.games[k].start;
            let line = match self.in_progress {
                Some((s, line)) if s == start => line,
                _ => self.line_at(start),
            };
            self.lines_of.push(line);
        }
        self.in_progress = splitter.game_start().map(|start| match self.in_progress {
            Some((s, line)) if s == start => (s, line),
            _ => (start, self.line_at(start)),
        });
        self.lines.add(&self.buf[self.counted..self.fed]);
        self.counted = self.fed;
    }

    /// The line of a game's first byte, at `at`: the bytes of its line
    /// before it are blanks or a BOM, so a game that started in an earlier
    /// feed has its line from then.
    fn line_at(&mut self, at: u64) -> u64 {
        let i = index(self.skip, self.base, at);
        if i > self.counted {
            self.lines.add(&self.buf[self.counted..i]);
            self.counted = i;
        }
        self.lines.line()
    }

    /// The batch to hand out, if one is complete (`done`: the source has
    /// ended and every game is found): it ends after the skipped game or a
    /// game past the cap, each cut to its kept text, or after the games
    /// found once it has its number of games or bytes.
    fn cut(&mut self, done: bool) -> Option<Cut> {
        let Limits {
            batch_bytes,
            batch_games,
            game_cap,
        } = self.limits;
        let cap = game_cap as u64;
        let base = self.base;
        if let Some(s) = self.skip {
            let game = self.games.last_mut().filter(|g| g.start == s.start)?;
            let from = buf_index(s.start - base);
            let capped = game.end > s.start + cap;
            let len = if capped {
                from + kept_text(&self.buf[from..s.kept])
            } else {
                buf_index(game.end - base)
            };
            game.end = base + len as u64;
            Some(Cut { len, capped })
        } else if let Some(game) = self.games.last_mut().filter(|g| g.end - g.start > cap) {
            let from = buf_index(game.start - base);
            let len = from + kept_text(&self.buf[from..from + game_cap]);
            game.end = base + len as u64;
            Some(Cut { len, capped: true })
        } else {
            let ready = buf_index(self.games.last()?.end - base);
            (done
                || self.games.len() >= batch_games
                || ready >= batch_bytes
                || self.filled - ready >= batch_bytes)
                .then_some(Cut {
                    len: ready,
                    capped: false,
                })
        }
    }

    /// Hands out the batch `cut` as it is; what follows it (the game in
    /// progress, or the bytes not consumed yet) moves to the front of the
    /// next buffer, `spare`'s or a fresh one.
    fn hand_out(
        &mut self,
        cut: Cut,
        done: bool,
        splitter: &Splitter,
        spare: &mut impl FnMut() -> Option<Vec<u8>>,
    ) -> Batch {
        let keep = splitter
            .game_start()
            .map_or(self.fed, |g| index(self.skip, self.base, g).min(self.fed));
        let rest = self.filled - keep;
        // A fresh buffer comes zeroed from the allocator (`vec!` asks for
        // zeroed memory, which the system gives without a memset).
        let mut next = spare().unwrap_or_else(|| vec![0; self.limits.room()]);
        if next.len() < rest + self.limits.batch_bytes {
            next.resize(rest + self.limits.batch_bytes, 0);
        }
        next[..rest].copy_from_slice(&self.buf[keep..self.filled]);
        let bytes = std::mem::replace(&mut self.buf, next);
        let next_base = self.offset(keep);
        let games = std::mem::take(&mut self.games);
        let batch = Batch {
            base: self.base,
            bytes,
            len: cut.len,
            first_game: self.next_game,
            lines: std::mem::take(&mut self.lines_of),
            capped: cut.capped,
            last: done,
            games,
            offsets: Vec::new(),
        };
        self.next_game += batch.games.len() as u64;
        self.base = next_base;
        self.filled = rest;
        self.fed -= keep;
        self.counted -= keep;
        self.skip = None;
        batch
    }

    /// Drops the bytes read that no batch needs: a game's bytes past the
    /// cap (which starts its skip), or bytes between games.
    fn drop_read(&mut self, splitter: &Splitter) {
        let cap = self.limits.game_cap;
        if self.skip.is_none()
            && let Some(start) = splitter.game_start()
            && offset(None, self.base, self.fed) - start > cap as u64
        {
            self.skip = Some(Skip {
                start,
                kept: index(None, self.base, start) + cap,
                dropped: 0,
            });
        }
        if let Some(s) = &mut self.skip {
            // The game's bytes past the cap are read: drop them.
            if self.fed > s.kept {
                self.buf.copy_within(self.fed..self.filled, s.kept);
                s.dropped += (self.fed - s.kept) as u64;
                self.filled -= self.fed - s.kept;
                self.fed = s.kept;
                self.counted = self.fed;
            }
        } else if self.games.is_empty() {
            // Bytes between games that the splitter has read: drop them.
            let keep = splitter
                .game_start()
                .map_or(self.fed, |g| index(None, self.base, g).min(self.fed));
            if keep > 0 {
                self.buf.copy_within(keep..self.filled, 0);
                self.base += keep as u64;
                self.filled -= keep;
                self.fed -= keep;
                self.counted -= keep;
            }
        }
    }

    /// Reads up to `batch_bytes` more, as `take(batch_bytes).read_to_end`
    /// would; notes the source's end or its read error.
    fn fill(&mut self) {
        let goal = self.filled + self.limits.batch_bytes;
        if self.buf.len() < goal {
            self.buf.resize(goal, 0);
        }
        while self.filled < goal {
            match self.reader.read(&mut self.buf[self.filled..goal]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.filled += n;
                    self.read += n as u64;
                }
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

/// The source offset of `buf[i]`, with `skip` the bytes dropped.
fn offset(skip: Option<Skip>, base: u64, i: usize) -> u64 {
    match skip {
        Some(s) if i >= s.kept => base + i as u64 + s.dropped,
        _ => base + i as u64,
    }
}

/// The index in the buffer of the source offset `at`, which is kept.
fn index(skip: Option<Skip>, base: u64, at: u64) -> usize {
    let i = at - base;
    buf_index(match skip {
        Some(s) if i >= s.kept as u64 => i - s.dropped,
        _ => i,
    })
}

/// `i`, an index in a buffer (which no `usize` can fail to hold).
pub(super) fn buf_index(i: u64) -> usize {
    usize::try_from(i).expect("an index in a buffer fits in usize")
}

/// How much of the kept start of a capped game is its text: up to its last
/// blank or line end, so that no move, tag or result is cut in two (a cut
/// `O-O-O` would read as `O-O`).
pub(super) fn kept_text(kept: &[u8]) -> usize {
    kept.iter()
        .rposition(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        .map_or(kept.len(), |i| i + 1)
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
                        let text = &b.bytes[b.range(*g)];
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
                let start = buf_index(*start);
                assert_eq!(&pgn[start..start + text.len()], &text[..]);
                assert!(text.starts_with(format!("[Event \"{i}\"]").as_bytes()));
            }
        }
    }

    /// A reader that returns at most `.1` bytes at a time.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.1).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// A game as read: its index, offset, text as kept, whether capped.
    type Seen = (u64, u64, Vec<u8>, bool);

    /// Every game of `pgn` read with `limits` in pieces of `step` bytes,
    /// and the largest buffer a batch came in.
    fn read_all(pgn: &[u8], limits: Limits, step: usize) -> (Vec<Seen>, usize) {
        let mut seen = Vec::new();
        let mut largest = 0;
        let (read, err) = read_limited(
            Trickle(pgn, step),
            0,
            limits,
            || None,
            |b| {
                largest = largest.max(b.bytes.len());
                assert!(b.games.len() <= limits.batch_games);
                let last = b.games.len() - 1;
                for (k, g) in b.games.iter().enumerate() {
                    let text = &b.bytes[b.range(*g)];
                    seen.push((
                        b.first_game + k as u64,
                        g.start,
                        text.to_vec(),
                        b.capped && k == last,
                    ));
                }
                ControlFlow::Continue(())
            },
        );
        assert!(err.is_none());
        assert_eq!(read, pgn.len() as u64);
        (seen, largest)
    }

    const SMALL: Limits = Limits {
        batch_bytes: 64,
        batch_games: 3,
        game_cap: 1000,
    };

    #[test]
    fn a_game_past_the_cap_keeps_its_first_lines() {
        let mut long = b"[Event \"long\"]\n\n".to_vec();
        while long.len() < 5000 {
            long.extend_from_slice(b"1. Nf3 Nf6 2. Ng1 Ng8\n");
        }
        long.extend_from_slice(b"*\n");
        let mut pgn = b"1. e4 *\n\n".to_vec();
        pgn.extend_from_slice(&long);
        pgn.extend_from_slice(b"\n[Event \"after\"]\n\n1. d4 *\n");
        for step in [1, 7, 64, 4096] {
            let (seen, largest) = read_all(&pgn, SMALL, step);
            assert_eq!(seen.len(), 3);
            assert_eq!(seen[0], (1, 0, b"1. e4 *\n".to_vec(), false));
            let (index, start, text, capped) = &seen[1];
            assert_eq!((*index, *start, *capped), (2, 9, true));
            // Up to the last blank the cap holds: 44 lines, `1. Nf3 Nf6 2. `.
            assert_eq!(text.len(), 16 + 22 * 44 + 14, "step {step}");
            assert_eq!(&text[..], &long[..text.len()]);
            let after = pgn.len() - 25;
            assert_eq!(seen[2], (3, after as u64, pgn[after..].to_vec(), false));
            assert!(
                largest <= 1000 + 4 * 64 + super::super::split::HEAD,
                "{largest}"
            );
        }
    }

    #[test]
    fn blank_lines_past_the_cap_are_no_part_of_a_game() {
        // A tag section, then more blank lines than the cap: it ends the
        // tag section's game, whole, and nothing of them is kept.
        let mut pgn = b"[Event \"a\"]\n".to_vec();
        pgn.resize(pgn.len() + 100_000, b'\n');
        pgn.extend_from_slice(b"[Event \"b\"]\n\n1. d4 *\n");
        pgn.resize(pgn.len() + 100_000, b' ');
        for step in [5, 4096] {
            let (seen, largest) = read_all(&pgn, SMALL, step);
            assert_eq!(
                seen,
                vec![
                    (1, 0, b"[Event \"a\"]\n".to_vec(), false),
                    (2, 100_012, b"[Event \"b\"]\n\n1. d4 *\n".to_vec(), false)
                ]
            );
            assert!(
                largest <= 1000 + 4 * 64 + super::super::split::HEAD,
                "{largest}"
            );
        }
    }

    #[test]
    fn a_batch_holds_at_most_its_number_of_games() {
        let pgn = b"*\n\n".repeat(1000);
        for step in [1, 2, 5, 64, 1 << 20] {
            let (seen, _) = read_all(&pgn, SMALL, step);
            assert_eq!(seen.len(), 1000, "step {step}");
            for (i, (index, start, text, capped)) in seen.iter().enumerate() {
                assert_eq!(
                    (*index, *start, &text[..], *capped),
                    (i as u64 + 1, 3 * i as u64, &b"*\n"[..], false)
                );
            }
        }
    }

    /// The offset and line of every game of `pgn`, read with `limits` in
    /// pieces of `step` bytes.
    fn lines_read(pgn: &[u8], limits: Limits, step: usize) -> Vec<(u64, u64)> {
        let mut seen = Vec::new();
        let (_, err) = read_limited(
            Trickle(pgn, step),
            0,
            limits,
            || None,
            |b| {
                assert_eq!(b.lines.len(), b.games.len());
                seen.extend(b.games.iter().zip(&b.lines).map(|(g, &l)| (g.start, l)));
                ControlFlow::Continue(())
            },
        );
        assert!(err.is_none());
        seen
    }

    /// The line of `pgn[at]`: 1 + every `\r`, and every `\n` not after a
    /// `\r`, before it.
    fn line_at(pgn: &[u8], at: u64) -> u64 {
        let before = &pgn[..buf_index(at)];
        let crs = before.iter().filter(|&&b| b == b'\r').count();
        let lfs = (0..before.len())
            .filter(|&i| before[i] == b'\n' && (i == 0 || before[i - 1] != b'\r'))
            .count();
        1 + (crs + lfs) as u64
    }

    #[test]
    fn lines_count_across_reads_batches_and_skips() {
        let ends: [&[u8]; 4] = [b"\r\n", b"\r", b"\r\r\n", b"\n"];
        let mut pgn = b"\xef\xbb\xbf%escape\r\n".to_vec();
        let mut starts = Vec::new();
        for i in 0..40 {
            let nl = ends[i % 4];
            starts.push(pgn.len() as u64);
            if i % 2 == 0 {
                pgn.extend_from_slice(b"[Event \"e\"]");
                pgn.extend_from_slice(nl);
                pgn.extend_from_slice(nl);
            }
            pgn.extend_from_slice(b"1. e4 ");
            // Every seventh game is past the cap, its lines skipped.
            let moves = if i % 7 == 3 { 80 } else { 1 };
            for _ in 0..moves {
                pgn.extend_from_slice(b"Nf3 Ng1");
                pgn.extend_from_slice(ends[(i + 1) % 4]);
            }
            pgn.extend_from_slice(b"*");
            for _ in 0..i % 3 + 2 {
                pgn.extend_from_slice(nl);
            }
        }
        let expected: Vec<(u64, u64)> = starts.iter().map(|&s| (s, line_at(&pgn, s))).collect();
        assert_eq!(expected[..2], [(12, 2), (46, 7)]);
        for step in [1, 2, 3, 5, 64, 4096] {
            assert_eq!(lines_read(&pgn, SMALL, step), expected, "step {step}");
        }
    }

    #[test]
    fn a_line_end_split_between_counts_is_counted_once() {
        let text = b"a\r\nb\r\r\nc\rd\n\r\n\n\r";
        for cut in 0..=text.len() {
            for second in cut..=text.len() {
                let mut lines = LineCount::default();
                lines.add(&text[..cut]);
                lines.add(&text[cut..second]);
                lines.add(&text[second..]);
                assert_eq!(lines.line(), 9, "cut at {cut} and {second}");
            }
        }
    }
}
