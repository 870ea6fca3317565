//! Cuts a stream of PGN bytes into games, line by line, without parsing moves.
//!
//! The rules follow pgn-reader's notion of a game boundary, made robust for
//! damaged files: a game ends at a blank line after its movetext, or where a
//! tag line (`[Name "value"]`) follows movetext. A comment that is still open
//! swallows blank lines, but not a tag line, nor a line that follows a blank
//! line and starts with move number one (`1.`): an unterminated comment
//! therefore costs only its own game, never the rest of the file. Lines that
//! start with `%` (PGN escape lines) and blank lines between games belong to
//! no game.
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
//! open comment) it leaves unconsumed, a few bytes at most. Keeping the
//! bytes of the game in progress is the caller's business
//! ([`Splitter::game_start`]).

use std::ops::ControlFlow;

/// A game's place in its source: `start` is its first byte (first tag, or
/// first movetext byte), `end` is one past its last non-blank line's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSpan {
    pub start: u64,
    pub end: u64,
}

/// Where the splitter is, between lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between games.
    Between,
    /// In the tag section; `blank` is true after a blank line.
    Tags { blank: bool },
    /// In the movetext; `comment` is true inside a `{ ... }` comment, and
    /// `blank` after a blank line inside it.
    Movetext { comment: bool, blank: bool },
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
    role: Role,
    /// Whether a `{` comment is open after the bytes read so far.
    comment: bool,
    /// A `;` outside a comment: the rest of the line is a comment.
    rest_commented: bool,
    /// A line of blanks holds a NUL or Ctrl-Z: it is padding, which belongs
    /// to no game and changes nothing, rather than a blank line.
    padded: bool,
    /// One past the last byte read that is not NUL or Ctrl-Z, for a last
    /// line that the input ends without a line end.
    solid_end: u64,
}

/// A streaming game splitter: feed it bytes, it reports finished games.
#[derive(Debug)]
pub struct Splitter {
    state: State,
    /// The game in progress, if any: its first byte and the end of its
    /// last line that is not blank.
    in_game: bool,
    start: u64,
    end: u64,
    /// The line being read, once its first byte (after a BOM) is fed.
    line: Option<Line>,
}

impl Default for Splitter {
    fn default() -> Self {
        Splitter::new()
    }
}

const BOM: &[u8] = b"\xef\xbb\xbf";

/// Inside an open comment, how many bytes of a line after its indentation
/// are looked at to tell whether it starts a new game (a tag line, or `1.`).
pub(super) const HEAD: usize = 256;

/// Bytes a blank line may hold, and that indent a line.
const BLANK: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let list = b" \t\x0b\x0c\x00\x1a";
    while k < list.len() {
        t[list[k] as usize] = true;
        k += 1;
    }
    t
};

impl Line {
    fn new(start: u64) -> Line {
        Line {
            start,
            role: Role::Blank,
            comment: false,
            rest_commented: false,
            padded: false,
            solid_end: start,
        }
    }
}

impl Splitter {
    pub fn new() -> Splitter {
        Splitter {
            state: State::Between,
            in_game: false,
            start: 0,
            end: 0,
            line: None,
        }
    }

    /// The first byte of the game in progress, whose bytes the caller has
    /// to keep; `None` between games.
    pub fn game_start(&self) -> Option<u64> {
        self.in_game.then_some(self.start)
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
                self.line = Some(Line::new(base + pos as u64));
            }
            let rest = &data[pos..];
            let (content, terminator) = match memchr::memchr2(b'\n', b'\r', rest) {
                Some(i) => (i, line_end_len(&rest[i..], eof)),
                None => (rest.len(), None),
            };
            let chunk = &rest[..content];
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
                        let complete = content < rest.len() || eof;
                        if !complete && chunk.len() - i < HEAD && self.needs_head() {
                            return (pos + i, false);
                        }
                        let emitted = self.decide(&chunk[i..], base + (pos + i) as u64);
                        if let Some(g) = emitted
                            && emit(g).is_break()
                        {
                            return (pos + i, true);
                        }
                        from = i;
                    }
                }
            }
            let line = self.line.as_mut().expect("a line is being read");
            line.scan(&chunk[from..]);
            if content == rest.len() {
                // The line goes on past `data`, or the input ends in it.
                if let Some(k) = chunk.iter().rposition(|&b| b != 0 && b != 0x1a) {
                    line.solid_end = base + (pos + k + 1) as u64;
                }
            }
            pos += content;
            match terminator {
                Some(len) => {
                    pos += len;
                    if let Some(g) = self.end_line(base + pos as u64)
                        && emit(g).is_break()
                    {
                        return (pos, true);
                    }
                }
                // A `\r` that the next bytes tell what it ends.
                None if pos < data.len() => return (pos, false),
                None => {}
            }
        }
        if eof {
            // The last line, without a line end: NULs and Ctrl-Z that
            // pad the input are not part of it.
            if let Some(end) = self.line.map(|l| l.solid_end)
                && let Some(g) = self.end_line(end)
                && emit(g).is_break()
            {
                return (pos, true);
            }
            if let Some(g) = self.finish() {
                let _ = emit(g);
            }
        }
        (pos, false)
    }

    /// Whether the line's first bytes decide what it is: inside an open
    /// comment, a tag line or `1.` starts a new game.
    fn needs_head(&self) -> bool {
        matches!(self.state, State::Movetext { comment: true, .. })
    }

    /// Decides the role of the line being read from `head`, its bytes from
    /// its first one that is not blank (at `at`). A line that starts a game
    /// ends the one in progress, which is returned.
    fn decide(&mut self, head: &[u8], at: u64) -> Option<GameSpan> {
        let line = self.line.as_mut().expect("a line is being read");
        let first = head[0];
        let escape = at == line.start && first == b'%';
        // (role, starts a game, a comment is open at the line's start)
        let (role, starts, comment) = match self.state {
            State::Movetext {
                comment: true,
                blank,
            } => {
                if is_tag_line(head) {
                    (Role::Tags, true, false)
                } else if blank && is_move_one(head) {
                    (Role::Movetext, true, false)
                } else {
                    (Role::Movetext, false, true)
                }
            }
            _ if escape => (Role::Escape, false, false),
            State::Between => (
                if first == b'[' {
                    Role::Tags
                } else {
                    Role::Movetext
                },
                true,
                false,
            ),
            State::Tags { blank } if first == b'[' => (Role::Tags, blank, false),
            State::Tags { .. } => (Role::Movetext, false, false),
            State::Movetext { .. } if first == b'[' => (Role::Tags, true, false),
            State::Movetext { .. } => (Role::Movetext, false, false),
        };
        line.role = role;
        line.comment = comment;
        if !starts {
            return None;
        }
        let ended = self.finish();
        self.in_game = true;
        self.start = at;
        self.end = at;
        ended
    }

    /// Ends the line being read at `end` (past its line end).
    fn end_line(&mut self, end: u64) -> Option<GameSpan> {
        let line = self.line.take()?;
        match line.role {
            Role::Blank if line.padded => {}
            Role::Blank => match self.state {
                State::Between => {}
                State::Tags { .. } => self.state = State::Tags { blank: true },
                State::Movetext { comment: false, .. } => return self.finish(),
                State::Movetext { comment: true, .. } => {
                    self.state = State::Movetext {
                        comment: true,
                        blank: true,
                    }
                }
            },
            Role::Escape => {}
            Role::Tags => {
                self.end = end;
                self.state = State::Tags { blank: false };
            }
            Role::Movetext => {
                self.end = end;
                self.state = State::Movetext {
                    comment: line.comment,
                    blank: false,
                };
            }
        }
        None
    }

    /// Ends the game in progress, if any.
    fn finish(&mut self) -> Option<GameSpan> {
        self.state = State::Between;
        if !std::mem::take(&mut self.in_game) {
            return None;
        }
        Some(GameSpan {
            start: self.start,
            end: self.end,
        })
    }
}

impl Line {
    /// Follows the comments through `bytes`, the next bytes of a movetext
    /// line from its first one that is not blank.
    fn scan(&mut self, bytes: &[u8]) {
        if self.role == Role::Movetext && !self.rest_commented && !bytes.is_empty() {
            (self.comment, self.rest_commented) = scan_comment(bytes, self.comment);
        }
    }
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

/// Follows `{` comments through `line`, starting inside one when `open`:
/// returns whether one is open at its end, and whether a `;` outside a
/// comment makes the rest of the line a comment.
fn scan_comment(line: &[u8], open: bool) -> (bool, bool) {
    // Without `;`, the last brace decides: `{` leaves a comment open
    // whatever came before, `}` leaves none open. One scan from the end
    // instead of two calls per comment (Lichess lines hold ~80 comments).
    if memchr::memchr(b';', line).is_none() {
        let open = match memchr::memrchr2(b'{', b'}', line) {
            Some(i) => line[i] == b'{',
            None => open,
        };
        return (open, false);
    }
    scan_comment_slow(line, open)
}

/// `scan_comment`, brace by brace.
fn scan_comment_slow(line: &[u8], mut open: bool) -> (bool, bool) {
    let mut rest = line;
    loop {
        if open {
            match memchr::memchr(b'}', rest) {
                Some(i) => {
                    open = false;
                    rest = &rest[i + 1..];
                }
                None => return (true, false),
            }
        } else {
            match memchr::memchr2(b'{', b';', rest) {
                Some(i) if rest[i] == b'{' => {
                    open = true;
                    rest = &rest[i + 1..];
                }
                Some(_) => return (false, true),
                None => return (false, false),
            }
        }
    }
}

/// A strict tag line: `[`, a name of letters, digits or `_`, blanks, `"`.
fn is_tag_line(line: &[u8]) -> bool {
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

    fn split(data: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut s = Splitter::new();
        s.feed(data, 0, true, |g| {
            out.push((g.start as usize, g.end as usize))
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
    fn comment_fast_path_agrees_with_brace_by_brace() {
        // Every line of up to 6 bytes over `{`, `}`, `;`, `x`.
        let alphabet = b"{};x";
        for len in 0..=6u32 {
            for code in 0..4usize.pow(len) {
                let mut c = code;
                let line: Vec<u8> = (0..len)
                    .map(|_| {
                        let b = alphabet[c % 4];
                        c /= 4;
                        b
                    })
                    .collect();
                for open in [false, true] {
                    assert_eq!(
                        scan_comment(&line, open),
                        scan_comment_slow(&line, open),
                        "{:?} {open}",
                        String::from_utf8_lossy(&line)
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
                out.push((g.start as usize, g.end as usize))
            });
            buf.drain(..used);
            base += used as u64;
            assert!(buf.len() < HEAD + step, "{} bytes held", buf.len());
        }
        let used = s.feed(&buf, base, true, |g| {
            out.push((g.start as usize, g.end as usize))
        });
        assert_eq!(used, buf.len());
        out
    }

    #[test]
    fn feeding_in_pieces_gives_the_same_games() {
        let pgn: &[u8] = b"[Event \"a\"]\r\n\r\n1. e4 {x\n\ny} *\r\n\r\n1. d4 *\r\r1. c4 *\n\
            \xef\xbb\xbf[Event \"b\"]\r\r\n\r\r\n1. e4 { open\r\r\n\r\r\n1. d4 *\n\0\0\n\x1a\n\
            1. c4 {\n\n[Event \"c\"]\n\x0b\n1. f4 *\0\0\x1a";
        let whole = games(pgn);
        assert_eq!(
            whole,
            vec![
                "[Event \"a\"]\r\n\r\n1. e4 {x\n\ny} *\r\n",
                "1. d4 *\r",
                "1. c4 *\n",
                "[Event \"b\"]\r\r\n\r\r\n1. e4 { open\r\r\n",
                "1. d4 *\n\0\0\n\x1a\n1. c4 {\n",
                "[Event \"c\"]\n\x0b\n1. f4 *"
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
