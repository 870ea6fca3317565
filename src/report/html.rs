//! report.html: one self-contained page (inline CSS and SVG, no script, no
//! network) that shows a run for a person to look at.
//!
//! The page is built from the report rows, the same string values that go
//! into the CSV files (identity columns included), and the [`Summary`], so
//! that it can be rebuilt from a report folder alone
//! ([`from_report_dir`]): a merge of folders writes the same page as a run
//! that wrote those rows. The page stays small however big the run: charts
//! are aggregate counts, and at most `limit` detailed examples are kept per
//! reason, verdict, rule or kind, with the count of the rest.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square, attacks};

use super::Summary;
use crate::audit::{CastlingReason, ClaimSource, ClaimVerdict, DrawRule, ErrorKind, ResultCode};

/// Detailed examples kept per reason, verdict, rule or kind.
pub const EXAMPLES: usize = 50;

/// Longest text shown for one value (tags and details come from PGN files).
const MAX_TEXT: usize = 300;
/// Most reason combinations listed.
const MAX_COMBOS: usize = 20;
/// Most sources listed by name.
const MAX_SOURCES: usize = 20;

// Column indices of the rows: the identity columns, in the order of
// [`super::IDENTITY`], then each report's own.
const SOURCE: usize = 0;
const GAME: usize = 1;
const OFFSET: usize = 2;
const LINE: usize = 3;
const EVENT: usize = 4;
const SITE: usize = 5;
const DATE: usize = 6;
const ROUND: usize = 7;
const WHITE: usize = 8;
const BLACK: usize = 9;
const RESULT: usize = 10;
const VARIANT: usize = 11;
/// The first column after the identity columns.
const OWN: usize = super::IDENTITY.len();
const _: () = assert!(VARIANT + 1 == OWN);

mod castling_col {
    use super::OWN;
    pub const PLY: usize = OWN;
    pub const MOVE_NUMBER: usize = OWN + 1;
    pub const SIDE: usize = OWN + 2;
    pub const SAN: usize = OWN + 3;
    pub const CASTLE: usize = OWN + 4;
    pub const REASONS: usize = OWN + 5;
    pub const DETAIL: usize = OWN + 6;
    pub const FEN: usize = OWN + 7;
}

mod claims_col {
    use super::OWN;
    pub const CLAIM: usize = OWN;
    pub const SOURCE: usize = OWN + 1;
    pub const VERDICT: usize = OWN + 2;
    pub const PLY: usize = OWN + 3;
    pub const OCCURRENCES: usize = OWN + 4;
    pub const LOOSE: usize = OWN + 5;
    pub const PLIES: usize = OWN + 6;
    pub const FEN: usize = OWN + 7;
    pub const DETAIL: usize = OWN + 8;
}

mod missed_col {
    use super::OWN;
    pub const RULE: usize = OWN;
    pub const PLY: usize = OWN + 1;
    pub const PLIES_AFTER: usize = OWN + 2;
    pub const FEN: usize = OWN + 3;
}

mod errors_col {
    use super::OWN;
    pub const PLY: usize = OWN;
    pub const SAN: usize = OWN + 1;
    pub const KIND: usize = OWN + 2;
    pub const DETAIL: usize = OWN + 3;
    pub const FEN: usize = OWN + 4;
}

mod results_col {
    use super::OWN;
    pub const PLY: usize = OWN;
    pub const CODE: usize = OWN + 1;
    pub const RECORDED: usize = OWN + 2;
    pub const EXPECTED: usize = OWN + 3;
    pub const DETAIL: usize = OWN + 4;
    pub const FEN: usize = OWN + 5;
}

type Row = Vec<String>;

/// Rows of one reason, verdict, rule or kind: all counted, the first
/// `limit` kept, each value cut by [`kept`]: the page's memory is bounded
/// whatever the input (a 20 MB White tag keeps 301 characters).
#[derive(Debug, Clone, Default)]
struct Group {
    total: u64,
    rows: Vec<Row>,
}

impl Group {
    fn push<S: AsRef<str>>(&mut self, limit: usize, row: &[S]) {
        self.total += 1;
        if self.rows.len() < limit {
            self.rows
                .push(row.iter().map(|s| kept(s.as_ref())).collect());
        }
    }
}

/// What the page keeps of a value: its first `MAX_TEXT + 1` characters,
/// enough for [`esc`] (and the URL test) to show it exactly as the whole
/// value, cut at `MAX_TEXT` with an ellipsis.
fn kept(s: &str) -> String {
    match s.char_indices().nth(MAX_TEXT + 1) {
        Some((end, _)) => s[..end].to_owned(),
        None => s.to_owned(),
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

fn group<'a>(map: &'a mut BTreeMap<String, Group>, key: &str) -> &'a mut Group {
    if !map.contains_key(key) {
        map.insert(key.to_owned(), Group::default());
    }
    map.get_mut(key).expect("just inserted")
}

fn col<S: AsRef<str>>(row: &[S], i: usize) -> &str {
    row.get(i).map_or("", AsRef::as_ref)
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
    castle_examples: BTreeMap<String, Group>,
    /// Claims by (verdict, source).
    claim_counts: BTreeMap<(String, String), u64>,
    claim_kinds: BTreeMap<String, u64>,
    /// Examples of the false verdicts.
    claim_examples: BTreeMap<String, Group>,
    missed: BTreeMap<String, Group>,
    errors: BTreeMap<String, Group>,
    results: BTreeMap<String, Group>,
}

impl Default for HtmlReport {
    fn default() -> Self {
        HtmlReport::new(EXAMPLES)
    }
}

impl HtmlReport {
    /// A collector that keeps at most `limit` examples per group.
    pub fn new(limit: usize) -> HtmlReport {
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
            claim_examples: BTreeMap::new(),
            missed: BTreeMap::new(),
            errors: BTreeMap::new(),
            results: BTreeMap::new(),
        }
    }

    /// One castling.csv row, identity columns first.
    pub fn add_castling<S: AsRef<str>>(&mut self, row: &[S]) {
        use castling_col::*;
        self.castles += 1;
        let reasons = col(row, REASONS);
        for r in reasons.split(';').filter(|r| !r.is_empty()) {
            count(&mut self.castle_reasons, r);
        }
        count(&mut self.castle_decades, &decade(col(row, DATE)));
        count(&mut self.castle_variants, col(row, VARIANT));
        count(&mut self.castle_combos, reasons);
        let first = reasons.split(';').next().unwrap_or("");
        group(&mut self.castle_examples, first).push(self.limit, row);
    }

    /// One claims.csv row, identity columns first.
    pub fn add_claim<S: AsRef<str>>(&mut self, row: &[S]) {
        use claims_col::*;
        let verdict = col(row, VERDICT);
        let key = (verdict.to_owned(), col(row, SOURCE).to_owned());
        *self.claim_counts.entry(key).or_default() += 1;
        count(&mut self.claim_kinds, col(row, CLAIM));
        if !matches!(verdict, "valid" | "valid_on_announced_move") {
            group(&mut self.claim_examples, verdict).push(self.limit, row);
        }
    }

    /// One missed_draws.csv row, identity columns first.
    pub fn add_missed_draw<S: AsRef<str>>(&mut self, row: &[S]) {
        group(&mut self.missed, col(row, missed_col::RULE)).push(self.limit, row);
    }

    /// One errors.csv row, identity columns first.
    pub fn add_error<S: AsRef<str>>(&mut self, row: &[S]) {
        group(&mut self.errors, col(row, errors_col::KIND)).push(self.limit, row);
    }

    /// One results.csv row, identity columns first.
    pub fn add_result<S: AsRef<str>>(&mut self, row: &[S]) {
        group(&mut self.results, col(row, results_col::CODE)).push(self.limit, row);
    }

    /// The page.
    pub fn render(&self, summary: &Summary) -> String {
        let mut p = Page::default();
        p.head();
        p.glance(summary);
        p.castles(self);
        p.claims(self);
        p.results(summary);
        p.out.push_str(r#"<div class="grid">"#);
        p.missed(self);
        p.errors(self);
        p.out.push_str("</div>\n");
        p.castle_examples(self);
        p.claim_examples(self);
        p.tables(
            "missed",
            "Missed automatic draws: examples",
            &self.missed,
            DrawRule::ALL.iter().map(|r| r.code()),
            self.limit,
            missed_row,
        );
        p.tables(
            "results-list",
            "Results that contradict the board: examples",
            &self.results,
            ResultCode::ALL.iter().map(|c| c.code()),
            self.limit,
            result_row,
        );
        p.tables(
            "errors-list",
            "Errors: examples",
            &self.errors,
            ErrorKind::ALL.iter().map(|k| k.code()),
            self.limit,
            error_row,
        );
        p.out.push_str("<footer>Written by pgn-audit. The CSV files in this folder hold every row.</footer>\n</body>\n</html>\n");
        p.out
    }
}

/// Feeds one CSV row to the collector.
type AddRow = fn(&mut HtmlReport, &[&str]);

/// Builds report.html from a report folder: its five CSV files and
/// summary.json.
pub fn from_report_dir(dir: &Path) -> io::Result<String> {
    let mut html = HtmlReport::default();
    let files: [(&str, AddRow); 5] = [
        ("castling.csv", |h, r| h.add_castling(r)),
        ("claims.csv", |h, r| h.add_claim(r)),
        ("missed_draws.csv", |h, r| h.add_missed_draw(r)),
        ("errors.csv", |h, r| h.add_error(r)),
        ("results.csv", |h, r| h.add_result(r)),
    ];
    for (name, add) in files {
        let path = dir.join(name);
        let mut reader = csv::Reader::from_path(&path).map_err(|e| csv_io(&path, e))?;
        let mut record = csv::StringRecord::new();
        while reader
            .read_record(&mut record)
            .map_err(|e| csv_io(&path, e))?
        {
            let row: Vec<&str> = record.iter().collect();
            add(&mut html, &row);
        }
    }
    let path = dir.join("summary.json");
    let text = std::fs::read_to_string(&path)?;
    let summary = Summary::from_json(&text).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: not a summary of version 1 of the report contract",
                path.display()
            ),
        )
    })?;
    Ok(html.render(&summary))
}

fn csv_io(path: &Path, e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {other:?}", path.display()),
        ),
    }
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

/// HTML-escapes text (also for attribute values), cut to `MAX_TEXT`
/// characters.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for (i, c) in s.chars().enumerate() {
        if i == MAX_TEXT {
            out.push('…');
            break;
        }
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn is_url(s: &str) -> bool {
    (s.starts_with("https://") || s.starts_with("http://"))
        && s.len() <= MAX_TEXT
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// "once", "twice", "3 times".
fn times(n: &str) -> String {
    match n {
        "1" => "once".to_owned(),
        "2" => "twice".to_owned(),
        n => format!("{} times", esc(n)),
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

const STYLE: &str = r#"
:root{--ink:#1d2330;--muted:#5b6477;--line:#d9dde5;--bg:#f6f7f9;--card:#fff;--accent:#2f5fb3;--bad:#c0392b;--warn:#d68910;--ok:#2e8b57}
*{box-sizing:border-box}
body{margin:0;padding:0 24px 40px;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:var(--bg)}
header{padding:20px 0 8px}
h1{margin:0;font-size:26px}
h2{margin:32px 0 10px;font-size:20px;border-bottom:2px solid var(--line);padding-bottom:4px}
h3{margin:20px 0 8px;font-size:16px}
nav{margin:8px 0 0;font-size:14px}
nav a{margin-right:14px}
a{color:var(--accent)}
.muted,.src{color:var(--muted)}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.stat{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:96px}
.stat b{display:block;font-size:24px}
.stat span{color:var(--muted);font-size:13px}
.stat.clean b{color:var(--ok)}.stat.flagged b{color:var(--warn)}.stat.incomplete b{color:var(--bad)}
.banner{background:#fdecea;border:1px solid var(--bad);padding:8px 12px;border-radius:6px}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:16px}
.panel{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px}
.panel h3{margin-top:4px}
table{border-collapse:collapse;background:var(--card);font-size:13px}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eef1f6}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.wide{overflow-x:auto}
.example{display:flex;gap:16px;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:12px;margin:10px 0}
.example .info{flex:1;min-width:0}
.example h4{margin:0 0 4px;font-size:15px}
.example p{margin:3px 0}
code{font:12px/1.4 ui-monospace,"DejaVu Sans Mono",monospace;background:#eef1f6;padding:1px 4px;border-radius:3px;overflow-wrap:anywhere}
.reason{background:#fdecea;color:#8e2a1f}
svg.board{flex:none;width:264px;height:264px}
svg.board text.pc{font-size:.86px;text-anchor:middle;font-family:"DejaVu Sans","Noto Sans Symbols2","Segoe UI Symbol",serif}
svg.board text.w{fill:#fff;stroke:#000;stroke-width:.035px;paint-order:stroke}
svg.board text.b{fill:#111}
svg.board text.coord{font-size:.26px;fill:#555;font-family:sans-serif}
.legend{font-size:12px;color:var(--muted)}
.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin:0 3px 0 8px;vertical-align:-1px}
.more{color:var(--muted);font-style:italic}
footer{margin-top:40px;color:var(--muted);font-size:12px}
"#;

/// Shared SVG definitions: the board pattern and the arrow heads.
const DEFS: &str = concat!(
    r##"<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>"##,
    r##"<pattern id="chk" width="2" height="2" patternUnits="userSpaceOnUse"><rect width="2" height="2" fill="#eed9b6"/>"##,
    r##"<rect x="1" width="1" height="1" fill="#b98b62"/><rect y="1" width="1" height="1" fill="#b98b62"/></pattern>"##,
    r##"<marker id="ah-path" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="3" markerHeight="3" orient="auto"><path d="M0 0L10 5L0 10z" fill="#1f5fd1"/></marker>"##,
    r##"<marker id="ah-attack" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0 0L10 5L0 10z" fill="#d0191b"/></marker>"##,
    "</defs></svg>\n"
);

const LEGEND_CASTLE: &str = concat!(
    r#"<p class="legend">"#,
    r##"<i style="background:#1f5fd1"></i>king's path"##,
    r##"<i style="background:rgba(230,30,30,.55)"></i>attacked square (arrows from its attackers)"##,
    r##"<i style="background:rgba(250,200,0,.7)"></i>had moved / displaced"##,
    r##"<i style="background:rgba(255,120,0,.75)"></i>in the way"##,
    "</p>\n"
);

#[derive(Default)]
struct Page {
    out: String,
}

/// One horizontal bar chart: labels, bars scaled to the largest count.
fn bar_chart(id: &str, items: &[(String, u64)]) -> String {
    if items.is_empty() {
        return r#"<p class="muted">None.</p>"#.to_owned();
    }
    let max = items.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let label_w = 200.0;
    let bar_w = 300.0;
    let row_h = 22.0;
    let h = row_h * items.len() as f64 + 4.0;
    let mut s = format!(
        r#"<svg class="chart" id="{}" role="img" width="{}" height="{h}" viewBox="0 0 {} {h}" font-family="sans-serif" font-size="12">"#,
        esc(id),
        label_w + bar_w + 70.0,
        label_w + bar_w + 70.0
    );
    for (i, (label, n)) in items.iter().enumerate() {
        let y = i as f64 * row_h + 2.0;
        let w = if *n == 0 {
            0.0
        } else {
            (bar_w * *n as f64 / max as f64).max(1.5)
        };
        let _ = write!(
            s,
            r##"<g class="bar" data-label="{l}" data-count="{n}"><text x="{tx}" y="{ty}" text-anchor="end" fill="#1d2330">{l}</text><rect x="{label_w}" y="{y}" width="{w:.1}" height="{bh}" rx="2" fill="#2f5fb3"/><text x="{cx:.1}" y="{ty}" fill="#5b6477">{n}</text></g>"##,
            l = esc(label),
            tx = label_w - 6.0,
            ty = y + 14.0,
            bh = row_h - 6.0,
            cx = label_w + w + 5.0,
        );
    }
    s.push_str("</svg>");
    s
}

fn square_xy(sq: Square) -> (u32, u32) {
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

fn piece_code(p: Piece) -> char {
    p.char()
}

fn squares(bb: Bitboard) -> String {
    bb.into_iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a castle board shows, worked out from the position before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CastleMarks {
    pub king: Option<Square>,
    /// Where the king goes (g- or c-file of its back rank).
    pub destination: Square,
    /// The castling rook, where one is found.
    pub rook: Option<Square>,
    /// Squares of the king's path (start, passed over, destination) that
    /// are attacked, with their attackers.
    pub attacked: Vec<(Square, Bitboard)>,
    /// Pieces (or empty squares) that had moved or are displaced.
    pub moved: Bitboard,
    /// Pieces in the way of the king or the rook.
    pub blockers: Bitboard,
}

/// Works out the marks of a castle board. `reasons` are the row's codes.
pub fn castle_marks(
    board: &Board,
    castling_rights: Bitboard,
    white: bool,
    kingside: bool,
    chess960: bool,
    reasons: &str,
) -> CastleMarks {
    let color = if white { Color::White } else { Color::Black };
    let back = if white { Rank::First } else { Rank::Eighth };
    let has = |code: &str| reasons.split(';').any(|r| r == code);
    let king = board.king_of(color);
    let king_file = king
        .filter(|k| k.rank() == back)
        .map_or(File::E, Square::file);
    let destination = Square::from_coords(if kingside { File::G } else { File::C }, back);
    let rook_destination = Square::from_coords(if kingside { File::F } else { File::D }, back);
    let corner = Square::from_coords(if kingside { File::H } else { File::A }, back);
    let side_of_king = Bitboard::from_rank(back)
        & Bitboard::from_iter(
            File::ALL
                .iter()
                .filter(|f| {
                    if kingside {
                        **f > king_file
                    } else {
                        **f < king_file
                    }
                })
                .map(|f| Square::from_coords(*f, back)),
        );
    let my_rooks = board.rooks() & board.by_color(color) & side_of_king;
    let nearest = if kingside {
        my_rooks.first()
    } else {
        my_rooks.last()
    };
    let rook = if chess960 {
        (my_rooks & castling_rights).into_iter().next().or(nearest)
    } else if my_rooks.contains(corner) {
        Some(corner)
    } else {
        nearest
    };

    let mut attacked = Vec::new();
    let them = !color;
    if let Some(k) = king {
        let at = board.attacks_to(k, them, board.occupied());
        if at.any() {
            attacked.push((k, at));
        }
        if k.rank() == back && k != destination {
            let mut lifted = board.occupied();
            lifted.discard(k);
            if let Some(r) = rook {
                lifted.discard(r);
            }
            for sq in attacks::between(k, destination) {
                let at = board.attacks_to(sq, them, lifted);
                if at.any() {
                    attacked.push((sq, at));
                }
            }
            let after = lifted | destination | rook_destination;
            let mut at = board.attacks_to(destination, them, after);
            at.discard(destination);
            if at.any() {
                attacked.push((destination, at));
            }
        }
    }

    let mut moved = Bitboard::EMPTY;
    if let Some(k) = king
        && (has("king_moved") || has("king_displaced"))
    {
        moved.add(k);
    }
    if has("rook_moved") || has("rook_captured") || has("rook_displaced") {
        if !chess960 {
            moved.add(corner);
        }
        if let Some(r) = rook {
            moved.add(r);
        }
    }

    let mut way = Bitboard::EMPTY;
    if let Some(k) = king.filter(|k| k.rank() == back) {
        way |= attacks::between(k, destination) | destination;
    }
    if let Some(r) = rook {
        way |= attacks::between(r, rook_destination) | rook_destination;
    }
    let mut blockers = way & board.occupied();
    if let Some(k) = king {
        blockers.discard(k);
    }
    if let Some(r) = rook {
        blockers.discard(r);
    }
    CastleMarks {
        king,
        destination,
        rook,
        attacked,
        moved,
        blockers,
    }
}

fn parse_fen(fen: &str) -> Option<shakmaty::Setup> {
    Fen::from_ascii(fen.as_bytes()).ok().map(Fen::into_setup)
}

/// An SVG board with its pieces and, for a castle, its marks.
fn board_svg(
    id: &str,
    fen: &str,
    board: &Board,
    marks: Option<&CastleMarks>,
    extra: &[(Square, &str)],
) -> String {
    let mut s = format!(
        r#"<svg class="board" id="{id}" data-fen="{}" viewBox="-0.32 0 8.32 8.32" role="img"><rect width="8" height="8" fill="url(#chk)"/>"#,
        esc(fen)
    );
    let rect = |s: &mut String, sq: Square, class: &str, fill: &str, attrs: &str| {
        let (x, y) = square_xy(sq);
        let _ = write!(
            s,
            r#"<rect class="{class}" data-sq="{sq}"{attrs} x="{x}" y="{y}" width="1" height="1" fill="{fill}"/>"#
        );
    };
    for (sq, class) in extra {
        rect(&mut s, *sq, class, "rgba(60,140,255,.45)", "");
    }
    if let Some(m) = marks {
        for sq in m.moved {
            rect(&mut s, sq, "moved", "rgba(250,200,0,.7)", "");
        }
        for sq in m.blockers {
            rect(&mut s, sq, "blocker", "rgba(255,120,0,.75)", "");
        }
        for (sq, at) in &m.attacked {
            let attrs = format!(r#" data-attackers="{}""#, squares(*at));
            rect(&mut s, *sq, "attacked", "rgba(230,30,30,.55)", &attrs);
        }
        for at in m.attacked.iter().fold(Bitboard::EMPTY, |a, (_, b)| a | *b) {
            let (x, y) = square_xy(at);
            let _ = write!(
                s,
                r##"<circle class="attacker" data-sq="{at}" cx="{}.5" cy="{}.5" r=".46" fill="none" stroke="#d0191b" stroke-width=".07"/>"##,
                x, y
            );
        }
    }
    if let Some(m) = marks {
        if let Some(k) = m.king.filter(|k| *k != m.destination) {
            let ((x1, y1), (x2, y2)) = (square_xy(k), square_xy(m.destination));
            let _ = write!(
                s,
                r##"<line class="path" data-from="{k}" data-to="{d}" x1="{x1}.5" y1="{y1}.5" x2="{x2}.5" y2="{y2}.5" stroke="#1f5fd1" stroke-width=".13" stroke-opacity=".85" marker-end="url(#ah-path)"/>"##,
                d = m.destination
            );
        }
        for (sq, at) in &m.attacked {
            for a in *at {
                let ((x1, y1), (x2, y2)) = (square_xy(a), square_xy(*sq));
                let _ = write!(
                    s,
                    r##"<line class="attack" data-from="{a}" data-to="{sq}" x1="{x1}.5" y1="{y1}.5" x2="{x2}.5" y2="{y2}.5" stroke="#d0191b" stroke-width=".06" marker-end="url(#ah-attack)"/>"##
                );
            }
        }
    }
    // The pieces go over the marks and lines.
    for (sq, piece) in board.iter() {
        let (x, y) = square_xy(sq);
        let _ = write!(
            s,
            r#"<text class="pc {c}" data-sq="{sq}" data-piece="{p}" x="{x}.5" y="{y}.8">{g}</text>"#,
            c = if piece.color.is_white() { "w" } else { "b" },
            p = piece_code(piece),
            g = glyph(piece.role),
        );
    }
    for i in 0..8u8 {
        let _ = write!(
            s,
            r#"<text class="coord" x="-0.2" y="{}.6">{}</text><text class="coord" x="{}.42" y="8.27">{}</text>"#,
            i,
            8 - i,
            i,
            (b'a' + i) as char
        );
    }
    s.push_str("</svg>");
    s
}

fn identity_html<S: AsRef<str>>(row: &[S]) -> String {
    let white = col(row, WHITE);
    let black = col(row, BLACK);
    let mut s = format!(
        "<h4>{} – {} <span class=\"muted\">{}</span></h4>",
        if white.is_empty() {
            "?".to_owned()
        } else {
            esc(white)
        },
        if black.is_empty() {
            "?".to_owned()
        } else {
            esc(black)
        },
        esc(col(row, RESULT))
    );
    let mut parts = Vec::new();
    for (i, label) in [(EVENT, ""), (ROUND, "round "), (DATE, "")] {
        let v = col(row, i);
        if !v.is_empty() && v != "?" {
            parts.push(format!("{label}{}", esc(v)));
        }
    }
    let site = col(row, SITE);
    if is_url(site) {
        parts.push(format!(
            r#"<a href="{0}" rel="noopener noreferrer">{0}</a>"#,
            esc(site)
        ));
    } else if !site.is_empty() && site != "?" {
        parts.push(esc(site));
    }
    if col(row, VARIANT) != "standard" {
        parts.push(esc(col(row, VARIANT)));
    }
    let _ = write!(s, "<p>{}</p>", parts.join(" · "));
    let _ = write!(
        s,
        r#"<p class="src">{}, game {}, line {}, byte {}</p>"#,
        esc(col(row, SOURCE)),
        esc(col(row, GAME)),
        esc(col(row, LINE)),
        esc(col(row, OFFSET))
    );
    s
}

fn missed_row(row: &[String]) -> String {
    use missed_col::*;
    format!(
        "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td><code>{}</code></td></tr>",
        game_cell(row),
        esc(col(row, RULE)),
        esc(col(row, PLY)),
        esc(col(row, PLIES_AFTER)),
        esc(col(row, FEN))
    )
}

fn result_row(row: &[String]) -> String {
    use results_col::*;
    format!(
        "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
        game_cell(row),
        esc(col(row, CODE)),
        esc(col(row, PLY)),
        esc(col(row, RECORDED)),
        esc(col(row, EXPECTED)),
        esc(col(row, DETAIL)),
        esc(col(row, FEN))
    )
}

fn error_row(row: &[String]) -> String {
    use errors_col::*;
    format!(
        "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td><code>{}</code></td><td>{}</td><td><code>{}</code></td></tr>",
        game_cell(row),
        esc(col(row, KIND)),
        esc(col(row, PLY)),
        esc(col(row, SAN)),
        esc(col(row, DETAIL)),
        esc(col(row, FEN))
    )
}

fn game_cell(row: &[String]) -> String {
    let site = col(row, SITE);
    let who = format!("{} – {}", esc(col(row, WHITE)), esc(col(row, BLACK)));
    let who = if is_url(site) {
        format!(
            r#"<a href="{}" rel="noopener noreferrer">{who}</a>"#,
            esc(site)
        )
    } else {
        who
    };
    format!(
        "{who}<br><span class=\"src\">{} #{}, line {} · {}</span>",
        esc(col(row, SOURCE)),
        esc(col(row, GAME)),
        esc(col(row, LINE)),
        esc(col(row, DATE))
    )
}

impl Page {
    fn head(&mut self) {
        self.out.push_str(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>pgn-audit report</title>\n<style>",
        );
        self.out.push_str(STYLE);
        self.out.push_str("</style>\n</head>\n<body>\n");
        self.out.push_str(DEFS);
    }

    fn glance(&mut self, s: &Summary) {
        let o = &mut self.out;
        o.push_str("<header><h1>pgn-audit report</h1>");
        let n = s.sources.len();
        let shown: Vec<String> = s
            .sources
            .iter()
            .take(MAX_SOURCES)
            .map(|x| format!("<code>{}</code>", esc(x)))
            .collect();
        let _ = write!(
            o,
            r#"<p class="muted" id="sources" data-count="{n}">{}: {}{}</p>"#,
            if n == 1 { "Source" } else { "Sources" },
            shown.join(", "),
            if n > MAX_SOURCES {
                format!(" and {} more", n - MAX_SOURCES)
            } else {
                String::new()
            }
        );
        o.push_str(concat!(
            r##"<nav><a href="#glance">At a glance</a><a href="#castling">Illegal castles</a>"##,
            r##"<a href="#claims">Draw claims</a><a href="#results">Results</a><a href="#missed-draws">Missed draws</a><a href="#errors">Errors</a>"##,
            r##"<a href="#castle-examples">Castles in detail</a><a href="#claim-examples">False claims in detail</a></nav></header>"##,
            "\n"
        ));
        if s.interrupted {
            o.push_str(
                r#"<p class="banner" id="interrupted">The run was interrupted: this report covers the games done so far.</p>"#,
            );
        }
        let pct = |k: u64| {
            if s.games == 0 {
                String::new()
            } else {
                format!(" · {:.1}%", k as f64 * 100.0 / s.games as f64)
            }
        };
        // As summary.json gives it, so that a page built from a report
        // folder is the same as the run's.
        let seconds = (s.seconds * 1000.0).round() / 1000.0;
        let rate = if seconds > 0.0 {
            s.games as f64 / seconds
        } else {
            0.0
        };
        o.push_str(r#"<section id="glance"><h2>At a glance</h2><div class="cards">"#);
        for (class, value, label) in [
            ("games", s.games.to_string(), "games".to_owned()),
            (
                "clean",
                s.clean.to_string(),
                format!("clean{}", pct(s.clean)),
            ),
            (
                "flagged",
                s.flagged.to_string(),
                format!("flagged{}", pct(s.flagged)),
            ),
            (
                "incomplete",
                s.incomplete.to_string(),
                format!("incomplete{}", pct(s.incomplete)),
            ),
            (
                "quirks",
                s.notation_quirks.to_string(),
                "notation quirks".to_owned(),
            ),
            (
                "bytes",
                format!("{:.1}", s.bytes as f64 / (1 << 20) as f64),
                "MiB read".to_owned(),
            ),
            ("seconds", format!("{seconds:.2}"), "seconds".to_owned()),
            ("rate", format!("{rate:.0}"), "games/s".to_owned()),
            ("threads", s.threads.to_string(), "threads".to_owned()),
        ] {
            let _ = write!(
                o,
                r#"<div class="stat {class}" id="stat-{class}" data-value="{value}"><b>{value}</b><span>{label}</span></div>"#
            );
        }
        o.push_str("</div>");
        if s.games > 0 {
            // One stacked bar: clean, flagged, incomplete.
            let mut x = 0.0;
            o.push_str(r#"<svg id="classes" width="100%" height="18" viewBox="0 0 1000 18" preserveAspectRatio="none" role="img">"#);
            for (k, fill) in [
                (s.clean, "#2e8b57"),
                (s.flagged, "#d68910"),
                (s.incomplete, "#c0392b"),
            ] {
                let w = 1000.0 * k as f64 / s.games as f64;
                let _ = write!(
                    o,
                    r#"<rect x="{x:.2}" width="{w:.2}" height="18" fill="{fill}"/>"#
                );
                x += w;
            }
            o.push_str("</svg>");
        }
        o.push_str("</section>\n");
    }

    fn castles(&mut self, h: &HtmlReport) {
        let o = &mut self.out;
        let _ = write!(
            o,
            r#"<section id="castling"><h2>Illegal castles <span class="muted" id="castles-total" data-count="{0}">({1})</span></h2>"#,
            h.castles,
            plural(h.castles, "castle", "castles")
        );
        if h.castles == 0 {
            o.push_str(r#"<p class="muted">No castling move broke the rules.</p></section>"#);
            return;
        }
        o.push_str(r#"<div class="grid"><div class="panel"><h3>By reason</h3><p class="muted">A castle can break several rules; it counts once for each.</p>"#);
        let items: Vec<(String, u64)> = ordered(
            &h.castle_reasons,
            CastlingReason::ALL.iter().map(|r| r.code()),
        )
        .into_iter()
        .map(|(k, v)| (k.to_owned(), *v))
        .collect();
        o.push_str(&bar_chart("chart-castle-reasons", &items));
        o.push_str(r#"</div><div class="panel"><h3>By decade (Date tag)</h3>"#);
        let items: Vec<(String, u64)> = h
            .castle_decades
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        o.push_str(&bar_chart("chart-castle-decades", &items));
        o.push_str(r#"</div><div class="panel"><h3>By variant</h3>"#);
        let items: Vec<(String, u64)> = h
            .castle_variants
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        o.push_str(&bar_chart("chart-castle-variants", &items));
        o.push_str(r#"</div><div class="panel"><h3>Most frequent reason combinations</h3>"#);
        let mut combos: Vec<(&String, &u64)> = h.castle_combos.iter().collect();
        combos.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        o.push_str(
            r#"<table id="castle-combos"><tr><th>reasons</th><th class="n">castles</th></tr>"#,
        );
        for (k, v) in combos.iter().take(MAX_COMBOS) {
            let _ = write!(
                o,
                r#"<tr data-reasons="{0}"><td><code>{1}</code></td><td class="n">{v}</td></tr>"#,
                esc(k),
                esc(&k.replace(';', " + "))
            );
        }
        o.push_str("</table>");
        if combos.len() > MAX_COMBOS {
            let _ = write!(
                o,
                r#"<p class="more">{} other combinations.</p>"#,
                combos.len() - MAX_COMBOS
            );
        }
        o.push_str("</div></div></section>\n");
    }

    fn claims(&mut self, h: &HtmlReport) {
        let o = &mut self.out;
        let total: u64 = h.claim_counts.values().sum();
        let _ = write!(
            o,
            r#"<section id="claims"><h2>Draw claims <span class="muted" id="claims-total" data-count="{total}">({})</span></h2>"#,
            plural(total, "claim", "claims")
        );
        if total == 0 {
            o.push_str(r#"<p class="muted">No draw claim was audited.</p></section>"#);
            return;
        }
        let mut by_verdict: BTreeMap<String, u64> = BTreeMap::new();
        let mut sources: Vec<&str> = ClaimSource::ALL.iter().map(|c| c.code()).collect();
        for ((v, src), n) in &h.claim_counts {
            *by_verdict.entry(v.clone()).or_default() += n;
            if !sources.contains(&src.as_str()) {
                sources.push(src);
            }
        }
        let verdicts = ordered(&by_verdict, ClaimVerdict::ALL.iter().map(|v| v.code()));
        o.push_str(r#"<div class="grid"><div class="panel"><h3>By verdict</h3>"#);
        let items: Vec<(String, u64)> = verdicts
            .iter()
            .map(|(k, v)| ((*k).to_owned(), **v))
            .collect();
        o.push_str(&bar_chart("chart-claim-verdicts", &items));
        o.push_str(r#"</div><div class="panel"><h3>By verdict and source</h3><table id="claim-table"><tr><th>verdict</th>"#);
        for src in &sources {
            let _ = write!(o, r#"<th class="n">{}</th>"#, esc(src));
        }
        o.push_str(r#"<th class="n">all</th></tr>"#);
        for (v, n) in &verdicts {
            let _ = write!(o, r#"<tr data-verdict="{0}"><td>{0}</td>"#, esc(v));
            for src in &sources {
                let k = h
                    .claim_counts
                    .get(&((*v).to_owned(), (*src).to_owned()))
                    .copied()
                    .unwrap_or(0);
                let _ = write!(o, r#"<td class="n" data-source="{}">{k}</td>"#, esc(src));
            }
            let _ = write!(o, r#"<td class="n">{n}</td></tr>"#);
        }
        o.push_str("</table><h3>By claim</h3>");
        let items: Vec<(String, u64)> =
            h.claim_kinds.iter().map(|(k, v)| (k.clone(), *v)).collect();
        o.push_str(&bar_chart("chart-claim-kinds", &items));
        o.push_str(r#"<p class="muted">An <code>implied</code> claim (a drawn game whose final position repeats) flags nothing.</p></div></div></section>"#);
        o.push('\n');
    }

    /// Every results code with its count, zeros included.
    fn results(&mut self, s: &Summary) {
        let o = &mut self.out;
        let total: u64 = s.results.iter().sum();
        let _ = write!(
            o,
            r#"<section id="results"><h2>Results that contradict the board <span class="muted" id="results-total" data-count="{total}">({total})</span></h2><p class="muted">Recorded results that the final position or the Laws contradict (FIDE 5.1.1, 5.2.1, 5.2.2, 6.9).</p><table id="results-counts"><tr><th>code</th><th class="n">games</th></tr>"#
        );
        for (code, n) in ResultCode::ALL.iter().zip(&s.results) {
            let _ = write!(
                o,
                r#"<tr data-code="{0}"><td>{0}</td><td class="n">{n}</td></tr>"#,
                code.code()
            );
        }
        o.push_str("</table></section>\n");
    }

    fn missed(&mut self, h: &HtmlReport) {
        self.counts_section(
            "missed-draws",
            "Missed automatic draws",
            "Games played on past a fivefold repetition or 75 moves (FIDE 9.6), or past a position that insufficient material makes dead (FIDE 5.2.2)",
            &h.missed,
            DrawRule::ALL.iter().map(|r| r.code()),
            "chart-missed",
        );
    }

    fn errors(&mut self, h: &HtmlReport) {
        self.counts_section(
            "errors",
            "Errors",
            "Games that could not be audited to their end",
            &h.errors,
            ErrorKind::ALL.iter().map(|k| k.code()),
            "chart-errors",
        );
    }

    fn counts_section(
        &mut self,
        id: &str,
        title: &str,
        what: &str,
        groups: &BTreeMap<String, Group>,
        known: impl Iterator<Item = &'static str>,
        chart: &str,
    ) {
        let total: u64 = groups.values().map(|g| g.total).sum();
        let _ = write!(
            self.out,
            r#"<section id="{id}"><h2>{title} <span class="muted" id="{id}-total" data-count="{total}">({total})</span></h2><p class="muted">{what}.</p>"#
        );
        if total > 0 {
            let items: Vec<(String, u64)> = ordered(groups, known)
                .into_iter()
                .map(|(k, g)| (k.to_owned(), g.total))
                .collect();
            self.out.push_str(r#"<div class="panel">"#);
            self.out.push_str(&bar_chart(chart, &items));
            self.out.push_str("</div>");
        }
        self.out.push_str("</section>\n");
    }

    fn castle_examples(&mut self, h: &HtmlReport) {
        use castling_col::*;
        let o = &mut self.out;
        o.push_str(r#"<section id="castle-examples"><h2>Illegal castles in detail</h2>"#);
        if h.castles == 0 {
            o.push_str(r#"<p class="muted">None.</p></section>"#);
            return;
        }
        let _ = write!(
            o,
            r#"<p class="muted">Grouped by each castle's first reason; at most {} per group, in input order. Each board shows the position before the castle.</p>"#,
            h.limit
        );
        o.push_str(LEGEND_CASTLE);
        let mut n = 0usize;
        for (reason, g) in ordered(
            &h.castle_examples,
            CastlingReason::ALL.iter().map(|r| r.code()),
        ) {
            let _ = write!(
                o,
                r#"<h3 id="castles-{0}" data-total="{1}" data-shown="{2}">First reason <code class="reason">{0}</code>: {3}</h3>"#,
                esc(reason),
                g.total,
                g.rows.len(),
                plural(g.total, "castle", "castles"),
            );
            for row in &g.rows {
                n += 1;
                let fen = col(row, FEN);
                let white = col(row, SIDE) != "black";
                let reasons = col(row, REASONS);
                let board = parse_fen(fen).map(|setup| {
                    let marks = castle_marks(
                        &setup.board,
                        setup.castling_rights,
                        white,
                        col(row, CASTLE) != "queenside",
                        col(row, VARIANT) == "chess960",
                        reasons,
                    );
                    board_svg(
                        &format!("board-castle-{n}"),
                        fen,
                        &setup.board,
                        Some(&marks),
                        &[],
                    )
                });
                let _ = write!(
                    o,
                    r#"<article class="example castle" id="castle-{n}" data-reasons="{}" data-ply="{}">"#,
                    esc(reasons),
                    esc(col(row, PLY))
                );
                o.push_str(
                    board
                        .as_deref()
                        .unwrap_or(r#"<p class="muted">(no board: the FEN cannot be read)</p>"#),
                );
                o.push_str(r#"<div class="info">"#);
                o.push_str(&identity_html(row));
                let dots = if white { "." } else { "…" };
                let _ = write!(
                    o,
                    r#"<p>Ply {}: <b>{}{dots} {}</b> ({} {})</p>"#,
                    esc(col(row, PLY)),
                    esc(col(row, MOVE_NUMBER)),
                    esc(col(row, SAN)),
                    esc(col(row, SIDE)),
                    esc(col(row, CASTLE))
                );
                let codes: Vec<String> = reasons
                    .split(';')
                    .filter(|r| !r.is_empty())
                    .map(|r| format!(r#"<code class="reason">{}</code>"#, esc(r)))
                    .collect();
                let _ = write!(o, "<p>{}</p>", codes.join(" "));
                let _ = write!(
                    o,
                    r#"<p class="detail">{}</p><p><code>{}</code></p></div></article>"#,
                    esc(col(row, DETAIL)),
                    esc(fen)
                );
                o.push('\n');
            }
            if g.total > g.rows.len() as u64 {
                let _ = write!(
                    o,
                    r#"<p class="more">… and {} more in castling.csv.</p>"#,
                    g.total - g.rows.len() as u64
                );
            }
        }
        o.push_str("</section>\n");
    }

    fn claim_examples(&mut self, h: &HtmlReport) {
        use claims_col::*;
        let o = &mut self.out;
        o.push_str(r#"<section id="claim-examples"><h2>False claims in detail</h2>"#);
        if h.claim_examples.is_empty() {
            o.push_str(r#"<p class="muted">None.</p></section>"#);
            return;
        }
        let _ = write!(
            o,
            r#"<p class="muted">At most {} per verdict, in input order. Each board shows the final position; the en-passant square and the rooks that keep a castling right are shaded blue.</p>"#,
            h.limit
        );
        let mut n = 0usize;
        for (verdict, g) in ordered(
            &h.claim_examples,
            ClaimVerdict::ALL.iter().map(|v| v.code()),
        ) {
            let _ = write!(
                o,
                r#"<h3 id="claims-{0}" data-total="{1}" data-shown="{2}">Verdict <code class="reason">{0}</code>: {3}</h3>"#,
                esc(verdict),
                g.total,
                g.rows.len(),
                plural(g.total, "claim", "claims"),
            );
            for row in &g.rows {
                n += 1;
                let fen = col(row, FEN);
                let board = parse_fen(fen).map(|setup| {
                    let mut extra: Vec<(Square, &str)> = setup
                        .castling_rights
                        .into_iter()
                        .map(|sq| (sq, "right"))
                        .collect();
                    if let Some(ep) = setup.ep_square {
                        extra.push((ep, "ep"));
                    }
                    board_svg(&format!("board-claim-{n}"), fen, &setup.board, None, &extra)
                });
                let _ = write!(
                    o,
                    r#"<article class="example claim" id="claim-{n}" data-verdict="{}" data-plies="{}">"#,
                    esc(verdict),
                    esc(col(row, PLIES))
                );
                o.push_str(
                    board
                        .as_deref()
                        .unwrap_or(r#"<p class="muted">(no board: the FEN cannot be read)</p>"#),
                );
                o.push_str(r#"<div class="info">"#);
                o.push_str(&identity_html(row));
                let plies = col(row, PLIES).replace(';', ", ");
                let _ = write!(
                    o,
                    r#"<p><b>{}</b> claim from the <b>{}</b>, at ply {}: <code class="reason">{}</code></p><p>The position occurred {} (FIDE identity), {} ignoring castling and en-passant rights, at plies {}.</p>"#,
                    esc(col(row, CLAIM)),
                    esc(col(row, SOURCE)),
                    esc(col(row, PLY)),
                    esc(verdict),
                    times(col(row, OCCURRENCES)),
                    times(col(row, LOOSE)),
                    if plies.is_empty() {
                        "none".to_owned()
                    } else {
                        esc(&plies)
                    }
                );
                let _ = write!(
                    o,
                    r#"<p class="detail">{}</p><p><code>{}</code></p></div></article>"#,
                    esc(col(row, DETAIL)),
                    esc(fen)
                );
                o.push('\n');
            }
            if g.total > g.rows.len() as u64 {
                let _ = write!(
                    o,
                    r#"<p class="more">… and {} more in claims.csv.</p>"#,
                    g.total - g.rows.len() as u64
                );
            }
        }
        o.push_str("</section>\n");
    }

    /// Example tables, one per group.
    fn tables(
        &mut self,
        id: &str,
        title: &str,
        groups: &BTreeMap<String, Group>,
        known: impl Iterator<Item = &'static str>,
        limit: usize,
        row: fn(&[String]) -> String,
    ) {
        if groups.is_empty() {
            return;
        }
        let o = &mut self.out;
        let _ = write!(
            o,
            r#"<section id="{id}"><h2>{title}</h2><p class="muted">At most {limit} per group, in input order.</p>"#
        );
        let header = match id {
            "missed" => {
                r#"<tr><th>game</th><th>rule</th><th class="n">ply</th><th class="n">plies after</th><th>fen</th></tr>"#
            }
            "results-list" => {
                r#"<tr><th>game</th><th>code</th><th class="n">ply</th><th>recorded</th><th>expected</th><th>detail</th><th>fen</th></tr>"#
            }
            _ => {
                r#"<tr><th>game</th><th>kind</th><th class="n">ply</th><th>move</th><th>detail</th><th>fen</th></tr>"#
            }
        };
        for (key, g) in ordered(groups, known) {
            let _ = write!(
                o,
                r#"<h3>{} <span class="muted">({})</span></h3><div class="wide"><table id="{id}-{}" data-total="{}">{header}"#,
                esc(key),
                g.total,
                esc(key),
                g.total
            );
            for r in &g.rows {
                o.push_str(&row(r));
            }
            o.push_str("</table></div>");
            if g.total > g.rows.len() as u64 {
                let _ = write!(
                    o,
                    r#"<p class="more">… and {} more.</p>"#,
                    g.total - g.rows.len() as u64
                );
            }
        }
        o.push_str("</section>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(fen: &str, white: bool, kingside: bool, reasons: &str) -> CastleMarks {
        let setup = parse_fen(fen).unwrap();
        castle_marks(
            &setup.board,
            setup.castling_rights,
            white,
            kingside,
            false,
            reasons,
        )
    }

    #[test]
    fn decades() {
        assert_eq!(decade("1986.11.??"), "1980s");
        assert_eq!(decade("2025.05.01"), "2020s");
        assert_eq!(decade("????.??.??"), "unknown");
        assert_eq!(decade(""), "unknown");
    }

    /// A kept value shows as the whole value does.
    #[test]
    fn kept_values_show_as_whole_ones() {
        let long = "é".repeat(MAX_TEXT * 3);
        assert_eq!(kept(&long).chars().count(), MAX_TEXT + 1);
        assert_eq!(esc(&kept(&long)), esc(&long));
        let plies = (1..400)
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(";");
        assert_eq!(
            esc(&kept(&plies).replace(';', ", ")),
            esc(&plies.replace(';', ", "))
        );
        let url = format!("https://example.org/{}", "a".repeat(MAX_TEXT));
        assert!(!is_url(&url) && !is_url(&kept(&url)));
        let short = "https://lichess.org/abcdefgh";
        assert_eq!(kept(short), short);
        assert_eq!(kept(&"x".repeat(MAX_TEXT + 1)), "x".repeat(MAX_TEXT + 1));
    }

    #[test]
    fn escaping() {
        assert_eq!(
            esc(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(esc(&"x".repeat(1000)).chars().count(), MAX_TEXT + 1);
    }

    #[test]
    fn through_check_marks_the_passed_square() {
        // White king e1, rook h1, black bishop c4 attacks f1.
        let m = marks(
            "4k3/8/8/8/2b5/8/8/4K2R w K - 0 1",
            true,
            true,
            "through_check",
        );
        assert_eq!(m.king, Some(Square::E1));
        assert_eq!(m.rook, Some(Square::H1));
        assert_eq!(m.destination, Square::G1);
        assert_eq!(m.attacked, vec![(Square::F1, Bitboard::from(Square::C4))]);
        assert!(m.blockers.is_empty());
        assert!(m.moved.is_empty());
    }

    #[test]
    fn blockers_moved_and_checks() {
        // Black king e8 in check from a knight on d6, which also attacks
        // c8; the bishop on b8 is in the rook's way; the a8 rook had moved.
        let m = marks(
            "rb2k3/8/3N4/8/8/8/8/4K3 b q - 0 1",
            false,
            false,
            "rook_moved;path_blocked;in_check",
        );
        assert_eq!(m.rook, Some(Square::A8));
        let d6 = Bitboard::from(Square::D6);
        assert_eq!(m.attacked, vec![(Square::E8, d6), (Square::C8, d6)]);
        assert_eq!(m.blockers, Bitboard::from(Square::B8));
        assert_eq!(m.moved, Bitboard::from(Square::A8));
    }

    #[test]
    fn into_check_is_judged_after_the_castle() {
        // Queenside: the king goes to c1, where the black queen on b2
        // attacks it; the rook on h8 attacks nothing on the way.
        let m = marks(
            "4k2r/8/8/8/8/8/1q6/R3K3 w Q - 0 1",
            true,
            false,
            "into_check",
        );
        assert_eq!(m.attacked, vec![(Square::C1, Bitboard::from(Square::B2))]);
    }
}
