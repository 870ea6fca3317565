//! One typed row per CSV report: the identity columns, then the report's
//! own, as the report contract (v2) names and orders them. Serializing a
//! row writes today's columns in today's order; a row is read back by its
//! column names ([`read`]), never by position alone.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{CSV_REPORTS, IDENTITY};

/// The identity columns that start every row.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub source: String,
    /// 1-based index of the game within its source.
    pub game: u64,
    /// Byte offset of the game's first byte in the decompressed source.
    pub offset: u64,
    /// 1-based line of that byte.
    pub line: u64,
    pub event: String,
    pub site: String,
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    pub result: String,
    /// `standard`, `chess960`, or an unsupported variant's value.
    pub variant: String,
}

/// A castling.csv row: a castling move that breaks the rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CastlingRow {
    pub id: Identity,
    pub ply: u32,
    pub move_number: u32,
    /// `white` or `black`.
    pub side: String,
    pub san: String,
    /// `kingside` or `queenside`.
    pub castle: String,
    /// Reason codes joined with `;`, in their canonical order.
    pub reasons: String,
    pub detail: String,
    /// The position before the move.
    pub fen: String,
}

/// A claims.csv row: an audited draw claim.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimRow {
    pub id: Identity,
    /// `threefold` or `fifty_moves`.
    pub claim: String,
    pub claim_source: String,
    pub verdict: String,
    pub ply: u32,
    pub occurrences: u32,
    pub occurrences_ignoring_rights: u32,
    /// Plies joined with `;`.
    pub plies: String,
    /// The final position.
    pub fen: String,
    pub detail: String,
}

/// A missed_draws.csv row: a game played on past an automatic draw.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissedDrawRow {
    pub id: Identity,
    pub rule: String,
    pub ply: u32,
    pub plies_after: u32,
    pub fen: String,
}

/// An errors.csv row: a game that could not be audited to its end.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorRow {
    pub id: Identity,
    pub ply: u32,
    pub san: String,
    pub kind: String,
    pub detail: String,
    /// The position before `san`, `""` where none.
    pub fen: String,
}

/// A results.csv row: a result that the final position or the Laws
/// contradict.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRow {
    pub id: Identity,
    pub ply: u32,
    pub code: String,
    pub recorded: String,
    pub expected: String,
    pub detail: String,
    pub fen: String,
}

/// A row type and the report file it is a row of.
pub trait ReportRow: Serialize + DeserializeOwned {
    /// The report's file name.
    const FILE: &'static str;
    /// The report's own columns, after the identity columns.
    const COLUMNS: &'static [&'static str];
}

macro_rules! report_row {
    ($row:ty, $index:literal) => {
        impl ReportRow for $row {
            const FILE: &'static str = CSV_REPORTS[$index].0;
            const COLUMNS: &'static [&'static str] = CSV_REPORTS[$index].1;
        }
    };
}

report_row!(CastlingRow, 0);
report_row!(ClaimRow, 1);
report_row!(MissedDrawRow, 2);
report_row!(ErrorRow, 3);
report_row!(ResultRow, 4);

/// Why a report's rows cannot be read.
#[derive(Debug)]
pub enum ReadError {
    /// The header names other columns than this version's.
    Header { file: &'static str, found: String },
    /// A row does not fit its columns (a number column that holds no
    /// number, a missing column); `row` is 1-based, the header not counted.
    Row {
        file: &'static str,
        row: u64,
        cause: String,
    },
    /// The file cannot be read as CSV at all.
    Csv(csv::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Header { file, found } => {
                write!(f, "{file}: not the columns of this version: {found}")
            }
            ReadError::Row { file, row, cause } => write!(f, "{file}: row {row}: {cause}"),
            ReadError::Csv(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// The header a report of `R` starts with.
pub fn columns<R: ReportRow>() -> impl Iterator<Item = &'static str> {
    IDENTITY.iter().chain(R::COLUMNS).copied()
}

/// Reads every row of one report (header first) as `R`, after checking
/// that the header names exactly `R`'s columns, in order.
pub fn read<R: ReportRow>(
    reader: impl std::io::Read,
    mut each: impl FnMut(R),
) -> Result<(), ReadError> {
    let mut csv = csv::Reader::from_reader(reader);
    let header = csv.headers().map_err(ReadError::Csv)?;
    if !header.iter().eq(columns::<R>()) {
        return Err(ReadError::Header {
            file: R::FILE,
            found: header.iter().collect::<Vec<_>>().join(","),
        });
    }
    let mut record = csv::StringRecord::new();
    let mut n = 0;
    while csv.read_record(&mut record).map_err(ReadError::Csv)? {
        n += 1;
        each(from_record(&record, n)?);
    }
    Ok(())
}

/// A row of `R` from its values, in column order (the header checked).
pub fn from_record<R: ReportRow>(record: &csv::StringRecord, row: u64) -> Result<R, ReadError> {
    if record.len() != IDENTITY.len() + R::COLUMNS.len() {
        return Err(ReadError::Row {
            file: R::FILE,
            row,
            cause: format!(
                "{} columns, not {}",
                record.len(),
                IDENTITY.len() + R::COLUMNS.len()
            ),
        });
    }
    record.deserialize(None).map_err(|e| ReadError::Row {
        file: R::FILE,
        row,
        cause: match e.kind() {
            csv::ErrorKind::Deserialize { err, .. } => match err.field() {
                Some(i) => {
                    let name = columns::<R>().nth(i as usize).unwrap_or("?");
                    format!("column {name}: {}", err.kind())
                }
                None => err.kind().to_string(),
            },
            _ => e.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written<R: ReportRow>(row: &R) -> String {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        w.serialize(row).unwrap();
        String::from_utf8(w.into_inner().unwrap()).unwrap()
    }

    fn id() -> Identity {
        Identity {
            source: "a.pgn".into(),
            game: 2,
            offset: 30,
            line: 4,
            event: "E, \"x\"".into(),
            site: "S".into(),
            date: "1986.11.??".into(),
            round: "1".into(),
            white: "W".into(),
            black: "B".into(),
            result: "1-0".into(),
            variant: "standard".into(),
        }
    }

    /// Writing a row gives the columns in the contract's order, and
    /// reading the written file gives the row back.
    fn round_trip<R: ReportRow + PartialEq + std::fmt::Debug>(row: R, line: &str) {
        assert_eq!(written(&row), line);
        let file = format!("{}\n{line}", columns::<R>().collect::<Vec<_>>().join(","));
        let mut got = Vec::new();
        read::<R>(file.as_bytes(), |r| got.push(r)).unwrap();
        assert_eq!(got, [row]);
    }

    #[test]
    fn rows_write_todays_columns_and_read_back() {
        let ident = "a.pgn,2,30,4,\"E, \"\"x\"\"\",S,1986.11.??,1,W,B,1-0,standard";
        round_trip(
            CastlingRow {
                id: id(),
                ply: 9,
                move_number: 5,
                side: "white".into(),
                san: "O-O".into(),
                castle: "kingside".into(),
                reasons: "king_moved;in_check".into(),
                detail: "d".into(),
                fen: "8/8/8/8/8/8/8/4K2R w - - 0 1".into(),
            },
            &format!(
                "{ident},9,5,white,O-O,kingside,king_moved;in_check,d,8/8/8/8/8/8/8/4K2R w - - 0 1\n"
            ),
        );
        round_trip(
            ClaimRow {
                id: id(),
                claim: "threefold".into(),
                claim_source: "comment".into(),
                verdict: "valid".into(),
                ply: 40,
                occurrences: 3,
                occurrences_ignoring_rights: 3,
                plies: "32;36;40".into(),
                fen: "f".into(),
                detail: "d".into(),
            },
            &format!("{ident},threefold,comment,valid,40,3,3,32;36;40,f,d\n"),
        );
        round_trip(
            MissedDrawRow {
                id: id(),
                rule: "fivefold".into(),
                ply: 120,
                plies_after: 7,
                fen: "f".into(),
            },
            &format!("{ident},fivefold,120,7,f\n"),
        );
        round_trip(
            ErrorRow {
                id: id(),
                ply: 0,
                san: String::new(),
                kind: "bad_fen".into(),
                detail: "d".into(),
                fen: String::new(),
            },
            &format!("{ident},0,,bad_fen,d,\n"),
        );
        round_trip(
            ResultRow {
                id: id(),
                ply: 80,
                code: "result_mismatch".into(),
                recorded: "1-0".into(),
                expected: String::new(),
                detail: "d".into(),
                fen: String::new(),
            },
            &format!("{ident},80,result_mismatch,1-0,,d,\n"),
        );
    }

    #[test]
    fn another_header_or_a_bad_row_is_an_error() {
        let e = read::<MissedDrawRow>(&b"source,game\n"[..], |_| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            "missed_draws.csv: not the columns of this version: source,game"
        );
        let head = columns::<MissedDrawRow>().collect::<Vec<_>>().join(",");
        let file = format!("{head}\na,1,0,1,,,,,,,,standard,fivefold,x,7,f\n");
        let e = read::<MissedDrawRow>(file.as_bytes(), |_| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            "missed_draws.csv: row 1: column ply: invalid digit found in string"
        );
        let file = format!("{head}\na,1,0,1\n");
        let e = read::<MissedDrawRow>(file.as_bytes(), |_| {}).unwrap_err();
        assert!(e.to_string().starts_with("CSV error"), "{e}");
    }
}
