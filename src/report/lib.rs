//! Ordered report writers: the five CSV files, summary.json, report.html
//! and the split PGN files, written into an output folder that is locked
//! and cleared first (`folder`), under temporary names renamed when complete,
//! summary.json last. [`merge`] joins the reports of several runs.

#![forbid(unsafe_code)]

pub(crate) mod folder;
pub mod html;
pub mod merge;
pub mod rows;
mod summary;

pub use summary::{Findings, Options, PieceInfo, SourceDetail, Summary, VERSION};

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use folder::{OutFolder, Temporary};

use pgn_audit_core::audit::{GameClass, GameReport, Written};
use pgn_audit_core::pgn::Tags;

/// The identity of a game in its source: the first columns of every row.
#[derive(Debug, Clone)]
pub struct GameId<'a> {
    pub source: &'a str,
    pub game: u64,
    pub offset: u64,
    /// The 1-based line of the game's first byte.
    pub line: u64,
    pub tags: &'a Tags,
}

/// The identity columns that start every row.
pub const IDENTITY: [&str; 12] = [
    "source", "game", "offset", "line", "event", "site", "date", "round", "white", "black",
    "result", "variant",
];

/// The CSV reports and their own columns (after the identity columns), as
/// the report contract fixes them.
pub const CSV_REPORTS: [(&str, &[&str]); 5] = [
    (
        "castling.csv",
        &[
            "ply",
            "move_number",
            "side",
            "san",
            "castle",
            "reasons",
            "detail",
            "fen",
        ],
    ),
    (
        "claims.csv",
        &[
            "claim",
            "claim_source",
            "verdict",
            "ply",
            "occurrences",
            "occurrences_ignoring_rights",
            "plies",
            "fen",
            "detail",
        ],
    ),
    ("missed_draws.csv", &["rule", "ply", "plies_after", "fen"]),
    ("errors.csv", &["ply", "san", "kind", "detail", "fen"]),
    (
        "results.csv",
        &["ply", "code", "recorded", "expected", "detail", "fen"],
    ),
];

/// quirks.csv (written with `--quirks`) and its own columns.
pub const QUIRKS_REPORT: (&str, &[&str]) = ("quirks.csv", &["ply", "san", "quirk", "move"]);

/// The header line of a CSV report, as written.
pub fn header_line(columns: &[&str]) -> String {
    let mut s = IDENTITY
        .iter()
        .chain(columns)
        .copied()
        .collect::<Vec<_>>()
        .join(",");
    s.push('\n');
    s
}

/// A report or output folder that cannot be written, said in one line:
/// `PATH: CAUSE`.
#[derive(Debug, thiserror::Error)]
#[error("{}: {cause}", path.display())]
pub struct OutputError {
    /// The file or folder.
    pub path: PathBuf,
    /// Why it cannot be written, for a person.
    pub cause: String,
    /// The error behind the cause, where there is one.
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl OutputError {
    /// An error that no other error caused.
    pub(crate) fn new(path: impl Into<PathBuf>, cause: impl Into<String>) -> OutputError {
        OutputError {
            path: path.into(),
            cause: cause.into(),
            source: None,
        }
    }

    /// An I/O error, its cause said without the "(os error N)" noise.
    pub(crate) fn io(path: impl Into<PathBuf>, e: io::Error) -> OutputError {
        OutputError {
            path: path.into(),
            cause: pgn_audit_input::io_cause(&e),
            source: Some(Box::new(e)),
        }
    }

    /// A CSV writer's error.
    fn csv(path: impl Into<PathBuf>, e: csv::Error) -> OutputError {
        OutputError {
            path: path.into(),
            cause: e.to_string(),
            source: Some(Box::new(e)),
        }
    }
}

pub(crate) fn out_err(path: &Path) -> impl Fn(io::Error) -> OutputError + '_ {
    move |e| OutputError::io(path, e)
}

fn csv_err(path: &Path) -> impl Fn(csv::Error) -> OutputError + '_ {
    move |e| OutputError::csv(path, e)
}

type CsvOut = csv::Writer<BufWriter<File>>;

/// Writes every report of a run, game by game, in input order.
pub struct Reports {
    dir: PathBuf,
    /// The reports opened under temporary names, in the order opened.
    pending: Vec<Temporary>,
    castling: CsvOut,
    claims: CsvOut,
    missed: CsvOut,
    errors: CsvOut,
    results: CsvOut,
    /// quirks.csv, with `--quirks`.
    quirks: Option<CsvOut>,
    split: Option<(BufWriter<File>, BufWriter<File>, bool, bool)>,
    /// report.html's collector; `None` with `--no-html`.
    html: Option<html::HtmlReport>,
    /// The counts of summary.json.
    pub summary: Summary,
    /// Last, so that the lock goes after the temporary files (dropped on
    /// an error) are gone.
    folder: OutFolder,
}

impl Reports {
    /// Claims the output folder (locked, cleared) and opens every report:
    /// clean.pgn and rejected.pgn with `split`, quirks.csv with `quirks`,
    /// report.html with `html`.
    pub fn create(
        dir: &Path,
        split: bool,
        quirks: bool,
        html: bool,
    ) -> Result<Reports, OutputError> {
        let mut writes: Vec<&str> = CSV_REPORTS.iter().map(|(name, _)| *name).collect();
        writes.push("summary.json");
        if quirks {
            writes.push(QUIRKS_REPORT.0);
        }
        if split {
            writes.extend(["clean.pgn", "rejected.pgn"]);
        }
        if html {
            writes.push("report.html");
        }
        let folder = OutFolder::claim(dir, &writes)?;
        let mut pending = Vec::new();
        let mut open_csv = |name: &str, columns: &[&str]| -> Result<CsvOut, OutputError> {
            let (temporary, file) = folder.create(name)?;
            let mut w = csv::Writer::from_writer(BufWriter::with_capacity(1 << 16, file));
            let header: Vec<&str> = IDENTITY.iter().chain(columns).copied().collect();
            w.write_record(&header).map_err(csv_err(temporary.done()))?;
            pending.push(temporary);
            Ok(w)
        };
        let [castling, claims, missed, errors, results] = CSV_REPORTS;
        let castling = open_csv(castling.0, castling.1)?;
        let claims = open_csv(claims.0, claims.1)?;
        let missed = open_csv(missed.0, missed.1)?;
        let errors = open_csv(errors.0, errors.1)?;
        let results = open_csv(results.0, results.1)?;
        let quirks = if quirks {
            Some(open_csv(QUIRKS_REPORT.0, QUIRKS_REPORT.1)?)
        } else {
            None
        };
        let split = if split {
            let mut open = |name: &str| -> Result<BufWriter<File>, OutputError> {
                let (temporary, file) = folder.create(name)?;
                pending.push(temporary);
                Ok(BufWriter::with_capacity(1 << 20, file))
            };
            Some((open("clean.pgn")?, open("rejected.pgn")?, false, false))
        } else {
            None
        };
        Ok(Reports {
            dir: dir.to_path_buf(),
            pending,
            castling,
            claims,
            missed,
            errors,
            results,
            quirks,
            split,
            html: html.then(html::HtmlReport::default),
            summary: Summary::default(),
            folder,
        })
    }

    /// Writes one game's rows (and its bytes, with `--split`).
    pub fn write_game(
        &mut self,
        id: &GameId,
        report: &GameReport,
        bytes: &[u8],
    ) -> Result<(), OutputError> {
        let class = report.class();
        self.summary.add_game(report, class);
        // Most games have no row: their identity is not even decoded.
        if !report.castling.is_empty()
            || !report.claims.is_empty()
            || !report.missed_draws.is_empty()
            || !report.results.is_empty()
            || report.error.is_some()
            || (self.quirks.is_some() && !report.quirks.is_empty())
        {
            self.write_rows(id, report, bytes)?;
        }
        if let Some((clean, rejected, clean_started, rejected_started)) = &mut self.split {
            let (file, started, name) = if class == GameClass::Clean {
                (clean, clean_started, "clean.pgn")
            } else {
                (rejected, rejected_started, "rejected.pgn")
            };
            let err = out_err_owned(self.dir.join(name));
            if *started {
                file.write_all(b"\n").map_err(&err)?;
            }
            *started = true;
            file.write_all(bytes).map_err(&err)?;
            if !bytes.ends_with(b"\n") && !bytes.ends_with(b"\r") {
                file.write_all(b"\n").map_err(&err)?;
            }
        }
        Ok(())
    }

    /// Writes the CSV and HTML rows of a game that has any.
    fn write_rows(
        &mut self,
        id: &GameId,
        report: &GameReport,
        bytes: &[u8],
    ) -> Result<(), OutputError> {
        let [event, site, date, round, white, black] = id.tags.identity(bytes);
        let game = id.game.to_string();
        let offset = id.offset.to_string();
        let line = id.line.to_string();
        let variant = pgn_audit_core::audit::start::variant_column(report, id.tags);
        let identity = [
            id.source,
            &game,
            &offset,
            &line,
            &event,
            &site,
            &date,
            &round,
            &white,
            &black,
            &id.tags.result,
            &variant,
        ];
        let dir = self.dir.clone();
        for c in &report.castling {
            let (ply, number) = (c.ply.to_string(), c.move_number.to_string());
            let side = if c.side.is_white() { "white" } else { "black" };
            let castle = match c.castle {
                shakmaty::CastlingSide::KingSide => "kingside",
                shakmaty::CastlingSide::QueenSide => "queenside",
            };
            let reasons = c.reasons.codes();
            let row = [
                &ply, &number, side, &c.san, castle, &reasons, &c.detail, &c.fen,
            ];
            write_row(
                &mut self.castling,
                &identity,
                &row,
                &dir.join("castling.csv"),
            )?;
            if let Some(h) = &mut self.html {
                h.add_castling(&joined(&identity, &row));
            }
        }
        for c in &report.claims {
            let ply = c.ply.to_string();
            let occ = c.occurrences.to_string();
            let loose = c.occurrences_ignoring_rights.to_string();
            let plies = c
                .plies
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(";");
            let row = [
                c.claim.code(),
                c.source.code(),
                c.verdict.code(),
                &ply,
                &occ,
                &loose,
                &plies,
                &c.fen,
                &c.detail,
            ];
            write_row(&mut self.claims, &identity, &row, &dir.join("claims.csv"))?;
            if let Some(h) = &mut self.html {
                h.add_claim(&joined(&identity, &row));
            }
        }
        for m in &report.missed_draws {
            let (ply, after) = (m.ply.to_string(), m.plies_after.to_string());
            let row = [m.rule.code(), &ply, &after, &m.fen];
            write_row(
                &mut self.missed,
                &identity,
                &row,
                &dir.join("missed_draws.csv"),
            )?;
            if let Some(h) = &mut self.html {
                h.add_missed_draw(&joined(&identity, &row));
            }
        }
        if let Some(e) = &report.error {
            let ply = e.ply.to_string();
            let row = [&ply, &e.san, e.kind.code(), &e.detail, &e.fen];
            write_row(&mut self.errors, &identity, &row, &dir.join("errors.csv"))?;
            if let Some(h) = &mut self.html {
                h.add_error(&joined(&identity, &row));
            }
        }
        for r in &report.results {
            let ply = r.ply.to_string();
            let row = [
                &ply,
                r.code.code(),
                &r.recorded,
                r.expected,
                &r.detail,
                &r.fen,
            ];
            write_row(&mut self.results, &identity, &row, &dir.join("results.csv"))?;
            if let Some(h) = &mut self.html {
                h.add_result(&joined(&identity, &row));
            }
        }
        if let Some(w) = &mut self.quirks {
            for q in &report.quirks {
                let ply = q.ply.to_string();
                let written = match q.written {
                    Written::Text(start, end) => written_text(&bytes[start as usize..end as usize]),
                    Written::CastlingRight(letter) => letter.to_string(),
                };
                let standard = q.standard.map(|san| san.to_string()).unwrap_or_default();
                let codes = q.codes.codes();
                let row = [ply.as_str(), &written, &codes, &standard];
                write_row(w, &identity, &row, &dir.join(QUIRKS_REPORT.0))?;
            }
        }
        Ok(())
    }

    /// Flushes every report, writes report.html, and gives every report its
    /// final name, summary.json last.
    pub fn finish(mut self) -> Result<Summary, OutputError> {
        for (w, name) in [
            (&mut self.castling, "castling.csv"),
            (&mut self.claims, "claims.csv"),
            (&mut self.missed, "missed_draws.csv"),
            (&mut self.errors, "errors.csv"),
            (&mut self.results, "results.csv"),
        ] {
            w.flush().map_err(out_err(&self.dir.join(name)))?;
        }
        if let Some(w) = &mut self.quirks {
            w.flush()
                .map_err(out_err(&self.dir.join(QUIRKS_REPORT.0)))?;
        }
        if let Some((clean, rejected, _, _)) = &mut self.split {
            clean
                .flush()
                .map_err(out_err(&self.dir.join("clean.pgn")))?;
            rejected
                .flush()
                .map_err(out_err(&self.dir.join("rejected.pgn")))?;
        }
        if let Some(h) = &self.html {
            let page = h.render(&self.summary);
            self.pending
                .push(self.folder.write("report.html", page.as_bytes())?);
        }
        // The writers hold the temporary files open until here.
        drop((
            self.castling,
            self.claims,
            self.missed,
            self.errors,
            self.results,
            self.quirks,
            self.split,
        ));
        let json = self.summary.to_json().map_err(|e| OutputError {
            path: self.folder.path("summary.json"),
            cause: e.to_string(),
            source: Some(Box::new(e)),
        })?;
        self.folder.finish(self.pending, &json)?;
        Ok(self.summary)
    }
}

fn out_err_owned(path: PathBuf) -> impl Fn(io::Error) -> OutputError {
    move |e| OutputError::io(&path, e)
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
    pgn_audit_core::pgn::decode_text(bytes)
        .chars()
        .take(80)
        .collect()
}

/// A row's identity columns and its own columns, as one row.
fn joined<'a>(identity: &[&'a str], row: &[&'a str]) -> Vec<&'a str> {
    identity.iter().chain(row).copied().collect()
}

fn write_row(
    w: &mut CsvOut,
    identity: &[&str],
    row: &[&str],
    path: &Path,
) -> Result<(), OutputError> {
    w.write_record(identity.iter().chain(row.iter()).map(|c| cell(c)))
        .map_err(csv_err(path))
}

/// A CSV cell as written: control characters (C0 but the tab, DEL, C1),
/// which binary bytes in a PGN file or a file name become, are written as
/// U+FFFD, so no cell holds raw binary bytes or a line end.
fn cell(text: &str) -> std::borrow::Cow<'_, [u8]> {
    let control = |c: char| c.is_control() && c != '\t';
    if text.chars().any(control) {
        let clean: String = text
            .chars()
            .map(|c| if control(c) { '\u{fffd}' } else { c })
            .collect();
        clean.into_bytes().into()
    } else {
        text.as_bytes().into()
    }
}
