//! The counts of summary.json. Every game is exactly one of clean, flagged
//! or incomplete, so `games = clean + flagged + incomplete`.

use std::path::Path;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use pgn_audit_core::audit::{
    CastlingReason, ClaimSource, ClaimVerdict, DrawRule, ErrorKind, GameClass, GameReport,
    ResultCode, Undecided,
};

/// The tool's version, written in summary.json: `merge` joins only the
/// folders of this version.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The options that change the reports, as summary.json records them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    /// `--split`: clean.pgn and rejected.pgn.
    pub split: bool,
    /// `--quirks`: quirks.csv.
    pub quirks: bool,
    /// report.html (off with `--no-html`).
    pub html: bool,
    /// `--excel-safe`: a `'` before each CSV cell that a spreadsheet would
    /// run as a formula.
    #[serde(default)]
    pub excel_safe: bool,
    /// `--format`: the reports as CSV or as Parquet files (v3; a folder
    /// written before it was recorded is CSV).
    #[serde(default)]
    pub format: Format,
    /// `--max-window`: the largest zstd window or xz dictionary a stream
    /// could ask for, in MiB, as the run applied it. A stream above it is a
    /// read error, so folders written with other limits are not merged.
    /// Required: a folder that does not say it is not taken for the
    /// default.
    pub max_window: u32,
    /// (v4) `--fix`: fixed.pgn and corrections.csv.
    #[serde(default)]
    pub fix: bool,
}

impl Default for Options {
    /// The options of a run given none: report.html, CSV and the default
    /// `--max-window`.
    fn default() -> Options {
        Options {
            split: false,
            quirks: false,
            html: true,
            excel_safe: false,
            format: Format::Csv,
            max_window: pgn_audit_input::MaxWindow::DEFAULT_MIB,
            fix: false,
        }
    }
}

impl Options {
    /// How the CSV reports' text cells are written.
    pub fn cell_style(&self) -> crate::rows::CellStyle {
        match self.excel_safe {
            true => crate::rows::CellStyle::ExcelSafe,
            false => crate::rows::CellStyle::AsRead,
        }
    }
}

/// The format of the row reports (`--format`, contract v3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// `NAME.csv`.
    #[default]
    Csv,
    /// `NAME.parquet`, typed columns.
    Parquet,
}

/// One source as read: what a resume or a merge checks it against.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceDetail {
    /// The source's name, as the reports' `source` column gives it.
    pub name: String,
    /// The input file's size when the run started; `None` for standard
    /// input, a path that is not a regular file (a pipe, a device: it has
    /// no size) and a file whose metadata could not be read.
    pub size: Option<u64>,
    /// The input file's modification time when the run started, in RFC
    /// 3339 UTC to the second (`2025-05-01T12:00:00Z`); `None` as `size`.
    pub modified: Option<String>,
    /// Decompressed bytes read.
    pub bytes: u64,
    /// Games read from the source.
    pub games: u64,
    /// The read error that ended the source, if one did.
    pub error: Option<String>,
    /// The modification time of `modified` to the nanosecond (as far as
    /// the file system keeps it), in nanoseconds since 1970; `None` as
    /// `size`.
    #[serde(default)]
    pub modified_ns: Option<i64>,
    /// [`FileStat::ends_crc32`]; `None` as `size`.
    #[serde(default)]
    pub ends_crc32: Option<String>,
}

/// An input file as a run saw it at its start: what `merge` tells two
/// versions of one file apart by, before it joins pieces of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileStat {
    /// Its size in bytes, where it is a regular file: a pipe or a device
    /// has none (`stat` says 0 for both), and is held to none.
    pub size: Option<u64>,
    /// Its modification time, to the second (RFC 3339 UTC).
    pub modified: Option<String>,
    /// Its modification time in nanoseconds since 1970.
    pub modified_ns: Option<i64>,
    /// A cheap check of its content: the CRC-32 (8 hex digits) of its
    /// first [`ENDS`] bytes followed by its last [`ENDS`] bytes (each the
    /// whole file where it is shorter), as stored. A file rewritten in
    /// place with the same size and the same modification time (a file
    /// system that keeps only seconds, a copy that keeps the times) is
    /// told by it where its beginning or its end changed.
    pub ends_crc32: Option<String>,
}

/// How many bytes at each end of a file [`FileStat::ends_crc32`] checks.
pub const ENDS: u64 = 4096;

impl FileStat {
    /// The file at `path` as it is now. A path that is not a regular file
    /// (a pipe, a device) is not opened: reading it would take bytes that
    /// the run must read; it gets its size and times only.
    pub fn of(path: &Path) -> FileStat {
        let Ok(meta) = std::fs::metadata(path) else {
            return FileStat::default();
        };
        let modified = meta.modified().ok();
        FileStat {
            size: meta.is_file().then_some(meta.len()),
            modified: modified.map(rfc3339),
            modified_ns: modified.and_then(nanoseconds),
            ends_crc32: meta
                .is_file()
                .then(|| ends_crc32(path, meta.len()))
                .flatten(),
        }
    }
}

/// A time in nanoseconds since 1970 (negative before), where an `i64`
/// holds it (until 2262).
fn nanoseconds(t: std::time::SystemTime) -> Option<i64> {
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).ok(),
        Err(e) => i64::try_from(e.duration().as_nanos()).ok().map(|n| -n),
    }
}

/// The CRC-32 of the first and the last [`ENDS`] bytes of the `size`
/// bytes of the file at `path`; `None` where they cannot be read (the
/// file shrank since it was measured).
fn ends_crc32(path: &Path, size: u64) -> Option<String> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path).ok()?;
    let n = usize::try_from(size.min(ENDS)).ok()?;
    let mut buf = vec![0; n];
    let mut crc = crc32fast::Hasher::new();
    for at in [0, size - size.min(ENDS)] {
        file.read_exact_at(&mut buf, at).ok()?;
        crc.update(&buf);
    }
    Some(format!("{:08x}", crc.finalize()))
}

/// A time as RFC 3339 UTC, to the second (times before 1970 included).
fn rfc3339(t: std::time::SystemTime) -> String {
    let secs = match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    };
    let (days, second) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        second / 3600,
        second / 60 % 60,
        second % 60
    )
}

/// The piece of one source that a run audited (`--piece`): what `merge`
/// needs to join it to the pieces around it. Offsets are in the source's
/// decompressed bytes from the piece's start.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PieceInfo {
    /// The source, as the reports name it.
    pub source: String,
    /// The bounds as stored in the file (`--piece START..END`).
    pub start: u64,
    /// See `start`.
    pub end: u64,
    /// The bounds' decompressed length; `None` when a read error came
    /// first.
    pub length: Option<u64>,
    /// The first sync point at or after the start, where the piece's own
    /// range starts (and its rows count offsets and lines from).
    pub first: Option<u64>,
    /// The first sync point at or after the end that the piece read to
    /// (or the source's end): its own range's end.
    pub seam: Option<u64>,
    /// Games whose first byte lies in the own range.
    pub games: u64,
    /// Line ends in the own range.
    pub lines: u64,
}

/// Counters of a run; two summaries of disjoint inputs merge by adding.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// Games audited to their end with no finding.
    pub clean: u64,
    /// Games audited to their end with a finding.
    pub flagged: u64,
    /// Games that could not be audited to their end (an errors.csv row).
    pub incomplete: u64,
    /// castling.csv rows by reason, in the contract's order of the codes
    /// (a row counts once per reason).
    pub castling: [u64; 11],
    /// claims.csv rows by verdict, in the contract's order.
    pub claims: [u64; 7],
    /// missed_draws.csv rows by rule, in the contract's order.
    pub missed_draws: [u64; 3],
    /// errors.csv rows by kind, in the contract's order.
    pub errors: [u64; 6],
    /// results.csv rows by code.
    pub results: [u64; 5],
    /// Moves and tags written otherwise than the PGN standard says.
    pub notation_quirks: u64,
    /// Decompressed bytes read.
    pub bytes: u64,
    /// The run's wall-clock time.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
    /// The sources' names, in input order.
    pub sources: Vec<String>,
    /// The options that decide which files the run wrote.
    pub options: Options,
    /// Each source as read, in input order.
    pub source_details: Vec<SourceDetail>,
    /// (v3) Questions the helpmate analysis could not decide, by code.
    pub undecided: [u64; 3],
    /// (v3) The time the helpmate analysis took, added over the games (on
    /// every thread), in seconds.
    pub helpmate_seconds: f64,
    /// (v4) Games whose recorded result `--fix` corrected (0 without it).
    pub corrected: u64,
    /// Whether a signal stopped the run before its input's end.
    pub interrupted: bool,
    /// The piece audited, for a run with `--piece`.
    pub piece: Option<PieceInfo>,
    /// The terminal table's findings, which summary.json does not hold
    /// (a merge counts them in the CSV rows).
    pub findings: Findings,
}

/// What the table counts beyond summary.json.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Findings {
    /// castling.csv rows.
    pub castles: u64,
    /// Games with a castling.csv row.
    pub castle_games: u64,
    /// claims.csv rows of a `termination` or `comment` claim whose verdict
    /// is false: the claims that flag their game.
    pub false_claims: u64,
    /// claims.csv rows of an `implied` claim whose verdict is false.
    pub false_implied: u64,
}

impl Summary {
    /// Counts one audited game.
    pub fn add_game(&mut self, report: &GameReport, class: GameClass) {
        self.games += 1;
        match class {
            GameClass::Clean => self.clean += 1,
            GameClass::Flagged => self.flagged += 1,
            GameClass::Incomplete => self.incomplete += 1,
        }
        self.findings.castles += report.castling.len() as u64;
        self.findings.castle_games += u64::from(!report.castling.is_empty());
        for c in &report.castling {
            for r in c.reasons.iter() {
                self.castling[r as usize] += 1;
            }
        }
        for c in &report.claims {
            self.claims[c.verdict as usize] += 1;
            self.findings.add_claim(c.source, c.verdict);
        }
        for m in &report.missed_draws {
            self.missed_draws[m.rule as usize] += 1;
        }
        if let Some(e) = &report.error {
            self.errors[e.kind as usize] += 1;
        }
        for r in &report.results {
            self.results[r.code as usize] += 1;
        }
        self.notation_quirks += u64::from(report.notation_quirks);
        for u in &report.undecided {
            self.undecided[*u as usize] += 1;
        }
        self.helpmate_seconds += report.analysis_nanos as f64 / 1e9;
    }

    /// summary.json, pretty-printed, keys in contract order.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        let file = SummaryFile {
            games: self.games,
            clean: self.clean,
            flagged: self.flagged,
            incomplete: self.incomplete,
            castling: Counts::of(CastlingReason::ALL, CastlingReason::code, &self.castling),
            claims: Counts::of(ClaimVerdict::ALL, ClaimVerdict::code, &self.claims),
            missed_draws: Counts::of(DrawRule::ALL, DrawRule::code, &self.missed_draws),
            errors: Counts::of(ErrorKind::ALL, ErrorKind::code, &self.errors),
            notation_quirks: self.notation_quirks,
            bytes: self.bytes,
            seconds: (self.seconds * 1000.0).round() / 1000.0,
            threads: self.threads,
            sources: &self.sources,
            results: Counts::of(ResultCode::ALL, ResultCode::code, &self.results),
            version: VERSION,
            options: self.options,
            source_details: &self.source_details,
            undecided: Counts::of(Undecided::ALL, Undecided::code, &self.undecided),
            helpmate_seconds: (self.helpmate_seconds * 1000.0).round() / 1000.0,
            corrected: self.corrected,
            interrupted: self.interrupted,
            piece: self.piece.as_ref(),
        };
        let mut s = serde_json::to_string_pretty(&file)?;
        s.push('\n');
        Ok(s)
    }

    /// Reads a summary.json written by [`Summary::to_json`]; `None` when a
    /// key it writes (version 2's `results`, `version`, `options` and
    /// `source_details`, version 3's `undecided` and `helpmate_seconds`,
    /// version 4's `corrected` included) is missing or malformed. The table's
    /// [`Findings`] are left at zero.
    pub(crate) fn from_json(text: &str) -> Option<Summary> {
        let file: SummaryRead = serde_json::from_str(text).ok()?;
        Some(Summary {
            games: file.games,
            clean: file.clean,
            flagged: file.flagged,
            incomplete: file.incomplete,
            castling: counted(&file.castling, CastlingReason::ALL, CastlingReason::code)?,
            claims: counted(&file.claims, ClaimVerdict::ALL, ClaimVerdict::code)?,
            missed_draws: counted(&file.missed_draws, DrawRule::ALL, DrawRule::code)?,
            errors: counted(&file.errors, ErrorKind::ALL, ErrorKind::code)?,
            results: counted(&file.results, ResultCode::ALL, ResultCode::code)?,
            notation_quirks: file.notation_quirks,
            bytes: file.bytes,
            seconds: file.seconds,
            threads: file.threads,
            sources: file.sources,
            options: file.options,
            source_details: file.source_details,
            undecided: counted(&file.undecided, Undecided::ALL, Undecided::code)?,
            helpmate_seconds: file.helpmate_seconds,
            corrected: file.corrected,
            interrupted: file.interrupted,
            piece: file.piece,
            findings: Findings::default(),
        })
    }

    /// Adds the counts of a summary of other, disjoint inputs that come
    /// after these: counts and seconds add up, sources follow in order.
    pub(crate) fn merge(&mut self, other: &Summary) {
        self.games += other.games;
        self.clean += other.clean;
        self.flagged += other.flagged;
        self.incomplete += other.incomplete;
        let add = |a: &mut [u64], b: &[u64]| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        add(&mut self.castling, &other.castling);
        add(&mut self.claims, &other.claims);
        add(&mut self.missed_draws, &other.missed_draws);
        add(&mut self.errors, &other.errors);
        add(&mut self.results, &other.results);
        add(&mut self.undecided, &other.undecided);
        self.helpmate_seconds += other.helpmate_seconds;
        self.corrected += other.corrected;
        self.notation_quirks += other.notation_quirks;
        self.bytes += other.bytes;
        self.seconds += other.seconds;
        self.threads = self.threads.max(other.threads);
        self.sources.extend(other.sources.iter().cloned());
        self.source_details
            .extend(other.source_details.iter().cloned());
        self.interrupted |= other.interrupted;
        self.findings.castles += other.findings.castles;
        self.findings.castle_games += other.findings.castle_games;
        self.findings.false_claims += other.findings.false_claims;
        self.findings.false_implied += other.findings.false_implied;
    }

    /// The table for standard error, wrapped to `width` columns: the
    /// findings first, then their codes, then the run; the last line says
    /// where the reports are (`out`) and which page to open.
    pub fn table(&self, out: &Path, width: usize) -> String {
        let mut t = Table::new(width);
        self.findings_lines(&mut t);
        self.code_lines(&mut t);
        self.run_lines(&mut t);
        // The folder's name as a terminal may print it (a newline or an
        // escape sequence in it written escaped).
        let dir = out.to_string_lossy();
        let dir = pgn_audit_input::printable(&dir);
        let dir = match dir.trim_end_matches('/') {
            "" => "/".to_owned(),
            d => format!("{d}/"),
        };
        if self.options.html {
            t.line(0, &format!("Reports in {dir} — open {dir}report.html"));
        } else {
            t.line(0, &format!("Reports in {dir}"));
        }
        t.text
    }

    /// The table's Findings: one count per kind of finding.
    fn findings_lines(&self, t: &mut Table) {
        let sum = |a: &[u64]| a.iter().sum::<u64>();
        let f = &self.findings;
        let mut false_claims = f.false_claims.to_string();
        if f.false_implied > 0 {
            false_claims += &format!(" (plus {} implied, not flagged)", f.false_implied);
        }
        let findings = [
            (
                "illegal castles",
                format!("{} in {} games", f.castles, f.castle_games),
            ),
            ("false claims", false_claims),
            ("missed draws", sum(&self.missed_draws).to_string()),
            ("result problems", sum(&self.results).to_string()),
            ("errors", sum(&self.errors).to_string()),
        ];
        let corrected = ("corrected", self.corrected.to_string());
        let findings = findings
            .into_iter()
            .chain(self.options.fix.then_some(corrected));
        t.line(0, "Findings");
        for (label, n) in findings {
            t.line(2, &format!("{label:<16}{n}"));
        }
    }

    /// The table's By code: the codes that came up, with their counts;
    /// nothing when none did.
    fn code_lines(&self, t: &mut Table) {
        let codes = [
            (
                "castling",
                nonzero(CastlingReason::ALL, CastlingReason::code, &self.castling),
            ),
            (
                "claims",
                nonzero(ClaimVerdict::ALL, ClaimVerdict::code, &self.claims),
            ),
            (
                "missed draws",
                nonzero(DrawRule::ALL, DrawRule::code, &self.missed_draws),
            ),
            (
                "results",
                nonzero(ResultCode::ALL, ResultCode::code, &self.results),
            ),
            (
                "errors",
                nonzero(ErrorKind::ALL, ErrorKind::code, &self.errors),
            ),
        ];
        if codes.iter().any(|(_, c)| !c.is_empty()) {
            t.line(0, "By code");
            for (label, items) in codes.iter().filter(|(_, c)| !c.is_empty()) {
                t.items(2, label, items);
            }
        }
    }

    /// The table's Run: the games, the input, the speed, and whether the
    /// run was interrupted.
    fn run_lines(&self, t: &mut Table) {
        let rate = if self.seconds > 0.0 {
            self.games as f64 / self.seconds
        } else {
            0.0
        };
        t.line(0, "Run");
        t.line(
            2,
            &format!(
                "{} games: {} clean, {} flagged, {} incomplete; {} notation quirks",
                self.games, self.clean, self.flagged, self.incomplete, self.notation_quirks
            ),
        );
        let sources = self.sources.len();
        t.line(
            2,
            &format!(
                "{:.1} MiB from {sources} source{} in {:.2} s ({rate:.0} games/s, {} threads)",
                self.bytes as f64 / (1 << 20) as f64,
                if sources == 1 { "" } else { "s" },
                self.seconds,
                self.threads
            ),
        );
        if self.interrupted {
            t.line(
                0,
                "The run was interrupted: the reports cover the games read before the signal",
            );
        }
    }
}

impl Findings {
    /// Counts a claims.csv row: a false verdict flags its game unless the
    /// claim is implied.
    pub(crate) fn add_claim(&mut self, source: ClaimSource, verdict: ClaimVerdict) {
        if verdict.is_valid() {
            return;
        }
        if source == ClaimSource::Implied {
            self.false_implied += 1;
        } else {
            self.false_claims += 1;
        }
    }
}

/// Text wrapped to a width: a line too long breaks between words (between
/// `code n` items in a list), its next lines indented two more columns.
struct Table {
    width: usize,
    text: String,
}

impl Table {
    fn new(width: usize) -> Table {
        Table {
            width,
            text: String::new(),
        }
    }

    /// A line of words.
    fn line(&mut self, indent: usize, line: &str) {
        let words: Vec<&str> = line.split(' ').collect();
        self.wrap(indent, &words);
    }

    /// `label: code n, code n, ...`, broken only between items.
    fn items(&mut self, indent: usize, label: &str, items: &[String]) {
        let head = format!("{label}:");
        let mut units = vec![head.as_str()];
        let last = items.len().saturating_sub(1);
        let items: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(k, i)| {
                if k == last {
                    i.clone()
                } else {
                    format!("{i},")
                }
            })
            .collect();
        units.extend(items.iter().map(String::as_str));
        self.wrap(indent, &units);
    }

    /// Packs `units`, joined by spaces, into lines of at most `width`
    /// columns (a unit longer than that stands alone on its line).
    fn wrap(&mut self, indent: usize, units: &[&str]) {
        let mut column = indent;
        self.text.extend(std::iter::repeat_n(' ', indent));
        for (k, unit) in units.iter().enumerate() {
            let len = unit.chars().count();
            if k > 0 && column + 1 + len > self.width {
                self.text.push('\n');
                self.text.extend(std::iter::repeat_n(' ', indent + 2));
                column = indent + 2;
            } else if k > 0 {
                self.text.push(' ');
                column += 1;
            }
            self.text.push_str(unit);
            column += len;
        }
        self.text.push('\n');
    }
}

/// `code n` for every code counted at least once.
fn nonzero<T: Copy>(all: &[T], code: fn(T) -> &'static str, n: &[u64]) -> Vec<String> {
    all.iter()
        .zip(n)
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{} {n}", code(*k)))
        .collect()
}

/// summary.json as written: the keys in the contract's order;
/// `interrupted` only where the run was.
#[derive(Serialize)]
struct SummaryFile<'a> {
    games: u64,
    clean: u64,
    flagged: u64,
    incomplete: u64,
    castling: Counts,
    claims: Counts,
    missed_draws: Counts,
    errors: Counts,
    notation_quirks: u64,
    bytes: u64,
    /// Rounded to the millisecond.
    seconds: f64,
    threads: usize,
    sources: &'a [String],
    results: Counts,
    version: &'a str,
    options: Options,
    source_details: &'a [SourceDetail],
    undecided: Counts,
    /// Rounded to the millisecond.
    helpmate_seconds: f64,
    corrected: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    piece: Option<&'a PieceInfo>,
}

/// summary.json as read: every key that [`SummaryFile`] writes is
/// required but `interrupted`, and `version` must be a string.
#[derive(Deserialize)]
struct SummaryRead {
    games: u64,
    clean: u64,
    flagged: u64,
    incomplete: u64,
    castling: BTreeMap<String, u64>,
    claims: BTreeMap<String, u64>,
    missed_draws: BTreeMap<String, u64>,
    errors: BTreeMap<String, u64>,
    notation_quirks: u64,
    bytes: u64,
    seconds: f64,
    threads: usize,
    sources: Vec<String>,
    results: BTreeMap<String, u64>,
    #[serde(rename = "version")]
    _version: String,
    options: Options,
    source_details: Vec<SourceDetail>,
    undecided: BTreeMap<String, u64>,
    helpmate_seconds: f64,
    corrected: u64,
    #[serde(default)]
    interrupted: bool,
    #[serde(default)]
    piece: Option<PieceInfo>,
}

/// Counts by code, written as one object with the codes in their order.
struct Counts(Vec<(&'static str, u64)>);

impl Counts {
    fn of<T: Copy>(all: &[T], code: fn(T) -> &'static str, n: &[u64]) -> Counts {
        Counts(
            all.iter()
                .map(|k| code(*k))
                .zip(n.iter().copied())
                .collect(),
        )
    }
}

impl Serialize for Counts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(code, n)| (code, n)))
    }
}

/// The counts of an object read back: exactly one count per code of
/// `all`, or `None`.
fn counted<T: Copy, const N: usize>(
    read: &BTreeMap<String, u64>,
    all: &[T],
    code: fn(T) -> &'static str,
) -> Option<[u64; N]> {
    if read.len() != all.len() || all.len() != N {
        return None;
    }
    let mut out = [0u64; N];
    for (slot, k) in out.iter_mut().zip(all) {
        *slot = *read.get(code(*k))?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn at(secs: i64) -> String {
        let d = Duration::from_secs(secs.unsigned_abs());
        rfc3339(if secs >= 0 {
            UNIX_EPOCH + d
        } else {
            UNIX_EPOCH - d
        })
    }

    #[test]
    fn modification_times_are_rfc3339_utc_seconds() {
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(1_000_000_000), "2001-09-09T01:46:40Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(4_107_542_399), "2100-02-28T23:59:59Z");
        assert_eq!(at(-1), "1969-12-31T23:59:59Z");
    }

    /// A file's stat: its times to the nanosecond, and the CRC-32 of its
    /// first and last 4 KiB (the whole file twice where it is shorter).
    #[test]
    fn a_file_stat_keeps_nanoseconds_and_its_ends() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("f");
        let text: Vec<u8> = (0..10_000u32)
            .map(|i| u8::try_from(i % 251).unwrap())
            .collect();
        std::fs::write(&path, &text).unwrap();
        let at = UNIX_EPOCH + Duration::new(1_750_000_000, 123_456_789);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(at)
            .unwrap();
        let crc = |parts: &[&[u8]]| {
            let mut h = crc32fast::Hasher::new();
            parts.iter().for_each(|p| h.update(p));
            format!("{:08x}", h.finalize())
        };
        assert_eq!(
            FileStat::of(&path),
            FileStat {
                size: Some(10_000),
                modified: Some("2025-06-15T15:06:40Z".into()),
                modified_ns: Some(1_750_000_000_123_456_789),
                ends_crc32: Some(crc(&[&text[..4096], &text[10_000 - 4096..]])),
            }
        );
        std::fs::write(&path, b"short").unwrap();
        let stat = FileStat::of(&path);
        assert_eq!(stat.ends_crc32, Some(crc(&[b"short", b"short"])));
        assert_eq!(FileStat::of(&t.path().join("missing")), FileStat::default());
        let dir = FileStat::of(t.path());
        assert_eq!(dir.ends_crc32, None);
        assert!(dir.modified_ns.is_some());
    }

    #[test]
    fn lines_wrap_between_items_with_a_hanging_indent() {
        let mut t = Table::new(30);
        let items: Vec<String> = ["king_moved 2", "rook_moved 10", "in_check 1"]
            .map(String::from)
            .to_vec();
        t.items(2, "castling", &items);
        t.line(0, "Reports in a/very/long/folder/name/ — open it");
        assert_eq!(
            t.text,
            "  castling: king_moved 2,\n    rook_moved 10, in_check 1\n\
             Reports in\n  a/very/long/folder/name/ —\n  open it\n"
        );
    }

    /// summary.json's bytes, as every version of contract 2 wrote them:
    /// keys in the contract's order, two-space indentation, seconds to the
    /// millisecond, `interrupted` last and only where the run was.
    #[test]
    fn summary_json_bytes_are_pinned() {
        let mut s = Summary {
            games: 3,
            clean: 1,
            flagged: 1,
            incomplete: 1,
            notation_quirks: 4,
            bytes: 99,
            seconds: 1.234_56,
            threads: 2,
            sources: vec!["a.pgn".into()],
            options: Options {
                split: true,
                quirks: false,
                html: true,
                excel_safe: false,
                format: Format::Parquet,
                max_window: 128,
                fix: true,
            },
            source_details: vec![SourceDetail {
                name: "a.pgn".into(),
                size: None,
                modified: Some("2001-09-09T01:46:40Z".into()),
                bytes: 99,
                games: 3,
                error: Some("read error: cut".into()),
                modified_ns: Some(1_000_000_000_123_456_789),
                ends_crc32: Some("0badcafe".into()),
            }],
            interrupted: true,
            ..Summary::default()
        };
        s.castling[0] = 2;
        s.claims[6] = 1;
        s.missed_draws[2] = 5;
        s.errors[5] = 1;
        s.results[4] = 7;
        s.corrected = 2;
        let expected = format!(
            r#"{{
  "games": 3,
  "clean": 1,
  "flagged": 1,
  "incomplete": 1,
  "castling": {{
    "king_moved": 2,
    "rook_moved": 0,
    "rook_captured": 0,
    "no_right_in_fen": 0,
    "king_displaced": 0,
    "rook_displaced": 0,
    "no_rook": 0,
    "path_blocked": 0,
    "in_check": 0,
    "through_check": 0,
    "into_check": 0
  }},
  "claims": {{
    "valid": 0,
    "valid_on_announced_move": 0,
    "false_castling_rights": 0,
    "false_en_passant": 0,
    "false_side_to_move": 0,
    "false_not_repeated": 0,
    "false_fifty_moves": 1
  }},
  "missed_draws": {{
    "fivefold": 0,
    "seventy_five_moves": 0,
    "dead_position": 5
  }},
  "errors": {{
    "illegal_move": 0,
    "ambiguous_move": 0,
    "unplayable_castle": 0,
    "bad_fen": 0,
    "unsupported_variant": 0,
    "parse_error": 1
  }},
  "notation_quirks": 4,
  "bytes": 99,
  "seconds": 1.235,
  "threads": 2,
  "sources": [
    "a.pgn"
  ],
  "results": {{
    "result_mismatch": 0,
    "checkmate_not_scored": 0,
    "stalemate_not_drawn": 0,
    "dead_position_not_drawn": 0,
    "timeout_without_mating_material": 7
  }},
  "version": "{VERSION}",
  "options": {{
    "split": true,
    "quirks": false,
    "html": true,
    "excel_safe": false,
    "format": "parquet",
    "max_window": 128,
    "fix": true
  }},
  "source_details": [
    {{
      "name": "a.pgn",
      "size": null,
      "modified": "2001-09-09T01:46:40Z",
      "bytes": 99,
      "games": 3,
      "error": "read error: cut",
      "modified_ns": 1000000000123456789,
      "ends_crc32": "0badcafe"
    }}
  ],
  "undecided": {{
    "dead_position": 0,
    "dead_position_not_drawn": 0,
    "timeout_without_mating_material": 0
  }},
  "helpmate_seconds": 0.0,
  "corrected": 2,
  "interrupted": true
}}
"#
        );
        assert_eq!(s.to_json().unwrap(), expected);
        s.interrupted = false;
        s.sources.clear();
        s.source_details.clear();
        let json = s.to_json().unwrap();
        assert!(json.contains("  \"source_details\": [],\n"), "{json}");
        assert!(json.ends_with("  \"corrected\": 2\n}\n"), "{json}");
        assert!(json.contains("  \"sources\": [],\n"), "{json}");
    }

    #[test]
    fn summary_json_reads_back_what_it_writes() {
        let s = Summary {
            games: 3,
            clean: 1,
            flagged: 1,
            incomplete: 1,
            bytes: 10,
            sources: vec!["a.pgn".into(), "-".into()],
            options: Options {
                split: true,
                quirks: false,
                html: true,
                excel_safe: false,
                format: Format::Parquet,
                max_window: 128,
                fix: false,
            },
            source_details: vec![
                SourceDetail {
                    name: "a.pgn".into(),
                    size: Some(7),
                    modified: Some("2001-09-09T01:46:40Z".into()),
                    bytes: 7,
                    games: 2,
                    error: Some("read error: cut".into()),
                    modified_ns: Some(-1),
                    ends_crc32: Some("00000000".into()),
                },
                SourceDetail {
                    name: "-".into(),
                    bytes: 3,
                    games: 1,
                    ..SourceDetail::default()
                },
            ],
            ..Summary::default()
        };
        let json = s.to_json().unwrap();
        assert_eq!(Summary::from_json(&json), Some(s.clone()));
        let piece = Summary {
            piece: Some(PieceInfo {
                source: "a.pgn".into(),
                start: 100,
                end: 200,
                length: Some(100),
                first: Some(7),
                seam: None,
                games: 2,
                lines: 40,
            }),
            ..s.clone()
        };
        assert_eq!(Summary::from_json(&piece.to_json().unwrap()), Some(piece));
        let mut no_version: serde_json::Value = serde_json::from_str(&json).unwrap();
        no_version.as_object_mut().unwrap().remove("version");
        assert_eq!(Summary::from_json(&no_version.to_string()), None);
    }
}
