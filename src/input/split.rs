//! Cuts a stream of PGN bytes into games, line by line, without parsing moves.
//!
//! The rules follow pgn-reader's notion of a game boundary, made robust for
//! damaged files: a game ends at a blank line after its movetext, or where a
//! tag line (`[Name "value"]`) follows movetext. A comment that is still open
//! swallows blank lines, but not a tag line: an unterminated comment therefore
//! costs only its own game, never the rest of the file. Lines that start with
//! `%` (PGN escape lines) and blank lines between games belong to no game.
//! Line ends may be `\n`, `\r\n` or a lone `\r`.

/// A game's place in its source: `start` is its first byte (first tag, or
/// first movetext byte), `end` is one past its last non-blank line's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSpan {
    pub start: u64,
    pub end: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Between games.
    Between,
    /// In the tag section; `blank` is true after a blank line.
    Tags { blank: bool },
    /// In the movetext; `comment` is true inside a `{ ... }` comment.
    Movetext { comment: bool },
}

/// A streaming game splitter: feed it whole lines, it reports finished games.
#[derive(Debug)]
pub struct Splitter {
    state: State,
    start: u64,
    end: u64,
    at_file_start: bool,
}

impl Default for Splitter {
    fn default() -> Self {
        Splitter::new()
    }
}

const BOM: &[u8] = b"\xef\xbb\xbf";

impl Splitter {
    pub fn new() -> Splitter {
        Splitter {
            state: State::Between,
            start: 0,
            end: 0,
            at_file_start: true,
        }
    }

    /// Feeds `data`, whose first byte is at `base` in the source, and calls
    /// `emit` for every game that ends in it. Only complete lines are used:
    /// returns how many bytes were consumed; the caller keeps the rest and
    /// feeds it again with more data. With `eof`, everything is consumed.
    pub fn feed(
        &mut self,
        data: &[u8],
        base: u64,
        eof: bool,
        mut emit: impl FnMut(GameSpan),
    ) -> usize {
        let mut pos = 0;
        while pos < data.len() {
            let Some((line_end, next)) = next_line(&data[pos..], eof) else {
                break;
            };
            let line = &data[pos..pos + line_end];
            self.line(line, base + pos as u64, &mut emit);
            pos += next;
        }
        if eof {
            self.finish(&mut emit);
        }
        pos
    }

    fn finish(&mut self, emit: &mut impl FnMut(GameSpan)) {
        if self.state != State::Between {
            emit(GameSpan {
                start: self.start,
                end: self.end,
            });
            self.state = State::Between;
        }
    }

    fn line(&mut self, mut line: &[u8], mut at: u64, emit: &mut impl FnMut(GameSpan)) {
        let line_len_total = line.len() as u64;
        let line_start = at;
        if self.at_file_start || (self.state == State::Between && line.starts_with(BOM)) {
            self.at_file_start = false;
            if line.starts_with(BOM) {
                line = &line[3..];
                at += 3;
            }
        }
        let line_end = line_start + line_len_total;
        let blank = line.iter().all(|b| b.is_ascii_whitespace());
        let indent = line
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(line.len());
        let first = line.get(indent).copied();
        let escape = line.first() == Some(&b'%');

        match self.state {
            State::Between => {
                if blank || escape {
                    return;
                }
                self.start = at + indent as u64;
                self.end = line_end;
                if first == Some(b'[') {
                    self.state = State::Tags { blank: false };
                } else {
                    self.state = State::Movetext {
                        comment: scan_comment(line, false),
                    };
                }
            }
            State::Tags { blank: seen_blank } => {
                if blank {
                    self.state = State::Tags { blank: true };
                } else if escape {
                } else if first == Some(b'[') {
                    if seen_blank {
                        self.finish(emit);
                        self.line_restart(line, at, indent, line_end);
                    } else {
                        self.end = line_end;
                    }
                } else {
                    self.end = line_end;
                    self.state = State::Movetext {
                        comment: scan_comment(line, false),
                    };
                }
            }
            State::Movetext { comment: false } => {
                if blank {
                    self.finish(emit);
                } else if escape {
                } else if first == Some(b'[') {
                    self.finish(emit);
                    self.line_restart(line, at, indent, line_end);
                } else {
                    self.end = line_end;
                    self.state = State::Movetext {
                        comment: scan_comment(line, false),
                    };
                }
            }
            State::Movetext { comment: true } => {
                if is_tag_line(&line[indent..]) {
                    self.finish(emit);
                    self.line_restart(line, at, indent, line_end);
                } else {
                    if !blank {
                        self.end = line_end;
                    }
                    self.state = State::Movetext {
                        comment: scan_comment(line, true),
                    };
                }
            }
        }
    }

    fn line_restart(&mut self, _line: &[u8], at: u64, indent: usize, line_end: u64) {
        self.start = at + indent as u64;
        self.end = line_end;
        self.state = State::Tags { blank: false };
    }
}

/// Finds the end of the first line of `data`: returns the length of the line
/// including its terminator, twice (content end is found by the caller).
/// A lone `\r` at the very end is only a line end at end of input.
fn next_line(data: &[u8], eof: bool) -> Option<(usize, usize)> {
    match memchr::memchr2(b'\n', b'\r', data) {
        Some(i) if data[i] == b'\n' => Some((i + 1, i + 1)),
        Some(i) => match data.get(i + 1) {
            Some(b'\n') => Some((i + 2, i + 2)),
            Some(_) => Some((i + 1, i + 1)),
            None if eof => Some((i + 1, i + 1)),
            None => None,
        },
        None if eof => Some((data.len(), data.len())),
        None => None,
    }
}

/// Tracks whether a `{` comment is open at the end of `line`. A `;` outside
/// a comment comments out the rest of the line.
fn scan_comment(line: &[u8], open: bool) -> bool {
    // Without `;`, the last brace decides: `{` leaves a comment open
    // whatever came before, `}` leaves none open. One scan from the end
    // instead of two calls per comment (Lichess lines hold ~80 comments).
    if memchr::memchr(b';', line).is_none() {
        return match memchr::memrchr2(b'{', b'}', line) {
            Some(i) => line[i] == b'{',
            None => open,
        };
    }
    scan_comment_slow(line, open)
}

/// `scan_comment`, brace by brace.
fn scan_comment_slow(line: &[u8], mut open: bool) -> bool {
    let mut rest = line;
    loop {
        if open {
            match memchr::memchr(b'}', rest) {
                Some(i) => {
                    open = false;
                    rest = &rest[i + 1..];
                }
                None => return true,
            }
        } else {
            match memchr::memchr2(b'{', b';', rest) {
                Some(i) if rest[i] == b'{' => {
                    open = true;
                    rest = &rest[i + 1..];
                }
                _ => return false,
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

    #[test]
    fn feeding_in_pieces_gives_the_same_games() {
        let pgn: &[u8] = b"[Event \"a\"]\r\n\r\n1. e4 {x\n\ny} *\r\n\r\n1. d4 *\r\r1. c4 *\n";
        let whole = split(pgn);
        for step in 1..pgn.len() {
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
            }
            let used = s.feed(&buf, base, true, |g| {
                out.push((g.start as usize, g.end as usize))
            });
            assert_eq!(used, buf.len());
            assert_eq!(out, whole, "step {step}");
        }
    }
}
