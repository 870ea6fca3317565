//! What a worker of the pool does with a batch: reads and audits each of
//! its games. A panic while reading or auditing a game becomes an error
//! row for that game, and a game whose text stops short of its end (the
//! source broke off in it, or it passed the game cap) gets a parse_error
//! that says so.

use pgn_audit_core::audit::{self, ErrorKind, GameError, GameReport};
use pgn_audit_core::{Game, Tags};
use pgn_audit_input::{self as input, Batch};

/// One audited game, ready to be written.
pub(super) struct Audited {
    pub(super) index: u64,
    pub(super) offset: u64,
    pub(super) line: u64,
    /// The game's bytes in its batch's buffer.
    pub(super) range: (usize, usize),
    pub(super) tags: Tags,
    pub(super) report: GameReport,
}

/// Audits one batch. `cut` is the read error that broke the source inside
/// the batch's last game.
pub(super) fn audit_batch(batch: &Batch, cut: Option<&str>) -> Vec<Audited> {
    let last = batch.games.len().wrapping_sub(1);
    batch
        .games
        .iter()
        .enumerate()
        .map(|(k, span)| {
            let range = batch.range(*span);
            let range = (range.start, range.end);
            let (tags, mut report) = audit_caught(&batch.bytes[range.0..range.1]);
            if batch.capped && k == last {
                mark_cut(
                    &mut report,
                    format!(
                        "the game is longer than {} MiB; the rest of it, up to the next game, was skipped",
                        input::GAME_CAP >> 20
                    ),
                );
            } else if let Some(cause) = cut.filter(|_| k == last) {
                mark_cut(
                    &mut report,
                    format!("the input breaks off in this game: {cause}"),
                );
            }
            Audited {
                index: batch.first_game + k as u64,
                offset: batch.offsets.get(k).copied().unwrap_or(span.start),
                line: batch.lines[k],
                range,
                tags,
                report,
            }
        })
        .collect()
}

/// Reads and audits one game; a panic becomes a parse_error at ply 0.
fn audit_caught(bytes: &[u8]) -> (Tags, GameReport) {
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
/// parse_error with `detail`. An error found before the cut stays.
fn mark_cut(report: &mut GameReport, detail: String) {
    let ply = report.plies + 1;
    let (san, fen) = match report.error.take() {
        Some(e) if e.kind != ErrorKind::ParseError || e.ply != ply => {
            report.error = Some(e);
            return;
        }
        Some(e) => (e.san, e.fen),
        None => (String::new(), String::new()),
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
