//! The tag pair section: `[Name "value"]` lines, decoded as UTF-8 or else
//! Windows-1252.

use std::borrow::Cow;

use pgn_reader::RawTag;

use super::offset;

/// The tags the audit reads. Values are decoded and unescaped; a tag that
/// appears twice keeps its last value (as python-chess does).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tags {
    /// Where the values of Event, Site, Date, Round, White and Black are
    /// (byte ranges into the game): they only name the game in report
    /// rows, which few games have, so they are decoded by
    /// [`Tags::identity`] when one is written.
    identity: [(u32, u32); 6],
    /// The Result tag; empty without one. The four results as the
    /// standard writes them are kept without an allocation: a borrowed
    /// value is one of them or the empty default, canonical as it is.
    pub result: Cow<'static, str>,
    /// Where the value of the Result tag read into `result` is written:
    /// its byte range in the game, between its quotes, escapes not undone.
    pub result_value: Option<(u32, u32)>,
    /// Where the tag section ends (the movetext starts), for a game with
    /// at least one tag line; `None` for a game without tags.
    pub section_end: Option<u32>,
    /// The FEN tag, if any.
    pub fen: Option<String>,
    /// The Variant tag, if any.
    pub variant: Option<String>,
    /// The Termination tag, if any; Lichess's values are kept without an
    /// allocation.
    pub termination: Option<Cow<'static, str>>,
    /// The tag lines read with a mending or skipped, in order.
    pub quirks: Vec<TagQuirk>,
}

/// A tag line that is not PGN as the standard writes it, and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagQuirk {
    /// How the line departs from the standard.
    pub kind: TagQuirkKind,
    /// Byte range of the line, its end of line and trailing blanks
    /// excluded, in the game.
    pub start: u32,
    /// End of that byte range (exclusive).
    pub end: u32,
}

/// How a tag line departs from the standard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagQuirkKind {
    /// Quotes inside the value are not escaped (`[Event "London "Immortal""]`):
    /// the value is read between the first quote and the last.
    UnescapedQuotes,
    /// The line cannot be read as a tag (`[Annotator]`, `[Site "Paris`):
    /// skipped.
    Unreadable,
}

impl Tags {
    /// Event, Site, Date, Round, White and Black, decoded from `game`, the
    /// bytes these tags were read from (empty where a tag is missing).
    pub fn identity(&self, game: &[u8]) -> [String; 6] {
        self.identity
            .map(|(a, b)| decode_text(&RawTag(&game[a as usize..b as usize]).decode()))
    }
}

/// Decodes text as UTF-8, or as Windows-1252 where it is not valid UTF-8
/// (old databases are full of Latin-1 names).
pub fn decode_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => encoding_rs::WINDOWS_1252
            .decode_without_bom_handling(bytes)
            .0
            .into_owned(),
    }
}

/// Reads the tag lines at the start of `bytes`. Returns the tags and where
/// the movetext starts: after the last tag line, or right after a tag that
/// has moves after it on its line.
pub(super) fn read_tags(bytes: &[u8]) -> (Tags, usize) {
    let mut tags = Tags::default();
    let mut pos = 0;
    // Where the line being read ends, found once a line: a line of many
    // tags is read tag by tag, and searching for its end again at each tag
    // would take time quadratic in the line.
    let mut line_end = 0;
    loop {
        let rest = &bytes[pos..];
        if let Some(len) = read_plain_tag_line(rest, pos, &mut tags) {
            pos += len;
            tags.section_end = Some(offset(pos));
            continue;
        }
        let indent = rest
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(rest.len());
        if rest.get(indent) != Some(&b'[') {
            if rest.get(indent) == Some(&b'%') && at_line_start(bytes, pos + indent) {
                pos += indent + line_len(&rest[indent..]);
                continue;
            }
            // A tag line that lost its `[` (`Date "1983.10.23"]`): one
            // that cannot be read, skipped with a quirk. Only a line of
            // fewer than `BRACKETLESS_MAX` bytes, as the splitter judges it.
            if rest.get(indent).is_some_and(u8::is_ascii_alphabetic)
                && at_line_start(bytes, pos + indent)
                && let Some(line) = short_line(&rest[indent..])
                && pgn_audit_lex::is_bracketless_tag_line(line)
            {
                let start = pos + indent;
                tags.quirks.push(TagQuirk {
                    kind: TagQuirkKind::Unreadable,
                    start: offset(start),
                    end: offset(start + line.trim_ascii_end().len()),
                });
                pos = start + line_len(&rest[indent..]);
                tags.section_end = Some(offset(pos));
                continue;
            }
            if tags.section_end.is_some() {
                tags.section_end = Some(offset(pos));
            }
            return (tags, pos);
        }
        let line_start = pos + indent;
        if line_start >= line_end {
            line_end = line_start + line_len(&bytes[line_start..]);
        }
        pos = line_start + read_tag_line(&bytes[line_start..line_end], line_start, &mut tags);
        tags.section_end = Some(offset(pos));
    }
}

/// The most bytes of a line (its line end not counted) that can be a tag
/// line that lost its `[`, as the splitter judges one.
const BRACKETLESS_MAX: usize = pgn_audit_lex::LINE_HEAD - 1;

/// The line that `text` starts, without its line end, where it is no
/// longer than [`BRACKETLESS_MAX`] bytes.
fn short_line(text: &[u8]) -> Option<&[u8]> {
    let head = &text[..text.len().min(BRACKETLESS_MAX + 1)];
    match memchr::memchr2(b'\n', b'\r', head) {
        Some(end) => Some(&head[..end]),
        None if head.len() == text.len() => Some(head),
        None => None,
    }
}

fn at_line_start(bytes: &[u8], i: usize) -> bool {
    i == 0 || matches!(bytes[i - 1], b'\n' | b'\r')
}

/// Length of the line including its terminator (`\n`, `\r\n` or `\r`).
fn line_len(line: &[u8]) -> usize {
    match memchr::memchr2(b'\n', b'\r', line) {
        Some(i) if line[i] == b'\r' && line.get(i + 1) == Some(&b'\n') => i + 2,
        Some(i) => i + 1,
        None => line.len(),
    }
}

// Long: the standard reading, the unescaped-quotes repair and the fallback
// share the name and value positions, tried in the order the comment states.
/// Reads the tag that starts with the `[` at byte `at` of the game; `line`
/// runs from there to the end of its line, terminator included. Returns
/// how much of `line` is read: all of it, or the tag alone where another
/// tag or the movetext follows it on the line.
///
/// A value is read as the standard writes it, with `\"` and `\\` escaped.
/// Where that does not end the tag at a `]`, or leaves text after it, and
/// the line ends with a quote and `]`, the value is the text between the
/// first quote and that last one: quotes inside it were not escaped
/// (`[Event "London "Immortal""]`). A line that still cannot be read is
/// skipped.
fn read_tag_line(line: &[u8], at: usize, tags: &mut Tags) -> usize {
    let text = line.trim_ascii_end();
    let quirk = |tags: &mut Tags, kind| {
        tags.quirks.push(TagQuirk {
            kind,
            start: offset(at),
            end: offset(at + text.len()),
        });
    };
    let body = &text[1..];
    let Some(quote) = memchr::memchr(b'"', body) else {
        // `[Annotator]`, or a file cut in a tag name (`[Whi`).
        quirk(tags, TagQuirkKind::Unreadable);
        return line.len();
    };
    let name = body[..quote].trim_ascii();
    let value_start = 1 + quote + 1;
    let value_bytes = &body[quote + 1..];
    // The text after the `]` that closes the value as the standard reads it.
    let after_tag = escaped_value_end(value_bytes).and_then(|end| {
        let rest = value_bytes[end + 1..]
            .trim_ascii_start()
            .strip_prefix(b"]")?;
        Some((end, rest.trim_ascii_start()))
    });
    if let Some((end, rest)) = after_tag
        && (rest.is_empty() || rest.starts_with(b"["))
    {
        store_tag(name, &value_bytes[..end], at + value_start, tags);
        return if rest.is_empty() {
            line.len()
        } else {
            text.len() - rest.len()
        };
    }
    if let Some(inner) = text.strip_suffix(b"]").map(<[u8]>::trim_ascii_end)
        && inner.len() > value_start
        && inner.ends_with(b"\"")
    {
        store_tag(
            name,
            &inner[value_start..inner.len() - 1],
            at + value_start,
            tags,
        );
        quirk(tags, TagQuirkKind::UnescapedQuotes);
        return line.len();
    }
    match after_tag {
        Some((end, rest)) => {
            // `[Event "x"] 1. e4 e5 *`: the movetext starts after the tag.
            store_tag(name, &value_bytes[..end], at + value_start, tags);
            text.len() - rest.len()
        }
        None => {
            // `[Site "Paris` or `[Round "3"`: no closing quote or bracket.
            quirk(tags, TagQuirkKind::Unreadable);
            line.len()
        }
    }
}

/// Where the value's closing quote is, `\"` and `\\` read as escapes; `None`
/// where the value does not close on its line.
fn escaped_value_end(value: &[u8]) -> Option<usize> {
    let mut i = 0;
    loop {
        // Past a `\` at the line's very end: unterminated.
        let rest = value.get(i..)?;
        i += special_byte(rest);
        match value.get(i) {
            Some(b'\\') => i += 2,
            Some(b'"') => return Some(i),
            _ => return None, // the line's end
        }
    }
}

/// The usual tag line, `[Name "value"]` right up to its line end (`\n` or
/// `\r\n`), with no escape in the value: read in two scans for special
/// bytes instead of the general reader's search for the line end, the quote
/// and the text after the value. Returns the line's length with its end,
/// or `None` for any other line, which [`read_tag_line`] then reads (to the
/// same tags for a line this would have taken).
#[inline]
fn read_plain_tag_line(rest: &[u8], at: usize, tags: &mut Tags) -> Option<usize> {
    let body = rest.strip_prefix(b"[")?;
    // The first special byte is the first quote of the line, or no quote is
    // before the line's end.
    let quote = special_byte(body);
    if body.get(quote) != Some(&b'"') {
        return None;
    }
    let value_bytes = &body[quote + 1..];
    let end = special_byte(value_bytes);
    let len = match value_bytes.get(end..)? {
        [b'"', b']', b'\n', ..] => 3,
        [b'"', b']', b'\r', b'\n', ..] => 4,
        _ => return None,
    };
    store_tag(
        body[..quote].trim_ascii(),
        &value_bytes[..end],
        at + 1 + quote + 1,
        tags,
    );
    Some(1 + quote + 1 + end + len)
}

/// Keeps the value of a tag the audit reads: `value` (escapes not yet
/// undone) starts at byte `start` of the game.
#[inline]
fn store_tag(name: &[u8], value: &[u8], start: usize, tags: &mut Tags) {
    // Only the tags the audit reads are decoded (most lines are not).
    let decode = || decode_text(&RawTag(value).decode());
    let mut identity = |k: usize| {
        tags.identity[k] = (offset(start), offset(start + value.len()));
    };
    match name {
        b"Event" => identity(0),
        b"Site" => identity(1),
        b"Date" => identity(2),
        b"Round" => identity(3),
        b"White" => identity(4),
        b"Black" => identity(5),
        b"Result" => {
            tags.result = known_or_decoded(value, &RESULTS);
            tags.result_value = Some((offset(start), offset(start + value.len())));
        }
        b"FEN" => tags.fen = Some(decode()),
        b"Variant" => tags.variant = Some(decode()),
        b"Termination" => tags.termination = Some(known_or_decoded(value, &TERMINATIONS)),
        _ => {}
    }
}

/// Index of the first `"`, `\`, `\n` or `\r` in `hay` (its length if none).
///
/// Tag values are read on every tag line of every game; eight bytes at a
/// time (the zero-byte test of each pattern, ORed) costs fewer instructions
/// than a byte loop with four comparisons, and lines are too short for a
/// `memchr` call to pay. The lowest flagged byte of each test is exact
/// (false flags only appear above a true one), so the lowest of all is the
/// first special byte.
#[inline]
fn special_byte(hay: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while at + 8 <= hay.len() {
        let chunk = u64::from_le_bytes(hay[at..at + 8].try_into().expect("eight bytes"));
        let zero_where = |b: u8| {
            let x = chunk ^ (ONES * u64::from(b));
            x.wrapping_sub(ONES) & !x & HIGHS
        };
        let found = zero_where(b'"') | zero_where(b'\\') | zero_where(b'\n') | zero_where(b'\r');
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + hay[at..]
        .iter()
        .position(|b| matches!(b, b'"' | b'\\' | b'\n' | b'\r'))
        .unwrap_or(hay.len() - at)
}

/// The Result tag's values as the standard writes them.
const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// The Termination tag's values as Lichess writes them.
const TERMINATIONS: [&str; 5] = [
    "Normal",
    "Time forfeit",
    "Abandoned",
    "Rules infraction",
    "Unterminated",
];

/// A tag's value, decoded: one of `known` (none holds an escape) as that
/// constant, anything else decoded into a string of its own.
fn known_or_decoded(value: &[u8], known: &[&'static str]) -> Cow<'static, str> {
    match known.iter().find(|k| k.as_bytes() == value) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(decode_text(&RawTag(value).decode())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_byte_finds_the_first_as_a_byte_loop_does() {
        let naive = |h: &[u8]| {
            h.iter()
                .position(|b| matches!(b, b'"' | b'\\' | b'\n' | b'\r'))
                .unwrap_or(h.len())
        };
        let base = b"Rated Blitz game, a long value \xc3\xbc x".to_vec();
        for at in 0..=base.len() {
            for special in [b'"', b'\\', b'\n', b'\r', b'!'] {
                let mut hay = base.clone();
                hay.insert(at, special);
                // A second special byte later must not be taken for the first.
                hay.push(b'"');
                assert_eq!(special_byte(&hay), naive(&hay), "{hay:?}");
            }
        }
        assert_eq!(special_byte(b""), 0);
    }

    #[test]
    fn reads_escapes_latin1_and_duplicates() {
        let pgn = b"[Event \"a \\\"b\\\"\"]\n[White \"M\xfcller\"]\n[White \"J\xc3\xbcrgen\"]\n[Black \"\"]\n\n1. e4 *";
        let (tags, at) = read_tags(pgn);
        let [event, _, _, _, white, black] = tags.identity(pgn);
        assert_eq!(event, "a \"b\"");
        assert_eq!(white, "J\u{fc}rgen");
        assert_eq!(black, "");
        assert_eq!(&pgn[at..], b"\n1. e4 *");
        let pgn = b"[White \"M\xfcller\"]\n";
        let (tags, _) = read_tags(pgn);
        assert_eq!(tags.identity(pgn)[4], "M\u{fc}ller");
    }

    #[test]
    fn plain_lines_read_as_the_general_reader_reads_them() {
        let lines: [&[u8]; 12] = [
            b"[Event \"Rated Blitz game\"]\n",
            b"[Result \"1-0\"]\r\n",
            b"[ White  \"M\xfcller\"]\n",
            b"[Termination \"Time forfeit\"]\n1. e4",
            b"[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n",
            b"[Variant \"\"]\n",
            b"[Black \"a \\\"b\\\"\"]\n",
            b"[Site \"x\"] \n",
            b"[Site \"x\"]\r[Round \"1\"]\n",
            b"[Round \"1\"]",
            b"[Whi\\te \"x\"]\n",
            b"[Date \"x\n",
        ];
        for line in lines {
            let mut game = b"  ".to_vec();
            game.extend_from_slice(line);
            let mut fast = Tags::default();
            let Some(len) = read_plain_tag_line(&game[2..], 2, &mut fast) else {
                continue;
            };
            let mut general = Tags::default();
            let general_len = read_tag_line(&game[2..2 + line_len(&game[2..])], 2, &mut general);
            assert_eq!((len, fast), (general_len, general), "{line:?}");
        }
        let taken = lines
            .iter()
            .filter(|l| read_plain_tag_line(l, 0, &mut Tags::default()).is_some())
            .count();
        assert_eq!(taken, 6);
    }

    fn quirks(pgn: &[u8]) -> Vec<(TagQuirkKind, &str)> {
        let (tags, _) = read_tags(pgn);
        tags.quirks
            .iter()
            .map(|q| {
                let line = &pgn[q.start as usize..q.end as usize];
                (q.kind, std::str::from_utf8(line).unwrap())
            })
            .collect()
    }

    #[test]
    fn unescaped_quotes_end_at_the_last_quote_of_the_line() {
        let pgn = b"[Event \"London \"Immortal\"\"]\n[White \"\"Learning with fun\"\" ] \r\n\
                    [Black \"a\"] b\"]\n[Site \"C:\\\"]\n\n1. e4 *";
        let (tags, at) = read_tags(pgn);
        let [event, site, _, _, white, black] = tags.identity(pgn);
        assert_eq!(event, "London \"Immortal\"");
        assert_eq!(white, "\"Learning with fun\"");
        assert_eq!(black, "a\"] b");
        assert_eq!(site, "C:\\");
        assert_eq!(&pgn[at..], b"\n1. e4 *");
        assert_eq!(
            quirks(pgn),
            [
                (
                    TagQuirkKind::UnescapedQuotes,
                    "[Event \"London \"Immortal\"\"]"
                ),
                (
                    TagQuirkKind::UnescapedQuotes,
                    "[White \"\"Learning with fun\"\" ]"
                ),
                (TagQuirkKind::UnescapedQuotes, "[Black \"a\"] b\"]"),
                (TagQuirkKind::UnescapedQuotes, "[Site \"C:\\\"]"),
            ]
        );
    }

    #[test]
    fn lines_that_cannot_be_read_are_skipped() {
        let pgn = b"[Event \"a\"]\n[Annotator]\n[Site \"Paris\n[Round \"3\"\r\n[Date \"?]\n[Whi";
        let (tags, at) = read_tags(pgn);
        assert_eq!(
            tags.identity(pgn),
            ["a", "", "", "", "", ""].map(String::from)
        );
        assert_eq!(at, pgn.len());
        assert_eq!(
            quirks(pgn),
            [
                (TagQuirkKind::Unreadable, "[Annotator]"),
                (TagQuirkKind::Unreadable, "[Site \"Paris"),
                (TagQuirkKind::Unreadable, "[Round \"3\""),
                (TagQuirkKind::Unreadable, "[Date \"?]"),
                (TagQuirkKind::Unreadable, "[Whi"),
            ]
        );
    }

    #[test]
    fn tags_and_moves_sharing_a_line() {
        let pgn = b"[Event \"a\" ] \r\n[Site \"\"][Round \"1\"]\n[Result \"1-0\"] 1. e4 e5 1-0\n";
        let (tags, at) = read_tags(pgn);
        assert_eq!(tags.quirks, []);
        let [event, _, _, round, _, _] = tags.identity(pgn);
        assert_eq!((event.as_str(), round.as_str()), ("a", "1"));
        assert_eq!(tags.result, "1-0");
        assert_eq!(&pgn[at..], b"1. e4 e5 1-0\n");
    }

    #[test]
    fn result_and_termination_values_are_decoded_the_usual_ones_kept_as_constants() {
        for (line, value, constant) in [
            (&b"[Result \"1-0\"]\n"[..], "1-0", true),
            (b"[Result \"1/2-1/2\"]\n", "1/2-1/2", true),
            (b"[Result \"*\"]\n", "*", true),
            ("[Result \"½-½\"]\n".as_bytes(), "½-½", false),
            (b"[Result \"1-0 \\\"x\\\"\"]\n", "1-0 \"x\"", false),
            (b"[Result \"\xbd-\xbd\"]\n", "½-½", false),
            (b"[Event \"x\"]\n", "", false),
        ] {
            let (tags, _) = read_tags(line);
            assert_eq!(tags.result, value, "{line:?}");
            assert_eq!(
                matches!(tags.result, Cow::Borrowed(_)),
                constant,
                "{line:?}"
            );
        }
        for (line, value, constant) in [
            (
                &b"[Termination \"Time forfeit\"]\n"[..],
                "Time forfeit",
                true,
            ),
            (b"[Termination \"Normal\"]\n", "Normal", true),
            (b"[Termination \"normal\"]\n", "normal", false),
            (
                b"[Termination \"Draw \\\"agreed\\\"\"]\n",
                "Draw \"agreed\"",
                false,
            ),
        ] {
            let (tags, _) = read_tags(line);
            let termination = tags.termination.expect("a Termination tag");
            assert_eq!(termination, value, "{line:?}");
            assert_eq!(
                matches!(termination, Cow::Borrowed(_)),
                constant,
                "{line:?}"
            );
        }
    }
}
