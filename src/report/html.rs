//! report.html: one self-contained page (inline CSS and SVG, no script, no
//! network) that shows a run for a person to look at: the findings first,
//! then the run's statistics, then every group of examples in a compact
//! list whose boards open on demand.
//!
//! The page is built from the typed report rows ([`super::rows`]) and the
//! [`Summary`], so that it can be rebuilt from a report folder alone
//! ([`page_from_report_dir`]): a merge of folders writes the same page as a run
//! that wrote those rows. A castle's board marks come from the audit's one
//! castling geometry ([`pgn_audit_core::audit::geometry`]) of the row's position,
//! never from its reason strings. The page stays small however big the
//! run: charts are aggregate counts, and at most `limit` examples are kept
//! per reason, verdict, rule, code or kind, with the count of the rest.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use maud::{DOCTYPE, Markup, PreEscaped, html};
use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, CastlingSide, Color, File, Piece, Role, Setup, Square};

use super::Summary;
use super::rows::{
    self, CastlingRow, ClaimRow, ErrorRow, Identity, MissedDrawRow, ReportRow, ResultRow, Text,
};
use pgn_audit_core::audit::geometry::{Castle, Geometry, castle_candidates, geometry};
use pgn_audit_core::audit::{
    CastlingReason, ClaimSource, ClaimVerdict, DrawRule, ErrorKind, ResultCode,
};

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

/// Rows of one reason, verdict, rule, code or kind: all counted, the first
/// `limit` kept, each value cut by [`kept`]: the page's memory is bounded
/// whatever the input (a 20 MB White tag keeps 301 characters).
#[derive(Debug, Clone)]
struct Group<R> {
    total: u64,
    rows: Vec<R>,
}

impl<R> Default for Group<R> {
    fn default() -> Self {
        Group {
            total: 0,
            rows: Vec::new(),
        }
    }
}

impl<R> Group<R> {
    /// Counts a row, and keeps it (made by `row`) while there is room.
    fn push(&mut self, limit: usize, row: impl FnOnce() -> R) {
        self.total += 1;
        if self.rows.len() < limit {
            self.rows.push(row());
        }
    }
}

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

/// A value as the page keeps it: [`kept`], owned.
fn keep(s: &str) -> String {
    kept(s).to_owned()
}

/// A report row that the page shows.
pub trait OnPage: ReportRow {
    /// Adds the row to `page`.
    fn add_to(&self, page: &mut HtmlReport);
}

impl OnPage for CastlingRow {
    fn add_to(&self, page: &mut HtmlReport) {
        page.add_castling(self);
    }
}

impl OnPage for ClaimRow {
    fn add_to(&self, page: &mut HtmlReport) {
        page.add_claim(self);
    }
}

impl OnPage for MissedDrawRow {
    fn add_to(&self, page: &mut HtmlReport) {
        page.add_missed_draw(self);
    }
}

impl OnPage for ErrorRow {
    fn add_to(&self, page: &mut HtmlReport) {
        page.add_error(self);
    }
}

impl OnPage for ResultRow {
    fn add_to(&self, page: &mut HtmlReport) {
        page.add_result(self);
    }
}

fn count(map: &mut BTreeMap<String, u64>, key: &str) {
    match map.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            map.insert(key.to_owned(), 1);
        }
    }
}

fn group<'a, R>(map: &'a mut BTreeMap<String, Group<R>>, key: &str) -> &'a mut Group<R> {
    if !map.contains_key(key) {
        map.insert(key.to_owned(), Group::default());
    }
    map.get_mut(key).expect("just inserted")
}

/// The claim verdicts that uphold a claim.
fn upheld(verdict: &str) -> bool {
    matches!(verdict, "valid" | "valid_on_announced_move")
}

/// Collects the rows of a run (or of a report folder) for report.html.
#[derive(Debug, Clone)]
pub struct HtmlReport {
    limit: usize,
    castles: u64,
    /// Castling rows by reason code (a row counts once per reason).
    castle_reasons: BTreeMap<String, u64>,
    castle_decades: BTreeMap<String, u64>,
    castle_variants: BTreeMap<String, u64>,
    castle_combos: BTreeMap<String, u64>,
    /// Examples by their first reason.
    castle_examples: BTreeMap<String, Group<CastlingRow>>,
    /// Claims by (verdict, source).
    claim_counts: BTreeMap<(String, String), u64>,
    claim_kinds: BTreeMap<String, u64>,
    /// False claims from a Termination tag or a comment: they flag a game.
    flagging_claims: u64,
    /// Examples of the false verdicts.
    claim_examples: BTreeMap<String, Group<ClaimRow>>,
    missed: BTreeMap<String, Group<MissedDrawRow>>,
    errors: BTreeMap<String, Group<ErrorRow>>,
    results: BTreeMap<String, Group<ResultRow>>,
    /// Rows that do not fit their report's columns (from another version).
    unreadable: u64,
}

impl Default for HtmlReport {
    fn default() -> Self {
        HtmlReport::new(EXAMPLES)
    }
}

impl HtmlReport {
    /// A collector that keeps at most `limit` examples per group.
    pub(crate) fn new(limit: usize) -> HtmlReport {
        HtmlReport {
            limit,
            castles: 0,
            castle_reasons: BTreeMap::new(),
            castle_decades: BTreeMap::new(),
            castle_variants: BTreeMap::new(),
            castle_combos: BTreeMap::new(),
            castle_examples: BTreeMap::new(),
            claim_counts: BTreeMap::new(),
            claim_kinds: BTreeMap::new(),
            flagging_claims: 0,
            claim_examples: BTreeMap::new(),
            missed: BTreeMap::new(),
            errors: BTreeMap::new(),
            results: BTreeMap::new(),
            unreadable: 0,
        }
    }

    /// One row of `R`'s report read from a file, identity columns first:
    /// each value cut to what the page keeps of it, then counted as
    /// unreadable where the values do not fit `R`'s columns (a folder of
    /// another version).
    pub fn add_record<R: OnPage>(&mut self, record: &csv::StringRecord) {
        let record: csv::StringRecord = record.iter().map(kept).collect();
        match rows::from_record::<R>(&record, 1) {
            Ok(row) => row.add_to(self),
            Err(_) => self.unreadable += 1,
        }
    }

    /// One castling.csv row.
    pub fn add_castling<S: Text>(&mut self, r: &CastlingRow<S>) {
        let reasons = r.reasons.as_ref();
        self.castles += 1;
        for code in reasons.split(';').filter(|c| !c.is_empty()) {
            count(&mut self.castle_reasons, code);
        }
        count(&mut self.castle_decades, &decade(r.id.date.as_ref()));
        count(&mut self.castle_variants, r.id.variant.as_ref());
        count(&mut self.castle_combos, reasons);
        let first = reasons.split(';').next().unwrap_or("");
        group(&mut self.castle_examples, first).push(self.limit, || r.owned(&keep));
    }

    /// One claims.csv row.
    pub fn add_claim<S: Text>(&mut self, r: &ClaimRow<S>) {
        let (verdict, source) = (r.verdict.as_ref(), r.claim_source.as_ref());
        let key = (verdict.to_owned(), source.to_owned());
        *self.claim_counts.entry(key).or_default() += 1;
        count(&mut self.claim_kinds, r.claim.as_ref());
        if !upheld(verdict) {
            if source != ClaimSource::Implied.code() {
                self.flagging_claims += 1;
            }
            group(&mut self.claim_examples, verdict).push(self.limit, || r.owned(&keep));
        }
    }

    /// One missed_draws.csv row.
    pub fn add_missed_draw<S: Text>(&mut self, r: &MissedDrawRow<S>) {
        group(&mut self.missed, r.rule.as_ref()).push(self.limit, || r.owned(&keep));
    }

    /// One errors.csv row.
    pub fn add_error<S: Text>(&mut self, r: &ErrorRow<S>) {
        group(&mut self.errors, r.kind.as_ref()).push(self.limit, || r.owned(&keep));
    }

    /// One results.csv row.
    pub fn add_result<S: Text>(&mut self, r: &ResultRow<S>) {
        group(&mut self.results, r.code.as_ref()).push(self.limit, || r.owned(&keep));
    }

    /// The page.
    pub fn render(&self, summary: &Summary) -> String {
        html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    meta name="viewport" content="width=device-width, initial-scale=1";
                    title { "pgn-audit report" }
                    style { (PreEscaped(CSS)) }
                }
                body {
                    (defs())
                    (header(summary))
                    main {
                        (glance(self, summary))
                        (castling(self, summary))
                        (claims(self, summary))
                        div.grid {
                            (counts_section("results", "Results that contradict the board",
                                "Recorded results that the final position or the Laws contradict (FIDE 5.1.1, 5.2.1, 5.2.2, 6.9)",
                                "results", &ordered_counts(&self.results, ResultCode::ALL.iter().map(|c| c.code()), true), "bad"))
                            (counts_section("missed-draws", "Missed automatic draws",
                                "Games played on past a fivefold repetition or 75 moves (FIDE 9.6), or past a dead position: insufficient material, or a helpmate analysis (FIDE 5.2.2)",
                                "missed_draws", &ordered_counts(&self.missed, DrawRule::ALL.iter().map(|r| r.code()), true), "bad"))
                            (counts_section("errors", "Errors",
                                "Games that could not be audited to their end",
                                "errors", &ordered_counts(&self.errors, ErrorKind::ALL.iter().map(|k| k.code()), false), "bad"))
                        }
                        (examples(self))
                    }
                    footer { "Written by pgn-audit. The CSV files in this folder hold every row." }
                }
            }
        }
        .into_string()
    }
}

/// Builds report.html from a report folder: its five CSV files, each read
/// through its typed row, and summary.json.
pub fn page_from_report_dir(dir: &Path) -> io::Result<String> {
    let mut page = HtmlReport::default();
    read_into::<CastlingRow>(dir, &mut page)?;
    read_into::<ClaimRow>(dir, &mut page)?;
    read_into::<MissedDrawRow>(dir, &mut page)?;
    read_into::<ErrorRow>(dir, &mut page)?;
    read_into::<ResultRow>(dir, &mut page)?;
    let path = dir.join("summary.json");
    let text = std::fs::read_to_string(&path)?;
    let summary = Summary::from_json(&text).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: not a summary of version 3 of the report contract",
                path.display()
            ),
        )
    })?;
    Ok(page.render(&summary))
}

/// Reads `dir`'s report of `R` (its header checked) into `page`.
fn read_into<R: OnPage>(dir: &Path, page: &mut HtmlReport) -> io::Result<()> {
    let path = dir.join(R::FILE);
    let file = std::fs::File::open(&path)?;
    let mut csv = csv::Reader::from_reader(io::BufReader::new(file));
    let headers = csv.headers().map_err(|e| invalid(&path, &e))?;
    if !headers.iter().eq(rows::columns::<R>()) {
        return Err(invalid(&path, &"not the columns of this version"));
    }
    let mut record = csv::StringRecord::new();
    let mut n = 0u64;
    while csv
        .read_record(&mut record)
        .map_err(|e| invalid(&path, &e))?
    {
        n += 1;
        // The row must be an `R`: a folder of another version is refused.
        rows::from_record::<R>(&record, n).map_err(|e| invalid(&path, &e))?;
        page.add_record::<R>(&record);
    }
    Ok(())
}

fn invalid(path: &Path, e: &dyn std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {e}", path.display()),
    )
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

/// Known codes first, in their canonical order, then any others (from
/// another version's reports) in sorted order.
fn ordered<V>(
    map: &BTreeMap<String, V>,
    known: impl Iterator<Item = &'static str>,
) -> Vec<(&str, &V)> {
    let known: Vec<&str> = known.collect();
    let mut out: Vec<(&str, &V)> = known
        .iter()
        .filter_map(|k| map.get_key_value(*k).map(|(k, v)| (k.as_str(), v)))
        .collect();
    out.extend(
        map.iter()
            .filter(|(k, _)| !known.contains(&k.as_str()))
            .map(|(k, v)| (k.as_str(), v)),
    );
    out
}

/// The count of every code of a group map; with `zeros`, the known codes
/// without rows too.
fn ordered_counts<R>(
    map: &BTreeMap<String, Group<R>>,
    known: impl Iterator<Item = &'static str> + Clone,
    zeros: bool,
) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = if zeros {
        known
            .clone()
            .map(|k| (k.to_owned(), map.get(k).map_or(0, |g| g.total)))
            .collect()
    } else {
        Vec::new()
    };
    for (k, g) in ordered(map, known) {
        if !out.iter().any(|(o, _)| o == k) {
            out.push((k.to_owned(), g.total));
        }
    }
    out
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

/// The half-move index of a FEN's position: twice its fullmove counter,
/// plus one with Black to move.
fn half_moves(setup: &Setup) -> u64 {
    2 * u64::from(setup.fullmoves.get()) + u64::from(setup.turn.is_black())
}

/// The move that led to the position of half-move index `index`, as a
/// reader numbers it: `26.` (White's 26th move) or `26…`.
fn move_before(index: u64) -> String {
    let (number, black_to_move) = (index / 2, index % 2 == 1);
    if black_to_move {
        format!("{number}.")
    } else {
        format!("{}…", number.saturating_sub(1))
    }
}

/// `26.Nb5` or `26…Nb5`: a move by `color` in the position whose fullmove
/// counter is `number`.
fn move_name(number: u32, white: bool, san: &str) -> String {
    format!("{number}{}{}", if white { "." } else { "…" }, shown(san))
}

fn parse_fen(fen: &str) -> Option<Setup> {
    Fen::from_ascii(fen.as_bytes()).ok().map(Fen::into_setup)
}

fn squares(bb: Bitboard) -> String {
    bb.into_iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `f1:c4 g1:b6 c3` — attacked squares with their attackers.
fn attacked_list(list: &[(Square, Bitboard)]) -> String {
    list.iter()
        .map(|(sq, by)| {
            format!(
                "{sq}:{}",
                by.into_iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

// ---- the parts of the page ----

/// Shared SVG definitions: the board pattern and the arrow heads.
fn defs() -> Markup {
    html! {
        svg.defs width="0" height="0" aria-hidden="true" {
            defs {
                pattern #chk width="2" height="2" patternUnits="userSpaceOnUse" {
                    rect width="2" height="2" fill="#eed9b6" {}
                    rect x="1" width="1" height="1" fill="#b98b62" {}
                    rect y="1" width="1" height="1" fill="#b98b62" {}
                }
                marker #ah-path viewBox="0 0 10 10" refX="6" refY="5" markerWidth="3" markerHeight="3" orient="auto" {
                    path d="M0 0L10 5L0 10z" fill="#1f5fd1" {}
                }
                marker #ah-rook viewBox="0 0 10 10" refX="6" refY="5" markerWidth="3" markerHeight="3" orient="auto" {
                    path d="M0 0L10 5L0 10z" fill="#0a8a7a" {}
                }
                // The files and ranks, drawn once for every board.
                g #coords {
                    @for i in 0..8u8 {
                        text.coord x="-0.22" y={ (i) ".6" } { (8 - i) }
                        text.coord x={ (i) ".42" } y="8.27" { ((b'a' + i) as char) }
                    }
                }
                marker #ah-attack viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" markerHeight="4" orient="auto" {
                    path d="M0 0L10 5L0 10z" fill="#d0191b" {}
                }
            }
        }
    }
}

fn header(s: &Summary) -> Markup {
    let n = s.sources.len();
    html! {
        header {
            h1 { "pgn-audit report" }
            p.muted #sources data-count=(n) {
                (if n == 1 { "Source" } else { "Sources" }) ": "
                @for (i, src) in s.sources.iter().take(MAX_SOURCES).enumerate() {
                    @if i > 0 { ", " }
                    code { (shown(src)) }
                }
                @if n > MAX_SOURCES { " and " (n - MAX_SOURCES) " more" }
            }
            nav {
                a href="#glance" { "At a glance" }
                a href="#castling" { "Illegal castles" }
                a href="#claims" { "Draw claims" }
                a href="#results" { "Results" }
                a href="#missed-draws" { "Missed draws" }
                a href="#errors" { "Errors" }
                a href="#examples" { "Examples" }
            }
        }
        @if s.interrupted {
            p.banner #interrupted { "The run was interrupted: this report covers the games done so far." }
        }
    }
}

/// One number on a card: `key` names the summary.json count(s) it equals
/// (`a.b` or a sum `a.b+c.d`); `rows` names the report rows it counts.
fn card(
    id: &str,
    class: &str,
    value: u64,
    label: &str,
    key: Option<&str>,
    rows: Option<&str>,
    note: Markup,
) -> Markup {
    html! {
        div class={ "stat " (class) } id={ "stat-" (id) } data-value=(value) {
            b.count data-key=[key] data-rows=[rows] { (value) }
            span { (label) }
            (note)
        }
    }
}

fn sum_key(prefix: &str, codes: impl Iterator<Item = &'static str>) -> String {
    codes
        .map(|c| format!("{prefix}.{c}"))
        .collect::<Vec<_>>()
        .join("+")
}

fn glance(h: &HtmlReport, s: &Summary) -> Markup {
    html! {
        section #glance {
            h2 { "At a glance" }
            (glance_findings(h, s))
            (glance_run(s))
            @if s.games > 0 {
                div.classes #classes role="img" aria-label="clean, flagged and incomplete games" {
                    @for (k, class) in [(s.clean, "clean"), (s.flagged, "flagged"), (s.incomplete, "incomplete")] {
                        @if k > 0 {
                            span class=(class) style={ "width:" (format!("{:.3}", k as f64 * 100.0 / s.games as f64)) "%" } {}
                        }
                    }
                }
            }
        }
    }
}

/// The glance's finding cards: one per kind of finding, each with its
/// count, and a banner for rows that did not fit.
fn glance_findings(h: &HtmlReport, s: &Summary) -> Markup {
    let false_verdicts: Vec<&'static str> = ClaimVerdict::ALL
        .iter()
        .map(|v| v.code())
        .filter(|v| !upheld(v))
        .collect();
    let false_claims: u64 = ClaimVerdict::ALL
        .iter()
        .zip(&s.claims)
        .filter(|(v, _)| !upheld(v.code()))
        .map(|(_, n)| n)
        .sum();
    let missed: u64 = s.missed_draws.iter().sum();
    let results: u64 = s.results.iter().sum();
    let errors: u64 = s.errors.iter().sum();
    html! {
        h3 { "Findings" }
        div.cards.findings {
            (card("castles", "finding", h.castles, "illegal castles", None, Some("castling.csv"),
                html! { small { "castling moves that break FIDE 3.8.2" } }))
            (card("false-claims", "finding", false_claims, "false draw claims",
                Some(&sum_key("claims", false_verdicts.iter().copied())), None,
                html! { small data-rows="claims.csv:flagging" data-value=(h.flagging_claims) {
                    (h.flagging_claims) " from a Termination tag or comment" } }))
            (card("missed", "finding", missed, "missed automatic draws",
                Some(&sum_key("missed_draws", DrawRule::ALL.iter().map(|r| r.code()))), None,
                html! { small { "fivefold, 75 moves, dead position" } }))
            (card("results", "finding", results, "result problems",
                Some(&sum_key("results", ResultCode::ALL.iter().map(|r| r.code()))), None,
                html! { small { "results the board contradicts" } }))
            (card("errors", "finding", errors, "errors",
                Some(&sum_key("errors", ErrorKind::ALL.iter().map(|r| r.code()))), None,
                html! { small { "games not audited to their end" } }))
        }
        @if h.unreadable > 0 {
            p.banner #unreadable data-count=(h.unreadable) {
                (plural(h.unreadable, "report row does", "report rows do"))
                " not fit this version's columns and are not shown."
            }
        }
    }
}

/// The glance's run cards: the games by class, the input, the speed.
fn glance_run(s: &Summary) -> Markup {
    let pct = |k: u64| {
        if s.games == 0 {
            String::new()
        } else {
            format!(" · {:.1}%", k as f64 * 100.0 / s.games as f64)
        }
    };
    // As summary.json gives it, so that a page built from a report folder
    // is the same as the run's.
    let seconds = (s.seconds * 1000.0).round() / 1000.0;
    let rate = if seconds > 0.0 {
        s.games as f64 / seconds
    } else {
        0.0
    };
    let none = html! {};
    html! {
        h3 { "The run" }
        div.cards {
            (card("games", "games", s.games, "games", Some("games"), None, none.clone()))
            (card("clean", "clean", s.clean, &format!("clean{}", pct(s.clean)), Some("clean"), None, none.clone()))
            (card("flagged", "flagged", s.flagged, &format!("flagged{}", pct(s.flagged)), Some("flagged"), None, none.clone()))
            (card("incomplete", "incomplete", s.incomplete, &format!("incomplete{}", pct(s.incomplete)), Some("incomplete"), None, none.clone()))
            (card("quirks", "quirks", s.notation_quirks, "notation quirks", Some("notation_quirks"), None, none.clone()))
            div.stat #stat-bytes data-value=(format!("{:.1}", s.bytes as f64 / f64::from(1 << 20))) {
                b { (format!("{:.1}", s.bytes as f64 / f64::from(1 << 20))) } span { "MiB read" }
            }
            div.stat #stat-seconds data-value=(format!("{seconds:.2}")) {
                b { (format!("{seconds:.2}")) } span { "seconds" }
            }
            div.stat #stat-rate data-value=(format!("{rate:.0}")) {
                b { (format!("{rate:.0}")) } span { "games/s" }
            }
            (card("threads", "threads", s.threads as u64, "threads", Some("threads"), None, none))
        }
    }
}

/// One bar chart: a label, a bar scaled to the largest count, the count.
/// `key` is the summary.json object the counts come from, if any; `tone`
/// colours a bar by its label.
fn bar_chart(
    id: &str,
    items: &[(String, u64)],
    key: Option<&str>,
    tone: impl Fn(&str) -> &'static str,
) -> Markup {
    let max = items.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    html! {
        @if items.is_empty() {
            p.muted { "None." }
        } @else {
            div.chart id=(id) role="img" {
                @for (label, n) in items {
                    div.bar data-label=(shown(label)) data-count=(n) {
                        span.label { (shown(label)) }
                        span.track {
                            span class={ "fill " (tone(label)) }
                                style={ "width:" (format!("{:.2}", *n as f64 * 100.0 / max as f64)) "%" } {}
                        }
                        span.n.count data-key=[key.map(|k| format!("{k}.{label}"))] { (n) }
                    }
                }
            }
        }
    }
}

fn castling(h: &HtmlReport, s: &Summary) -> Markup {
    let reasons: Vec<(String, u64)> = CastlingReason::ALL
        .iter()
        .zip(&s.castling)
        .map(|(r, n)| (r.code().to_owned(), *n))
        .filter(|(_, n)| *n > 0)
        .collect();
    let decades: Vec<(String, u64)> = h
        .castle_decades
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    let variants: Vec<(String, u64)> = h
        .castle_variants
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    let mut combos: Vec<(&String, &u64)> = h.castle_combos.iter().collect();
    combos.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    html! {
        section #castling {
            h2 { "Illegal castles " span.muted #castles-total data-count=(h.castles) { "(" (plural(h.castles, "castle", "castles")) ")" } }
            @if h.castles == 0 {
                p.muted { "No castling move broke the rules." }
            } @else {
                div.grid {
                    div.panel {
                        h3 { "By reason" }
                        p.muted { "A castle can break several rules; it counts once for each." }
                        (bar_chart("chart-castle-reasons", &reasons, Some("castling"), |_| "bad"))
                    }
                    div.panel {
                        h3 { "By decade (Date tag)" }
                        (bar_chart("chart-castle-decades", &decades, None, |_| "plain"))
                        h3 { "By variant" }
                        (bar_chart("chart-castle-variants", &variants, None, |_| "plain"))
                    }
                    div.panel {
                        h3 { "Most frequent reason combinations" }
                        div.wide {
                            table #castle-combos {
                                tr { th { "reasons" } th.n { "castles" } }
                                @for (k, v) in combos.iter().take(MAX_COMBOS) {
                                    tr data-reasons=(shown(k)) { td { code { (shown(&k.replace(';', " + "))) } } td.n { (v) } }
                                }
                            }
                        }
                        @if combos.len() > MAX_COMBOS {
                            p.more { (combos.len() - MAX_COMBOS) " other combinations." }
                        }
                    }
                }
            }
        }
    }
}

fn claims(h: &HtmlReport, s: &Summary) -> Markup {
    let total: u64 = h.claim_counts.values().sum();
    let verdicts: Vec<(String, u64)> = ClaimVerdict::ALL
        .iter()
        .zip(&s.claims)
        .map(|(v, n)| (v.code().to_owned(), *n))
        .filter(|(_, n)| *n > 0)
        .collect();
    let kinds: Vec<(String, u64)> = h.claim_kinds.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let false_total: u64 = verdicts
        .iter()
        .filter(|(v, _)| !upheld(v))
        .map(|(_, n)| n)
        .sum();
    html! {
        section #claims {
            h2 { "Draw claims "
                span.muted #claims-total data-count=(total) {
                    "(" (plural(total, "claim", "claims")) " audited, " (false_total) " false)"
                }
            }
            @if total == 0 {
                p.muted { "No draw claim was audited." }
            } @else {
                div.grid {
                    div.panel {
                        h3 { "By verdict" }
                        (bar_chart("chart-claim-verdicts", &verdicts, Some("claims"), |v| if upheld(v) { "ok" } else { "bad" }))
                        p.legend { i.ok {} "upheld" i.bad {} "false" }
                    }
                    div.panel {
                        h3 { "By verdict and source" }
                        div.wide {
                            (claim_table(h))
                        }
                        h3 { "By claim" }
                        (bar_chart("chart-claim-kinds", &kinds, None, |_| "plain"))
                        p.muted { "An " code { "implied" } " claim (a drawn game whose final position repeats) flags nothing." }
                    }
                }
            }
        }
    }
}

/// The claims by verdict and source: a row per verdict, a column per
/// source (the contract's, then any other a folder holds).
fn claim_table(h: &HtmlReport) -> Markup {
    let mut by_verdict: BTreeMap<String, u64> = BTreeMap::new();
    let mut sources: Vec<&str> = ClaimSource::ALL.iter().map(|c| c.code()).collect();
    for ((v, src), n) in &h.claim_counts {
        *by_verdict.entry(v.clone()).or_default() += n;
        if !sources.contains(&src.as_str()) {
            sources.push(src);
        }
    }
    html! {
        table #claim-table {
            tr { th { "verdict" } @for src in &sources { th.n { (shown(src)) } } th.n { "all" } }
            @for (v, n) in ordered(&by_verdict, ClaimVerdict::ALL.iter().map(|v| v.code())) {
                tr data-verdict=(shown(v)) {
                    td { span class={ "dot " (if upheld(v) { "ok" } else { "bad" }) } {} (shown(v)) }
                    @for src in &sources {
                        td.n data-source=(shown(src)) {
                            (h.claim_counts.get(&(v.to_owned(), (*src).to_owned())).copied().unwrap_or(0))
                        }
                    }
                    td.n { (n) }
                }
            }
        }
    }
}

/// A section with one chart of counts by code; `key` is the summary.json
/// object of those counts.
fn counts_section(
    id: &str,
    title: &str,
    what: &str,
    key: &str,
    items: &[(String, u64)],
    tone: &'static str,
) -> Markup {
    let total: u64 = items.iter().map(|(_, n)| n).sum();
    html! {
        section.panel id=(id) {
            h2 { (title) " " span.muted id={ (id) "-total" } data-count=(total) { "(" (total) ")" } }
            p.muted { (what) "." }
            @if total > 0 || items.iter().any(|(_, n)| *n == 0) {
                (bar_chart(&format!("chart-{id}"), items, Some(key), |_| tone))
            }
        }
    }
}

// ---- examples ----

fn identity(id: &Identity) -> Markup {
    let white = tag(&id.white);
    let black = tag(&id.black);
    let site = tag(&id.site);
    // The players, else the event, name the game.
    let event = tag(&id.event);
    let who = match (white, black) {
        (None, None) => event.map(shown),
        (w, b) => Some(format!(
            "{} – {}",
            shown(w.unwrap_or("?")),
            shown(b.unwrap_or("?"))
        )),
    };
    let mut parts: Vec<Markup> = Vec::new();
    if let Some(e) = event.filter(|_| white.is_some() || black.is_some()) {
        parts.push(html! { (shown(e)) });
    }
    if let Some(r) = tag(&id.round) {
        parts.push(html! { "round " (shown(r)) });
    }
    if let Some(d) = date(&id.date) {
        parts.push(html! { (shown(d)) });
    }
    if let Some(site) = site {
        parts.push(if is_url(site) {
            html! { a href=(site) rel="noopener noreferrer" { (shown(site)) } }
        } else {
            html! { (shown(site)) }
        });
    }
    if id.variant != "standard" {
        parts.push(html! { (shown(&id.variant)) });
    }
    html! {
        span.who {
            @match &who { Some(w) => { b { (w) } }, None => { b.muted { "no players or event named" } } }
            @if let Some(r) = tag(&id.result) { " " span.muted { (shown(r)) } }
        }
        @if !parts.is_empty() {
            span.tags { @for (i, p) in parts.iter().enumerate() { @if i > 0 { " · " } (p) } }
        }
        span.src { (shown(&id.source)) ", game " (id.game) ", line " (id.line) }
    }
}

/// The marks of a castle board: the geometry, and which pieces had moved
/// (`king_moved`, `rook_moved`, `king_displaced`, `rook_displaced`) or
/// which rook square lost its rook (`rook_captured`, standard chess).
struct CastleMarks {
    geometry: Geometry,
    moved: Bitboard,
    captured: Option<Square>,
}

/// Of the castles a position allows, the one a row describes: the only
/// one, or where a Chess960 position leaves the rook open, the first whose
/// geometry breaks the rules as the row's reasons (`has`) say.
fn row_castle(candidates: &[Castle], board: &Board, has: impl Fn(&str) -> bool) -> Option<Castle> {
    let first = *candidates.first()?;
    if candidates.len() == 1 {
        return Some(first);
    }
    let castle = candidates.iter().copied().find(|c| {
        let breaks = geometry(board, *c).breaks();
        [
            CastlingReason::NoRook,
            CastlingReason::PathBlocked,
            CastlingReason::InCheck,
            CastlingReason::ThroughCheck,
            CastlingReason::IntoCheck,
        ]
        .iter()
        .all(|r| breaks.contains(*r) == has(r.code()))
    });
    Some(castle.unwrap_or(first))
}

/// The castle of a row from its position: the geometry of the castle the
/// row describes (where a Chess960 position leaves the rook open, the
/// candidate whose facts are the row's).
fn castle_marks(row: &CastlingRow, setup: &Setup) -> Option<CastleMarks> {
    let color = if row.side == "black" {
        Color::Black
    } else {
        Color::White
    };
    let side = if row.castle == "queenside" {
        CastlingSide::QueenSide
    } else {
        CastlingSide::KingSide
    };
    let chess960 = row.id.variant == "chess960";
    let candidates = castle_candidates(&setup.board, setup.castling_rights, color, side, chess960);
    let has = |code: &str| row.reasons.split(';').any(|r| r == code);
    let g = geometry(&setup.board, row_castle(&candidates, &setup.board, has)?);
    let mut moved = Bitboard::EMPTY;
    if has("king_moved") || has("king_displaced") {
        moved.add(g.king);
    }
    let captured = has("rook_captured");
    if let Some(r) = g.rook
        && ((has("rook_moved") && !captured) || has("rook_displaced"))
    {
        moved.add(r);
    }
    let captured = (captured && !chess960).then(|| {
        Square::from_coords(
            match side {
                CastlingSide::KingSide => File::H,
                CastlingSide::QueenSide => File::A,
            },
            color.backrank(),
        )
    });
    Some(CastleMarks {
        geometry: g,
        moved,
        captured,
    })
}

fn xy(sq: Square) -> (u32, u32) {
    (sq.file().to_u32(), 7 - sq.rank().to_u32())
}

fn glyph(role: Role) -> &'static str {
    // The filled glyphs for both colours (white ones are drawn filled white
    // with a black outline); U+FE0E asks for text, not emoji, presentation.
    match role {
        Role::King => "\u{265a}",
        Role::Queen => "\u{265b}",
        Role::Rook => "\u{265c}",
        Role::Bishop => "\u{265d}",
        Role::Knight => "\u{265e}",
        Role::Pawn => "\u{265f}\u{fe0e}",
    }
}

/// A square mark: a rect of `class` on `sq`.
fn square_mark(sq: Square, class: &str, attackers: Option<Bitboard>) -> Markup {
    let (x, y) = xy(sq);
    html! {
        rect class=(class) data-sq=(sq) data-attackers=[attackers.map(squares)]
            x=(x) y=(y) width="1" height="1" {}
    }
}

/// An arrow from `from` to `to`, shifted by `dy` of a square across its
/// direction (so that the king's path, the rook's and the attacks do not
/// lie on one another), its head short of the target's centre.
fn arrow(class: &str, from: Square, to: Square, shift: f64, marker: &str) -> Markup {
    let ((x1, y1), (x2, y2)) = (xy(from), xy(to));
    let (x1, y1, x2, y2) = (
        f64::from(x1) + 0.5,
        f64::from(y1) + 0.5,
        f64::from(x2) + 0.5,
        f64::from(y2) + 0.5,
    );
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
    // The normal, pointing up the board for a move along a rank.
    let (nx, ny) = (dy / len, -dx / len);
    let (nx, ny) = if ny > 0.0 || (ny == 0.0 && nx < 0.0) {
        (-nx, -ny)
    } else {
        (nx, ny)
    };
    let short = 0.3 / len;
    let f = |v: f64| format!("{v:.3}");
    html! {
        line class=(class) data-from=(from) data-to=(to)
            x1=(f(x1 + nx * shift)) y1=(f(y1 + ny * shift))
            x2=(f(x2 - dx * short + nx * shift)) y2=(f(y2 - dy * short + ny * shift))
            marker-end={ "url(#" (marker) ")" } {}
    }
}

/// An SVG board of `setup` with, for a castle, its marks; `extra` shades
/// squares blue (a claim's castling rights and en-passant square).
fn board_svg(
    id: &str,
    fen: &str,
    board: &Board,
    marks: Option<&CastleMarks>,
    extra: &[(Square, &str)],
) -> Markup {
    let g = marks.map(|m| &m.geometry);
    html! {
        svg.board id=(id) data-fen=(shown(fen)) viewBox="-0.32 0 8.32 8.32" role="img"
            data-king=[g.map(|g| g.king)]
            data-king-to=[g.map(|g| g.king_to)]
            data-rook=[g.and_then(|g| g.rook)]
            data-rook-to=[g.filter(|g| g.rook.is_some() && g.on_back_rank).map(|g| g.rook_to)]
            data-king-path=[g.map(|g| squares(g.king_path))]
            data-rook-path=[g.map(|g| squares(g.rook_path))]
            data-blockers=[g.map(|g| squares(g.blocker_squares()))]
            data-checkers=[g.map(|g| squares(g.checkers))]
            data-through=[g.map(|g| attacked_list(&g.crossed_attacks))]
            data-into=[g.map(|g| squares(g.landing_attackers))]
        {
            rect width="8" height="8" fill="url(#chk)" {}
            @for (sq, class) in extra { (square_mark(*sq, class, None)) }
            @if let Some(m) = marks {
                @for sq in m.geometry.king_path { (square_mark(sq, "path", None)) }
                @for sq in m.geometry.rook_path.without(m.geometry.king_path) { (square_mark(sq, "rook-path", None)) }
                @for (sq, by) in m.geometry.attacked() { (square_mark(sq, "attacked", Some(by))) }
                @for sq in m.geometry.blocker_squares() { (square_mark(sq, "blocker", None)) }
                @for sq in m.moved { (square_mark(sq, "moved", None)) }
                @if let Some(sq) = m.captured { (square_mark(sq, "captured", None)) }
            }
            // The pieces go over the square marks, the arrows over the pieces.
            @for (sq, piece) in board.iter() { (piece_glyph(sq, piece)) }
            @if let Some(m) = marks {
                @let g = &m.geometry;
                @if g.on_back_rank && g.king != g.king_to {
                    (arrow("king-arrow", g.king, g.king_to, 0.22, "ah-path"))
                }
                @if let Some(r) = g.rook.filter(|r| g.on_back_rank && *r != g.rook_to) {
                    (arrow("rook-arrow", r, g.rook_to, -0.22, "ah-rook"))
                }
                @for (sq, by) in g.attacked() {
                    @for a in by { (arrow("attack", a, sq, 0.0, "ah-attack")) }
                }
                @for a in g.attacked().iter().fold(Bitboard::EMPTY, |acc, (_, by)| acc | *by) {
                    @let (x, y) = xy(a);
                    circle.attacker data-sq=(a) cx={ (x) ".5" } cy={ (y) ".5" } r=".44" {}
                }
            }
            use href="#coords" {}
        }
    }
}

fn piece_glyph(sq: Square, piece: Piece) -> Markup {
    let (x, y) = xy(sq);
    html! {
        text class={ "pc " (if piece.color.is_white() { "w" } else { "b" }) }
            data-sq=(sq) data-piece=(piece.char()) x={ (x) ".5" } y={ (y) ".8" } { (glyph(piece.role)) }
    }
}

fn no_board() -> Markup {
    html! { p.muted { "(no board: the FEN cannot be read)" } }
}

const LEGEND_CASTLE: &str = concat!(
    r#"<p class="legend"><i class="l-path"></i>king's path "#,
    r#"<i class="l-rook"></i>rook's path "#,
    r#"<i class="l-attacked"></i>attacked (arrows from the attackers) "#,
    r#"<i class="l-blocker"></i>in the way "#,
    r#"<i class="l-moved"></i>had moved or is displaced "#,
    r#"<i class="l-captured"></i>rook's square, its rook captured</p>"#,
);

/// A group of examples: its heading and, one line each, its rows, whose
/// boards open on demand.
fn example_group(
    id: &str,
    title: Markup,
    total: u64,
    shown_rows: usize,
    file: &str,
    rows: Markup,
) -> Markup {
    html! {
        details.group id=(id) data-total=(total) data-shown=(shown_rows) open {
            summary { (title) " " span.muted { "(" (total) ")" } }
            div.rows { (rows) }
            @if total > shown_rows as u64 {
                p.more { "… and " (total - shown_rows as u64) " more in " (file) "." }
            }
        }
    }
}

/// One example: a line that names the game and the finding, and, opened,
/// the board and the details.
fn example(
    id: &str,
    class: &str,
    data: &[(&str, String)],
    line: Markup,
    board: Markup,
    body: Markup,
    open: bool,
) -> Markup {
    html! {
        details class={ "ex " (class) } id=(id) open[open]
            data-reasons=[data.iter().find(|(k, _)| *k == "reasons").map(|(_, v)| v)]
            data-verdict=[data.iter().find(|(k, _)| *k == "verdict").map(|(_, v)| v)]
            data-plies=[data.iter().find(|(k, _)| *k == "plies").map(|(_, v)| v)]
            data-ply=[data.iter().find(|(k, _)| *k == "ply").map(|(_, v)| v)]
            data-variant=[data.iter().find(|(k, _)| *k == "variant").map(|(_, v)| v)]
        {
            summary { (line) }
            div.body { (board) div.info { (body) } }
        }
    }
}

fn examples(h: &HtmlReport) -> Markup {
    let mut n = 0usize;
    html! {
        section #examples {
            h2 { "Examples" }
            p.muted { "At most " (h.limit) " per group, in input order; open a line for its board. The CSV files hold every row." }
            h3 #castle-examples { "Illegal castles" }
            @if h.castle_examples.is_empty() { p.muted { "None." } } @else {
                p.muted { "Grouped by each castle's first reason. Each board shows the position before the castle." }
                (PreEscaped(LEGEND_CASTLE))
                @for (reason, g) in ordered(&h.castle_examples, CastlingReason::ALL.iter().map(|r| r.code())) {
                    (example_group(&format!("castles-{}", shown(reason)),
                        html! { "First reason " code.reason { (shown(reason)) } }, g.total, g.rows.len(), "castling.csv",
                        html! { @for row in &g.rows { ({ n += 1; castle_example(n, row) }) } }))
                }
            }
            h3 #claim-examples { "False claims" }
            @if h.claim_examples.is_empty() { p.muted { "None." } } @else {
                p.muted { "Each board shows the final position; the en-passant square and the rooks that keep a castling right are shaded blue." }
                @for (verdict, g) in ordered(&h.claim_examples, ClaimVerdict::ALL.iter().map(|v| v.code())) {
                    (example_group(&format!("claims-{}", shown(verdict)),
                        html! { "Verdict " code.reason { (shown(verdict)) } }, g.total, g.rows.len(), "claims.csv",
                        html! { @for row in &g.rows { ({ n += 1; claim_example(n, row) }) } }))
                }
            }
            h3 #result-examples { "Results that contradict the board" }
            @if h.results.is_empty() { p.muted { "None." } } @else {
                @for (code, g) in ordered(&h.results, ResultCode::ALL.iter().map(|c| c.code())) {
                    (example_group(&format!("results-{}", shown(code)),
                        html! { code.reason { (shown(code)) } }, g.total, g.rows.len(), "results.csv",
                        html! { @for row in &g.rows { ({ n += 1; result_example(n, row) }) } }))
                }
            }
            h3 #missed-examples { "Missed automatic draws" }
            @if h.missed.is_empty() { p.muted { "None." } } @else {
                @for (rule, g) in ordered(&h.missed, DrawRule::ALL.iter().map(|r| r.code())) {
                    (example_group(&format!("missed-{}", shown(rule)),
                        html! { code.reason { (shown(rule)) } }, g.total, g.rows.len(), "missed_draws.csv",
                        html! { @for row in &g.rows { ({ n += 1; missed_example(n, row) }) } }))
                }
            }
            h3 #error-examples { "Errors" }
            @if h.errors.is_empty() { p.muted { "None." } } @else {
                @for (kind, g) in ordered(&h.errors, ErrorKind::ALL.iter().map(|k| k.code())) {
                    (example_group(&format!("errors-{}", shown(kind)),
                        html! { code.reason { (shown(kind)) } }, g.total, g.rows.len(), "errors.csv",
                        html! { @for row in &g.rows { ({ n += 1; error_example(n, row) }) } }))
                }
            }
        }
    }
}

fn codes(list: &str) -> Markup {
    html! { @for r in list.split(';').filter(|r| !r.is_empty()) { code.reason { (shown(r)) } " " } }
}

fn castle_example(n: usize, row: &CastlingRow) -> Markup {
    let setup = parse_fen(&row.fen);
    let marks = setup.as_ref().and_then(|s| castle_marks(row, s));
    let board = match &setup {
        Some(s) => board_svg(
            &format!("board-{n}"),
            &row.fen,
            &s.board,
            marks.as_ref(),
            &[],
        ),
        None => no_board(),
    };
    let mv = move_name(row.move_number, row.side != "black", &row.san);
    example(
        &format!("ex-{n}"),
        "castle",
        &[
            ("reasons", shown(&row.reasons)),
            ("ply", row.ply.to_string()),
            ("variant", shown(&row.id.variant)),
        ],
        html! {
            span.move { b { (mv) } " " small.ply { "ply " (row.ply) } }
            (identity(&row.id))
            span.codes { (codes(&row.reasons)) }
        },
        board,
        html! {
            p { (shown(&row.side)) " castles " (shown(&row.castle)) ": " b { (mv) } }
            p.detail { (shown(&row.detail)) }
            p { code.fen { (shown(&row.fen)) } }
        },
        n == 1,
    )
}

/// A claim's final position, its castling rights and en-passant square
/// marked.
fn claim_board(n: usize, fen: &str, setup: Option<&Setup>) -> Markup {
    match setup {
        Some(s) => {
            let mut extra: Vec<(Square, &str)> = s
                .castling_rights
                .into_iter()
                .map(|sq| (sq, "right"))
                .collect();
            if let Some(ep) = s.ep_square {
                extra.push((ep, "ep"));
            }
            board_svg(&format!("board-{n}"), fen, &s.board, None, &extra)
        }
        None => no_board(),
    }
}

fn claim_example(n: usize, row: &ClaimRow) -> Markup {
    let setup = parse_fen(&row.fen);
    let board = claim_board(n, &row.fen, setup.as_ref());
    // The claim is made after the game's last move; each earlier position
    // is named by the move that led to it.
    let end = setup.as_ref().map(half_moves);
    let after = |ply: u32| match end {
        Some(end) => {
            html! { (move_before((end + u64::from(ply)).saturating_sub(u64::from(row.ply)))) " " small.ply { "ply " (ply) } }
        }
        None => html! { "ply " (ply) },
    };
    let plies: Vec<u32> = row
        .plies
        .split(';')
        .filter_map(|p| p.parse().ok())
        .collect();
    let threefold = row.claim == "threefold";
    example(
        &format!("ex-{n}"),
        "claim",
        &[
            ("verdict", shown(&row.verdict)),
            ("plies", shown(&row.plies)),
        ],
        html! {
            span.move { "after " b { (after(row.ply)) } }
            (identity(&row.id))
            span.codes { (shown(&row.claim)) " claim from the " (shown(&row.claim_source)) " " (codes(&row.verdict)) }
        },
        board,
        html! {
            @if threefold {
                p { "The final position occurred " b { (times(row.occurrences)) } " under FIDE identity (9.2.3), "
                    (times(row.occurrences_ignoring_rights)) " ignoring castling and en-passant rights"
                    @if !plies.is_empty() { ": after " @for (i, p) in plies.iter().enumerate() { @if i > 0 { ", " } (after(*p)) } }
                    "." }
            } @else {
                @let clock = setup.as_ref().map(|s| s.halfmoves);
                p { "The fifty-move rule (FIDE 9.3) needs 50 moves of each side, 100 plies, without a capture or a pawn move"
                    @if let Some(c) = clock { "; the last one was " b { (plural(u64::from(c), "ply", "plies")) } " before the claim" }
                    "." }
            }
            p.detail { (shown(&row.detail)) }
            p { code.fen { (shown(&row.fen)) } }
        },
        false,
    )
}

fn result_example(n: usize, row: &ResultRow) -> Markup {
    let setup = parse_fen(&row.fen);
    let board = match &setup {
        Some(s) => board_svg(&format!("board-{n}"), &row.fen, &s.board, None, &[]),
        None => html! {},
    };
    example(
        &format!("ex-{n}"),
        "result",
        &[("ply", row.ply.to_string())],
        html! {
            span.move { "recorded " b { (shown(&row.recorded)) }
                @if !row.expected.is_empty() { ", the Laws give " b { (shown(&row.expected)) } } }
            (identity(&row.id))
            span.codes { (codes(&row.code)) }
        },
        board,
        html! {
            p.detail { (shown(&row.detail)) }
            @if !row.basis.is_empty() { p.basis { "basis: " code { (shown(&row.basis)) } } }
            @if !row.fen.is_empty() { p { code.fen { (shown(&row.fen)) } } }
        },
        false,
    )
}

fn missed_example(n: usize, row: &MissedDrawRow) -> Markup {
    let setup = parse_fen(&row.fen);
    let board = match &setup {
        Some(s) => board_svg(&format!("board-{n}"), &row.fen, &s.board, None, &[]),
        None => no_board(),
    };
    let at = match &setup {
        Some(s) => html! { (move_before(half_moves(s))) " " small.ply { "ply " (row.ply) } },
        None => html! { "ply " (row.ply) },
    };
    example(
        &format!("ex-{n}"),
        "missed",
        &[("ply", row.ply.to_string())],
        html! {
            span.move { "drawn after " b { (at) } ", " (plural(u64::from(row.plies_after), "ply", "plies")) " played on" }
            (identity(&row.id))
            span.codes { (codes(&row.rule)) }
        },
        board,
        html! {
            @if !row.basis.is_empty() { p.basis { "basis: " code { (shown(&row.basis)) } } }
            p { code.fen { (shown(&row.fen)) } }
        },
        false,
    )
}

fn error_example(n: usize, row: &ErrorRow) -> Markup {
    let setup = parse_fen(&row.fen);
    let board = match &setup {
        Some(s) => board_svg(&format!("board-{n}"), &row.fen, &s.board, None, &[]),
        None => html! {},
    };
    let mv = match (&setup, row.san.is_empty()) {
        (Some(s), false) => {
            html! { b { (move_name(s.fullmoves.get(), s.turn.is_white(), &row.san)) } " " small.ply { "ply " (row.ply) } }
        }
        (_, false) => html! { b { (shown(&row.san)) } " " small.ply { "ply " (row.ply) } },
        (_, true) => html! { "ply " (row.ply) },
    };
    example(
        &format!("ex-{n}"),
        "error",
        &[("ply", row.ply.to_string())],
        html! {
            span.move { (mv) }
            (identity(&row.id))
            span.codes { (codes(&row.kind)) }
        },
        board,
        html! {
            p.detail { (shown(&row.detail)) }
            @if !row.fen.is_empty() { p { code.fen { (shown(&row.fen)) } } }
        },
        false,
    )
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

    /// Karpov–Miles: the claim after Black's 25th move... the positions
    /// named by the moves that led to them.
    #[test]
    fn moves_are_named_by_number() {
        // White to move at move 26: the last move was Black's 25th.
        let s = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 26").unwrap();
        assert_eq!(move_before(half_moves(&s)), "25…");
        assert_eq!(move_before(half_moves(&s) - 1), "25.");
        assert_eq!(move_before(half_moves(&s) - 2), "24…");
        let s = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 26").unwrap();
        assert_eq!(move_before(half_moves(&s)), "26.");
        assert_eq!(move_name(26, true, "Nb5"), "26.Nb5");
        assert_eq!(move_name(30, false, "O-O-O"), "30…O-O-O");
        // A FEN's counter at its limit.
        let s = parse_fen("8/8/8/8/8/8/8/K6k b - - 0 4294967295").unwrap();
        assert_eq!(move_before(half_moves(&s)), "4294967295.");
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
