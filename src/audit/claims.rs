//! Draw claims (FIDE 9.2 and 9.3): where a game claims a draw, and whether
//! the claim holds.
//!
//! A claim is read from the Termination tag, from a comment after the last
//! move, or implied by a drawn game whose final position looks repeated. The
//! verdicts follow the report contract's tables, the first that applies; the
//! `false_*` threefold verdicts look at the final position only.

use std::cell::OnceCell;

use shakmaty::{CastlingSide, Chess, Color, Move, Position, san::San};

use super::findings::{ClaimAudit, ClaimKind, ClaimSource, ClaimVerdict};
use super::repetition::{Entry, Identity, Repetitions, right_bit};
use crate::pgn::{Game, decode_text};

/// Words and phrases (lowercase) that claim a threefold repetition, as
/// whole words.
const THREEFOLD_WORDS: &[&str] = &[
    "repetition",
    "threefold",
    "three-fold",
    "3-fold",
    "3fold",
    "repeated position",
    // German; `wiederholung` also ends a compound (see [`COMPOUND_END`]).
    "wiederholung",
    "dreimalig",
    // French
    "répétition",
    "triple répétition",
    // Spanish
    "repetición",
    "repeticion",
];

/// The one claim word that also counts as the end of a compound
/// (`Stellungswiederholung`, `Zugwiederholung`).
const COMPOUND_END: &str = "wiederholung";

/// Words and phrases (lowercase) that claim the fifty-move rule, as whole
/// words.
const FIFTY_WORDS: &[&str] = &[
    "fifty-move",
    "fifty move",
    "50-move",
    "50 move",
    "fifty moves",
    "50 moves",
    // German
    "50-züge",
    "50 züge",
    "fünfzig züge",
    // French
    "50 coups",
    "cinquante coups",
    // Spanish
    "50 movimientos",
    "cincuenta movimientos",
    "50 jugadas",
    "cincuenta jugadas",
];

/// Every claim word in one automaton: a pattern's index below
/// `THREEFOLD_WORDS.len()` claims threefold, the rest fifty moves.
static CLAIM_WORDS: std::sync::LazyLock<aho_corasick::AhoCorasick> =
    std::sync::LazyLock::new(|| {
        aho_corasick::AhoCorasick::new(THREEFOLD_WORDS.iter().chain(FIFTY_WORDS))
            .expect("the claim words make an automaton")
    });

/// The ASCII bytes claim words are made of (lowercase), one bit each.
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789 -";

/// The bit of bytes that are not ASCII.
const NOT_ASCII: u64 = 1 << 63;

/// The bit of an ASCII byte, lowercased, in [`ALPHABET`]; none for a byte
/// that is not in it.
const fn alphabet_bit(byte: u8) -> u64 {
    let lower = byte.to_ascii_lowercase();
    let mut i = 0;
    while i < ALPHABET.len() {
        if ALPHABET[i] == lower {
            return 1 << i;
        }
        i += 1;
    }
    0
}

/// Every byte's bit: [`alphabet_bit`], or [`NOT_ASCII`].
const BYTE_BITS: [u64; 256] = {
    let mut bits = [0; 256];
    let mut b = 0;
    while b < 256 {
        bits[b] = if b < 128 {
            alphabet_bit(b as u8)
        } else {
            NOT_ASCII
        };
        b += 1;
    }
    bits
};

/// The bits of the bytes an ASCII text needs to contain `word`: every
/// byte of it. A word that is not ASCII needs every bit, so no text is
/// ever rejected on its account.
const fn bytes_needed(word: &str) -> u64 {
    let bytes = word.as_bytes();
    let mut needed = 0;
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii() {
            return u64::MAX;
        }
        let bit = alphabet_bit(bytes[i]);
        assert!(bit != 0, "a claim word has a byte missing from ALPHABET");
        needed |= bit;
        i += 1;
    }
    needed
}

/// [`bytes_needed`] of every claim word, threefold words first.
const WORD_BYTES: [u64; THREEFOLD_WORDS.len() + FIFTY_WORDS.len()] = {
    let mut all = [0; THREEFOLD_WORDS.len() + FIFTY_WORDS.len()];
    let mut i = 0;
    while i < THREEFOLD_WORDS.len() {
        all[i] = bytes_needed(THREEFOLD_WORDS[i]);
        i += 1;
    }
    while i < all.len() {
        all[i] = bytes_needed(FIFTY_WORDS[i - THREEFOLD_WORDS.len()]);
        i += 1;
    }
    all
};

/// Whether `text` surely contains no claim word: it is ASCII and, for
/// every word, lacks some byte of it. Most texts are clock comments
/// (`[%clk 0:03:00]`) and Termination tags such as `Normal`, which this
/// settles without lowercasing or searching them.
fn surely_no_claim_word(text: &[u8]) -> bool {
    let present = text
        .iter()
        .fold(0, |present, &b| present | BYTE_BITS[usize::from(b)]);
    present & NOT_ASCII == 0 && WORD_BYTES.iter().all(|&needed| needed & !present != 0)
}

/// Which claims a text makes: (threefold, fifty moves). A word counts
/// only whole, case-insensitive, with any run of blanks as one space: not
/// `repetitions`, not `triple` alone.
fn claim_words(text: &str) -> (bool, bool) {
    if surely_no_claim_word(text.as_bytes()) {
        return (false, false);
    }
    let mut t = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !t.is_empty() {
            t.push(' ');
        }
        t.push_str(word);
    }
    let t = t.to_lowercase();
    let (mut threefold, mut fifty) = (false, false);
    for m in CLAIM_WORDS.find_overlapping_iter(&t) {
        let i = m.pattern().as_usize();
        let word = THREEFOLD_WORDS.get(i).unwrap_or(&"");
        if !is_whole(&t, m.start(), m.end(), *word == COMPOUND_END) {
            continue;
        }
        if i < THREEFOLD_WORDS.len() {
            threefold = true;
        } else {
            fifty = true;
        }
    }
    (threefold, fifty)
}

/// Whether `text[start..end]` is a whole word or phrase: no letter or
/// digit right before it (unless it may end a compound) or right after it.
fn is_whole(text: &str, start: usize, end: usize, compound_end: bool) -> bool {
    let word_char = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    (compound_end || !word_char(text[..start].chars().next_back()))
        && !word_char(text[end..].chars().next())
}

/// Whether `lower`, lowercased, holds `phrase` (lowercase) as a whole word
/// or phrase, or, with `compound_end`, as the end of a word.
pub(super) fn has_phrase(lower: &str, phrase: &str, compound_end: bool) -> bool {
    lower
        .match_indices(phrase)
        .any(|(i, p)| is_whole(lower, i, i + p.len(), compound_end))
}

/// Finds the game's draw claims and judges each. `last` is the position
/// after the game's last ply, `plies`, which is also the last position in
/// `reps`.
///
/// Only a drawn game claims (FIDE 9.2, 9.3): an upheld claim ends the game
/// drawn and a rejected one lets it go on, so words after the last move of
/// a decisive game are annotation.
pub fn audit_claims(game: &Game, last: &Chess, reps: &Repetitions, plies: u32) -> Vec<ClaimAudit> {
    if super::results::recorded(game) != "1/2-1/2" {
        return Vec::new();
    }
    let (term3, term50) = game
        .tags
        .termination
        .as_deref()
        .map_or((false, false), claim_words);
    let (mut com3, mut com50) = (false, false);
    for &(start, end) in &game.final_comments {
        let raw = &game.bytes[start as usize..end as usize];
        // An ASCII comment decodes to itself: reject it before decoding.
        if surely_no_claim_word(raw) {
            continue;
        }
        let (a, b) = claim_words(&decode_text(raw));
        com3 |= a;
        com50 |= b;
    }
    let source = |term: bool, com: bool| {
        if term {
            Some(ClaimSource::Termination)
        } else if com {
            Some(ClaimSource::Comment)
        } else {
            None
        }
    };

    let threefold = source(term3, com3);
    let fifty = source(term50, com50);
    let judge = Judge::new(game, last, reps, plies);
    let mut claims = Vec::new();
    if let Some(src) = threefold {
        claims.push(judge.threefold(src));
    }
    if let Some(src) = fifty {
        claims.push(judge.fifty(src));
    }
    if threefold.is_none()
        && fifty.is_none()
        && (judge.count(Identity::NoRights) >= 3 || judge.announced().is_some())
    {
        claims.push(judge.threefold(ClaimSource::Implied));
    }
    claims
}

/// What is known about the final position, shared by every claim.
struct Judge<'g, 'a> {
    game: &'g Game<'a>,
    last: &'g Chess,
    reps: &'g Repetitions,
    plies: u32,
    final_entry: Entry,
    /// A legal move that would make some position's third FIDE occurrence,
    /// with the plies at which that position stood before; found on demand.
    announced: OnceCell<Option<(Move, Vec<u32>)>>,
}

impl<'g, 'a> Judge<'g, 'a> {
    fn new(game: &'g Game<'a>, last: &'g Chess, reps: &'g Repetitions, plies: u32) -> Self {
        Judge {
            game,
            last,
            reps,
            plies,
            final_entry: reps.last(),
            announced: OnceCell::new(),
        }
    }

    fn announced(&self) -> Option<&(Move, Vec<u32>)> {
        let (last, reps, plies) = (self.last, self.reps, self.plies);
        self.announced
            .get_or_init(|| {
                // Only a position that already stood twice can stand a
                // third time.
                if !reps.any_repeated() {
                    return None;
                }
                last.legal_moves()
                    .into_iter()
                    .filter(|m| !m.is_zeroing())
                    .find_map(|m| {
                        let mut after = last.clone();
                        after.play_unchecked(m);
                        let key = Entry::of(&after, plies + 1).strict;
                        (reps.strict_count(key) >= 2).then(|| {
                            let stood = reps
                                .entries()
                                .filter(|e| e.strict == key)
                                .map(|e| e.ply)
                                .collect();
                            (m, stood)
                        })
                    })
            })
            .as_ref()
    }

    fn count(&self, identity: Identity) -> u32 {
        self.reps.count(&self.final_entry, identity)
    }

    fn plies_of(&self, identity: Identity) -> Vec<u32> {
        self.reps
            .matching(&self.final_entry, identity)
            .map(|e| e.ply)
            .collect()
    }

    /// A row with the final position's counts filled in.
    fn row(
        &self,
        claim: ClaimKind,
        source: ClaimSource,
        verdict: ClaimVerdict,
        detail: String,
    ) -> ClaimAudit {
        ClaimAudit {
            claim,
            source,
            verdict,
            ply: self.plies,
            occurrences: self.count(Identity::Strict),
            occurrences_ignoring_rights: self.count(Identity::NoRights),
            plies: self.plies_of(Identity::NoRights),
            fen: super::fen_of(self.last),
            detail,
        }
    }

    fn threefold(&self, source: ClaimSource) -> ClaimAudit {
        let (verdict, detail) = self.threefold_verdict();
        self.row(ClaimKind::Threefold, source, verdict, detail)
    }

    fn threefold_verdict(&self) -> (ClaimVerdict, String) {
        let names = Names::new(self.game, self.last, self.plies);
        let here = names.position(self.plies);
        let strict = self.plies_of(Identity::Strict);
        if strict.len() >= 3 {
            return (
                ClaimVerdict::Valid,
                format!(
                    "{here} stood for the {} time: {}",
                    ordinal(strict.len()),
                    names.list(&strict)
                ),
            );
        }
        // A claim whose final position already looks thrice repeated is a
        // claim about that position (Karpov after 26.Nb5), judged by the
        // false_* verdicts below, even if the opponent could now announce a
        // move that repeats something else.
        if self.count(Identity::NoRights) < 3
            && let Some((m, stood)) = self.announced()
        {
            return (
                ClaimVerdict::ValidOnAnnouncedMove,
                format!(
                    "{} would make the third occurrence of the position that stood {}",
                    names.announced(self.last, *m),
                    names.list(stood)
                ),
            );
        }
        let e = &self.final_entry;
        let castling = self.count(Identity::NoCastling) >= 3;
        if castling
            || (self.count(Identity::NoEnPassant) < 3 && self.count(Identity::NoRights) >= 3)
        {
            let identity = if castling {
                Identity::NoCastling
            } else {
                Identity::NoRights
            };
            return (
                ClaimVerdict::FalseCastlingRights,
                format!(
                    "{here} stood {} times only when castling rights are ignored: {}",
                    self.count(identity),
                    self.differences(&names, identity)
                ),
            );
        }
        if self.count(Identity::NoEnPassant) >= 3 {
            return (
                ClaimVerdict::FalseEnPassant,
                format!(
                    "{here} stood {} times only when en-passant rights are ignored: {}",
                    self.count(Identity::NoEnPassant),
                    self.differences(&names, Identity::NoEnPassant)
                ),
            );
        }
        let placement: Vec<u32> = self
            .reps
            .matching(e, Identity::Placement)
            .map(|x| x.ply)
            .collect();
        if placement.len() >= 3 {
            let same_side = self.count(Identity::NoRights);
            return (
                ClaimVerdict::FalseSideToMove,
                format!(
                    "the pieces stood as in {here} {} times ({}), but only {same_side} of them with {} to move",
                    placement.len(),
                    names.list(&placement),
                    color_name(e.turn)
                ),
            );
        }
        let detail = if strict.len() <= 1 {
            format!(
                "{here} had not stood before, and no legal move from it makes any position's third occurrence"
            )
        } else {
            format!(
                "{here} stood only {} times ({}), and no legal move from it makes any position's third occurrence",
                strict.len(),
                names.list(&strict)
            )
        };
        (ClaimVerdict::FalseNotRepeated, detail)
    }

    /// How the earlier occurrences under `identity` differ from the final
    /// position in castling and en-passant rights.
    fn differences(&self, names: &Names, identity: Identity) -> String {
        let e = &self.final_entry;
        let parts: Vec<String> = self
            .reps
            .matching(e, identity)
            .enumerate()
            .filter(|(_, x)| x.strict != e.strict)
            .map(|(i, x)| {
                let mut what = Vec::new();
                if x.rights != e.rights {
                    let extra = x.rights & !e.rights;
                    let lacking = e.rights & !x.rights;
                    if extra != 0 {
                        what.push(format!("still had {}", rights_text(extra)));
                    }
                    if lacking != 0 {
                        what.push(format!("lacked {}", rights_text(lacking)));
                    }
                }
                if x.ep != e.ep {
                    match (x.ep, e.ep) {
                        (Some(sq), _) => what.push(format!(
                            "allowed {}'s en-passant capture on {sq}",
                            color_name(x.turn)
                        )),
                        (None, Some(sq)) => what.push(format!(
                            "did not allow the en-passant capture on {sq} that the final position allows"
                        )),
                        (None, None) => {}
                    }
                }
                let at = if x.ply == 0 {
                    "the start position".to_owned()
                } else {
                    format!("after {}", names.mv(x.ply))
                };
                format!("the {} occurrence, {at}, {}", ordinal(i + 1), what.join(" and "))
            })
            .collect();
        parts.join("; ")
    }

    fn fifty(&self, source: ClaimSource) -> ClaimAudit {
        let names = Names::new(self.game, self.last, self.plies);
        let clock = self.last.halfmoves();
        let since = self.reps.first_ply();
        let since_text = if since == 0 {
            if clock as u64 > u64::from(self.plies) {
                "the start position's FEN already counted some of them".to_owned()
            } else {
                "nothing was captured and no pawn moved since the start".to_owned()
            }
        } else {
            format!("the last capture or pawn move was {}", names.mv(since))
        };
        let (verdict, detail) = if clock >= 100 {
            (
                ClaimVerdict::Valid,
                format!(
                    "the halfmove clock stood at {clock}, at least 50 moves of each side without capture or pawn move; {since_text}"
                ),
            )
        } else if let Some(m) = self.completing_move(clock) {
            (
                ClaimVerdict::ValidOnAnnouncedMove,
                format!(
                    "the halfmove clock stood at {clock}: {} would complete 50 moves of each side without capture or pawn move",
                    names.announced(self.last, m)
                ),
            )
        } else {
            (
                ClaimVerdict::FalseFiftyMoves,
                format!(
                    "the halfmove clock stood at only {clock} of the 100 plies the rule needs; {since_text}"
                ),
            )
        };
        self.row(ClaimKind::FiftyMoves, source, verdict, detail)
    }

    /// A legal move that completes the 50 moves: the clock is at 99 and the
    /// move is no capture, no pawn move, and does not mate (a mate would end
    /// the game before any claim).
    fn completing_move(&self, clock: u32) -> Option<Move> {
        if clock != 99 {
            return None;
        }
        self.last
            .legal_moves()
            .into_iter()
            .filter(|m| !m.is_zeroing())
            .find(|m| {
                let mut after = self.last.clone();
                after.play_unchecked(*m);
                !after.is_checkmate()
            })
    }
}

/// Names plies as moves (`22.Nb5`, `22...Ra4`), counting back from the final
/// position's fullmove number.
struct Names<'g, 'a> {
    game: &'g Game<'a>,
    /// Half-moves since White's first move, at the final position.
    final_half: i64,
    plies: u32,
}

impl<'g, 'a> Names<'g, 'a> {
    fn new(game: &'g Game<'a>, last: &Chess, plies: u32) -> Self {
        let final_half =
            2 * (i64::from(last.fullmoves().get()) - 1) + i64::from(last.turn().is_black());
        Names {
            game,
            final_half,
            plies,
        }
    }

    /// Move number and dots for a move made from the position `half`.
    fn prefix(half: i64) -> String {
        let half = half.max(0);
        let number = half / 2 + 1;
        if half % 2 == 0 {
            format!("{number}.")
        } else {
            format!("{number}...")
        }
    }

    /// The move that made `ply` (≥ 1), e.g. `22...Ra4`.
    fn mv(&self, ply: u32) -> String {
        let half = self.final_half - i64::from(self.plies) + i64::from(ply) - 1;
        let text = self
            .game
            .moves
            .get(ply as usize - 1)
            .map_or("?", |t| self.game.move_text(t));
        format!("{}{text}", Self::prefix(half))
    }

    /// A move from the final position, e.g. `26...Ra4`.
    fn announced(&self, last: &Chess, m: Move) -> String {
        format!(
            "{}{}",
            Self::prefix(self.final_half),
            San::from_move(last, m)
        )
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
        match items.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        }
    }
}

fn color_name(c: Color) -> &'static str {
    if c.is_white() { "White" } else { "Black" }
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
/// and queenside`, ...
fn rights_text(bits: u8) -> String {
    let mut parts = Vec::new();
    for color in Color::ALL {
        let sides: Vec<&str> = CastlingSide::ALL
            .into_iter()
            .filter(|&s| bits & right_bit(color, s) != 0)
            .map(|s| {
                if s.is_king_side() {
                    "kingside"
                } else {
                    "queenside"
                }
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_words_are_found_in_several_languages() {
        assert_eq!(claim_words("Game drawn by repetition"), (true, false));
        assert_eq!(claim_words("Game drawn by 50-move rule"), (false, true));
        assert_eq!(claim_words("Normal"), (false, false));
        assert_eq!(
            claim_words("Remis durch dreimalige Stellungswiederholung"),
            (true, false)
        );
        assert_eq!(claim_words("nulle par RÉPÉTITION"), (true, false));
        assert_eq!(claim_words("tablas por triple repetición"), (true, false));
        assert_eq!(claim_words("Remis, 50 Züge ohne Schlagfall"), (false, true));
        assert_eq!(claim_words("règle des cinquante coups"), (false, true));
        assert_eq!(claim_words("cincuenta movimientos"), (false, true));
        assert_eq!(claim_words("Three-Fold? no, FIFTY moves"), (true, true));
    }

    #[test]
    fn claim_words_count_only_whole() {
        assert_eq!(claim_words("a triple attack"), (false, false));
        assert_eq!(claim_words("no repetitions"), (false, false));
        assert_eq!(claim_words("Zugwiederholung."), (true, false));
        assert_eq!(claim_words("Wiederholungen"), (false, false));
        assert_eq!(claim_words("fifty\n  MOVES"), (false, true));
        assert_eq!(claim_words("the 150-move rule"), (false, false));
        assert_eq!(claim_words("Fünfzig Züge"), (false, true));
    }

    #[test]
    fn only_texts_without_claim_words_are_rejected_early() {
        assert!(surely_no_claim_word(b"[%clk 0:03:00]"));
        assert!(surely_no_claim_word(b"Normal"));
        assert!(surely_no_claim_word(b"Time forfeit"));
        for word in THREEFOLD_WORDS.iter().chain(FIFTY_WORDS) {
            let upper = word.to_uppercase();
            for text in [word.to_string(), format!("Drawn: {upper}!")] {
                assert!(!surely_no_claim_word(text.as_bytes()), "{text}");
                assert_ne!(claim_words(&text), (false, false), "{text}");
            }
        }
    }
}
