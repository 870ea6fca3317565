//! The page's sections: the header, the glance's cards, the charts of
//! castles, claims, results, missed draws and errors.

use std::collections::BTreeMap;

use maud::{DOCTYPE, Markup, PreEscaped, html};

use super::board::defs;
use super::examples::examples;
use super::{CSS, HtmlReport, MAX_COMBOS, MAX_SOURCES, ordered_counts, plural, shown, wrapping};
use crate::Summary;
use pgn_audit_core::audit::{
    CastlingReason, ClaimSource, ClaimVerdict, DrawRule, ErrorKind, Reasons, ResultCode,
};

impl HtmlReport {
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
                                "results", &ordered_counts(&self.results, true), "bad"))
                            (counts_section("missed-draws", "Missed automatic draws",
                                "Games played on past a fivefold repetition or 75 moves (FIDE 9.6), or past a dead position: insufficient material, or a helpmate analysis (FIDE 5.2.2)",
                                "missed_draws", &ordered_counts(&self.missed, true), "bad"))
                            (counts_section("errors", "Errors",
                                "Games that could not be audited to their end",
                                "errors", &ordered_counts(&self.errors, false), "bad"))
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
/// count.
fn glance_findings(h: &HtmlReport, s: &Summary) -> Markup {
    let false_verdicts = ClaimVerdict::ALL.iter().filter(|v| !v.is_valid());
    let false_claims: u64 = ClaimVerdict::ALL
        .iter()
        .zip(&s.claims)
        .filter(|(v, _)| !v.is_valid())
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
                Some(&sum_key("claims", false_verdicts.map(|v| v.code()))), None,
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
            @if s.options.fix {
                (card("corrected", "corrected", s.corrected, "results corrected", Some("corrected"), None,
                    html! { small { "in fixed.pgn (--fix)" } }))
            }
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
/// colours a bar by its place in `items`.
fn bar_chart(
    id: &str,
    items: &[(String, u64)],
    key: Option<&str>,
    tone: impl Fn(usize) -> &'static str,
) -> Markup {
    let max = items.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    html! {
        @if items.is_empty() {
            p.muted { "None." }
        } @else {
            div.chart id=(id) role="img" {
                @for (i, (label, n)) in items.iter().enumerate() {
                    div.bar data-label=(shown(label)) data-count=(n) {
                        span.label { (wrapping(label, '_')) }
                        span.track {
                            span class={ "fill " (tone(i)) }
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
    // The most frequent first, then by their codes' text.
    let mut combos: Vec<(String, Reasons, u64)> = h
        .castle_combos
        .iter()
        .map(|(r, n)| (r.codes(), *r, *n))
        .collect();
    combos.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
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
                                @for (text, reasons, n) in combos.iter().take(MAX_COMBOS) {
                                    tr data-reasons=(text) {
                                        td { @for (i, r) in reasons.iter().enumerate() { @if i > 0 { " + " } code { (wrapping(r.code(), '_')) } } }
                                        td.n { (n) }
                                    }
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
    let verdicts: Vec<(ClaimVerdict, u64)> = ClaimVerdict::ALL
        .iter()
        .zip(&s.claims)
        .map(|(v, n)| (*v, *n))
        .filter(|(_, n)| *n > 0)
        .collect();
    let verdict_bars: Vec<(String, u64)> = verdicts
        .iter()
        .map(|(v, n)| (v.code().to_owned(), *n))
        .collect();
    // By their codes' text, as the page has always listed them.
    let mut kinds: Vec<(String, u64)> = h
        .claim_kinds
        .iter()
        .map(|(k, n)| (k.code().to_owned(), *n))
        .collect();
    kinds.sort();
    let false_total: u64 = verdicts
        .iter()
        .filter(|(v, _)| !v.is_valid())
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
                        (bar_chart("chart-claim-verdicts", &verdict_bars, Some("claims"), |i| if verdicts[i].0.is_valid() { "ok" } else { "bad" }))
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
/// source.
fn claim_table(h: &HtmlReport) -> Markup {
    let mut by_verdict: BTreeMap<ClaimVerdict, u64> = BTreeMap::new();
    for ((v, _), n) in &h.claim_counts {
        *by_verdict.entry(*v).or_default() += n;
    }
    html! {
        table #claim-table {
            tr { th { "verdict" } @for src in ClaimSource::ALL { th.n { (wrapping(src.code(), '_')) } } th.n { "all" } }
            @for (v, n) in &by_verdict {
                tr data-verdict=(v.code()) {
                    td { span class={ "dot " (if v.is_valid() { "ok" } else { "bad" }) } {} (wrapping(v.code(), '_')) }
                    @for src in ClaimSource::ALL {
                        td.n data-source=(src.code()) {
                            (h.claim_counts.get(&(*v, *src)).copied().unwrap_or(0))
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
