//! What a worker of the pool does: cuts its chunk of a source into games
//! ([`ChunkJob`]) or takes a batch the reader cut, and audits each game
//! ([`super::game`]).

use std::ops::Range;
use std::sync::Arc;

use super::Message;
use super::game::{TextEnd, audit_game_text};
use super::ordered::Ticket;
use pgn_audit_core::Tags;
use pgn_audit_core::audit::GameReport;
use pgn_audit_input::{self as input, Batch, ChunkGame, ChunkGames};

/// At most how many games of a chunk are audited and sent at a time: as
/// many as a batch holds, so that the results waiting to be written stay
/// bounded however small the games are.
const PART_GAMES: usize = input::BATCH_GAMES;

/// One audited game, ready to be written; the writer numbers it.
pub(super) struct Audited {
    pub(super) offset: u64,
    /// The 1-based line of its first byte, counted from the start of its
    /// chunk (or of the stretch the reader cut).
    pub(super) line: u64,
    /// The game's bytes in its batch's buffer.
    pub(super) range: (usize, usize),
    pub(super) tags: Tags,
    pub(super) report: GameReport,
}

/// A chunk of a source, cut into games and audited on the pool a part of
/// [`PART_GAMES`] games at a time; each part goes to the writer with the
/// rest of the job, which the writer hands back to the pool once it has
/// written the part.
pub(super) struct ChunkJob {
    pub(super) source: usize,
    /// The chunk's text is `text[span]`: a decompressed piece may hold
    /// several chunks, each audited straight from it.
    pub(super) text: Arc<Vec<u8>>,
    pub(super) span: Range<usize>,
    /// The source offset of `text[span.start]`.
    pub(super) base: u64,
    /// For the source's last chunk: the read error that ended the source,
    /// which broke off its last game unless that game ended by its result.
    pub(super) cut: Option<String>,
    pub(super) games: ChunkGames,
    pub(super) ticket: Ticket<Message>,
}

impl ChunkJob {
    /// Audits the next part of the chunk and sends it.
    pub(super) fn run(mut self) {
        let text = &self.text[self.span.clone()];
        let mut found = Vec::new();
        let more = self.games.next_games(text, PART_GAMES, &mut found);
        let last = found.len().wrapping_sub(1);
        let games: Vec<Audited> = found
            .iter()
            .enumerate()
            .map(|(k, g)| {
                let cut = self.cut.as_deref().filter(|_| !more && k == last);
                audit_chunk_game(text, self.base, g, cut, self.span.start)
            })
            .collect();
        let end = found.last().map(|g| g.span.end);
        let source = self.source;
        if more {
            let part = self.ticket.next_part();
            let bytes = self.text.clone();
            part.send(Message::Batch {
                source,
                end,
                bytes,
                games,
                lines: 0,
                more: Some(Box::new(self)),
            });
        } else {
            let lines = self.games.line_ends(text);
            self.ticket.send(Message::Batch {
                source,
                end,
                bytes: self.text,
                games,
                lines,
                more: None,
            });
        }
    }
}

/// Audits game `g` of a chunk, whose text is `text` from `base` on and
/// starts at `start` of its buffer. `cut` is the read error that ended the
/// source after it.
fn audit_chunk_game(
    text: &[u8],
    base: u64,
    g: &ChunkGame,
    cut: Option<&str>,
    start: usize,
) -> Audited {
    let at = |offset: u64| {
        usize::try_from(offset - base).expect("a game's offset in its chunk fits in usize")
    };
    let (from, to) = (at(g.span.start), at(g.span.end));
    let bytes = &text[from..to];
    let end = match cut.filter(|_| !g.span.ended) {
        _ if g.capped => TextEnd::Capped,
        Some(cause) => TextEnd::BrokenOff(cause),
        None => TextEnd::Whole,
    };
    let (tags, report) = audit_game_text(bytes, end);
    Audited {
        offset: g.span.start,
        line: g.line,
        range: (start + from, start + to),
        tags,
        report,
    }
}

/// Audits one batch that the reader cut. `cut` is the read error that
/// broke the source inside the batch's last game.
pub(super) fn audit_batch(batch: &Batch, cut: Option<&str>) -> Vec<Audited> {
    batch
        .games
        .iter()
        .enumerate()
        .map(|(k, span)| {
            let range = batch.range(*span);
            let range = (range.start, range.end);
            let bytes = &batch.bytes[range.0..range.1];
            let (tags, report) = audit_game_text(bytes, batch_end(batch, k, cut));
            Audited {
                offset: batch.offsets.get(k).copied().unwrap_or(span.start),
                line: batch.lines[k],
                range,
                tags,
                report,
            }
        })
        .collect()
}

/// How game `k` of a batch that the reader cut ends: the batch's last game
/// may pass the cap, or be broken off by the read error `cut`.
pub(super) fn batch_end<'a>(batch: &Batch, k: usize, cut: Option<&'a str>) -> TextEnd<'a> {
    let last = k + 1 == batch.games.len();
    match cut {
        _ if last && batch.capped => TextEnd::Capped,
        Some(cause) if last => TextEnd::BrokenOff(cause),
        _ => TextEnd::Whole,
    }
}
