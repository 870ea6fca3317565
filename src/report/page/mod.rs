//! report.html: one self-contained page (inline CSS and SVG, no script, no
//! network) that shows a run for a person to look at: the findings first,
//! then the run's statistics, then every group of examples in a compact
//! list whose boards open on demand.
//!
//! The page is built from the typed report rows ([`super::rows`]) and the
//! [`Summary`](super::Summary), so that it can be rebuilt from a report
//! folder alone ([`page_from_report_dir`]): a merge of folders writes the
//! same page as a run that wrote those rows. A castle's board marks come
//! from the audit's one castling geometry
//! ([`pgn_audit_core::audit::geometry`]) of the row's position, never from
//! its reason strings. The page stays small however big the run: charts
//! are aggregate counts, and at most `limit` examples are kept per reason,
//! verdict, rule, code or kind, with the count of the rest.
//!
//! Its parts: [`collect`] counts and keeps the rows, [`from_folder`] reads
//! a report folder back, [`sections`] writes the page's sections,
//! [`examples`] the example lines and [`board`] the SVG boards.

mod board;
mod collect;
mod examples;
mod from_folder;
mod sections;

use std::collections::BTreeMap;

use maud::{Markup, html};

use crate::cells::Code;
use collect::Group;
pub use collect::{HtmlReport, OnPage};
pub use from_folder::page_from_report_dir;

/// Detailed examples kept per reason, verdict, rule, code or kind.
pub(crate) const EXAMPLES: usize = 50;

/// The page's style sheet.
const CSS: &str = include_str!("page.css");

/// Longest text shown for one value (tags and details come from PGN files).
const MAX_TEXT: usize = 300;
/// Most reason combinations listed.
const MAX_COMBOS: usize = 20;
/// Most sources listed by name.
const MAX_SOURCES: usize = 20;

/// What the page keeps of a value: its first `MAX_TEXT + 1` characters,
/// enough for [`shown`] to show it exactly as the whole value, cut at
/// `MAX_TEXT` with an ellipsis.
fn kept(s: &str) -> &str {
    match s.char_indices().nth(MAX_TEXT + 1) {
        Some((end, _)) => &s[..end],
        None => s,
    }
}

/// A value as the page shows it: cut at `MAX_TEXT` characters, control
/// characters replaced (the template escapes the rest).
fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(4 * MAX_TEXT));
    for (i, c) in s.chars().enumerate() {
        if i == MAX_TEXT {
            out.push('…');
            break;
        }
        out.push(if c.is_control() && c != '\t' {
            '\u{fffd}'
        } else {
            c
        });
    }
    out
}

/// A value as the page shows it ([`shown`]), with a line break allowed
/// after each `at` (a `<wbr>`): a code wraps at `_`
/// (`false_castling_rights`), a FEN at `/`, never inside a word.
fn wrapping(s: &str, at: char) -> Markup {
    let s = shown(s);
    html! { @for (i, part) in s.split_inclusive(at).enumerate() { @if i > 0 { wbr; } (part) } }
}

/// A value as the page keeps it: [`kept`], owned.
fn keep(s: &str) -> String {
    kept(s).to_owned()
}

/// "1980s" from a PGN date such as "1986.11.??"; "unknown" without a year.
fn decade(date: &str) -> String {
    let year = date
        .get(..4)
        .filter(|y| y.bytes().all(|b| b.is_ascii_digit()));
    match year.and_then(|y| y.parse::<u32>().ok()) {
        Some(y) => format!("{}s", y / 10 * 10),
        None => "unknown".to_owned(),
    }
}

/// A PGN date as a reader wants it: `1986.11.??` is `1986.11`, and a date
/// without a year is none.
fn date(d: &str) -> Option<&str> {
    let mut d = d.trim();
    while let Some(rest) = d.strip_suffix(".??") {
        d = rest;
    }
    (!d.is_empty() && !d.starts_with('?')).then_some(d)
}

/// A tag value worth showing: not empty, not `?`.
fn tag(v: &str) -> Option<&str> {
    let v = v.trim();
    (!v.is_empty() && v != "?" && v != "-").then_some(v)
}

/// The count of every code of a group map, in canonical order; with
/// `zeros`, the codes without rows too.
fn ordered_counts<K: Code + Ord, R>(
    map: &BTreeMap<K, Group<R>>,
    zeros: bool,
) -> Vec<(String, u64)> {
    K::ALL
        .iter()
        .filter_map(|k| match map.get(k) {
            Some(g) => Some((k.code().to_owned(), g.total)),
            None => zeros.then(|| (k.code().to_owned(), 0)),
        })
        .collect()
}

fn is_url(s: &str) -> bool {
    (s.starts_with("https://") || s.starts_with("http://"))
        && s.chars().count() <= MAX_TEXT
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "once", "twice", "3 times".
fn times(n: u32) -> String {
    match n {
        1 => "once".to_owned(),
        2 => "twice".to_owned(),
        n => format!("{n} times"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decades_and_dates() {
        assert_eq!(decade("1986.11.??"), "1980s");
        assert_eq!(decade("2025.05.01"), "2020s");
        assert_eq!(decade("????.??.??"), "unknown");
        assert_eq!(decade(""), "unknown");
        assert_eq!(date("1986.11.??"), Some("1986.11"));
        assert_eq!(date("1986.??.??"), Some("1986"));
        assert_eq!(date("????.??.??"), None);
        assert_eq!(date(""), None);
        assert_eq!(date("2025.05.01"), Some("2025.05.01"));
    }

    /// A kept value shows as the whole value does.
    #[test]
    fn kept_values_show_as_whole_ones() {
        let long = "é".repeat(MAX_TEXT * 3);
        assert_eq!(kept(&long).chars().count(), MAX_TEXT + 1);
        assert_eq!(shown(kept(&long)), shown(&long));
        assert_eq!(shown(&long).chars().count(), MAX_TEXT + 1);
        let url = format!("https://example.org/{}", "a".repeat(MAX_TEXT));
        assert!(!is_url(&url) && !is_url(kept(&url)));
        assert!(is_url("https://lichess.org/abcdefgh"));
        assert_eq!(shown("a\u{7}b"), "a\u{fffd}b");
    }
}
