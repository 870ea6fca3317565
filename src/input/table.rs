//! Parquet input (contract v3, "Parquet"): a table of games, one a row, as
//! the Lichess open database publishes them (`Event`, `Site`, `White`, …,
//! `movetext`). Each row is written out as the PGN text of one game (its
//! tags from the columns, then its movetext) into batches like those of a
//! PGN source, so the audit and the reports are the same; a game's
//! `offset` is its row's 0-based index and its `line` the row's 1-based
//! number.
//!
//! A row group is read a few thousand rows at a time
//! ([`ParquetSource::read_group`]), and a few row groups at once, each on
//! a thread of its own; the batches are audited in parallel as a PGN
//! source's are.

use std::cell::Cell;
use std::collections::HashMap;
use std::fs::File;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Once};

use arrow_array::cast::AsArray;
use arrow_array::temporal_conversions::{as_date, as_datetime, as_time};
use arrow_array::types::{
    Date32Type, Date64Type, Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type,
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, Time32MillisecondType,
    Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use bytes::Bytes;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder,
};
use parquet::errors::ParquetError;
use parquet::file::FOOTER_SIZE;
use parquet::file::metadata::{FooterTail, ParquetMetaDataReader};
use parquet::file::reader::{ChunkReader, Length};

use crate::batch::BATCH_GAMES;
use crate::footer::{self, Depth};
use crate::split::GameSpan;
use crate::{BATCH_BYTES, Batch, GAME_CAP, PathError};

/// The column that holds a game's movetext.
const MOVETEXT: &str = "movetext";

/// Rows decoded at a time.
const ROWS_AT_A_TIME: usize = 1024;

/// How many columns of a Parquet file may be read as tags: each is
/// decoded with buffers of its own, so that memory grows with their
/// number (20 rows of 10,000 text columns took 186 MiB). A table of games
/// has a few dozen (the Lichess table 17); a file with more is refused.
pub const MAX_TAG_COLUMNS: usize = 256;

/// How many levels a Parquet file's columns may nest (a struct in a
/// struct …, a top-level column at level 1): a deeper schema is refused
/// before it is decoded, whose decoding recurses once a level (a
/// thousand levels overflow a thread's stack). A table of games does not
/// nest (the Lichess table's columns are all at the top); 64 is the
/// depth to which the parquet crate itself skips nested Thrift fields.
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// The magic bytes a Parquet file starts (and ends) with.
pub(crate) fn is_parquet(head: &[u8]) -> bool {
    head.starts_with(b"PAR1")
}

/// An opened Parquet source: its footer read, its columns checked.
pub struct ParquetSource {
    file: Positioned,
    metadata: ArrowReaderMetadata,
    /// The columns read: the tags (by name, in column order), then the
    /// movetext, as indexes of the file's top-level columns.
    tags: Vec<(usize, String)>,
    movetext: usize,
}

impl std::fmt::Debug for ParquetSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetSource")
            .field("tags", &self.tags)
            .finish_non_exhaustive()
    }
}

/// Whether a value of `data_type` is a tag: a string, a number (decimals
/// included), a boolean, a date, a time or a timestamp, or a dictionary of
/// these (pandas' categories, Polars' enums).
fn is_tag_type(data_type: &DataType) -> bool {
    use DataType::*;
    if let Dictionary(_, values) = data_type {
        return is_tag_type(values);
    }
    matches!(
        data_type,
        Utf8 | LargeUtf8
            | Utf8View
            | Decimal32(_, _)
            | Decimal64(_, _)
            | Decimal128(_, _)
            | Decimal256(_, _)
            | Boolean
            | Int8
            | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
            | Float32
            | Float64
            | Date32
            | Date64
            | Time32(_)
            | Time64(_)
            | Timestamp(_, _)
    )
}

/// Whether values of `data_type` are text: a string, or a dictionary of
/// strings.
fn is_text(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, values) => is_text(values),
        _ => false,
    }
}

/// Whether `name` can be a PGN tag's name: letters, digits and `_`,
/// starting with a letter or digit (the standard's symbol, less the
/// characters no tag name holds).
fn is_tag_name(name: &str) -> bool {
    name.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl ParquetSource {
    /// Opens the Parquet file `file` of the source `name`: its footer is
    /// read, its schema no deeper than [`MAX_SCHEMA_DEPTH`], and it must
    /// have one text column `movetext` and no other column of its name,
    /// no two tag columns of one name, and at most [`MAX_TAG_COLUMNS`]
    /// tag columns.
    pub(crate) fn open(name: &str, file: File) -> Result<ParquetSource, PathError> {
        let len = file.metadata().map_err(|e| PathError::io(name, e))?.len();
        let file = Positioned {
            file: Arc::new(file),
            len,
        };
        let unreadable =
            |cause: &str| PathError::new(name, format!("not a readable Parquet file: {cause}"));
        let footer = read_footer(&file).map_err(|e| unreadable(&e))?;
        match footer::schema_depth(&footer, MAX_SCHEMA_DEPTH) {
            Some(Depth::Levels(_)) => {}
            Some(Depth::Beyond) => {
                return Err(PathError::new(
                    name,
                    format!(
                        "refused: a Parquet file whose columns nest deeper than {MAX_SCHEMA_DEPTH} levels, not a table of games"
                    ),
                ));
            }
            None => return Err(unreadable("its footer's schema cannot be read")),
        }
        let metadata = quietly(|| {
            let metadata = ParquetMetaDataReader::decode_metadata(&footer)?;
            ArrowReaderMetadata::try_new(Arc::new(metadata), Default::default())
        })
        .and_then(|decoded| decoded.map_err(|e| read_cause(&e)))
        .map_err(|e| unreadable(&e))?;
        drop(footer);
        let schema = metadata.schema();
        let fields = schema.fields();
        let mut named: HashMap<&str, usize> = HashMap::new();
        for field in fields {
            *named.entry(field.name()).or_default() += 1;
        }
        let mut tags = Vec::new();
        let mut movetext = None;
        for (i, field) in fields.iter().enumerate() {
            let is_movetext = field.name() == MOVETEXT;
            let is_tag =
                !is_movetext && is_tag_type(field.data_type()) && is_tag_name(field.name());
            let times = named[field.name().as_str()];
            if (is_movetext || is_tag) && times > 1 {
                return Err(PathError::new(
                    name,
                    format!(
                        "refused: a Parquet file with {times} columns named {}: which one holds the games' {} is not known",
                        field.name(),
                        match is_movetext {
                            true => "moves",
                            false => "tag",
                        }
                    ),
                ));
            }
            if is_movetext {
                if !is_text(field.data_type()) {
                    return Err(PathError::new(
                        name,
                        format!(
                            "refused: a Parquet file whose movetext column is not text ({})",
                            field.data_type()
                        ),
                    ));
                }
                movetext = Some(i);
            } else if is_tag {
                tags.push((i, field.name().clone()));
            }
        }
        let Some(movetext) = movetext else {
            return Err(PathError::new(
                name,
                "refused: a Parquet file without a movetext column, not a table of games",
            ));
        };
        if tags.len() > MAX_TAG_COLUMNS {
            return Err(PathError::new(
                name,
                format!(
                    "refused: a Parquet file with {} tag columns, more than {MAX_TAG_COLUMNS}: not a table of games",
                    tags.len()
                ),
            ));
        }
        Ok(ParquetSource {
            file,
            metadata,
            tags,
            movetext,
        })
    }

    /// How many row groups the file has.
    pub fn row_groups(&self) -> usize {
        self.metadata.metadata().num_row_groups()
    }

    /// The 0-based index of each row group's first row.
    pub fn first_rows(&self) -> Vec<u64> {
        let mut next = 0u64;
        let groups = self.metadata.metadata().row_groups();
        groups
            .iter()
            .map(|group| {
                let first = next;
                next += u64::try_from(group.num_rows()).unwrap_or(0);
                first
            })
            .collect()
    }

    /// The reading of row group `group`, whose first row is the file's
    /// `first_row`, a step at a time (see [`GroupReader::step`]); `spare`
    /// buffers are written into first.
    pub fn read_group(
        self: &Arc<Self>,
        group: usize,
        first_row: u64,
        spare: Vec<Vec<u8>>,
    ) -> GroupReader {
        GroupReader {
            rows: Some(self.row_group(group)),
            table: self.clone(),
            group,
            text: Text {
                spare,
                base: 0,
                bytes: Vec::new(),
                games: Vec::new(),
                rows: Vec::new(),
                next_row: first_row,
                capped: false,
            },
        }
    }

    /// The rows of row group `group`, its tag and movetext columns only,
    /// read by position so that row groups can be read at once.
    fn row_group(&self, group: usize) -> Result<ParquetRecordBatchReader, String> {
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(
            self.file.clone(),
            self.metadata.clone(),
        );
        let roots = self.tags.iter().map(|(i, _)| *i).chain([self.movetext]);
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
        quietly(|| {
            builder
                .with_projection(mask)
                .with_row_groups(vec![group])
                .with_batch_size(ROWS_AT_A_TIME)
                .build()
        })?
        .map_err(|e| read_cause(&e))
    }

    /// Writes the rows of `batch` (its columns: the tag and movetext
    /// columns, in the file's order) as games, handing out each batch of
    /// games that is full.
    fn add_rows(&self, batch: &RecordBatch, text: &mut Text, emit: &mut impl FnMut(Batch)) {
        // A projection keeps the file's column order.
        let mut read: Vec<usize> = self.tags.iter().map(|(i, _)| *i).collect();
        read.push(self.movetext);
        read.sort_unstable();
        let column = |i: usize| {
            let at = read.binary_search(&i).unwrap_or_default();
            batch.column(at).as_ref()
        };
        let tags: Vec<(&str, &dyn Array)> = self
            .tags
            .iter()
            .map(|(i, name)| (name.as_str(), column(*i)))
            .collect();
        let movetext = column(self.movetext);
        let mut value = String::new();
        for row in 0..batch.num_rows() {
            let start = text.bytes.len();
            for (name, column) in &tags {
                value.clear();
                if cell(*column, row, &mut value) {
                    text.tag(name, &value);
                }
            }
            if text.bytes.len() > start {
                text.bytes.push(b'\n');
            }
            value.clear();
            cell(movetext, row, &mut value);
            text.bytes.extend_from_slice(value.as_bytes());
            text.bytes.push(b'\n');
            let capped = text.bytes.len() - start > GAME_CAP;
            if capped {
                text.bytes.truncate(start + GAME_CAP);
            }
            text.end_game(start);
            text.capped = capped;
            if capped || text.full() {
                emit(text.hand_out(false));
            }
        }
    }
}

/// The reading of one row group: its rows as games, in order, in batches
/// whose offsets count from the start of the row group's text (see
/// [`Batch::moved_to`]), none the source's last.
pub struct GroupReader {
    table: Arc<ParquetSource>,
    group: usize,
    /// Until the row group ends.
    rows: Option<Result<ParquetRecordBatchReader, String>>,
    text: Text,
}

impl GroupReader {
    /// Reads the next few thousand rows into batches handed to `emit`.
    /// Once the row group has ended, returns the length of its text handed
    /// out and the error that ended it early, if one did (the rows read
    /// before it handed out first); `raw_read` then counts its stored
    /// bytes.
    pub fn step(
        &mut self,
        raw_read: &AtomicU64,
        mut emit: impl FnMut(Batch),
    ) -> Option<(u64, Option<String>)> {
        let group = self.group;
        let read = match self.rows.as_mut()? {
            Ok(rows) => match quietly(|| rows.next()) {
                Ok(read) => read.map(|rows| rows.map_err(|e| read_cause(&e))),
                Err(panic) => Some(Err(panic)),
            },
            Err(e) => Some(Err(e.clone())),
        }
        .map(|read| read.map_err(|e| format!("row group {group}: {e}")));
        let error = match read {
            Some(Ok(rows)) => {
                self.table.add_rows(&rows, &mut self.text, &mut emit);
                return None;
            }
            Some(Err(e)) => Some(e),
            None => None,
        };
        self.rows = None;
        if !self.text.games.is_empty() {
            emit(self.text.hand_out(false));
        }
        if error.is_none() {
            let metadata = self.table.metadata.metadata();
            let stored = metadata.row_group(self.group).compressed_size();
            raw_read.fetch_add(u64::try_from(stored).unwrap_or(0), Ordering::Relaxed);
        }
        Some((self.text.base, error))
    }
}

impl Batch {
    /// The batch of a row group's rows, its offsets counted from the start
    /// of the row group's text, moved to where that text starts in the
    /// source's: `base`.
    pub fn moved_to(mut self, base: u64) -> Batch {
        self.base += base;
        for game in &mut self.games {
            game.start += base;
            game.end += base;
        }
        self
    }
}

/// The parquet crate's words for a page whose bytes fail the CRC-32 in
/// its header.
const CRC_MISMATCH: &str = "Page CRC checksum mismatch";

/// The cause of a read error as the parquet crate says it, less the
/// names of the crate's error types ("Parquet argument error: Parquet
/// error: "), a failed checksum in words of its own.
fn read_cause(e: &impl std::fmt::Display) -> String {
    let text = e.to_string();
    let cause = text
        .strip_prefix("Parquet argument error: ")
        .unwrap_or(&text);
    let cause = cause.strip_prefix("Parquet error: ").unwrap_or(cause);
    match cause {
        CRC_MISMATCH => "a page fails its checksum (CRC-32): the file is damaged".to_owned(),
        cause => cause.to_owned(),
    }
}

/// The Thrift bytes of the file's metadata, read by the length its last
/// eight bytes give.
fn read_footer(file: &Positioned) -> Result<Bytes, String> {
    let size = FOOTER_SIZE as u64;
    if file.len < size {
        return Err(format!("{} bytes, too short for a footer", file.len));
    }
    let tail = file
        .get_bytes(file.len - size, FOOTER_SIZE)
        .map_err(|e| e.to_string())?;
    let tail = FooterTail::try_from(tail.as_ref()).map_err(|e| e.to_string())?;
    if tail.is_encrypted_footer() {
        return Err("its footer is encrypted".to_owned());
    }
    let len = tail.metadata_length();
    if len as u64 > file.len - size {
        return Err(format!(
            "its footer's length, {len} bytes, is more than the file holds"
        ));
    }
    file.get_bytes(file.len - size - len as u64, len)
        .map_err(|e| e.to_string())
}

thread_local! {
    /// The thread runs [`quietly`]: a panic in it is said by its caller.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, one of the parquet and Arrow crates' decoders, its panic its
/// error: they trust some of the lengths and offsets a damaged file gives
/// and panic where those do not hold ("offset + len out of bounds"). The
/// panic hook says nothing of such a panic (the caller says it as one
/// line), nor of one raised after it on another thread, so that standard
/// error does not depend on the thread count; any other panic is said as
/// the hook before this one said it.
pub(crate) fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.get() {
                hook(info);
            }
        }));
    });
    let was = QUIET.replace(true);
    let result = std::panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.set(was);
    result.map_err(|panic| {
        let text = panic
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("(no message)");
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        format!("the decoder failed: {}", lines.join(" "))
    })
}

/// A Parquet file read by position (`pread`): parquet's reader of a
/// [`File`] seeks a descriptor that all its clones share, which row groups
/// read at once on several threads would race for.
#[derive(Clone)]
struct Positioned {
    file: Arc<File>,
    len: u64,
}

/// Reads from `file` at `at` without moving a shared position.
fn read_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    #[cfg(unix)]
    return std::os::unix::fs::FileExt::read_at(file, buf, at);
    #[cfg(windows)]
    return std::os::windows::fs::FileExt::seek_read(file, buf, at);
}

impl Length for Positioned {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for Positioned {
    type T = std::io::BufReader<PositionedRead>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(std::io::BufReader::new(PositionedRead {
            file: self.file.clone(),
            at: start,
        }))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        // A damaged length past the file's end is refused before its
        // buffer is made.
        let left = self.len.saturating_sub(start);
        if length as u64 > left {
            return Err(ParquetError::EOF(format!(
                "Expected to read {length} bytes, read only {left}"
            )));
        }
        let mut buffer = vec![0; length];
        let mut read = 0;
        while read < length {
            match read_at(&self.file, &mut buffer[read..], start + read as u64) {
                Ok(0) => break,
                Ok(n) => read += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        if read != length {
            return Err(ParquetError::EOF(format!(
                "Expected to read {length} bytes, read only {read}"
            )));
        }
        Ok(buffer.into())
    }
}

/// A reader of a [`Positioned`] file from an offset on.
struct PositionedRead {
    file: Arc<File>,
    at: u64,
}

impl std::io::Read for PositionedRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = read_at(&self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// The PGN text of the rows read so far, and their games.
struct Text {
    /// Buffers of batches written, to write into again.
    spare: Vec<Vec<u8>>,
    /// The offset of `bytes[0]` in the source's text.
    base: u64,
    bytes: Vec<u8>,
    games: Vec<GameSpan>,
    /// The rows' 0-based indexes.
    rows: Vec<u64>,
    /// The next row's index.
    next_row: u64,
    /// The last game was cut at [`GAME_CAP`].
    capped: bool,
}

impl Text {
    /// Writes the tag `[name "value"]`, `"` and `\` escaped, a control
    /// character (no tag value holds a line end) as a space.
    fn tag(&mut self, name: &str, value: &str) {
        self.bytes.push(b'[');
        self.bytes.extend_from_slice(name.as_bytes());
        self.bytes.extend_from_slice(b" \"");
        for c in value.chars() {
            match c {
                '"' | '\\' => {
                    self.bytes.push(b'\\');
                    self.bytes.push(c as u8);
                }
                c if c.is_control() => self.bytes.push(b' '),
                c => self
                    .bytes
                    .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            }
        }
        self.bytes.extend_from_slice(b"\"]\n");
    }

    /// Ends the game that started at `start` in `bytes`.
    fn end_game(&mut self, start: usize) {
        self.games.push(GameSpan {
            start: self.base + start as u64,
            end: self.base + self.bytes.len() as u64,
            // A row is a whole game: no read error can cut into it.
            ended: true,
        });
        self.rows.push(self.next_row);
        self.next_row += 1;
    }

    /// Whether the games gathered make a batch.
    fn full(&self) -> bool {
        self.bytes.len() >= BATCH_BYTES || self.games.len() >= BATCH_GAMES
    }

    /// The games gathered, as a batch (`last`: the source's last).
    fn hand_out(&mut self, last: bool) -> Batch {
        let next = self.spare.pop().map(|mut b| {
            b.clear();
            b
        });
        let bytes = std::mem::replace(&mut self.bytes, next.unwrap_or_default());
        let len = bytes.len();
        let rows = std::mem::take(&mut self.rows);
        let batch = Batch {
            base: self.base,
            bytes,
            len,
            games: std::mem::take(&mut self.games),
            lines: rows.iter().map(|r| r + 1).collect(),
            first_game: rows.first().map_or(self.next_row, |r| r + 1),
            offsets: rows,
            capped: std::mem::take(&mut self.capped),
            last,
        };
        self.base += len as u64;
        batch
    }
}

/// Writes a date (`YYYY-MM-DD` as chrono shows it) as PGN does:
/// `YYYY.MM.DD`.
fn date(d: Option<impl std::fmt::Display>, out: &mut String) {
    if let Some(d) = d {
        let d = d.to_string();
        match d.len() == 10 && d.as_bytes()[0].is_ascii_digit() {
            true => out.push_str(&d.replace('-', ".")),
            false => out.push_str(&d),
        }
    }
}

/// Writes a time as `HH:MM:SS`, a fraction of a second left out.
fn time(t: Option<impl std::fmt::Display>, out: &mut String) {
    if let Some(t) = t {
        let t = t.to_string();
        out.push_str(t.split('.').next().unwrap_or(&t));
    }
}

/// Writes row `row` of `array` into `out` as PGN writes it: a date as
/// `YYYY.MM.DD`, a time as `HH:MM:SS`, a timestamp as both, a number in
/// decimal. Returns false for a null (a missing tag).
fn cell(array: &dyn Array, row: usize, out: &mut String) -> bool {
    use std::fmt::Write;
    if array.is_null(row) {
        return false;
    }
    macro_rules! number {
        ($t:ty) => {{
            let _ = write!(out, "{}", array.as_primitive::<$t>().value(row));
        }};
    }
    macro_rules! decimal {
        ($t:ty) => {{
            out.push_str(&array.as_primitive::<$t>().value_as_string(row));
        }};
    }
    macro_rules! stamp {
        ($t:ty) => {{
            if let Some(at) = as_datetime::<$t>(array.as_primitive::<$t>().value(row)) {
                date(Some(at.date()), out);
                out.push(' ');
                time(Some(at.time()), out);
            }
        }};
    }
    match array.data_type() {
        DataType::Utf8 => out.push_str(array.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => out.push_str(array.as_string::<i64>().value(row)),
        DataType::Utf8View => out.push_str(array.as_string_view().value(row)),
        DataType::Boolean => {
            let _ = write!(out, "{}", array.as_boolean().value(row));
        }
        DataType::Int8 => number!(Int8Type),
        DataType::Int16 => number!(Int16Type),
        DataType::Int32 => number!(Int32Type),
        DataType::Int64 => number!(Int64Type),
        DataType::UInt8 => number!(UInt8Type),
        DataType::UInt16 => number!(UInt16Type),
        DataType::UInt32 => number!(UInt32Type),
        DataType::UInt64 => number!(UInt64Type),
        DataType::Float32 => number!(Float32Type),
        DataType::Float64 => number!(Float64Type),
        DataType::Date32 => date(
            as_date::<Date32Type>(i64::from(array.as_primitive::<Date32Type>().value(row))),
            out,
        ),
        DataType::Date64 => date(
            as_date::<Date64Type>(array.as_primitive::<Date64Type>().value(row)),
            out,
        ),
        DataType::Time32(TimeUnit::Second) => time(
            as_time::<Time32SecondType>(i64::from(
                array.as_primitive::<Time32SecondType>().value(row),
            )),
            out,
        ),
        DataType::Time32(_) => time(
            as_time::<Time32MillisecondType>(i64::from(
                array.as_primitive::<Time32MillisecondType>().value(row),
            )),
            out,
        ),
        DataType::Time64(TimeUnit::Nanosecond) => time(
            as_time::<Time64NanosecondType>(
                array.as_primitive::<Time64NanosecondType>().value(row),
            ),
            out,
        ),
        DataType::Time64(_) => time(
            as_time::<Time64MicrosecondType>(
                array.as_primitive::<Time64MicrosecondType>().value(row),
            ),
            out,
        ),
        DataType::Timestamp(TimeUnit::Second, _) => stamp!(TimestampSecondType),
        DataType::Timestamp(TimeUnit::Millisecond, _) => stamp!(TimestampMillisecondType),
        DataType::Timestamp(TimeUnit::Microsecond, _) => stamp!(TimestampMicrosecondType),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => stamp!(TimestampNanosecondType),
        DataType::Decimal32(_, _) => decimal!(Decimal32Type),
        DataType::Decimal64(_, _) => decimal!(Decimal64Type),
        DataType::Decimal128(_, _) => decimal!(Decimal128Type),
        DataType::Decimal256(_, _) => decimal!(Decimal256Type),
        DataType::Dictionary(key, _) => {
            let Some(dict) = array.as_any_dictionary_opt() else {
                return false;
            };
            let keys = dict.keys();
            let index = match key.as_ref() {
                DataType::Int8 => usize::try_from(keys.as_primitive::<Int8Type>().value(row)).ok(),
                DataType::Int16 => {
                    usize::try_from(keys.as_primitive::<Int16Type>().value(row)).ok()
                }
                DataType::Int32 => {
                    usize::try_from(keys.as_primitive::<Int32Type>().value(row)).ok()
                }
                DataType::Int64 => {
                    usize::try_from(keys.as_primitive::<Int64Type>().value(row)).ok()
                }
                DataType::UInt8 => Some(usize::from(keys.as_primitive::<UInt8Type>().value(row))),
                DataType::UInt16 => Some(usize::from(keys.as_primitive::<UInt16Type>().value(row))),
                DataType::UInt32 => {
                    usize::try_from(keys.as_primitive::<UInt32Type>().value(row)).ok()
                }
                DataType::UInt64 => {
                    usize::try_from(keys.as_primitive::<UInt64Type>().value(row)).ok()
                }
                _ => None,
            };
            let values = dict.values();
            return index.is_some_and(|i| i < values.len() && cell(values.as_ref(), i, out));
        }
        _ => return false,
    }
    true
}
