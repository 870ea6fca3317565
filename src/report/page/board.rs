//! The SVG boards: the pieces of a FEN's position on a checkered board
//! with its files and ranks, and for a castle the marks of its geometry
//! (paths, pieces in the way, attacked squares with arrows from their
//! attackers, pieces that had moved).

use maud::{Markup, html};
use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, CastlingSide, File, Piece, Role, Setup, Square};

use super::shown;
use crate::cells::VariantColumn;
use crate::rows::CastlingRow;
use pgn_audit_core::audit::geometry::{Castle, Geometry, castle_candidates, geometry};
use pgn_audit_core::audit::{CastlingReason, Reasons, Variant};

pub(super) fn parse_fen(fen: &str) -> Option<Setup> {
    Fen::from_ascii(fen.as_bytes()).ok().map(Fen::into_setup)
}

fn squares(bb: Bitboard) -> String {
    bb.into_iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `f1:c4 g1:b6 c3` — attacked squares with their attackers.
fn attacked_list(list: &[(Square, Bitboard)]) -> String {
    list.iter()
        .map(|(sq, by)| {
            format!(
                "{sq}:{}",
                by.into_iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Shared SVG definitions: the board pattern and the arrow heads (a
/// pattern and a marker are used by reference, styled where defined).
pub(super) fn defs() -> Markup {
    html! {
        svg.defs width="0" height="0" aria-hidden="true" {
            defs {
                pattern #chk width="2" height="2" patternUnits="userSpaceOnUse" {
                    rect width="2" height="2" fill="#eed9b6" {}
                    rect x="1" width="1" height="1" fill="#b98b62" {}
                    rect y="1" width="1" height="1" fill="#b98b62" {}
                }
                marker #ah-path viewBox="0 0 10 10" refX="6" refY="5" markerWidth="3" markerHeight="3" orient="auto" {
                    path d="M0 0L10 5L0 10z" fill="#1f5fd1" {}
                }
                marker #ah-rook viewBox="0 0 10 10" refX="6" refY="5" markerWidth="3" markerHeight="3" orient="auto" {
                    path d="M0 0L10 5L0 10z" fill="#0a8a7a" {}
                }
                marker #ah-attack viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" markerHeight="4" orient="auto" {
                    path d="M0 0L10 5L0 10z" fill="#d0191b" {}
                }
            }
        }
    }
}

/// The marks of a castle board: the geometry, and which pieces had moved
/// (`king_moved`, `rook_moved`, `king_displaced`, `rook_displaced`) or
/// which rook square lost its rook (`rook_captured`, standard chess).
pub(super) struct CastleMarks {
    geometry: Geometry,
    moved: Bitboard,
    captured: Option<Square>,
}

/// Of the castles a position allows, the one a row describes: the only
/// one, or where a Chess960 position leaves the rook open, the first whose
/// geometry breaks the rules as the row's `reasons` say.
fn row_castle(candidates: &[Castle], board: &Board, reasons: Reasons) -> Option<Castle> {
    let first = *candidates.first()?;
    if candidates.len() == 1 {
        return Some(first);
    }
    let castle = candidates.iter().copied().find(|c| {
        let breaks = geometry(board, *c).breaks();
        [
            CastlingReason::NoRook,
            CastlingReason::PathBlocked,
            CastlingReason::InCheck,
            CastlingReason::ThroughCheck,
            CastlingReason::IntoCheck,
        ]
        .iter()
        .all(|r| breaks.contains(*r) == reasons.contains(*r))
    });
    Some(castle.unwrap_or(first))
}

/// The castle of a row from its position: the geometry of the castle the
/// row describes (where a Chess960 position leaves the rook open, the
/// candidate whose facts are the row's).
pub(super) fn castle_marks(row: &CastlingRow, setup: &Setup) -> Option<CastleMarks> {
    let (color, side) = (row.side, row.castle);
    let chess960 = row.id.variant == VariantColumn::Known(Variant::Chess960);
    let candidates = castle_candidates(&setup.board, setup.castling_rights, color, side, chess960);
    let g = geometry(
        &setup.board,
        row_castle(&candidates, &setup.board, row.reasons)?,
    );
    let has = |r: CastlingReason| row.reasons.contains(r);
    let mut moved = Bitboard::EMPTY;
    if has(CastlingReason::KingMoved) || has(CastlingReason::KingDisplaced) {
        moved.add(g.king);
    }
    let captured = has(CastlingReason::RookCaptured);
    if let Some(r) = g.rook
        && ((has(CastlingReason::RookMoved) && !captured) || has(CastlingReason::RookDisplaced))
    {
        moved.add(r);
    }
    let captured = (captured && !chess960).then(|| {
        Square::from_coords(
            match side {
                CastlingSide::KingSide => File::H,
                CastlingSide::QueenSide => File::A,
            },
            color.backrank(),
        )
    });
    Some(CastleMarks {
        geometry: g,
        moved,
        captured,
    })
}

fn xy(sq: Square) -> (u32, u32) {
    (sq.file().to_u32(), 7 - sq.rank().to_u32())
}

fn glyph(role: Role) -> &'static str {
    // The filled glyphs for both colours (white ones are drawn filled white
    // with a black outline); U+FE0E asks for text, not emoji, presentation.
    match role {
        Role::King => "\u{265a}",
        Role::Queen => "\u{265b}",
        Role::Rook => "\u{265c}",
        Role::Bishop => "\u{265d}",
        Role::Knight => "\u{265e}",
        Role::Pawn => "\u{265f}\u{fe0e}",
    }
}

/// A square mark: a rect of `class` on `sq`.
fn square_mark(sq: Square, class: &str, attackers: Option<Bitboard>) -> Markup {
    let (x, y) = xy(sq);
    html! {
        rect class=(class) data-sq=(sq) data-attackers=[attackers.map(squares)]
            x=(x) y=(y) width="1" height="1" {}
    }
}

/// An arrow from `from` to `to`, shifted by `dy` of a square across its
/// direction (so that the king's path, the rook's and the attacks do not
/// lie on one another), its head short of the target's centre.
fn arrow(class: &str, from: Square, to: Square, shift: f64, marker: &str) -> Markup {
    let ((x1, y1), (x2, y2)) = (xy(from), xy(to));
    let (x1, y1, x2, y2) = (
        f64::from(x1) + 0.5,
        f64::from(y1) + 0.5,
        f64::from(x2) + 0.5,
        f64::from(y2) + 0.5,
    );
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
    // The normal, pointing up the board for a move along a rank.
    let (nx, ny) = (dy / len, -dx / len);
    let (nx, ny) = if ny > 0.0 || (ny == 0.0 && nx < 0.0) {
        (-nx, -ny)
    } else {
        (nx, ny)
    };
    let short = 0.3 / len;
    let f = |v: f64| format!("{v:.3}");
    html! {
        line class=(class) data-from=(from) data-to=(to)
            x1=(f(x1 + nx * shift)) y1=(f(y1 + ny * shift))
            x2=(f(x2 - dx * short + nx * shift)) y2=(f(y2 - dy * short + ny * shift))
            marker-end={ "url(#" (marker) ")" } {}
    }
}

/// An SVG board of `setup` with, for a castle, its marks; `extra` shades
/// squares blue (a claim's castling rights and en-passant square).
pub(super) fn board_svg(
    id: &str,
    fen: &str,
    board: &Board,
    marks: Option<&CastleMarks>,
    extra: &[(Square, &str)],
) -> Markup {
    let g = marks.map(|m| &m.geometry);
    html! {
        svg.board id=(id) data-fen=(shown(fen)) viewBox="-0.32 0 8.32 8.32" role="img"
            data-king=[g.map(|g| g.king)]
            data-king-to=[g.map(|g| g.king_to)]
            data-rook=[g.and_then(|g| g.rook)]
            data-rook-to=[g.filter(|g| g.rook.is_some() && g.on_back_rank).map(|g| g.rook_to)]
            data-king-path=[g.map(|g| squares(g.king_path))]
            data-rook-path=[g.map(|g| squares(g.rook_path))]
            data-blockers=[g.map(|g| squares(g.blocker_squares()))]
            data-checkers=[g.map(|g| squares(g.checkers))]
            data-through=[g.map(|g| attacked_list(&g.crossed_attacks))]
            data-into=[g.map(|g| squares(g.landing_attackers))]
        {
            rect width="8" height="8" fill="url(#chk)" {}
            @for (sq, class) in extra { (square_mark(*sq, class, None)) }
            @if let Some(m) = marks {
                @for sq in m.geometry.king_path { (square_mark(sq, "path", None)) }
                @for sq in m.geometry.rook_path.without(m.geometry.king_path) { (square_mark(sq, "rook-path", None)) }
                @for (sq, by) in m.geometry.attacked() { (square_mark(sq, "attacked", Some(by))) }
                @for sq in m.geometry.blocker_squares() { (square_mark(sq, "blocker", None)) }
                @for sq in m.moved { (square_mark(sq, "moved", None)) }
                @if let Some(sq) = m.captured { (square_mark(sq, "captured", None)) }
            }
            // The pieces go over the square marks, the arrows over the pieces.
            @for (sq, piece) in board.iter() { (piece_glyph(sq, piece)) }
            @if let Some(m) = marks {
                @let g = &m.geometry;
                @if g.on_back_rank && g.king != g.king_to {
                    (arrow("king-arrow", g.king, g.king_to, 0.22, "ah-path"))
                }
                @if let Some(r) = g.rook.filter(|r| g.on_back_rank && *r != g.rook_to) {
                    (arrow("rook-arrow", r, g.rook_to, -0.22, "ah-rook"))
                }
                @for (sq, by) in g.attacked() {
                    @for a in by { (arrow("attack", a, sq, 0.0, "ah-attack")) }
                }
                @for a in g.attacked().iter().fold(Bitboard::EMPTY, |acc, (_, by)| acc | *by) {
                    @let (x, y) = xy(a);
                    circle.attacker data-sq=(a) cx={ (x) ".5" } cy={ (y) ".5" } r=".44" {}
                }
            }
            (coords())
        }
    }
}

/// The files and ranks around a board, in its own text elements: a copy
/// placed with `<use>` is styled apart from the page, and would show the
/// labels at the browser's default size, many squares tall.
fn coords() -> Markup {
    html! {
        g.coords {
            @for i in 0..8u8 {
                text x="-.22" y={ (i) ".6" } { (8 - i) }
                text x={ (i) ".42" } y="8.27" { ((b'a' + i) as char) }
            }
        }
    }
}

fn piece_glyph(sq: Square, piece: Piece) -> Markup {
    let (x, y) = xy(sq);
    html! {
        text class={ "pc " (if piece.color.is_white() { "w" } else { "b" }) }
            data-sq=(sq) data-piece=(piece.char()) x={ (x) ".5" } y={ (y) ".8" } { (glyph(piece.role)) }
    }
}

pub(super) fn no_board() -> Markup {
    html! { p.muted { "(no board: the FEN cannot be read)" } }
}
