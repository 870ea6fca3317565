//! The identities that every report folder keeps, checked before `merge`
//! takes a folder: every game is exactly one of clean, flagged or
//! incomplete (`games = clean + flagged + incomplete`), the sources add up
//! to the totals, each count of summary.json is what its report's rows
//! count, and the rows are in input order. A folder that breaks one was
//! edited or damaged after its run, and merging it would give reports
//! that say one thing in summary.json and another in their rows.
//!
//! The rows are read as a stream: the reports are sorted by source and
//! game, so they are walked side by side, one game at a time, and the
//! memory taken does not grow with them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::Format;
use crate::merge_error::{MergeError, fail};
use crate::rows::{
    self, CastlingRow, ClaimRow, CorrectionRow, ErrorRow, Identity, MissedDrawRow, QuirkRow,
    ReadError, ReportRow, ResultRow, position,
};
use crate::summary::Summary;
use crate::table::{self, RowReader};
use pgn_audit_core::audit::{CastlingReason, ClaimVerdict, DrawRule, ErrorKind, ResultCode};

const SOURCE: usize = position(<Identity>::COLUMNS, "source");
const GAME: usize = position(<Identity>::COLUMNS, "game");

/// Refuses the report folder `dir`, whose summary.json reads as `summary`,
/// where one of its identities does not hold: one line naming the
/// identity and the two numbers that differ.
pub(crate) fn check(dir: &Path, summary: &Summary) -> Result<(), MergeError> {
    let refuse = |cause: String| Err(fail(dir, cause));
    let classes =
        u128::from(summary.clean) + u128::from(summary.flagged) + u128::from(summary.incomplete);
    if u128::from(summary.games) != classes {
        return refuse(format!(
            "summary.json says games {}, but clean + flagged + incomplete is {classes}",
            summary.games
        ));
    }
    let named: Vec<&str> = summary
        .source_details
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    if named != summary.sources {
        return refuse("summary.json's sources and source_details name other sources".to_owned());
    }
    let details = &summary.source_details;
    for (key, total, parts) in [
        (
            "games",
            summary.games,
            details.iter().map(|d| d.games).collect::<Vec<_>>(),
        ),
        (
            "bytes",
            summary.bytes,
            details.iter().map(|d| d.bytes).collect(),
        ),
    ] {
        let sum: u128 = parts.into_iter().map(u128::from).sum();
        if u128::from(total) != sum {
            return refuse(format!(
                "summary.json says {key} {total}, but its source_details add up to {sum}"
            ));
        }
    }
    let counted = count_rows(dir, summary)?;
    let format = summary.options.format;
    let name = |file: &str| table::file_name(file, format);
    codes(
        dir,
        "castling",
        CastlingReason::ALL,
        CastlingReason::code,
        &summary.castling,
        &counted.castling,
        &name(CastlingRow::FILE),
    )?;
    codes(
        dir,
        "claims",
        ClaimVerdict::ALL,
        ClaimVerdict::code,
        &summary.claims,
        &counted.claims,
        &name(ClaimRow::FILE),
    )?;
    codes(
        dir,
        "missed_draws",
        DrawRule::ALL,
        DrawRule::code,
        &summary.missed_draws,
        &counted.missed_draws,
        &name(MissedDrawRow::FILE),
    )?;
    codes(
        dir,
        "errors",
        ErrorKind::ALL,
        ErrorKind::code,
        &summary.errors,
        &counted.errors,
        &name(ErrorRow::FILE),
    )?;
    if summary.incomplete != counted.error_rows {
        return refuse(format!(
            "summary.json counts incomplete {}, but {} has {} rows",
            summary.incomplete,
            name(ErrorRow::FILE),
            counted.error_rows
        ));
    }
    codes(
        dir,
        "results",
        ResultCode::ALL,
        ResultCode::code,
        &summary.results,
        &counted.results,
        &name(ResultRow::FILE),
    )?;
    if summary.options.quirks && summary.notation_quirks != counted.quirk_rows {
        return refuse(format!(
            "summary.json counts notation_quirks {}, but {} has {} rows",
            summary.notation_quirks,
            name(QuirkRow::FILE),
            counted.quirk_rows
        ));
    }
    if summary.corrected != counted.correction_rows {
        return refuse(format!(
            "summary.json counts corrected {}, but {} has {} rows",
            summary.corrected,
            name(CorrectionRow::FILE),
            counted.correction_rows
        ));
    }
    if summary.flagged != counted.flagged {
        return refuse(format!(
            "summary.json counts flagged {}, but its reports flag {} games",
            summary.flagged, counted.flagged
        ));
    }
    Ok(())
}

/// Refuses `dir` where a count of summary.json's object `key` differs from
/// the rows of `file` with that code.
fn codes<T: Copy>(
    dir: &Path,
    key: &str,
    all: &[T],
    code: fn(T) -> &'static str,
    said: &[u64],
    rows: &[u64],
    file: &str,
) -> Result<(), MergeError> {
    for ((k, said), rows) in all.iter().zip(said).zip(rows) {
        if said != rows {
            return Err(fail(
                dir,
                format!(
                    "summary.json counts {key} {} {said}, but {file} has {rows} such rows",
                    code(*k)
                ),
            ));
        }
    }
    Ok(())
}

/// summary.json's counts as a folder's rows give them.
#[derive(Debug, Default)]
struct Counted {
    castling: [u64; CastlingReason::ALL.len()],
    claims: [u64; ClaimVerdict::ALL.len()],
    missed_draws: [u64; DrawRule::ALL.len()],
    errors: [u64; ErrorKind::ALL.len()],
    results: [u64; ResultCode::ALL.len()],
    /// errors.csv rows: one per incomplete game.
    error_rows: u64,
    /// quirks.csv rows.
    quirk_rows: u64,
    /// corrections.csv rows: one per corrected game.
    correction_rows: u64,
    /// Games with a row that flags (castling.csv, a false claim made in
    /// words, missed_draws.csv, results.csv) and no errors.csv row.
    flagged: u64,
}

/// What one game's rows say of it.
#[derive(Debug, Default)]
struct GameRows {
    /// A row that flags a game audited to its end.
    flags: bool,
    /// An errors.csv row: the game is incomplete.
    error: bool,
}

/// Each source of a folder by its name: its place in the folder's order,
/// and its games.
type Sources = HashMap<Vec<u8>, (usize, u64)>;

/// Counts the rows of every report of `dir`, walking them side by side one
/// game at a time.
fn count_rows(dir: &Path, summary: &Summary) -> Result<Counted, MergeError> {
    // The `source` cells name each source as the writers wrote its name.
    let (format, style) = (summary.options.format, summary.options.cell_style());
    let sources: Sources = summary
        .source_details
        .iter()
        .enumerate()
        .map(|(k, d)| (RowReader::cell_of(format, style, &d.name), (k, d.games)))
        .collect();
    let at = Opening {
        dir,
        format,
        sources: &sources,
    };
    let mut streams = vec![
        Stream::open::<CastlingRow>(at)?,
        Stream::open::<ClaimRow>(at)?,
        Stream::open::<MissedDrawRow>(at)?,
        Stream::open::<ErrorRow>(at)?,
        Stream::open::<ResultRow>(at)?,
    ];
    if summary.options.quirks {
        streams.push(Stream::open::<QuirkRow>(at)?);
    }
    if summary.options.fix {
        streams.push(Stream::open::<CorrectionRow>(at)?);
    }
    let mut counted = Counted::default();
    while let Some(game) = streams.iter().filter_map(|s| s.game).min() {
        let mut rows = GameRows::default();
        for stream in &mut streams {
            while stream.game == Some(game) {
                (stream.tally)(stream, &mut counted, &mut rows)?;
                stream.advance()?;
            }
        }
        counted.flagged += u64::from(rows.flags && !rows.error);
    }
    Ok(counted)
}

/// A report's rows as summary.json counts them, from their typed values.
trait Tally: ReportRow {
    /// A game has at most one row of this report (errors.csv).
    const ONE_PER_GAME: bool = false;

    /// Counts the row into `counted`, and what it says of its game into
    /// `game`.
    fn tally(&self, counted: &mut Counted, game: &mut GameRows);
}

impl Tally for CastlingRow {
    fn tally(&self, counted: &mut Counted, game: &mut GameRows) {
        for reason in self.reasons.iter() {
            counted.castling[reason as usize] += 1;
        }
        game.flags = true;
    }
}

impl Tally for ClaimRow {
    fn tally(&self, counted: &mut Counted, game: &mut GameRows) {
        counted.claims[self.verdict as usize] += 1;
        game.flags |= self.claim_source.flags(self.verdict);
    }
}

impl Tally for MissedDrawRow {
    fn tally(&self, counted: &mut Counted, game: &mut GameRows) {
        counted.missed_draws[self.rule as usize] += 1;
        game.flags = true;
    }
}

impl Tally for ErrorRow {
    const ONE_PER_GAME: bool = true;

    fn tally(&self, counted: &mut Counted, game: &mut GameRows) {
        counted.errors[self.kind as usize] += 1;
        counted.error_rows += 1;
        game.error = true;
    }
}

impl Tally for ResultRow {
    fn tally(&self, counted: &mut Counted, game: &mut GameRows) {
        counted.results[self.code as usize] += 1;
        game.flags = true;
    }
}

impl Tally for CorrectionRow {
    const ONE_PER_GAME: bool = true;

    fn tally(&self, counted: &mut Counted, _: &mut GameRows) {
        counted.correction_rows += 1;
    }
}

impl Tally for QuirkRow {
    fn tally(&self, counted: &mut Counted, _: &mut GameRows) {
        counted.quirk_rows += 1;
    }
}

/// Reads the row in `stream`'s record as `R` and counts it; a row that
/// does not fit `R` (a code column that holds no code of the contract) is
/// refused, naming the file and the line.
fn tally_row<R: Tally>(
    stream: &Stream,
    counted: &mut Counted,
    game: &mut GameRows,
) -> Result<(), MergeError> {
    // A CSV file's rows are named by their line, a Parquet file's (which
    // has no lines) by their number, as the other refusals name them.
    let (word, line) = match stream.record.position() {
        Some(position) => ("line", position.line()),
        None => ("row", stream.row),
    };
    let row: R = rows::from_record(&stream.record, line).map_err(|e| match e {
        ReadError::Row { line, cause, .. } => fail(
            stream.dir,
            format!("{} {word} {line}: {cause}", stream.file),
        ),
        e => fail(&stream.path, e.to_string()),
    })?;
    row.tally(counted, game);
    Ok(())
}

/// Where a [`Stream`] reads: the folder, its format, and the sources its
/// rows may name.
#[derive(Clone, Copy)]
struct Opening<'a> {
    dir: &'a Path,
    format: Format,
    sources: &'a Sources,
}

/// One report read row by row.
struct Stream<'a> {
    /// The report's file name in its folder's format.
    file: String,
    /// Reads the row in `record` and counts it.
    tally: fn(&Stream, &mut Counted, &mut GameRows) -> Result<(), MergeError>,
    /// A game has at most one row of this report.
    one_per_game: bool,
    dir: &'a Path,
    path: PathBuf,
    reader: RowReader,
    record: csv::ByteRecord,
    width: usize,
    /// The number of the row in `record`: a CSV report's header is its
    /// row 1, a Parquet report's first row its row 1.
    row: u64,
    /// The (source, game) of the row in `record`; `None` at the end.
    game: Option<(usize, u64)>,
    sources: &'a Sources,
}

impl<'a> Stream<'a> {
    /// Opens the report of `R` that `at` names at its first row.
    fn open<R: Tally>(at: Opening<'a>) -> Result<Stream<'a>, MergeError> {
        let file = table::file_name(R::FILE, at.format);
        let path = at.dir.join(&file);
        let reader = RowReader::open::<R>(&path, at.format).map_err(|e| fail(&path, e))?;
        let mut stream = Stream {
            file,
            tally: tally_row::<R>,
            one_per_game: R::ONE_PER_GAME,
            dir: at.dir,
            path,
            reader,
            record: csv::ByteRecord::new(),
            width: R::WIDTH,
            row: u64::from(at.format == Format::Csv),
            game: None,
            sources: at.sources,
        };
        stream.advance()?;
        Ok(stream)
    }

    fn refuse(&self, cause: String) -> MergeError {
        fail(self.dir, format!("{} row {} {cause}", self.file, self.row))
    }

    /// Moves on to the next row: one of a known source, of a game that
    /// source has, not before the row it follows (errors.csv: after it, a
    /// game having one error at most).
    fn advance(&mut self) -> Result<(), MergeError> {
        let before = self.game.take();
        if !self
            .reader
            .read(&mut self.record)
            .map_err(|e| fail(&self.path, e))?
        {
            return Ok(());
        }
        self.row += 1;
        if self.record.len() != self.width {
            return Err(fail(
                &self.path,
                format!(
                    "row {} has {} fields, not {}",
                    self.row,
                    self.record.len(),
                    self.width
                ),
            ));
        }
        let name = &self.record[SOURCE];
        let Some(&(source, games)) = self.sources.get(name) else {
            return Err(self.refuse(format!(
                "names source {}, which summary.json does not list",
                String::from_utf8_lossy(name)
            )));
        };
        let game = std::str::from_utf8(&self.record[GAME])
            .ok()
            .and_then(|g| g.parse::<u64>().ok())
            .ok_or_else(|| self.refuse("has no game number".to_owned()))?;
        if game == 0 || game > games {
            return Err(self.refuse(format!(
                "is game {game} of {}, which has {games} games",
                String::from_utf8_lossy(name)
            )));
        }
        let this = (source, game);
        if before.is_some_and(|b| this < b || (self.one_per_game && this == b)) {
            return Err(self.refuse("is out of input order".to_owned()));
        }
        self.game = Some(this);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The columns this module reads are those of the row types.
    #[test]
    fn the_columns_read_are_the_reports() {
        assert_eq!(
            crate::rows::columns::<CastlingRow>().nth(SOURCE),
            Some("source")
        );
        assert_eq!(crate::rows::columns::<ErrorRow>().nth(GAME), Some("game"));
    }
}
