//! pgn-audit's reports, written in input order into one output folder:
//! the five CSV reports (and quirks.csv), summary.json, report.html and the
//! split PGN files, under temporary names renamed when complete,
//! summary.json last, in a folder that is locked and cleared first.
//!
//! Entry points:
//! - [`Reports`]: a run's writers; [`Reports::create`], then
//!   [`Reports::write_game`] per game in input order, then
//!   [`Reports::finish`], which returns the run's [`Summary`];
//!   [`Reports::in_memory`] keeps the rows as Arrow tables instead
//!   ([`Reports::into_tables`]), for a program that runs the audit in its
//!   own process.
//! - [`merge()`]: joins the report folders of several runs (or of the
//!   pieces of one input) into one, as one run over their inputs writes it.
//! - [`HtmlReport`] and [`page_from_report_dir`]: report.html, from the
//!   rows as a run writes them or from a report folder.
//! - [`rows`]: one typed row per CSV report, with its file name and
//!   columns, to write and to read the reports; [`cells`]: the typed
//!   values of its cells, each code's text defined once.

#![forbid(unsafe_code)]

pub mod cells;
mod folder;
mod identities;
mod merge;
mod merge_error;
mod page;
pub mod rows;
mod summary;
pub mod table;

pub use merge::{MergeError, merge};
pub use page::{HtmlReport, OnPage, page_from_report_dir};
pub use summary::{ENDS, FileStat, Findings, Format, Options, PieceInfo, SourceDetail, Summary};
pub use table::{ArrowTable, Tables};

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use folder::{OutFolder, Temporary};
use pgn_audit_input::PathError;

use cells::{Plies, VariantColumn};
use rows::{
    CastlingRow, CellStyle, ClaimRow, CorrectionRow, ErrorRow, Identity, MissedDrawRow, QuirkRow,
    Record, ReportRow, ResultRow,
};

use pgn_audit_core::Tags;
use pgn_audit_core::audit::fix::{self, Correction};
use pgn_audit_core::audit::{GameClass, GameReport, Written};

/// The corrected database `--fix` writes (v4): every game, its result
/// corrected where the Laws contradict it.
pub(crate) const FIXED_PGN: &str = "fixed.pgn";

/// The identity of a game in its source: the first columns of every row.
#[derive(Debug, Clone)]
pub struct GameId<'a> {
    /// The source's name as given.
    pub source: &'a str,
    /// 1-based index of the game within its source.
    pub game: u64,
    /// Byte offset of the game's first byte in the decompressed source.
    pub offset: u64,
    /// The 1-based line of the game's first byte.
    pub line: u64,
    /// The game's tags.
    pub tags: &'a Tags,
}

/// The row reports every run writes, as their row types name them (in
/// CSV; [`table::file_name`] gives their Parquet names).
const CSV_FILES: [&str; 5] = [
    CastlingRow::FILE,
    ClaimRow::FILE,
    MissedDrawRow::FILE,
    ErrorRow::FILE,
    ResultRow::FILE,
];

/// `summary`'s JSON text, as written into `folder`'s summary.json.
pub(crate) fn summary_json(summary: &Summary, folder: &OutFolder) -> Result<String, PathError> {
    summary
        .to_json()
        .map_err(|e| PathError::caused(folder.path("summary.json"), e.to_string(), e))
}

pub(crate) fn out_err(path: &Path) -> impl Fn(io::Error) -> PathError + '_ {
    move |e| PathError::io(path, e)
}

fn csv_err(path: &Path) -> impl Fn(csv::Error) -> PathError + '_ {
    move |e| PathError::caused(path, e.to_string(), e)
}

/// One row report being written, under its temporary name: a CSV file,
/// or a Parquet file with `--format parquet`; or kept in memory.
enum CsvOut {
    /// A CSV report, its text cells written in `style`.
    Csv {
        out: csv::Writer<BufWriter<File>>,
        /// The report's final path, which its errors name.
        path: PathBuf,
        /// How its text cells are written.
        style: CellStyle,
    },
    /// A Parquet report: its cells the values themselves.
    Parquet(table::ParquetOut),
    /// A report kept in memory ([`Reports::in_memory`]): the values of its
    /// Parquet report, as Arrow batches.
    Memory(table::MemoryOut),
}

impl CsvOut {
    /// Opens the report of `R` in `folder` in `format` (a CSV report's
    /// header written).
    fn open<R: ReportRow>(
        folder: &OutFolder,
        pending: &mut Vec<Temporary>,
        (format, style): (Format, CellStyle),
    ) -> Result<CsvOut, PathError> {
        let name = table::file_name(R::FILE, format);
        let (temporary, file) = folder.create(&name)?;
        let path = folder.path(&name);
        let out = match format {
            Format::Csv => {
                let out = rows::writer::<R, _>(BufWriter::with_capacity(1 << 16, file))
                    .map_err(csv_err(temporary.done()))?;
                CsvOut::Csv { out, path, style }
            }
            Format::Parquet => CsvOut::Parquet(table::ParquetOut::new::<R>(file, path)?),
        };
        pending.push(temporary);
        Ok(out)
    }

    /// Writes one row.
    fn put(&mut self, row: &impl Record) -> Result<(), PathError> {
        match self {
            CsvOut::Csv { out, path, style } => {
                row.write_styled(out, *style).map_err(csv_err(path))
            }
            CsvOut::Parquet(out) => out.put(row),
            CsvOut::Memory(out) => {
                out.put(row);
                Ok(())
            }
        }
    }

    /// Completes the report: a CSV report flushed, a Parquet report's last
    /// rows and footer written.
    fn finish(self) -> Result<(), PathError> {
        match self {
            CsvOut::Csv { out, path, .. } => {
                let file = out
                    .into_inner()
                    .map_err(|e| PathError::io(&path, e.into_error()))?
                    .into_inner()
                    .map_err(|e| PathError::io(&path, e.into_error()))?;
                folder::close(file, &path)
            }
            CsvOut::Parquet(out) => out.finish(),
            CsvOut::Memory(_) => Ok(()),
        }
    }

    /// The rows of a report kept in memory; `None` for a file.
    fn into_table(self) -> Option<table::ArrowTable> {
        match self {
            CsvOut::Memory(out) => Some(out.finish()),
            CsvOut::Csv { .. } | CsvOut::Parquet(_) => None,
        }
    }
}

/// Writes `row` into `out`, and gives it to report.html's collector, if
/// any.
fn put(
    out: &mut CsvOut,
    html: &mut Option<page::HtmlReport>,
    row: &(impl Record + OnPage),
) -> Result<(), PathError> {
    out.put(row)?;
    if let Some(h) = html {
        row.add_to(h);
    }
    Ok(())
}

/// clean.pgn and rejected.pgn, with `--split`: each game's bytes as read,
/// games separated by an empty line.
struct Split {
    clean: SplitOut,
    rejected: SplitOut,
}

/// One split PGN file being written.
struct SplitOut {
    out: BufWriter<File>,
    /// Whether a game is written yet.
    started: bool,
    /// The file's final path, which its errors name.
    path: PathBuf,
}

impl SplitOut {
    fn open(
        folder: &OutFolder,
        pending: &mut Vec<Temporary>,
        name: &str,
    ) -> Result<SplitOut, PathError> {
        let (temporary, file) = folder.create(name)?;
        pending.push(temporary);
        Ok(SplitOut {
            out: BufWriter::with_capacity(1 << 20, file),
            started: false,
            path: folder.path(name),
        })
    }

    /// Writes a game's bytes, after an empty line where a game came before,
    /// ending its last line.
    fn put(&mut self, bytes: &[u8]) -> Result<(), PathError> {
        let err = out_err(&self.path);
        if self.started {
            self.out.write_all(b"\n").map_err(&err)?;
        }
        self.started = true;
        self.out.write_all(bytes).map_err(&err)?;
        if !bytes.ends_with(b"\n") && !bytes.ends_with(b"\r") {
            self.out.write_all(b"\n").map_err(&err)?;
        }
        Ok(())
    }

    /// Completes the file: flushed, on the disk and closed.
    fn finish(self) -> Result<(), PathError> {
        let file = self
            .out
            .into_inner()
            .map_err(|e| PathError::io(&self.path, e.into_error()))?;
        folder::close(file, &self.path)
    }
}

/// fixed.pgn and corrections.csv, with `--fix`.
struct Fix {
    fixed: SplitOut,
    corrections: CsvOut,
}

/// Writes every report of a run, game by game, in input order.
pub struct Reports {
    /// The reports opened under temporary names, in the order opened.
    pending: Vec<Temporary>,
    castling: CsvOut,
    claims: CsvOut,
    missed: CsvOut,
    errors: CsvOut,
    results: CsvOut,
    /// quirks.csv, with `--quirks`.
    quirks: Option<CsvOut>,
    split: Option<Split>,
    /// fixed.pgn and corrections.csv, with `--fix`.
    fix: Option<Fix>,
    /// report.html's collector; `None` with `--no-html`.
    html: Option<page::HtmlReport>,
    /// The counts of summary.json.
    pub summary: Summary,
    /// The output folder; `None` for reports kept in memory. Last, so
    /// that the lock goes after the temporary files (dropped on an error)
    /// are gone.
    folder: Option<OutFolder>,
}

/// The files a run with `options` writes into its folder: the row
/// reports (in its format) and summary.json, quirks with `--quirks`, the
/// split PGN files with `--split`, report.html unless `--no-html`.
fn run_files(options: Options) -> Vec<String> {
    let mut files: Vec<String> = CSV_FILES
        .iter()
        .map(|f| table::file_name(f, options.format))
        .collect();
    files.push("summary.json".to_owned());
    if options.quirks {
        files.push(table::file_name(QuirkRow::FILE, options.format));
    }
    if options.split {
        files.extend(["clean.pgn".to_owned(), "rejected.pgn".to_owned()]);
    }
    if options.fix {
        files.push(table::file_name(CorrectionRow::FILE, options.format));
        files.push(FIXED_PGN.to_owned());
    }
    if options.html {
        files.push("report.html".to_owned());
    }
    files
}

impl Reports {
    /// Claims the output folder (locked, cleared) and opens every report
    /// `options` asks for (summary.json records them): the row reports in
    /// its format (CSV text cells quoted with `excel_safe`), clean.pgn and
    /// rejected.pgn with `split`, quirks with `quirks`, report.html with
    /// `html`.
    pub fn create(dir: &Path, options: Options) -> Result<Reports, PathError> {
        let folder = OutFolder::claim(dir, &run_files(options))?;
        let mut pending = Vec::new();
        let f = (options.format, options.cell_style());
        let castling = CsvOut::open::<CastlingRow>(&folder, &mut pending, f)?;
        let claims = CsvOut::open::<ClaimRow>(&folder, &mut pending, f)?;
        let missed = CsvOut::open::<MissedDrawRow>(&folder, &mut pending, f)?;
        let errors = CsvOut::open::<ErrorRow>(&folder, &mut pending, f)?;
        let results = CsvOut::open::<ResultRow>(&folder, &mut pending, f)?;
        let quirks = match options.quirks {
            true => Some(CsvOut::open::<QuirkRow>(&folder, &mut pending, f)?),
            false => None,
        };
        let split = match options.split {
            true => Some(Split {
                clean: SplitOut::open(&folder, &mut pending, "clean.pgn")?,
                rejected: SplitOut::open(&folder, &mut pending, "rejected.pgn")?,
            }),
            false => None,
        };
        let fix = match options.fix {
            true => Some(Fix {
                corrections: CsvOut::open::<CorrectionRow>(&folder, &mut pending, f)?,
                fixed: SplitOut::open(&folder, &mut pending, FIXED_PGN)?,
            }),
            false => None,
        };
        Ok(Reports {
            pending,
            castling,
            claims,
            missed,
            errors,
            results,
            quirks,
            split,
            fix,
            html: options.html.then(page::HtmlReport::default),
            summary: Summary {
                options,
                ..Summary::default()
            },
            folder: Some(folder),
        })
    }

    /// The reports of a run kept in memory, no folder and no file (the
    /// Python package): each row report an Arrow table with the columns
    /// and values of its Parquet report, quirks with `quirks`. The
    /// summary's options say so: `format` parquet, no html, no split, no
    /// excel_safe.
    pub fn in_memory(quirks: bool) -> Reports {
        let options = Options {
            split: false,
            quirks,
            html: false,
            excel_safe: false,
            format: Format::Parquet,
            max_window: pgn_audit_input::MaxWindow::DEFAULT_MIB,
            fix: false,
        };
        Reports {
            pending: Vec::new(),
            castling: CsvOut::Memory(table::MemoryOut::new::<CastlingRow>()),
            claims: CsvOut::Memory(table::MemoryOut::new::<ClaimRow>()),
            missed: CsvOut::Memory(table::MemoryOut::new::<MissedDrawRow>()),
            errors: CsvOut::Memory(table::MemoryOut::new::<ErrorRow>()),
            results: CsvOut::Memory(table::MemoryOut::new::<ResultRow>()),
            quirks: options
                .quirks
                .then(|| CsvOut::Memory(table::MemoryOut::new::<QuirkRow>())),
            split: None,
            fix: None,
            html: None,
            summary: Summary {
                options,
                ..Summary::default()
            },
            folder: None,
        }
    }

    /// The counts and the tables of reports kept in memory
    /// ([`Reports::in_memory`]); `None` for reports written to a folder,
    /// which [`Reports::finish`] completes.
    pub fn into_tables(self) -> Option<(Summary, table::Tables)> {
        let tables = table::Tables {
            castling: self.castling.into_table()?,
            claims: self.claims.into_table()?,
            missed_draws: self.missed.into_table()?,
            results: self.results.into_table()?,
            errors: self.errors.into_table()?,
            quirks: match self.quirks {
                Some(out) => Some(out.into_table()?),
                None => None,
            },
        };
        Some((self.summary, tables))
    }

    /// Writes one game's rows (and its bytes, with `--split` and
    /// `--fix`; with `--fix`, its result corrected where the Laws
    /// contradict it).
    pub fn write_game(
        &mut self,
        id: &GameId,
        report: &GameReport,
        bytes: &[u8],
    ) -> Result<(), PathError> {
        let class = report.class();
        self.summary.add_game(report, class);
        // Only a game with a row can be corrected.
        let fixed = match self.fix {
            Some(_) => fix::fix_game(bytes, report),
            None => None,
        };
        // Most games have no row: their identity is not even decoded.
        if !report.castling.is_empty()
            || !report.claims.is_empty()
            || !report.missed_draws.is_empty()
            || !report.results.is_empty()
            || report.error.is_some()
            || (self.quirks.is_some() && !report.quirks.is_empty())
        {
            let correction = fixed.as_ref().map(|(c, _)| c);
            self.write_rows(id, report, bytes, correction)?;
        }
        if let Some(split) = &mut self.split {
            match class {
                GameClass::Clean => split.clean.put(bytes)?,
                _ => split.rejected.put(bytes)?,
            }
        }
        if let Some(out) = &mut self.fix {
            match &fixed {
                Some((_, corrected)) => {
                    self.summary.corrected += 1;
                    out.fixed.put(corrected)?;
                }
                None => out.fixed.put(bytes)?,
            }
        }
        Ok(())
    }

    /// Writes the CSV and HTML rows of a game that has any, and its
    /// correction's row where `--fix` made one.
    fn write_rows(
        &mut self,
        id: &GameId,
        report: &GameReport,
        bytes: &[u8],
        correction: Option<&Correction>,
    ) -> Result<(), PathError> {
        let [event, site, date, round, white, black] = id.tags.identity(bytes);
        let unsupported = pgn_audit_core::audit::start::unsupported_variant(report, id.tags);
        let variant = match &unsupported {
            Some(value) => VariantColumn::Unsupported(value.as_str()),
            None => VariantColumn::Known(report.variant),
        };
        let id = Identity {
            source: id.source,
            game: id.game,
            offset: id.offset,
            line: id.line,
            event: &event,
            site: &site,
            date: &date,
            round: &round,
            white: &white,
            black: &black,
            result: &id.tags.result,
            variant,
        };
        self.write_castling(&id, report)?;
        self.write_claims(&id, report)?;
        for m in &report.missed_draws {
            let row = MissedDrawRow {
                id: id.clone(),
                rule: m.rule,
                ply: m.ply,
                plies_after: m.plies_after,
                fen: &m.fen,
                basis: m.basis,
            };
            put(&mut self.missed, &mut self.html, &row)?;
        }
        self.write_error_and_results(&id, report)?;
        if let Some(out) = &mut self.quirks {
            write_quirks(out, &id, report, bytes)?;
        }
        if let (Some(out), Some(c)) = (&mut self.fix, correction) {
            out.corrections.put(&CorrectionRow {
                id: id.clone(),
                ply: c.ply,
                code: c.code,
                from: c.from.as_str(),
                to: c.to,
                detail: c.detail.as_str(),
            })?;
        }
        Ok(())
    }

    /// Writes a game's errors.csv row and results.csv rows.
    fn write_error_and_results(
        &mut self,
        id: &Identity<&str>,
        report: &GameReport,
    ) -> Result<(), PathError> {
        if let Some(e) = &report.error {
            let row = ErrorRow {
                id: id.clone(),
                ply: e.ply,
                san: &e.san,
                kind: e.kind,
                detail: &e.detail,
                fen: &e.fen,
            };
            put(&mut self.errors, &mut self.html, &row)?;
        }
        for r in &report.results {
            let row = ResultRow {
                id: id.clone(),
                ply: r.ply,
                code: r.code,
                recorded: &r.recorded,
                expected: r.expected,
                detail: &r.detail,
                fen: &r.fen,
                basis: r.basis,
            };
            put(&mut self.results, &mut self.html, &row)?;
        }
        Ok(())
    }

    /// Writes a game's castling.csv rows.
    fn write_castling(
        &mut self,
        id: &Identity<&str>,
        report: &GameReport,
    ) -> Result<(), PathError> {
        for c in &report.castling {
            let row = CastlingRow {
                id: id.clone(),
                ply: c.ply,
                move_number: c.move_number,
                side: c.side,
                san: &c.san,
                castle: c.castle,
                reasons: c.reasons,
                detail: &c.detail,
                fen: &c.fen,
            };
            put(&mut self.castling, &mut self.html, &row)?;
        }
        Ok(())
    }

    /// Writes a game's claims.csv rows.
    fn write_claims(&mut self, id: &Identity<&str>, report: &GameReport) -> Result<(), PathError> {
        for c in &report.claims {
            let row = ClaimRow {
                id: id.clone(),
                claim: c.claim,
                claim_source: c.source,
                verdict: c.verdict,
                ply: c.ply,
                occurrences: c.occurrences,
                occurrences_ignoring_rights: c.occurrences_ignoring_rights,
                plies: Plies(c.plies.clone()),
                fen: &c.fen,
                detail: &c.detail,
            };
            put(&mut self.claims, &mut self.html, &row)?;
        }
        Ok(())
    }

    /// Flushes every report, writes report.html, and gives every report its
    /// final name, summary.json last. Reports kept in memory are dropped:
    /// [`Reports::into_tables`] gives them.
    pub fn finish(mut self) -> Result<Summary, PathError> {
        let Some(folder) = self.folder.take() else {
            return Ok(self.summary);
        };
        for w in [
            self.castling,
            self.claims,
            self.missed,
            self.errors,
            self.results,
        ] {
            w.finish()?;
        }
        if let Some(w) = self.quirks {
            w.finish()?;
        }
        if let Some(split) = self.split {
            split.clean.finish()?;
            split.rejected.finish()?;
        }
        if let Some(Fix { fixed, corrections }) = self.fix {
            corrections.finish()?;
            fixed.finish()?;
        }
        if let Some(h) = &self.html {
            let page = h.render(&self.summary);
            self.pending
                .push(folder.write("report.html", page.as_bytes())?);
        }
        let json = summary_json(&self.summary, &folder)?;
        folder.finish(self.pending, &json)?;
        Ok(self.summary)
    }
}

/// Writes a game's quirks.csv rows.
fn write_quirks(
    out: &mut CsvOut,
    id: &Identity<&str>,
    report: &GameReport,
    bytes: &[u8],
) -> Result<(), PathError> {
    for q in &report.quirks {
        let san = match q.written {
            Written::Text(start, end) => written_text(&bytes[start as usize..end as usize]),
            Written::CastlingRight(letter) => letter.to_string(),
            Written::EnPassantSquare(square) => square.to_string(),
        };
        let standard = q.standard.map(|san| san.to_string()).unwrap_or_default();
        out.put(&QuirkRow {
            id: id.clone(),
            ply: q.ply,
            san: san.as_str(),
            quirk: q.codes,
            standard: &standard,
        })?;
    }
    Ok(())
}

/// Text of a game as written, for a person: decoded (UTF-8, or else
/// Windows-1252), at most 80 characters, as errors.csv cuts a token.
fn written_text(bytes: &[u8]) -> String {
    let bytes = &bytes[..bytes.len().min(320)];
    // A character cut at the end is left out, not decoded as Windows-1252.
    let bytes = match std::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_none() => &bytes[..e.valid_up_to()],
        _ => bytes,
    };
    pgn_audit_core::decode_text(bytes)
        .chars()
        .take(80)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header of every report a run writes is its row type's columns,
    /// and a row the run writes reads back as the row type.
    #[test]
    fn a_run_writes_the_row_types_columns() {
        let t = tempfile::tempdir().unwrap();
        let options = Options {
            quirks: true,
            fix: true,
            ..Options::default()
        };
        let reports = Reports::create(t.path(), options).unwrap();
        reports.finish().unwrap();
        fn header<R: ReportRow>(dir: &Path) {
            let text = std::fs::read_to_string(dir.join(R::FILE)).unwrap();
            let names: Vec<&str> = rows::columns::<R>().collect();
            assert_eq!(text, format!("{}\n", names.join(",")));
            rows::read::<R>(text.as_bytes(), |_| panic!("no row")).unwrap();
        }
        header::<CastlingRow>(t.path());
        header::<ClaimRow>(t.path());
        header::<MissedDrawRow>(t.path());
        header::<ErrorRow>(t.path());
        header::<ResultRow>(t.path());
        header::<QuirkRow>(t.path());
        header::<CorrectionRow>(t.path());
        let all = Options {
            split: true,
            quirks: true,
            html: true,
            excel_safe: false,
            format: Format::Csv,
            fix: true,
            ..Options::default()
        };
        assert_eq!(
            run_files(all),
            [
                "castling.csv",
                "claims.csv",
                "missed_draws.csv",
                "errors.csv",
                "results.csv",
                "summary.json",
                "quirks.csv",
                "clean.pgn",
                "rejected.pgn",
                "corrections.csv",
                "fixed.pgn",
                "report.html"
            ]
        );
    }
}
