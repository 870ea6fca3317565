//! Cuts a stream of PGN bytes into games, line by line, without parsing moves.
//!
//! The rules are those of the report contract (v2, "Game boundaries" and
//! "Not games"), made robust for damaged files. A game's movetext runs until
//! its result token (`1-0`, `0-1`, `1/2-1/2`, `1/2`, `½-½`, `*`) outside
//! comments and variations: blank lines before it do not end the game. After
//! the result the game ends at the next blank line or tag line, and a `[`
//! right after the result on its line starts the next game there; (v4) the
//! result needs no blank on either side, as PGN's self-terminating
//! characters end the token before them (`a5*[Event` is a move, the result
//! and the next game). A game
//! without a result ends where a tag line (`[Name "value"]`) follows its
//! movetext, or at the end of the input. A comment that is still open
//! swallows blank lines, but not a tag line, nor a line that follows a blank
//! line and starts with move number one (`1.`): an unterminated comment
//! therefore costs only its own game, never the rest of the file. Text that
//! holds no tag, move or result (a block of `;` or `{ }` comments, or tag
//! lines that hold no tag: `[/pgn]`) is no game: a game without tags starts
//! on the line of its first move (or result). Lines that start with `%`
//! (PGN escape lines) and blank lines between games belong to no game.
//!
//! Line ends may be `\n`, `\r\n`, `\r\r\n` (a CRLF file converted once more)
//! or a lone `\r`. A line is blank when it holds only spaces, tabs, vertical
//! tabs and form feeds. NUL bytes and Ctrl-Z (0x1A), which pad files and
//! mark a DOS file's end, indent a line like blanks; a line of nothing else
//! belongs to no game and changes nothing (like a `%` line), and at the end
//! of the input they are not part of the last line. A UTF-8 byte order mark
//! at the start of any line (files concatenated with `cat`) is not part of
//! it.
//!
//! The splitter reads a line piece by piece as the bytes arrive and never
//! needs a byte again once it has been fed: what it must hold to decide (a
//! line end's `\r`, a BOM's first bytes, the first bytes of a line inside an
//! open comment, a token that may be a result, a tag line shorter than
//! [`WHOLE_TAG_LINE`]) it leaves unconsumed, a few kB at most; how the
//! bytes are fed never changes where games are cut. Keeping the bytes of the game in progress is the caller's
//! business ([`Splitter::game_start`]).

use std::ops::ControlFlow;

use pgn_audit_lex::{BLANK, DELIMITERS, RESULT_MAX, RESULTS, SELF_TERMINATING};

/// A game's place in its source: `start` is its first byte (first tag, or
/// first movetext byte), `end` is one past its last non-blank line's end
/// (or the `[` that starts the next game on the same line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSpan {
    /// The game's first byte.
    pub start: u64,
    /// One past its last byte.
    pub end: u64,
    /// The game ended after its result token: the token was read outside
    /// comments and variations, and its line ended (or the next game
    /// started on it). Its text is whole, whatever becomes of the input
    /// after it.
    pub ended: bool,
}

/// Where the splitter is, between lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between games.
    Between,
    /// In the tag section; `blank` is true after a blank line.
    Tags { blank: bool },
    /// In the movetext; `blank` is true after a blank line.
    Movetext { blank: bool },
}

/// What the splitter follows through a game's movetext.
#[derive(Clone, Copy, Debug, Default)]
struct Reading {
    /// Inside a `{ ... }` comment.
    comment: bool,
    /// How many `(` variations are open.
    depth: u32,
    /// A result token was read outside comments and variations.
    result: bool,
    /// A tag, move or result was read: the text is a game, not a block of
    /// comments.
    content: bool,
    /// A movetext line, or a tag line that may hold a tag, was read: whole
    /// tag lines without a quote (a forum's `[/pgn]`) and nothing else are
    /// no game.
    real: bool,
    /// The game's last line that is not blank was ended by a line end.
    closed: bool,
}

/// What a line does, decided on its first byte that is not blank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Blank so far (and blank, once the line ends).
    Blank,
    /// A `%` escape line, or one that changes nothing.
    Escape,
    /// A tag line of the game in progress, or the first of a new game.
    Tags,
    /// A movetext line of the game in progress, or the first of a new game.
    Movetext,
}

/// The line being read.
#[derive(Clone, Copy, Debug)]
struct Line {
    /// Offset of the line's first byte, after a BOM.
    start: u64,
    /// The line ends before the line.
    ends_before: u64,
    /// Offset of its first byte that is not blank, once read.
    first: u64,
    role: Role,
    /// A `;` outside a comment: the rest of the line is a comment.
    rest_commented: bool,
    /// The last token read is a result: a `[` next on the line starts the
    /// next game.
    after_result: bool,
    /// The byte before the next one to read ends a token (or there is
    /// none): a token starts there.
    boundary: bool,
    /// Where a tag line is: movetext after its tags (`[Event "x"] 1. e4 *`)
    /// is read as the movetext reader reads it.
    tag: TagScan,
    /// A line of blanks holds a NUL or Ctrl-Z: it is padding, which belongs
    /// to no game and changes nothing, rather than a blank line.
    padded: bool,
    /// One past the last byte read that is not NUL or Ctrl-Z, for a last
    /// line that the input ends without a line end.
    solid_end: u64,
    /// (v3) A line of prose before a game's first tag, move or result (a
    /// heading, a paragraph introducing the next game): only a result
    /// token in it makes it a game's.
    prose: bool,
}

/// Where a tag line is, as the tag reader reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TagScan {
    /// Not read yet: whether the line is all tags is decided on the whole
    /// line when it is shorter than [`WHOLE_TAG_LINE`].
    Unread,
    /// Before a tag's `[`, or the movetext.
    Open,
    /// In a tag's name, before the value's `"`.
    Name,
    /// In the value.
    Value,
    /// In the value, after a `\`.
    Escape,
    /// After the value, before its `]`.
    Close,
    /// The rest of the line is the tag's (a tag that cannot be read, or
    /// quotes not escaped).
    Done,
}

/// How far [`Line::scan`] read a piece of a movetext line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scanned {
    /// The first `n` bytes; the rest may be the start of a result token and
    /// is fed again with the bytes that follow.
    Upto(usize),
    /// Up to a `[` right after a result, at this index: it starts the next
    /// game.
    NextGame(usize),
}

/// A streaming game splitter: feed it bytes, it reports finished games.
#[derive(Debug)]
pub struct Splitter {
    state: State,
    reading: Reading,
    /// The game in progress, if any: its first byte and the end of its
    /// last line that is not blank.
    in_game: bool,
    start: u64,
    end: u64,
    /// The line ends before the game in progress's first byte.
    start_ends: u64,
    /// The line ends before the first byte of the game ended last.
    ended_ends: u64,
    /// The line ends consumed, as [`LineCount`](super::batch::LineCount)
    /// counts them: every `\n`, and every `\r` not followed by one.
    ends: u64,
    /// The line being read, once its first byte (after a BOM) is fed.
    line: Option<Line>,
    /// A line of comments longer than this, before a game's first tag,
    /// move or result, is a game: the caller keeps the bytes of such a line
    /// as a game's while it is read, and has started to drop them past its
    /// game cap ([`GAME_CAP`]).
    block_cap: u64,
}

impl Default for Splitter {
    fn default() -> Self {
        Splitter::new()
    }
}

const BOM: &[u8] = b"\xef\xbb\xbf";

/// At most how many bytes of one game are read: a longer game is audited
/// as far as its first `GAME_CAP` bytes go (cut after their last blank or
/// line end), then gets a `parse_error`.
pub const GAME_CAP: usize = 2 << 20;

/// Inside an open comment, how many bytes of a line after its indentation
/// are looked at to tell whether it starts a new game (a tag line, or `1.`).
pub(super) const HEAD: usize = pgn_audit_lex::LINE_HEAD;

/// A tag line shorter than this (from its first byte to its line end) that
/// ends with `"]` is all tags, as the tag reader reads it; a longer one is
/// read tag by tag. The splitter holds such a line's bytes until its line
/// end arrives, so that how the input is fed cannot change the decision.
pub(super) const WHOLE_TAG_LINE: u64 = 4096;

impl Line {
    fn new(start: u64, ends_before: u64) -> Line {
        Line {
            start,
            ends_before,
            first: start,
            role: Role::Blank,
            rest_commented: false,
            after_result: false,
            boundary: true,
            tag: TagScan::Open,
            padded: false,
            solid_end: start,
            prose: false,
        }
    }
}

impl Splitter {
    /// A splitter at the start of a source, for games capped at
    /// [`GAME_CAP`] bytes.
    pub fn new() -> Splitter {
        Splitter::with_block_cap(GAME_CAP as u64)
    }

    /// A splitter for a caller that caps games at `cap` bytes.
    pub(super) fn with_block_cap(cap: u64) -> Splitter {
        Splitter {
            state: State::Between,
            reading: Reading::default(),
            in_game: false,
            start: 0,
            end: 0,
            start_ends: 0,
            ended_ends: 0,
            ends: 0,
            line: None,
            block_cap: cap,
        }
    }

    /// The first byte of the game in progress, whose bytes the caller has
    /// to keep; `None` between games. Before a game's first tag, move or
    /// result, only the line being read is kept: comments before it are no
    /// game, and a game starts on the line of its first move.
    pub fn game_start(&self) -> Option<u64> {
        if !self.in_game {
            return None;
        }
        if self.reading.content {
            return Some(self.start);
        }
        self.line
            .filter(|l| l.role == Role::Movetext)
            .map(|l| l.first)
    }

    /// The line ends consumed so far (see [`Splitter::feed_lines_until`]).
    pub fn line_ends(&self) -> u64 {
        self.ends
    }

    /// Feeds `data`, whose first byte is at `base` in the source, and calls
    /// `emit` for every game that ends in it. Returns how many bytes were
    /// consumed: all but a few at the end that cannot be judged yet, which
    /// the caller feeds again with more data. With `eof`, everything is
    /// consumed and the last game ends.
    pub fn feed(
        &mut self,
        data: &[u8],
        base: u64,
        eof: bool,
        mut emit: impl FnMut(GameSpan),
    ) -> usize {
        self.feed_until(data, base, eof, |g| {
            emit(g);
            ControlFlow::Continue(())
        })
        .0
    }

    /// [`Splitter::feed`], stopping right after a game for which `emit`
    /// breaks: returns the bytes consumed and whether it stopped so (the
    /// rest is then fed again, `eof` included).
    pub fn feed_until(
        &mut self,
        data: &[u8],
        base: u64,
        eof: bool,
        mut emit: impl FnMut(GameSpan) -> ControlFlow<()>,
    ) -> (usize, bool) {
        self.feed_lines_until(data, base, eof, |g, _| emit(g))
    }

    /// [`Splitter::feed_until`], giving `emit` with each game the line
    /// ends before its first byte, counted from the splitter's start as
    /// [`LineCount`](super::batch::LineCount) counts them.
    // One loop over the lines: the per-line steps left in it (BOM, indent,
    // tags, movetext, line end) cost 0.06-0.2 % more instructions each when
    // split out (callgrind), so only the tag-line judgement and the input's
    // end are.
    pub fn feed_lines_until(
        &mut self,
        data: &[u8],
        base: u64,
        eof: bool,
        mut emit: impl FnMut(GameSpan, u64) -> ControlFlow<()>,
    ) -> (usize, bool) {
        let mut pos = 0;
        while pos < data.len() {
            if self.line.is_none() {
                let rest = &data[pos..];
                if !eof && rest.len() < BOM.len() && BOM.starts_with(rest) {
                    return (pos, false);
                }
                if rest.starts_with(BOM) {
                    pos += BOM.len();
                }
                self.line = Some(Line::new(base + pos as u64, self.ends));
            }
            let rest = &data[pos..];
            let (content, terminator) = match memchr::memchr2(b'\n', b'\r', rest) {
                Some(i) => (i, line_end_len(&rest[i..], eof)),
                None => (rest.len(), None),
            };
            let chunk = &rest[..content];
            // Whether the line goes on past `data`.
            let open = content == rest.len() && !eof;
            let mut from = 0;
            if self.line.is_some_and(|l| l.role == Role::Blank) {
                match chunk.iter().position(|&b| !BLANK[b as usize]) {
                    None => {
                        from = content;
                        if chunk.iter().any(|&b| b == 0 || b == 0x1a) {
                            self.line.as_mut().expect("a line is being read").padded = true;
                        }
                    }
                    Some(i) => {
                        // A tag line's head tells whether it holds a tag.
                        if open && chunk.len() - i < HEAD && (self.needs_head() || chunk[i] == b'[')
                        {
                            return (pos + i, false);
                        }
                        let emitted = self.decide(&chunk[i..], base + (pos + i) as u64);
                        if let Some(g) = emitted
                            && emit(g, self.ended_ends).is_break()
                        {
                            return (pos + i, true);
                        }
                        from = i;
                    }
                }
            }
            let line = self.line.as_mut().expect("a line is being read");
            if line.role == Role::Tags && line.tag == TagScan::Unread {
                let seen = base + (pos + content) as u64 - line.start;
                if !line.judge_tag_line(&chunk[from..], seen, open) {
                    return (pos + from, false);
                }
            }
            if line.role == Role::Tags
                && let Some(k) = line.scan_tags(&chunk[from..])
            {
                // `[Event "x"] 1. e4 *`: the movetext follows the tags.
                line.role = Role::Movetext;
                from += k;
            }
            if line.role == Role::Movetext {
                let had_content = self.reading.content;
                let scanned = line.scan(&mut self.reading, &chunk[from..], open);
                if !had_content && self.reading.content {
                    // The game's first move: it starts on this line.
                    self.start = line.first;
                    self.start_ends = line.ends_before;
                }
                match scanned {
                    Scanned::Upto(n) if from + n < content => {
                        line.note_solid(&chunk[..from + n], base + pos as u64);
                        return (pos + from + n, false);
                    }
                    Scanned::Upto(_) => {}
                    Scanned::NextGame(n) => {
                        let at = pos + from + n;
                        let ended = self.next_game_on_line(base + at as u64);
                        if let Some(g) = ended
                            && emit(g, self.ended_ends).is_break()
                        {
                            return (at, true);
                        }
                        pos = at;
                        continue;
                    }
                }
            }
            let line = self.line.as_mut().expect("a line is being read");
            if content == rest.len() {
                // The line goes on past `data`, or the input ends in it.
                line.note_solid(chunk, base + pos as u64);
            }
            pos += content;
            match terminator {
                Some(len) => {
                    pos += len;
                    // `\r\r\n` is two line ends (a `\r`, then `\r\n`).
                    self.ends += 1 + u64::from(len == 3);
                    if let Some(g) = self.end_line(base + pos as u64, true)
                        && emit(g, self.ended_ends).is_break()
                    {
                        return (pos, true);
                    }
                }
                // A `\r` that the next bytes tell what it ends.
                None if pos < data.len() => return (pos, false),
                None => {}
            }
        }
        if eof && self.end_input(&mut emit).is_break() {
            return (pos, true);
        }
        (pos, false)
    }

    /// Ends the input: the last line, without a line end (NULs and Ctrl-Z
    /// that pad the input are not part of it), then the last game.
    fn end_input(
        &mut self,
        emit: &mut impl FnMut(GameSpan, u64) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if let Some(end) = self.line.map(|l| l.solid_end)
            && let Some(g) = self.end_line(end, false)
            && emit(g, self.ended_ends).is_break()
        {
            return ControlFlow::Break(());
        }
        if let Some(g) = self.finish() {
            let _ = emit(g, self.ended_ends);
        }
        ControlFlow::Continue(())
    }

    /// Whether the line's first bytes decide what it is: inside an open
    /// comment, a tag line or `1.` starts a new game; after the result, a
    /// move starts one; before a game's first tag, move or result, they
    /// tell prose from the game's first line; in a tag section, a tag line
    /// that lost its `[` from the movetext.
    fn needs_head(&self) -> bool {
        !self.reading.content
            || self.state == State::Tags { blank: false }
            || (matches!(self.state, State::Movetext { .. })
                && (self.reading.comment || self.reading.result))
    }

    /// Decides the role of the line being read from `head`, its bytes from
    /// its first one that is not blank (at `at`). A line that starts a game
    /// ends the one in progress, which is returned.
    fn decide(&mut self, head: &[u8], at: u64) -> Option<GameSpan> {
        let line = self.line.as_mut().expect("a line is being read");
        let ends_before = line.ends_before;
        let first = head[0];
        let escape = at == line.start && first == b'%';
        // A tag line that lost its `[` (`Date "1983.10.23"]`), between
        // games or in a tag section: a tag line that cannot be read.
        let bracketless = matches!(self.state, State::Between | State::Tags { blank: false })
            && first.is_ascii_alphabetic()
            && is_bracketless(head);
        // (role, starts a game)
        let (role, starts) = match self.state {
            _ if bracketless => (Role::Tags, self.state == State::Between),
            State::Movetext { blank } if self.reading.comment => {
                if is_tag_line(head) {
                    (Role::Tags, true)
                } else if blank && is_move_one(head) {
                    (Role::Movetext, true)
                } else {
                    (Role::Movetext, false)
                }
            }
            _ if escape => (Role::Escape, false),
            State::Between => (
                if first == b'[' {
                    Role::Tags
                } else {
                    Role::Movetext
                },
                true,
            ),
            State::Tags { blank } if first == b'[' => (Role::Tags, blank),
            State::Tags { .. } => (Role::Movetext, false),
            State::Movetext { .. } if first == b'[' => (Role::Tags, true),
            // (v3) After the result, a line that starts with a move number
            // or a move starts the next game (tagless games one per line),
            // and a line of prose (an underline, a remark) ends the game:
            // only text on the result's own line is still the game's. A
            // line that holds a result token (in its first `HEAD` bytes) is
            // no prose: it is the game's, as any text before the next
            // blank line was in v2.
            State::Movetext { .. }
                if self.reading.result
                    && (pgn_audit_lex::starts_move(head)
                        || (is_prose(head) && !holds_result(&head[..head.len().min(HEAD)]))) =>
            {
                (Role::Movetext, true)
            }
            State::Movetext { .. } => (Role::Movetext, false),
        };
        line.role = role;
        line.first = at;
        // A whole tag line shorter than [`HEAD`] with no quote, closed by
        // its `]`, holds no tag; a line cut short (`[Eve` where the input
        // broke off) is still a game's.
        // Judged only until the game has such a line.
        let real = || {
            role == Role::Movetext
                || (role == Role::Tags
                    && !(head.len() < HEAD
                        && memchr::memchr(b'"', head).is_none()
                        && head.trim_ascii_end().ends_with(b"]")))
        };
        let content = !starts && self.reading.content;
        line.prose = role == Role::Movetext && !content && is_prose(head);
        if role == Role::Tags {
            line.tag = if bracketless {
                TagScan::Done
            } else {
                TagScan::Unread
            };
        }
        if !starts {
            if !self.reading.real {
                self.reading.real = real();
            }
            return None;
        }
        let ended = self.finish();
        self.in_game = true;
        self.start = at;
        self.start_ends = ends_before;
        self.end = at;
        self.reading.content = role == Role::Tags;
        self.reading.real = real();
        ended
    }

    /// Ends the game in progress at `at`, a `[` on the line being read that
    /// follows its result, and starts the next one there.
    fn next_game_on_line(&mut self, at: u64) -> Option<GameSpan> {
        self.end = at;
        self.reading.closed = true;
        let ended = self.finish();
        self.in_game = true;
        self.start = at;
        self.end = at;
        self.reading.content = true;
        self.reading.real = true;
        self.start_ends = self.line.map_or(self.ends, |l| l.ends_before);
        let line = self.line.as_mut().expect("a line is being read");
        line.role = Role::Tags;
        line.tag = TagScan::Unread;
        ended
    }

    /// Ends the line being read at `end`: past its line end where
    /// `terminated`, or where the input ends.
    fn end_line(&mut self, end: u64, terminated: bool) -> Option<GameSpan> {
        let line = self.line.take()?;
        match line.role {
            Role::Blank if line.padded => {}
            Role::Blank => match self.state {
                State::Between => {}
                State::Tags { .. } => self.state = State::Tags { blank: true },
                // After the result, a blank line ends the game.
                State::Movetext { .. } if self.reading.result => return self.finish(),
                State::Movetext { .. } => self.state = State::Movetext { blank: true },
            },
            Role::Escape => {}
            Role::Tags => {
                self.end = end;
                self.reading.closed = terminated;
                self.state = State::Tags { blank: false };
            }
            Role::Movetext => {
                if !self.reading.content && end - line.first > self.block_cap {
                    self.reading.content = true;
                    self.start = line.first;
                    self.start_ends = line.ends_before;
                }
                self.end = end;
                self.reading.closed = terminated;
                self.state = State::Movetext { blank: false };
            }
        }
        None
    }

    /// Ends the game in progress, if any: a block of comments is none.
    fn finish(&mut self) -> Option<GameSpan> {
        self.state = State::Between;
        let reading = std::mem::take(&mut self.reading);
        if !std::mem::take(&mut self.in_game) {
            return None;
        }
        self.ended_ends = self.start_ends;
        (reading.content && reading.real).then_some(GameSpan {
            start: self.start,
            end: self.end,
            ended: reading.result && reading.closed,
        })
    }
}

/// Whether the line that `head` starts (its first [`HEAD`] bytes, or all
/// of them up to the end of the input) is a tag line that lost its `[`;
/// a line longer than that is not taken for one.
fn is_bracketless(head: &[u8]) -> bool {
    let head = &head[..head.len().min(HEAD)];
    match memchr::memchr2(b'\n', b'\r', head) {
        Some(end) => pgn_audit_lex::is_bracketless_tag_line(&head[..end]),
        None if head.len() < HEAD => pgn_audit_lex::is_bracketless_tag_line(head),
        None => false,
    }
}

impl Line {
    /// Judges a tag line not read yet, whose bytes from `rest` on are seen
    /// (`seen` bytes of it in all): a line shorter than [`WHOLE_TAG_LINE`]
    /// is judged whole, so `false` while its line end has not arrived
    /// (`open`) and its bytes are to be held.
    fn judge_tag_line(&mut self, rest: &[u8], seen: u64, open: bool) -> bool {
        self.tag = if seen >= WHOLE_TAG_LINE {
            TagScan::Open
        } else if open {
            return false;
        } else if rest.trim_ascii_end().ends_with(b"\"]") {
            // The usual whole tag line: a line that ends with a quote and
            // `]` is all tags, its quotes unescaped or not.
            TagScan::Done
        } else {
            TagScan::Open
        };
        true
    }

    /// Notes `bytes`, consumed from `at` on: the line's last byte that is
    /// not NUL or Ctrl-Z may be among them. Every byte consumed is noted
    /// once, so the padding cut off a last line does not depend on how the
    /// input is fed.
    fn note_solid(&mut self, bytes: &[u8], at: u64) {
        if let Some(k) = bytes.iter().rposition(|&b| b != 0 && b != 0x1a) {
            self.solid_end = at + k as u64 + 1;
        }
    }

    /// Follows `bytes`, the next bytes of a tag line, through its tags:
    /// returns the index where movetext starts after them, if it does.
    fn scan_tags(&mut self, bytes: &[u8]) -> Option<usize> {
        let mut i = 0;
        while i < bytes.len() {
            match self.tag {
                TagScan::Unread | TagScan::Open | TagScan::Close => {
                    let b = bytes[i];
                    if b == b' ' || b == b'\t' {
                        i += 1;
                        continue;
                    }
                    self.tag = match (self.tag, b) {
                        (TagScan::Unread | TagScan::Open, b'[') => TagScan::Name,
                        (TagScan::Unread | TagScan::Open, _) => return Some(i),
                        (_, b']') => TagScan::Open,
                        _ => TagScan::Done,
                    };
                    i += 1;
                }
                TagScan::Name => match memchr::memchr2(b'"', b']', &bytes[i..]) {
                    Some(k) => {
                        self.tag = if bytes[i + k] == b'"' {
                            TagScan::Value
                        } else {
                            TagScan::Done
                        };
                        i += k + 1;
                    }
                    None => return None,
                },
                TagScan::Value => match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
                    Some(k) => {
                        self.tag = if bytes[i + k] == b'"' {
                            TagScan::Close
                        } else {
                            TagScan::Escape
                        };
                        i += k + 1;
                    }
                    None => return None,
                },
                TagScan::Escape => {
                    self.tag = TagScan::Value;
                    i += 1;
                }
                TagScan::Done => return None,
            }
        }
        None
    }

    /// Follows `bytes`, the next bytes of a movetext line from its first
    /// one that is not blank, through comments and variations, looking for
    /// the result token. With `open`, the line goes on past `bytes`: a last
    /// token that may be a result is left to be fed again.
    fn scan(&mut self, r: &mut Reading, bytes: &[u8], open: bool) -> Scanned {
        if self.rest_commented || bytes.is_empty() {
            return Scanned::Upto(bytes.len());
        }
        let mut n = bytes.len();
        let prose = self.prose;
        if open {
            let tail = n.saturating_sub(RESULT_MAX + 1);
            match bytes[tail..].iter().rposition(|&b| ends_token(b, prose)) {
                Some(k) => n = tail + k + 1,
                None if tail == 0 => return Scanned::Upto(0),
                // A token of more bytes than a result.
                None => {}
            }
        }
        let bytes = &bytes[..n];
        let split = if r.content
            && !self.after_result
            && memchr::memchr3(b';', b'(', b')', bytes).is_none()
        {
            self.scan_plain(r, bytes)
        } else {
            self.scan_slow(r, bytes)
        };
        if let Some(i) = split {
            return Scanned::NextGame(i);
        }
        self.boundary = bytes.last().is_some_and(|&b| ends_token(b, self.prose));
        Scanned::Upto(n)
    }

    /// [`Line::scan`] for a piece without `;`, `(` and `)`, whose comments
    /// the last brace decides and whose variation depth does not change:
    /// only the bytes that can be part of a result are looked at (most
    /// lines hold at most a castle, an evaluation and the result).
    fn scan_plain(&mut self, r: &mut Reading, bytes: &[u8]) -> Option<usize> {
        let open_before = r.comment;
        if let Some(i) = memchr::memrchr2(b'{', b'}', bytes) {
            r.comment = bytes[i] == b'{';
        }
        if r.depth > 0 {
            return None;
        }
        for p in memchr::memchr3_iter(b'*', b'-', b'/', bytes) {
            let Some(end) = result_at(bytes, p, self.boundary) else {
                continue;
            };
            let in_comment = match memchr::memrchr2(b'{', b'}', &bytes[..p]) {
                Some(i) => bytes[i] == b'{',
                None => open_before,
            };
            if in_comment {
                continue;
            }
            r.result = true;
            match bytes[end..].iter().position(|&b| b != b' ' && b != b'\t') {
                Some(k) if bytes[end + k] == b'[' => return Some(end + k),
                Some(_) => {}
                None => self.after_result = true,
            }
        }
        None
    }

    /// [`Line::scan`] for a line of prose: only a result token standing
    /// alone counts, which makes the line a game's (its first), read on
    /// from there as movetext; the rest is no comment, variation or move.
    fn scan_prose(&mut self, r: &mut Reading, bytes: &[u8]) -> Option<usize> {
        let mut i = 0;
        while i < bytes.len() {
            let end = if ends_token(bytes[i], true) {
                i + 1
            } else {
                bytes[i..]
                    .iter()
                    .position(|&b| ends_token(b, true))
                    .map_or(bytes.len(), |k| i + k)
            };
            let token = &bytes[i..end];
            let result = !ends_token(bytes[i], true)
                && (i > 0 || self.boundary)
                && pgn_audit_lex::result(token).is_some();
            // A control character is damage, not prose: the line is a
            // game's, read as movetext from this token on.
            if token.iter().any(|&b| is_control(b)) {
                self.prose = false;
                r.content = true;
                self.boundary = i > 0 || self.boundary;
                return self.scan_slow(r, &bytes[i..]).map(|k| i + k);
            }
            if result {
                self.prose = false;
                r.content = true;
                r.result = true;
                self.after_result = true;
                return self.scan_slow(r, &bytes[end..]).map(|k| end + k);
            }
            i = end;
        }
        None
    }

    /// [`Line::scan`], token by token.
    fn scan_slow(&mut self, r: &mut Reading, bytes: &[u8]) -> Option<usize> {
        if self.prose {
            return self.scan_prose(r, bytes);
        }
        let mut i = 0;
        while i < bytes.len() {
            if r.comment {
                match memchr::memchr(b'}', &bytes[i..]) {
                    Some(k) => {
                        r.comment = false;
                        i += k + 1;
                    }
                    None => return None,
                }
                continue;
            }
            let b = bytes[i];
            if self.after_result && b != b' ' && b != b'\t' {
                self.after_result = false;
                if b == b'[' {
                    return Some(i);
                }
            }
            match b {
                b'{' => r.comment = true,
                b';' => {
                    self.rest_commented = true;
                    return None;
                }
                b'(' => {
                    r.depth += 1;
                    r.content = true;
                }
                b')' => r.depth = r.depth.saturating_sub(1),
                // (v4) `*` is a token by itself: `a5*` is a move and the
                // result.
                b'*' => {
                    r.content = true;
                    if r.depth == 0 {
                        r.result = true;
                        self.after_result = true;
                    }
                }
                _ if DELIMITERS[b as usize] => {}
                _ => {
                    r.content = true;
                    let end = bytes[i..]
                        .iter()
                        .position(|&b| DELIMITERS[b as usize])
                        .map_or(bytes.len(), |k| i + k);
                    let token = &bytes[i..end];
                    if (i > 0 || self.boundary)
                        && r.depth == 0
                        && pgn_audit_lex::result(token).is_some()
                    {
                        r.result = true;
                        self.after_result = true;
                    }
                    i = end;
                    continue;
                }
            }
            i += 1;
        }
        None
    }
}

/// (v3) Whether a line whose first bytes that are not blank are `head`,
/// read before a game's first tag, move or result, is prose: text (no
/// control character) that begins with no move number, move, result token
/// or comment.
fn is_prose(head: &[u8]) -> bool {
    let token = head
        .iter()
        .position(|&b| ends_token(b, true))
        .map_or(head, |k| &head[..k]);
    !(matches!(head[0], b'{' | b';')
        || is_control(head[0])
        || pgn_audit_lex::starts_move(head)
        || pgn_audit_lex::result(token).is_some())
}

/// Whether `text`, prose, holds a result token standing alone.
fn holds_result(text: &[u8]) -> bool {
    text.split(|&b| ends_token(b, true))
        .any(|token| pgn_audit_lex::result(token).is_some())
}

/// Whether `b` ends a token: a [`DELIMITERS`] byte, but in `prose`
/// (text before a game's first tag, move or result, which is no PGN) not
/// `*`, `[` or `]`: a line of asterisks (`*****`) or a bracketed `[1-0]`
/// there holds no result, as a token is cut between blanks and PGN's
/// other delimiters in prose.
fn ends_token(b: u8, prose: bool) -> bool {
    DELIMITERS[b as usize] && !(prose && matches!(b, b'*' | b'[' | b']'))
}

/// A control character: no text holds one (a tab is a blank).
fn is_control(b: u8) -> bool {
    (b < 0x20 && b != b'\t') || b == 0x7f
}

/// Whether the byte at `p` (a `*`, `-` or `/`) is part of a result token
/// that stands alone in `bytes`: returns the token's end. `boundary` tells
/// whether a token starts at `bytes[0]`.
fn result_at(bytes: &[u8], p: usize, boundary: bool) -> Option<usize> {
    RESULTS.iter().find_map(|r| {
        let (token, k) = (r.text, r.key);
        if token[k] != bytes[p] || p < k {
            return None;
        }
        let (start, end) = (p - k, p - k + token.len());
        // (v4) `*` is a token by itself, whatever stands around it.
        let by_itself = SELF_TERMINATING[usize::from(token[0])];
        let alone = bytes.get(start..end) == Some(token)
            && (by_itself
                || (if start == 0 {
                    boundary
                } else {
                    DELIMITERS[bytes[start - 1] as usize]
                }) && bytes.get(end).is_none_or(|&b| DELIMITERS[b as usize]));
        alone.then_some(end)
    })
}

/// The length of the line end at the start of `data` (`\n`, `\r\n`,
/// `\r\r\n` or a lone `\r`); `None` where the bytes after a `\r` are still
/// to come.
fn line_end_len(data: &[u8], eof: bool) -> Option<usize> {
    if data[0] == b'\n' {
        return Some(1);
    }
    match (data.get(1), data.get(2)) {
        (Some(b'\n'), _) => Some(2),
        (Some(b'\r'), Some(b'\n')) => Some(3),
        (Some(b'\r'), None) | (None, _) if !eof => None,
        _ => Some(1),
    }
}

/// A strict tag line: `[`, a name of letters, digits or `_`, blanks, `"`.
pub(super) fn is_tag_line(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"[") else {
        return false;
    };
    let name = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    if name == 0 {
        return false;
    }
    let rest = &rest[name..];
    let blanks = rest
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count();
    rest.get(blanks) == Some(&b'"')
}

/// Move number one: `1.` not followed by a digit (`1. e4`, `1.d4`, `1...`).
fn is_move_one(line: &[u8]) -> bool {
    line.starts_with(b"1.") && !line.get(2).is_some_and(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An offset of a test's text, as an index.
    fn to_usize(offset: u64) -> usize {
        usize::try_from(offset).unwrap()
    }

    fn split(data: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut s = Splitter::new();
        s.feed(data, 0, true, |g| {
            out.push((to_usize(g.start), to_usize(g.end)))
        });
        out
    }

    fn games(data: &[u8]) -> Vec<String> {
        split(data)
            .into_iter()
            .map(|(a, b)| String::from_utf8_lossy(&data[a..b]).into_owned())
            .collect()
    }

    #[test]
    fn tags_blank_movetext_is_one_game() {
        let pgn = b"[Event \"a\"]\n[Site \"b\"]\n\n1. e4 e5 *\n\n[Event \"c\"]\n\n1. d4 *\n";
        assert_eq!(
            games(pgn),
            vec![
                "[Event \"a\"]\n[Site \"b\"]\n\n1. e4 e5 *\n",
                "[Event \"c\"]\n\n1. d4 *\n"
            ]
        );
    }

    #[test]
    fn movetext_only_games_split_at_blank_lines() {
        assert_eq!(games(b"1. e4 *\n\n\n1. d4 *"), vec!["1. e4 *\n", "1. d4 *"]);
    }

    #[test]
    fn tags_only_game_followed_by_game() {
        let pgn = b"[Event \"a\"]\n\n[Event \"b\"]\n\n1. e4 *\n";
        assert_eq!(
            games(pgn),
            vec!["[Event \"a\"]\n", "[Event \"b\"]\n\n1. e4 *\n"]
        );
    }

    #[test]
    fn comment_keeps_blank_lines_but_not_tags() {
        let pgn = b"1. e4 { long\n\ncomment } e5 *\n\n[Event \"x\"]\n1. e4 { open\n[Event \"y\"]\n1. d4 *\n";
        assert_eq!(
            games(pgn),
            vec![
                "1. e4 { long\n\ncomment } e5 *\n",
                "[Event \"x\"]\n1. e4 { open\n",
                "[Event \"y\"]\n1. d4 *\n"
            ]
        );
    }

    #[test]
    fn crlf_lone_cr_and_bom() {
        assert_eq!(
            games(b"\xef\xbb\xbf[Event \"a\"]\r\n\r\n1. e4 *\r\n\r\n1. d4 *\r\n"),
            vec!["[Event \"a\"]\r\n\r\n1. e4 *\r\n", "1. d4 *\r\n"]
        );
        assert_eq!(
            split(b"\xef\xbb\xbf1. e4 *"),
            vec![(3, 10)],
            "the BOM is not part of the game"
        );
        assert_eq!(
            games(b"1. e4 *\r\r1. d4 *\r"),
            vec!["1. e4 *\r", "1. d4 *\r"]
        );
    }

    #[test]
    fn plain_scan_agrees_with_token_by_token() {
        // Every piece of up to 6 bytes over these, with a comment open or
        // not before it: the same result, comment, split and what follows.
        let alphabet: &[u8] = b"{} *1-0/[a";
        let k = alphabet.len();
        for len in 0..=6u32 {
            for code in 0..k.pow(len) {
                let mut c = code;
                let piece: Vec<u8> = (0..len)
                    .map(|_| {
                        let b = alphabet[c % k];
                        c /= k;
                        b
                    })
                    .collect();
                for comment in [false, true] {
                    let run = |plain: bool| {
                        let mut line = Line::new(0, 0);
                        let mut r = Reading {
                            comment,
                            content: true,
                            ..Reading::default()
                        };
                        let split = if plain {
                            line.scan_plain(&mut r, &piece)
                        } else {
                            line.scan_slow(&mut r, &piece)
                        };
                        let comment = split.is_none().then_some(r.comment);
                        (split, r.result, comment, line.after_result)
                    };
                    assert_eq!(
                        run(true),
                        run(false),
                        "{:?} {comment}",
                        String::from_utf8_lossy(&piece)
                    );
                }
            }
        }
    }

    /// Feeds `pgn` in pieces of `step` bytes, keeping (as a caller does)
    /// only what the splitter leaves unconsumed; asserts that is at most a
    /// few bytes.
    fn split_in_pieces(pgn: &[u8], step: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut s = Splitter::new();
        let mut buf: Vec<u8> = Vec::new();
        let mut base = 0u64;
        for chunk in pgn.chunks(step) {
            buf.extend_from_slice(chunk);
            let used = s.feed(&buf, base, false, |g| {
                out.push((to_usize(g.start), to_usize(g.end)))
            });
            buf.drain(..used);
            base += used as u64;
            assert!(
                buf.len() < to_usize(WHOLE_TAG_LINE) + step,
                "{} bytes held",
                buf.len()
            );
        }
        let used = s.feed(&buf, base, true, |g| {
            out.push((to_usize(g.start), to_usize(g.end)))
        });
        assert_eq!(used, buf.len());
        out
    }

    /// A tag line is judged whole however its bytes arrive: one that ends
    /// with `"]` is all tags when shorter than WHOLE_TAG_LINE, and read tag
    /// by tag when longer (a fuzzed real game once split in two when fed
    /// in pieces).
    #[test]
    fn a_tag_line_is_judged_whole_however_it_is_fed() {
        let long = format!("[A \"x\"] 1. e4 [B \"{}\"]", "y".repeat(5000));
        for line in [
            "[WhiteRatingDiff \"+8\"]\x0b[BlackRatingDiff \"-6\"]",
            &long,
        ] {
            let pgn = format!(
                "[Event \"a\"]\n{line}\n[Site \"s\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\n"
            );
            let whole = split(pgn.as_bytes());
            for step in [1, 2, 3, 7, 64, 4095, 4096, 4097] {
                assert_eq!(split_in_pieces(pgn.as_bytes(), step), whole, "step {step}");
            }
        }
        let short = "[Event \"a\"]\n[WhiteRatingDiff \"+8\"]\x0b[BlackRatingDiff \"-6\"]\n[Site \"s\"]\n\n1. e4 e5 1-0\n";
        assert_eq!(split(short.as_bytes()), vec![(0, short.len())]);
    }

    /// NUL padding after a last line without a line end is cut off the
    /// same way however the bytes arrive (the fuzzer found a game that
    /// ended 18 bytes early when fed 5 bytes at a time).
    #[test]
    fn padding_after_an_unended_last_line_is_cut_however_it_is_fed() {
        for tail in [
            "7. O-O { [%clk 0:02:56] } ",
            "7. O-O",
            "7. O-O 1-0 ",
            "{ c }",
        ] {
            let pgn = format!("[Event \"a\"]\n\n1. e4 {{ x }} {tail}{}", "\0".repeat(23));
            let whole = split(pgn.as_bytes());
            assert_eq!(whole, vec![(0, pgn.len() - 23)], "{tail:?}");
            for step in 1..=40 {
                assert_eq!(
                    split_in_pieces(pgn.as_bytes(), step),
                    whole,
                    "{tail:?} step {step}"
                );
            }
        }
    }

    #[test]
    fn feeding_in_pieces_gives_the_same_games() {
        let pgn: &[u8] = b"[Event \"a\"]\r\n\r\n1. e4 {x\n\ny} *\r\n\r\n1. d4 *\r\r1. c4 *\n\
            \xef\xbb\xbf[Event \"b\"]\r\r\n\r\r\n1. e4 { open\r\r\n\r\r\n1. d4 *\n\0\0\n\x1a\n\
            1. c4 {\n\n[Event \"c\"]\n\x0b\n1. f4 *\n\0\0\x1a\n\n; x\n\n{ y }\n\
            1. e4\r\n\r\n2. d4 1/2-1/2 [Event \"d\"] 1. e4 (1. d4 0-1) 1/2\n\n1. c4 \xc2\xbd-\xc2\xbd  [A \"\"]\n1. g4 *\0\0\x1a";
        let whole = games(pgn);
        assert_eq!(
            whole,
            vec![
                "[Event \"a\"]\r\n\r\n1. e4 {x\n\ny} *\r\n",
                "1. d4 *\r",
                "1. c4 *\n",
                "[Event \"b\"]\r\r\n\r\r\n1. e4 { open\r\r\n",
                // (v3) After the result, a line that starts with a move.
                "1. d4 *\n",
                "1. c4 {\n",
                "[Event \"c\"]\n\x0b\n1. f4 *\n",
                "1. e4\r\n\r\n2. d4 1/2-1/2 ",
                "[Event \"d\"] 1. e4 (1. d4 0-1) 1/2\n",
                "1. c4 \u{bd}-\u{bd}  ",
                "[A \"\"]\n1. g4 *"
            ]
        );
        let whole = split(pgn);
        for step in 1..pgn.len() {
            assert_eq!(split_in_pieces(pgn, step), whole, "step {step}");
        }
    }

    #[test]
    fn cr_cr_lf_is_one_line_end() {
        // A CRLF file converted to CRLF once more: `\r\r\n` is no blank line.
        let pgn = b"[Event \"a\"]\r\r\n[Site \"b\"]\r\r\n\r\r\n1. e4 e5\r\r\n2. Nf3 *\r\r\n\r\r\n[Event \"c\"]\r\r\n\r\r\n1. d4 *\r\r\n";
        assert_eq!(
            games(pgn),
            vec![
                "[Event \"a\"]\r\r\n[Site \"b\"]\r\r\n\r\r\n1. e4 e5\r\r\n2. Nf3 *\r\r\n",
                "[Event \"c\"]\r\r\n\r\r\n1. d4 *\r\r\n"
            ]
        );
        // `\r\r\r\n` is a lone `\r` and then `\r\r\n`: a blank line.
        assert_eq!(
            games(b"1. e4 *\r\r\r\n1. d4 *"),
            vec!["1. e4 *\r", "1. d4 *"]
        );
    }

    #[test]
    fn vertical_tab_and_form_feed_lines_are_blank() {
        assert_eq!(
            games(b"1. e4 *\n\x0b\n1. d4 *\n\x0c \t\n1. c4 *"),
            vec!["1. e4 *\n", "1. d4 *\n", "1. c4 *"]
        );
    }

    #[test]
    fn bom_at_the_start_of_any_line_is_no_part_of_it() {
        // `cat a.pgn b.pgn`, b.pgn with a BOM, a.pgn without a blank line at
        // its end, with one, and ending inside an open comment.
        for sep in ["", "\n", "\r\n\r\n"] {
            for a in ["1. e4 e5 1-0", "1. e4 { open"] {
                let pgn = format!("{a}\n{sep}\u{feff}[Event \"b\"]\n\n1. d4 *\n");
                let b = pgn.find("[Event").unwrap();
                assert_eq!(
                    split(pgn.as_bytes()),
                    vec![(0, a.len() + 1), (b, pgn.len())],
                    "{pgn:?}"
                );
            }
        }
        // A tagless game after a BOM starts after it, in the movetext too.
        assert_eq!(
            games("1. e4 *\n\n\u{feff}1. d4 *\n".as_bytes()),
            vec!["1. e4 *\n", "1. d4 *\n"]
        );
    }

    #[test]
    fn nul_and_ctrl_z_are_no_game() {
        assert_eq!(split(&[0; 1000]), vec![]);
        assert_eq!(split(b"\x1a"), vec![]);
        assert_eq!(split(b"\0\0\n\x1a\r\n\0"), vec![]);
        // At the end of the input, after a line end or on the last line.
        assert_eq!(games(b"1. e4 *\r\n\x1a"), vec!["1. e4 *\r\n"]);
        assert_eq!(games(b"1. e4 *\0\0\0\x1a"), vec!["1. e4 *"]);
        // Between games, and indenting a tag line.
        assert_eq!(
            games(b"1. e4 *\n\0\0\0\n\0[Event \"x\"]\n\n1. d4 *\n"),
            vec!["1. e4 *\n", "[Event \"x\"]\n\n1. d4 *\n"]
        );
        // A line of padding changes nothing: it ends no game.
        assert_eq!(
            games(b"[Event \"x\"]\n\0\0\n1. d4 *\n"),
            vec!["[Event \"x\"]\n\0\0\n1. d4 *\n"]
        );
    }

    #[test]
    fn unterminated_comment_ends_at_move_one_after_a_blank_line() {
        assert_eq!(
            games(b"1. e4 { never closes\n\n1. e4 e5 *\n\n  1.d4 *\n\n1... e5 *\n"),
            vec![
                "1. e4 { never closes\n",
                "1. e4 e5 *\n",
                "1.d4 *\n",
                "1... e5 *\n"
            ]
        );
        // Without a blank line, or with another number, it is comment text.
        for rest in ["\n1. d4 *\n", "\n\n1.5 million games\n", "\n\n12. e4 *\n"] {
            let pgn = format!("1. e4 {{ open{rest}");
            assert_eq!(split(pgn.as_bytes()).len(), 1, "{pgn:?}");
        }
        // The new game's own comments are followed from its start.
        assert_eq!(
            games(b"1. e4 { open\n\n1. d4 { x\n\ny } *\n\n1. c4 *\n").len(),
            3
        );
    }

    #[test]
    fn blank_lines_before_the_result_do_not_end_the_game() {
        // Tags, a pre-game comment, moves with blank lines between them.
        let pgn = b"[Event \"a\"]\n\n{ Notes by X }\n\n1. e4 e5\n\n2. Nf3 Nc6\n\n1-0\n\n\
            [Event \"b\"]\n\n1. d4 d5 1/2\n\n{ block }\n1. c4 ( 1. e4 * ) e5 { 0-1 }\n\n2. Nc3 \xc2\xbd-\xc2\xbd\n";
        assert_eq!(
            games(pgn),
            vec![
                "[Event \"a\"]\n\n{ Notes by X }\n\n1. e4 e5\n\n2. Nf3 Nc6\n\n1-0\n",
                "[Event \"b\"]\n\n1. d4 d5 1/2\n",
                "1. c4 ( 1. e4 * ) e5 { 0-1 }\n\n2. Nc3 \u{bd}-\u{bd}\n"
            ]
        );
    }

    #[test]
    fn a_game_without_result_ends_at_a_tag_line_or_the_end() {
        assert_eq!(
            games(b"1. e4 e5\n\n2. Nf3\n[Event \"x\"]\n\n1. d4\n\n1... d5\n"),
            vec![
                "1. e4 e5\n\n2. Nf3\n",
                "[Event \"x\"]\n\n1. d4\n\n1... d5\n"
            ]
        );
    }

    #[test]
    fn a_tag_right_after_the_result_starts_the_next_game() {
        assert_eq!(
            games(b"1. e4 a5 * [Event \"x\"]\n1. d4 1-0\t[Event \"y\"] [Site \"z\"]\n\n1. c4 *"),
            vec![
                "1. e4 a5 * ",
                "[Event \"x\"]\n1. d4 1-0\t",
                "[Event \"y\"] [Site \"z\"]\n\n1. c4 *"
            ]
        );
        // Text on the result's line is the game's (the movetext reader
        // makes it a parse error); (v3) a line of prose after it is no
        // game and no part of it, and a line that starts with a move
        // starts the next game, which without a result runs on to a tag
        // line.
        assert_eq!(
            games(b"1. e4 * e5 [Event \"x\"]\nsee below\n\n1. d4 *\n"),
            vec!["1. e4 * e5 [Event \"x\"]\n", "1. d4 *\n"]
        );
        assert_eq!(
            games(b"1. e4 * e5 [Event \"x\"]\n2. Nf3\n\n1. d4 *\n"),
            vec!["1. e4 * e5 [Event \"x\"]\n", "2. Nf3\n\n1. d4 *\n"]
        );
        // Movetext after the tags on their line, as the tag reader has it.
        assert_eq!(
            games(b"[Event \"a\"] [Site \"b\\\"]\"] 1. e4 *\n\n1. d4 *\n[Event \"London \"I\"\"] x\n\n1. e4 *"),
            vec![
                "[Event \"a\"] [Site \"b\\\"]\"] 1. e4 *\n",
                "1. d4 *\n",
                "[Event \"London \"I\"\"] x\n\n1. e4 *"
            ]
        );
        // `*` inside a comment or variation is no result.
        assert_eq!(split(b"1. e4 {*} (1... e5 *) [x]\n\n1. d4\n").len(), 1);
    }

    /// (v4) `*`, `[`, `]`, `(`, `)`, `{` and `}` end the token before them:
    /// `a5*[Event` is a move, the result and the next game (pgn4web's test
    /// file), however the bytes are fed; in prose, which is no PGN, a run
    /// of asterisks is no result.
    #[test]
    fn a_result_needs_no_blank_before_the_next_games_tag() {
        let pgn: &[u8] =
            b"[Event\"a\"][Round \"11\"]a4(b4$6)a6!?{comment}a5*[Event\"b\"]h4(g4)h6{c}h5*\n\
            1. e4*[Event \"c\"]\n1. d4 d5 1-0[Event \"d\"]1. c4 c5(1... e5)*\n\n\
            *****\n\n*** The end ***\n\n[Event \"e\"]\n\n1. e4 **[Event \"f\"] 1. d4 *\n";
        let whole = games(pgn);
        assert_eq!(
            whole,
            vec![
                "[Event\"a\"][Round \"11\"]a4(b4$6)a6!?{comment}a5*",
                "[Event\"b\"]h4(g4)h6{c}h5*\n",
                "1. e4*",
                "[Event \"c\"]\n1. d4 d5 1-0",
                "[Event \"d\"]1. c4 c5(1... e5)*\n",
                "[Event \"e\"]\n\n1. e4 **",
                "[Event \"f\"] 1. d4 *\n",
            ]
        );
        let whole = split(pgn);
        for step in 1..pgn.len() {
            assert_eq!(split_in_pieces(pgn, step), whole, "step {step}");
        }
    }

    /// A tag section whose lines hold no quote, so no tag (a forum's
    /// `[pgn]` ... `[/pgn]` around a game, `[Annotator]`), with no move
    /// or result after it, is no game; such a line before real tags or
    /// moves stays their game's (its reader skips it with a quirk). A tag
    /// line cut short (`[Eve`, where the input broke off) is a game's.
    #[test]
    fn tag_lines_without_a_tag_are_no_game() {
        assert_eq!(
            games(b"[pgn]\n[Event \"a\"]\n\n1. e4 *\n[/pgn]\n\n[x]\n[y]\n\n[Event \"b\"]\n\n*\n[/pgn]"),
            vec!["[pgn]\n[Event \"a\"]\n\n1. e4 *\n", "[Event \"b\"]\n\n*\n"]
        );
        assert_eq!(
            games(b"[pgn]\n1. e4 *\n\n[Site \"Paris\n\n[Annotator]\n\n[Eve"),
            vec!["[pgn]\n1. e4 *\n", "[Site \"Paris\n", "[Eve"]
        );
        // However it is fed: only a line shorter than `HEAD` is judged
        // (held whole); a longer one is a game's.
        let long = format!(
            "[{}]\n\n[{} \"x\"]\n\n1. e4 *\n",
            "n".repeat(300),
            "m".repeat(100)
        );
        for step in [1, 2, 7, 64, 255, 256, 257, 1000] {
            assert_eq!(
                split_in_pieces(long.as_bytes(), step),
                split(long.as_bytes()),
                "{step}"
            );
        }
        assert_eq!(split(long.as_bytes()).len(), 2);
    }

    #[test]
    fn comment_blocks_between_games_are_no_game() {
        let pgn = b"; TCEC Season 1\n; engines\n\n[Event \"a\"]\n\n1. e4 *\n\n\
            { between }\n% escape\n\n[Event \"b\"]\n\n1. d4 *\n\n; the end\n{ x }\n";
        assert_eq!(
            games(pgn),
            vec!["[Event \"a\"]\n\n1. e4 *\n", "[Event \"b\"]\n\n1. d4 *\n"]
        );
        assert_eq!(split(b"{ only }\n\n; comments\n"), vec![]);
        // A tagless game starts on the line of its first move.
        assert_eq!(
            games(b"{ before }\n\n{ a } 1. e4 *\n"),
            vec!["{ a } 1. e4 *\n"]
        );
        // A line of comments longer than the caller's cap is a game: the
        // caller has begun dropping its bytes.
        let mut s = Splitter::with_block_cap(12);
        let mut out = Vec::new();
        s.feed(
            b"{ short }\n{ a long comment }\n[Event \"a\"]\n",
            0,
            true,
            |g| out.push((g.start, g.end)),
        );
        assert_eq!(out, vec![(10, 29), (29, 41)]);
    }

    /// Whether each game of `data` ended by its result.
    fn ended(data: &[u8]) -> Vec<bool> {
        let mut out = Vec::new();
        Splitter::new().feed(data, 0, true, |g| out.push(g.ended));
        out
    }

    /// A game span says whether the game ended by its
    /// result token (outside comments and variations) and a line end, for
    /// every result token, `½-½` included.
    #[test]
    fn a_game_ended_by_its_result_is_marked() {
        for (pgn, expected) in [
            (&b"1. e4 1-0\n"[..], vec![true]),
            (b"1. e4 e5 2. Nf3 Nc6 \xc2\xbd-\xc2\xbd\n", vec![true]),
            (b"1. e4 1/2\r", vec![true]),
            (b"1. e4 0-1 { gg }\n   ", vec![true]),
            (b"1. e4 1-0", vec![false]),
            (b"1. e4 e5\n", vec![false]),
            (b"1. e4 { won 1-0\n", vec![false]),
            (b"1. e4 (1. d4 1-0)\n", vec![false]),
            (b"[Event \"x\"]\n[Result \"1-0\"]\n", vec![false]),
            (b"1. e4 * [Event \"x\"]\n1. d4", vec![true, false]),
            (b"1. e4 *\n\n1. d4 1-0\n", vec![true, true]),
        ] {
            assert_eq!(ended(pgn), expected, "{:?}", String::from_utf8_lossy(pgn));
            for step in 1..pgn.len() {
                let mut out = Vec::new();
                let mut s = Splitter::new();
                let mut buf: Vec<u8> = Vec::new();
                for chunk in pgn.chunks(step) {
                    buf.extend_from_slice(chunk);
                    let used = s.feed(&buf, 0, false, |g| out.push(g.ended));
                    buf.drain(..used);
                }
                s.feed(&buf, 0, true, |g| out.push(g.ended));
                assert_eq!(out, expected, "step {step}");
            }
        }
    }

    /// Asserts that `pgn` splits into the games `expected`, and into the
    /// same games fed in pieces of every size.
    fn assert_games_however_fed(pgn: &[u8], expected: &[&str]) {
        assert_eq!(games(pgn), expected);
        let whole = split(pgn);
        for step in 1..pgn.len() {
            assert_eq!(split_in_pieces(pgn, step), whole, "step {step}");
        }
    }

    /// (v3) Prose between games, and before the first (a heading, its
    /// underline, a round title, a paragraph introducing the next game), is
    /// no game; a line of it that holds a result token is a game's, as
    /// before.
    #[test]
    fn prose_between_games_is_no_game() {
        let pgn = b"Poikovsky 2002\n--------------\n\nThe first round.\n[Event \"a\"]\n\n\
            1. e4 e5 1-0\n\nRound 2\n\nA sharp game\nfollows (see below).\n\n[Event \"b\"]\n\n\
            1. d4 d5 0-1\n\nThe end.\n";
        let expected = vec![
            "[Event \"a\"]\n\n1. e4 e5 1-0\n",
            "[Event \"b\"]\n\n1. d4 d5 0-1\n",
        ];
        assert_games_however_fed(pgn, &expected);
        // A tagless game after its introduction starts on its first move.
        assert_eq!(
            games(b"Game 1, a short one:\n1. e4 e5 *\n\nGame 2\n\n{ notes } 1. d4 *\n"),
            vec!["1. e4 e5 *\n", "{ notes } 1. d4 *\n"]
        );
        // A result token makes its line a game's; text right after a
        // result is still that game's.
        assert_eq!(
            games(b"Intro\nLasker won 1-0 here\n\n1. e4 * Round 3\n"),
            vec!["Lasker won 1-0 here\n", "1. e4 * Round 3\n"]
        );
        assert_eq!(split(b"Only prose here.\n\n(And a remark.)\n"), vec![]);
        // A control character is damage, not prose: a game of its own.
        assert_eq!(
            games(b"1. e4 *\n\nbinary \x01\x02 junk\n[Event \"x\"]\n\nELF\x7f\n"),
            vec![
                "1. e4 *\n",
                "binary \x01\x02 junk\n",
                "[Event \"x\"]\n\nELF\x7f\n"
            ]
        );
    }

    /// (v3) Prose on the lines right after a game's result, with no blank
    /// line between (an underline of dashes, a remark), is no game and no
    /// part of that game: only text on the result's own line is. It was
    /// that game's parse_error. A comment there is still the game's.
    #[test]
    fn prose_right_after_a_result_is_no_game() {
        let pgn = b"[Event \"a\"]\n\n1. e4 e5 1-0\nWhite won easily, as expected.\n\n\
            [Event \"b\"]\n\n1. d4 d5 0-1\n----------\n[Event \"c\"]\n\n1. c4 *\n\
            A remark\non two lines.\n1. e4 e5 1/2-1/2 {Agreed.}\n{ notes }\nThe end.\n";
        let expected = vec![
            "[Event \"a\"]\n\n1. e4 e5 1-0\n",
            "[Event \"b\"]\n\n1. d4 d5 0-1\n",
            "[Event \"c\"]\n\n1. c4 *\n",
            "1. e4 e5 1/2-1/2 {Agreed.}\n{ notes }\n",
        ];
        assert_games_however_fed(pgn, &expected);
    }

    /// A line right after the result's that holds a result token is no
    /// prose (v3: prose holds none): it is the game's text before the next
    /// blank line, its `parse_error`, as in v2 (it was a game of its own).
    /// Prose after it still ends the game.
    #[test]
    fn a_line_with_a_result_after_the_result_is_the_games() {
        let pgn = b"[Event \"a\"]\n\n1. e4 e5 *\nThe score was 1-0 here.\nA remark.\n\n\
            [Event \"b\"]\n\n1. d4 *\nWhite won.\nResult: 0-1\n\n1. c4 *\n";
        let expected = vec![
            "[Event \"a\"]\n\n1. e4 e5 *\nThe score was 1-0 here.\n",
            "[Event \"b\"]\n\n1. d4 *\n",
            "Result: 0-1\n",
            "1. c4 *\n",
        ];
        assert_games_however_fed(pgn, &expected);
    }

    /// (v3) Tagless games one per line: after a game's result, a line that
    /// starts with a move number or a move starts the next game.
    #[test]
    fn tagless_games_one_per_line() {
        let pgn = b"1. e4 e5 2. Nf3 1-0\n1. d4 d5 0-1\r\n1. c4 *\n e4 e5 1/2-1/2\n\
            { a comment after the result }\n12... Nf6 *\n";
        let expected = vec![
            "1. e4 e5 2. Nf3 1-0\n",
            "1. d4 d5 0-1\r\n",
            "1. c4 *\n",
            "e4 e5 1/2-1/2\n{ a comment after the result }\n",
            "12... Nf6 *\n",
        ];
        assert_games_however_fed(pgn, &expected);
    }

    #[test]
    fn a_long_line_is_read_as_it_comes() {
        // A 1 MiB line in pieces: nothing of it is held, and it ends where
        // it ends.
        let mut pgn = b"1. e4 {".to_vec();
        pgn.resize(1 << 20, b'x');
        pgn.extend_from_slice(b"} e5 *\n\n1. d4 *\n");
        let n = pgn.len();
        assert_eq!(split_in_pieces(&pgn, 4093), vec![(0, n - 9), (n - 8, n)]);
    }
}
