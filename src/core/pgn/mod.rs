//! One game's PGN text turned into an owned-enough [`Game`]: decoded tags,
//! the mainline moves with the exact text each was written as, the comments
//! after the last move, and the first token that is not PGN at all.
//!
//! The movetext reader is our own rather than `pgn_reader::Reader`: an audit
//! has to report the move *as written* (`0-0`, `Kg1`, `e8Q`) and must stop at
//! a token that is no move, where pgn-reader's visitor silently skips it (and
//! the game would be replayed without that move). SAN itself is parsed by
//! shakmaty, tag values are unescaped by pgn-reader.

mod movetext;
mod tags;

pub use movetext::{Glyph, Mended, MoveToken, SyntaxError};
pub use tags::{TagQuirk, TagQuirkKind, Tags, decode_text};

/// One game as read from its bytes, borrowing them.
#[derive(Debug, Clone)]
pub struct Game<'a> {
    /// The game's bytes exactly as in the source.
    pub bytes: &'a [u8],
    /// The tags the audit reads.
    pub tags: Tags,
    /// The mainline moves, in order; ply `i + 1` is `moves[i]`.
    pub moves: Moves,
    /// (v3) The evaluation glyphs standing alone in the mainline, in order.
    pub glyphs: Vec<Glyph>,
    /// The piece letters the moves were read in.
    pub letters: PieceLetters,
    /// Where the movetext starts in `bytes`.
    movetext_start: usize,
    /// The first token that could not be read, after `moves`.
    pub syntax_error: Option<SyntaxError>,
    /// Byte ranges (into `bytes`) of the comments after the last move.
    pub final_comments: Vec<(u32, u32)>,
    /// The result token that ends the movetext, canonical (`1/2` and `½-½`
    /// are `1/2-1/2`); `None` where there is none.
    pub result_token: Option<&'static str>,
    /// Where that token is written: its byte range in `bytes`.
    pub result_span: Option<(u32, u32)>,
}

/// Where a game writes its result, as the reader found it: what a
/// correction of the result (`--fix`) edits, byte ranges and positions in
/// the game's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultPlaces {
    /// The value of the Result tag read, between its quotes; `None`
    /// without a Result tag.
    pub tag_value: Option<(u32, u32)>,
    /// Where the tag section ends (the movetext starts); `None` for a game
    /// without tags.
    pub section_end: Option<u32>,
    /// The result token that closes the movetext; `None` without one.
    pub token: Option<(u32, u32)>,
    /// Right after the movetext's last byte that is not blank (its start
    /// where it is all blank): where a missing result token goes.
    pub movetext_end: u32,
}

/// A game's mainline moves, read as a slice. Their storage goes back to
/// the thread that read the game when it is dropped, for the next game
/// that thread reads (measured: a game's largest allocation, about 500
/// instructions of malloc and free); what the moves are never depends on
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Moves(Vec<MoveToken>);

impl std::ops::Deref for Moves {
    type Target = [MoveToken];
    fn deref(&self) -> &[MoveToken] {
        &self.0
    }
}

impl<'m> IntoIterator for &'m Moves {
    type Item = &'m MoveToken;
    type IntoIter = std::slice::Iter<'m, MoveToken>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Drop for Moves {
    fn drop(&mut self) {
        let moves = std::mem::take(&mut self.0);
        if moves.capacity() <= SPARE_MOVES_MAX {
            // A thread that is ending keeps nothing.
            let _ = SPARE_MOVES.try_with(|spare| spare.set(moves));
        }
    }
}

/// The most moves a kept storage holds (64 KiB): a very long game's is
/// freed, not kept for a thread's lifetime.
const SPARE_MOVES_MAX: usize = 4096;

thread_local! {
    /// The storage of the moves of the last game this thread dropped.
    static SPARE_MOVES: std::cell::Cell<Vec<MoveToken>> = const { std::cell::Cell::new(Vec::new()) };
}

/// An empty list for a game's moves, with room for `capacity`: the storage
/// of the last game this thread dropped where there is one.
pub(crate) fn spare_moves(capacity: usize) -> Vec<MoveToken> {
    let mut moves = SPARE_MOVES
        .try_with(std::cell::Cell::take)
        .unwrap_or_default();
    moves.clear();
    moves.reserve(capacity);
    moves
}

/// The piece letters a game's moves are written in: English (SAN), or
/// (v3) one of the foreign sets the contract reads. Pawn moves are written
/// as in SAN in every set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceLetters {
    /// `K Q R B N`.
    English,
    /// `K D T L S`: König, Dame, Turm, Läufer, Springer.
    German,
    /// `R D T F C`: roi, dame, tour, fou, cavalier.
    French,
    /// `R D T A C`: rey, dama, torre, alfil, caballo.
    Spanish,
    /// `K D T L P`: koning, dame, toren, loper, paard.
    Dutch,
}

impl PieceLetters {
    /// The foreign sets, in the order they are tried.
    pub const FOREIGN: [PieceLetters; 4] = [
        PieceLetters::German,
        PieceLetters::French,
        PieceLetters::Spanish,
        PieceLetters::Dutch,
    ];

    /// The set's letters for king, queen, rook, bishop and knight.
    fn letters(self) -> [u8; 5] {
        match self {
            PieceLetters::English => *b"KQRBN",
            PieceLetters::German => *b"KDTLS",
            PieceLetters::French => *b"RDTFC",
            PieceLetters::Spanish => *b"RDTAC",
            PieceLetters::Dutch => *b"KDTLP",
        }
    }

    /// The English letter of the piece that `letter` names in this set;
    /// `None` for a letter that is not the set's.
    pub(crate) fn english(self, letter: u8) -> Option<u8> {
        let k = self.letters().iter().position(|&l| l == letter)?;
        Some(b"KQRBN"[k])
    }

    /// Whether `letter` names a piece in this set.
    pub fn has(self, letter: u8) -> bool {
        self.letters().contains(&letter)
    }
}

/// The longest game [`Game::parse`] reads, in bytes: offsets into a game
/// are `u32`.
const MAX_GAME_LEN: usize = u32::MAX as usize;

/// Byte `i` of a game as an offset into it.
#[inline]
#[allow(
    clippy::cast_possible_truncation,
    reason = "Game::parse reads at most u32::MAX bytes of a game"
)]
fn offset(i: usize) -> u32 {
    debug_assert!(i <= MAX_GAME_LEN);
    i as u32
}

impl<'a> Game<'a> {
    /// Reads one game from its bytes. Never fails: what cannot be read is
    /// kept as [`Game::syntax_error`]. A game is read as far as its first
    /// `u32::MAX` bytes (4 GiB; the pipeline caps games far below that).
    pub fn parse(bytes: &'a [u8]) -> Game<'a> {
        let bytes = &bytes[..bytes.len().min(MAX_GAME_LEN)];
        let (tags, movetext_start) = tags::read_tags(bytes);
        Game::with_movetext(bytes, tags, movetext_start, PieceLetters::English)
    }

    /// (v3) The same game, its movetext read again with the piece letters
    /// of `letters`.
    pub fn read_in(&self, letters: PieceLetters) -> Game<'a> {
        Game::with_movetext(self.bytes, self.tags.clone(), self.movetext_start, letters)
    }

    fn with_movetext(
        bytes: &'a [u8],
        tags: Tags,
        movetext_start: usize,
        letters: PieceLetters,
    ) -> Game<'a> {
        let mt = movetext::read_movetext(bytes, movetext_start, letters);
        Game {
            bytes,
            tags,
            moves: Moves(mt.moves),
            glyphs: mt.glyphs,
            letters,
            movetext_start,
            syntax_error: mt.error,
            final_comments: mt.final_comments,
            result_token: mt.result,
            result_span: mt.result_span,
        }
    }

    /// Where the game writes its result ([`ResultPlaces`]).
    pub fn result_places(&self) -> ResultPlaces {
        let text = &self.bytes[self.movetext_start..];
        let blank_end = text.trim_ascii_end().len();
        ResultPlaces {
            tag_value: self.tags.result_value,
            section_end: self.tags.section_end,
            token: self.result_span,
            movetext_end: offset(self.movetext_start + blank_end),
        }
    }

    /// The result token that ends the movetext, read or not: where the
    /// movetext could not be read to its end, the last token of the game's
    /// text, if it is a result (`1. e4 $$$ e5 0-1` ends with `0-1`), and
    /// not inside a comment or variation that runs to the end (`1. e4
    /// {oops 0-1` ends with no token).
    pub fn closing_result(&self) -> Option<&'static str> {
        self.result_token.or_else(|| {
            let error = self.syntax_error.as_ref()?;
            if [
                movetext::UNTERMINATED_COMMENT,
                movetext::UNTERMINATED_VARIATION,
            ]
            .contains(&error.detail.as_str())
            {
                return None;
            }
            let text = self.bytes.get(self.movetext_start..)?;
            let end = text.iter().rposition(|b| !b.is_ascii_whitespace())? + 1;
            // (v4) `*` is a token by itself (`a5*`).
            let start = if text[end - 1] == b'*' {
                end - 1
            } else {
                text[..end]
                    .iter()
                    .rposition(u8::is_ascii_whitespace)
                    .map_or(0, |k| k + 1)
            };
            pgn_audit_lex::result(&text[start..end])
        })
    }

    /// The move's text exactly as written in the PGN (annotation glyphs
    /// such as `!?` excluded).
    pub(crate) fn move_text(&self, m: &MoveToken) -> &'a str {
        let range = m.start as usize..m.end as usize;
        let written = &self.bytes[range.clone()];
        if written.is_ascii() {
            // What the branches below give for ASCII, without checking the
            // whole game: an ASCII cut of valid UTF-8 is on char boundaries.
            return std::str::from_utf8(written).unwrap_or("?");
        }
        match std::str::from_utf8(self.bytes) {
            // Cut at a char boundary exactly when the bytes alone are UTF-8.
            Ok(text) => text.get(range).unwrap_or("?"),
            Err(_) => std::str::from_utf8(written).unwrap_or("?"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game read after another, on the same thread, in the storage the
    /// first one left: its own moves, none of the other's.
    #[test]
    fn moves_read_in_kept_storage_are_the_games_own() {
        let texts = [
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *",
            "1. d4 *",
            "*",
            "1. c4 c5 *",
        ];
        let alone: Vec<Vec<String>> = texts
            .iter()
            .map(|t| {
                let game = Game::parse(t.as_bytes());
                game.moves
                    .iter()
                    .map(|m| game.move_text(m).to_owned())
                    .collect()
            })
            .collect();
        assert_eq!(alone[0].len(), 6);
        for (text, moves) in texts.iter().zip(&alone) {
            let game = Game::parse(text.as_bytes());
            let read: Vec<&str> = game.moves.iter().map(|m| game.move_text(m)).collect();
            assert_eq!(read, *moves, "{text}");
        }
        assert_eq!(alone[1], ["d4"]);
        assert!(alone[2].is_empty());
    }
}
