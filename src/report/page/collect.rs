//! The rows a page shows, collected: every row counted by its code, the
//! first `limit` of each group kept, each value cut to what the page shows.

use std::collections::BTreeMap;

use super::{EXAMPLES, decade, keep, kept};
use crate::rows::{
    self, CastlingRow, ClaimRow, ErrorRow, MissedDrawRow, ReportRow, ResultRow, Text,
};
use pgn_audit_core::audit::ClaimSource;

/// Rows of one reason, verdict, rule, code or kind: all counted, the first
/// `limit` kept, each value cut by [`kept`]: the page's memory is bounded
/// whatever the input (a 20 MB White tag keeps 301 characters).
#[derive(Debug, Clone)]
pub(super) struct Group<R> {
    pub(super) total: u64,
    pub(super) rows: Vec<R>,
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
pub(super) fn upheld(verdict: &str) -> bool {
    matches!(verdict, "valid" | "valid_on_announced_move")
}

/// Collects the rows of a run (or of a report folder) for report.html.
#[derive(Debug, Clone)]
pub struct HtmlReport {
    pub(super) limit: usize,
    pub(super) castles: u64,
    /// Castling rows by reason code (a row counts once per reason).
    pub(super) castle_reasons: BTreeMap<String, u64>,
    pub(super) castle_decades: BTreeMap<String, u64>,
    pub(super) castle_variants: BTreeMap<String, u64>,
    pub(super) castle_combos: BTreeMap<String, u64>,
    /// Examples by their first reason.
    pub(super) castle_examples: BTreeMap<String, Group<CastlingRow>>,
    /// Claims by (verdict, source).
    pub(super) claim_counts: BTreeMap<(String, String), u64>,
    pub(super) claim_kinds: BTreeMap<String, u64>,
    /// False claims from a Termination tag or a comment: they flag a game.
    pub(super) flagging_claims: u64,
    /// Examples of the false verdicts.
    pub(super) claim_examples: BTreeMap<String, Group<ClaimRow>>,
    pub(super) missed: BTreeMap<String, Group<MissedDrawRow>>,
    pub(super) errors: BTreeMap<String, Group<ErrorRow>>,
    pub(super) results: BTreeMap<String, Group<ResultRow>>,
    /// Rows that do not fit their report's columns (from another version).
    pub(super) unreadable: u64,
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
}
