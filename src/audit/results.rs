//! Results that contradict the final position or the Laws (results.csv):
//! a Result tag that disagrees with the movetext, a mate or stalemate not
//! scored as such (FIDE 5.1.1, 5.2.1), a dead position scored as a win
//! (5.2.2), and a win on time by a side that could not mate (6.9).

use shakmaty::{Chess, Color, Position, attacks};

use super::findings::{ResultCode, ResultFinding};
use crate::pgn::{Game, decode_text};

/// Where the time ran out, as the Termination tag or a final comment says.
const TIMEOUT_PHRASES: &[&str] = &["won on time", "lost on time", "forfeits on time"];

/// A result as the contract writes it: `1/2` and `½-½` are `1/2-1/2`;
/// anything else as given, trimmed.
fn canonical(result: &str) -> &str {
    match result.trim() {
        "1/2" | "½-½" => "1/2-1/2",
        other => other,
    }
}

/// The game's recorded result, canonical: the Result tag, or the result
/// token that ends the movetext where the tag is missing; empty without
/// either.
pub(super) fn recorded<'g>(game: &'g Game) -> &'g str {
    match canonical(&game.tags.result) {
        "" => game.result_token.unwrap_or(""),
        tag => tag,
    }
}

/// The winning result of `color`.
fn win_of(color: Color) -> &'static str {
    if color.is_white() { "1-0" } else { "0-1" }
}

/// The winner a recorded result names, if it names one.
fn winner(recorded: &str) -> Option<Color> {
    match recorded {
        "1-0" => Some(Color::White),
        "0-1" => Some(Color::Black),
        _ => None,
    }
}

fn side_name(color: Color) -> &'static str {
    if color.is_white() { "White" } else { "Black" }
}

/// The game's results rows, in the contract's order. `last` is the final
/// position, and whether it is check, where the game was replayed to its
/// end (no error), `None` otherwise; `plies` the last ply replayed.
pub fn audit_results(game: &Game, last: Option<(&Chess, bool)>, plies: u32) -> Vec<ResultFinding> {
    let tag = canonical(&game.tags.result);
    let recorded = recorded(game);
    let mut rows = Vec::new();
    let mut row = |code, expected, detail: String, fen: String| {
        rows.push(ResultFinding {
            code,
            ply: plies,
            recorded: recorded.to_owned(),
            expected,
            detail,
            fen,
        });
    };
    let fen = || last.map(|(pos, _)| super::fen_of(pos)).unwrap_or_default();

    if let Some(token) = game.result_token
        && !tag.is_empty()
        && tag != token
    {
        row(
            ResultCode::ResultMismatch,
            "",
            format!("the Result tag says {tag} but the movetext ends with {token}"),
            fen(),
        );
    }
    let Some((pos, in_check)) = last else {
        return rows;
    };
    let won_by = winner(recorded);
    // The costly tests (every legal move generated) run only where their
    // answer could make a row: a mate where the mating side is not scored
    // the win, a stalemate where the game is not drawn.
    if in_check {
        let mater = !pos.turn();
        if won_by != Some(mater) && pos.is_checkmate() {
            row(
                ResultCode::CheckmateNotScored,
                win_of(mater),
                format!(
                    "{} is checkmated, so {} won (FIDE 5.1.1), but the game is scored {}",
                    side_name(pos.turn()),
                    side_name(mater),
                    shown(recorded)
                ),
                fen(),
            );
        }
    } else if recorded != "1/2-1/2" && !king_can_step(pos) && pos.is_stalemate() {
        row(
            ResultCode::StalemateNotDrawn,
            "1/2-1/2",
            format!(
                "{} is stalemated, so the game is drawn (FIDE 5.2.1), but it is scored {}",
                side_name(pos.turn()),
                shown(recorded)
            ),
            fen(),
        );
    }
    let Some(won_by) = won_by else {
        return rows;
    };
    if pos.is_insufficient_material() {
        row(
            ResultCode::DeadPositionNotDrawn,
            "1/2-1/2",
            format!(
                "neither side has the material to mate, so the position is dead and the game drawn (FIDE 5.2.2), but it is scored {recorded}"
            ),
            fen(),
        );
    }
    if pos.has_insufficient_material(won_by) && lost_on_time(game) {
        row(
            ResultCode::TimeoutWithoutMatingMaterial,
            "1/2-1/2",
            format!(
                "{}'s flag fell, but {} cannot mate by any series of legal moves, so the game is drawn (FIDE 6.9), not {recorded}",
                side_name(!won_by),
                side_name(won_by)
            ),
            fen(),
        );
    }
    rows
}

/// Whether the side to move, not in check, surely has a legal move: its
/// king can step to a square that no enemy piece attacks. Settles nearly
/// every position without generating every legal move.
fn king_can_step(pos: &Chess) -> bool {
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(us) else {
        return false;
    };
    let occupied = board.occupied().without(king);
    (attacks::king_attacks(king) & !board.by_color(us))
        .into_iter()
        .any(|to| board.attacks_to(to, !us, occupied).is_empty())
}

/// A recorded result for a sentence.
fn shown(recorded: &str) -> &str {
    if recorded.is_empty() {
        "without a result"
    } else {
        recorded
    }
}

/// Whether the game was lost on time: Termination `Time forfeit` (as
/// Lichess writes), or a Termination or final comment saying so.
fn lost_on_time(game: &Game) -> bool {
    if let Some(t) = &game.tags.termination
        && (t.trim().eq_ignore_ascii_case("time forfeit") || says_timeout(t))
    {
        return true;
    }
    game.final_comments
        .iter()
        .any(|&(start, end)| says_timeout(&decode_text(&game.bytes[start as usize..end as usize])))
}

/// Whether `text` holds one of [`TIMEOUT_PHRASES`] as a whole phrase,
/// case-insensitive.
fn says_timeout(text: &str) -> bool {
    if !text
        .as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"time"))
    {
        return false;
    }
    let lower = text.to_lowercase();
    TIMEOUT_PHRASES
        .iter()
        .any(|p| super::claims::has_phrase(&lower, p, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_phrases_are_whole_phrases() {
        assert!(says_timeout("White won on time"));
        assert!(says_timeout("Black forfeits on time."));
        assert!(says_timeout("LOST ON TIME"));
        assert!(!says_timeout("He lost on timestamps"));
        assert!(!says_timeout("Normal"));
    }

    #[test]
    fn results_are_canonical() {
        assert_eq!(canonical(" 1/2 "), "1/2-1/2");
        assert_eq!(canonical("½-½"), "1/2-1/2");
        assert_eq!(canonical("1-0"), "1-0");
        assert_eq!(canonical("?"), "?");
    }
}
