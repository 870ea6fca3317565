//! One typed row per report file: the identity columns, then the report's
//! own, as the report contract (v2) names and orders them. Each row type is
//! the one definition of its file's columns: the header is its field list
//! ([`columns`]), the writers write it ([`Record::write`]), the page and
//! the tests read it by its column names ([`read`]), and merge takes the
//! width and the positions of the columns it shifts from it.
//!
//! A row is generic over its text: `Row<&str>` borrows a game's report
//! while the row is written, `Row<String>` (the default) is a row read back.
//!
//! The same definition gives a report's Arrow columns (contract v3,
//! "Parquet"): a number column is a 64-bit integer, every other column
//! UTF-8 text ([`kinds`], [`Record::push`]).

use serde::Deserialize;
use serde::de::DeserializeOwned;

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

/// One value of a row: written as a CSV cell or appended to an Arrow
/// column, copied into an owned row.
pub trait Cell {
    /// The value in a row that owns its text.
    type Owned;
    /// How its column is typed in an Arrow table.
    const KIND: Kind;
    /// Appends the value to its column of an Arrow table.
    fn append(&self, column: &mut Column);
    /// Writes the value as the next cell of the record being written, its
    /// text in `style`.
    fn write<W: std::io::Write>(
        &self,
        out: &mut csv::Writer<W>,
        style: CellStyle,
    ) -> csv::Result<()>;
    /// The value owned, its text passed through `text`.
    fn owned(&self, text: &impl Fn(&str) -> String) -> Self::Owned;
}

impl Cell for u32 {
    type Owned = u32;
    const KIND: Kind = Kind::Integer;
    fn append(&self, column: &mut Column) {
        column.push_number(u64::from(*self));
    }
    fn write<W: std::io::Write>(&self, out: &mut csv::Writer<W>, _: CellStyle) -> csv::Result<()> {
        out.write_field(itoa::Buffer::new().format(*self))
    }
    fn owned(&self, _: &impl Fn(&str) -> String) -> u32 {
        *self
    }
}

impl Cell for u64 {
    type Owned = u64;
    const KIND: Kind = Kind::Integer;
    fn append(&self, column: &mut Column) {
        column.push_number(*self);
    }
    fn write<W: std::io::Write>(&self, out: &mut csv::Writer<W>, _: CellStyle) -> csv::Result<()> {
        out.write_field(itoa::Buffer::new().format(*self))
    }
    fn owned(&self, _: &impl Fn(&str) -> String) -> u64 {
        *self
    }
}

impl Cell for &str {
    type Owned = String;
    const KIND: Kind = Kind::Text;
    fn append(&self, column: &mut Column) {
        column.push_text(self);
    }
    fn write<W: std::io::Write>(
        &self,
        out: &mut csv::Writer<W>,
        style: CellStyle,
    ) -> csv::Result<()> {
        out.write_field(text_cell(self, style))
    }
    fn owned(&self, text: &impl Fn(&str) -> String) -> String {
        text(self)
    }
}

impl Cell for String {
    type Owned = String;
    const KIND: Kind = Kind::Text;
    fn append(&self, column: &mut Column) {
        column.push_text(self);
    }
    fn write<W: std::io::Write>(
        &self,
        out: &mut csv::Writer<W>,
        style: CellStyle,
    ) -> csv::Result<()> {
        self.as_str().write(out, style)
    }
    fn owned(&self, text: &impl Fn(&str) -> String) -> String {
        text(self)
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
pub(crate) fn text_cell(text: &str, style: CellStyle) -> std::borrow::Cow<'_, [u8]> {
    let breaks = |c: char| (c.is_control() && c != '\t') || matches!(c, '\u{2028}' | '\u{2029}');
    let formula = style == CellStyle::ExcelSafe && text.starts_with(FORMULA_STARTS);
    if !formula && !text.chars().any(breaks) {
        return text.as_bytes().into();
    }
    let mut clean = String::with_capacity(text.len() + 1);
    if formula {
        clean.push('\'');
    }
    clean.extend(text.chars().map(|c| if breaks(c) { '\u{fffd}' } else { c }));
    clean.into_bytes().into()
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

/// Defines a row type from its fields, in column order: the struct, its
/// column names and types and its write; a row `on the page` (report.html
/// keeps examples of it) also gets its owned copy.
macro_rules! report_row {
    (
        $(#[$meta:meta])*
        $row:ident in $file:literal on the page {
            $($(#[$doc:meta])* $field:ident $(as $name:literal)? $([$kind:ident])?: $ty:ty,)*
        }
    ) => {
        report_row! {
            $(#[$meta])*
            $row in $file {
                $($(#[$doc])* $field $(as $name)? $([$kind])?: $ty,)*
            }
        }

        impl<S: Cell<Owned = String>> $row<S> {
            /// The row owned, each text passed through `text`.
            pub(crate) fn owned(&self, text: &impl Fn(&str) -> String) -> $row {
                $row {
                    id: self.id.owned(text),
                    $($field: self.$field.owned(text),)*
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $row:ident in $file:literal {
            $($(#[$doc:meta])* $field:ident $(as $name:literal)? $([$kind:ident])?: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
        pub struct $row<S = String> {
            /// The game: the identity columns.
            pub id: Identity<S>,
            $($(#[$doc])* pub $field: $ty,)*
        }

        impl<S: Cell<Owned = String>> Record for $row<S> {
            fn write_styled<W: std::io::Write>(
                &self,
                out: &mut csv::Writer<W>,
                style: CellStyle,
            ) -> csv::Result<()> {
                self.id.write(out, style)?;
                $(self.$field.write(out, style)?;)*
                out.write_record(None::<&[u8]>)
            }

            fn push(&self, columns: &mut [Column]) {
                let (id, own) = columns.split_at_mut(IDENTITY.len());
                self.id.push(id);
                let mut own = own.iter_mut();
                $(if let Some(column) = own.next() {
                    self.$field.append(column);
                })*
            }
        }

        impl<S: Cell> $row<S> {
            /// The own columns' kinds, from the fields' types.
            const OWN_KINDS: &'static [Kind] = &[$(column_kind!($ty $(, $kind)?)),*];
        }

        impl ReportRow for $row {
            const FILE: &'static str = $file;
            const COLUMNS: &'static [&'static str] = &[$(column_name!($field $($name)?)),*];
            const KINDS: &'static [Kind] = $row::<String>::OWN_KINDS;
        }
    };
}

/// The identity columns that start every row: the game in its source.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Identity<S = String> {
    /// The source's name as given.
    pub source: S,
    /// 1-based index of the game within its source.
    pub game: u64,
    /// Byte offset of the game's first byte in the decompressed source.
    pub offset: u64,
    /// 1-based line of that byte.
    pub line: u64,
    /// The Event tag.
    pub event: S,
    /// The Site tag.
    pub site: S,
    /// The Date tag.
    pub date: S,
    /// The Round tag.
    pub round: S,
    /// The White tag.
    pub white: S,
    /// The Black tag.
    pub black: S,
    /// The Result tag.
    pub result: S,
    /// `standard`, `chess960`, or an unsupported variant's value.
    pub variant: S,
}

/// The identity columns, in the order of [`Identity`]'s fields.
pub(crate) const IDENTITY: [&str; 12] = [
    "source", "game", "offset", "line", "event", "site", "date", "round", "white", "black",
    "result", "variant",
];

impl<S: Cell<Owned = String>> Identity<S> {
    /// Writes the identity cells of a record, its text in `style`.
    fn write<W: std::io::Write>(
        &self,
        out: &mut csv::Writer<W>,
        style: CellStyle,
    ) -> csv::Result<()> {
        let Identity {
            source,
            game,
            offset,
            line,
            event,
            site,
            date,
            round,
            white,
            black,
            result,
            variant,
        } = self;
        source.write(out, style)?;
        game.write(out, style)?;
        offset.write(out, style)?;
        line.write(out, style)?;
        for text in [event, site, date, round, white, black, result, variant] {
            text.write(out, style)?;
        }
        Ok(())
    }

    /// Appends the identity cells to the first columns of a table.
    fn push(&self, columns: &mut [Column]) {
        let Identity {
            source,
            game,
            offset,
            line,
            event,
            site,
            date,
            round,
            white,
            black,
            result,
            variant,
        } = self;
        if let [c0, c1, c2, c3, rest @ ..] = columns {
            source.append(c0);
            game.append(c1);
            offset.append(c2);
            line.append(c3);
            for (text, column) in [event, site, date, round, white, black, result, variant]
                .into_iter()
                .zip(rest)
            {
                text.append(column);
            }
        }
    }

    /// The identity owned, each text passed through `text`.
    fn owned(&self, text: &impl Fn(&str) -> String) -> Identity {
        Identity {
            source: self.source.owned(text),
            game: self.game,
            offset: self.offset,
            line: self.line,
            event: self.event.owned(text),
            site: self.site.owned(text),
            date: self.date.owned(text),
            round: self.round.owned(text),
            white: self.white.owned(text),
            black: self.black.owned(text),
            result: self.result.owned(text),
            variant: self.variant.owned(text),
        }
    }
}

report_row! {
    /// A castling.csv row: a castling move that breaks the rules.
    CastlingRow in "castling.csv" on the page {
        /// The castle's ply, 1-based from the start position.
        ply: u32,
        /// Its move number (a text column in Parquet: contract v3 lists it
        /// among neither the integer columns).
        move_number [Text]: u32,
        /// `white` or `black`.
        side: S,
        /// The move as written.
        san: S,
        /// `kingside` or `queenside`.
        castle: S,
        /// Reason codes joined with `;`, in their canonical order.
        reasons: S,
        /// The reasons for a person.
        detail: S,
        /// The position before the move.
        fen: S,
    }
}

report_row! {
    /// A claims.csv row: an audited draw claim.
    ClaimRow in "claims.csv" on the page {
        /// `threefold` or `fifty_moves`.
        claim: S,
        /// Where the claim was read: its code.
        claim_source: S,
        /// The verdict's code.
        verdict: S,
        /// The ply the claim is judged at.
        ply: u32,
        /// Occurrences of the position, castling rights counted.
        occurrences: u32,
        /// Occurrences of the position, castling rights ignored.
        occurrences_ignoring_rights: u32,
        /// Plies joined with `;`.
        plies: S,
        /// The final position.
        fen: S,
        /// The verdict for a person.
        detail: S,
    }
}

report_row! {
    /// A missed_draws.csv row: a game played on past an automatic draw.
    MissedDrawRow in "missed_draws.csv" on the page {
        /// The rule's code.
        rule: S,
        /// The ply the draw came at.
        ply: u32,
        /// Plies played after it.
        plies_after: u32,
        /// The position of the draw.
        fen: S,
        /// (v3) What shows a dead position dead: `insufficient_material`
        /// or `helpmate_analysis`; `""` for the other rules.
        basis: S,
    }
}

report_row! {
    /// An errors.csv row: a game that could not be audited to its end.
    ErrorRow in "errors.csv" on the page {
        /// The ply of the failing move, 0 before any move.
        ply: u32,
        /// The failing move as written.
        san: S,
        /// The error's code.
        kind: S,
        /// The error for a person.
        detail: S,
        /// The position before `san`, `""` where none.
        fen: S,
    }
}

report_row! {
    /// A results.csv row: a result that the final position or the Laws
    /// contradict.
    ResultRow in "results.csv" on the page {
        /// The ply of the final position.
        ply: u32,
        /// The finding's code.
        code: S,
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
        /// `insufficient_material` or `helpmate_analysis`; `""` otherwise.
        basis: S,
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
        /// Quirk codes joined with `;`.
        quirk: S,
        /// The move in standard notation, `""` where none.
        standard as "move": S,
    }
}

/// A row type and the report file it is a row of.
pub trait ReportRow: DeserializeOwned {
    /// The report's file name.
    const FILE: &'static str;
    /// The report's own columns, after the identity columns.
    const COLUMNS: &'static [&'static str];
    /// How each of its own columns is typed in an Arrow table.
    const KINDS: &'static [Kind];
    /// How many columns a row has.
    const WIDTH: usize = IDENTITY.len() + Self::COLUMNS.len();
}

/// A row as the writers write it, whatever holds its text.
pub trait Record {
    /// Writes the row as one record, identity columns first, its text as
    /// read.
    fn write<W: std::io::Write>(&self, out: &mut csv::Writer<W>) -> csv::Result<()> {
        self.write_styled(out, CellStyle::AsRead)
    }

    /// Writes the row as one record, identity columns first, its text in
    /// `style`.
    fn write_styled<W: std::io::Write>(
        &self,
        out: &mut csv::Writer<W>,
        style: CellStyle,
    ) -> csv::Result<()>;
    /// Appends the row to the columns of an Arrow table (one per column,
    /// identity columns first, of the kinds [`kinds`] gives).
    fn push(&self, columns: &mut [Column]);
}

/// The identity columns' kinds, in the order of [`IDENTITY`].
const IDENTITY_KINDS: [Kind; 12] = {
    let mut kinds = [<&str as Cell>::KIND; 12];
    kinds[position(&IDENTITY, "game")] = <u64 as Cell>::KIND;
    kinds[position(&IDENTITY, "offset")] = <u64 as Cell>::KIND;
    kinds[position(&IDENTITY, "line")] = <u64 as Cell>::KIND;
    kinds
};

/// The kind of every column of a report of `R`, identity columns first.
pub fn kinds<R: ReportRow>() -> impl Iterator<Item = Kind> {
    IDENTITY_KINDS.iter().chain(R::KINDS).copied()
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

/// The text of a row: borrowed (`&str`) or owned (`String`).
pub trait Text: Cell<Owned = String> + AsRef<str> {}

impl<T: Cell<Owned = String> + AsRef<str>> Text for T {}

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
    IDENTITY.len() + position(R::COLUMNS, name)
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
    /// number, a missing column); `row` is 1-based, the header not counted.
    Row {
        /// The report.
        file: &'static str,
        /// The row, 1-based.
        row: u64,
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
pub(crate) fn from_record<R: ReportRow>(
    record: &csv::StringRecord,
    row: u64,
) -> Result<R, ReadError> {
    if record.len() != R::WIDTH {
        return Err(ReadError::Row {
            file: R::FILE,
            row,
            cause: format!("{} columns, not {}", record.len(), R::WIDTH),
        });
    }
    record.deserialize(None).map_err(|e| ReadError::Row {
        file: R::FILE,
        row,
        cause: match e.kind() {
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
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Item 15 and 14 of issue 23: what would break a line is U+FFFD;
    /// with ExcelSafe, what a spreadsheet would run gets a `'`.
    #[test]
    fn text_cells_replace_line_breakers_and_quote_formulas_when_asked() {
        let cell = |t: &str, s| String::from_utf8(text_cell(t, s).into_owned()).unwrap();
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
            variant: "standard".into(),
        }
    }

    /// Writing a row gives the columns in the contract's order, and
    /// reading the written file gives the row back.
    fn round_trip<R: ReportRow + Record + PartialEq + std::fmt::Debug>(row: R, line: &str) {
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
                basis: String::new(),
            },
            &format!("{ident},fivefold,120,7,f,\n"),
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
                fen: "f".into(),
                basis: "helpmate_analysis".into(),
            },
            &format!("{ident},80,result_mismatch,1-0,,d,f,helpmate_analysis\n"),
        );
        round_trip(
            QuirkRow {
                id: id(),
                ply: 7,
                san: "0-0".into(),
                quirk: "zero_castling".into(),
                standard: "O-O".into(),
            },
            &format!("{ident},7,0-0,zero_castling,O-O\n"),
        );
        // A borrowed row writes as its owned copy does, control characters
        // replaced.
        let owned = MissedDrawRow {
            id: Identity {
                white: "a\u{1}b".into(),
                ..id()
            },
            rule: "fivefold".into(),
            ply: u32::MAX,
            plies_after: 0,
            fen: "f".into(),
            basis: String::new(),
        };
        let borrowed = MissedDrawRow {
            id: Identity {
                source: "a.pgn",
                game: 2,
                offset: 30,
                line: 4,
                event: "E, \"x\"",
                site: "S",
                date: "1986.11.??",
                round: "1",
                white: "a\u{1}b",
                black: "B",
                result: "1-0",
                variant: "standard",
            },
            rule: "fivefold",
            ply: u32::MAX,
            plies_after: 0,
            fen: "f",
            basis: "",
        };
        assert_eq!(written(&borrowed), written(&owned));
        assert_eq!(borrowed.owned(&|s: &str| s.to_owned()), owned);
        assert!(written(&owned).contains(",a\u{fffd}b,B,1-0,standard,fivefold,4294967295,0,f,\n"));
    }

    /// The identity columns are [`Identity`]'s fields, and each row's own
    /// columns its fields after `id`: serde sees the same names.
    #[test]
    fn the_columns_are_the_fields() {
        struct Fields(Vec<&'static str>);
        impl<'de> serde::Deserializer<'de> for &mut Fields {
            type Error = serde::de::value::Error;
            fn deserialize_any<V: serde::de::Visitor<'de>>(
                self,
                _: V,
            ) -> Result<V::Value, Self::Error> {
                Err(serde::de::Error::custom("fields only"))
            }
            fn deserialize_struct<V: serde::de::Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> Result<V::Value, Self::Error> {
                self.0.extend(fields);
                Err(serde::de::Error::custom("fields only"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf option unit unit_struct newtype_struct seq tuple
                tuple_struct map enum identifier ignored_any
            }
        }
        fn fields<T: DeserializeOwned>() -> Vec<&'static str> {
            let mut f = Fields(Vec::new());
            let _ = T::deserialize(&mut f);
            f.0
        }
        assert_eq!(fields::<Identity>(), IDENTITY);
        fn own<R: ReportRow>() -> Vec<&'static str> {
            let mut f = fields::<R>();
            assert_eq!(f.remove(0), "id", "{}", R::FILE);
            f
        }
        assert_eq!(own::<CastlingRow>(), CastlingRow::COLUMNS);
        assert_eq!(own::<ClaimRow>(), ClaimRow::COLUMNS);
        assert_eq!(own::<MissedDrawRow>(), MissedDrawRow::COLUMNS);
        assert_eq!(own::<ErrorRow>(), ErrorRow::COLUMNS);
        assert_eq!(own::<ResultRow>(), ResultRow::COLUMNS);
        let mut quirk = own::<QuirkRow>();
        assert_eq!(quirk.pop(), Some("standard"));
        assert_eq!(quirk, QuirkRow::COLUMNS[..3]);
        assert_eq!(QuirkRow::COLUMNS[3], "move");
        assert_eq!(column::<ClaimRow>("verdict"), 14);
        assert_eq!(position(&IDENTITY, "line"), 3);
    }

    #[test]
    fn another_header_or_a_bad_row_is_an_error() {
        let e = read::<MissedDrawRow>(&b"source,game\n"[..], |_| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            "missed_draws.csv: not the columns of this version: source,game"
        );
        let head = columns::<MissedDrawRow>().collect::<Vec<_>>().join(",");
        let file = format!("{head}\na,1,0,1,,,,,,,,standard,fivefold,x,7,f,\n");
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
