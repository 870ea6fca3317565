//! The audit of one game's bytes, as the splitter cut them: the one
//! function that every caller (the command line's workers, the Python
//! package's `audit_game`, the fuzzer and the tests through
//! [`super::audit_bytes`]) reaches. A panic while reading or auditing a
//! game becomes an error row for that game, and a game whose text stops
//! short of its end (the source broke off in it, or it passed the game
//! cap) gets a parse_error that says so.

use pgn_audit_core::audit::{self, ErrorKind, GameError, GameReport};
use pgn_audit_core::{Game, Tags};
use pgn_audit_input as input;

/// How a game's text ends, as the splitter cut it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextEnd<'a> {
    /// The game's whole text.
    Whole,
    /// The game is longer than [`input::GAME_CAP`]: the rest of it, up to
    /// the next game, was skipped.
    Capped,
    /// The source's read error `cause` broke the game off.
    BrokenOff(&'a str),
}

/// Reads and audits the game `bytes`, whose text ends as `end` says: its
/// tags and its report.
pub(crate) fn audit_game_text(bytes: &[u8], end: TextEnd<'_>) -> (Tags, GameReport) {
    let (tags, mut report) = audit_caught(bytes);
    let cut = match end {
        TextEnd::Whole => return (tags, report),
        TextEnd::Capped => format!(
            "the game is longer than {} MiB; the rest of it, up to the next game, was skipped",
            input::GAME_CAP >> 20
        ),
        TextEnd::BrokenOff(cause) => format!("the input breaks off in this game: {cause}"),
    };
    mark_cut(&mut report, bytes, cut);
    (tags, report)
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

/// A game whose text stops short of its end: whatever its end says (a cut
/// move or comment, or nothing amiss) is replaced by a parse_error with
/// `detail`. An error found before the cut stays. Its `fen` is the
/// position the game's `bytes` reached before the cut.
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
