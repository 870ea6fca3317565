//! The examples: one compact line per row that names the game and the
//! move, opening onto its board and the row's detail.

use maud::{Markup, PreEscaped, html};
use shakmaty::{Setup, Square};

use super::board::{board_svg, castle_marks, no_board, parse_fen};
use super::{HtmlReport, date, is_url, plural, shown, tag, times, wrapping};
use crate::cells::{Code, VariantColumn};
use crate::rows::{CastlingRow, ClaimRow, ErrorRow, Identity, MissedDrawRow, ResultRow};
use pgn_audit_core::audit::{ClaimKind, Variant, ordinal_in_figures};

/// The half-move index of a FEN's position: twice its fullmove counter,
/// plus one with Black to move.
fn half_moves(setup: &Setup) -> u64 {
    2 * u64::from(setup.fullmoves.get()) + u64::from(setup.turn.is_black())
}

/// The move that led to the position of half-move index `index`, by its
/// side and number (the rows name no move of a missed draw):
/// `White's 26th move`.
fn move_before(index: u64) -> String {
    let (number, black_to_move) = (index / 2, index % 2 == 1);
    if black_to_move {
        format!("White's {} move", ordinal_in_figures(number))
    } else {
        format!(
            "Black's {} move",
            ordinal_in_figures(number.saturating_sub(1))
        )
    }
}

/// `ply 49`, `plies 45 and 49`, `plies 41, 45 and 49`.
fn plies_text(plies: &[u32]) -> String {
    match plies {
        [] => String::new(),
        [one] => format!("ply {one}"),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(u32::to_string).collect();
            format!("plies {} and {last}", rest.join(", "))
        }
    }
}

/// `26.Nb5` or `26…Nb5`: a move by `color` in the position whose fullmove
/// counter is `number`.
fn move_name(number: u32, white: bool, san: &str) -> String {
    format!("{number}{}{}", if white { "." } else { "…" }, shown(san))
}

// ---- examples ----

fn identity(id: &Identity) -> Markup {
    let white = tag(&id.white);
    let black = tag(&id.black);
    let site = tag(&id.site);
    // The players, else the event, name the game.
    let event = tag(&id.event);
    let who = match (white, black) {
        (None, None) => event.map(shown),
        (w, b) => Some(format!(
            "{} – {}",
            shown(w.unwrap_or("?")),
            shown(b.unwrap_or("?"))
        )),
    };
    let mut parts: Vec<Markup> = Vec::new();
    if let Some(e) = event.filter(|_| white.is_some() || black.is_some()) {
        parts.push(html! { (shown(e)) });
    }
    if let Some(r) = tag(&id.round) {
        parts.push(html! { "round " (shown(r)) });
    }
    if let Some(d) = date(&id.date) {
        parts.push(html! { (shown(d)) });
    }
    if let Some(site) = site {
        parts.push(if is_url(site) {
            html! { a href=(site) rel="noopener noreferrer" { (shown(site)) } }
        } else {
            html! { (shown(site)) }
        });
    }
    if id.variant != VariantColumn::Known(Variant::Standard) {
        parts.push(html! { (shown(id.variant.as_str())) });
    }
    html! {
        span.who {
            @match &who { Some(w) => { b { (w) } }, None => { b.muted { "no players or event named" } } }
            @if let Some(r) = tag(&id.result) { " " span.muted { (shown(r)) } }
        }
        @if !parts.is_empty() {
            span.tags { @for (i, p) in parts.iter().enumerate() { @if i > 0 { " · " } (p) } }
        }
        span.src { (shown(&id.source)) ", game " (id.game) ", line " (id.line) }
    }
}

const LEGEND_CASTLE: &str = concat!(
    r#"<p class="legend"><i class="l-path"></i>king's path "#,
    r#"<i class="l-rook"></i>rook's path "#,
    r#"<i class="l-attacked"></i>attacked (arrows from the attackers) "#,
    r#"<i class="l-blocker"></i>in the way "#,
    r#"<i class="l-moved"></i>had moved or is displaced "#,
    r#"<i class="l-captured"></i>rook's square, its rook captured</p>"#,
);

/// A group of examples: its heading and, one line each, its rows, whose
/// boards open on demand.
fn example_group(
    id: &str,
    title: Markup,
    total: u64,
    shown_rows: usize,
    file: &str,
    rows: Markup,
) -> Markup {
    html! {
        details.group id=(id) data-total=(total) data-shown=(shown_rows) open {
            summary { (title) " " span.muted { "(" (total) ")" } }
            div.rows { (rows) }
            @if total > shown_rows as u64 {
                p.more { "… and " (total - shown_rows as u64) " more in " (file) "." }
            }
        }
    }
}

/// One example: a line that names the game and the finding, and, opened,
/// the board and the details.
fn example(
    id: &str,
    class: &str,
    data: &[(&str, String)],
    line: Markup,
    board: Markup,
    body: Markup,
    open: bool,
) -> Markup {
    html! {
        details class={ "ex " (class) } id=(id) open[open]
            data-reasons=[data.iter().find(|(k, _)| *k == "reasons").map(|(_, v)| v)]
            data-verdict=[data.iter().find(|(k, _)| *k == "verdict").map(|(_, v)| v)]
            data-plies=[data.iter().find(|(k, _)| *k == "plies").map(|(_, v)| v)]
            data-ply=[data.iter().find(|(k, _)| *k == "ply").map(|(_, v)| v)]
            data-variant=[data.iter().find(|(k, _)| *k == "variant").map(|(_, v)| v)]
        {
            summary { (line) }
            div.body { (board) div.info { (body) } }
        }
    }
}

pub(super) fn examples(h: &HtmlReport) -> Markup {
    let mut n = 0usize;
    html! {
        section #examples {
            h2 { "Examples" }
            p.muted { "At most " (h.limit) " per group, in input order; open a line for its board. The CSV files hold every row." }
            h3 #castle-examples { "Illegal castles" }
            @if h.castle_examples.is_empty() { p.muted { "None." } } @else {
                p.muted { "Grouped by each castle's first reason. Each board shows the position before the castle." }
                (PreEscaped(LEGEND_CASTLE))
                @for (reason, g) in &h.castle_examples {
                    (example_group(&format!("castles-{}", reason.code()),
                        html! { "First reason " code.reason { (wrapping(reason.code(), '_')) } }, g.total, g.rows.len(), "castling.csv",
                        html! { @for row in &g.rows { ({ n += 1; castle_example(n, row) }) } }))
                }
            }
            h3 #claim-examples { "False claims" }
            @if h.claim_examples.is_empty() { p.muted { "None." } } @else {
                p.muted { "Each board shows the final position; the en-passant square and the rooks that keep a castling right are shaded blue." }
                @for (verdict, g) in &h.claim_examples {
                    (example_group(&format!("claims-{}", verdict.code()),
                        html! { "Verdict " code.reason { (wrapping(verdict.code(), '_')) } }, g.total, g.rows.len(), "claims.csv",
                        html! { @for row in &g.rows { ({ n += 1; claim_example(n, row) }) } }))
                }
            }
            h3 #result-examples { "Results that contradict the board" }
            @if h.results.is_empty() { p.muted { "None." } } @else {
                @for (code, g) in &h.results {
                    (example_group(&format!("results-{}", code.code()),
                        html! { code.reason { (wrapping(code.code(), '_')) } }, g.total, g.rows.len(), "results.csv",
                        html! { @for row in &g.rows { ({ n += 1; result_example(n, row) }) } }))
                }
            }
            h3 #missed-examples { "Missed automatic draws" }
            @if h.missed.is_empty() { p.muted { "None." } } @else {
                @for (rule, g) in &h.missed {
                    (example_group(&format!("missed-{}", rule.code()),
                        html! { code.reason { (wrapping(rule.code(), '_')) } }, g.total, g.rows.len(), "missed_draws.csv",
                        html! { @for row in &g.rows { ({ n += 1; missed_example(n, row) }) } }))
                }
            }
            h3 #error-examples { "Errors" }
            @if h.errors.is_empty() { p.muted { "None." } } @else {
                @for (kind, g) in &h.errors {
                    (example_group(&format!("errors-{}", kind.code()),
                        html! { code.reason { (wrapping(kind.code(), '_')) } }, g.total, g.rows.len(), "errors.csv",
                        html! { @for row in &g.rows { ({ n += 1; error_example(n, row) }) } }))
                }
            }
        }
    }
}

/// Codes, each in its box.
fn codes(list: impl IntoIterator<Item = &'static str>) -> Markup {
    html! { @for r in list { code.reason { (wrapping(r, '_')) } " " } }
}

fn castle_example(n: usize, row: &CastlingRow) -> Markup {
    let setup = parse_fen(&row.fen);
    let marks = setup.as_ref().and_then(|s| castle_marks(row, s));
    let board = match &setup {
        Some(s) => board_svg(
            &format!("board-{n}"),
            &row.fen,
            &s.board,
            marks.as_ref(),
            &[],
        ),
        None => no_board(),
    };
    let mv = move_name(row.move_number, row.side.is_white(), &row.san);
    let reasons = row.reasons.codes();
    example(
        &format!("ex-{n}"),
        "castle",
        &[
            ("reasons", reasons),
            ("ply", row.ply.to_string()),
            ("variant", shown(row.id.variant.as_str())),
        ],
        html! {
            span.move { b { (mv) } " " small.ply { "ply " (row.ply) } }
            (identity(&row.id))
            span.codes { (codes(row.reasons.iter().map(Code::code))) }
        },
        board,
        html! {
            p { (row.side.code()) " castles " (row.castle.code()) ": " b { (mv) } }
            p.detail { (shown(&row.detail)) }
            p { code.fen { (wrapping(&row.fen, '/')) } }
        },
        n == 1,
    )
}

/// A claim's final position, its castling rights and en-passant square
/// marked.
fn claim_board(n: usize, fen: &str, setup: Option<&Setup>) -> Markup {
    match setup {
        Some(s) => {
            let mut extra: Vec<(Square, &str)> = s
                .castling_rights
                .into_iter()
                .map(|sq| (sq, "right"))
                .collect();
            if let Some(ep) = s.ep_square {
                extra.push((ep, "ep"));
            }
            board_svg(&format!("board-{n}"), fen, &s.board, None, &extra)
        }
        None => no_board(),
    }
}

fn claim_example(n: usize, row: &ClaimRow) -> Markup {
    let setup = parse_fen(&row.fen);
    let board = claim_board(n, &row.fen, setup.as_ref());
    // The claim is made after the game's last move, which its detail names
    // (claims.csv has no column of its own for it).
    let at = match row.claimed_move() {
        Some(mv) => {
            html! { "after " b { (move_name(mv.number, mv.white, mv.text)) " " small.ply { "ply " (row.ply) } } }
        }
        None if row.ply == 0 => html! { "at the start" },
        None => html! { "at " b { "ply " (row.ply) } },
    };
    let plies = &row.plies.0;
    let threefold = row.claim == ClaimKind::Threefold;
    example(
        &format!("ex-{n}"),
        "claim",
        &[
            ("verdict", row.verdict.code().to_owned()),
            ("plies", row.plies.to_string()),
        ],
        html! {
            span.move { (at) }
            (identity(&row.id))
            span.codes { (wrapping(row.claim.code(), '_')) " claim from the " (wrapping(row.claim_source.code(), '_')) " " (codes([row.verdict.code()])) }
        },
        board,
        html! {
            @if threefold {
                p { "The final position occurred " b { (times(row.occurrences)) } " under FIDE identity (9.2.3), "
                    (times(row.occurrences_ignoring_rights)) " ignoring castling and en-passant rights"
                    @if !plies.is_empty() { ": at " (plies_text(plies)) }
                    "." }
            } @else {
                @let clock = setup.as_ref().map(|s| s.halfmoves);
                p { "The fifty-move rule (FIDE 9.3) needs 50 moves of each side, 100 plies, without a capture or a pawn move"
                    @if let Some(c) = clock { "; the last one was " b { (plural(u64::from(c), "ply", "plies")) } " before the claim" }
                    "." }
            }
            p.detail { (shown(&row.detail)) }
            p { code.fen { (wrapping(&row.fen, '/')) } }
        },
        false,
    )
}

fn result_example(n: usize, row: &ResultRow) -> Markup {
    let setup = parse_fen(&row.fen);
    let board = match &setup {
        Some(s) => board_svg(&format!("board-{n}"), &row.fen, &s.board, None, &[]),
        None => html! {},
    };
    example(
        &format!("ex-{n}"),
        "result",
        &[("ply", row.ply.to_string())],
        html! {
            span.move { "recorded " b { (shown(&row.recorded)) }
                @if !row.expected.is_empty() { ", the Laws give " b { (shown(&row.expected)) } } }
            (identity(&row.id))
            span.codes { (codes([row.code.code()])) }
        },
        board,
        html! {
            p.detail { (shown(&row.detail)) }
            @if let Some(basis) = row.basis { p.basis { "basis: " (codes([basis.code()])) } }
            @if !row.fen.is_empty() { p { code.fen { (wrapping(&row.fen, '/')) } } }
        },
        false,
    )
}

fn missed_example(n: usize, row: &MissedDrawRow) -> Markup {
    let setup = parse_fen(&row.fen);
    let board = match &setup {
        Some(s) => board_svg(&format!("board-{n}"), &row.fen, &s.board, None, &[]),
        None => no_board(),
    };
    let at = match &setup {
        Some(s) => html! { (move_before(half_moves(s))) " " small.ply { "ply " (row.ply) } },
        None => html! { "ply " (row.ply) },
    };
    example(
        &format!("ex-{n}"),
        "missed",
        &[("ply", row.ply.to_string())],
        html! {
            span.move { "drawn after " b { (at) } ", " (plural(u64::from(row.plies_after), "ply", "plies")) " played on" }
            (identity(&row.id))
            span.codes { (codes([row.rule.code()])) }
        },
        board,
        html! {
            @if let Some(basis) = row.basis { p.basis { "basis: " (codes([basis.code()])) } }
            p { code.fen { (wrapping(&row.fen, '/')) } }
        },
        false,
    )
}

fn error_example(n: usize, row: &ErrorRow) -> Markup {
    let setup = parse_fen(&row.fen);
    let board = match &setup {
        Some(s) => board_svg(&format!("board-{n}"), &row.fen, &s.board, None, &[]),
        None => html! {},
    };
    let mv = match (&setup, row.san.is_empty()) {
        (Some(s), false) => {
            html! { b { (move_name(s.fullmoves.get(), s.turn.is_white(), &row.san)) } " " small.ply { "ply " (row.ply) } }
        }
        (_, false) => html! { b { (shown(&row.san)) } " " small.ply { "ply " (row.ply) } },
        (_, true) => html! { "ply " (row.ply) },
    };
    example(
        &format!("ex-{n}"),
        "error",
        &[("ply", row.ply.to_string())],
        html! {
            span.move { (mv) }
            (identity(&row.id))
            span.codes { (codes([row.kind.code()])) }
        },
        board,
        html! {
            p.detail { (shown(&row.detail)) }
            @if !row.fen.is_empty() { p { code.fen { (wrapping(&row.fen, '/')) } } }
        },
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::board::parse_fen;

    /// Karpov–Miles: the claim after Black's 25th move... a missed draw's
    /// position named by the side and number of the move that led to it
    /// (its row names no move).
    #[test]
    fn moves_are_named_by_number() {
        // White to move at move 26: the last move was Black's 25th.
        let s = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 26").unwrap();
        assert_eq!(move_before(half_moves(&s)), "Black's 25th move");
        assert_eq!(move_before(half_moves(&s) - 1), "White's 25th move");
        assert_eq!(move_before(half_moves(&s) - 2), "Black's 24th move");
        let s = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 26").unwrap();
        assert_eq!(move_before(half_moves(&s)), "White's 26th move");
        let s = parse_fen("8/8/8/8/8/8/8/K6k b - - 0 1").unwrap();
        assert_eq!(move_before(half_moves(&s)), "White's 1st move");
        let s = parse_fen("8/8/8/8/8/8/8/K6k w - - 0 3").unwrap();
        assert_eq!(move_before(half_moves(&s)), "Black's 2nd move");
        assert_eq!(
            [3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(ordinal_in_figures),
            [
                "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th"
            ]
        );
        assert_eq!(move_name(26, true, "Nb5"), "26.Nb5");
        assert_eq!(plies_text(&[49]), "ply 49");
        assert_eq!(plies_text(&[45, 49]), "plies 45 and 49");
        assert_eq!(plies_text(&[41, 45, 49]), "plies 41, 45 and 49");
        assert_eq!(move_name(30, false, "O-O-O"), "30…O-O-O");
        // A FEN's counter at its limit.
        let s = parse_fen("8/8/8/8/8/8/8/K6k b - - 0 4294967295").unwrap();
        assert_eq!(move_before(half_moves(&s)), "White's 4294967295th move");
    }
}
