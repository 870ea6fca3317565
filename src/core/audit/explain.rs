//! The sentences of the reports' `detail` columns, written from the facts
//! the rules find: a castle's [`Breach`]es and why it cannot be played, a
//! claim's [`Grounds`], a result's [`Contradiction`], an illegal move. The
//! rules say nothing in English; this module says nothing about the rules,
//! and names a game's moves (`26.Nb5`) in one place, [`MoveNames`].
//!
//! It sits in the audit, not in the report writers: a sentence names the
//! game's moves as written, which only the audit holds, and it is written
//! only for the rows a game has, so the replay stays free of text.

use shakmaty::{CastlingSide, Chess, Color, Position, Role, Square, san::San};

use super::castling::{Breach, CastleJudgement, Event, PieceAt, Unplayable};
use super::claims::{Difference, EnPassantDifference, Grounds, Since};
use super::findings::{Basis, DrawRule, MoveName, claimed_position};
use super::repetition::right_bit;
use super::results::Contradiction;
use crate::pgn::Game;

/// Names the moves of a game the way a reader finds them, `14.Kf1` or
/// `14...Kf8`, counting from the start position's move number and side to
/// move (the number grows after each Black move).
#[derive(Debug, Clone, Copy)]
pub(super) struct MoveNames<'g, 'a> {
    game: &'g Game<'a>,
    start_turn: Color,
    start_fullmoves: u32,
}

/// The longest move text a name shows, in bytes: a move written with its
/// `e.p.` apart may span any run of blanks.
const MOVE_TEXT_LIMIT: usize = 16;

impl<'g, 'a> MoveNames<'g, 'a> {
    /// The names of `game`'s moves, played from `start`.
    pub(super) fn new(game: &'g Game<'a>, start: &Chess) -> Self {
        MoveNames {
            game,
            start_turn: start.turn(),
            start_fullmoves: start.fullmoves().get(),
        }
    }

    /// The move number of the move that makes `ply` (≥ 1), and whether
    /// White makes it; the number saturates as shakmaty's does.
    fn number(&self, ply: u32) -> (u32, bool) {
        let before = ply.saturating_sub(1);
        let black_moves = if self.start_turn.is_white() {
            before / 2
        } else {
            before.div_ceil(2)
        };
        let number = self.start_fullmoves.saturating_add(black_moves);
        let white = self.start_turn.is_white() == before.is_multiple_of(2);
        (number, white)
    }

    /// The move that makes `ply` (≥ 1) as written, cut at
    /// [`MOVE_TEXT_LIMIT`] bytes: `22...Ra4`.
    fn name(&self, ply: u32) -> MoveName<'a> {
        let text = (ply as usize)
            .checked_sub(1)
            .and_then(|i| self.game.moves.get(i))
            .map_or("?", |t| self.game.move_text(t));
        let mut len = text.len().min(MOVE_TEXT_LIMIT);
        while !text.is_char_boundary(len) {
            len -= 1;
        }
        let (number, white) = self.number(ply);
        MoveName {
            number,
            white,
            text: &text[..len],
        }
    }

    /// [`Self::name`] as text.
    fn mv(&self, ply: u32) -> String {
        self.name(ply).to_string()
    }

    /// A move that is not in the game, `san`, played as ply `ply`:
    /// `26...Ra4`.
    fn announced(&self, ply: u32, san: San) -> String {
        let (number, white) = self.number(ply);
        let text = san.to_string();
        MoveName {
            number,
            white,
            text: &text,
        }
        .to_string()
    }

    /// `the position after 22.Nb5`, or `the start position`: how a
    /// claim's detail begins ([`claimed_position`]).
    fn position(&self, ply: u32) -> String {
        claimed_position((ply > 0).then(|| self.name(ply)))
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

fn color_name(color: Color) -> &'static str {
    if color.is_white() { "White" } else { "Black" }
}

fn side_name(side: CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "kingside",
        CastlingSide::QueenSide => "queenside",
    }
}

/// A piece's name, for detail sentences.
fn role_name(role: Role) -> &'static str {
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

/// `first` to `fifth` in words, then in figures (`6th`, `21st`).
fn ordinal(n: usize) -> String {
    match n {
        1 => "first".to_owned(),
        2 => "second".to_owned(),
        3 => "third".to_owned(),
        4 => "fourth".to_owned(),
        5 => "fifth".to_owned(),
        n => ordinal_in_figures(n as u64),
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
pub(super) fn castle(judgement: &CastleJudgement, names: &MoveNames) -> String {
    let told = Told::of(judgement);
    let clauses: Vec<String> = judgement
        .breaches
        .iter()
        .filter_map(|breach| castle_clause(breach, &told, names))
        .collect();
    clauses.join("; ")
}

/// What a castle's other breaches tell, so that no clause tells it twice.
struct Told {
    color: Color,
    side: CastlingSide,
    /// The king moved: its clause tells where it stands.
    king_moved: bool,
    /// The rook moved: its clause tells its capture.
    rook_moved: bool,
    /// Where the displaced king stands.
    king_on: Option<Square>,
    /// The move that captured the rook, and where.
    captured: Option<(Event, Square)>,
}

impl Told {
    fn of(judgement: &CastleJudgement) -> Told {
        let breaches = &judgement.breaches;
        let has = |wanted: fn(&Breach) -> bool| breaches.iter().any(wanted);
        Told {
            color: judgement.color,
            side: judgement.side,
            king_moved: has(|b| matches!(b, Breach::KingMoved { .. })),
            rook_moved: has(|b| matches!(b, Breach::RookMoved { .. })),
            king_on: breaches.iter().find_map(|b| match b {
                Breach::KingDisplaced { on, .. } => *on,
                _ => None,
            }),
            captured: breaches.iter().find_map(|b| match b {
                Breach::RookCaptured { by, on, .. } => Some((*by, *on)),
                _ => None,
            }),
        }
    }
}

/// `the h1 rook`, or `the rook` where the side has no rook square.
fn rook_name(home: Option<Square>) -> String {
    home.map_or_else(|| "the rook".to_owned(), |h| format!("the {h} rook"))
}

/// The clause of one breach; `None` where another breach's clause tells it.
fn castle_clause(breach: &Breach, told: &Told, names: &MoveNames) -> Option<String> {
    let (color, side) = (told.color, told.side);
    Some(match breach {
        Breach::KingMoved { home, left, back } => {
            let stands = told.king_on.map(|on| format!(" and stands on {on}"));
            let then = stands.or_else(|| came_back(*back, names));
            moved("the king", "already castled", *home, *left, then, names)
        }
        Breach::RookMoved { home, left, back } => {
            let captured = told
                .captured
                .map(|(by, on)| format!(" and was captured on {on} with {}", names.mv(by.ply)));
            let then = captured.or_else(|| came_back(*back, names));
            moved(&rook_name(*home), "castled", *home, *left, then, names)
        }
        Breach::RookCaptured { .. } if told.rook_moved => return None,
        Breach::RookCaptured { home, by, on } => format!(
            "{} was captured on {on} with {}",
            rook_name(*home),
            names.mv(by.ply)
        ),
        Breach::NoRightInFen { dropped: true } => format!(
            "the starting FEN's {} {} castling right is impossible there and was dropped",
            color_name(color),
            side_name(side)
        ),
        Breach::NoRightInFen { dropped: false } => format!(
            "the starting FEN gives {} no {} castling right",
            color_name(color),
            side_name(side)
        ),
        Breach::KingDisplaced { home, on } => match (on, home) {
            (None, _) => format!("{} has no king", color_name(color)),
            _ if told.king_moved => return None,
            (Some(on), Some(home)) => format!("the king stands on {on}, not on {home}"),
            (Some(on), None) => format!("the king stands on {on}, off its start square"),
        },
        Breach::RookDisplaced { home, rook } => match home {
            Some(h) => format!("no rook stands on {h}, so the rook on {rook} castles"),
            None => format!("the rook on {rook} castles"),
        },
        Breach::NoRook => no_rook(color, side),
        Breach::PathBlocked(blockers) => {
            format!("{} {} in the way", pieces(blockers), stand(blockers))
        }
        Breach::InCheck { king, checkers } => {
            format!("the king on {king} is in check from {}", pieces(checkers))
        }
        Breach::ThroughCheck(crossed) => {
            let attacked: Vec<String> = crossed
                .iter()
                .map(|(sq, by)| format!("{sq} is attacked by {}", pieces(by)))
                .collect();
            and_list(&attacked)
        }
        Breach::IntoCheck { to, attackers } => {
            format!("the king lands on {to}, attacked by {}", pieces(attackers))
        }
    })
}

/// The clause of a king or rook that moved (3.8.2.1): `piece` left `home`
/// with the move `left` (or, where that was a castle, `castled` with it),
/// and `then` (where it stands now, its capture, the move that brought it
/// back).
fn moved(
    piece: &str,
    castled: &str,
    home: Option<Square>,
    left: Event,
    then: Option<String>,
    names: &MoveNames,
) -> String {
    let with = names.mv(left.ply);
    let clause = match home {
        Some(home) if !left.castle => format!("{piece} left {home} with {with}"),
        _ => format!("{piece} {castled} with {with}"),
    };
    clause + then.as_deref().unwrap_or("")
}

/// ` and came back with 14.Ke1`, where a move brought the piece back.
fn came_back(back: Option<Event>, names: &MoveNames) -> Option<String> {
    back.map(|back| format!(" and came back with {}", names.mv(back.ply)))
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
pub(super) fn unplayable(why: &Unplayable, color: Color, side: CastlingSide) -> String {
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
pub(super) fn claim(grounds: &Grounds, plies: u32, names: &MoveNames) -> String {
    let here = || names.position(plies);
    match grounds {
        Grounds::Repeated { plies: stood } => format!(
            "{} stood for the {} time: {}",
            here(),
            ordinal(stood.len()),
            names.list(stood)
        ),
        Grounds::AnnouncedRepetition { announced, stood } => format!(
            "{} allows {}, which would make the {} occurrence of the position that stood {}",
            here(),
            names.announced(plies + 1, *announced),
            ordinal(stood.len() + 1),
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
            "{} stood with these pieces {} times ({}), but only {same_side} of them with {} to move",
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
            "{} had a halfmove clock of {clock}, at least 50 moves of each side without capture or pawn move; {}",
            here(),
            since_text(*since, names)
        ),
        Grounds::AnnouncedFiftyMoves { clock, announced } => format!(
            "{} had a halfmove clock of {clock}: {} would complete 50 moves of each side without capture or pawn move",
            here(),
            names.announced(plies + 1, *announced)
        ),
        Grounds::FewerThanFiftyMoves { clock, since } => format!(
            "{} had a halfmove clock of only {clock} of the 100 plies the rule needs; {}",
            here(),
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
pub(super) fn illegal_move(color: Color, san: San, missing: Option<Role>) -> String {
    let side = color_name(color);
    match missing {
        Some(role) => format!("{side} has no {} to play {san}", role_name(role)),
        None => format!("{san} is not a legal move for {side} in this position"),
    }
}

/// The detail of a move that would take the king: only a castle played
/// into check leaves a king where the reply can take it.
pub(super) fn king_capture(color: Color, san: San) -> String {
    format!(
        "{san} would capture the {} king, left in check by the castle before it; a king is never captured (FIDE 1.4.1)",
        color_name(!color).to_lowercase()
    )
}

/// The detail of a results row (results.csv): how the result `recorded`
/// contradicts the final position or the Laws.
pub(super) fn result(contradiction: Contradiction, recorded: &str) -> String {
    // A result for a sentence.
    let shown = if recorded.is_empty() {
        "without a result"
    } else {
        recorded
    };
    match contradiction {
        Contradiction::Mismatch { tag, token } => {
            format!("the Result tag says {tag} but the movetext ends with {token}")
        }
        Contradiction::CheckmateNotScored { mated } => format!(
            "{} is checkmated, so {} won (FIDE 5.1.1), but the game is scored {shown}",
            color_name(mated),
            color_name(!mated)
        ),
        Contradiction::StalemateNotDrawn { stalemated } => format!(
            "{} is stalemated, so the game is drawn (FIDE 5.2.1), but it is scored {shown}",
            color_name(stalemated)
        ),
        Contradiction::DeadPositionNotDrawn {
            basis: Basis::InsufficientMaterial,
        } => format!(
            "neither side has the material to mate, so the position is dead and the game drawn (FIDE 5.2.2), but it is scored {recorded}"
        ),
        Contradiction::DeadPositionNotDrawn {
            basis: Basis::HelpmateAnalysis,
        } => format!(
            "no series of legal moves lets White or Black mate (helpmate analysis), so the position is dead and the game drawn (FIDE 5.2.2), but it is scored {recorded}"
        ),
        Contradiction::TimeoutWithoutMatingMaterial {
            winner,
            basis: Basis::InsufficientMaterial,
        } => format!(
            "{}'s flag fell, but {} cannot mate by any series of legal moves, so the game is drawn (FIDE 6.9), not {recorded}",
            color_name(!winner),
            color_name(winner)
        ),
        Contradiction::TimeoutWithoutMatingMaterial {
            winner,
            basis: Basis::HelpmateAnalysis,
        } => format!(
            "{}'s flag fell, but no series of legal moves lets {} mate (helpmate analysis), so the game is drawn (FIDE 6.9), not {recorded}",
            color_name(!winner),
            color_name(winner)
        ),
    }
}

/// The detail of a correction for a missed draw (corrections.csv, and
/// the comment `--fix` writes): the game drawn by `rule` (a dead position
/// shown by `basis`) after the move of `mover` (its side and move number),
/// or in the start position.
pub(super) fn missed_draw(
    rule: DrawRule,
    basis: Option<Basis>,
    mover: Option<(Color, u32)>,
) -> String {
    let when = match mover {
        Some((color, number)) => {
            format!(
                "after {}'s {} move",
                color_name(color),
                ordinal_in_figures(u64::from(number))
            )
        }
        None => "in the start position".to_owned(),
    };
    match (rule, basis) {
        (DrawRule::Fivefold, _) => {
            format!("the game was drawn by a fivefold repetition {when} (FIDE 9.6.1)")
        }
        (DrawRule::SeventyFiveMoves, _) => {
            format!("the game was drawn by the 75-move rule {when} (FIDE 9.6.2)")
        }
        (DrawRule::DeadPosition, Some(Basis::HelpmateAnalysis)) => format!(
            "the game was drawn by a dead position {when}, no series of legal moves letting \
             White or Black mate (helpmate analysis, FIDE 5.2.2)"
        ),
        (DrawRule::DeadPosition, _) => format!(
            "the game was drawn by a dead position {when}, neither side having the material to \
             mate (FIDE 5.2.2)"
        ),
    }
}

/// A number as an English ordinal in figures: `1st`, `2nd`, `3rd`, `4th`,
/// `11th`, `12th`, `13th`, `21st`, `112th`.
pub fn ordinal_in_figures(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::castling::{CastlePlay, Event};
    use crate::audit::findings::claimed_move;
    use shakmaty::{CastlingMode, Move, fen::Fen};

    fn game(text: &str) -> Game<'_> {
        Game::parse(text.as_bytes())
    }

    fn start(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn moved(ply: u32) -> Event {
        Event { ply, castle: false }
    }

    fn at(role: Role, square: Square) -> PieceAt {
        PieceAt { role, square }
    }

    const MOVES: &str = "[Event \"t\"]\n\n1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 *\n";

    #[test]
    fn moves_are_named_by_number_and_side_from_the_start() {
        let g = game(MOVES);
        let names = MoveNames::new(&g, &Chess::default());
        assert_eq!(names.mv(1), "1.e4");
        assert_eq!(names.mv(4), "2...Ke7");
        assert_eq!(names.mv(7), "4.Nf3");
        assert_eq!(names.mv(8), "4...?");
        assert_eq!(names.position(0), "the start position");
        assert_eq!(
            names.list(&[0, 3, 5]),
            "at the start, after 2.Ke2 and after 3.Ke1"
        );
        // From Black to move at move 26.
        let names = MoveNames::new(&g, &start("4k3/8/8/8/8/8/8/4K3 b - - 0 26"));
        assert_eq!(names.mv(1), "26...e4");
        assert_eq!(names.mv(2), "27.e5");
        assert_eq!(names.announced(8, "Kd8".parse().unwrap()), "30.Kd8");
    }

    /// A claim's detail begins with its position, named by the
    /// move that made it; the page reads the move back from there, as it
    /// was written.
    #[test]
    fn a_claims_detail_names_its_move_for_the_page() {
        let g = game(MOVES);
        let names = MoveNames::new(&g, &Chess::default());
        for ply in 1..=6 {
            let detail = claim(&Grounds::NotRepeated { plies: vec![ply] }, ply, &names);
            assert_eq!(claimed_move(&detail), Some(names.name(ply)), "{detail}");
        }
        let read = claimed_move("the position after 26.Nb5 stood").unwrap();
        assert_eq!((read.number, read.white, read.text), (26, true, "Nb5"));
        let read = claimed_move("the position after 25...Ra8 had").unwrap();
        assert_eq!((read.number, read.white, read.text), (25, false, "Ra8"));
        assert_eq!(read.to_string(), "25...Ra8");
        let detail = claim(&Grounds::NotRepeated { plies: vec![0] }, 0, &names);
        assert!(detail.starts_with("the start position "), "{detail}");
        assert_eq!(claimed_move(&detail), None);
        for other in [
            "",
            "Only 40 moves.",
            "the position after ",
            "the position after x.Nb5",
        ] {
            assert_eq!(claimed_move(other), None, "{other}");
        }
        // A move written with its e.p. apart: the part before the blank.
        let g = game("[Event \"t\"]\n\n1. exd6 e.p. *\n");
        let names = MoveNames::new(&g, &Chess::default());
        let detail = claim(&Grounds::NotRepeated { plies: vec![1] }, 1, &names);
        assert_eq!(claimed_move(&detail).map(|m| m.text), Some("exd6"));
    }

    #[test]
    fn move_numbers_saturate_as_shakmatys_and_texts_are_cut() {
        let g = game("[Event \"t\"]\n\n1. exd6          e.p. *\n");
        let names = MoveNames::new(&g, &start("4k3/8/8/8/8/8/8/4K3 w - - 0 4294967294"));
        assert_eq!(g.move_text(&g.moves[0]), "exd6          e.p.");
        assert_eq!(names.mv(1), "4294967294.exd6          e.");
        assert_eq!(names.announced(3, "Kd2".parse().unwrap()), "4294967295.Kd2");
        assert_eq!(names.announced(5, "Kd2".parse().unwrap()), "4294967295.Kd2");
    }

    fn judgement(breaches: Vec<Breach>) -> CastleJudgement {
        CastleJudgement {
            color: Color::White,
            side: CastlingSide::KingSide,
            breaches,
            play: CastlePlay::Played(Move::Castle {
                king: Square::E1,
                rook: Square::H1,
            }),
        }
    }

    #[test]
    fn castle_sentences_tell_each_breach_once() {
        let g = game(MOVES);
        let names = MoveNames::new(&g, &Chess::default());
        let detail = |breaches| castle(&judgement(breaches), &names);
        assert_eq!(
            detail(vec![Breach::KingMoved {
                home: Some(Square::E1),
                left: moved(3),
                back: Some(moved(5)),
            }]),
            "the king left e1 with 2.Ke2 and came back with 3.Ke1"
        );
        assert_eq!(
            detail(vec![
                Breach::KingMoved {
                    home: Some(Square::E1),
                    left: Event {
                        ply: 3,
                        castle: true
                    },
                    back: None,
                },
                Breach::KingDisplaced {
                    home: Some(Square::E1),
                    on: Some(Square::E2),
                },
            ]),
            "the king already castled with 2.Ke2 and stands on e2"
        );
        assert_eq!(
            detail(vec![
                Breach::RookMoved {
                    home: Some(Square::H1),
                    left: moved(7),
                    back: None,
                },
                Breach::RookCaptured {
                    home: Some(Square::H1),
                    by: moved(8),
                    on: Square::H3,
                },
                Breach::NoRook,
            ]),
            "the h1 rook left h1 with 4.Nf3 and was captured on h3 with 4...?; \
             White has no rook on its back rank on the kingside of the king"
        );
        assert_eq!(
            detail(vec![
                Breach::RookCaptured {
                    home: None,
                    by: moved(2),
                    on: Square::H1,
                },
                Breach::NoRightInFen { dropped: true },
            ]),
            "the rook was captured on h1 with 1...e5; the starting FEN's White kingside \
             castling right is impossible there and was dropped"
        );
        assert_eq!(
            detail(vec![
                Breach::NoRightInFen { dropped: false },
                Breach::KingDisplaced {
                    home: None,
                    on: Some(Square::D1),
                },
                Breach::RookDisplaced {
                    home: Some(Square::H1),
                    rook: Square::G1,
                },
            ]),
            "the starting FEN gives White no kingside castling right; the king stands on d1, \
             off its start square; no rook stands on h1, so the rook on g1 castles"
        );
        assert_eq!(
            detail(vec![
                Breach::PathBlocked(vec![
                    at(Role::Bishop, Square::F1),
                    at(Role::Knight, Square::G1)
                ]),
                Breach::InCheck {
                    king: Square::E1,
                    checkers: vec![at(Role::Queen, Square::E7)],
                },
                Breach::ThroughCheck(vec![
                    (Square::F1, vec![at(Role::Rook, Square::F8)]),
                    (
                        Square::G1,
                        vec![at(Role::Bishop, Square::C5), at(Role::Knight, Square::H3)]
                    ),
                ]),
                Breach::IntoCheck {
                    to: Square::G1,
                    attackers: vec![at(Role::Pawn, Square::H2)],
                },
            ]),
            "the bishop on f1 and the knight on g1 stand in the way; \
             the king on e1 is in check from the queen on e7; \
             f1 is attacked by the rook on f8 and g1 is attacked by the bishop on c5 \
             and the knight on h3; the king lands on g1, attacked by the pawn on h2"
        );
        assert_eq!(
            detail(vec![Breach::KingDisplaced {
                home: Some(Square::E1),
                on: None,
            }]),
            "White has no king"
        );
    }

    #[test]
    fn unplayable_castle_sentences() {
        let (white, black) = (Color::White, Color::Black);
        let queenside = CastlingSide::QueenSide;
        assert_eq!(
            unplayable(&Unplayable::NoKing, black, queenside),
            "Black has no king"
        );
        assert_eq!(
            unplayable(
                &Unplayable::OffBackRank { king: Square::E2 },
                white,
                queenside
            ),
            "the castle cannot be played: the king stands on e2, off its back rank"
        );
        assert_eq!(
            unplayable(&Unplayable::NoRook, black, queenside),
            "the castle cannot be played: Black has no rook on its back rank on the queenside of the king"
        );
        assert_eq!(
            unplayable(
                &Unplayable::LandingTaken(vec![at(Role::Knight, Square::C1)]),
                white,
                queenside
            ),
            "the castle cannot be played: the knight on c1 stands on a square where the king or the rook lands"
        );
    }

    #[test]
    fn claim_sentences() {
        let g = game(MOVES);
        let names = MoveNames::new(&g, &Chess::default());
        let detail = |grounds: Grounds| claim(&grounds, 6, &names);
        assert_eq!(
            detail(Grounds::Repeated {
                plies: vec![0, 4, 6]
            }),
            "the position after 3...Ke8 stood for the third time: at the start, after 2...Ke7 and after 3...Ke8"
        );
        assert_eq!(
            detail(Grounds::AnnouncedRepetition {
                announced: "Nf3".parse().unwrap(),
                stood: vec![1, 5],
            }),
            "the position after 3...Ke8 allows 4.Nf3, which would make the third occurrence of the \
             position that stood after 1.e4 and after 3.Ke1"
        );
        assert_eq!(
            detail(Grounds::RepeatedIgnoringCastling {
                count: 3,
                differences: vec![
                    Difference {
                        occurrence: 1,
                        ply: 0,
                        extra_rights: 0b1111,
                        lacking_rights: 0,
                        en_passant: None,
                    },
                    Difference {
                        occurrence: 2,
                        ply: 2,
                        extra_rights: right_bit(Color::Black, CastlingSide::QueenSide),
                        lacking_rights: right_bit(Color::White, CastlingSide::KingSide),
                        en_passant: Some(EnPassantDifference::Allowed {
                            by: Color::White,
                            on: Square::D6,
                        }),
                    },
                ],
            }),
            "the position after 3...Ke8 stood 3 times only when castling rights are ignored: \
             the first occurrence, the start position, still had White's rights to castle kingside \
             and queenside and Black's rights to castle kingside and queenside; the second \
             occurrence, after 1...e5, still had Black's right to castle queenside and lacked \
             White's right to castle kingside and allowed White's en-passant capture on d6"
        );
        assert_eq!(
            detail(Grounds::RepeatedIgnoringEnPassant {
                count: 3,
                differences: vec![Difference {
                    occurrence: 3,
                    ply: 4,
                    extra_rights: 0,
                    lacking_rights: 0,
                    en_passant: Some(EnPassantDifference::Missing { on: Square::E3 }),
                }],
            }),
            "the position after 3...Ke8 stood 3 times only when en-passant rights are ignored: \
             the third occurrence, after 2...Ke7, did not allow the en-passant capture on e3 that \
             the final position allows"
        );
        assert_eq!(
            detail(Grounds::RepeatedWithOtherSideToMove {
                placement: vec![1, 4, 6],
                same_side: 2,
                turn: Color::White,
            }),
            "the position after 3...Ke8 stood with these pieces 3 times (after 1.e4, after 2...Ke7 \
             and after 3...Ke8), but only 2 of them with White to move"
        );
        assert_eq!(
            detail(Grounds::NotRepeated { plies: vec![6] }),
            "the position after 3...Ke8 had not stood before, and no legal move from it makes any \
             position's third occurrence"
        );
        assert_eq!(
            detail(Grounds::NotRepeated { plies: vec![2, 6] }),
            "the position after 3...Ke8 stood only 2 times (after 1...e5 and after 3...Ke8), and no \
             legal move from it makes any position's third occurrence"
        );
        assert_eq!(
            detail(Grounds::FiftyMoves {
                clock: 100,
                since: Since::Zeroing(2)
            }),
            "the position after 3...Ke8 had a halfmove clock of 100, at least 50 moves of each side \
             without capture or pawn move; the last capture or pawn move was 1...e5"
        );
        assert_eq!(
            detail(Grounds::AnnouncedFiftyMoves {
                clock: 99,
                announced: "Kd1".parse().unwrap(),
            }),
            "the position after 3...Ke8 had a halfmove clock of 99: 4.Kd1 would complete 50 moves \
             of each side without capture or pawn move"
        );
        assert_eq!(
            detail(Grounds::FewerThanFiftyMoves {
                clock: 12,
                since: Since::Fen
            }),
            "the position after 3...Ke8 had a halfmove clock of only 12 of the 100 plies the rule \
             needs; the start position's FEN already counted some of them"
        );
        assert_eq!(
            claim(
                &Grounds::FewerThanFiftyMoves {
                    clock: 0,
                    since: Since::Start
                },
                0,
                &names
            ),
            "the start position had a halfmove clock of only 0 of the 100 plies the rule needs; \
             nothing was captured and no pawn moved since the start"
        );
    }

    #[test]
    fn illegal_move_sentences() {
        let san: San = "Nf3".parse().unwrap();
        assert_eq!(
            illegal_move(Color::Black, san, Some(Role::Knight)),
            "Black has no knight to play Nf3"
        );
        assert_eq!(
            illegal_move(Color::White, san, None),
            "Nf3 is not a legal move for White in this position"
        );
    }

    #[test]
    fn result_sentences() {
        assert_eq!(
            result(
                Contradiction::Mismatch {
                    tag: "1-0",
                    token: "0-1"
                },
                "1-0"
            ),
            "the Result tag says 1-0 but the movetext ends with 0-1"
        );
        assert_eq!(
            result(
                Contradiction::CheckmateNotScored {
                    mated: Color::White
                },
                ""
            ),
            "White is checkmated, so Black won (FIDE 5.1.1), but the game is scored without a result"
        );
        assert_eq!(
            result(
                Contradiction::StalemateNotDrawn {
                    stalemated: Color::Black
                },
                "1-0"
            ),
            "Black is stalemated, so the game is drawn (FIDE 5.2.1), but it is scored 1-0"
        );
        assert_eq!(
            result(
                Contradiction::DeadPositionNotDrawn {
                    basis: Basis::InsufficientMaterial
                },
                "0-1"
            ),
            "neither side has the material to mate, so the position is dead and the game drawn \
             (FIDE 5.2.2), but it is scored 0-1"
        );
        assert_eq!(
            result(
                Contradiction::DeadPositionNotDrawn {
                    basis: Basis::HelpmateAnalysis
                },
                "1-0"
            ),
            "no series of legal moves lets White or Black mate (helpmate analysis), so the \
             position is dead and the game drawn (FIDE 5.2.2), but it is scored 1-0"
        );
        assert_eq!(
            result(
                Contradiction::TimeoutWithoutMatingMaterial {
                    winner: Color::Black,
                    basis: Basis::HelpmateAnalysis
                },
                "0-1"
            ),
            "White's flag fell, but no series of legal moves lets Black mate (helpmate \
             analysis), so the game is drawn (FIDE 6.9), not 0-1"
        );
        assert_eq!(
            result(
                Contradiction::TimeoutWithoutMatingMaterial {
                    winner: Color::White,
                    basis: Basis::InsufficientMaterial
                },
                "1-0"
            ),
            "Black's flag fell, but White cannot mate by any series of legal moves, so the game \
             is drawn (FIDE 6.9), not 1-0"
        );
    }
}
