//! A report folder read back into a page: each CSV file through its typed
//! row, and summary.json.

use std::io;
use std::path::Path;

use super::{HtmlReport, OnPage};
use crate::Summary;
use crate::rows::{
    self, CastlingRow, ClaimRow, ErrorRow, MissedDrawRow, ReadError, ReportRow, ResultRow,
};

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

/// Reads `dir`'s report of `R` (its header checked) into `page`, each row
/// typed: a row that does not fit (a number column without a number, a
/// code column with no code of the contract) is an error naming the file
/// and the line.
fn read_into<R: ReportRow + OnPage>(dir: &Path, page: &mut HtmlReport) -> io::Result<()> {
    let path = dir.join(R::FILE);
    let file = std::fs::File::open(&path)?;
    let mut csv = csv::Reader::from_reader(io::BufReader::new(file));
    let headers = csv.headers().map_err(|e| invalid(&path, &e))?;
    if !headers.iter().eq(rows::columns::<R>()) {
        return Err(invalid(&path, &"not the columns of this version"));
    }
    let mut record = csv::ByteRecord::new();
    while csv
        .read_byte_record(&mut record)
        .map_err(|e| invalid(&path, &e))?
    {
        let line = record.position().map_or(0, csv::Position::line);
        match rows::from_record::<R>(&record, line) {
            Ok(row) => row.add_to(page),
            Err(ReadError::Row { line, cause, .. }) => {
                return Err(invalid(&path, &format_args!("line {line}: {cause}")));
            }
            Err(e) => return Err(invalid(&path, &e)),
        }
    }
    Ok(())
}

fn invalid(path: &Path, e: &dyn std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {e}", path.display()),
    )
}
