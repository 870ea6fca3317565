//! Draw claims (FIDE 9.2 and 9.3): where a game claims a draw, and whether
//! the claim holds.
//!
//! A claim is read from the Termination tag, from a comment after the last
//! move, or implied by a drawn game whose final position looks repeated. The
//! verdicts follow the report contract's tables, the first that applies; the
//! `false_*` threefold verdicts look at the final position only. Each claim
//! is judged to typed [`Grounds`], from which `audit/explain.rs` writes its
//! sentence (the audit asks it, as for every finding).

use std::cell::OnceCell;

use shakmaty::{Chess, Color, Move, Position, Square, san::San};

use super::findings::{ClaimAudit, ClaimKind, ClaimSource, ClaimVerdict, fen_of};
#[cfg(doc)]
use super::repetition::right_bit;
use super::repetition::{Entry, Identity, Repetitions};
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

/// (v3) Markers of commentary (lowercase), as whole words or phrases: a
/// sentence of a final comment that holds one reports no claim, even with
/// a claim word in it (`Lasker's only hope to avoid a loss is a draw by
/// threefold repetition.`). The contract's English list, then the German,
/// French and Spanish equivalents that docs/reports.md lists.
const COMMENTARY: &[&str] = &[
    "would",
    "could",
    "might",
    "may",
    "can",
    "cannot",
    "should",
    "if",
    "hope",
    "hopes",
    "hoping",
    "try",
    "tries",
    "trying",
    "threat",
    "threatens",
    "threatening",
    "avoid",
    "avoids",
    "avoiding",
    "plays for",
    "playing for",
    "headed for",
    "heading for",
    "going for",
    "no",
    "not",
    "never",
    "rather than",
    "instead",
    "agree",
    "agreed",
    "agreement",
    "agreeing",
    // German
    "würde",
    "würden",
    "könnte",
    "könnten",
    "kann",
    "können",
    "sollte",
    "sollten",
    "wenn",
    "falls",
    "hofft",
    "hoffen",
    "hoffte",
    "hoffnung",
    "versucht",
    "versuchen",
    "versuchte",
    "droht",
    "drohte",
    "drohung",
    "vermeiden",
    "vermeidet",
    "vermied",
    "spielt auf",
    "spielte auf",
    "nicht",
    "kein",
    "keine",
    "keinen",
    "nie",
    "niemals",
    "statt",
    "anstatt",
    "stattdessen",
    "einigen sich",
    "einigten sich",
    "einigung",
    "vereinbart",
    "vereinbarten",
    // French
    "aurait",
    "pourrait",
    "pourraient",
    "peut",
    "peuvent",
    "devrait",
    "devraient",
    "si",
    "espère",
    "espèrent",
    "espoir",
    "espérant",
    "essaie",
    "essaye",
    "essayer",
    "tente",
    "menace",
    "menacent",
    "éviter",
    "évite",
    "évitant",
    "joue pour",
    "jouent pour",
    "ne",
    "pas",
    "non",
    "jamais",
    "plutôt que",
    "au lieu de",
    "accord",
    "d'accord",
    "conviennent",
    // Spanish
    "podría",
    "podrían",
    "puede",
    "pueden",
    "debería",
    "deberían",
    "espera",
    "esperan",
    "esperanza",
    "esperando",
    "intenta",
    "intentan",
    "intentando",
    "amenaza",
    "amenazan",
    "evitar",
    "evita",
    "evitando",
    "juega por",
    "juegan por",
    "nunca",
    "jamás",
    "en lugar de",
    "en vez de",
    "acuerdo",
    "acuerdan",
    "acordaron",
    "acordado",
    "pactan",
    "pactaron",
    "pactadas",
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
/// that is not in it. Every ASCII blank has the space's bit: a run of any
/// blanks is one space between the words of a phrase.
const fn alphabet_bit(byte: u8) -> u64 {
    let lower = match byte {
        b'\t' | b'\n' | 0x0b | 0x0c | b'\r' => b' ',
        _ => byte.to_ascii_lowercase(),
    };
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
            #[allow(clippy::cast_possible_truncation, reason = "b < 128")]
            let byte = b as u8;
            alphabet_bit(byte)
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

/// (v3) Which claims a final comment makes: (threefold, fifty moves). It
/// is cut into [sentences]; a sentence holding a claim word claims unless
/// it also holds a marker of commentary ([`COMMENTARY`], each a whole word
/// or phrase): a comment claims only where it reports the claim or the
/// draw as what happened.
fn comment_claims(text: &str) -> (bool, bool) {
    let (mut threefold, mut fifty) = (false, false);
    for sentence in sentences(text) {
        let (a, b) = claim_words(sentence);
        if (a && !threefold || b && !fifty) && !is_commentary(sentence) {
            threefold |= a;
            fifty |= b;
        }
    }
    (threefold, fifty)
}

/// The bytes that end a comment's sentence, besides a blank line.
const SENTENCE_ENDS: [char; 4] = ['.', '!', '?', ';'];

/// (v4) A comment's sentences: cut at [`SENTENCE_ENDS`] and at blank lines
/// (two line ends with only spaces and tabs between; a line end is `\n`,
/// `\r\n`, a lone `\r`, or `\r\r\n` as the game splitter reads it). A
/// single line end is a blank within its sentence: exporters wrap comments
/// at 80 columns, so a line of a comment is no sentence of its own.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            i += 1;
            if SENTENCE_ENDS.contains(&char::from(b)) {
                let sentence = &text[start..i - 1];
                start = i;
                return Some(sentence);
            }
            if matches!(b, b'\n' | b'\r') {
                let end = i - 1;
                // Past this line end (`\r\n` is one), the next line's
                // blanks: another line end there makes a blank line.
                let mut j = i + line_end_rest(&bytes[i - 1..]);
                while bytes.get(j).is_some_and(|&c| c == b' ' || c == b'\t') {
                    j += 1;
                }
                if matches!(bytes.get(j), Some(b'\n' | b'\r')) {
                    i = j;
                    let sentence = &text[start..end];
                    start = j;
                    return Some(sentence);
                }
            }
        }
        (start <= bytes.len()).then(|| {
            let sentence = &text[start..];
            start = bytes.len() + 1;
            sentence
        })
    })
}

/// The bytes after the first of the line end that starts `bytes` (`\r\n`,
/// `\r\r\n`; none after `\n` or a lone `\r`).
fn line_end_rest(bytes: &[u8]) -> usize {
    match bytes {
        [b'\r', b'\n', ..] => 1,
        [b'\r', b'\r', b'\n', ..] => 2,
        _ => 0,
    }
}

/// Whether a sentence holds a marker of commentary, as a whole word or
/// phrase, case-insensitive, any run of blanks as one space.
fn is_commentary(sentence: &str) -> bool {
    let lower = sentence
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    COMMENTARY.iter().any(|m| has_phrase(&lower, m, false))
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

/// A claim judged: its row, but for the `detail` sentence, and the grounds
/// that sentence is written from.
#[derive(Debug)]
pub(super) struct JudgedClaim {
    /// The claims.csv row, its `detail` empty.
    pub(super) row: ClaimAudit,
    /// Why the claim holds or fails.
    pub(super) grounds: Grounds,
}

/// Finds the game's draw claims and judges each. `recorded` is the game's
/// recorded result, canonical; `last` the position after the game's last
/// ply, `plies`, which is also the last position in `reps`.
///
/// Only a drawn game claims (FIDE 9.2, 9.3): an upheld claim ends the game
/// drawn and a rejected one lets it go on, so words after the last move of
/// a decisive game are annotation.
pub(super) fn audit_claims(
    game: &Game,
    recorded: &str,
    last: &Chess,
    reps: &Repetitions,
    plies: u32,
) -> Vec<JudgedClaim> {
    if recorded != "1/2-1/2" {
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
        let text = decode_text(raw);
        // The comment `--fix` writes tells the correction, not the
        // players' claim.
        if text
            .trim_start()
            .starts_with(super::findings::COMMENT_PREFIX)
        {
            continue;
        }
        let (a, b) = comment_claims(&text);
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
    let judge = Judge::new(last, reps, plies);
    let row = |claim, source, grounds| judge.row(claim, source, grounds);
    let mut claims = Vec::new();
    if let Some(src) = threefold {
        claims.push(row(ClaimKind::Threefold, src, judge.threefold()));
    }
    if let Some(src) = fifty {
        claims.push(row(ClaimKind::FiftyMoves, src, judge.fifty()));
    }
    if threefold.is_none()
        && fifty.is_none()
        && (judge.count(Identity::NoRights) >= 3 || judge.announced().is_some())
    {
        claims.push(row(
            ClaimKind::Threefold,
            ClaimSource::Implied,
            judge.threefold(),
        ));
    }
    claims
}

/// Why a claim holds or fails: the first of the contract's verdicts that
/// applies, with the counts and plies that show it. Plies name the
/// position after them (0: the start position).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Grounds {
    /// FIDE 9.2.1.2: the final position has just stood for the third time
    /// or more, after each of `plies`.
    Repeated {
        /// The plies after which the final position stood.
        plies: Vec<u32>,
    },
    /// 9.2.1.1: `announced`, a move from the final position, would make the
    /// third occurrence of the position that stood after each of `stood`.
    AnnouncedRepetition {
        /// The move that would make the third occurrence.
        announced: San,
        /// The plies after which the position it reaches stood.
        stood: Vec<u32>,
    },
    /// The final position stood `count` times only when castling rights are
    /// ignored (9.2.3: they are part of the position); how each earlier
    /// occurrence differs.
    RepeatedIgnoringCastling {
        /// How often it stood, castling rights ignored.
        count: u32,
        /// How each earlier occurrence differs.
        differences: Vec<Difference>,
    },
    /// The final position stood `count` times only when en-passant rights
    /// are ignored (9.2.3); how each earlier occurrence differs.
    RepeatedIgnoringEnPassant {
        /// How often it stood, en-passant rights ignored.
        count: u32,
        /// How each earlier occurrence differs.
        differences: Vec<Difference>,
    },
    /// The pieces stood as in the final position after each of
    /// `placement`, but only `same_side` times with `turn` to move (9.2.3).
    RepeatedWithOtherSideToMove {
        /// The plies after which the pieces stood so.
        placement: Vec<u32>,
        /// How often they stood so with `turn` to move.
        same_side: u32,
        /// The side to move in the final position.
        turn: Color,
    },
    /// The final position stood only after each of `plies` (fewer than
    /// three), and no legal move makes any position's third occurrence.
    NotRepeated {
        /// The plies after which the final position stood.
        plies: Vec<u32>,
    },
    /// 9.3.2: the halfmove clock stood at `clock`, at least 100.
    FiftyMoves {
        /// The halfmove clock of the final position.
        clock: u32,
        /// Since when the clock counts.
        since: Since,
    },
    /// 9.3.1: the clock stood at `clock` (99) and `announced`, a move from
    /// the final position, would complete the 50 moves of each side.
    AnnouncedFiftyMoves {
        /// The halfmove clock of the final position.
        clock: u32,
        /// The move that would complete the 50 moves.
        announced: San,
    },
    /// The clock stood at only `clock` of the 100 plies 9.3 needs.
    FewerThanFiftyMoves {
        /// The halfmove clock of the final position.
        clock: u32,
        /// Since when the clock counts.
        since: Since,
    },
}

impl Grounds {
    /// The verdict these grounds give.
    pub(crate) fn verdict(&self) -> ClaimVerdict {
        match self {
            Grounds::Repeated { .. } | Grounds::FiftyMoves { .. } => ClaimVerdict::Valid,
            Grounds::AnnouncedRepetition { .. } | Grounds::AnnouncedFiftyMoves { .. } => {
                ClaimVerdict::ValidOnAnnouncedMove
            }
            Grounds::RepeatedIgnoringCastling { .. } => ClaimVerdict::FalseCastlingRights,
            Grounds::RepeatedIgnoringEnPassant { .. } => ClaimVerdict::FalseEnPassant,
            Grounds::RepeatedWithOtherSideToMove { .. } => ClaimVerdict::FalseSideToMove,
            Grounds::NotRepeated { .. } => ClaimVerdict::FalseNotRepeated,
            Grounds::FewerThanFiftyMoves { .. } => ClaimVerdict::FalseFiftyMoves,
        }
    }
}

/// How an earlier occurrence of the final position, under a loose
/// identity, differs from it in castling and en-passant rights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Difference {
    /// Which occurrence it is under that identity, counting from 1.
    pub(crate) occurrence: usize,
    /// The ply after which it stood (0: the start position).
    pub(crate) ply: u32,
    /// The castling rights it still had that the final position lacks,
    /// one bit per [`right_bit`].
    pub(crate) extra_rights: u8,
    /// The castling rights it lacked that the final position has.
    pub(crate) lacking_rights: u8,
    /// How its en-passant rights differ, if they do.
    pub(crate) en_passant: Option<EnPassantDifference>,
}

/// How the en-passant rights of an earlier occurrence differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnPassantDifference {
    /// It allowed `by`'s en-passant capture on `on`.
    Allowed {
        /// The side that could capture.
        by: Color,
        /// The square it could capture on.
        on: Square,
    },
    /// It did not allow the capture on `on` that the final position allows.
    Missing {
        /// The square the final position allows the capture on.
        on: Square,
    },
}

/// Since when the halfmove clock of a fifty-move claim counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Since {
    /// Nothing was captured and no pawn moved in the game, and the start
    /// position's FEN already counted some of the plies.
    Fen,
    /// Nothing was captured and no pawn moved since the start.
    Start,
    /// The last capture or pawn move was the move of this ply.
    Zeroing(u32),
}

/// What is known about the final position, shared by every claim.
struct Judge<'g> {
    last: &'g Chess,
    reps: &'g Repetitions,
    plies: u32,
    final_entry: Entry,
    /// A legal move that would make some position's third FIDE occurrence,
    /// with the plies at which that position stood before; found on demand.
    announced: OnceCell<Option<(Move, Vec<u32>)>>,
}

impl<'g> Judge<'g> {
    fn new(last: &'g Chess, reps: &'g Repetitions, plies: u32) -> Self {
        Judge {
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

    /// A claim on `grounds`, its row filled in with the final position's
    /// counts.
    fn row(&self, claim: ClaimKind, source: ClaimSource, grounds: Grounds) -> JudgedClaim {
        let row = ClaimAudit {
            claim,
            source,
            verdict: grounds.verdict(),
            ply: self.plies,
            occurrences: self.count(Identity::Strict),
            occurrences_ignoring_rights: self.count(Identity::NoRights),
            plies: self.plies_of(Identity::NoRights),
            fen: fen_of(self.last),
            detail: String::new(),
        };
        JudgedClaim { row, grounds }
    }

    /// The grounds of a threefold claim (FIDE 9.2), the first verdict that
    /// applies.
    fn threefold(&self) -> Grounds {
        let strict = self.plies_of(Identity::Strict);
        if strict.len() >= 3 {
            return Grounds::Repeated { plies: strict };
        }
        // A claim whose final position already looks thrice repeated is a
        // claim about that position (Karpov after 26.Nb5), judged by the
        // false_* verdicts below, even if the opponent could now announce a
        // move that repeats something else.
        if self.count(Identity::NoRights) < 3
            && let Some((m, stood)) = self.announced()
        {
            return Grounds::AnnouncedRepetition {
                announced: San::from_move(self.last, *m),
                stood: stood.clone(),
            };
        }
        let castling = self.count(Identity::NoCastling) >= 3;
        if castling
            || (self.count(Identity::NoEnPassant) < 3 && self.count(Identity::NoRights) >= 3)
        {
            let identity = if castling {
                Identity::NoCastling
            } else {
                Identity::NoRights
            };
            return Grounds::RepeatedIgnoringCastling {
                count: self.count(identity),
                differences: self.differences(identity),
            };
        }
        if self.count(Identity::NoEnPassant) >= 3 {
            return Grounds::RepeatedIgnoringEnPassant {
                count: self.count(Identity::NoEnPassant),
                differences: self.differences(Identity::NoEnPassant),
            };
        }
        let placement = self.plies_of(Identity::Placement);
        if placement.len() >= 3 {
            return Grounds::RepeatedWithOtherSideToMove {
                placement,
                same_side: self.count(Identity::NoRights),
                turn: self.final_entry.turn,
            };
        }
        Grounds::NotRepeated { plies: strict }
    }

    /// How the earlier occurrences under `identity` that are not the final
    /// position under FIDE identity differ from it.
    fn differences(&self, identity: Identity) -> Vec<Difference> {
        let e = &self.final_entry;
        self.reps
            .matching(e, identity)
            .enumerate()
            .filter(|(_, x)| x.strict != e.strict)
            .map(|(i, x)| Difference {
                occurrence: i + 1,
                ply: x.ply,
                extra_rights: x.rights & !e.rights,
                lacking_rights: e.rights & !x.rights,
                en_passant: match (x.ep, e.ep) {
                    _ if x.ep == e.ep => None,
                    (Some(on), _) => Some(EnPassantDifference::Allowed { by: x.turn, on }),
                    (None, Some(on)) => Some(EnPassantDifference::Missing { on }),
                    (None, None) => None,
                },
            })
            .collect()
    }

    /// The grounds of a fifty-move claim (FIDE 9.3).
    fn fifty(&self) -> Grounds {
        let clock = self.last.halfmoves();
        let since = match self.reps.first_ply() {
            0 if clock as u64 > u64::from(self.plies) => Since::Fen,
            0 => Since::Start,
            ply => Since::Zeroing(ply),
        };
        if clock >= 100 {
            Grounds::FiftyMoves { clock, since }
        } else if let Some(m) = self.completing_move(clock) {
            Grounds::AnnouncedFiftyMoves {
                clock,
                announced: San::from_move(self.last, m),
            }
        } else {
            Grounds::FewerThanFiftyMoves { clock, since }
        }
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

    /// Any run of blanks is one space, whatever the blank: a tab, a line
    /// feed, a form feed or a vertical tab between the words of a phrase
    /// (`50<TAB>moves`) holds the phrase as a space does.
    #[test]
    fn a_phrase_holds_across_any_ascii_blank() {
        for blank in ["\t", "\n", "\r\n", "\x0b", "\x0c", " \t "] {
            assert_eq!(
                claim_words(&format!("50{blank}moves")),
                (false, true),
                "{blank:?}"
            );
            assert_eq!(
                claim_words(&format!("fifty{blank}moves")),
                (false, true),
                "{blank:?}"
            );
            let text = format!("draw{blank}by{blank}repetition");
            assert_eq!(claim_words(&text), (true, false), "{blank:?}");
        }
    }

    /// (v4) A single line end, in any of its forms, is a blank within a
    /// sentence; a blank line, whatever its line ends and blanks, cuts.
    #[test]
    fn sentences_are_cut_at_blank_lines_not_line_ends() {
        let cut = |text: &str| {
            sentences(text)
                .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
        };
        for end in ["\n", "\r\n", "\r", "\r\r\n"] {
            let text = format!("no alternative to checking again and{end}creating a repetition.");
            assert_eq!(
                cut(&text),
                ["no alternative to checking again and creating a repetition"],
                "{end:?}"
            );
            for blank in ["", " ", "\t ", " \t"] {
                let text = format!("Neither side could win{end}{blank}{end}Draw by repetition");
                assert_eq!(
                    cut(&text),
                    ["Neither side could win", "Draw by repetition"],
                    "{end:?} {blank:?}"
                );
            }
        }
        assert_eq!(cut("A. B! C? D; E"), ["A", "B", "C", "D", "E"]);
        assert_eq!(sentences("").collect::<Vec<_>>(), [""]);
        assert_eq!(
            comment_claims(
                "the queen has no alternative to checking\r\nand creating a third repetition."
            ),
            (false, false)
        );
        assert_eq!(
            comment_claims("Neither side could win\n\nDraw by repetition"),
            (true, false)
        );
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

    /// The grounds of a claim on the final position after `moves` (SAN)
    /// from `fen`: of the fifty-move rule with `fifty`, else of threefold.
    fn judged(fen: &str, moves: &[&str], fifty: bool) -> Grounds {
        let mut pos: Chess = shakmaty::fen::Fen::from_ascii(fen.as_bytes())
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let mut reps = Repetitions::new(&pos, super::super::repetition::strict_key(&pos));
        for (i, san) in moves.iter().enumerate() {
            let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
            reps.push(&pos, u32::try_from(i + 1).unwrap(), m.is_zeroing());
        }
        let judge = Judge::new(&pos, &reps, u32::try_from(moves.len()).unwrap());
        if fifty {
            judge.fifty()
        } else {
            judge.threefold()
        }
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const SHUFFLE: [&str; 8] = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];

    #[test]
    fn a_third_occurrence_is_repeated() {
        assert_eq!(
            judged(START, &SHUFFLE, false),
            Grounds::Repeated {
                plies: vec![0, 4, 8]
            }
        );
        assert_eq!(
            Grounds::Repeated { plies: vec![] }.verdict(),
            ClaimVerdict::Valid
        );
    }

    #[test]
    fn a_move_that_would_make_the_third_occurrence_is_announced() {
        let g = judged(START, &SHUFFLE[..7], false);
        assert_eq!(
            g,
            Grounds::AnnouncedRepetition {
                announced: "Ng8".parse().unwrap(),
                stood: vec![0, 4],
            }
        );
        assert_eq!(g.verdict(), ClaimVerdict::ValidOnAnnouncedMove);
    }

    #[test]
    fn a_second_occurrence_is_not_repeated() {
        let g = judged(START, &SHUFFLE[..4], false);
        assert_eq!(g, Grounds::NotRepeated { plies: vec![0, 4] });
        assert_eq!(g.verdict(), ClaimVerdict::FalseNotRepeated);
    }

    #[test]
    fn lost_castling_rights_make_another_position() {
        let moves = ["Ke2", "Ke7", "Ke1", "Ke8", "Ke2", "Ke7", "Ke1", "Ke8"];
        let g = judged("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", &moves, false);
        assert_eq!(
            g,
            Grounds::RepeatedIgnoringCastling {
                count: 3,
                differences: vec![Difference {
                    occurrence: 1,
                    ply: 0,
                    extra_rights: 0b1111,
                    lacking_rights: 0,
                    en_passant: None,
                }],
            }
        );
        assert_eq!(g.verdict(), ClaimVerdict::FalseCastlingRights);
    }

    #[test]
    fn an_en_passant_right_makes_another_position() {
        // After 1...d5 White may take en passant; after the shuffle not.
        let moves = ["d5", "Kf1", "Kf7", "Ke1", "Ke8", "Kf1", "Kf7", "Ke1", "Ke8"];
        let g = judged("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1", &moves, false);
        assert_eq!(
            g,
            Grounds::RepeatedIgnoringEnPassant {
                count: 3,
                differences: vec![Difference {
                    occurrence: 1,
                    ply: 1,
                    extra_rights: 0,
                    lacking_rights: 0,
                    en_passant: Some(EnPassantDifference::Allowed {
                        by: Color::White,
                        on: Square::D6,
                    }),
                }],
            }
        );
        assert_eq!(g.verdict(), ClaimVerdict::FalseEnPassant);
    }

    #[test]
    fn the_clock_decides_the_fifty_move_claim() {
        let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 120 80";
        assert_eq!(
            judged(fen, &[], true),
            Grounds::FiftyMoves {
                clock: 120,
                since: Since::Fen
            }
        );
        let g = judged(fen, &["e4", "Kd7"], true);
        assert_eq!(
            g,
            Grounds::FewerThanFiftyMoves {
                clock: 1,
                since: Since::Zeroing(1)
            }
        );
        assert_eq!(g.verdict(), ClaimVerdict::FalseFiftyMoves);
        assert_eq!(
            judged(START, &SHUFFLE[..2], true),
            Grounds::FewerThanFiftyMoves {
                clock: 2,
                since: Since::Start
            }
        );
        let g = judged("4k3/8/8/8/8/8/8/4K2R b - - 99 80", &[], true);
        assert!(
            matches!(g, Grounds::AnnouncedFiftyMoves { clock: 99, .. }),
            "{g:?}"
        );
        assert_eq!(g.verdict(), ClaimVerdict::ValidOnAnnouncedMove);
    }
}
