//! What a worker of the pool does: cuts its chunk of a source into games
//! ([`ChunkJob`]) or takes a batch the reader cut, and reads and audits
//! each game. A panic while reading or auditing a game becomes an error
//! row for that game, and a game whose text stops short of its end (the
//! source broke off in it, or it passed the game cap) gets a parse_error
//! that says so.

use std::ops::Range;
use std::sync::Arc;

use super::Message;
use super::ordered::Ticket;
use pgn_audit_core::audit::{self, ErrorKind, GameError, GameReport};
use pgn_audit_core::{Game, Tags};
use pgn_audit_input::{self as input, Batch, ChunkGame, ChunkGames};

/// At most how many games of a chunk are audited and sent at a time: the
/// results waiting to be written stay bounded however small the games are.
const PART_GAMES: usize = 4096;

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
    let (tags, mut report) = audit_caught(bytes);
    if g.capped {
        mark_capped(&mut report, bytes);
    } else if let Some(cause) = cut.filter(|_| !g.span.ended) {
        mark_broken_off(&mut report, bytes, cause);
    }
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
    let last = batch.games.len().wrapping_sub(1);
    batch
        .games
        .iter()
        .enumerate()
        .map(|(k, span)| {
            let range = batch.range(*span);
            let range = (range.start, range.end);
            let bytes = &batch.bytes[range.0..range.1];
            let (tags, mut report) = audit_caught(bytes);
            if batch.capped && k == last {
                mark_capped(&mut report, bytes);
            } else if let Some(cause) = cut.filter(|_| k == last) {
                mark_broken_off(&mut report, bytes, cause);
            }
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

/// A game longer than the cap: the rest of it was skipped.
fn mark_capped(report: &mut GameReport, bytes: &[u8]) {
    mark_cut(
        report,
        bytes,
        format!(
            "the game is longer than {} MiB; the rest of it, up to the next game, was skipped",
            input::GAME_CAP >> 20
        ),
    );
}

/// A game that the source's read error `cause` broke off.
fn mark_broken_off(report: &mut GameReport, bytes: &[u8], cause: &str) {
    mark_cut(
        report,
        bytes,
        format!("the input breaks off in this game: {cause}"),
    );
}

/// Reads and audits one game; a panic becomes a parse_error at ply 0.
pub(super) fn audit_caught(bytes: &[u8]) -> (Tags, GameReport) {
    std::panic::catch_unwind(|| {
        let game = Game::parse(bytes);
        let report = audit::audit_game_caught(&game);
        (game.tags, report)
    })
    .unwrap_or_else(|_| {
        let report = GameReport {
            error: Some(GameError {
                ply: 0,
                san: String::new(),
                kind: ErrorKind::ParseError,
                detail: "internal error: reading this game panicked".to_owned(),
                fen: String::new(),
            }),
            ..GameReport::default()
        };
        (Tags::default(), report)
    })
}

/// A game whose text stops short of its end (the source's read error broke
/// it off, or it is longer than the cap and the rest was skipped): whatever
/// its end says (a cut move or comment, or nothing amiss) is replaced by a
/// parse_error with `detail`. An error found before the cut stays. Its
/// `fen` is the position the game's `bytes` reached before the cut.
fn mark_cut(report: &mut GameReport, bytes: &[u8], detail: String) {
    let ply = report.plies + 1;
    let (san, fen) = match report.error.take() {
        Some(e) if e.kind != ErrorKind::ParseError || e.ply != ply => {
            report.error = Some(e);
            return;
        }
        Some(e) => (e.san, e.fen),
        None => {
            let fen =
                std::panic::catch_unwind(|| audit::fen_after(&Game::parse(bytes), report.plies));
            (String::new(), fen.ok().flatten().unwrap_or_default())
        }
    };
    report.claims.clear();
    report.error = Some(GameError {
        ply,
        san,
        kind: ErrorKind::ParseError,
        detail,
        fen,
    });
}
