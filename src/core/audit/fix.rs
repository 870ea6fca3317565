//! `--fix` (contract v4): the result the Laws give a game whose recorded
//! result they contradict, and the game's bytes with that result written.
//! Two pure steps: [`correction`] decides from the audit's typed findings
//! which correction applies, if any; [`corrected_bytes`] makes it in the
//! bytes, which stay as they were everywhere else. [`fix_game`] does both
//! for a game's bytes and its audit.

use shakmaty::Color;

use super::explain;
use super::findings::{DrawRule, GameReport, MissedDraw, ResultCode};
use super::results;
use crate::pgn::{Game, PieceLetters, ResultPlaces};

pub use super::findings::COMMENT_PREFIX;

/// The result of a drawn game (FIDE 5.2, 9.6, 6.9 give it).
const DRAWN: &str = "1/2-1/2";

/// Why a result is corrected: the `code` of corrections.csv, a
/// missed_draws rule or a results code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CorrectionCode {
    /// The game played on past an automatic draw (9.6, 5.2.2): it ended
    /// drawn there.
    MissedDraw(DrawRule),
    /// The final position or the Laws give another result (results.csv).
    Result(ResultCode),
}

impl CorrectionCode {
    /// Every code, in the order of the contract's table (the missed_draws
    /// rules, then the results codes but `result_mismatch`).
    pub const ALL: &'static [CorrectionCode] = &[
        CorrectionCode::MissedDraw(DrawRule::Fivefold),
        CorrectionCode::MissedDraw(DrawRule::SeventyFiveMoves),
        CorrectionCode::MissedDraw(DrawRule::DeadPosition),
        CorrectionCode::Result(ResultCode::CheckmateNotScored),
        CorrectionCode::Result(ResultCode::StalemateNotDrawn),
        CorrectionCode::Result(ResultCode::DeadPositionNotDrawn),
        CorrectionCode::Result(ResultCode::TimeoutWithoutMatingMaterial),
    ];

    /// The code written in corrections.csv: the rule's or the results
    /// code's own.
    pub fn code(self) -> &'static str {
        match self {
            CorrectionCode::MissedDraw(rule) => rule.code(),
            CorrectionCode::Result(code) => code.code(),
        }
    }
}

/// A game's recorded result corrected to the one the Laws give: one row of
/// corrections.csv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correction {
    /// The ply of the finding: the missed draw's, or the game's last.
    pub ply: u32,
    /// Why.
    pub code: CorrectionCode,
    /// The recorded result (the Result tag, or the token where the tag is
    /// missing), canonical; empty without either.
    pub from: String,
    /// The result the Laws give.
    pub to: &'static str,
    /// One sentence: the results row's detail, or the missed draw told.
    pub detail: String,
}

/// The correction the Laws make to a game's recorded result `recorded`
/// (canonical, as results.csv's `recorded`), from its audit `report`: the
/// first row of the contract's table that applies, in a game replayed to
/// its end (no error).
///
/// A game that played on past an automatic draw (a missed_draws row) ended
/// drawn at the first one (the lowest ply; on one ply in the rules'
/// order): where it is not scored drawn it is corrected to a draw, and
/// where it is, nothing after that ply (a checkmate included) changes its
/// result. Otherwise the first results code of the table's order but
/// `result_mismatch` (a Result tag and token that disagree say nothing of
/// the result the Laws give) decides.
pub fn correction(report: &GameReport, recorded: &str) -> Option<Correction> {
    if report.error.is_some() {
        return None;
    }
    if let Some(first) = report.missed_draws.iter().min_by_key(|m| (m.ply, m.rule)) {
        return (recorded != DRAWN).then(|| Correction {
            ply: first.ply,
            code: CorrectionCode::MissedDraw(first.rule),
            from: recorded.to_owned(),
            to: DRAWN,
            detail: explain::missed_draw(first.rule, first.basis, mover(first)),
        });
    }
    let row = report
        .results
        .iter()
        .filter(|r| r.code != ResultCode::ResultMismatch && !r.expected.is_empty())
        .min_by_key(|r| r.code)?;
    Some(Correction {
        ply: row.ply,
        code: CorrectionCode::Result(row.code),
        from: row.recorded.clone(),
        to: row.expected,
        detail: row.detail.clone(),
    })
}

/// The move that made a missed draw's position: its side and move number,
/// read from the position's FEN (the side to move, the fullmove number);
/// `None` for the start position (ply 0).
fn mover(draw: &MissedDraw) -> Option<(Color, u32)> {
    if draw.ply == 0 {
        return None;
    }
    let mut fields = draw.fen.split(' ');
    let turn = fields.nth(1)?;
    let fullmoves: u32 = fields.nth(3)?.parse().ok()?;
    match turn {
        // Black to move: White's move of this number made the position.
        "b" => Some((Color::White, fullmoves)),
        _ => Some((Color::Black, fullmoves.saturating_sub(1).max(1))),
    }
}

/// The text of the comment written before the corrected result token:
/// `{pgn-audit: result 1-0 corrected to 1/2-1/2: DETAIL}` (`(none)` for a
/// game without a recorded result); a brace in the recorded result or the
/// detail would end the comment, and is written as a parenthesis.
pub fn comment(correction: &Correction) -> String {
    let from = match correction.from.as_str() {
        "" => "(none)",
        from => from,
    };
    let inner = format!(
        "{COMMENT_PREFIX} result {from} corrected to {}: {}",
        correction.to, correction.detail
    )
    .replace('{', "(")
    .replace('}', ")");
    format!("{{{inner}}}")
}

/// The game `bytes`, whose result is written at `places`, with
/// `correction` made: the Result tag's value and the closing result token
/// replaced by its result (a missing tag added after the last tag, as a
/// line of its own with the game's line end where the last tag ends its
/// line; a missing token added after the movetext's last token, on a line
/// of its own after a `;` comment or a `%` line, and after a blank line
/// where the game has no movetext), and its comment ([`comment`]) written
/// right before the token. Every other byte stays; the comment is written
/// in the game's encoding (Windows-1252 where its bytes are not UTF-8).
pub fn corrected_bytes(bytes: &[u8], places: &ResultPlaces, correction: &Correction) -> Vec<u8> {
    let eol = line_end_of(bytes);
    let to = correction.to.as_bytes();
    let text = comment(correction);
    let comment: Vec<u8> = match std::str::from_utf8(bytes) {
        Ok(_) => text.into_bytes(),
        Err(_) => encoding_rs::WINDOWS_1252.encode(&text).0.into_owned(),
    };
    // The edits, each a byte range replaced, in the order they apply where
    // two start at one byte (the tag before the token).
    let mut edits: Vec<(usize, usize, Vec<u8>)> = Vec::with_capacity(2);
    match (places.tag_value, places.section_end) {
        (Some((start, end)), _) => edits.push((start as usize, end as usize, to.to_vec())),
        (None, Some(end)) => {
            let end = end as usize;
            let mut tag = [b"[Result \"", to, b"\"]"].concat();
            if at_line_start(bytes, end) {
                tag.extend_from_slice(eol);
            } else {
                tag.push(b' ');
            }
            edits.push((end, end, tag));
        }
        (None, None) => {}
    }
    let mut token = Vec::with_capacity(comment.len() + to.len() + 4);
    let (start, end) = match places.token {
        Some((start, end)) => {
            let start = start as usize;
            if start > 0 && !bytes[start - 1].is_ascii_whitespace() {
                token.push(b' ');
            }
            (start, end as usize)
        }
        None => {
            let at = places.movetext_end as usize;
            if Some(places.movetext_end) == places.section_end {
                // No movetext: a blank line after the tags, as PGN writes it.
                if !at_line_start(bytes, at) {
                    token.extend_from_slice(eol);
                }
                token.extend_from_slice(eol);
            } else if ends_in_line_comment(bytes, at) {
                token.extend_from_slice(eol);
            } else if at > 0 && !at_line_start(bytes, at) {
                token.push(b' ');
            }
            (at, at)
        }
    };
    token.extend_from_slice(&comment);
    token.push(b' ');
    token.extend_from_slice(to);
    edits.push((start, end, token));
    let mut out = Vec::with_capacity(bytes.len() + edits.iter().map(|e| e.2.len()).sum::<usize>());
    let mut at = 0;
    for (start, end, with) in edits {
        out.extend_from_slice(&bytes[at..start]);
        out.extend_from_slice(&with);
        at = end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

/// The game's own line end: its first (`\r\n`, `\n` or a lone `\r`), `\n`
/// in a game of one line.
fn line_end_of(bytes: &[u8]) -> &'static [u8] {
    match memchr::memchr2(b'\n', b'\r', bytes) {
        Some(i) if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') => b"\r\n",
        Some(i) if bytes[i] == b'\r' => b"\r",
        _ => b"\n",
    }
}

fn at_line_start(bytes: &[u8], i: usize) -> bool {
    i == 0 || matches!(bytes[i - 1], b'\n' | b'\r')
}

/// Whether the line that ends at byte `at` may end in a comment that runs
/// to the line's end (`;`, or a `%` line): a token after it would be read
/// as part of it.
fn ends_in_line_comment(bytes: &[u8], at: usize) -> bool {
    let line_start = bytes[..at]
        .iter()
        .rposition(|&b| matches!(b, b'\n' | b'\r'))
        .map_or(0, |i| i + 1);
    let line = &bytes[line_start..at];
    line.first() == Some(&b'%') || line.contains(&b';')
}

/// The game `bytes` with the correction the Laws make to its recorded
/// result, given its audit `report`: the correction and the corrected
/// bytes, or `None` where no correction applies. The game is read again
/// for the places of its result (in the piece letters that read it to its
/// end, as the audit read it).
pub fn fix_game(bytes: &[u8], report: &GameReport) -> Option<(Correction, Vec<u8>)> {
    if report.error.is_some()
        || (report.missed_draws.is_empty()
            && report
                .results
                .iter()
                .all(|r| r.code == ResultCode::ResultMismatch))
    {
        return None;
    }
    let english = Game::parse(bytes);
    let game = match english.syntax_error {
        None => english,
        Some(_) => PieceLetters::FOREIGN
            .into_iter()
            .map(|letters| english.read_in(letters))
            .find(|g| g.syntax_error.is_none())?,
    };
    let correction = correction(report, results::recorded(&game))?;
    let fixed = corrected_bytes(game.bytes, &game.result_places(), &correction);
    Some((correction, fixed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::audit_game;
    use crate::audit::findings::{Basis, ResultFinding};

    fn missed(rule: DrawRule, ply: u32, fen: &str) -> MissedDraw {
        MissedDraw {
            rule,
            ply,
            plies_after: 3,
            fen: fen.to_owned(),
            basis: (rule == DrawRule::DeadPosition).then_some(Basis::InsufficientMaterial),
        }
    }

    fn result(code: ResultCode, expected: &'static str) -> ResultFinding {
        ResultFinding {
            code,
            ply: 90,
            recorded: "1-0".to_owned(),
            expected,
            detail: format!("{} detail", code.code()),
            fen: String::new(),
            basis: None,
        }
    }

    const FEN_B: &str = "8/8/8/4k3/8/8/8/4K3 b - - 10 41";
    const FEN_W: &str = "8/8/8/4k3/8/8/8/4K3 w - - 10 42";

    #[test]
    fn the_first_missed_draw_decides_then_the_results_in_the_tables_order() {
        let report = GameReport {
            missed_draws: vec![
                missed(DrawRule::DeadPosition, 81, FEN_W),
                missed(DrawRule::Fivefold, 81, FEN_W),
                missed(DrawRule::SeventyFiveMoves, 40, FEN_B),
            ],
            results: vec![result(ResultCode::CheckmateNotScored, "0-1")],
            ..GameReport::default()
        };
        let c = correction(&report, "1-0").unwrap();
        assert_eq!(
            c.code,
            CorrectionCode::MissedDraw(DrawRule::SeventyFiveMoves)
        );
        assert_eq!((c.ply, c.from.as_str(), c.to), (40, "1-0", "1/2-1/2"));
        assert_eq!(
            c.detail,
            "the game was drawn by the 75-move rule after White's 41st move (FIDE 9.6.2)"
        );
        let report = GameReport {
            missed_draws: report.missed_draws[..2].to_vec(),
            ..report
        };
        let c = correction(&report, "0-1").unwrap();
        assert_eq!(c.code, CorrectionCode::MissedDraw(DrawRule::Fivefold));
        assert_eq!(
            c.detail,
            "the game was drawn by a fivefold repetition after Black's 41st move (FIDE 9.6.1)"
        );
        // Drawn at the missed draw and scored drawn: the mate played later
        // changes nothing.
        assert_eq!(correction(&report, "1/2-1/2"), None);
        let results = GameReport {
            results: vec![
                result(ResultCode::ResultMismatch, ""),
                result(ResultCode::TimeoutWithoutMatingMaterial, "1/2-1/2"),
                result(ResultCode::DeadPositionNotDrawn, "1/2-1/2"),
            ],
            ..GameReport::default()
        };
        let c = correction(&results, "1-0").unwrap();
        assert_eq!(
            c.code,
            CorrectionCode::Result(ResultCode::DeadPositionNotDrawn)
        );
        assert_eq!((c.ply, c.to), (90, "1/2-1/2"));
        assert_eq!(c.detail, "dead_position_not_drawn detail");
        let mismatch_only = GameReport {
            results: vec![result(ResultCode::ResultMismatch, "")],
            ..GameReport::default()
        };
        assert_eq!(correction(&mismatch_only, "1-0"), None);
        let broken = GameReport {
            error: Some(crate::audit::GameError {
                ply: 3,
                san: "Kxe1".into(),
                kind: crate::audit::ErrorKind::IllegalMove,
                detail: String::new(),
                fen: String::new(),
            }),
            ..results
        };
        assert_eq!(correction(&broken, "1-0"), None);
    }

    #[test]
    fn ordinals_and_the_start_position() {
        let at = |ply, fen: &str| {
            let report = GameReport {
                missed_draws: vec![missed(DrawRule::DeadPosition, ply, fen)],
                ..GameReport::default()
            };
            correction(&report, "").unwrap().detail
        };
        assert_eq!(
            at(0, FEN_W),
            "the game was drawn by a dead position in the start position, neither side having \
             the material to mate (FIDE 5.2.2)"
        );
        for (fen, mv) in [
            ("8/8/8/4k3/8/8/8/4K3 w - - 0 2", "Black's 1st"),
            ("8/8/8/4k3/8/8/8/4K3 b - - 0 2", "White's 2nd"),
            ("8/8/8/4k3/8/8/8/4K3 b - - 0 3", "White's 3rd"),
            ("8/8/8/4k3/8/8/8/4K3 b - - 0 11", "White's 11th"),
            ("8/8/8/4k3/8/8/8/4K3 w - - 0 13", "Black's 12th"),
            ("8/8/8/4k3/8/8/8/4K3 b - - 0 113", "White's 113th"),
            ("8/8/8/4k3/8/8/8/4K3 b - - 0 122", "White's 122nd"),
        ] {
            assert!(at(5, fen).contains(&format!("after {mv} move,")), "{fen}");
        }
    }

    fn fixed(text: &[u8]) -> (Correction, Vec<u8>) {
        let report = audit_game(&Game::parse(text));
        fix_game(text, &report).expect("a correction")
    }

    #[test]
    fn the_tag_and_the_token_are_replaced_and_the_comment_written_before_it() {
        let (c, out) =
            fixed(b"[Event \"x\"]\n[Result \"1/2-1/2\"]\n\n1. f3 e5 2. g4 Qh4# 1/2-1/2\n");
        assert_eq!(
            c.code,
            CorrectionCode::Result(ResultCode::CheckmateNotScored)
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "[Event \"x\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# {pgn-audit: result 1/2-1/2 \
             corrected to 0-1: White is checkmated, so Black won (FIDE 5.1.1), but the game is \
             scored 1/2-1/2} 0-1\n"
        );
    }

    #[test]
    fn a_missing_tag_and_token_are_added_in_the_games_line_ends() {
        let (_, out) = fixed(b"[Event \"x\"]\r\n\r\n1. f3 e5 2. g4 Qh4#\r\n\r\n");
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.starts_with("[Event \"x\"]\r\n[Result \"0-1\"]\r\n\r\n1. f3 e5 2. g4 Qh4# {pgn-audit: result (none) corrected to 0-1: "),
            "{out}"
        );
        assert!(out.ends_with("} 0-1\r\n\r\n"), "{out}");
        // Tags and moves on one line: the tag goes on that line too.
        let (_, out) = fixed(b"[Event \"x\"] 1. f3 e5 2. g4 Qh4# *");
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.starts_with("[Event \"x\"] [Result \"0-1\"] 1. f3 e5 2. g4 Qh4# {pgn-audit: result * corrected to 0-1: "),
            "{out}"
        );
        assert!(out.ends_with("} 0-1"), "{out}");
        // No tags: no tag is added, the token is.
        let (_, out) = fixed(b"1. f3 e5 2. g4 Qh4#\n");
        assert!(out.starts_with(b"1. f3 e5 2. g4 Qh4# {pgn-audit: "));
        assert!(out.ends_with(b"} 0-1\n"));
        // A `;` comment at the end: the token goes on a line of its own.
        let (_, out) = fixed(b"1. f3 e5 2. g4 Qh4# ; oops\n");
        assert!(out.starts_with(b"1. f3 e5 2. g4 Qh4# ; oops\n{pgn-audit: "));
        assert!(out.ends_with(b"} 0-1\n"));
    }

    #[test]
    fn a_game_without_movetext_gets_its_token_after_a_blank_line() {
        let text = b"[SetUp \"1\"]\n[FEN \"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\"]\n[Result \"1-0\"]\n";
        let (c, out) = fixed(text);
        assert_eq!(
            c.code,
            CorrectionCode::Result(ResultCode::StalemateNotDrawn)
        );
        let out = String::from_utf8(out).unwrap();
        assert!(
            out.starts_with(
                "[SetUp \"1\"]\n[FEN \"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n{pgn-audit: result 1-0 corrected to 1/2-1/2: Black is stalemated"
            ),
            "{out}"
        );
        assert!(out.ends_with("} 1/2-1/2"), "{out}");
    }

    #[test]
    fn windows_1252_bytes_stay_and_the_comment_is_written_in_them() {
        let mut text = b"[White \"M\xfcller\"]\n[Result \"".to_vec();
        text.extend_from_slice(b"1/2\"]\n\n1. f3 e5 {\xe9} 2. g4 Qh4# 1/2\n");
        let (c, out) = fixed(&text);
        assert_eq!(c.from, "1/2-1/2");
        assert!(out.starts_with(b"[White \"M\xfcller\"]\n[Result \"0-1\"]\n\n1. f3 e5 {\xe9} 2. g4 Qh4# {pgn-audit: result 1/2-1/2 corrected"));
        assert!(out.ends_with(b"} 0-1\n"));
        let mut odd = Correction {
            from: "\u{e9}}".to_owned(),
            ..c
        };
        odd.detail = "x".to_owned();
        let places = Game::parse(&text).result_places();
        let out = corrected_bytes(&text, &places, &odd);
        let needle: &[u8] = b"{pgn-audit: result \xe9) corrected to 0-1: x} 0-1\n";
        assert!(out.ends_with(needle), "{}", String::from_utf8_lossy(&out));
    }

    #[test]
    fn no_correction_where_the_result_stands_or_only_the_tag_and_token_disagree() {
        for text in [
            &b"[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n"[..],
            b"[Result \"1-0\"]\n\n1. e4 e5 0-1\n",
            b"[Result \"1-0\"]\n\n1. f3 e5 2. Kxe8 0-1\n",
        ] {
            let report = audit_game(&Game::parse(text));
            assert_eq!(fix_game(text, &report), None);
        }
    }
}
