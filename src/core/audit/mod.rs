//! The audit of one game: replay it from its start position as it was really
//! played, judge every castle, watch for automatic draws, and audit the draw
//! claim at its end. Pure: bytes in, [`GameReport`] out.

pub mod castling;
mod claims;
mod explain;
mod fastsan;
mod findings;
pub mod fix;
pub mod geometry;
pub mod helpmate;
mod repetition;
mod results;
pub mod start;

pub use explain::ordinal_in_figures;
pub use findings::*;

use shakmaty::{
    CastlingMode, CastlingSide, Chess, EnPassantMode, Move, Position, Role, Square,
    san::{San, SanError, SanPlus, Suffix},
    zobrist::Zobrist64,
};

use crate::pgn::{Game, Mended, MoveToken, PieceLetters, TagQuirk, TagQuirkKind};
use castling::{CastlePlay, CastlingHistory};
use explain::MoveNames;
use helpmate::{Analyst, Deadness};
use repetition::{Repetitions, strict_key};

/// Audits one game. Never panics on any input (see `audit_game_caught`).
/// (v3) A game whose movetext stops at a move written with a foreign
/// piece letter (`Sf3`) is audited as read in that language's set, where
/// that reading names exactly one legal move with every move.
pub fn audit_game(game: &Game) -> GameReport {
    let report = audit_traced(game, None);
    foreign_reading(game, &report).unwrap_or(report)
}

/// (v3) The audit of a game whose movetext stops at a token with a piece
/// letter of a foreign set only (`S`, `L`, `D`, `T`, `C`, `F`, `A`, `P`),
/// as the piece that moves (`Sf3`) or the piece a pawn promotes to
/// (`e8=D`), or whose English reading stops at an illegal move of a
/// rook that French and Spanish read as the king (`R`: roi, rey), read
/// again in each set that letter belongs to (German, French, Spanish,
/// Dutch, in that order): the first reading in which every piece letter
/// is of the set and every move names exactly one legal move, if any.
/// Out of line: few games are written so.
#[cold]
#[inline(never)]
fn foreign_reading(game: &Game, english: &GameReport) -> Option<GameReport> {
    if game.letters != PieceLetters::English {
        return None;
    }
    // An English `R` is a rook: read as a king only where that makes every
    // move legal, not where it would make an illegal castle (`Rg1`).
    let (letter, strict) = match english.error.as_ref() {
        Some(e) if e.kind == ErrorKind::IllegalMove && e.san.starts_with('R') => (b'R', true),
        _ => (
            foreign_letter(game.syntax_error.as_ref()?.token.as_bytes())?,
            false,
        ),
    };
    PieceLetters::FOREIGN
        .into_iter()
        .filter(|letters| letters.has(letter))
        .find_map(|letters| {
            let report = audit_traced(&game.read_in(letters), None);
            let read = match report.error.as_ref() {
                None => !strict || report.castling.is_empty(),
                Some(e) => !strict && e.kind == ErrorKind::UnplayableCastle,
            };
            read.then_some(report)
        })
}

/// The piece letter of a token that SAN's letters cannot read, where it
/// names a piece in a foreign set only: the letter it starts with, or
/// (a pawn's move) the letter of its promotion piece, after `=` or
/// straight after the last rank.
fn foreign_letter(token: &[u8]) -> Option<u8> {
    let letter = match *token.first()? {
        first if first.is_ascii_uppercase() => first,
        _ => token
            .windows(2)
            .find(|w| matches!(w[0], b'=' | b'1' | b'8') && w[1].is_ascii_uppercase())?[1],
    };
    (!PieceLetters::English.has(letter)).then_some(letter)
}

/// How often the position after each ply (from ply 0, the start position)
/// has stood under FIDE identity (9.2.3), as the audit counts it. For the
/// cross-check against python-chess (`tests/crosscheck`).
#[doc(hidden)]
pub fn repetition_counts(game: &Game) -> Vec<u32> {
    let mut counts = Vec::new();
    audit_traced(game, Some(&mut counts));
    counts
}

// Long: the replay's state (position, key, en passant, history,
// repetitions, pending check mark) lives across the move loop, the hottest
// code; split into a Replay struct with named steps it measured 147.26 M
// instructions against 145.22 M (+1.4 %, callgrind on the sample ×5), so
// it stays one function.
fn audit_traced(game: &Game, mut trace: Option<&mut Vec<u32>>) -> GameReport {
    let mut report = GameReport::default();
    report.quirks.extend(game.tags.quirks.iter().map(tag_quirk));
    let start = match start::start_position(&game.tags) {
        Ok(s) => s,
        Err((kind, detail)) => {
            report.variant = start::tagged_variant(&game.tags);
            report.error = Some(GameError {
                ply: 0,
                san: String::new(),
                kind,
                detail,
                fen: String::new(),
            });
            report.results = results::unreplayed(game)
                .into_iter()
                .map(|(mut row, contradiction)| {
                    row.detail = explain::result(contradiction, &row.recorded);
                    row
                })
                .collect();
            report.notation_quirks = quirk_count(&report.quirks);
            return report;
        }
    };

    report.variant = start.variant;
    // Each impossible castling right of the FEN, dropped, is a quirk, in
    // the order the FEN wrote them.
    report
        .quirks
        .extend(start.dropped_rights.iter().map(|&letter| NotationQuirk {
            ply: 0,
            codes: QuirkCode::ImpossibleCastlingRight.into(),
            written: Written::CastlingRight(letter),
            standard: None,
        }));
    // (v3) So is an impossible en-passant square, dropped.
    if let Some(square) = start.dropped_ep {
        report.quirks.push(NotationQuirk {
            ply: 0,
            codes: QuirkCode::ImpossibleEnPassantSquare.into(),
            written: Written::EnPassantSquare(square),
            standard: None,
        });
    }
    let mode = start.mode;
    let mut pos = start.position.clone();
    let mut history = CastlingHistory::new(&start);
    // Names the moves in the sentences of rows, made only for them.
    let names = || MoveNames::new(game, &start.position);
    // The strict repetition key of `pos`, updated move by move where
    // shakmaty can (most moves), recomputed where it cannot.
    let mut key = if start.from_fen {
        strict_key(&pos)
    } else {
        repetition::initial_key()
    };
    let mut reps = Repetitions::new(&pos, key);
    // The square of the legal en-passant capture in `pos`, kept with the
    // key: only a double pawn step makes one.
    let mut ep = repetition::legal_ep(&pos);
    let mut draws = DrawWatch::default();
    draws.observe(&pos, 0, 1);
    if let Some(t) = trace.as_deref_mut() {
        t.push(1);
    }

    // The `+`/`#` written after a check whose mate test is put off: a legal
    // next move proves there was no mate, so the costly test (every legal
    // move generated) runs only when no legal move follows (after the last
    // move, once the loop ends).
    let mut unsettled: Option<Suffix> = None;
    // Whether `pos` is in check: wanted for the `+`/`#` test after a move
    // and again to resolve the next one.
    let mut in_check = pos.is_check();
    for (i, tok) in game.moves.iter().enumerate() {
        #[allow(
            clippy::cast_possible_truncation,
            reason = "a move takes at least two of a game's at most u32::MAX bytes"
        )]
        let ply = i as u32 + 1;
        // The move as written, needed only for rows.
        let text = || game.move_text(tok);
        // Every failure below leaves `pos` as it stood before this move.
        let fail = |pos: &Chess, kind: ErrorKind, detail: String| GameError {
            ply,
            san: text().to_owned(),
            kind,
            detail,
            fen: fen_of(pos),
        };
        let mut zeroing = false;
        // A castle, or a move whose form departs from SAN: how (not
        // counting its check mark), and the move in SAN. Its quirk is
        // judged out of line.
        let mut sloppy: Option<(Quirks, San)> = None;
        let resolved = resolve(&pos, tok, mode, in_check);
        if let Some(written) = unsettled.take() {
            let mate = !matches!(resolved, Resolved::Move(..)) && pos.is_checkmate();
            let actual = if mate {
                Suffix::Checkmate
            } else {
                Suffix::Check
            };
            if written != actual {
                let previous = &game.moves[i - 1];
                report
                    .quirks
                    .push(check_mark_quirk(ply - 1, previous, Some(actual)));
            }
        }
        match resolved {
            Resolved::Move(m, form) => {
                if form || !tok.mended.is_empty() {
                    sloppy = Some(form_quirks(&pos, tok, m));
                }
                history.record_move(&pos, m, ply);
                zeroing = m.is_zeroing();
                // Where shakmaty cannot update the key, what it takes of
                // the position before the move, to update it here.
                let next = pos
                    .update_zobrist_hash(Zobrist64(key), m, EnPassantMode::Legal)
                    .map(|z| z.0)
                    .ok_or_else(|| repetition::KeyBefore::of(&pos, ep));
                pos.play_unchecked(m);
                // Where shakmaty updates the key the move is no double
                // pawn step: no en passant follows.
                (key, ep) = match next {
                    Ok(next) => (next, None),
                    Err(before) => repetition::next_key(&before, key, m, &pos),
                };
                debug_assert_eq!(key, strict_key(&pos));
            }
            Resolved::Castle(side) => {
                // Most castles are legal: judged without a row.
                let played = match castling::legal_castle(&pos, &history, side) {
                    Some(m) => Some(m),
                    None => {
                        illegal_castle(&pos, &history, side, ply, text(), &names(), &mut report)
                    }
                };
                let Some(m) = played else {
                    break;
                };
                history.record_castle(&pos, m, ply);
                let before = repetition::KeyBefore::of(&pos, ep);
                pos.play_unchecked(m);
                (key, ep) = repetition::next_key(&before, key, m, &pos);
                debug_assert_eq!(key, strict_key(&pos));
                sloppy = Some((castle_form_quirks(tok), San::Castle(side)));
            }
            Resolved::Error(kind, detail) => {
                report.error = Some(fail(&pos, kind, detail));
                break;
            }
        }
        in_check = pos.is_check();
        if let Some((codes, san)) = sloppy {
            report
                .quirks
                .extend(sloppy_quirk(ply, tok, san, codes, &pos, in_check));
        } else {
            match (tok.suffix, in_check) {
                (None, false) => {}
                (Some(_), false) => report.quirks.push(check_mark_quirk(ply, tok, None)),
                (None, true) => {
                    let actual = Some(check_or_mate(&pos));
                    report.quirks.push(check_mark_quirk(ply, tok, actual));
                }
                (Some(written), true) => unsettled = Some(written),
            }
        }
        report.plies = ply;
        let count = reps.push_keyed(&pos, ply, zeroing, key, ep);
        draws.observe(&pos, ply, count);
        if let Some(t) = trace.as_deref_mut() {
            t.push(count);
        }
    }

    // The check mark of the last move, where it gave check and no move
    // followed: mate or check, worked out once for the mark and the result.
    let mut mate_known = None;
    if let Some(written) = unsettled.take() {
        let actual = check_or_mate(&pos);
        mate_known = Some(actual == Suffix::Checkmate);
        if written != actual {
            let last = report.plies;
            let tok = &game.moves[last as usize - 1];
            report
                .quirks
                .push(check_mark_quirk(last, tok, Some(actual)));
        }
    }
    if report.error.is_none()
        && let Some(err) = &game.syntax_error
    {
        report.error = Some(GameError {
            ply: report.plies + 1,
            san: err.token.clone(),
            kind: ErrorKind::ParseError,
            detail: err.detail.clone(),
            fen: fen_of(&pos),
        });
    }
    // 5.2.2 and 6.9: the final position analysed for the side that won,
    // then, where it cannot mate, for the other; the game's earlier
    // positions only where the final one is dead (see `first_dead`).
    let mut analyst = Analyst::default();
    let mated = in_check && mate_known.unwrap_or_else(|| pos.is_checkmate());
    let verdicts = results::FinalVerdicts::of(game, &pos, mated, &mut analyst);
    draws.dead = first_dead(game, &start, &pos, report.plies, &verdicts, &mut analyst)
        .unwrap_or_else(|| {
            report.undecided.push(Undecided::DeadPosition);
            None
        });
    analyst.stop();
    report.missed_draws = draws.rows(report.plies);
    let replayed = report.error.is_none().then_some((&pos, in_check));
    let move_names = names();
    report.results = results::audit_results(
        game,
        replayed,
        report.plies,
        &verdicts,
        &mut report.undecided,
    )
    .into_iter()
    .map(|(mut row, contradiction)| {
        row.detail = explain::result(contradiction, &row.recorded);
        row
    })
    .collect();
    report.analysis_nanos = u64::try_from(analyst.spent().as_nanos()).unwrap_or(u64::MAX);
    if report.error.is_none() {
        let recorded = results::recorded(game);
        report.claims = claims::audit_claims(game, recorded, &pos, &reps, report.plies)
            .into_iter()
            .map(|claims::JudgedClaim { mut row, grounds }| {
                row.detail = explain::claim(&grounds, row.ply, &move_names);
                row
            })
            .collect();
    }
    if !game.glyphs.is_empty() {
        glyph_quirks(game, &mut report);
    }
    report.notation_quirks = quirk_count(&report.quirks);
    report
}

/// (v3) Each evaluation glyph standing alone after a move that was
/// replayed (or before the first) is a quirk at the ply it annotates,
/// after that ply's other quirks.
#[cold]
#[inline(never)]
fn glyph_quirks(game: &Game, report: &mut GameReport) {
    let replayed = game.glyphs.iter().filter(|g| g.after_moves <= report.plies);
    report.quirks.extend(replayed.map(|g| NotationQuirk {
        ply: g.after_moves,
        codes: QuirkCode::AnnotationGlyph.into(),
        written: Written::Text(g.start, g.end),
        standard: None,
    }));
    report.quirks.sort_by_key(|q| q.ply);
}

/// How many quirks a game has, for its `notation_quirks`.
#[allow(
    clippy::cast_possible_truncation,
    reason = "each quirk is a move, a tag line or a FEN right, each of its own bytes, and a game is at most u32::MAX bytes"
)]
fn quirk_count(quirks: &[NotationQuirk]) -> u32 {
    quirks.len() as u32
}

/// Judges the castle towards `side` by the side to move in `pos`, written
/// `san` as ply `ply`, that breaks a rule of FIDE 3.8.2: its castling row,
/// and the castle as it is played; `None`, with the error row, where it
/// cannot be played. Out of line: few castles are illegal.
#[cold]
#[inline(never)]
fn illegal_castle(
    pos: &Chess,
    history: &CastlingHistory,
    side: CastlingSide,
    ply: u32,
    san: &str,
    names: &MoveNames,
    report: &mut GameReport,
) -> Option<Move> {
    let judgement = castling::judge_castle(pos, history, side);
    if !judgement.breaches.is_empty() {
        report.castling.push(CastlingViolation {
            ply,
            move_number: pos.fullmoves().get(),
            side: pos.turn(),
            san: san.to_owned(),
            castle: side,
            reasons: judgement.reasons(),
            detail: explain::castle(&judgement, names),
            fen: fen_of(pos),
        });
    }
    match judgement.play {
        CastlePlay::Played(m) => Some(m),
        CastlePlay::Unplayable(why) => {
            report.error = Some(GameError {
                ply,
                san: san.to_owned(),
                kind: ErrorKind::UnplayableCastle,
                detail: explain::unplayable(&why, pos.turn(), side),
                fen: fen_of(pos),
            });
            None
        }
    }
}

/// A tag line read with a mending, or skipped: a quirk at ply 0.
fn tag_quirk(q: &TagQuirk) -> NotationQuirk {
    let code = match q.kind {
        TagQuirkKind::UnescapedQuotes => QuirkCode::UnescapedTagQuotes,
        TagQuirkKind::Unreadable => QuirkCode::UnreadableTagLine,
    };
    NotationQuirk {
        ply: 0,
        codes: code.into(),
        written: Written::Text(q.start, q.end),
        standard: None,
    }
}

/// Remembers the first automatic draw of each kind (FIDE 9.6, and 5.2.2
/// for a position that insufficient material makes dead).
#[derive(Default)]
struct DrawWatch {
    fivefold: Option<(u32, String)>,
    seventy_five: Option<(u32, String)>,
    dead: Option<(u32, String, Basis)>,
}

impl DrawWatch {
    /// `count` is how often the position after `ply` has stood (FIDE 9.2.3).
    /// Inlined into the replay loop for its common answer, nothing to note.
    #[inline]
    fn observe(&mut self, pos: &Chess, ply: u32, count: u32) {
        if count >= 5 || pos.halfmoves() >= 150 {
            self.observe_rare(pos, ply, count);
        }
    }

    #[cold]
    #[inline(never)]
    fn observe_rare(&mut self, pos: &Chess, ply: u32, count: u32) {
        if self.fivefold.is_none() && count >= 5 {
            self.fivefold = Some((ply, fen_of(pos)));
        }
        // 9.6.2: 75 moves of each side without capture or pawn move, unless
        // the last of them mates.
        if self.seventy_five.is_none() && pos.halfmoves() >= 150 && !pos.is_checkmate() {
            self.seventy_five = Some((ply, fen_of(pos)));
        }
    }

    fn rows(&self, plies: u32) -> Vec<MissedDraw> {
        let repeated = [
            (DrawRule::Fivefold, &self.fivefold),
            (DrawRule::SeventyFiveMoves, &self.seventy_five),
        ]
        .into_iter()
        .filter_map(|(rule, seen)| seen.as_ref().map(|(ply, fen)| (rule, *ply, fen, None)));
        let dead = self
            .dead
            .as_ref()
            .map(|(ply, fen, basis)| (DrawRule::DeadPosition, *ply, fen, Some(*basis)));
        let mut rows: Vec<MissedDraw> = repeated
            .chain(dead)
            .filter(|&(_, ply, _, _)| plies > ply)
            .map(|(rule, ply, fen, basis)| MissedDraw {
                rule,
                ply,
                plies_after: plies - ply,
                fen: fen.clone(),
                basis,
            })
            .collect();
        rows.sort_by_key(|r| r.ply);
        rows
    }
}

/// The first dead position of the game (5.2.2), its ply, FEN and basis;
/// `Some(None)` where there is none, `None` where the analysis could not
/// decide which position is the first.
///
/// Every position reachable from a dead one is dead (a mate after it would
/// be a mate from it), so the dead positions of a game are the last ones:
/// where the last position replayed is not proven dead, no earlier one is
/// dead either, and no earlier position is analysed. That is the filter,
/// and it skips no dead position the analysis can prove: the cost falls on
/// the rare game that ends dead. There, the game is replayed again and the
/// first dead position found by a logarithmic number of analyses: back
/// from the end 1, 2, 4, 8, … plies until a position is not dead, then by
/// halving the plies between the last one found alive and the first found
/// dead ([`FirstDead`]). Where the last position is dead by the helpmate
/// analysis, the full search is asked wherever the fast check fails
/// (`thorough`). A final position without a legal move (mate or
/// stalemate) is over by 5.1.1 or 5.2.1, not dead; before a stalemate the
/// search goes on back. Any position the analysis leaves undecided on the
/// way leaves the first one undecided.
#[cold]
#[inline(never)]
fn first_dead(
    game: &Game,
    start: &start::Start,
    last: &Chess,
    plies: u32,
    verdicts: &results::FinalVerdicts,
    analyst: &mut Analyst,
) -> Option<Option<(u32, String, Basis)>> {
    let stalemate = match verdicts.dead {
        Deadness::Alive => return Some(None),
        Deadness::Undecided => return None,
        Deadness::Dead(_) if verdicts.over => {
            if last.is_check() {
                return Some(None);
            }
            true
        }
        Deadness::Dead(_) => false,
    };
    let positions = replay(game, start, plies);
    let side = verdicts.first;
    let mut search = FirstDead {
        plies,
        alive: None,
        dead: match verdicts.dead {
            Deadness::Dead(basis) if !stalemate => Some((plies, basis)),
            _ => None,
        },
    };
    // A locked structure's earlier positions are searched in full; before
    // a last capture that left too little material (most games that end
    // dead), the filter stands: a helpmate there is dear to find.
    analyst.thorough = matches!(verdicts.dead, Deadness::Dead(Basis::HelpmateAnalysis));
    let mut undecided = false;
    while let Some(ply) = search.next_probe() {
        match analyst.deadness(&positions[ply as usize], side, None) {
            Deadness::Dead(basis) => search.dead = Some((ply, basis)),
            Deadness::Alive => search.alive = Some(ply),
            Deadness::Undecided => {
                undecided = true;
                break;
            }
        }
    }
    analyst.thorough = false;
    if undecided {
        return None;
    }
    Some(search.dead.map(|(ply, basis)| {
        let pos = &positions[ply as usize];
        (ply, fen_of(pos), basis)
    }))
}

/// The search for a game's first dead position among plies `0..plies`
/// (the last position, `plies`, is known dead or over): the lowest ply
/// found dead so far (with its basis) and the highest found alive.
struct FirstDead {
    plies: u32,
    alive: Option<u32>,
    dead: Option<(u32, Basis)>,
}

impl FirstDead {
    /// The next ply to analyse, `None` once the first dead one is known:
    /// back from the end by twice the last step until a ply is found
    /// alive (or ply 0 dead), then halfway between the two.
    fn next_probe(&self) -> Option<u32> {
        let above = self.dead.map_or(self.plies, |(ply, _)| ply);
        match self.alive {
            Some(alive) => (above - alive > 1).then(|| alive + (above - alive) / 2),
            None if above == 0 => None,
            None => Some(self.plies.saturating_sub((2 * (self.plies - above)).max(1))),
        }
    }
}

/// The FEN of the position after the first `plies` plies of `game`, read
/// in English or, where that reading stops short of them, in the first
/// foreign set that reaches them (as the audit read it); `None` where no
/// reading does. For the row of a game whose text was cut after them.
pub fn fen_after(game: &Game, plies: u32) -> Option<String> {
    let start = start::start_position(&game.tags).ok()?;
    let reached = |g: &Game| {
        let positions = replay(g, &start, plies);
        (positions.len() == plies as usize + 1).then(|| positions.last().map(fen_of))?
    };
    reached(game).or_else(|| {
        PieceLetters::FOREIGN
            .into_iter()
            .find_map(|letters| reached(&game.read_in(letters)))
    })
}

/// The positions of the game from its start, after each of its first
/// `plies` plies (all of them legal: the replay reached them), for the
/// search of its first dead position.
fn replay(game: &Game, start: &start::Start, plies: u32) -> Vec<Chess> {
    let mut pos = start.position.clone();
    let mut history = CastlingHistory::new(start);
    let mut positions = Vec::with_capacity(plies as usize + 1);
    positions.push(pos.clone());
    for (i, tok) in game.moves.iter().take(plies as usize).enumerate() {
        #[allow(
            clippy::cast_possible_truncation,
            reason = "at most `plies` moves, a u32"
        )]
        let ply = i as u32 + 1;
        // The common move found by the fast path, as in the audit's replay;
        // whether its notation was sloppy does not matter here.
        let in_check = pos.is_check();
        let resolved = match fastsan::common_move(&pos, tok.san, in_check) {
            Some(m) => Resolved::Move(m, false),
            None => resolve_rare(&pos, tok.san, start.mode, in_check),
        };
        let m = match resolved {
            Resolved::Move(m, _) => {
                history.record_move(&pos, m, ply);
                m
            }
            Resolved::Castle(side) => {
                let played = castling::legal_castle(&pos, &history, side).or_else(|| {
                    match castling::judge_castle(&pos, &history, side).play {
                        CastlePlay::Played(m) => Some(m),
                        CastlePlay::Unplayable(_) => None,
                    }
                });
                let Some(m) = played else { break };
                history.record_castle(&pos, m, ply);
                m
            }
            Resolved::Error(..) => break,
        };
        pos.play_unchecked(m);
        positions.push(pos.clone());
    }
    positions
}

/// The quirks of a move's form that the reader mended.
fn mended_quirks(mended: Mended) -> Quirks {
    let mut codes = Quirks::default();
    for (form, code) in [
        (Mended::CASTLING_WITH_ZEROS, QuirkCode::CastlingWithZeros),
        (Mended::LOWERCASE_CASTLING, QuirkCode::LowercaseCastling),
        (
            Mended::PROMOTION_WITHOUT_EQUALS,
            QuirkCode::PromotionWithoutEquals,
        ),
        (Mended::EN_PASSANT_SUFFIX, QuirkCode::EnPassantSuffix),
        (Mended::DOUBLE_CHECK_MARK, QuirkCode::DoubleCheckMark),
        (
            Mended::FOREIGN_PIECE_LETTERS,
            QuirkCode::ForeignPieceLetters,
        ),
    ] {
        if mended.contains(form) {
            codes.insert(code);
        }
    }
    codes
}

/// Whether a SAN was read from coordinate notation: a pawn move written
/// with both the file and the rank it comes from and no `x` (`g1f3`,
/// `e2e4`, `d7d8R`), which SAN never writes.
fn is_coordinate(san: San) -> bool {
    matches!(
        san,
        San::Normal {
            role: Role::Pawn,
            file: Some(_),
            rank: Some(_),
            capture: false,
            ..
        }
    )
}

/// How the form of `tok`, which names the legal move `m` in `pos`,
/// departs from SAN (PGN standard 8.2.3), and the move in SAN. Out of
/// line: only for moves read with a mending or sloppy.
#[cold]
#[inline(never)]
fn form_quirks(pos: &Chess, tok: &MoveToken, m: Move) -> (Quirks, San) {
    let standard = San::from_move(pos, m);
    let mut codes = mended_quirks(tok.mended);
    if is_coordinate(tok.san) {
        // Coordinates name the squares: no `=`, `x` or choice of file.
        codes.remove(QuirkCode::PromotionWithoutEquals);
        codes.insert(QuirkCode::CoordinateNotation);
        return (codes, standard);
    }
    if let (
        San::Normal {
            role,
            file,
            rank,
            capture,
            ..
        },
        San::Normal {
            file: san_file,
            rank: san_rank,
            capture: san_capture,
            ..
        },
    ) = (tok.san, standard)
    {
        match (capture, san_capture) {
            (false, true) => codes.insert(QuirkCode::MissingCaptureMark),
            (true, false) => codes.insert(QuirkCode::ExtraCaptureMark),
            _ => {}
        }
        if role == Role::Pawn {
            // A pawn capture names its file; a push (`exe4` aside, whose
            // file came with its wrong `x`) and every rank are needless.
            if san_capture && file.is_none() {
                codes.insert(QuirkCode::PawnCaptureWithoutFile);
            }
            if rank.is_some() || (!san_capture && !capture && file.is_some()) {
                codes.insert(QuirkCode::NeedlessDisambiguation);
            }
        } else if (file, rank) != (san_file, san_rank) {
            codes.insert(QuirkCode::NeedlessDisambiguation);
        }
    }
    debug_assert!(!codes.is_empty(), "{:?} for {m:?}", tok.san);
    (codes, standard)
}

/// How a castle's form departs from `O-O`: zeros, a lowercase o, or
/// coordinates (`e1g1`); a king move (`Kg1`) is a castle written as one.
fn castle_form_quirks(tok: &MoveToken) -> Quirks {
    let mut codes = mended_quirks(tok.mended);
    if is_coordinate(tok.san) {
        codes.insert(QuirkCode::CoordinateNotation);
    }
    codes
}

/// The check mark quirk of a move written with `written` where it deserves
/// `actual` (FIDE: a check is a move that attacks the king; PGN standard
/// 8.2.3.7 writes `+` after a check and `#` after a mate), if any.
fn check_mark(written: Option<Suffix>, actual: Option<Suffix>) -> Option<QuirkCode> {
    match (written, actual) {
        (None, Some(_)) => Some(QuirkCode::MissingCheckMark),
        (Some(w), a) if Some(w) != a => Some(QuirkCode::WrongCheckMark),
        _ => None,
    }
}

/// The quirk of a move whose form is SAN (not a castle) and whose check
/// mark is wrong or missing: it deserves `actual`.
#[cold]
#[inline(never)]
fn check_mark_quirk(ply: u32, tok: &MoveToken, actual: Option<Suffix>) -> NotationQuirk {
    NotationQuirk {
        ply,
        codes: check_mark(tok.suffix, actual).map_or_else(Quirks::default, Quirks::from),
        written: Written::Text(tok.start, tok.end),
        standard: Some(SanPlus {
            san: tok.san,
            suffix: actual,
        }),
    }
}

/// The quirk, if any, of a castle or of a move whose form departs from SAN
/// (`codes`), played into `pos`: its check mark is judged too. `san` is
/// the move in SAN; `in_check` whether `pos` is in check.
#[cold]
#[inline(never)]
fn sloppy_quirk(
    ply: u32,
    tok: &MoveToken,
    san: San,
    codes: Quirks,
    pos: &Chess,
    in_check: bool,
) -> Option<NotationQuirk> {
    let actual = in_check.then(|| check_or_mate(pos));
    let mut codes = codes;
    if let Some(code) = check_mark(tok.suffix, actual) {
        codes.insert(code);
    }
    (!codes.is_empty()).then_some(NotationQuirk {
        ply,
        codes,
        written: Written::Text(tok.start, tok.end),
        standard: Some(SanPlus {
            san,
            suffix: actual,
        }),
    })
}

/// The move that a token in coordinate notation names (`g1f3`, `e7e8q`,
/// as UCI and old programs write): the piece of the side to move on the
/// first square, to the second, promoted as written. A king two files
/// from its start square, or onto its own rook (`e1h1`, as UCI writes a
/// Chess960 castle), is a castle, as `Kg1` is. `None` where `san` is no
/// pair of squares or names no legal move.
fn coordinate_move(pos: &Chess, san: San, mode: CastlingMode) -> Option<Resolved> {
    if !is_coordinate(san) {
        return None;
    }
    let San::Normal {
        file: Some(file),
        rank: Some(rank),
        to,
        promotion,
        ..
    } = san
    else {
        return None;
    };
    let from = Square::from_coords(file, rank);
    let board = pos.board();
    if board.king_of(pos.turn()) == Some(from) && promotion.is_none() {
        let onto_rook = (board.rooks() & pos.us()).contains(to);
        let to = if onto_rook && mode == CastlingMode::Standard {
            // The king's square of that castle in standard chess.
            let side = CastlingSide::from_king_side(to.file() > from.file());
            Square::from_coords(side.king_to_file(), to.rank())
        } else {
            to
        };
        let king_move = San::Normal {
            role: Role::King,
            file: None,
            rank: None,
            capture: false,
            to,
            promotion: None,
        };
        if let Some(side) = castling::castle_intent(pos, king_move, mode) {
            return Some(Resolved::Castle(side));
        }
    }
    pos.legal_moves()
        .into_iter()
        .find(|m| {
            !m.is_castle() && m.from() == Some(from) && m.to() == to && m.promotion() == promotion
        })
        .map(|m| Resolved::Move(m, true))
}

/// The suffix a move that gives check deserves: mate or check. Out of
/// line: asked only where a check mark is missing, or after the last move.
#[cold]
#[inline(never)]
fn check_or_mate(pos: &Chess) -> Suffix {
    if pos.is_checkmate() {
        Suffix::Checkmate
    } else {
        Suffix::Check
    }
}

enum Resolved {
    /// A legal non-castling move; `true` when its notation was sloppy.
    Move(Move, bool),
    /// A castle, legal or not, to be judged.
    Castle(shakmaty::CastlingSide),
    Error(ErrorKind, String),
}

/// Finds the move a SAN token means. Castles (`O-O`, or a king move that
/// can only be castling) are handed to the castling judge unresolved.
/// The common case, a legal piece or pawn move that the fast path finds, is
/// decided here; everything else in [`resolve_rare`].
#[inline(always)]
fn resolve(pos: &Chess, tok: &MoveToken, mode: CastlingMode, in_check: bool) -> Resolved {
    match fastsan::common_move(pos, tok.san, in_check) {
        Some(m) => Resolved::Move(m, needless_detail(pos, tok.san, m, in_check)),
        None => resolve_rare(pos, tok.san, mode, in_check),
    }
}

/// [`resolve`] for a castle, a null move or drop, a move the common path
/// does not find (a capture of the king among them), and an illegal or
/// ambiguous SAN.
#[cold]
#[inline(never)]
fn resolve_rare(pos: &Chess, san: San, mode: CastlingMode, in_check: bool) -> Resolved {
    match resolve_unusual(pos, san, mode, in_check) {
        // A king is never captured (FIDE 1.4.1): only the reply to a castle
        // played into check can name such a move.
        Resolved::Move(m, _) if m.capture() == Some(Role::King) => Resolved::Error(
            ErrorKind::IllegalMove,
            explain::king_capture(pos.turn(), san),
        ),
        resolved => resolved,
    }
}

/// [`resolve_rare`], a move that takes the king included.
fn resolve_unusual(pos: &Chess, san: San, mode: CastlingMode, in_check: bool) -> Resolved {
    match san {
        San::Castle(side) => return Resolved::Castle(side),
        San::Null => {
            return Resolved::Error(
                ErrorKind::IllegalMove,
                "a null move is not a move under the Laws of Chess".to_owned(),
            );
        }
        San::Put { .. } => {
            return Resolved::Error(
                ErrorKind::IllegalMove,
                "a piece drop is not a move in standard chess or Chess960".to_owned(),
            );
        }
        San::Normal { .. } => {}
    }
    match san.to_move(pos) {
        Ok(m) => Resolved::Move(m, needless_detail(pos, san, m, in_check)),
        Err(SanError::AmbiguousSan) => Resolved::Error(
            ErrorKind::AmbiguousMove,
            format!("more than one legal move matches {san}"),
        ),
        Err(SanError::IllegalSan) => sloppy_or_illegal(pos, san, mode),
    }
}

/// A SAN that names no legal move as written: a king move written as a
/// castle, a move in coordinates, a move with a missing or extra `x`, or
/// else an illegal move.
fn sloppy_or_illegal(pos: &Chess, san: San, mode: CastlingMode) -> Resolved {
    if let Some(side) = castling::castle_intent(pos, san, mode) {
        return Resolved::Castle(side);
    }
    if let Some(resolved) = coordinate_move(pos, san, mode) {
        return resolved;
    }
    if let Some(resolved) = flipped_capture_mark(pos, san) {
        return resolved;
    }
    Resolved::Error(ErrorKind::IllegalMove, illegal_detail(pos, san))
}

/// The move a SAN names with its capture mark flipped: a missing or extra
/// `x` still names one move; but a pawn push (`e6`) is not read as a
/// capture (`dxe6`): that needs the file it comes from (`de6`).
fn flipped_capture_mark(pos: &Chess, san: San) -> Option<Resolved> {
    let San::Normal {
        role,
        file,
        rank,
        capture,
        to,
        promotion,
    } = san
    else {
        return None;
    };
    if role == Role::Pawn && !capture && file.is_none_or(|f| f == to.file()) {
        return None;
    }
    let flipped = San::Normal {
        role,
        file,
        rank,
        capture: !capture,
        to,
        promotion,
    };
    match flipped.to_move(pos) {
        Ok(m) => Some(Resolved::Move(m, true)),
        Err(SanError::AmbiguousSan) => Some(Resolved::Error(
            ErrorKind::AmbiguousMove,
            format!("more than one legal move matches {flipped}"),
        )),
        Err(SanError::IllegalSan) => None,
    }
}

/// Whether the SAN names its move with more than it needs (`Ng1f3`),
/// or with less than SAN asks: a pawn capture without the file it comes
/// from (`xd5`). SAN (PGN standard 8.2.3) gives a pawn capture the file it
/// comes from, a pawn push no square of departure, and a piece move only
/// the file, rank or square that tells it from another legal move (see
/// [`fastsan::disambiguation`]). `m` is the legal move `san` names, so the
/// rest of the SAN (role, capture, square) is already the move's own.
#[inline(always)]
fn needless_detail(pos: &Chess, san: San, m: Move, in_check: bool) -> bool {
    let San::Normal {
        role,
        file,
        rank,
        capture,
        ..
    } = san
    else {
        return false;
    };
    if role == Role::Pawn {
        return rank.is_some() || file.is_some() != capture;
    }
    (file.is_some() || rank.is_some()) && !is_plain_san(pos, san, m, in_check)
}

/// Whether `san` is the SAN shakmaty writes for `m`, a piece move written
/// with a file or rank: whether that file and rank are just what tells
/// `m` from another legal move. Out of line: few moves are written so.
#[inline(never)]
fn is_plain_san(pos: &Chess, san: San, m: Move, in_check: bool) -> bool {
    let (San::Normal { file, rank, .. }, Move::Normal { role, from, to, .. }) = (san, m) else {
        return San::from_move(pos, m) == san;
    };
    match fastsan::disambiguation(pos, role, from, to, in_check) {
        Some(needed) => needed == (file, rank),
        None => San::from_move(pos, m) == san,
    }
}

/// Why `san` is no legal move in `pos`: the side to move has no piece of
/// its kind, or none that can play it.
fn illegal_detail(pos: &Chess, san: San) -> String {
    let missing = match san {
        San::Normal { role, .. } if pos.board().by_role(role).intersect(pos.us()).is_empty() => {
            Some(role)
        }
        _ => None,
    };
    explain::illegal_move(pos.turn(), san, missing)
}

/// Audits one game, turning a panic in the audit into an error row so that
/// one bad game never ends the run.
pub fn audit_game_caught(game: &Game) -> GameReport {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| audit_game(game))) {
        Ok(r) => r,
        Err(_) => GameReport {
            error: Some(GameError {
                ply: 0,
                san: String::new(),
                kind: ErrorKind::ParseError,
                detail: "internal error: the audit of this game panicked".to_owned(),
                fen: String::new(),
            }),
            ..GameReport::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quirks_and_error(movetext: &str) -> (u32, Option<(u32, ErrorKind)>) {
        let pgn = format!("[Event \"t\"]\n\n{movetext}\n");
        let game = Game::parse(pgn.as_bytes());
        let r = audit_game(&game);
        (r.notation_quirks, r.error.map(|e| (e.ply, e.kind)))
    }

    #[test]
    fn check_and_mate_suffixes_settled_by_the_next_move() {
        // Check written as mate, then a legal reply: one quirk.
        assert_eq!(quirks_and_error("1. e4 f5 2. Qh5# g6 *"), (1, None));
        assert_eq!(quirks_and_error("1. e4 f5 2. Qh5+ g6 *"), (0, None));
        // Mate written as check, at the end or followed by a move.
        assert_eq!(quirks_and_error("1. f3 e5 2. g4 Qh4+ 0-1"), (1, None));
        assert_eq!(
            quirks_and_error("1. f3 e5 2. g4 Qh4+ 3. a3 *"),
            (1, Some((5, ErrorKind::IllegalMove)))
        );
        assert_eq!(
            quirks_and_error("1. f3 e5 2. g4 Qh4# 3. a3 *"),
            (0, Some((5, ErrorKind::IllegalMove)))
        );
        // Check written as mate, then an illegal move: still one quirk.
        assert_eq!(
            quirks_and_error("1. e4 f5 2. Qh5# Ke7 *"),
            (1, Some((4, ErrorKind::IllegalMove)))
        );
        // Check written as mate, or mate as check, as the last move: the
        // quirk is at its ply, with the mark it deserved.
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let mark = |ply, codes: &str, san: &str| vec![(ply, codes.to_owned(), san.to_owned())];
        assert_eq!(
            quirk_rows(start, "1. e4 f5 2. Qh5# *"),
            mark(3, "wrong_check_mark", "Qh5+")
        );
        assert_eq!(
            quirk_rows(start, "1. f3 e5 2. g4 Qh4+ 0-1"),
            mark(4, "wrong_check_mark", "Qh4#")
        );
        // A missing suffix, and a suffix on a quiet move.
        assert_eq!(quirks_and_error("1. e4 f5 2. Qh5 g6 *"), (1, None));
        assert_eq!(quirks_and_error("1. e4+ e5 *"), (1, None));
    }

    /// The quirks of a game from `fen`, as (ply, codes, move in SAN).
    fn quirk_rows(fen: &str, movetext: &str) -> Vec<(u32, String, String)> {
        let pgn = format!("[FEN \"{fen}\"]\n\n{movetext}\n");
        let game = Game::parse(pgn.as_bytes());
        let r = audit_game(&game);
        assert_eq!(r.error, None);
        assert_eq!(r.notation_quirks as usize, r.quirks.len());
        r.quirks
            .iter()
            .map(|q| {
                let san = q.standard.map(|s| s.to_string()).unwrap_or_default();
                (q.ply, q.codes.codes(), san)
            })
            .collect()
    }

    #[test]
    fn castles_have_check_marks_too() {
        let fen = "5k2/8/8/8/8/8/8/4K2R w K - 0 1";
        let missing = |ply| vec![(ply, "missing_check_mark".to_owned(), "O-O+".to_owned())];
        assert_eq!(quirk_rows(fen, "1. O-O Ke8 *"), missing(1));
        assert_eq!(quirk_rows(fen, "1. Kg1 Ke8 *"), missing(1));
        assert_eq!(quirk_rows(fen, "1. O-O+ Ke8 *"), []);
        assert_eq!(
            quirk_rows(fen, "1. 0-0 Ke8 *"),
            [(
                1,
                "castling_with_zeros;missing_check_mark".to_owned(),
                "O-O+".to_owned()
            )]
        );
        assert_eq!(
            quirk_rows(fen, "1. e1g1+ Ke8 2. Rf8+ *"),
            [(1, "coordinate_notation".to_owned(), "O-O+".to_owned())]
        );
        let quiet = "6k1/8/8/8/8/8/8/4K2R w K - 0 1";
        assert_eq!(
            quirk_rows(quiet, "1. O-O# Kh7 *"),
            [(1, "wrong_check_mark".to_owned(), "O-O".to_owned())]
        );
    }
}
