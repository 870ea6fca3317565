//! `pgn-audit merge`: report folders made from disjoint inputs, merged into
//! the folder that one run over all those inputs, in the order given, would
//! have written. Rows of a source all live in one folder, or in the folders
//! of its consecutive pieces (`--piece`), so the merge is a concatenation
//! in folder order, a piece's `game`, `offset` and `line` counted on from
//! the pieces before it; the summary counts add up.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::folder::{OutFolder, Temporary};
pub use crate::merge_error::MergeError;
use crate::merge_error::fail;
use crate::page::{HtmlReport, OnPage};
use crate::rows::{
    self, CastlingRow, ClaimRow, CorrectionRow, ErrorRow, Identity, MissedDrawRow, QuirkRow,
    ReadError, ReportRow, ResultRow, column, position,
};
use crate::summary::VERSION;
use crate::table::{self, ParquetOut, RowReader};
use crate::{FIXED_PGN, Findings, Format, Options, PieceInfo, SourceDetail, Summary};
use pgn_audit_input::PathError;

/// The split PGN files, present in every folder or in none.
const SPLIT: [&str; 2] = ["clean.pgn", "rejected.pgn"];

/// One report folder, its summary read and its files checked; its rows
/// stay on disk until they are copied.
struct Shard {
    dir: PathBuf,
    summary: Summary,
    split: bool,
}

fn read(path: &Path) -> Result<Vec<u8>, MergeError> {
    fs::read(path).map_err(|e| PathError::io(path, e).into())
}

fn read_shard(dir: &Path) -> Result<Shard, MergeError> {
    if !dir.is_dir() {
        return Err(fail(dir, "not a report folder"));
    }
    let summary_path = dir.join("summary.json");
    if !summary_path.exists() {
        return Err(fail(
            &summary_path,
            "missing: not a complete pgn-audit report folder",
        ));
    }
    let text =
        String::from_utf8(read(&summary_path)?).map_err(|_| fail(&summary_path, "not UTF-8"))?;
    check_version(dir, &summary_path, &text)?;
    let summary = Summary::from_json(&text).ok_or_else(|| {
        fail(
            &summary_path,
            "not a summary of version 3 of the report contract",
        )
    })?;
    if summary.interrupted {
        return Err(fail(
            &summary_path,
            "the run was interrupted: its reports cover only part of its input",
        ));
    }
    let format = summary.options.format;
    check_header::<CastlingRow>(dir, format)?;
    check_header::<ClaimRow>(dir, format)?;
    check_header::<MissedDrawRow>(dir, format)?;
    check_header::<ErrorRow>(dir, format)?;
    check_header::<ResultRow>(dir, format)?;
    if summary.options.quirks {
        check_header::<QuirkRow>(dir, format)?;
    }
    if summary.options.fix {
        check_header::<CorrectionRow>(dir, format)?;
        let fixed = dir.join(FIXED_PGN);
        if !fixed.is_file() {
            return Err(fail(&fixed, "missing"));
        }
    }
    let present: Vec<bool> = SPLIT.iter().map(|n| dir.join(n).exists()).collect();
    let split = match present[..] {
        [true, true] => true,
        [false, false] => false,
        _ => {
            let missing = SPLIT[usize::from(present[0])];
            return Err(fail(&dir.join(missing), "missing (its pair is there)"));
        }
    };
    crate::identities::check(dir, &summary)?;
    Ok(Shard {
        dir: dir.to_path_buf(),
        summary,
        split,
    })
}

/// Checks that `dir`'s report of `R` in `format` starts with `R`'s header
/// line (CSV) or has `R`'s columns (Parquet).
fn check_header<R: ReportRow>(dir: &Path, format: Format) -> Result<(), MergeError> {
    let path = &dir.join(table::file_name(R::FILE, format));
    if !path.exists() {
        return Err(fail(path, "missing"));
    }
    if format == Format::Parquet {
        return table::check_schema::<R>(path).map_err(|cause| fail(path, cause));
    }
    let mut header = rows::columns::<R>().collect::<Vec<_>>().join(",");
    header.push('\n');
    let file = fs::File::open(path).map_err(|e| fail(path, pgn_audit_input::io_cause(&e)))?;
    let mut first = Vec::new();
    let most = u64::try_from(header.len()).unwrap_or(u64::MAX);
    io::BufRead::read_until(&mut io::BufReader::new(file).take(most), b'\n', &mut first)
        .map_err(|e| fail(path, pgn_audit_input::io_cause(&e)))?;
    if first != header.as_bytes() {
        return Err(fail(
            path,
            "its columns are not those of version 3 of the report contract",
        ));
    }
    Ok(())
}

/// Refuses a summary.json that another version of pgn-audit wrote: one
/// without `version` is of contract v1, one without `undecided` (which v3
/// added, with the helpmate analysis) of contract v2, one without
/// `corrected` (which v4 added, with `--fix`) of contract v3; one of another
/// version may judge games otherwise, so its rows cannot stand next to
/// this version's.
fn check_version(dir: &Path, path: &Path, text: &str) -> Result<(), MergeError> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| fail(path, format!("not JSON: {e}")))?;
    match v.get("version") {
        None => Err(fail(dir, "a report folder of contract v1 (no version)")),
        Some(_) if v.get("undecided").is_none() => Err(fail(
            dir,
            "a report folder of contract v2 (no undecided): audit its input again",
        )),
        Some(_) if v.get("corrected").is_none() => Err(fail(
            dir,
            "a report folder of contract v3 (no corrected): audit its input again",
        )),
        Some(serde_json::Value::String(found)) if found == VERSION => Ok(()),
        Some(found) => Err(fail(
            dir,
            format!(
                "written by pgn-audit {}, not by this version ({VERSION}): \
                 audit its input again",
                found.as_str().unwrap_or("of an unknown version")
            ),
        )),
    }
}

/// How a piece's rows are counted from the start of its source: what the
/// pieces before it add to `game`, `offset` and `line`, and its read
/// error's message as one run gives it.
#[derive(Debug, Default)]
struct Shift {
    games: u64,
    bytes: u64,
    lines: u64,
    /// The piece's read error: its message, and the message with the
    /// offset counted from the source's start.
    error: Option<(String, String)>,
}

/// What goes into the merged reports: a folder's rows, shifted when the
/// folder is a piece of its source.
struct Part<'a> {
    shard: &'a Shard,
    shift: Option<Shift>,
}

/// The message of a read error with its offset (`after N bytes`) moved on
/// by `by` bytes.
fn shifted(message: &str, by: u64) -> String {
    let Some(at) = message.find(" after ") else {
        return message.to_owned();
    };
    let rest = &message[at + 7..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match rest[..digits].parse::<u64>() {
        Ok(n) if rest[digits..].starts_with(" bytes") => format!(
            "{} after {}{}",
            &message[..at],
            n.saturating_add(by),
            &rest[digits..]
        ),
        _ => message.to_owned(),
    }
}

/// The source that pieces are joined into: its name, and the file as its
/// first piece saw it.
struct Whole<'a> {
    name: String,
    /// The first piece's folder, which a piece of another version is
    /// told apart from.
    first: &'a Shard,
    file: SourceDetail,
}

/// One piece of a source: its folder, its one source detail, and where in
/// the file it lies.
struct Piece<'a> {
    shard: &'a Shard,
    detail: SourceDetail,
    info: PieceInfo,
}

impl<'a> Piece<'a> {
    /// The piece in `shard`, refused unless its only source is `name`.
    fn of(shard: &'a Shard, name: &str) -> Result<Piece<'a>, MergeError> {
        let info = shard.summary.piece.clone().unwrap_or_default();
        match &shard.summary.source_details[..] {
            [d] if d.name == name => Ok(Piece {
                shard,
                detail: d.clone(),
                info,
            }),
            _ => Err(fail(&shard.dir, format!("not a piece of {name} alone"))),
        }
    }
}

/// The pieces of one source joined so far, up to a read error.
struct Joined<'a> {
    parts: Vec<Part<'a>>,
    summary: Summary,
    /// What the pieces joined so far add to the rows of the next.
    shift: Shift,
    /// The read error that ends the source, its offset counted from the
    /// source's start.
    error: Option<String>,
}

impl<'a> Joined<'a> {
    /// Joins `piece` after the pieces before it.
    fn add(&mut self, piece: &Piece<'a>) {
        let mut this = Shift {
            games: self.shift.games,
            bytes: self.shift.bytes,
            lines: self.shift.lines,
            error: None,
        };
        if let Some(e) = &piece.detail.error {
            let global = shifted(e, self.shift.bytes);
            this.error = Some((e.clone(), global.clone()));
            self.error = Some(global);
        }
        let summary = &piece.shard.summary;
        self.shift.games += summary.games;
        self.shift.bytes += summary.bytes;
        self.shift.lines += piece.info.lines;
        self.summary.merge(summary);
        self.parts.push(Part {
            shard: piece.shard,
            shift: Some(this),
        });
    }
}

/// Joins the pieces of one source (`pieces`, in order) into its parts and
/// the summary of one run over it. They must tile the file (the first
/// starts at 0, each starts where the one before ends, the last ends at
/// the file's end), come from one version of the file, and meet at their
/// seams. A read error ends the source in the piece that has it: the
/// pieces after it are left out, as one run reads no further.
fn join_pieces<'a>(pieces: &[&'a Shard]) -> Result<(Vec<Part<'a>>, Summary), MergeError> {
    let first = pieces[0];
    let name = first.summary.piece.clone().unwrap_or_default().source;
    let file = Piece::of(first, &name)?.detail;
    let whole = Whole { name, first, file };
    let mut joined = Joined {
        parts: Vec::new(),
        summary: Summary {
            options: first.summary.options,
            ..Summary::default()
        },
        shift: Shift::default(),
        error: None,
    };
    let mut before: Option<Piece> = None;
    for &shard in pieces {
        let piece = Piece::of(shard, &whole.name)?;
        check_follows(&whole, &piece, before.as_ref())?;
        if joined.error.is_none() {
            check_seam(&whole.name, &piece, before.as_ref())?;
            joined.add(&piece);
        }
        before = Some(piece);
    }
    if let Some(last) = &before {
        check_ends(&whole, last)?;
    }
    let Whole { name, file, .. } = whole;
    let mut summary = joined.summary;
    summary.sources = vec![name];
    summary.source_details = vec![SourceDetail {
        bytes: joined.shift.bytes,
        games: joined.shift.games,
        error: joined.error,
        ..file
    }];
    summary.piece = None;
    Ok((joined.parts, summary))
}

/// Refuses a piece of another version of the file than the first piece
/// saw (its size, its modification time to the nanosecond, or the CRC-32
/// of its first and last bytes differ) or one that does not start where
/// the piece `before` it ends (at 0 for the first).
fn check_follows(whole: &Whole, piece: &Piece, before: Option<&Piece>) -> Result<(), MergeError> {
    let (name, file, d, this) = (&whole.name, &whole.file, &piece.detail, &piece.info);
    let dir = &piece.shard.dir;
    let differs = if d.size != file.size {
        Some("its size differs")
    } else if (&d.modified, d.modified_ns) != (&file.modified, file.modified_ns) {
        Some("its modification time differs")
    } else if d.ends_crc32 != file.ends_crc32 {
        Some("its first or last bytes differ")
    } else {
        None
    };
    if let Some(differs) = differs {
        return Err(fail(
            dir,
            format!(
                "a piece of another version of {name} than {} ({differs})",
                whole.first.dir.display()
            ),
        ));
    }
    match before {
        None if this.start != 0 => {
            return Err(fail(
                dir,
                format!(
                    "the first piece of {name} starts at {}, not 0: a piece is missing",
                    this.start
                ),
            ));
        }
        Some(prev) if prev.info.end != this.start => {
            let p = &prev.info;
            return Err(fail(
                dir,
                format!(
                    "piece {}..{} of {name} does not follow piece {}..{} ({}): pieces must be contiguous and all present",
                    this.start,
                    this.end,
                    p.start,
                    p.end,
                    prev.shard.dir.display()
                ),
            ));
        }
        _ => {}
    }
    Ok(())
}

/// Refuses a piece that starts reading at another game than where the
/// piece `before` it stopped reading.
fn check_seam(name: &str, piece: &Piece, before: Option<&Piece>) -> Result<(), MergeError> {
    if let Some(prev) = before {
        let (p, this) = (&prev.info, &piece.info);
        let reached = p.seam.zip(p.length).and_then(|(q, l)| q.checked_sub(l));
        if reached.is_none() || reached != this.first {
            return Err(fail(
                &piece.shard.dir,
                format!(
                    "piece {}..{} of {name} starts reading at its first game ({}) where piece {}..{} ({}) did not stop ({}): the seam does not match",
                    this.start,
                    this.end,
                    opt(this.first),
                    p.start,
                    p.end,
                    prev.shard.dir.display(),
                    opt(reached)
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses pieces whose `last` does not end at the file's end.
fn check_ends(whole: &Whole, last: &Piece) -> Result<(), MergeError> {
    if Some(last.info.end) != whole.file.size {
        return Err(fail(
            &last.shard.dir,
            format!(
                "the last piece of {} ends at {}, but the file has {} bytes: a piece is missing",
                whole.name,
                last.info.end,
                opt(whole.file.size)
            ),
        ));
    }
    Ok(())
}

/// A number, or `none`.
fn opt(n: Option<u64>) -> String {
    n.map_or_else(|| "none".to_owned(), |n| n.to_string())
}

/// A merged report being written, in the folders' format.
enum MergedOut {
    Csv(csv::Writer<io::BufWriter<fs::File>>),
    Parquet(ParquetOut),
}

impl MergedOut {
    /// Writes one row, given by its cells.
    fn put(&mut self, record: &csv::ByteRecord) -> Result<(), String> {
        match self {
            MergedOut::Csv(out) => out.write_byte_record(record).map_err(|e| e.to_string()),
            MergedOut::Parquet(out) => out.put_record(record),
        }
    }

    /// Completes the report.
    fn finish(self, done: &Path) -> Result<(), MergeError> {
        match self {
            MergedOut::Csv(out) => {
                let file = out
                    .into_inner()
                    .map_err(|e| fail(done, e.error().to_string()))?
                    .into_inner()
                    .map_err(|e| fail(done, pgn_audit_input::io_cause(e.error())))?;
                Ok(crate::folder::close(file, done)?)
            }
            MergedOut::Parquet(out) => Ok(out.finish()?),
        }
    }
}

/// The merged report being written: its writer, and what the table and
/// report.html take from its rows.
struct Copy<'a> {
    out: MergedOut,
    format: Format,
    findings: &'a mut Findings,
    page: Option<&'a mut HtmlReport>,
    /// The (source, game) of the last castling row, to count games.
    last_game: Option<(Vec<u8>, Vec<u8>)>,
    /// The folders were written with `--excel-safe`: the page shows their
    /// cells without the `'` before a formula, as a run's page does.
    excel_safe: bool,
    /// Set by a signal: the copy stops.
    stop: &'a AtomicBool,
}

/// The identity columns that a piece's rows count on from the pieces
/// before it.
const GAME: usize = position(<Identity>::COLUMNS, "game");
const OFFSET: usize = position(<Identity>::COLUMNS, "offset");
const LINE: usize = position(<Identity>::COLUMNS, "line");
const SOURCE: usize = position(<Identity>::COLUMNS, "source");

/// A report as merge copies it: what its rows add to the table and the
/// page.
trait Merged: ReportRow + OnPage {
    /// The column of a read error's message that a piece's offset moves on.
    const BROKEN_OFF_DETAIL: Option<usize> = None;

    /// Counts a merged row, read from `line` of `path`, for the table and
    /// report.html.
    fn count(
        copy: &mut Copy,
        path: &Path,
        record: &csv::ByteRecord,
        line: u64,
    ) -> Result<(), MergeError> {
        copy.show::<Self>(path, record, line)
    }
}

impl Merged for CastlingRow {
    fn count(
        copy: &mut Copy,
        path: &Path,
        record: &csv::ByteRecord,
        line: u64,
    ) -> Result<(), MergeError> {
        let game = (record[SOURCE].to_vec(), record[GAME].to_vec());
        copy.findings.castles += 1;
        if copy.last_game.as_ref() != Some(&game) {
            copy.findings.castle_games += 1;
            copy.last_game = Some(game);
        }
        copy.show::<Self>(path, record, line)
    }
}

impl Merged for ClaimRow {
    fn count(
        copy: &mut Copy,
        path: &Path,
        record: &csv::ByteRecord,
        line: u64,
    ) -> Result<(), MergeError> {
        let row: ClaimRow = typed(path, record, line)?;
        copy.findings.add_claim(row.claim_source, row.verdict);
        if copy.page.is_some() {
            let row = copy.as_read(row);
            if let Some(page) = copy.page.as_deref_mut() {
                page.add_claim(&row);
            }
        }
        Ok(())
    }
}

impl Merged for MissedDrawRow {}

impl Merged for ErrorRow {
    const BROKEN_OFF_DETAIL: Option<usize> = Some(column::<ErrorRow>("detail"));
}

impl Merged for ResultRow {}

/// corrections.csv: counted in summary.json's `corrected`, not shown row
/// by row.
impl Merged for CorrectionRow {
    fn count(_: &mut Copy, _: &Path, _: &csv::ByteRecord, _: u64) -> Result<(), MergeError> {
        Ok(())
    }
}

/// quirks.csv: neither counted nor shown.
impl Merged for QuirkRow {
    fn count(_: &mut Copy, _: &Path, _: &csv::ByteRecord, _: u64) -> Result<(), MergeError> {
        Ok(())
    }
}

/// A merged row of `R`, read from `line` of `path`, typed; an error naming
/// the file and the line where it does not fit `R` (merge's check of the
/// folders reads every row so before the output folder is touched).
fn typed<R: ReportRow>(path: &Path, record: &csv::ByteRecord, line: u64) -> Result<R, MergeError> {
    rows::from_record(record, line).map_err(|e| match e {
        ReadError::Row { line, cause, .. } => fail(path, format!("line {line}: {cause}")),
        e => fail(path, e.to_string()),
    })
}

impl Copy<'_> {
    /// Copies the rows of `path` (a report of `R`), shifted by `shift`,
    /// checking each: its width, and the identity numbers it shifts.
    fn rows<R: Merged>(&mut self, path: &Path, shift: Option<&Shift>) -> Result<(), MergeError> {
        let mut reader = RowReader::open::<R>(path, self.format).map_err(|e| fail(path, e))?;
        let mut record = csv::ByteRecord::new();
        // A CSV report's header is its row 1; a Parquet file has none.
        let mut row = u64::from(self.format == Format::Csv);
        while reader.read(&mut record).map_err(|e| fail(path, e))? {
            if self.stop.load(Ordering::Relaxed) {
                return Err(MergeError::Interrupted);
            }
            row += 1;
            let line = record.position().map_or(row, csv::Position::line);
            if record.len() != R::WIDTH {
                return Err(fail(
                    path,
                    format!("row {row} has {} fields, not {}", record.len(), R::WIDTH),
                ));
            }
            self.row::<R>(&record, shift, path, (row, line))?;
        }
        Ok(())
    }

    /// Copies one row of `path` (row `row` of its file, on its line
    /// `line`), shifted by `shift`, and counts it.
    fn row<R: Merged>(
        &mut self,
        record: &csv::ByteRecord,
        shift: Option<&Shift>,
        path: &Path,
        (row, line): (u64, u64),
    ) -> Result<(), MergeError> {
        let shifted;
        let record = match shift {
            Some(shift) => {
                shifted = shifted_record::<R>(record, shift, path, row)?;
                &shifted
            }
            None => record,
        };
        R::count(self, path, record, line)?;
        self.out.put(record).map_err(|cause| fail(path, cause))
    }

    /// Adds a merged row, read from `line` of `path`, to report.html,
    /// when there is one.
    fn show<R: ReportRow + OnPage>(
        &mut self,
        path: &Path,
        record: &csv::ByteRecord,
        line: u64,
    ) -> Result<(), MergeError> {
        if self.page.is_some() {
            let row = self.as_read(typed::<R>(path, record, line)?);
            if let Some(page) = self.page.as_deref_mut() {
                row.add_to(page);
            }
        }
        Ok(())
    }

    /// A row's text as a run read it: with `--excel-safe`, without the `'`
    /// before a formula, as the run's page shows it.
    fn as_read<R: ReportRow>(&self, row: R) -> R {
        match self.excel_safe {
            true => row.with_text(&|s| rows::unquoted(s).to_owned()),
            false => row,
        }
    }
}

/// A piece's row of `R` counted from the start of its source: `game`,
/// `offset` and `line` moved on, and a read error's offset in its detail.
fn shifted_record<R: Merged>(
    record: &csv::ByteRecord,
    shift: &Shift,
    path: &Path,
    row: u64,
) -> Result<csv::ByteRecord, MergeError> {
    let mut moved = csv::ByteRecord::with_capacity(record.as_slice().len() + 16, R::WIDTH);
    for (i, field) in record.iter().enumerate() {
        let by = match i {
            GAME => Some(shift.games),
            OFFSET => Some(shift.bytes),
            LINE => Some(shift.lines),
            _ => None,
        };
        match by {
            Some(by) => {
                let n = std::str::from_utf8(field)
                    .ok()
                    .and_then(|t| t.parse::<u64>().ok())
                    .ok_or_else(|| {
                        fail(
                            path,
                            format!("row {row}: {} is not a number", <Identity>::COLUMNS[i]),
                        )
                    })?;
                moved.push_field((n + by).to_string().as_bytes());
            }
            None if Some(i) == R::BROKEN_OFF_DETAIL => {
                let cut = shift.error.as_ref().and_then(|(local, global)| {
                    (field == format!("{BROKEN_OFF}{local}").as_bytes())
                        .then(|| format!("{BROKEN_OFF}{global}"))
                });
                moved.push_field(cut.as_deref().map_or(field, str::as_bytes));
            }
            None => moved.push_field(field),
        }
    }
    Ok(moved)
}

/// What writing the merged reports needs: the folder, the parts in order,
/// the options, and the flag a signal sets.
struct Writing<'a> {
    folder: &'a OutFolder,
    parts: &'a [Part<'a>],
    options: Options,
    stop: &'a AtomicBool,
}

impl Writing<'_> {
    /// Refuses to go on once a signal came: the merge ends with
    /// [`MergeError::Interrupted`], and its temporary files go with it.
    fn go_on(&self) -> Result<(), MergeError> {
        match self.stop.load(Ordering::Relaxed) {
            true => Err(MergeError::Interrupted),
            false => Ok(()),
        }
    }
}

/// Writes the merged report of `R`: its header, then the rows of every
/// part in order.
fn merge_report<R: Merged>(
    writing: &Writing,
    written: &mut Vec<Temporary>,
    findings: &mut Findings,
    page: Option<&mut HtmlReport>,
) -> Result<(), MergeError> {
    let format = writing.options.format;
    let name = table::file_name(R::FILE, format);
    let (temporary, file) = writing.folder.create(&name)?;
    let done = temporary.done().to_path_buf();
    written.push(temporary);
    let out = match format {
        Format::Csv => MergedOut::Csv(
            rows::writer::<R, _>(io::BufWriter::with_capacity(1 << 16, file))
                .map_err(|e| fail(&done, e.to_string()))?,
        ),
        Format::Parquet => MergedOut::Parquet(ParquetOut::new::<R>(file, done.clone())?),
    };
    let mut copy = Copy {
        out,
        format,
        findings,
        page,
        last_game: None,
        excel_safe: writing.options.excel_safe,
        stop: writing.stop,
    };
    for part in writing.parts {
        copy.rows::<R>(&part.shard.dir.join(&name), part.shift.as_ref())?;
    }
    copy.out.finish(&done)
}

/// How the detail of a game that a read error broke off begins.
const BROKEN_OFF: &str = "the input breaks off in this game: ";

/// Merges `dirs`, in order, into `out`. Returns the merged summary. The
/// rows are streamed from the folders to the merged reports, so the memory
/// it takes does not grow with their size.
///
/// Every folder is read and checked (its identities too) before `out`
/// is touched; `begin` is called then, just before the output folder is
/// claimed (a signal handler that ends the process at once before that
/// point moves on to setting `stop` from there). Once `stop` is set, the
/// merge ends with [`MergeError::Interrupted`], its temporary files
/// removed and no summary.json written.
pub fn merge(
    dirs: &[PathBuf],
    out: &Path,
    begin: impl FnOnce(),
    stop: &AtomicBool,
) -> Result<Summary, MergeError> {
    let shards = dirs
        .iter()
        .map(|d| read_shard(d))
        .collect::<Result<Vec<_>, _>>()?;
    let Sources { parts, summaries } = join_sources(&shards)?;
    check_disjoint(&summaries)?;
    let split = check_alike(&shards, out)?;
    let options = shards[0].summary.options;
    let mut summary = Summary {
        options,
        ..Summary::default()
    };
    for (_, s) in &summaries {
        summary.merge(s);
    }
    begin();
    let folder = OutFolder::claim(out, &merged_files(options, split))?;
    let json = crate::summary_json(&summary, &folder)?;
    let writing = Writing {
        folder: &folder,
        parts: &parts,
        options,
        stop,
    };
    let mut written = Vec::new();
    let mut findings = Findings::default();
    let mut page = options.html.then(HtmlReport::default);
    let (w, f) = (&mut written, &mut findings);
    merge_report::<CastlingRow>(&writing, w, f, page.as_mut())?;
    merge_report::<ClaimRow>(&writing, w, f, page.as_mut())?;
    merge_report::<MissedDrawRow>(&writing, w, f, page.as_mut())?;
    merge_report::<ErrorRow>(&writing, w, f, page.as_mut())?;
    merge_report::<ResultRow>(&writing, w, f, page.as_mut())?;
    if options.quirks {
        merge_report::<QuirkRow>(&writing, w, f, page.as_mut())?;
    }
    if split {
        for name in SPLIT {
            writing.go_on()?;
            merge_split(&folder, name, &parts, w)?;
        }
    }
    if options.fix {
        merge_report::<CorrectionRow>(&writing, w, f, None)?;
        writing.go_on()?;
        merge_split(&folder, FIXED_PGN, &parts, w)?;
    }
    if let Some(page) = page {
        writing.go_on()?;
        let path = folder.path("report.html");
        let merged = Summary::from_json(&json)
            .ok_or_else(|| fail(&path, "summary.json cannot be read back"))?;
        written.push(folder.write("report.html", page.render(&merged).as_bytes())?);
    }
    writing.go_on()?;
    folder.finish(written, &json)?;
    summary.findings = findings;
    Ok(summary)
}

/// The folders to merge, joined by source: the parts of the merge, in
/// order, and the summary of each folder or source (named by its first
/// folder).
struct Sources<'a> {
    parts: Vec<Part<'a>>,
    summaries: Vec<(&'a Path, Summary)>,
}

/// Joins consecutive pieces of one source into one; other folders are
/// taken as they are.
fn join_sources(shards: &[Shard]) -> Result<Sources<'_>, MergeError> {
    let mut parts: Vec<Part> = Vec::new();
    let mut summaries: Vec<(&Path, Summary)> = Vec::new();
    let mut k = 0;
    while k < shards.len() {
        let Some(piece) = &shards[k].summary.piece else {
            parts.push(Part {
                shard: &shards[k],
                shift: None,
            });
            summaries.push((&shards[k].dir, shards[k].summary.clone()));
            k += 1;
            continue;
        };
        let n = shards[k..]
            .iter()
            .take_while(|s| {
                s.summary
                    .piece
                    .as_ref()
                    .is_some_and(|p| p.source == piece.source)
            })
            .count();
        let group: Vec<&Shard> = shards[k..k + n].iter().collect();
        let (joined, summary) = join_pieces(&group)?;
        parts.extend(joined);
        summaries.push((&shards[k].dir, summary));
        k += n;
    }
    Ok(Sources { parts, summaries })
}

/// Refuses folders that share a source.
fn check_disjoint(summaries: &[(&Path, Summary)]) -> Result<(), MergeError> {
    let mut seen: HashMap<&str, &Path> = HashMap::new();
    for (dir, summary) in summaries {
        for source in &summary.sources {
            if let Some(first) = seen.insert(source, dir) {
                return Err(fail(
                    dir,
                    format!(
                        "source {source} is also in {}: the folders overlap",
                        first.display()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Refuses folders written otherwise than the first (split files, options)
/// and a folder that is also `out`. Returns whether they have split files.
fn check_alike(shards: &[Shard], out: &Path) -> Result<bool, MergeError> {
    let with_split = shards.iter().filter(|s| s.split).count();
    if with_split != 0 && with_split != shards.len() {
        let odd = shards.iter().find(|s| !s.split).map_or(out, |s| &s.dir);
        return Err(fail(
            odd,
            "has no clean.pgn and rejected.pgn while other folders have them",
        ));
    }
    let options = shards[0].summary.options;
    if let Some(odd) = shards.iter().find(|s| s.summary.options != options) {
        return Err(fail(
            &odd.dir,
            format!(
                "written with other options than {} ({}): merge folders written with the same options",
                shards[0].dir.display(),
                options_differ(options, odd.summary.options)
            ),
        ));
    }
    // Told by device and inode, not by path: a bind mount of a folder is
    // that folder under another path.
    if let Some(out_id) = folder_id(out)
        && let Some(s) = shards.iter().find(|s| folder_id(&s.dir) == Some(out_id))
    {
        return Err(fail(&s.dir, "is also the output folder"));
    }
    Ok(with_split != 0)
}

/// The device and inode of the folder at `path`, where it exists: one
/// folder, whatever path names it.
fn folder_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The files a merge writes: those of a run with `options`, summary.json
/// last.
fn merged_files(options: Options, split: bool) -> Vec<String> {
    let mut names = vec![
        CastlingRow::FILE,
        ClaimRow::FILE,
        MissedDrawRow::FILE,
        ErrorRow::FILE,
        ResultRow::FILE,
    ];
    if options.quirks {
        names.push(QuirkRow::FILE);
    }
    if options.fix {
        names.push(CorrectionRow::FILE);
    }
    let mut names: Vec<String> = names
        .into_iter()
        .map(|n| table::file_name(n, options.format))
        .collect();
    if split {
        names.extend(SPLIT.map(str::to_owned));
    }
    if options.fix {
        names.push(FIXED_PGN.to_owned());
    }
    if options.html {
        names.push("report.html".to_owned());
    }
    names.push("summary.json".to_owned());
    names
}

/// Writes the merged PGN file `name` (clean.pgn, rejected.pgn, fixed.pgn):
/// the parts' files in order, an empty line between two that are not
/// empty.
fn merge_split(
    folder: &OutFolder,
    name: &str,
    parts: &[Part],
    written: &mut Vec<Temporary>,
) -> Result<(), MergeError> {
    let (temporary, file) = folder.create(name)?;
    let done = temporary.done().to_path_buf();
    written.push(temporary);
    let mut w = io::BufWriter::with_capacity(1 << 20, file);
    let mut started = false;
    for part in parts {
        let path = part.shard.dir.join(name);
        let mut f =
            fs::File::open(&path).map_err(|e| fail(&path, pgn_audit_input::io_cause(&e)))?;
        let size = f
            .metadata()
            .map_err(|e| fail(&path, pgn_audit_input::io_cause(&e)))?
            .len();
        if size == 0 {
            continue;
        }
        let put = |r: io::Result<u64>| {
            r.map(drop)
                .map_err(|e| fail(&done, pgn_audit_input::io_cause(&e)))
        };
        if started {
            put(w.write_all(b"\n").map(|()| 1))?;
        }
        started = true;
        put(io::copy(&mut f, &mut w))?;
    }
    let file = w
        .into_inner()
        .map_err(|e| fail(&done, pgn_audit_input::io_cause(e.error())))?;
    Ok(crate::folder::close(file, &done)?)
}

/// Which options differ: `--split here, not there`, `--format parquet
/// here, csv there`, `--max-window 256 here, 128 there`.
fn options_differ(there: Options, here: Options) -> String {
    let name = |f: Format| match f {
        Format::Csv => "csv",
        Format::Parquet => "parquet",
    };
    let format = (here.format != there.format).then(|| {
        format!(
            "--format {} here, {} there",
            name(here.format),
            name(there.format)
        )
    });
    let mut differ: Vec<String> = [
        ("--split", here.split, there.split),
        ("--quirks", here.quirks, there.quirks),
        ("--no-html", !here.html, !there.html),
        ("--excel-safe", here.excel_safe, there.excel_safe),
        ("--fix", here.fix, there.fix),
    ]
    .iter()
    .filter(|(_, a, b)| a != b)
    .map(|(flag, a, _)| {
        if *a {
            format!("{flag} here, not there")
        } else {
            format!("{flag} there, not here")
        }
    })
    .chain(format)
    .collect();
    if here.max_window != there.max_window {
        differ.push(format!(
            "--max-window {} here, {} there",
            here.max_window, there.max_window
        ));
    }
    differ.join(", ")
}
