//! The reports as Arrow tables and Parquet files (contract v3, "Parquet"):
//! the same rows as the CSV reports, in the same columns, a number column
//! a 64-bit integer and every other column UTF-8 text, as the row types of
//! [`rows`] define them. A Parquet cell holds the value itself: the CSV
//! writer's escapes (control characters as U+FFFD, `--excel-safe`'s `'`)
//! are for lines of text and spreadsheets, which a Parquet file is not.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use arrow_array::{Array, Int64Array, RecordBatch, StringArray};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use pgn_audit_input::PathError;

use crate::Format;
use crate::rows::{self, CellStyle, Column, Record, ReportRow};

/// Rows per Arrow batch: a table is handed on in batches of this size.
pub(crate) const BATCH_ROWS: usize = 8192;

/// Rows per Parquet row group: what a Parquet writer holds in memory.
const ROW_GROUP_ROWS: usize = 65_536;

/// The file name of a report in `format`: `castling.csv` is
/// `castling.parquet` in Parquet.
pub fn file_name(csv_name: &str, format: Format) -> String {
    match format {
        Format::Csv => csv_name.to_owned(),
        Format::Parquet => {
            let stem = csv_name.strip_suffix(".csv").unwrap_or(csv_name);
            format!("{stem}.parquet")
        }
    }
}

/// The rows of one report being gathered into Arrow batches.
#[derive(Debug)]
pub struct Table {
    schema: arrow_schema::SchemaRef,
    columns: Vec<Column>,
    rows: usize,
}

impl Table {
    /// An empty table of `R`'s columns.
    pub fn new<R: ReportRow>() -> Table {
        Table {
            schema: rows::schema::<R>(),
            columns: rows::kinds::<R>().map(Column::new).collect(),
            rows: 0,
        }
    }

    /// The table's schema.
    pub fn schema(&self) -> arrow_schema::SchemaRef {
        self.schema.clone()
    }

    /// Appends a row; returns whether a batch is full.
    pub fn push(&mut self, row: &impl Record) -> bool {
        row.push(&mut self.columns);
        self.rows += 1;
        self.rows >= BATCH_ROWS
    }

    /// Appends a row given by its cells in column order (as a CSV report
    /// holds them): an integer column's cell must be a decimal number.
    fn push_record(&mut self, record: &csv::ByteRecord) -> Result<bool, String> {
        for (i, (column, cell)) in self.columns.iter_mut().zip(record).enumerate() {
            match column {
                Column::Integer(b) => {
                    let n = std::str::from_utf8(cell)
                        .ok()
                        .and_then(|t| t.parse::<i64>().ok())
                        .ok_or_else(|| {
                            format!("{} is not a number", self.schema.field(i).name())
                        })?;
                    b.append_value(n);
                }
                Column::Text(b) => b.append_value(String::from_utf8_lossy(cell)),
            }
        }
        self.rows += 1;
        Ok(self.rows >= BATCH_ROWS)
    }

    /// Whether no row is waiting.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The rows gathered so far as one batch, leaving the table empty.
    pub fn batch(&mut self) -> RecordBatch {
        let arrays = self.columns.iter_mut().map(Column::finish).collect();
        self.rows = 0;
        RecordBatch::try_new(self.schema.clone(), arrays)
            .expect("the columns are built from the schema's own kinds")
    }
}

/// One Parquet report being written, under its temporary name.
pub(crate) struct ParquetOut {
    out: ArrowWriter<BufWriter<File>>,
    table: Table,
    /// The report's final path, which its errors name.
    path: PathBuf,
}

/// A Parquet writer's error, said as `PATH: CAUSE`.
fn parquet_err(path: &Path) -> impl Fn(parquet::errors::ParquetError) -> PathError + '_ {
    move |e| PathError::caused(path, e.to_string(), e)
}

impl ParquetOut {
    /// A Parquet report of `R` into `file`, whose final path is `path`.
    pub(crate) fn new<R: ReportRow>(file: File, path: PathBuf) -> Result<ParquetOut, PathError> {
        let table = Table::new::<R>();
        let properties = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        let out = ArrowWriter::try_new(
            BufWriter::with_capacity(1 << 16, file),
            table.schema(),
            Some(properties),
        )
        .map_err(parquet_err(&path))?;
        Ok(ParquetOut { out, table, path })
    }

    /// Writes one row.
    pub(crate) fn put(&mut self, row: &impl Record) -> Result<(), PathError> {
        if self.table.push(row) {
            self.write_batch()?;
        }
        Ok(())
    }

    /// Writes one row given by its cells, as [`RowReader`] reads them.
    pub(crate) fn put_record(&mut self, record: &csv::ByteRecord) -> Result<(), String> {
        if self.table.push_record(record)? {
            self.write_batch().map_err(|e| e.cause)?;
        }
        Ok(())
    }

    fn write_batch(&mut self) -> Result<(), PathError> {
        let batch = self.table.batch();
        self.out.write(&batch).map_err(parquet_err(&self.path))
    }

    /// Writes the rows left and the file's footer.
    pub(crate) fn finish(mut self) -> Result<(), PathError> {
        if !self.table.is_empty() {
            self.write_batch()?;
        }
        let path = self.path.clone();
        let file = self
            .out
            .into_inner()
            .map_err(parquet_err(&path))?
            .into_inner()
            .map_err(|e| PathError::io(&path, e.into_error()))?;
        crate::folder::close(file, &path)
    }
}

/// The cause given for a Parquet report whose columns are not `R`'s.
const NOT_THE_COLUMNS: &str = "its columns are not those of version 3 of the report contract";

/// Opens the Parquet report of `R` at `path`, refused unless it has
/// exactly `R`'s columns, in order and of their kinds.
fn open_checked<R: ReportRow>(path: &Path) -> Result<ParquetRecordBatchReader, String> {
    let file = File::open(path).map_err(|e| pgn_audit_input::io_cause(&e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| format!("not a readable Parquet file: {e}"))?;
    let want = rows::schema::<R>();
    let found = builder.schema();
    let same = found.fields().len() == want.fields().len()
        && found
            .fields()
            .iter()
            .zip(want.fields())
            .all(|(a, b)| a.name() == b.name() && a.data_type() == b.data_type());
    if !same {
        return Err(NOT_THE_COLUMNS.to_owned());
    }
    builder
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| e.to_string())
}

/// Checks that the Parquet report at `path` has exactly `R`'s columns.
pub(crate) fn check_schema<R: ReportRow>(path: &Path) -> Result<(), String> {
    open_checked::<R>(path).map(drop)
}

/// The rows of one report of a folder, read back in order as the cells of
/// CSV records, in either format: a Parquet integer in decimal, its text
/// as it is.
pub(crate) enum RowReader {
    /// A CSV report, its header read.
    Csv(csv::Reader<File>),
    /// A Parquet report, its columns checked.
    Parquet {
        reader: ParquetRecordBatchReader,
        /// The batch being read and its next row.
        batch: Option<RecordBatch>,
        next: usize,
    },
}

/// Whether the file at `path` is empty or ends with `\n`.
fn ends_with_line_end(path: &Path) -> Result<bool, String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).map_err(|e| pgn_audit_input::io_cause(&e))?;
    let len = file
        .metadata()
        .map_err(|e| pgn_audit_input::io_cause(&e))?
        .len();
    if len == 0 {
        return Ok(true);
    }
    let mut last = [0u8];
    file.seek(SeekFrom::End(-1))
        .and_then(|_| file.read_exact(&mut last))
        .map_err(|e| pgn_audit_input::io_cause(&e))?;
    Ok(last[0] == b'\n')
}

impl RowReader {
    /// Opens the report of `R` at `path` (in `format`) at its first row.
    /// A CSV report that does not end with a line end was cut short (every
    /// row a run writes ends with one): it is refused, not read as whole.
    pub(crate) fn open<R: ReportRow>(path: &Path, format: Format) -> Result<RowReader, String> {
        match format {
            Format::Csv if !ends_with_line_end(path)? => {
                Err("the file does not end with a line end: it was cut short".to_owned())
            }
            Format::Csv => csv::ReaderBuilder::new()
                .has_headers(true)
                .flexible(true)
                .from_path(path)
                .map(RowReader::Csv)
                .map_err(|e| e.to_string()),
            Format::Parquet => Ok(RowReader::Parquet {
                reader: open_checked::<R>(path)?,
                batch: None,
                next: 0,
            }),
        }
    }

    /// Reads the next row into `record`; false at the end.
    pub(crate) fn read(&mut self, record: &mut csv::ByteRecord) -> Result<bool, String> {
        let (reader, batch, next) = match self {
            RowReader::Csv(r) => return r.read_byte_record(record).map_err(|e| e.to_string()),
            RowReader::Parquet {
                reader,
                batch,
                next,
            } => (reader, batch, next),
        };
        loop {
            if let Some(b) = batch.as_ref()
                && *next < b.num_rows()
            {
                record.clear();
                for column in b.columns() {
                    push_cell(record, column.as_ref(), *next)?;
                }
                *next += 1;
                return Ok(true);
            }
            match reader.next() {
                None => return Ok(false),
                Some(read) => {
                    *batch = Some(read.map_err(|e| e.to_string())?);
                    *next = 0;
                }
            }
        }
    }

    /// How a text cell that holds `text` reads from this report: as the
    /// CSV writer wrote it in `style`, or as it is in Parquet.
    pub(crate) fn cell_of(format: Format, style: CellStyle, text: &str) -> Vec<u8> {
        match format {
            Format::Csv => rows::text_cell(text, style).into_owned().into_bytes(),
            Format::Parquet => text.as_bytes().to_vec(),
        }
    }
}

/// Pushes row `i` of `array` (a column of a report checked to be an
/// integer or a text column) onto `record`; a null is no value of a
/// report.
fn push_cell(record: &mut csv::ByteRecord, array: &dyn Array, i: usize) -> Result<(), String> {
    if array.is_null(i) {
        return Err("a null value, which no report holds".to_owned());
    }
    let any = array.as_any();
    if let Some(a) = any.downcast_ref::<Int64Array>() {
        record.push_field(itoa::Buffer::new().format(a.value(i)).as_bytes());
    } else if let Some(a) = any.downcast_ref::<StringArray>() {
        record.push_field(a.value(i).as_bytes());
    } else {
        return Err(NOT_THE_COLUMNS.to_owned());
    }
    Ok(())
}

/// One report's rows as an Arrow table: the columns of its Parquet report
/// ([`rows::schema`]) and its rows in input order, in batches of at most
/// [`BATCH_ROWS`].
#[derive(Debug, Clone)]
pub struct ArrowTable {
    /// The report's columns.
    pub schema: arrow_schema::SchemaRef,
    /// Its rows, in input order.
    pub batches: Vec<RecordBatch>,
}

impl ArrowTable {
    /// How many rows the table holds.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

/// Every row report of a run kept in memory ([`crate::Reports::in_memory`]),
/// as Arrow tables.
#[derive(Debug, Clone)]
pub struct Tables {
    /// castling.csv's rows.
    pub castling: ArrowTable,
    /// claims.csv's rows.
    pub claims: ArrowTable,
    /// missed_draws.csv's rows.
    pub missed_draws: ArrowTable,
    /// results.csv's rows.
    pub results: ArrowTable,
    /// errors.csv's rows.
    pub errors: ArrowTable,
    /// quirks.csv's rows, where the run asked for them (`--quirks`).
    pub quirks: Option<ArrowTable>,
}

/// One report kept in memory: its rows gathered into Arrow batches, the
/// values of its Parquet report.
#[derive(Debug)]
pub(crate) struct MemoryOut {
    table: Table,
    batches: Vec<RecordBatch>,
}

impl MemoryOut {
    /// An empty report of `R`.
    pub(crate) fn new<R: ReportRow>() -> MemoryOut {
        MemoryOut {
            table: Table::new::<R>(),
            batches: Vec::new(),
        }
    }

    /// Appends one row.
    pub(crate) fn put(&mut self, row: &impl Record) {
        if self.table.push(row) {
            self.batches.push(self.table.batch());
        }
    }

    /// The report as a table, the rows left as its last batch.
    pub(crate) fn finish(mut self) -> ArrowTable {
        if !self.table.is_empty() {
            self.batches.push(self.table.batch());
        }
        ArrowTable {
            schema: self.table.schema(),
            batches: self.batches,
        }
    }
}
