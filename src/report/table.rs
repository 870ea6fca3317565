//! The reports as Arrow tables and Parquet files (contract v3, "Parquet"):
//! the same rows as the CSV reports, in the same columns, a number column
//! a 64-bit integer and every other column UTF-8 text, as the row types of
//! [`rows`] define them.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, Int64Array, RecordBatch, StringArray};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::rows::{self, Column, Record, ReportRow};

/// Rows per Arrow batch: a table is handed on in batches of this size.
pub(crate) const BATCH_ROWS: usize = 8192;

/// Rows per Parquet row group: what a Parquet writer holds in memory.
const ROW_GROUP_ROWS: usize = 65_536;

/// The file name of a report in `format`: `castling.csv` is
/// `castling.parquet` in Parquet.
pub fn file_name(csv_name: &str, format: crate::Format) -> String {
    match format {
        crate::Format::Csv => csv_name.to_owned(),
        crate::Format::Parquet => parquet_name(csv_name),
    }
}

/// `NAME.parquet` for the CSV report `NAME.csv`.
pub(crate) fn parquet_name(csv_name: &str) -> String {
    let stem = csv_name.strip_suffix(".csv").unwrap_or(csv_name);
    format!("{stem}.parquet")
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
    /// holds it): an integer column's cell must be a decimal number.
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
fn parquet_err(path: &Path) -> impl Fn(parquet::errors::ParquetError) -> crate::OutputError + '_ {
    move |e| crate::OutputError {
        path: path.to_path_buf(),
        cause: e.to_string(),
        source: Some(Box::new(e)),
    }
}

impl ParquetOut {
    /// A Parquet report of `R` into `file`, whose final path is `path`.
    pub(crate) fn new<R: ReportRow>(
        file: File,
        path: PathBuf,
    ) -> Result<ParquetOut, crate::OutputError> {
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
    pub(crate) fn put(&mut self, row: &impl Record) -> Result<(), crate::OutputError> {
        if self.table.push(row) {
            self.write_batch()?;
        }
        Ok(())
    }

    /// Writes one row given by its cells, as a CSV report holds them.
    pub(crate) fn put_record(&mut self, record: &csv::ByteRecord) -> Result<(), String> {
        if self.table.push_record(record)? {
            self.write_batch().map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn write_batch(&mut self) -> Result<(), crate::OutputError> {
        let batch = self.table.batch();
        self.out.write(&batch).map_err(parquet_err(&self.path))
    }

    /// Writes the rows left and the file's footer.
    pub(crate) fn finish(mut self) -> Result<(), crate::OutputError> {
        if !self.table.is_empty() {
            self.write_batch()?;
        }
        let path = self.path.clone();
        self.out.close().map_err(parquet_err(&path))?;
        Ok(())
    }
}

/// Checks that the Parquet report at `path` has exactly `R`'s columns, in
/// order and of their kinds.
pub(crate) fn check_schema<R: ReportRow>(path: &Path) -> Result<(), String> {
    let file = File::open(path).map_err(|e| pgn_audit_input::io_cause(&e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| e.to_string())?;
    let want = rows::schema::<R>();
    let found = builder.schema();
    let same = found.fields().len() == want.fields().len()
        && found
            .fields()
            .iter()
            .zip(want.fields())
            .all(|(a, b)| a.name() == b.name() && a.data_type() == b.data_type());
    match same {
        true => Ok(()),
        false => Err("its columns are not those of version 3 of the report contract".to_owned()),
    }
}

/// Reads every row of the Parquet report of `R` at `path` as the cells of
/// a CSV record (an integer in decimal), in order, into `each`.
pub(crate) fn read_records<R: ReportRow>(
    path: &Path,
    mut each: impl FnMut(&csv::ByteRecord) -> Result<(), String>,
) -> Result<(), String> {
    check_schema::<R>(path)?;
    let file = File::open(path).map_err(|e| pgn_audit_input::io_cause(&e))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.with_batch_size(BATCH_ROWS).build())
        .map_err(|e| e.to_string())?;
    let mut record = csv::ByteRecord::new();
    for batch in reader {
        let batch = batch.map_err(|e| e.to_string())?;
        let columns: Vec<Cells> = batch.columns().iter().map(Cells::of).collect();
        for i in 0..batch.num_rows() {
            record.clear();
            for column in &columns {
                column.push(&mut record, i)?;
            }
            each(&record)?;
        }
    }
    Ok(())
}

/// A column of a batch read back, typed.
enum Cells<'a> {
    Integer(&'a Int64Array),
    Text(&'a StringArray),
    Other,
}

impl<'a> Cells<'a> {
    fn of(array: &'a Arc<dyn Array>) -> Cells<'a> {
        let any = array.as_any();
        if let Some(a) = any.downcast_ref::<Int64Array>() {
            Cells::Integer(a)
        } else if let Some(a) = any.downcast_ref::<StringArray>() {
            Cells::Text(a)
        } else {
            Cells::Other
        }
    }

    /// Pushes row `i`'s cell onto `record`; a null is no value of a report.
    fn push(&self, record: &mut csv::ByteRecord, i: usize) -> Result<(), String> {
        let null = || "a null value, which no report holds".to_owned();
        match self {
            Cells::Integer(a) if a.is_valid(i) => {
                record.push_field(itoa::Buffer::new().format(a.value(i)).as_bytes());
            }
            Cells::Text(a) if a.is_valid(i) => record.push_field(a.value(i).as_bytes()),
            Cells::Other => return Err("a column of another type".to_owned()),
            _ => return Err(null()),
        }
        Ok(())
    }
}
