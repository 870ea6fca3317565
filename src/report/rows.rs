//! One typed row per report file: the identity columns, then the report's
//! own, as the report contract (v3) names and orders them. Each row type is
//! the one definition of its file's columns: its fields, in order, are the
//! columns ([`columns`], the header), each typed as the domain's value (a
//! side is a [`Color`], a reason list [`Reasons`], a verdict
//! [`ClaimVerdict`]) and written and read by serde through the cells' one
//! text each ([`crate::cells`]): the writers serialize a row
//! ([`Record::write`]), the page, merge and the tests deserialize it
//! ([`read`]), and merge takes the width and the positions of the columns
//! it shifts from it.
//!
//! A row is generic over its text: `Row<&str>` borrows a game's report
//! while the row is written, `Row<String>` (the default) is a row read back.
//!
//! The same definition gives a report's Arrow columns (contract v3,
//! "Parquet"): a number column is a 64-bit integer, every other column
//! UTF-8 text, a code as its one text ([`kinds`], [`Record::push`]).

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use shakmaty::{CastlingSide, Color};

use crate::cells::{Code, CodeSet, Plies, VariantColumn, code, code_set, optional_code};
use pgn_audit_core::audit::fix::CorrectionCode;
use pgn_audit_core::audit::{
    Basis, ClaimKind, ClaimSource, ClaimVerdict, DrawRule, ErrorKind, MoveName, Quirks, Reasons,
    ResultCode, claimed_move,
};

/// How the text cells of a CSV report are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CellStyle {
    /// As read, for scripts: only what would break a line or hold binary
    /// bytes is replaced (U+FFFD).
    #[default]
    AsRead,
    /// As read, and a cell that a spreadsheet would take for a formula
    /// written with a `'` before it (`--excel-safe`).
    ExcelSafe,
}

/// How a column is typed in a Parquet report or an Arrow table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A 64-bit signed integer.
    Integer,
    /// UTF-8 text.
    Text,
}

/// One column being built for an Arrow table, of its [`Kind`].
#[derive(Debug)]
pub enum Column {
    /// An integer column.
    Integer(arrow_array::builder::Int64Builder),
    /// A text column.
    Text(arrow_array::builder::StringBuilder),
}

impl Column {
    /// An empty column of `kind`.
    pub fn new(kind: Kind) -> Column {
        match kind {
            Kind::Integer => Column::Integer(arrow_array::builder::Int64Builder::new()),
            Kind::Text => Column::Text(arrow_array::builder::StringBuilder::new()),
        }
    }

    /// Appends a number: to an integer column as it is, to a text column
    /// in decimal.
    fn push_number(&mut self, n: u64) {
        match self {
            // Offsets and counts stay far below 2^63; a larger one would be
            // no count of this world, and is kept at the largest integer.
            Column::Integer(b) => b.append_value(i64::try_from(n).unwrap_or(i64::MAX)),
            Column::Text(b) => b.append_value(itoa::Buffer::new().format(n)),
        }
    }

    /// Appends a text cell as the value itself: a Parquet cell is typed
    /// data, not a line of text or a spreadsheet's cell, so neither the
    /// CSV's replacement of control characters nor `--excel-safe`'s quote
    /// applies. A text value never has an integer column: both come from
    /// the row's field types.
    fn push_text(&mut self, text: &str) {
        match self {
            Column::Text(b) => b.append_value(text),
            Column::Integer(_) => unreachable!("a text field's column is a text column"),
        }
    }

    /// The column built so far, leaving it empty.
    pub fn finish(&mut self) -> arrow_array::ArrayRef {
        match self {
            Column::Integer(b) => std::sync::Arc::new(b.finish()),
            Column::Text(b) => std::sync::Arc::new(b.finish()),
        }
    }
}

/// The text of a row: borrowed (`&str`), owned (`String`), or either
/// (`Cow<str>`, a cell as written).
pub trait Text: AsRef<str> {}

impl Text for &str {}
impl Text for String {}
impl Text for Cow<'_, str> {}

/// One value of a row: its text (if any) mapped into another row's text
/// type (a text cell through the map, a typed one as it is), and its cell
/// of an Arrow table (a number as a number, a code as its one text).
pub trait Cell {
    /// The value with text of type `T`.
    type With<T>;
    /// How its column is typed in an Arrow table.
    const KIND: Kind;
    /// The value with its text passed through `text`.
    fn map<'a, T>(&'a self, text: &impl Fn(&'a str) -> T) -> Self::With<T>;
    /// Appends the value to its column of an Arrow table.
    fn append(&self, column: &mut Column);
}

impl<S: Text> Cell for S {
    type With<T> = T;
    const KIND: Kind = Kind::Text;
    fn map<'a, T>(&'a self, text: &impl Fn(&'a str) -> T) -> T {
        text(self.as_ref())
    }
    fn append(&self, column: &mut Column) {
        column.push_text(self.as_ref());
    }
}

/// The numbers: the same in every row, integers in an Arrow table.
macro_rules! number_cells {
    ($($t:ty),* $(,)?) => {
        $(impl Cell for $t {
            type With<T> = $t;
            const KIND: Kind = Kind::Integer;
            fn map<'a, T>(&'a self, _: &impl Fn(&'a str) -> T) -> $t {
                *self
            }
            fn append(&self, column: &mut Column) {
                column.push_number(u64::from(*self));
            }
        })*
    };
}

number_cells!(u32, u64);

/// The codes, sets of codes and lists: the same in every row (`Copy`, or
/// cloned), their cell's text in an Arrow table as in a CSV report.
macro_rules! typed_cells {
    ($($t:ty => |$v:ident| $text:expr,)*) => {
        $(impl Cell for $t {
            type With<T> = $t;
            const KIND: Kind = Kind::Text;
            fn map<'a, T>(&'a self, _: &impl Fn(&'a str) -> T) -> $t {
                self.clone()
            }
            fn append(&self, column: &mut Column) {
                let $v = self;
                column.push_text(&$text);
            }
        })*
    };
}

typed_cells! {
    Color => |v| v.code(),
    CastlingSide => |v| v.code(),
    ClaimKind => |v| Code::code(*v),
    ClaimSource => |v| Code::code(*v),
    ClaimVerdict => |v| Code::code(*v),
    DrawRule => |v| Code::code(*v),
    ErrorKind => |v| Code::code(*v),
    ResultCode => |v| Code::code(*v),
    CorrectionCode => |v| Code::code(*v),
    Option<Basis> => |v| v.map_or("", Code::code),
    Reasons => |v| v.joined(),
    Quirks => |v| v.joined(),
    Plies => |v| v.to_string(),
}

impl<S: Text> Cell for VariantColumn<S> {
    type With<T> = VariantColumn<T>;
    const KIND: Kind = Kind::Text;
    fn map<'a, T>(&'a self, text: &impl Fn(&'a str) -> T) -> VariantColumn<T> {
        match self {
            VariantColumn::Known(v) => VariantColumn::Known(*v),
            VariantColumn::Unsupported(s) => VariantColumn::Unsupported(text(s.as_ref())),
        }
    }
    fn append(&self, column: &mut Column) {
        column.push_text(self.as_str());
    }
}

/// A text cell as written, the one place where every report's text is
/// escaped. Control characters (C0 but the tab, DEL, C1), which binary
/// bytes in a PGN file or a file name become, and the line and paragraph
/// separators U+2028 and U+2029, which line-based readers (Python's
/// `splitlines`, some editors) take for line ends, are written as U+FFFD,
/// so no cell holds raw binary bytes or breaks a line. With
/// [`CellStyle::ExcelSafe`], a cell that starts with `=`, `+`, `-`, `@` or
/// a tab, which a spreadsheet would run as a formula, gets a `'` before
/// it (a carriage return is U+FFFD already).
pub(crate) fn text_cell(text: &str, style: CellStyle) -> Cow<'_, str> {
    let breaks = |c: char| (c.is_control() && c != '\t') || matches!(c, '\u{2028}' | '\u{2029}');
    let formula = style == CellStyle::ExcelSafe && text.starts_with(FORMULA_STARTS);
    if !formula && !text.chars().any(breaks) {
        return text.into();
    }
    let mut clean = String::with_capacity(text.len() + 1);
    if formula {
        clean.push('\'');
    }
    clean.extend(text.chars().map(|c| if breaks(c) { '\u{fffd}' } else { c }));
    clean.into()
}

/// The first characters that make a spreadsheet read a cell as a formula.
pub(crate) const FORMULA_STARTS: [char; 5] = ['=', '+', '-', '@', '\t'];

/// A text cell written in [`CellStyle::ExcelSafe`] as it was read: the
/// `'` that [`text_cell`] put before a formula's first character taken
/// off (what report.html shows of it).
pub(crate) fn unquoted(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) => rest,
        _ => cell,
    }
}

/// A column's name: its field's name, or the name given where the field
/// cannot bear it (`move` is a Rust keyword).
macro_rules! column_name {
    ($field:ident) => {
        stringify!($field)
    };
    ($field:ident $name:literal) => {
        $name
    };
}

/// A column's Arrow type: its field type's, or `Text` where the contract
/// lists a number column among the text ones (`[Text]` after the field).
macro_rules! column_kind {
    ($ty:ty) => {
        <$ty as Cell>::KIND
    };
    ($ty:ty, $kind:ident) => {
        Kind::$kind
    };
}

/// Defines the identity columns from their fields, in column order: the
/// struct, its column names and kinds (from the same field list, so that
/// they cannot drift apart), its text map and its Arrow cells.
macro_rules! identity_columns {
    (
        $(#[$meta:meta])*
        $name:ident {
            $($(#[$doc:meta])* $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(bound(deserialize = "S: Deserialize<'de> + AsRef<str>"))]
        pub struct $name<S = String> {
            $($(#[$doc])* pub $field: $ty,)*
        }

        impl $name {
            /// The identity columns, in order: the fields' names.
            pub const COLUMNS: &'static [&'static str] = &[$(stringify!($field)),*];
        }

        impl<S: Text> $name<S> {
            /// How each identity column is typed in an Arrow table.
            pub const KINDS: &'static [Kind] = &[$(<$ty as Cell>::KIND),*];

            /// The identity with its text passed through `text`.
            pub fn map_text<'a, T>(&'a self, text: &impl Fn(&'a str) -> T) -> $name<T> {
                $name { $($field: Cell::map(&self.$field, text),)* }
            }

            /// Appends the identity cells to the first columns of a table.
            fn push(&self, columns: &mut [Column]) {
                let mut columns = columns.iter_mut();
                $(if let Some(column) = columns.next() {
                    self.$field.append(column);
                })*
            }
        }
    };
}

/// Defines a row type from its fields, in column order: the struct (serde
/// writes and reads it), its file, its column names and kinds (from the
/// same field list), its text map and its Arrow cells.
macro_rules! report_row {
    (
        $(#[$meta:meta])*
        $row:ident in $file:literal {
            $($(#[$doc:meta])* $field:ident $(as $name:literal)? $([$kind:ident])?: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(bound(deserialize = "S: Deserialize<'de> + AsRef<str>"))]
        pub struct $row<S = String> {
            /// The game: the identity columns.
            pub id: Identity<S>,
            $($(#[$doc])* pub $field: $ty,)*
        }

        impl<S: Text> $row<S> {
            /// The own columns' kinds, from the fields' types.
            const OWN_KINDS: &'static [Kind] = &[$(column_kind!($ty $(, $kind)?)),*];

            /// The row with its text passed through `text`.
            pub fn map_text<'a, T>(&'a self, text: &impl Fn(&'a str) -> T) -> $row<T> {
                $row {
                    id: self.id.map_text(text),
                    $($field: Cell::map(&self.$field, text),)*
                }
            }
        }

        impl<S: Text + Serialize> Record for $row<S> {
            fn write_styled<W: std::io::Write>(
                &self,
                out: &mut csv::Writer<W>,
                style: CellStyle,
            ) -> csv::Result<()> {
                out.serialize(self.map_text(&|s| text_cell(s, style)))
            }

            fn push(&self, columns: &mut [Column]) {
                let (id, own) = columns.split_at_mut(<Identity>::COLUMNS.len().min(columns.len()));
                self.id.push(id);
                let mut own = own.iter_mut();
                $(if let Some(column) = own.next() {
                    self.$field.append(column);
                })*
            }
        }

        impl ReportRow for $row {
            const FILE: &'static str = $file;
            const COLUMNS: &'static [&'static str] = &[$(column_name!($field $($name)?)),*];
            const KINDS: &'static [Kind] = $row::<String>::OWN_KINDS;
            fn with_text(&self, text: &impl Fn(&str) -> String) -> $row {
                self.map_text(text)
            }
        }
    };
}

identity_columns! {
    /// The identity columns that start every row: the game in its source.
    Identity {
        /// The source's name as given.
        source: S,
        /// 1-based index of the game within its source.
        game: u64,
        /// Byte offset of the game's first byte in the decompressed source.
        offset: u64,
        /// 1-based line of that byte.
        line: u64,
        /// The Event tag.
        event: S,
        /// The Site tag.
        site: S,
        /// The Date tag.
        date: S,
        /// The Round tag.
        round: S,
        /// The White tag.
        white: S,
        /// The Black tag.
        black: S,
        /// The Result tag.
        result: S,
        /// `standard`, `chess960`, or an unsupported variant's value.
        variant: VariantColumn<S>,
    }
}

report_row! {
    /// A castling.csv row: a castling move that breaks the rules (FIDE
    /// 3.8.2).
    CastlingRow in "castling.csv" {
        /// The castle's ply, 1-based from the start position.
        ply: u32,
        /// Its move number (a text column in Parquet: contract v3 lists it
        /// among neither the integer columns).
        move_number [Text]: u32,
        /// The side that castles: `white` or `black`.
        #[serde(with = "code")]
        side: Color,
        /// The move as written.
        san: S,
        /// The wing: `kingside` or `queenside`.
        #[serde(with = "code")]
        castle: CastlingSide,
        /// The rules it breaks, written as their codes joined with `;`, in
        /// canonical order.
        #[serde(with = "code_set")]
        reasons: Reasons,
        /// The reasons for a person.
        detail: S,
        /// The position before the move.
        fen: S,
    }
}

report_row! {
    /// A claims.csv row: an audited draw claim (FIDE 9.2, 9.3).
    ClaimRow in "claims.csv" {
        /// `threefold` or `fifty_moves`.
        #[serde(with = "code")]
        claim: ClaimKind,
        /// Where the claim was read.
        #[serde(with = "code")]
        claim_source: ClaimSource,
        /// The verdict.
        #[serde(with = "code")]
        verdict: ClaimVerdict,
        /// The ply the claim is judged at.
        ply: u32,
        /// Occurrences of the position, castling rights counted.
        occurrences: u32,
        /// Occurrences of the position, castling rights ignored.
        occurrences_ignoring_rights: u32,
        /// The plies the position stood at, rights ignored.
        plies: Plies,
        /// The final position.
        fen: S,
        /// The verdict for a person.
        detail: S,
    }
}

report_row! {
    /// A missed_draws.csv row: a game played on past an automatic draw
    /// (FIDE 9.6, 5.2.2).
    MissedDrawRow in "missed_draws.csv" {
        /// The rule.
        #[serde(with = "code")]
        rule: DrawRule,
        /// The ply the draw came at.
        ply: u32,
        /// Plies played after it.
        plies_after: u32,
        /// The position of the draw.
        fen: S,
        /// (v3) What shows a dead position dead: `insufficient_material`
        /// or `helpmate_analysis`; none (`""`) for the other rules.
        #[serde(with = "optional_code")]
        basis: Option<Basis>,
    }
}

report_row! {
    /// An errors.csv row: a game that could not be audited to its end.
    ErrorRow in "errors.csv" {
        /// The ply of the failing move, 0 before any move.
        ply: u32,
        /// The failing move as written.
        san: S,
        /// Why the replay stopped.
        #[serde(with = "code")]
        kind: ErrorKind,
        /// The error for a person.
        detail: S,
        /// The position before `san`, `""` where none.
        fen: S,
    }
}

report_row! {
    /// A results.csv row: a result that the final position or the Laws
    /// contradict (FIDE 5.1.1, 5.2, 6.9).
    ResultRow in "results.csv" {
        /// The ply of the final position.
        ply: u32,
        /// The finding.
        #[serde(with = "code")]
        code: ResultCode,
        /// The result recorded.
        recorded: S,
        /// The result the position calls for, `""` where none.
        expected: S,
        /// The finding for a person.
        detail: S,
        /// The final position.
        fen: S,
        /// (v3) What shows that a side cannot mate, for
        /// `dead_position_not_drawn` and `timeout_without_mating_material`:
        /// `insufficient_material` or `helpmate_analysis`; none otherwise.
        #[serde(with = "optional_code")]
        basis: Option<Basis>,
    }
}

report_row! {
    /// A quirks.csv row (with `--quirks`): a move or tag written otherwise
    /// than the PGN standard says.
    QuirkRow in "quirks.csv" {
        /// The move's ply.
        ply: u32,
        /// The text as written.
        san: S,
        /// What is sloppy about it, written as codes joined with `;`.
        #[serde(with = "code_set")]
        quirk: Quirks,
        /// The move in standard notation, `""` where none.
        standard as "move": S,
    }
}

report_row! {
    /// A corrections.csv row (with `--fix`, v4): a game whose recorded
    /// result the Laws contradict, corrected in fixed.pgn.
    CorrectionRow in "corrections.csv" {
        /// The ply of the finding: the missed draw's, or the game's last.
        ply: u32,
        /// The missed_draws rule or results code that decides it.
        #[serde(with = "code")]
        code: CorrectionCode,
        /// The recorded result.
        from: S,
        /// The result the Laws give.
        to: S,
        /// The finding for a person.
        detail: S,
    }
}

impl<S: Text> ClaimRow<S> {
    /// The move after which the claim is judged, as the detail names it
    /// (claims.csv has no column of its own for it): the one reading of
    /// the audit's one way of writing it.
    pub fn claimed_move(&self) -> Option<MoveName<'_>> {
        claimed_move(self.detail.as_ref())
    }
}

/// A row type and the report file it is a row of.
pub trait ReportRow: DeserializeOwned + Record {
    /// The report's file name.
    const FILE: &'static str;
    /// The report's own columns, after the identity columns.
    const COLUMNS: &'static [&'static str];
    /// How each of its own columns is typed in an Arrow table.
    const KINDS: &'static [Kind];
    /// How many columns a row has.
    const WIDTH: usize = <Identity>::COLUMNS.len() + Self::COLUMNS.len();
    /// The row with its text passed through `text`.
    fn with_text(&self, text: &impl Fn(&str) -> String) -> Self;
}

/// A row as the writers write it, whatever holds its text: one record,
/// serialized, identity columns first. The writer must not write a header
/// of its own (see [`writer`]).
pub trait Record {
    /// Writes the row, its text as read.
    fn write<W: std::io::Write>(&self, out: &mut csv::Writer<W>) -> csv::Result<()> {
        self.write_styled(out, CellStyle::AsRead)
    }

    /// Writes the row, its text in `style`.
    fn write_styled<W: std::io::Write>(
        &self,
        out: &mut csv::Writer<W>,
        style: CellStyle,
    ) -> csv::Result<()>;

    /// Appends the row to the columns of an Arrow table (one per column,
    /// identity columns first, of the kinds [`kinds`] gives).
    fn push(&self, columns: &mut [Column]);
}

/// The kind of every column of a report of `R`, identity columns first.
pub fn kinds<R: ReportRow>() -> impl Iterator<Item = Kind> {
    <Identity>::KINDS.iter().chain(R::KINDS).copied()
}

/// The Arrow schema of a report of `R`: its columns in order, none
/// nullable (an absent value is `""`, as in the CSV report).
pub fn schema<R: ReportRow>() -> arrow_schema::SchemaRef {
    let fields: Vec<arrow_schema::Field> = columns::<R>()
        .zip(kinds::<R>())
        .map(|(name, kind)| {
            let data_type = match kind {
                Kind::Integer => arrow_schema::DataType::Int64,
                Kind::Text => arrow_schema::DataType::Utf8,
            };
            arrow_schema::Field::new(name, data_type, false)
        })
        .collect();
    std::sync::Arc::new(arrow_schema::Schema::new(fields))
}

/// A CSV writer of `R`'s report into `to`, its header written: the one
/// hand-written line, the names of `R`'s fields ([`columns`]); the rows
/// then go in with [`Record::write`].
pub fn writer<R: ReportRow, W: std::io::Write>(to: W) -> csv::Result<csv::Writer<W>> {
    let mut out = csv::WriterBuilder::new().has_headers(false).from_writer(to);
    out.write_record(columns::<R>())?;
    Ok(out)
}

/// The position of the column `name` in `columns`; a compile error in a
/// constant where there is none.
pub(crate) const fn position(columns: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < columns.len() {
        let (a, b) = (columns[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut k = 0;
            while k < a.len() && a[k] == b[k] {
                k += 1;
            }
            if k == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("no such column")
}

/// The position of `R`'s own column `name` in its rows.
pub(crate) const fn column<R: ReportRow>(name: &str) -> usize {
    <Identity>::COLUMNS.len() + position(R::COLUMNS, name)
}

/// Why a report's rows cannot be read.
#[derive(Debug)]
pub enum ReadError {
    /// The header names other columns than this version's.
    Header {
        /// The report.
        file: &'static str,
        /// The header found, its names joined with `,`.
        found: String,
    },
    /// A row does not fit its columns (a number column that holds no
    /// number, a code column that holds no code of the contract, a
    /// missing column).
    Row {
        /// The report.
        file: &'static str,
        /// The 1-based line of the file the row starts on.
        line: u64,
        /// Why it does not fit.
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
            ReadError::Row { file, line, cause } => write!(f, "{file}: line {line}: {cause}"),
            ReadError::Csv(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// The header a report of `R` starts with.
pub fn columns<R: ReportRow>() -> impl Iterator<Item = &'static str> {
    <Identity>::COLUMNS.iter().chain(R::COLUMNS).copied()
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
    let mut record = csv::ByteRecord::new();
    while csv.read_byte_record(&mut record).map_err(ReadError::Csv)? {
        let line = record.position().map_or(0, csv::Position::line);
        each(from_record(&record, line)?);
    }
    Ok(())
}

/// A row of `R` from its values, in column order (the header checked),
/// read from `line` of its file.
pub(crate) fn from_record<R: ReportRow>(
    record: &csv::ByteRecord,
    line: u64,
) -> Result<R, ReadError> {
    let fail = |cause: String| ReadError::Row {
        file: R::FILE,
        line,
        cause,
    };
    if record.len() != R::WIDTH {
        return Err(fail(format!("{} columns, not {}", record.len(), R::WIDTH)));
    }
    record.deserialize(None).map_err(|e| {
        fail(match e.kind() {
            csv::ErrorKind::Deserialize { err, .. } => match err.field() {
                Some(i) => {
                    let name = usize::try_from(i)
                        .ok()
                        .and_then(|i| columns::<R>().nth(i))
                        .unwrap_or("?");
                    format!("column {name}: {}", err.kind())
                }
                None => err.kind().to_string(),
            },
            _ => e.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cells::Code;
    use pgn_audit_core::audit::{CastlingReason, QuirkCode, Variant};

    /// What would break a line is U+FFFD;
    /// with ExcelSafe, what a spreadsheet would run gets a `'`.
    #[test]
    fn text_cells_replace_line_breakers_and_quote_formulas_when_asked() {
        let cell = |t: &str, s| text_cell(t, s).into_owned();
        let (read, safe) = (CellStyle::AsRead, CellStyle::ExcelSafe);
        assert_eq!(
            cell("a\u{2028}b\u{2029}c\nd\u{85}e\tf\u{1b}", read),
            "a\u{fffd}b\u{fffd}c\u{fffd}d\u{fffd}e\tf\u{fffd}"
        );
        for t in ["=1+1", "+1", "-", "@SUM(1)", "\tx", "--"] {
            assert_eq!(cell(t, read), t);
            assert_eq!(cell(t, safe), format!("'{t}"));
        }
        for t in ["1-0", "'=x", " =x", "Ke7", "", "ñ=", "\u{ff1d}x"] {
            assert_eq!(cell(t, safe), t);
        }
        assert_eq!(cell("\r=x", safe), "\u{fffd}=x");
        assert_eq!(cell("=a\u{2028}", safe), "'=a\u{fffd}");
    }

    fn written(row: &impl Record) -> String {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        row.write(&mut w).unwrap();
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
            variant: VariantColumn::Known(Variant::Standard),
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
                side: Color::White,
                san: "O-O".into(),
                castle: CastlingSide::KingSide,
                reasons: [CastlingReason::InCheck, CastlingReason::KingMoved]
                    .into_iter()
                    .collect(),
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
                claim: ClaimKind::Threefold,
                claim_source: ClaimSource::Comment,
                verdict: ClaimVerdict::Valid,
                ply: 40,
                occurrences: 3,
                occurrences_ignoring_rights: 3,
                plies: Plies(vec![32, 36, 40]),
                fen: "f".into(),
                detail: "d".into(),
            },
            &format!("{ident},threefold,comment,valid,40,3,3,32;36;40,f,d\n"),
        );
        round_trip(
            MissedDrawRow {
                id: id(),
                rule: DrawRule::Fivefold,
                ply: 120,
                plies_after: 7,
                fen: "f".into(),
                basis: None,
            },
            &format!("{ident},fivefold,120,7,f,\n"),
        );
        round_trip(
            ErrorRow {
                id: Identity {
                    variant: VariantColumn::Unsupported("crazyhouse".into()),
                    ..id()
                },
                ply: 0,
                san: String::new(),
                kind: ErrorKind::BadFen,
                detail: "d".into(),
                fen: String::new(),
            },
            &format!(
                "{},0,,bad_fen,d,\n",
                ident.replace("standard", "crazyhouse")
            ),
        );
        round_trip(
            ResultRow {
                id: Identity {
                    variant: VariantColumn::Known(Variant::Chess960),
                    ..id()
                },
                ply: 80,
                code: ResultCode::ResultMismatch,
                recorded: "1-0".into(),
                expected: String::new(),
                detail: "d".into(),
                fen: "f".into(),
                basis: Some(Basis::HelpmateAnalysis),
            },
            &format!(
                "{},80,result_mismatch,1-0,,d,f,helpmate_analysis\n",
                ident.replace("standard", "chess960")
            ),
        );
        round_trip(
            QuirkRow {
                id: id(),
                ply: 7,
                san: "0-0".into(),
                quirk: [QuirkCode::CastlingWithZeros, QuirkCode::MissingCheckMark]
                    .into_iter()
                    .fold(Quirks::default(), |mut q, c| {
                        q.insert(c);
                        q
                    }),
                standard: "O-O".into(),
            },
            &format!("{ident},7,0-0,castling_with_zeros;missing_check_mark,O-O\n"),
        );
        // A borrowed row writes as its owned copy does, control characters
        // replaced.
        let owned = MissedDrawRow {
            id: Identity {
                white: "a\u{1}b".into(),
                ..id()
            },
            rule: DrawRule::Fivefold,
            ply: u32::MAX,
            plies_after: 0,
            fen: "f".into(),
            basis: None,
        };
        let borrowed = owned.map_text(&|s| s);
        assert_eq!(written(&borrowed), written(&owned));
        assert_eq!(borrowed.map_text(&str::to_owned), owned);
        assert!(written(&owned).contains(",a\u{fffd}b,B,1-0,standard,fivefold,4294967295,0,f,\n"));
        // Excel-safe cells: a formula's text quoted, codes never.
        let formula = ErrorRow {
            id: Identity {
                white: "=1+1".into(),
                ..id()
            },
            ply: 3,
            san: "-".into(),
            kind: ErrorKind::ParseError,
            detail: "@x".into(),
            fen: String::new(),
        };
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(Vec::new());
        formula.write_styled(&mut w, CellStyle::ExcelSafe).unwrap();
        assert_eq!(
            String::from_utf8(w.into_inner().unwrap()).unwrap(),
            "a.pgn,2,30,4,\"E, \"\"x\"\"\",S,1986.11.??,1,'=1+1,B,1-0,standard,3,'-,parse_error,'@x,\n"
        );
    }

    /// The header: the identity fields, then each row's own fields, as
    /// docs/reports.md (the page pgn-audit-reports(5) and the contract's
    /// reference) lists them, file by file: the first table of its section
    /// whose head is `| column | meaning |`.
    #[test]
    fn the_columns_are_the_contracts() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/reports.md");
        let docs = std::fs::read_to_string(path).unwrap();
        let table = |heading: &str| -> Vec<String> {
            let at = docs.find(&format!("\n## {heading}\n")).expect(heading);
            let section = &docs[at + 1..];
            let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
            let head = section.find("| column | meaning |").expect(heading);
            section[head..]
                .lines()
                .skip(2)
                .take_while(|l| l.starts_with('|'))
                .flat_map(|l| {
                    let first = l.split('|').nth(1).unwrap_or("");
                    first
                        .split('`')
                        .skip(1)
                        .step_by(2)
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        assert_eq!(
            table("The columns every row starts with"),
            <Identity>::COLUMNS
        );
        fn own<R: ReportRow>() -> Vec<&'static str> {
            columns::<R>().skip(<Identity>::COLUMNS.len()).collect()
        }
        assert_eq!(table("castling.csv"), own::<CastlingRow>());
        assert_eq!(table("claims.csv"), own::<ClaimRow>());
        assert_eq!(table("missed_draws.csv"), own::<MissedDrawRow>());
        assert_eq!(table("errors.csv"), own::<ErrorRow>());
        assert_eq!(table("results.csv"), own::<ResultRow>());
        assert_eq!(table("quirks.csv"), own::<QuirkRow>());
        assert_eq!(ClaimRow::WIDTH, 21);
        assert_eq!(position(<Identity>::COLUMNS, "line"), 3);
    }

    #[test]
    fn another_header_or_a_bad_row_is_an_error() {
        let e = read::<MissedDrawRow>(&b"source,game\n"[..], |_| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            "missed_draws.csv: not the columns of this version: source,game"
        );
        let head = columns::<MissedDrawRow>().collect::<Vec<_>>().join(",");
        let bad = |row: &str| {
            let file = format!("{head}\na,1,0,1,,,,,,,,standard,fivefold,7,1,f,\n{row}\n");
            read::<MissedDrawRow>(file.as_bytes(), |_| {})
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            bad("a,1,0,1,,,,,,,,standard,fivefold,x,7,f,"),
            "missed_draws.csv: line 3: column ply: invalid digit found in string"
        );
        // A code column that holds no code of the contract (another tool's
        // file, or a tampered one) is an error, never a default.
        assert_eq!(
            bad("a,1,0,1,,,,,,,,standard,sixfold,7,1,f,"),
            "missed_draws.csv: line 3: \"sixfold\" is not fivefold, seventy_five_moves or dead_position"
        );
        assert_eq!(
            bad("a,1,0,1,,,,,,,,standard,fivefold,7,1,f,by_eye"),
            "missed_draws.csv: line 3: \"by_eye\" is not insufficient_material or helpmate_analysis"
        );
        assert!(bad("a,1,0,1").starts_with("CSV error"));
        let castle = |reasons: &str, side: &str| {
            let head = columns::<CastlingRow>().collect::<Vec<_>>().join(",");
            let file =
                format!("{head}\na,1,0,1,,,,,,,,standard,3,2,{side},O-O,kingside,{reasons},d,f\n");
            read::<CastlingRow>(file.as_bytes(), |_| {}).map_err(|e| e.to_string())
        };
        assert!(castle("king_moved;in_check", "white").is_ok());
        assert_eq!(
            castle("king_moved;in_check", "left").unwrap_err(),
            "castling.csv: line 2: \"left\" is not white or black"
        );
        assert_eq!(
            castle("king_moved;", "black").unwrap_err(),
            "castling.csv: line 2: \"\" is not king_moved, rook_moved, rook_captured, no_right_in_fen, king_displaced, rook_displaced, no_rook, path_blocked, in_check, through_check or into_check"
        );
        assert_eq!(
            castle("", "black").unwrap_err(),
            "castling.csv: line 2: \"\" is not king_moved, rook_moved, rook_captured, no_right_in_fen, king_displaced, rook_displaced, no_rook, path_blocked, in_check, through_check or into_check"
        );
        assert_eq!(Color::from_code("white"), Some(Color::White));
    }
}
