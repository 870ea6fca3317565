//! The rows a page shows, collected: every row counted by its code, the
//! first `limit` of each group kept, each value cut to what the page shows.

use std::collections::{BTreeMap, HashMap};

use super::{EXAMPLES, decade, keep};
use crate::rows::{CastlingRow, ClaimRow, ErrorRow, MissedDrawRow, QuirkRow, ResultRow, Text};
use pgn_audit_core::audit::{
    CastlingReason, ClaimKind, ClaimSource, ClaimVerdict, DrawRule, ErrorKind, Reasons, ResultCode,
};

/// Rows of one reason, verdict, rule, code or kind: all counted, the first
/// `limit` kept, each value cut by [`super::kept`]: the page's memory is
/// bounded whatever the input (a 20 MB White tag keeps 301 characters).
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

/// A report row as the page takes it (a quirks.csv row it does not show),
/// whatever holds its text.
pub trait OnPage {
    /// Adds the row to `page`.
    fn add_to(&self, page: &mut HtmlReport);
}

/// corrections.csv: the page counts the corrected games from summary.json,
/// not row by row.
impl<S: Text> OnPage for crate::rows::CorrectionRow<S> {
    fn add_to(&self, _: &mut HtmlReport) {}
}

/// Each row type onto the page by its collector's method.
macro_rules! on_page {
    ($($row:ident => $add:ident,)*) => {
        $(impl<S: Text> OnPage for $row<S> {
            fn add_to(&self, page: &mut HtmlReport) {
                page.$add(self);
            }
        })*
    };
}

on_page! {
    CastlingRow => add_castling,
    ClaimRow => add_claim,
    MissedDrawRow => add_missed_draw,
    ErrorRow => add_error,
    ResultRow => add_result,
}

impl<S: Text> OnPage for QuirkRow<S> {
    fn add_to(&self, _: &mut HtmlReport) {}
}

fn count<K: Ord>(map: &mut BTreeMap<K, u64>, key: K) {
    *map.entry(key).or_default() += 1;
}

/// Collects the rows of a run (or of a report folder) for report.html.
#[derive(Debug, Clone)]
pub struct HtmlReport {
    pub(super) limit: usize,
    pub(super) castles: u64,
    /// Castling rows by reason (a row counts once per reason).
    pub(super) castle_reasons: BTreeMap<CastlingReason, u64>,
    pub(super) castle_decades: BTreeMap<String, u64>,
    /// Castling rows by the text of their variant column.
    pub(super) castle_variants: BTreeMap<String, u64>,
    /// Castling rows by their set of reasons.
    pub(super) castle_combos: HashMap<Reasons, u64>,
    /// Examples by their first reason.
    pub(super) castle_examples: BTreeMap<CastlingReason, Group<CastlingRow>>,
    /// Claims by (verdict, source).
    pub(super) claim_counts: BTreeMap<(ClaimVerdict, ClaimSource), u64>,
    pub(super) claim_kinds: BTreeMap<ClaimKind, u64>,
    /// False claims from a Termination tag or a comment: they flag a game.
    pub(super) flagging_claims: u64,
    /// Examples of the false verdicts.
    pub(super) claim_examples: BTreeMap<ClaimVerdict, Group<ClaimRow>>,
    pub(super) missed: BTreeMap<DrawRule, Group<MissedDrawRow>>,
    pub(super) errors: BTreeMap<ErrorKind, Group<ErrorRow>>,
    pub(super) results: BTreeMap<ResultCode, Group<ResultRow>>,
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
            castle_combos: HashMap::new(),
            castle_examples: BTreeMap::new(),
            claim_counts: BTreeMap::new(),
            claim_kinds: BTreeMap::new(),
            flagging_claims: 0,
            claim_examples: BTreeMap::new(),
            missed: BTreeMap::new(),
            errors: BTreeMap::new(),
            results: BTreeMap::new(),
        }
    }

    /// One castling.csv row.
    pub fn add_castling<S: Text>(&mut self, r: &CastlingRow<S>) {
        self.castles += 1;
        for reason in r.reasons.iter() {
            count(&mut self.castle_reasons, reason);
        }
        count(&mut self.castle_decades, decade(r.id.date.as_ref()));
        count(&mut self.castle_variants, r.id.variant.as_str().to_owned());
        *self.castle_combos.entry(r.reasons).or_default() += 1;
        // A castling row has a reason: the audit writes none without, and
        // a folder's row without one is refused as it is read.
        if let Some(first) = r.reasons.iter().next() {
            self.castle_examples
                .entry(first)
                .or_default()
                .push(self.limit, || r.map_text(&keep));
        }
    }

    /// One claims.csv row.
    pub fn add_claim<S: Text>(&mut self, r: &ClaimRow<S>) {
        count(&mut self.claim_counts, (r.verdict, r.claim_source));
        count(&mut self.claim_kinds, r.claim);
        if !r.verdict.is_valid() {
            if r.claim_source.flags(r.verdict) {
                self.flagging_claims += 1;
            }
            self.claim_examples
                .entry(r.verdict)
                .or_default()
                .push(self.limit, || r.map_text(&keep));
        }
    }

    /// One missed_draws.csv row.
    pub fn add_missed_draw<S: Text>(&mut self, r: &MissedDrawRow<S>) {
        self.missed
            .entry(r.rule)
            .or_default()
            .push(self.limit, || r.map_text(&keep));
    }

    /// One errors.csv row.
    pub fn add_error<S: Text>(&mut self, r: &ErrorRow<S>) {
        self.errors
            .entry(r.kind)
            .or_default()
            .push(self.limit, || r.map_text(&keep));
    }

    /// One results.csv row.
    pub fn add_result<S: Text>(&mut self, r: &ResultRow<S>) {
        self.results
            .entry(r.code)
            .or_default()
            .push(self.limit, || r.map_text(&keep));
    }
}
