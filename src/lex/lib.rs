//! pgn-audit-lex: PGN's lexical tokens (PGN standard 8.2), defined once
//! for the splitter that cuts a stream into games (pgn-audit-input) and
//! the movetext reader that reads one game (pgn-audit-core), so that the
//! two never disagree on what a result token, a token's end or a blank
//! line is.
//!
//! - [`RESULTS`] and [`result`]: the game termination markers (PGN 8.2.6),
//!   with the forms real files write (`1/2`, `½-½`), and their canonical
//!   form.
//! - [`DELIMITERS`]: the bytes that end a movetext token, and
//!   [`SELF_TERMINATING`], those among them that are tokens themselves.
//! - [`BLANK`]: the bytes a blank line may hold.
//! - [`starts_move`]: whether text begins with a move number or a move,
//!   which tells a game's first line from prose between games.
//! - [`glyph_len`]: evaluation glyphs (`+-`, `=`, `±`, `!?`), annotation
//!   like a NAG.

#![forbid(unsafe_code)]

/// A result token (PGN 8.2.6) as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultToken {
    /// The token's bytes.
    pub text: &'static [u8],
    /// The index of the byte a scan finds it by (its `*`, `-` or `/`).
    pub key: usize,
    /// The result it means, as the report contract writes it.
    pub canonical: &'static str,
}

/// Every result token: `*`, `1-0`, `0-1`, `1/2-1/2`, and the draw as
/// `½-½` and `1/2` (both `1/2-1/2`).
pub const RESULTS: [ResultToken; 6] = [
    token(b"*", 0, "*"),
    token(b"1-0", 1, "1-0"),
    token(b"0-1", 1, "0-1"),
    token("½-½".as_bytes(), 2, "1/2-1/2"),
    token(b"1/2-1/2", 1, "1/2-1/2"),
    token(b"1/2", 1, "1/2-1/2"),
];

const fn token(text: &'static [u8], key: usize, canonical: &'static str) -> ResultToken {
    ResultToken {
        text,
        key,
        canonical,
    }
}

/// The longest result token, in bytes.
pub const RESULT_MAX: usize = 7;

/// The result a whole token means, canonical; `None` where it is no result
/// token.
#[inline]
pub fn result(token: &[u8]) -> Option<&'static str> {
    RESULTS
        .iter()
        .find(|r| r.text == token)
        .map(|r| r.canonical)
}

/// The bytes that end a movetext token: blanks and line ends, the tokens
/// PGN delimits itself ([`SELF_TERMINATING`]), the NAG mark and the
/// `!`/`?` suffix annotations.
pub const DELIMITERS: [bool; 256] = byte_set(b" \t\n\r\x0c\x0b{}()[]*;$!?");

/// (v4) The bytes that are a token by themselves and end the token before
/// them without a blank, as the PGN standard's self-terminating
/// characters (PGN 7): `a5*[Event "x"]` is the move `a5`, the result `*`
/// and the next game's tag.
pub const SELF_TERMINATING: [bool; 256] = byte_set(b"*[](){}");

/// The bytes a blank line may hold, and that indent a line: spaces, tabs,
/// vertical tabs, form feeds, and the NUL and Ctrl-Z that pad files.
pub const BLANK: [bool; 256] = byte_set(b" \t\x0b\x0c\x00\x1a");

const fn byte_set(list: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut k = 0;
    while k < list.len() {
        t[list[k] as usize] = true;
        k += 1;
    }
    t
}

/// How many first bytes of a text [`starts_move`] looks at: enough for the
/// longest start it tells (`Qh4xe1`, a move number's digits and dot).
pub const MOVE_HEAD: usize = 8;

/// How many first bytes of a line are looked at to tell what it starts
/// (a tag line, one that lost its `[`, a move number after an open
/// comment): a line longer than this is judged on these bytes alone, and
/// a tag line that lost its `[` is no longer than `LINE_HEAD - 1` bytes.
pub const LINE_HEAD: usize = 256;

/// Whether `line` (one line, without its line end) is a tag line that
/// lost its `[`: a tag name (a letter, then letters, digits and `_`),
/// blanks, a quoted value, and `]` at the end (`Date "1983.10.23"]`).
pub fn is_bracketless_tag_line(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    let name = line
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    let blanks = line[name..]
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count();
    name > 0
        && line[0].is_ascii_alphabetic()
        && blanks > 0
        && line.get(name + blanks) == Some(&b'"')
        && line.len() >= name + blanks + 3
        && line.ends_with(b"\"]")
}

/// Whether `text` begins with a move number (digits and a dot: `12.`,
/// `1...`) or a move: a castle (`O-O`, `0-0`, `o-o`), or a piece letter
/// (English, or the German, French, Spanish and Dutch ones the reader
/// accepts), an optional square or file or rank of departure and `x`, and
/// a square (`e4`, `Nf3`, `exd5`, `Qh4xe1`, `g1f3`, `Sf3`). Only the first
/// [`MOVE_HEAD`] bytes are looked at, so the answer never depends on how
/// much of a longer token is at hand.
pub fn starts_move(text: &[u8]) -> bool {
    let text = &text[..text.len().min(MOVE_HEAD)];
    if [&b"O-O"[..], b"0-0", b"o-o"]
        .iter()
        .any(|c| text.starts_with(c))
    {
        return true;
    }
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 && digits < MOVE_HEAD {
        return text.get(digits) == Some(&b'.');
    }
    let file = |b: Option<&u8>| b.is_some_and(|b| (b'a'..=b'h').contains(b));
    let rank = |b: Option<&u8>| b.is_some_and(|b| (b'1'..=b'8').contains(b));
    let mut i = usize::from(text.first().is_some_and(|b| PIECE_LETTERS.contains(b)));
    // A square or file or rank of departure, or `x`, then the square.
    for _ in 0..3 {
        if file(text.get(i)) && rank(text.get(i + 1)) {
            return true;
        }
        match text.get(i) {
            Some(b'x') => i += 1,
            b if file(b) || rank(b) => i += 1,
            _ => return false,
        }
    }
    false
}

/// Every letter a piece move may start with: English `K Q R B N`, and the
/// German, French, Spanish and Dutch `D T L S F A C P`.
const PIECE_LETTERS: &[u8] = b"KQRBNDTLSFACP";

/// The evaluation glyphs books and ChessBase write in movetext (`+-`,
/// `=`, `±`, `!?`, …), annotation like a NAG.
pub const GLYPHS: [&str; 22] = [
    "+-", "-+", "+/-", "-/+", "=", "+=", "=+", "±", "∓", "⩲", "⩱", "∞", "=/∞", "!!", "??", "!?",
    "?!", "‼", "⁇", "⁉", "⁈", "□",
];

/// The length of the evaluation glyph that `text` begins with, standing
/// alone: followed by nothing or by a delimiter that is no `!` or `?`
/// (`!?` is one glyph, not `!` and `?`); the longest glyph where several
/// fit (`+/-` rather than `+`).
#[inline]
pub fn glyph_len(text: &[u8]) -> Option<usize> {
    if !GLYPH_START[usize::from(*text.first()?)] {
        return None;
    }
    glyph_len_slow(text)
}

/// The bytes a glyph starts with: `+ - = ! ?`, and the first bytes of
/// `±` and of the three-byte glyphs.
const GLYPH_START: [bool; 256] = byte_set(b"+-=!?\xc2\xe2");

/// [`glyph_len`] for a text that starts with a byte of a glyph.
#[cold]
fn glyph_len_slow(text: &[u8]) -> Option<usize> {
    GLYPHS
        .iter()
        .map(|g| g.as_bytes())
        .filter(|g| {
            text.starts_with(g)
                && text
                    .get(g.len())
                    .is_none_or(|&b| DELIMITERS[b as usize] && b != b'!' && b != b'?')
        })
        .map(<[u8]>::len)
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_tokens() {
        for (t, r) in [
            ("1-0", "1-0"),
            ("0-1", "0-1"),
            ("1/2-1/2", "1/2-1/2"),
            ("1/2", "1/2-1/2"),
            ("½-½", "1/2-1/2"),
            ("*", "*"),
        ] {
            assert_eq!(result(t.as_bytes()), Some(r), "{t}");
        }
        for t in ["1-", "1/2-1", "½", "**", "0-0", ""] {
            assert_eq!(result(t.as_bytes()), None, "{t}");
        }
        for r in RESULTS {
            assert!(r.text.len() <= RESULT_MAX);
            assert!(b"*-/".contains(&r.text[r.key]));
        }
    }

    #[test]
    fn moves_and_move_numbers_start_a_game() {
        for t in [
            "1.", "1. e4", "12...Nf6", "e4", "exd5", "Nf3", "Nbd7", "N1f3", "Qh4xe1", "g1f3",
            "O-O-O", "0-0", "o-o", "Sf3", "Lb5", "Dd1", "Tfe1", "Cf3", "Fb5", "Ae2", "Pf3", "xd5",
            "a8=Q",
        ] {
            assert!(starts_move(t.as_bytes()), "{t}");
        }
        for t in [
            "Poikovsky",
            "---------",
            "Round 2",
            "The next game",
            "a fine game",
            "123456789. x",
            "1-0",
            "*",
            "{ comment }",
            "e",
            "Ke",
            "2024",
            "",
        ] {
            assert!(!starts_move(t.as_bytes()), "{t}");
        }
    }

    #[test]
    fn glyphs_stand_alone() {
        for (t, n) in [
            ("+-", 2),
            ("+/- 2. e4", 3),
            ("= ", 1),
            ("=/∞", "=/∞".len()),
            ("±", 2),
            ("!?", 2),
            ("!! {", 2),
            ("□", 3),
        ] {
            assert_eq!(glyph_len(t.as_bytes()), Some(n), "{t}");
        }
        for t in ["=Q", "+", "!", "!!!", "!?!", "+-+", "e4", ""] {
            assert_eq!(glyph_len(t.as_bytes()), None, "{t}");
        }
    }
}
