//! The movetext: moves, move numbers, comments, NAGs, evaluation glyphs,
//! variations (skipped) and the result. Every token is either understood or
//! reported. The tokens' lexical rules (result tokens, delimiters, glyphs)
//! are pgn-audit-lex's, which the splitter shares.

use pgn_audit_lex::{DELIMITERS, glyph_len};
use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::{Rank, Role};

use super::{PieceLetters, offset};

/// A mainline move: where it is written and what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveToken {
    /// Byte range of the move as written (annotation glyphs excluded),
    /// relative to the game's first byte.
    pub start: u32,
    /// End of that byte range (exclusive).
    pub end: u32,
    /// The move as SAN.
    pub san: San,
    /// Its check or mate mark, as written.
    pub suffix: Option<Suffix>,
    /// What the text needed mending before it was SAN (`0-0`, `e8Q`, `e.p.`).
    pub mended: Mended,
}

/// The sloppy forms of a move's text that the reader mended into SAN, as a
/// set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mended(u8);

impl Mended {
    /// `0-0` or `0-0-0`.
    pub const CASTLING_WITH_ZEROS: Mended = Mended(1);
    /// `o-o` or `o-o-o`.
    pub const LOWERCASE_CASTLING: Mended = Mended(2);
    /// `e8Q`: the promotion piece without `=`.
    pub const PROMOTION_WITHOUT_EQUALS: Mended = Mended(4);
    /// `exd6e.p.`, `exd6ep` or `exd6 e.p.`.
    pub const EN_PASSANT_SUFFIX: Mended = Mended(8);
    /// `Nd6++`, the old sign of a double check.
    pub const DOUBLE_CHECK_MARK: Mended = Mended(16);
    /// (v3) `Sf3`, `e8=D`: a piece letter of a foreign language's set.
    pub const FOREIGN_PIECE_LETTERS: Mended = Mended(32);

    /// Whether nothing was mended.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Whether every form in `other` was mended.
    pub fn contains(self, other: Mended) -> bool {
        self.0 & other.0 == other.0
    }
    fn insert(&mut self, other: Mended) {
        self.0 |= other.0;
    }
}

/// A token that is no move, number, comment, NAG, variation or result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// How many mainline moves were read before it.
    pub after_moves: usize,
    /// The token as written.
    pub token: String,
    /// Why it cannot be read.
    pub detail: String,
}

/// (v3) An evaluation glyph standing alone in the mainline (`+-`, `=`,
/// `±`, `!?`): annotation like a NAG, kept as a notation quirk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Glyph {
    /// How many mainline moves were read before it: the ply it annotates
    /// (0 before the first move).
    pub after_moves: u32,
    /// Byte range of the glyph, relative to the game's first byte.
    pub start: u32,
    /// End of that byte range (exclusive).
    pub end: u32,
}

pub(super) struct Movetext {
    pub moves: Vec<MoveToken>,
    /// The evaluation glyphs standing alone, in order.
    pub glyphs: Vec<Glyph>,
    pub error: Option<SyntaxError>,
    pub final_comments: Vec<(u32, u32)>,
    /// The first result token, canonical (`1/2` and `½-½` are `1/2-1/2`).
    pub result: Option<&'static str>,
    /// Where that token is written: its byte range in the game.
    pub result_span: Option<(u32, u32)>,
    /// While reading: the comment straight after the last move, read with
    /// it (Lichess writes one after every move), kept apart from the later
    /// ones in `final_comments` so that a move costs no push and clear of
    /// that vector; put in front of them when the reading ends.
    comment_after_move: Option<(u32, u32)>,
}

/// The detail of a comment that never closes: it runs to the game's end.
pub(super) const UNTERMINATED_COMMENT: &str = "unterminated comment";
/// The detail of a variation that never closes: it runs to the game's end.
pub(super) const UNTERMINATED_VARIATION: &str = "unterminated variation";

fn token_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < bytes.len() && !DELIMITERS[bytes[i] as usize] {
        i += 1;
    }
    i
}

fn at_line_start(bytes: &[u8], i: usize) -> bool {
    i == 0 || matches!(bytes[i - 1], b'\n' | b'\r')
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    memchr::memchr2(b'\n', b'\r', &bytes[from..]).map_or(bytes.len(), |i| from + i)
}

/// Reads the movetext that starts at `start`, piece letters read in
/// `letters`.
pub(super) fn read_movetext(bytes: &[u8], start: usize, letters: PieceLetters) -> Movetext {
    let mut out = Movetext {
        // About one move per 8 bytes without comments, fewer with them.
        moves: super::spare_moves(bytes.len().saturating_sub(start) / 8 + 4),
        glyphs: Vec::new(),
        error: None,
        final_comments: Vec::new(),
        result: None,
        result_span: None,
        comment_after_move: None,
    };
    // The English reading, nearly every game's, is an instance of its own
    // without a test of the letters per move (measured: 1 M instructions
    // on the sample ×5).
    if letters == PieceLetters::English {
        read_tokens::<true>(bytes, start, letters, &mut out);
    } else {
        read_tokens::<false>(bytes, start, letters, &mut out);
    }
    if let Some(comment) = out.comment_after_move.take() {
        out.final_comments.insert(0, comment);
    }
    out
}

// Long: one pass with one cursor over the bytes, one arm per token kind;
// the move arm (most tokens) stays inline in the loop.
/// Reads the movetext's tokens into `out`, up to the end or the first
/// token that is not PGN; `ENGLISH` where `letters` is English.
fn read_tokens<const ENGLISH: bool>(
    bytes: &[u8],
    start: usize,
    letters: PieceLetters,
    out: &mut Movetext,
) {
    let mut result_seen = false;
    let mut i = start;
    let fail = |out: &mut Movetext, from: usize, to: usize, detail: &str| {
        let to = to.min(from + 80).min(bytes.len());
        out.error = Some(SyntaxError {
            after_moves: out.moves.len(),
            token: super::decode_text(&bytes[from..to]),
            detail: detail.to_owned(),
        });
    };
    while i < bytes.len() {
        let c = bytes[i];
        // The two tokens nearly every ply is made of, read without the
        // general token lexer below: it gives the same answer for them. The
        // one space after a token is stepped over with it, saving a turn of
        // this loop. A move within a [`WINDOW`] of the game's end is left
        // to the general reader (which reads it to the same move).
        if c.is_ascii_digit() {
            if let Some(next) = move_number_end(bytes, i) {
                i = after_space(bytes, next);
                continue;
            }
        } else if SAN_START[c as usize]
            && ENGLISH
            && let Some(window) = bytes[i..].first_chunk::<WINDOW>()
            && let Some((san, len)) = fast_san_with(|k| Some(window[k % WINDOW]))
        {
            let end = i + len;
            if !push_move(out, result_seen, (i, end), san, Mended::default()) {
                fail(out, i, end, "move after the game result");
                return;
            }
            i = after_space(bytes, end);
            // Lichess writes a comment after every move (`{ [%clk 0:03:00] }`);
            // an unclosed one is left to the `{` arm below to report.
            if is_clock_comment(bytes, i) {
                let j = CLOCK_COMMENT_CLOSE;
                out.comment_after_move = Some((offset(i + 1), offset(i + 1 + j)));
                i = after_space(bytes, i + j + 2);
            } else if bytes.get(i) == Some(&b'{')
                && let Some(j) = find_close_brace(&bytes[i + 1..])
            {
                out.comment_after_move = Some((offset(i + 1), offset(i + 1 + j)));
                i = after_space(bytes, i + j + 2);
            }
            continue;
        }
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b' => i += 1,
            b'%' if at_line_start(bytes, i) => i = line_end(bytes, i),
            b'{' => match find_close_brace(&bytes[i + 1..]) {
                Some(j) => {
                    out.final_comments.push((offset(i + 1), offset(i + 1 + j)));
                    i = after_space(bytes, i + j + 2);
                }
                None => {
                    fail(out, i, line_end(bytes, i), UNTERMINATED_COMMENT);
                    return;
                }
            },
            b';' => {
                let end = line_end(bytes, i);
                out.final_comments.push((offset(i + 1), offset(end)));
                i = end;
            }
            b'(' => match skip_variation(bytes, i) {
                Some(end) => i = end,
                None => {
                    fail(out, i, line_end(bytes, i), UNTERMINATED_VARIATION);
                    return;
                }
            },
            b')' => {
                fail(out, i, i + 1, "closing parenthesis without a variation");
                return;
            }
            b'$' => {
                let digits = bytes[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                if digits == 0 {
                    fail(out, i, token_end(bytes, i + 1), "not a NAG");
                    return;
                }
                i += 1 + digits;
            }
            // (v3) `!?`, `!!` standing alone are evaluation glyphs; after
            // a move (`e4!?`), its suffix annotation (PGN 8.2.3.8).
            b'!' | b'?' => match stands_alone(bytes, start, i)
                .then(|| glyph_len(&bytes[i..]))
                .flatten()
            {
                Some(n) => {
                    push_glyph(out, i, i + n);
                    i += n;
                }
                None => i += 1,
            },
            // `5. ... Ba5`, `8. ...Bxc3`: the dots of a move number written
            // apart from it (PGN import format).
            b'.' => i += bytes[i..].iter().take_while(|&&b| b == b'.').count(),
            _ => {
                let end = token_end(bytes, i).max(i + 1);
                let token = &bytes[i..end];
                if matches!(c, b'1' | b'0' | b'*' | 0xc2)
                    && let Some(result) = pgn_audit_lex::result(token)
                {
                    if result_seen {
                        fail(out, i, end, "a second result after the game result");
                        return;
                    }
                    result_seen = true;
                    out.result = Some(result);
                    out.result_span = Some((offset(i), offset(end)));
                    i = end;
                    continue;
                }
                // (v3) `+-`, `=`, `±`, `∞`: an evaluation glyph, annotation.
                if matches!(c, b'+' | b'-' | b'=' | 0xc2 | 0xe2)
                    && glyph_len(&bytes[i..]) == Some(token.len())
                {
                    push_glyph(out, i, end);
                    i = end;
                    continue;
                }
                if c.is_ascii_digit() && !token.starts_with(b"0-0") && token != b"0000" {
                    // A move number: digits, then dots or a delimiter.
                    let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
                    let dots = token[digits..].iter().take_while(|&&b| b == b'.').count();
                    if dots == 0 && digits < token.len() {
                        fail(out, i, end, "not a move, move number or result");
                        return;
                    }
                    i += digits + dots;
                    continue;
                }
                if let Some((suffix, forms)) = en_passant_mark(token) {
                    if let Some(last) = out.moves.last_mut() {
                        last.mended.insert(Mended::EN_PASSANT_SUFFIX);
                        last.mended.insert(forms);
                        // The check mark after the mark is the move's.
                        if last.suffix.is_none() {
                            last.suffix = suffix;
                        }
                        // Written with its move (`exd6 e.p.`): part of it.
                        if apart_by_blanks(bytes, last.end, i) {
                            last.end = offset(end);
                        }
                    }
                    i = end;
                    continue;
                }
                // `Bb4 +`: a check mark written apart from its move, with
                // nothing but blanks between, is that move's.
                if matches!(c, b'+' | b'#')
                    && !result_seen
                    && let Some((suffix @ Some(_), forms)) = check_mark_of(token)
                    && let Some(last) = out.moves.last_mut()
                    && last.suffix.is_none()
                    && apart_by_blanks(bytes, last.end, i)
                {
                    last.suffix = suffix;
                    last.mended.insert(forms);
                    last.end = offset(end);
                    i = end;
                    continue;
                }
                // (v3) `e8 =Q`: the promotion piece written apart from its
                // pawn's move to the last rank is still its promotion.
                if c == b'='
                    && !result_seen
                    && let Some((role, suffix, forms)) = spaced_promotion(token, letters)
                    && let Some(last) = out.moves.last_mut()
                    && let San::Normal {
                        role: Role::Pawn,
                        to,
                        promotion: promotion @ None,
                        ..
                    } = &mut last.san
                    && matches!(to.rank(), Rank::First | Rank::Eighth)
                    && last.suffix.is_none()
                    && apart_by_blanks(bytes, last.end, i)
                {
                    *promotion = Some(role);
                    last.suffix = suffix;
                    last.mended.insert(forms);
                    last.end = offset(end);
                    i = end;
                    continue;
                }
                let read = if ENGLISH {
                    read_san(token)
                } else {
                    read_foreign_san(token, letters)
                };
                match read {
                    Some((san, mended)) => {
                        if !push_move(out, result_seen, (i, end), san, mended) {
                            fail(out, i, end, "move after the game result");
                            return;
                        }
                    }
                    None => {
                        fail(out, i, end, "not a move, move number or result");
                        return;
                    }
                }
                i = end;
            }
        }
    }
}

/// Bytes a SAN token that [`fast_san`] reads can start with.
const SAN_START: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let list = b"NBRQKabcdefgh";
    while k < list.len() {
        t[list[k] as usize] = true;
        k += 1;
    }
    t
};

/// The end of a move number (`12.`, `12...`) starting at `i`: digits, then
/// at least one dot. `None` for anything else, numbers without dots
/// included; those are left to the general reader. A token with a dot
/// straight after its digits is no result, castle or null move, so the
/// general reader would skip exactly these bytes too.
///
/// `bytes[i]` is a digit. The two usual forms are looked for whole: one
/// dot, or three (`12...`, before a black move).
#[inline]
fn move_number_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while bytes.get(j).is_some_and(u8::is_ascii_digit) {
        j += 1;
    }
    if bytes.get(j) != Some(&b'.') {
        return None;
    }
    j += 1;
    if bytes.get(j..j + 2) == Some(b"..") {
        j += 2;
    }
    while bytes.get(j) == Some(&b'.') {
        j += 1;
    }
    Some(j)
}

/// Whether the byte at `i` stands apart from the token before it: the
/// movetext starts there, or a blank, line end, comment or variation ends
/// before it.
fn stands_alone(bytes: &[u8], start: usize, i: usize) -> bool {
    i == start
        || matches!(
            bytes[i - 1],
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b' | b'}' | b')'
        )
}

/// Keeps the evaluation glyph at `start..end`, after the moves read so far.
#[cold]
fn push_glyph(out: &mut Movetext, start: usize, end: usize) {
    #[allow(
        clippy::cast_possible_truncation,
        reason = "a move takes at least two of a game's at most u32::MAX bytes"
    )]
    let after_moves = out.moves.len() as u32;
    out.glyphs.push(Glyph {
        after_moves,
        start: offset(start),
        end: offset(end),
    });
}

/// `i`, or past the space at `i`.
#[inline]
fn after_space(bytes: &[u8], i: usize) -> usize {
    i + usize::from(bytes.get(i) == Some(&b' '))
}

/// Where the `}` of a [clock comment](is_clock_comment) is, counted (as
/// [`find_close_brace`] counts) from the byte after its `{`.
const CLOCK_COMMENT_CLOSE: usize = 16;

/// Whether Lichess's clock comment after a move, `{ [%clk H:MM:SS] }` with
/// a one-digit hour, starts at `i` (its `{` included, so the token loop
/// asks this first, before any test for a `{`: measured, 0.9 M
/// instructions fewer on the sample ×5): its `}` is then at
/// [`CLOCK_COMMENT_CLOSE`] and nowhere before, found with three compares
/// instead of a search. The clock's seven bytes are only checked to lie in
/// `0x30..=0x3f` (digits, `:`), which is enough to hold no `}`.
#[inline]
fn is_clock_comment(bytes: &[u8], i: usize) -> bool {
    let Some(comment) = bytes.get(i..i + 18) else {
        return false;
    };
    let word = |k: usize| u64::from_le_bytes(comment[k..k + 8].try_into().expect("eight bytes"));
    const CLOCK_MASK: u64 = u64::from_le_bytes(*b"\xf0\xff\xf0\xf0\xff\xf0\xf0\xff");
    const CLOCK_SHAPE: u64 = u64::from_le_bytes(*b"0:00:00]");
    word(0) == u64::from_le_bytes(*b"{ [%clk ")
        && word(8) & CLOCK_MASK == CLOCK_SHAPE
        && comment[16..18] == *b" }"
}

/// Where the first `}` is: comments are short (`{ [%clk 0:05:00] }`), so
/// eight bytes at a time beats a call into memchr.
#[inline]
fn find_close_brace(hay: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES * u64::from(b'}');
    let mut at = 0;
    while at + 8 <= hay.len() {
        let chunk = u64::from_le_bytes(hay[at..at + 8].try_into().expect("eight bytes"));
        let x = chunk ^ pattern;
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
        if at >= 64 {
            return memchr::memchr(b'}', &hay[at..]).map(|j| at + j);
        }
    }
    hay[at..].iter().position(|&b| b == b'}').map(|j| at + j)
}

/// Adds a move read at `span`; the comments before it claim nothing. False
/// (and nothing added) after the game's result, where no move may stand.
#[inline]
fn push_move(
    out: &mut Movetext,
    result_seen: bool,
    span: (usize, usize),
    san: SanPlus,
    mended: Mended,
) -> bool {
    if result_seen {
        return false;
    }
    out.moves.push(MoveToken {
        start: offset(span.0),
        end: offset(span.1),
        san: san.san,
        suffix: san.suffix,
        mended,
    });
    out.final_comments.clear();
    out.comment_after_move = None;
    true
}

/// Skips a variation starting at the `(` at `i`, nested ones included.
/// Returns the index after its `)`, or `None` when it never closes.
fn skip_variation(bytes: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'{' => i += 1 + memchr::memchr(b'}', &bytes[i + 1..])?,
            b';' => i = line_end(bytes, i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// A check mark at the end of a token (`+`, `#`, or `++` for a double
/// check), and the forms it mended: `None` for any other ending.
fn check_mark_of(tail: &[u8]) -> Option<(Option<Suffix>, Mended)> {
    match tail {
        b"" => Some((None, Mended::default())),
        b"+" => Some((Some(Suffix::Check), Mended::default())),
        b"#" => Some((Some(Suffix::Checkmate), Mended::default())),
        b"++" => Some((Some(Suffix::Check), Mended::DOUBLE_CHECK_MARK)),
        _ => None,
    }
}

/// The bytes of `token` before its check marks, and those marks.
fn split_marks(token: &[u8]) -> (&[u8], &[u8]) {
    let marks = token
        .iter()
        .rev()
        .take_while(|&&b| b == b'+' || b == b'#')
        .count();
    token.split_at(token.len() - marks)
}

/// Whether nothing but blanks stands between a move that ends at `end` and
/// the token at `i`: a mark written apart from its move (`exd6 e.p.`,
/// `e8 =Q`, `Bb4 +`) is that move's only then.
fn apart_by_blanks(bytes: &[u8], end: u32, i: usize) -> bool {
    bytes[end as usize..i].iter().all(u8::is_ascii_whitespace)
}

/// An `e.p.` or `ep` written apart from its move (`exd6 e.p.`), with the
/// check mark that may follow it (`dxe3 e.p.+`): that mark, and the forms
/// it mended. `None` for any other token.
fn en_passant_mark(token: &[u8]) -> Option<(Option<Suffix>, Mended)> {
    let (body, marks) = split_marks(token);
    if body.eq_ignore_ascii_case(b"e.p.") || body.eq_ignore_ascii_case(b"ep") {
        check_mark_of(marks)
    } else {
        None
    }
}

/// (v3) A promotion written apart from its move (`=Q`, `=Q+`, `=D` in a
/// German game): the piece, the check mark, and the forms it mended.
fn spaced_promotion(token: &[u8], letters: PieceLetters) -> Option<(Role, Option<Suffix>, Mended)> {
    let (body, marks) = split_marks(token);
    let [b'=', letter] = *body else {
        return None;
    };
    let english = letters.english(letter)?;
    let role = match english {
        b'N' => Role::Knight,
        b'B' => Role::Bishop,
        b'R' => Role::Rook,
        b'Q' => Role::Queen,
        _ => return None,
    };
    let (suffix, mut forms) = check_mark_of(marks)?;
    if english != letter {
        forms.insert(Mended::FOREIGN_PIECE_LETTERS);
    }
    Some((role, suffix, forms))
}

/// Reads a SAN token, mending the sloppy forms that still mean one move:
/// castling with zeros or a lowercase o, a promotion without `=`, an
/// `e.p.` suffix, `++` for a double check.
fn read_san(token: &[u8]) -> Option<(SanPlus, Mended)> {
    if let Some(san) = fast_san(token) {
        return Some((san, Mended::default()));
    }
    if let Ok(san) = SanPlus::from_ascii(token) {
        return Some((san, Mended::default()));
    }
    if token == b"0000" {
        // The UCI null move, as some tools write it: a null move (reported
        // as illegal), not a move number to skip.
        let null = SanPlus {
            san: San::Null,
            suffix: None,
        };
        return Some((null, Mended::default()));
    }
    let mut forms = Mended::default();
    let mut mended: Vec<u8> = token.to_vec();
    // `exd6e.p.`, `exf6ep`, and before a check mark `exf6ep+` (v3).
    let marks = mended
        .iter()
        .rev()
        .take_while(|&&b| b == b'+' || b == b'#')
        .count();
    let body = mended.len() - marks;
    for suffix in [&b"e.p."[..], b"ep"] {
        if body > suffix.len() && mended[body - suffix.len()..body].eq_ignore_ascii_case(suffix) {
            mended.drain(body - suffix.len()..body);
            forms.insert(Mended::EN_PASSANT_SUFFIX);
            break;
        }
    }
    if mended.ends_with(b"++") {
        mended.pop();
        forms.insert(Mended::DOUBLE_CHECK_MARK);
    }
    // Long algebraic with a hyphen (`e2-e4`, `Ng1-f3`, as pgn-extract
    // writes it): the move in coordinates (`e2e4`, `Ng1f3`).
    let square_at = |k: usize| {
        matches!(mended.get(k), Some(b'a'..=b'h')) && matches!(mended.get(k + 1), Some(b'1'..=b'8'))
    };
    let piece = usize::from(matches!(
        mended.first(),
        Some(b'N' | b'B' | b'R' | b'Q' | b'K')
    ));
    if square_at(piece) && mended.get(piece + 2) == Some(&b'-') && square_at(piece + 3) {
        mended.remove(piece + 2);
    }
    // Castling with zeros or a lowercase o: `0-0`, `o-o-o`.
    for (start, form) in [
        (b"0-0", Mended::CASTLING_WITH_ZEROS),
        (b"o-o", Mended::LOWERCASE_CASTLING),
    ] {
        if mended.starts_with(start) {
            for b in mended.iter_mut() {
                if *b == start[0] {
                    *b = b'O';
                }
            }
            forms.insert(form);
        }
    }
    // `e8Q`, `exd8Q+`: a promotion piece straight after the rank, the last
    // letter of the move (`R1b8`, `b1b8` name the b-file, not a bishop); and
    // a move in coordinates with a promotion piece to any rank (`e2e4q`),
    // which names no legal move and is judged so, not refused as no move.
    let promotes = |b: u8| matches!(b, b'Q' | b'R' | b'B' | b'N' | b'q' | b'r' | b'b' | b'n');
    let only_marks = |rest: &[u8]| rest.iter().all(|&b| b == b'+' || b == b'#');
    let coordinates = mended.len() >= 5
        && matches!(mended[0], b'a'..=b'h')
        && matches!(mended[1], b'1'..=b'8')
        && matches!(mended[2], b'a'..=b'h')
        && matches!(mended[3], b'1'..=b'8')
        && promotes(mended[4])
        && only_marks(&mended[5..]);
    if let Some(p) = mended
        .windows(2)
        .enumerate()
        .position(|(k, w)| {
            matches!(w[0], b'1' | b'8') && promotes(w[1]) && only_marks(&mended[k + 2..])
        })
        .or(coordinates.then_some(3))
    {
        mended.insert(p + 1, b'=');
        forms.insert(Mended::PROMOTION_WITHOUT_EQUALS);
    }
    SanPlus::from_ascii(&mended).ok().map(|san| (san, forms))
}

/// (v3) Reads a SAN token written with the piece letters of `letters`, a
/// foreign language's set: its piece letter and promotion piece are put in
/// English, then it is read as [`read_san`] reads it. A piece letter that
/// is not of the set (an English `N` in a German game) reads no move.
fn read_foreign_san(token: &[u8], letters: PieceLetters) -> Option<(SanPlus, Mended)> {
    let mut english = token.to_vec();
    let mut foreign = false;
    let castle = [&b"O-O"[..], b"0-0", b"o-o"]
        .iter()
        .any(|c| token.starts_with(c));
    // A letter that English writes alike (German `K`) is no foreign one.
    if !castle && english.first().is_some_and(u8::is_ascii_uppercase) {
        english[0] = letters.english(token[0])?;
        foreign |= english[0] != token[0];
    }
    // A promotion piece: after `=`, or straight after the last rank.
    if let Some(p) = english
        .windows(2)
        .position(|w| matches!(w[0], b'=' | b'1' | b'8') && w[1].is_ascii_uppercase())
    {
        english[p + 1] = letters.english(token[p + 1])?;
        foreign |= english[p + 1] != token[p + 1];
    }
    let (san, mut mended) = read_san(&english)?;
    if foreign {
        mended.insert(Mended::FOREIGN_PIECE_LETTERS);
    }
    Some((san, mended))
}

/// `SanPlus::from_ascii(token)` for the usual forms (`e4`, `Nbxd7+`,
/// `exd8=Q#`), read the way shakmaty reads them; `None` leaves the token to
/// shakmaty (castles, drops, null moves, and anything it would refuse).
fn fast_san(token: &[u8]) -> Option<SanPlus> {
    fast_san_at(token, 0).map(|(san, _)| san)
}

/// [`fast_san`] of the token starting at `start`, and where it ends, found
/// in one pass. Every byte the SAN grammar below accepts is a non-delimiter
/// and every delimiter is refused where a SAN byte is required, so reading
/// on past the token's end gives the same answer as stopping there.
fn fast_san_at(bytes: &[u8], start: usize) -> Option<(SanPlus, usize)> {
    let token = &bytes[start..];
    fast_san_with(|i| token.get(i).copied()).map(|(san, i)| (san, start + i))
}

/// How many bytes [`fast_san_at`] reads at once where the game has that
/// many left: more than the longest SAN it reads (`Qh4xe1=Q#`, nine bytes)
/// and the byte after it, so that no byte is tested against the end.
const WINDOW: usize = 16;

// Long: one pass over the token's bytes, one step per part of the SAN
// grammar, inlined into the token loop.
/// [`fast_san_at`] over the bytes that `at` gives from the token's start
/// (`None` past the game's end): the SAN and the length it is written in.
/// The token loop reads it from a [`WINDOW`], tested against the game's
/// end once (measured: 1.4 M instructions fewer on the sample ×5 than a
/// test per byte); the last bytes of a game go to the general reader.
#[inline(always)]
fn fast_san_with(at: impl Fn(usize) -> Option<u8>) -> Option<(SanPlus, usize)> {
    use shakmaty::{File, Rank, Role, Square};
    let file_of = |b: u8| {
        (b'a'..=b'h')
            .contains(&b)
            .then(|| File::new(u32::from(b - b'a')))
    };
    let rank_of = |b: u8| {
        (b'1'..=b'8')
            .contains(&b)
            .then(|| Rank::new(u32::from(b - b'1')))
    };
    let (role, mut i) = match at(0)? {
        b'N' => (Role::Knight, 1),
        b'B' => (Role::Bishop, 1),
        b'R' => (Role::Rook, 1),
        b'Q' => (Role::Queen, 1),
        b'K' => (Role::King, 1),
        b'a'..=b'h' => (Role::Pawn, 0),
        _ => return None,
    };
    let file = file_of(at(i)?);
    if file.is_some() {
        i += 1;
    }
    let rank = rank_of(at(i)?);
    if rank.is_some() {
        i += 1;
    }
    let (file, rank, capture, to) = if at(i) == Some(b'x') {
        let to_file = file_of(at(i + 1)?)?;
        let to_rank = rank_of(at(i + 2)?)?;
        i += 3;
        (file, rank, true, Square::from_coords(to_file, to_rank))
    } else if let Some(to_file) = at(i).and_then(file_of) {
        let to_rank = rank_of(at(i + 1)?)?;
        i += 2;
        (file, rank, false, Square::from_coords(to_file, to_rank))
    } else {
        (None, None, false, Square::from_coords(file?, rank?))
    };
    let promotion = if at(i) == Some(b'=') {
        let role = match at(i + 1)? {
            b'N' => Role::Knight,
            b'B' => Role::Bishop,
            b'R' => Role::Rook,
            b'Q' => Role::Queen,
            _ => return None,
        };
        i += 2;
        Some(role)
    } else {
        None
    };
    let suffix = match at(i) {
        Some(b'+') => Some(Suffix::Check),
        Some(b'#') => Some(Suffix::Checkmate),
        _ => None,
    };
    if suffix.is_some() {
        i += 1;
    }
    if at(i).is_some_and(|b| !DELIMITERS[b as usize]) {
        return None;
    }
    let san = SanPlus {
        san: San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        },
        suffix,
    };
    Some((san, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Vec<String>, Option<SyntaxError>, Vec<String>) {
        let b = text.as_bytes();
        let mt = read_movetext(b, 0, PieceLetters::English);
        let moves = mt
            .moves
            .iter()
            .map(|m| String::from_utf8_lossy(&b[m.start as usize..m.end as usize]).into_owned())
            .collect();
        let comments = mt
            .final_comments
            .iter()
            .map(|&(s, e)| String::from_utf8_lossy(&b[s as usize..e as usize]).into_owned())
            .collect();
        (moves, mt.error, comments)
    }

    #[test]
    fn numbers_comments_nags_variations() {
        let (moves, err, comments) =
            read("1.e4 $1 e5!? 2. Nf3 (2. f4 {x} (2. d4)) 2... Nc6 { end } 1/2-1/2 {draw}");
        assert_eq!(moves, ["e4", "e5", "Nf3", "Nc6"]);
        assert_eq!(err, None);
        assert_eq!(comments, [" end ", "draw"]);
    }

    #[test]
    fn move_numbers_with_their_dots_apart() {
        let (moves, err, _) =
            read("1. e4 1. ... e5 2. Nf3 2. ...Nc6 3. Bb5 3...a6 4.Ba4 4 ... Nf6 *");
        assert_eq!(moves, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"]);
        assert_eq!(err, None);
    }

    #[test]
    fn sloppy_forms_are_mended() {
        let b = "1. 0-0-0+ e8Q bxa8N+ exd6e.p. exd6 e.p. o-o Nd6++ exf6ep exf6ep+ exd6e.p.#";
        let mt = read_movetext(b.as_bytes(), 0, PieceLetters::English);
        assert_eq!(mt.error, None);
        let forms: Vec<(&str, Mended)> = mt
            .moves
            .iter()
            .map(|m| (&b[m.start as usize..m.end as usize], m.mended))
            .collect();
        assert_eq!(
            forms,
            [
                ("0-0-0+", Mended::CASTLING_WITH_ZEROS),
                ("e8Q", Mended::PROMOTION_WITHOUT_EQUALS),
                ("bxa8N+", Mended::PROMOTION_WITHOUT_EQUALS),
                ("exd6e.p.", Mended::EN_PASSANT_SUFFIX),
                ("exd6 e.p.", Mended::EN_PASSANT_SUFFIX),
                ("o-o", Mended::LOWERCASE_CASTLING),
                ("Nd6++", Mended::DOUBLE_CHECK_MARK),
                ("exf6ep", Mended::EN_PASSANT_SUFFIX),
                ("exf6ep+", Mended::EN_PASSANT_SUFFIX),
                ("exd6e.p.#", Mended::EN_PASSANT_SUFFIX),
            ]
        );
        assert_eq!(mt.moves[8].suffix, Some(Suffix::Check));
        assert_eq!(mt.moves[9].suffix, Some(Suffix::Checkmate));
        assert_eq!(mt.moves[6].suffix, Some(Suffix::Check));
        assert_eq!(
            mt.moves[0].san,
            San::Castle(shakmaty::CastlingSide::QueenSide)
        );
    }

    #[test]
    fn garbage_is_an_error_with_its_place() {
        let (moves, err, _) = read("1. e4 e5 2. xyzzy Nf3");
        assert_eq!(moves, ["e4", "e5"]);
        let err = err.unwrap();
        assert_eq!((err.after_moves, err.token.as_str()), (2, "xyzzy"));
        let (_, err, _) = read("1. e4 { open");
        assert_eq!(err.unwrap().detail, "unterminated comment");
        let (_, err, _) = read("1. e4 (1. d4 (1. c4)");
        assert_eq!(err.unwrap().detail, "unterminated variation");
        let (moves, err, _) = read("1. e4 0000 2. d4");
        assert_eq!(
            (moves, err),
            (
                vec!["e4".to_owned(), "0000".to_owned(), "d4".to_owned()],
                None
            )
        );
        let (_, err, _) = read("1. e4 1-0 2. d4");
        assert_eq!(err.unwrap().detail, "move after the game result");
        // `++` on a move whose rank is followed by a b-file square: the
        // `b` is no bishop to promote to (it was read as `R1=b8`).
        for text in ["R1b8++", "Rb1b8++", "Qd1b3++", "e8b++"] {
            let (moves, err, _) = read(text);
            assert_eq!((moves.len(), err.map(|e| e.detail)), (1, None), "{text}");
        }
        // A move in coordinates with a promotion piece is read as one (the
        // audit finds no legal move in `e2e4q`: an illegal_move).
        for text in ["e2e4q", "e2e4Q+", "a7a8n"] {
            let (moves, err, _) = read(text);
            assert_eq!((moves.len(), err.map(|e| e.detail)), (1, None), "{text}");
        }
        // A second result is text after the result too: it was taken
        // without a word, the first one kept.
        for text in ["1. e4 1-0 0-1", "1. e4 * *", "1. e4 1/2 {x} 1/2-1/2"] {
            let (moves, err, _) = read(text);
            let err = err.expect(text);
            assert_eq!(moves, vec!["e4".to_owned()], "{text}");
            assert_eq!(
                err.detail, "a second result after the game result",
                "{text}"
            );
            assert_eq!(err.after_moves, 1, "{text}");
        }
    }

    /// (v3) Evaluation glyphs standing alone are annotation, each kept with
    /// the ply it follows; `=Q` in a promotion and `!?` after a move are no
    /// glyph, and a glyph fused to a move is no move.
    #[test]
    fn evaluation_glyphs_are_annotation() {
        let b = "+= 1. e4 += e5 2. Nf3 !? Nc6 ±\n3. Bb5 +/- a6 = 4. Ba4 ∞ =/∞ Nf6!? \
                 5. O-O □ -+ 6. e8=Q ‼ (6. e8=R =) ?? *";
        let mt = read_movetext(b.as_bytes(), 0, PieceLetters::English);
        assert_eq!(mt.error, None);
        let glyphs: Vec<(u32, &str)> = mt
            .glyphs
            .iter()
            .map(|g| (g.after_moves, &b[g.start as usize..g.end as usize]))
            .collect();
        assert_eq!(
            glyphs,
            [
                (0, "+="),
                (1, "+="),
                (3, "!?"),
                (4, "±"),
                (5, "+/-"),
                (6, "="),
                (7, "∞"),
                (7, "=/∞"),
                (9, "□"),
                (9, "-+"),
                (10, "‼"),
                (10, "??"),
            ]
        );
        let (moves, ..) = read(b);
        assert_eq!(
            moves,
            [
                "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "e8=Q"
            ]
        );
        for (text, token) in [("1. e4+- e5", "e4+-"), ("1. e4 +-+ e5", "+-+")] {
            let (_, err, _) = read(text);
            assert_eq!(err.unwrap().token, token, "{text}");
        }
    }

    /// (v3) Foreign piece letters: read in their set, each move with a
    /// letter English writes otherwise marked; a letter of another set, or
    /// an English one the set lacks, reads no move.
    #[test]
    fn foreign_piece_letters_are_read_in_their_set() {
        let b = "1. e4 e5 2. Sf3 Sc6 3. Lb5 a6 4. O-O Dg5 5. Te1 b5 6. Kh1 Sd4 7. e8D";
        let mt = read_movetext(b.as_bytes(), 0, PieceLetters::German);
        assert_eq!(mt.error, None);
        let sans: Vec<String> = mt.moves.iter().map(|m| m.san.to_string()).collect();
        assert_eq!(
            sans,
            [
                "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O", "Qg5", "Re1", "b5", "Kh1", "Nd4",
                "e8=Q"
            ]
        );
        let foreign: Vec<bool> = mt
            .moves
            .iter()
            .map(|m| m.mended.contains(Mended::FOREIGN_PIECE_LETTERS))
            .collect();
        // `Kh1` reads alike in English: no foreign letter, no mark.
        assert_eq!(
            foreign,
            [
                false, false, true, true, true, false, false, true, true, false, false, true, true
            ]
        );
        let french = read_movetext(b"1. e4 e5 2. Cf3 Cc6 3. Fc4 Re7", 0, PieceLetters::French);
        let sans: Vec<String> = french.moves.iter().map(|m| m.san.to_string()).collect();
        assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6", "Bc4", "Ke7"]);
        for (letters, text, token) in [
            (PieceLetters::English, "1. e4 e5 2. Sf3", "Sf3"),
            (PieceLetters::German, "1. e4 e5 2. Nf3", "Nf3"),
            (PieceLetters::German, "1. e4 e5 2. Sf3 Cc6", "Cc6"),
            (PieceLetters::Spanish, "1. e4 e5 2. Cf3 Fc5", "Fc5"),
        ] {
            let mt = read_movetext(text.as_bytes(), 0, letters);
            assert_eq!(mt.error.unwrap().token, token, "{letters:?} {text}");
        }
    }

    #[test]
    fn fast_san_agrees_with_shakmaty() {
        let alphabet = b"NBRQKPOo0-=x+#@Zabcdefgh12345678qrnk.e";
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        for _ in 0..2_000_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = 1 + (seed % 8) as usize;
            let mut token = Vec::with_capacity(len);
            let mut r = seed >> 3;
            for _ in 0..len {
                token.push(alphabet[usize::try_from(r % alphabet.len() as u64).unwrap()]);
                r /= alphabet.len() as u64;
                if r == 0 {
                    r = seed.rotate_left(17) | 1;
                }
            }
            // Bias towards plausible moves: a role, then squares.
            if seed & 3 == 0 && len >= 2 {
                token[len - 2] = b'a' + u8::try_from((seed >> 40) % 8).unwrap();
                token[len - 1] = b'1' + u8::try_from((seed >> 44) % 8).unwrap();
            }
            let mut followed = token.clone();
            followed.push(b" {)$!"[(seed >> 50) as usize % 5]);
            assert_eq!(
                fast_san_at(&followed, 0),
                fast_san(&token).map(|san| (san, token.len())),
                "{followed:?}"
            );
            // The window the token loop reads: the token, its delimiter,
            // then whatever the game goes on with.
            let mut window = [b'N'; WINDOW];
            window[..followed.len()].copy_from_slice(&followed);
            assert_eq!(
                fast_san_with(|k| Some(window[k % WINDOW])),
                fast_san_at(&followed, 0),
                "{window:?}"
            );
            if let Some(fast) = fast_san(&token) {
                assert_eq!(Some(fast), SanPlus::from_ascii(&token).ok(), "{token:?}");
                checked += 1;
            }
        }
        for t in [
            "e4", "exd5", "Nbd7", "N1f3", "Ng1f3", "Qh4xe1+", "e8=Q#", "bxa8=N", "Kxe1",
        ] {
            assert_eq!(
                fast_san(t.as_bytes()),
                SanPlus::from_ascii(t.as_bytes()).ok(),
                "{t}"
            );
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn clock_comments_end_at_their_first_brace() {
        let (moves, err, comments) = read("1. e4 { [%clk 0:03:00] } e5 { [%clk 0:03:00] }");
        assert_eq!((moves.len(), err), (2, None));
        assert_eq!(comments, [" [%clk 0:03:00] "]);
        let (_, err, comments) = read("1. e4 { [%clk 10:03:00] }");
        assert_eq!(
            (err, comments),
            (None, vec![" [%clk 10:03:00] ".to_owned()])
        );
        let (_, err, _) = read("1. e4 { [%clk 0:0}:00] }");
        assert_eq!(err.unwrap().token, ":00");
    }

    #[test]
    fn deep_variations_do_not_recurse() {
        let text = format!("1. e4 {}{} e5 *", "(".repeat(10_000), ")".repeat(10_000));
        let (moves, err, _) = read(&text);
        assert_eq!((moves.len(), err), (2, None));
    }
}
