//! Results that contradict the final position or the Laws (results.csv):
//! a Result tag that disagrees with the movetext, a mate or stalemate not
//! scored as such (FIDE 5.1.1, 5.2.1), a dead position scored as a win
//! (5.2.2), and a win on time by a side that could not mate (6.9). Each is
//! found as a typed [`Contradiction`], from which `audit/explain.rs` writes
//! its sentence (the audit asks it, as for every finding).

use std::borrow::Cow;

use shakmaty::{Chess, Color, Position, attacks};

use super::findings::{Basis, ResultCode, ResultFinding, Undecided, fen_of};
use super::helpmate::{Analyst, Deadness, Mating, Verdict};
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

/// The Result tag's value, canonical: one of the standard values as read
/// (a constant, canonical already: no trim), else as [`canonical`] makes it.
#[allow(
    clippy::ptr_arg,
    reason = "the variant tells a standard constant from a decoded value"
)]
fn canonical_tag<'t>(result: &'t Cow<'static, str>) -> &'t str {
    match result {
        Cow::Borrowed(standard) => standard,
        Cow::Owned(other) => canonical(other),
    }
}

/// The game's recorded result, canonical: the Result tag, or the result
/// token that ends the movetext where the tag is missing; empty without
/// either.
pub(super) fn recorded<'g>(game: &'g Game) -> &'g str {
    match canonical_tag(&game.tags.result) {
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

/// How a recorded result contradicts the final position or the Laws, with
/// what shows it: one [`ResultCode`] each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Contradiction<'g> {
    /// The Result tag says `tag`, the movetext's result token `token`.
    Mismatch { tag: &'g str, token: &'g str },
    /// FIDE 5.1.1: `mated` is checkmated, and the other side not scored
    /// the win.
    CheckmateNotScored { mated: Color },
    /// 5.2.1: `stalemated` is stalemated, and the game not drawn.
    StalemateNotDrawn { stalemated: Color },
    /// 5.2.2: neither side can mate, as `basis` shows, and the game is
    /// scored a win.
    DeadPositionNotDrawn { basis: Basis },
    /// 6.9: `winner` won on time but cannot mate by any series of legal
    /// moves, as `basis` shows.
    TimeoutWithoutMatingMaterial { winner: Color, basis: Basis },
}

impl Contradiction<'_> {
    /// The code of the row.
    pub(crate) fn code(self) -> ResultCode {
        match self {
            Contradiction::Mismatch { .. } => ResultCode::ResultMismatch,
            Contradiction::CheckmateNotScored { .. } => ResultCode::CheckmateNotScored,
            Contradiction::StalemateNotDrawn { .. } => ResultCode::StalemateNotDrawn,
            Contradiction::DeadPositionNotDrawn { .. } => ResultCode::DeadPositionNotDrawn,
            Contradiction::TimeoutWithoutMatingMaterial { .. } => {
                ResultCode::TimeoutWithoutMatingMaterial
            }
        }
    }

    /// The result the Laws give; empty for a mismatch.
    fn expected(self) -> &'static str {
        match self {
            Contradiction::Mismatch { .. } => "",
            Contradiction::CheckmateNotScored { mated } => win_of(!mated),
            Contradiction::StalemateNotDrawn { .. }
            | Contradiction::DeadPositionNotDrawn { .. }
            | Contradiction::TimeoutWithoutMatingMaterial { .. } => "1/2-1/2",
        }
    }

    /// What shows that a side cannot mate, for the two codes it applies to.
    fn basis(self) -> Option<Basis> {
        match self {
            Contradiction::DeadPositionNotDrawn { basis }
            | Contradiction::TimeoutWithoutMatingMaterial { basis, .. } => Some(basis),
            _ => None,
        }
    }
}

/// What the helpmate analysis says of a game's last position (the one
/// before its error, where it has one).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FinalVerdicts {
    /// The side asked first: the recorded winner, else the side to move.
    pub(crate) first: Color,
    /// Whether the recorded winner can mate, as 6.9 asks it (the
    /// contract's words: its material insufficient by shakmaty's one-sided
    /// test, or the analysis); `None` without a winner. Searched in full
    /// only where the game was lost on time (the one row the winner's
    /// verdict alone decides): elsewhere a verdict the full search would
    /// settle is `NotProven`.
    pub(crate) winner: Option<Mating>,
    /// Whether the game was lost on time (6.9), worked out once and only
    /// where the winner's verdict can make it matter: the winner is not
    /// taken as able to mate. `false` elsewhere.
    pub(crate) lost_on_time: bool,
    /// Whether the position is dead.
    pub(crate) dead: Deadness,
    /// Whether the position has no legal move (mate or stalemate): the
    /// game is over by 5.1.1 or 5.2.1 and no helpmate verdict applies.
    /// Worked out only where a helpmate verdict says a side cannot mate.
    pub(crate) over: bool,
    /// Whether the position is checkmate (5.1.1).
    pub(crate) mated: bool,
}

impl FinalVerdicts {
    /// The analysis of `pos`, the game's last position (`mated` whether
    /// it is checkmate): the recorded winner first (where it can mate,
    /// nothing else is asked), then the other side. A checkmate is not
    /// analysed: the game is over (5.1.1) and a side has mated.
    pub(crate) fn of(
        game: &Game,
        pos: &Chess,
        mated: bool,
        analyst: &mut Analyst,
    ) -> FinalVerdicts {
        let won_by = winner(recorded(game));
        let first = won_by.unwrap_or(pos.turn());
        if mated {
            return FinalVerdicts {
                first,
                winner: won_by.map(|_| Mating::NotProven),
                lost_on_time: false,
                dead: Deadness::Alive,
                over: true,
                mated,
            };
        }
        // 6.9 as the contract words it: the winner's material insufficient
        // by shakmaty's one-sided test (`has_insufficient_material`), else
        // the analysis. The position's deadness is the analysis's alone.
        let short = won_by.is_some_and(|w| pos.has_insufficient_material(w));
        // The winner's full search only where its answer is a row of its
        // own (a loss on time); elsewhere `deadness` asks it if at all.
        let mut timeout = false;
        let asked = won_by.map(|w| {
            let verdict = analyst.verdict(pos, w);
            timeout =
                (short || !matches!(verdict, Verdict::Settled(m) if m.can())) && lost_on_time(game);
            if timeout && !short {
                Verdict::Settled(analyst.settle(verdict))
            } else {
                verdict
            }
        });
        let winner = asked.map(|v| match v {
            _ if short => Mating::Impossible(Basis::InsufficientMaterial),
            Verdict::Settled(mating) => mating,
            Verdict::Open(..) => Mating::NotProven,
        });
        let dead = analyst.deadness(pos, first, asked);
        let by_analysis = dead == Deadness::Dead(Basis::HelpmateAnalysis)
            || winner == Some(Mating::Impossible(Basis::HelpmateAnalysis));
        FinalVerdicts {
            first,
            winner,
            lost_on_time: timeout,
            dead,
            over: by_analysis && pos.legal_moves().is_empty(),
            mated,
        }
    }

    /// Whether the verdict `basis` stands: one of the material always, one
    /// of the analysis where the game is not over.
    fn stands(&self, basis: Basis) -> bool {
        basis == Basis::InsufficientMaterial || !self.over
    }
}

/// The game's results rows, in the contract's order, each with the
/// contradiction its `detail` (left empty) is written from. `last` is the
/// final position, and whether it is check, where the game was replayed to
/// its end (no error), `None` otherwise; `plies` the last ply replayed.
pub(crate) fn audit_results<'g>(
    game: &'g Game,
    last: Option<(&Chess, bool)>,
    plies: u32,
    verdicts: &FinalVerdicts,
    undecided: &mut Vec<Undecided>,
) -> Vec<(ResultFinding, Contradiction<'g>)> {
    let found = contradictions(game, last, verdicts, undecided);
    if found.is_empty() {
        return Vec::new();
    }
    let recorded = recorded(game);
    let fen = last.map(|(pos, _)| fen_of(pos)).unwrap_or_default();
    found
        .into_iter()
        .map(|c| {
            let row = ResultFinding {
                code: c.code(),
                ply: plies,
                recorded: recorded.to_owned(),
                expected: c.expected(),
                detail: String::new(),
                fen: fen.clone(),
                basis: c.basis(),
            };
            (row, c)
        })
        .collect()
}

/// The Result tag and the result token that ends the movetext, where both
/// are present and differ: checked for every game, replayed or not.
fn mismatch<'g>(game: &'g Game) -> Option<Contradiction<'g>> {
    let tag = canonical_tag(&game.tags.result);
    let token = game.closing_result()?;
    (!tag.is_empty() && tag != token).then_some(Contradiction::Mismatch { tag, token })
}

/// The results row of a game whose start position could not be set up
/// (a `bad_fen`, an `unsupported_variant`): only `result_mismatch`
/// applies, at ply 0, with no position.
pub(crate) fn unreplayed<'g>(game: &'g Game) -> Vec<(ResultFinding, Contradiction<'g>)> {
    let recorded = recorded(game);
    mismatch(game)
        .map(|c| {
            let row = ResultFinding {
                code: c.code(),
                ply: 0,
                recorded: recorded.to_owned(),
                expected: c.expected(),
                detail: String::new(),
                fen: String::new(),
                basis: c.basis(),
            };
            (row, c)
        })
        .into_iter()
        .collect()
}

/// How the game's recorded result contradicts its final position (`last`,
/// and whether it is check; `None` where the game was not replayed to its
/// end) or the Laws, in the contract's order; `verdicts` is the helpmate
/// analysis of that position, and a question it left undecided goes to
/// `undecided`.
fn contradictions<'g>(
    game: &'g Game,
    last: Option<(&Chess, bool)>,
    verdicts: &FinalVerdicts,
    undecided: &mut Vec<Undecided>,
) -> Vec<Contradiction<'g>> {
    let recorded = recorded(game);
    let mut found: Vec<Contradiction<'g>> = mismatch(game).into_iter().collect();
    let Some((pos, in_check)) = last else {
        return found;
    };
    let won_by = winner(recorded);
    // The costly tests (every legal move generated) run only where their
    // answer could make a row: a mate where the mating side is not scored
    // the win, a stalemate where the game is not drawn.
    if in_check {
        let mater = !pos.turn();
        if won_by != Some(mater) && verdicts.mated {
            found.push(Contradiction::CheckmateNotScored { mated: pos.turn() });
        }
    } else if recorded != "1/2-1/2" && !king_can_step(pos) && pos.is_stalemate() {
        found.push(Contradiction::StalemateNotDrawn {
            stalemated: pos.turn(),
        });
    }
    let Some(won_by) = won_by else {
        return found;
    };
    match verdicts.dead {
        Deadness::Dead(basis) if verdicts.stands(basis) => {
            found.push(Contradiction::DeadPositionNotDrawn { basis });
        }
        Deadness::Undecided => undecided.push(Undecided::DeadPositionNotDrawn),
        _ => {}
    }
    match verdicts.winner {
        Some(Mating::Impossible(basis)) if verdicts.stands(basis) && verdicts.lost_on_time => {
            found.push(Contradiction::TimeoutWithoutMatingMaterial {
                winner: won_by,
                basis,
            });
        }
        Some(Mating::Undecided) if verdicts.lost_on_time => {
            undecided.push(Undecided::TimeoutWithoutMatingMaterial);
        }
        _ => {}
    }
    found
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

    /// Checks the contradictions of a game from `fen` (tags `tags`,
    /// movetext `movetext`), replayed to its end.
    fn assert_found(fen: &str, tags: &str, movetext: &str, expected: &[Contradiction]) {
        let text = format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n{tags}\n{movetext}\n");
        let game = Game::parse(text.as_bytes());
        let mut pos: Chess = shakmaty::fen::Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        for tok in &game.moves {
            pos.play_unchecked(tok.san.to_move(&pos).unwrap());
        }
        let last = Some((&pos, pos.is_check()));
        let verdicts = FinalVerdicts::of(&game, &pos, pos.is_checkmate(), &mut Analyst::default());
        let mut undecided = Vec::new();
        let found = contradictions(&game, last, &verdicts, &mut undecided);
        assert_eq!(found, expected, "{text}");
        assert_eq!(undecided, [], "{text}");
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn a_tag_that_disagrees_with_the_movetext() {
        let mismatch = Contradiction::Mismatch {
            tag: "1-0",
            token: "0-1",
        };
        assert_found(START, "[Result \"1-0\"]", "1. e4 0-1", &[mismatch]);
    }

    #[test]
    fn a_mate_and_a_stalemate_not_scored() {
        let mated = Contradiction::CheckmateNotScored {
            mated: Color::White,
        };
        let drawn = "[Result \"1/2-1/2\"]";
        assert_found(START, drawn, "1. f3 e5 2. g4 Qh4# 1/2-1/2", &[mated]);
        let stalemated = Contradiction::StalemateNotDrawn {
            stalemated: Color::Black,
        };
        let fen = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
        assert_found(fen, "[Result \"1-0\"]", "1-0", &[stalemated]);
    }

    #[test]
    fn a_dead_position_won_on_time() {
        let tags = "[Result \"1-0\"]\n[Termination \"Time forfeit\"]";
        let timeout = Contradiction::TimeoutWithoutMatingMaterial {
            winner: Color::White,
            basis: Basis::InsufficientMaterial,
        };
        let dead = Contradiction::DeadPositionNotDrawn {
            basis: Basis::InsufficientMaterial,
        };
        let fen = "8/8/8/4k3/8/8/8/4K1N1 w - - 0 1";
        assert_found(fen, tags, "1-0", &[dead, timeout]);
        assert_eq!(dead.code(), ResultCode::DeadPositionNotDrawn);
        assert_eq!(
            Contradiction::CheckmateNotScored {
                mated: Color::Black
            }
            .expected(),
            "1-0"
        );
    }
}
