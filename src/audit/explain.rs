//! The sentences of the reports' `detail` columns, written from the facts
//! the rules find: a castle's [`Breach`]es and why it cannot be played, a
//! claim's [`Grounds`]. The rules say nothing in English; this module says
//! nothing about the rules, and names a game's moves (`26.Nb5`) in one
//! place, [`MoveNames`].
//!
//! It sits in the audit, not in the report writers: a sentence names the
//! game's moves as written, which only the audit holds, and it is written
//! only for the rows a game has, so the replay stays free of text.

use shakmaty::{CastlingSide, Chess, Color, Position, Role, Square, san::San};

use super::castling::{Breach, CastleJudgement, PieceAt, Unplayable};
use super::claims::{Difference, EnPassantDifference, Grounds, Since};
use super::repetition::right_bit;
use crate::pgn::Game;

/// Names the moves of a game the way a reader finds them, `14.Kf1` or
/// `14...Kf8`, counting from the start position's move number and side to
/// move (the number grows after each Black move).
#[derive(Debug, Clone, Copy)]
pub struct MoveNames<'g, 'a> {
    game: &'g Game<'a>,
    start_turn: Color,
    start_fullmoves: u32,
}

/// The longest move text a name shows, in bytes: a move written with its
/// `e.p.` apart may span any run of blanks.
const MOVE_TEXT_LIMIT: usize = 16;

impl<'g, 'a> MoveNames<'g, 'a> {
    /// The names of `game`'s moves, played from `start`.
    pub fn new(game: &'g Game<'a>, start: &Chess) -> Self {
        MoveNames {
            game,
            start_turn: start.turn(),
            start_fullmoves: start.fullmoves().get(),
        }
    }

    /// The move number and dots of the move that makes `ply` (≥ 1), `14.`
    /// or `14...`; the number saturates as shakmaty's does.
    fn number(&self, ply: u32) -> String {
        let before = ply.saturating_sub(1);
        let black_moves = if self.start_turn.is_white() {
            before / 2
        } else {
            before.div_ceil(2)
        };
        let number = self.start_fullmoves.saturating_add(black_moves);
        let white = self.start_turn.is_white() == before.is_multiple_of(2);
        let dots = if white { "." } else { "..." };
        format!("{number}{dots}")
    }

    /// The move that makes `ply` (≥ 1) as written, cut at
    /// [`MOVE_TEXT_LIMIT`] bytes: `22...Ra4`.
    pub fn mv(&self, ply: u32) -> String {
        let text = (ply as usize)
            .checked_sub(1)
            .and_then(|i| self.game.moves.get(i))
            .map_or("?", |t| self.game.move_text(t));
        let mut len = text.len().min(MOVE_TEXT_LIMIT);
        while !text.is_char_boundary(len) {
            len -= 1;
        }
        format!("{}{}", self.number(ply), &text[..len])
    }

    /// A move that is not in the game, `san`, played as ply `ply`:
    /// `26...Ra4`.
    fn announced(&self, ply: u32, san: San) -> String {
        format!("{}{san}", self.number(ply))
    }

    /// `the position after 22.Nb5`, or `the start position`.
    fn position(&self, ply: u32) -> String {
        if ply == 0 {
            "the start position".to_owned()
        } else {
            format!("the position after {}", self.mv(ply))
        }
    }

    /// `at the start, after 23...Ra8 and after 25...Ra8`.
    fn list(&self, plies: &[u32]) -> String {
        let items: Vec<String> = plies
            .iter()
            .map(|&p| {
                if p == 0 {
                    "at the start".to_owned()
                } else {
                    format!("after {}", self.mv(p))
                }
            })
            .collect();
        and_list(&items)
    }
}

pub(super) fn color_name(color: Color) -> &'static str {
    if color.is_white() { "White" } else { "Black" }
}

fn side_name(side: CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "kingside",
        CastlingSide::QueenSide => "queenside",
    }
}

/// A piece's name, for detail sentences.
pub(super) fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `the bishop on a6 and the rook on a8`.
fn pieces(pieces: &[PieceAt]) -> String {
    let names: Vec<String> = pieces
        .iter()
        .map(|p| format!("the {} on {}", role_name(p.role), p.square))
        .collect();
    and_list(&names)
}

/// `stands` for one piece, `stand` for more.
fn stand(pieces: &[PieceAt]) -> &'static str {
    if pieces.len() == 1 { "stands" } else { "stand" }
}

fn ordinal(n: usize) -> String {
    match n {
        1 => "first".to_owned(),
        2 => "second".to_owned(),
        3 => "third".to_owned(),
        4 => "fourth".to_owned(),
        5 => "fifth".to_owned(),
        n => format!("{n}th"),
    }
}

/// `Black's right to castle queenside`, `White's rights to castle kingside
/// and queenside`, ... for castling rights as bits per [`right_bit`].
fn rights_text(bits: u8) -> String {
    let mut parts = Vec::new();
    for color in Color::ALL {
        let sides: Vec<&str> = CastlingSide::ALL
            .into_iter()
            .filter(|&s| bits & right_bit(color, s) != 0)
            .map(side_name)
            .collect();
        match sides.as_slice() {
            [] => {}
            [one] => parts.push(format!("{}'s right to castle {one}", color_name(color))),
            _ => parts.push(format!(
                "{}'s rights to castle kingside and queenside",
                color_name(color)
            )),
        }
    }
    parts.join(" and ")
}

/// The detail of an illegal castle (castling.csv): one clause per breach
/// that the clauses before do not already tell, joined with `; `.
pub fn castle(judgement: &CastleJudgement, names: &MoveNames) -> String {
    let breaches = &judgement.breaches;
    let (color, side) = (judgement.color, judgement.side);
    let has = |wanted: fn(&Breach) -> bool| breaches.iter().any(wanted);
    let king_moved = has(|b| matches!(b, Breach::KingMoved { .. }));
    let rook_moved = has(|b| matches!(b, Breach::RookMoved { .. }));
    let king_on = breaches.iter().find_map(|b| match b {
        Breach::KingDisplaced { on, .. } => *on,
        _ => None,
    });
    let captured = breaches.iter().find_map(|b| match b {
        Breach::RookCaptured { by, on, .. } => Some((*by, *on)),
        _ => None,
    });
    let rook_name = |home: Option<Square>| {
        home.map_or_else(|| "the rook".to_owned(), |h| format!("the {h} rook"))
    };
    let mut clauses: Vec<String> = Vec::with_capacity(breaches.len());
    for breach in breaches {
        match breach {
            Breach::KingMoved { home, left, back } => {
                let mut clause = match home {
                    Some(home) if !left.castle => {
                        format!("the king left {home} with {}", names.mv(left.ply))
                    }
                    _ => format!("the king already castled with {}", names.mv(left.ply)),
                };
                if let Some(on) = king_on {
                    clause += &format!(" and stands on {on}");
                } else if let Some(back) = back {
                    clause += &format!(" and came back with {}", names.mv(back.ply));
                }
                clauses.push(clause);
            }
            Breach::RookMoved { home, left, back } => {
                let mut clause = match home {
                    Some(h) if !left.castle => {
                        format!("{} left {h} with {}", rook_name(*home), names.mv(left.ply))
                    }
                    _ => format!("{} castled with {}", rook_name(*home), names.mv(left.ply)),
                };
                if let Some((by, on)) = captured {
                    clause += &format!(" and was captured on {on} with {}", names.mv(by.ply));
                } else if let Some(back) = back {
                    clause += &format!(" and came back with {}", names.mv(back.ply));
                }
                clauses.push(clause);
            }
            Breach::RookCaptured { home, by, on } => {
                if !rook_moved {
                    clauses.push(format!(
                        "{} was captured on {on} with {}",
                        rook_name(*home),
                        names.mv(by.ply)
                    ));
                }
            }
            Breach::NoRightInFen { dropped: true } => clauses.push(format!(
                "the starting FEN's {} {} castling right is impossible there and was dropped",
                color_name(color),
                side_name(side)
            )),
            Breach::NoRightInFen { dropped: false } => clauses.push(format!(
                "the starting FEN gives {} no {} castling right",
                color_name(color),
                side_name(side)
            )),
            Breach::KingDisplaced { home, on } => match (on, home) {
                (None, _) => clauses.push(format!("{} has no king", color_name(color))),
                _ if king_moved => {}
                (Some(on), Some(home)) => {
                    clauses.push(format!("the king stands on {on}, not on {home}"));
                }
                (Some(on), None) => {
                    clauses.push(format!("the king stands on {on}, off its start square"));
                }
            },
            Breach::RookDisplaced { home, rook } => clauses.push(match home {
                Some(h) => format!("no rook stands on {h}, so the rook on {rook} castles"),
                None => format!("the rook on {rook} castles"),
            }),
            Breach::NoRook => clauses.push(no_rook(color, side)),
            Breach::PathBlocked(blockers) => clauses.push(format!(
                "{} {} in the way",
                pieces(blockers),
                stand(blockers)
            )),
            Breach::InCheck { king, checkers } => clauses.push(format!(
                "the king on {king} is in check from {}",
                pieces(checkers)
            )),
            Breach::ThroughCheck(crossed) => {
                let attacked: Vec<String> = crossed
                    .iter()
                    .map(|(sq, by)| format!("{sq} is attacked by {}", pieces(by)))
                    .collect();
                clauses.push(and_list(&attacked));
            }
            Breach::IntoCheck { to, attackers } => clauses.push(format!(
                "the king lands on {to}, attacked by {}",
                pieces(attackers)
            )),
        }
    }
    clauses.join("; ")
}

fn no_rook(color: Color, side: CastlingSide) -> String {
    format!(
        "{} has no rook on its back rank on the {} of the king",
        color_name(color),
        side_name(side)
    )
}

/// The detail of the error row of a castle that cannot be played
/// (errors.csv), by `color` towards `side`.
pub fn unplayable(why: &Unplayable, color: Color, side: CastlingSide) -> String {
    const CANNOT: &str = "the castle cannot be played";
    match why {
        Unplayable::NoKing => format!("{} has no king", color_name(color)),
        Unplayable::OffBackRank { king } => {
            format!("{CANNOT}: the king stands on {king}, off its back rank")
        }
        Unplayable::NoRook => format!("{CANNOT}: {}", no_rook(color, side)),
        Unplayable::LandingTaken(taken) => format!(
            "{CANNOT}: {} {} on a square where the king or the rook lands",
            pieces(taken),
            stand(taken)
        ),
    }
}

/// The detail of a claim (claims.csv) on `grounds`, in a game of `plies`
/// plies.
pub fn claim(grounds: &Grounds, plies: u32, names: &MoveNames) -> String {
    let here = || names.position(plies);
    match grounds {
        Grounds::Repeated { plies: stood } => format!(
            "{} stood for the {} time: {}",
            here(),
            ordinal(stood.len()),
            names.list(stood)
        ),
        Grounds::AnnouncedRepetition { announced, stood } => format!(
            "{} would make the third occurrence of the position that stood {}",
            names.announced(plies + 1, *announced),
            names.list(stood)
        ),
        Grounds::RepeatedIgnoringCastling { count, differences } => format!(
            "{} stood {count} times only when castling rights are ignored: {}",
            here(),
            self::differences(differences, names)
        ),
        Grounds::RepeatedIgnoringEnPassant { count, differences } => format!(
            "{} stood {count} times only when en-passant rights are ignored: {}",
            here(),
            self::differences(differences, names)
        ),
        Grounds::RepeatedWithOtherSideToMove {
            placement,
            same_side,
            turn,
        } => format!(
            "the pieces stood as in {} {} times ({}), but only {same_side} of them with {} to move",
            here(),
            placement.len(),
            names.list(placement),
            color_name(*turn)
        ),
        Grounds::NotRepeated { plies: stood } if stood.len() <= 1 => format!(
            "{} had not stood before, and no legal move from it makes any position's third occurrence",
            here()
        ),
        Grounds::NotRepeated { plies: stood } => format!(
            "{} stood only {} times ({}), and no legal move from it makes any position's third occurrence",
            here(),
            stood.len(),
            names.list(stood)
        ),
        Grounds::FiftyMoves { clock, since } => format!(
            "the halfmove clock stood at {clock}, at least 50 moves of each side without capture or pawn move; {}",
            since_text(*since, names)
        ),
        Grounds::AnnouncedFiftyMoves { clock, announced } => format!(
            "the halfmove clock stood at {clock}: {} would complete 50 moves of each side without capture or pawn move",
            names.announced(plies + 1, *announced)
        ),
        Grounds::FewerThanFiftyMoves { clock, since } => format!(
            "the halfmove clock stood at only {clock} of the 100 plies the rule needs; {}",
            since_text(*since, names)
        ),
    }
}

fn since_text(since: Since, names: &MoveNames) -> String {
    match since {
        Since::Fen => "the start position's FEN already counted some of them".to_owned(),
        Since::Start => "nothing was captured and no pawn moved since the start".to_owned(),
        Since::Zeroing(ply) => format!("the last capture or pawn move was {}", names.mv(ply)),
    }
}

/// `the first occurrence, after 12.Kf1, still had White's right to castle
/// kingside; ...`.
fn differences(differences: &[Difference], names: &MoveNames) -> String {
    let parts: Vec<String> = differences
        .iter()
        .map(|d| {
            let mut what = Vec::new();
            if d.extra_rights != 0 {
                what.push(format!("still had {}", rights_text(d.extra_rights)));
            }
            if d.lacking_rights != 0 {
                what.push(format!("lacked {}", rights_text(d.lacking_rights)));
            }
            match d.en_passant {
                Some(EnPassantDifference::Allowed { by, on }) => what.push(format!(
                    "allowed {}'s en-passant capture on {on}",
                    color_name(by)
                )),
                Some(EnPassantDifference::Missing { on }) => what.push(format!(
                    "did not allow the en-passant capture on {on} that the final position allows"
                )),
                None => {}
            }
            let at = if d.ply == 0 {
                "the start position".to_owned()
            } else {
                format!("after {}", names.mv(d.ply))
            };
            format!(
                "the {} occurrence, {at}, {}",
                ordinal(d.occurrence),
                what.join(" and ")
            )
        })
        .collect();
    parts.join("; ")
}

/// The detail of an illegal move (errors.csv): `san` by `color`, which has
/// no piece of the kind `missing`, if given.
pub fn illegal_move(color: Color, san: San, missing: Option<Role>) -> String {
    let side = color_name(color);
    match missing {
        Some(role) => format!("{side} has no {} to play {san}", role_name(role)),
        None => format!("{san} is not a legal move for {side} in this position"),
    }
}
