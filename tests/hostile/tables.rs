//! Parquet tables turned against the reader (issue 23's third round): a
//! schema nested deeper than any table of games, a damaged data page, a
//! page that fails its checksum, a column name given twice. Each is
//! refused, or a read error, with one line naming the file, exit 2, and
//! the other sources audited; none crashes the run or lets it exit 0 with
//! games the file does not hold. Every table is written here with the
//! parquet and arrow crates.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::{ArrowWriter, arrow_writer::ArrowWriterOptions};
use parquet::file::properties::WriterProperties;

use super::common::{self, s};
use super::support;
use pgn_audit_input::{MAX_SCHEMA_DEPTH, MAX_TAG_COLUMNS};

/// Three games of the Ruy Lopez; only the second plays `Bb5`.
const GAMES: [&str; 3] = [
    "1. e4 e5 2. Nf3 Nc6 3. d4 exd4 *",
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 *",
    "1. d4 d5 2. c4 e6 3. Nc3 Nf6 *",
];

/// Writes `columns` (name and array, one row a game) as a Parquet file at
/// `path` with `props`.
fn write_table(path: &Path, columns: Vec<(Field, ArrayRef)>, props: Option<WriterProperties>) {
    let options = ArrowWriterOptions::new().with_properties(props.unwrap_or_default());
    write_table_with(path, columns, options);
}

/// Writes `columns` as a Parquet file at `path` with `options`.
fn write_table_with(path: &Path, columns: Vec<(Field, ArrayRef)>, options: ArrowWriterOptions) {
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = columns.into_iter().unzip();
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), arrays).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new_with_options(file, schema, options).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

/// A text column of `values`.
fn text(name: &str, values: &[&str]) -> (Field, ArrayRef) {
    (
        Field::new(name, DataType::Utf8, true),
        Arc::new(StringArray::from(values.to_vec())),
    )
}

/// A column of `rows` rows whose leaf is `levels` levels deep: `levels - 1`
/// structs, one in the other, around an integer.
fn nested(levels: usize, rows: usize) -> (Field, ArrayRef) {
    let mut field = Field::new("leaf", DataType::Int32, true);
    let mut array: ArrayRef = Arc::new(Int32Array::from_iter_values(
        0..i32::try_from(rows).unwrap(),
    ));
    for _ in 1..levels {
        array = Arc::new(StructArray::from(vec![(Arc::new(field), array)]));
        field = Field::new("s", array.data_type().clone(), true);
    }
    (field, array)
}

/// A Parquet file of no rows whose columns are `movetext` and, beside it,
/// a column `levels` levels deep, written with the parquet crate's own
/// schema (no Arrow schema in its metadata), on a thread whose stack
/// holds the writer's recursion.
fn deep_schema(path: &Path, levels: usize) {
    use parquet::basic::{LogicalType, Repetition, Type as Physical};
    use parquet::schema::types::Type;
    let path = path.to_owned();
    let write = move || {
        let mut column = Type::primitive_type_builder("leaf", Physical::INT32)
            .with_repetition(Repetition::OPTIONAL)
            .build()
            .unwrap();
        for _ in 1..levels {
            column = Type::group_type_builder("s")
                .with_repetition(Repetition::OPTIONAL)
                .with_fields(vec![Arc::new(column)])
                .build()
                .unwrap();
        }
        let movetext = Type::primitive_type_builder("movetext", Physical::BYTE_ARRAY)
            .with_logical_type(Some(LogicalType::String))
            .with_repetition(Repetition::OPTIONAL)
            .build()
            .unwrap();
        let schema = Type::group_type_builder("schema")
            .with_fields(vec![Arc::new(movetext), Arc::new(column)])
            .build()
            .unwrap();
        let file = std::fs::File::create(&path).unwrap();
        let w = parquet::file::writer::SerializedFileWriter::new(
            file,
            Arc::new(schema),
            Arc::default(),
        )
        .unwrap();
        w.close().unwrap();
    };
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(write)
        .unwrap()
        .join()
        .unwrap();
}

/// A file offset as an index.
fn at(offset: u64) -> usize {
    usize::try_from(offset).unwrap()
}

/// The sample's first `n` games, as a PGN file `name` in `dir`.
fn pgn(dir: &Path, name: &str, n: usize) -> PathBuf {
    let games = common::sample_games()[..n].join("\n\n") + "\n";
    common::write(dir, name, games.as_bytes())
}

/// Runs the tool on `args` with `-o out`; returns its exit code and
/// standard error.
fn run(args: &[&str], out: &Path) -> (Option<i32>, String) {
    let o = common::run(args, out);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Item 1: a Parquet file of 16 KB whose schema nests a struct 2,000
/// levels deep beside `movetext` overflowed the reader thread's stack
/// (SIGABRT, no summary.json), and named `x.pgn` in a folder it killed
/// the run over the folder's other files. It is refused with one line
/// before its schema is decoded, and the other files are audited.
#[test]
fn a_schema_two_thousand_levels_deep_is_refused_and_the_folder_audited() {
    let t = common::tempdir();
    let dir = t.path().join("games");
    std::fs::create_dir(&dir).unwrap();
    pgn(&dir, "a.pgn", 3);
    let deep = dir.join("x.pgn");
    deep_schema(&deep, 2000);
    let size = std::fs::metadata(&deep).unwrap().len();
    assert!(size < 32 << 10, "{size} bytes");
    pgn(&dir, "z.pgn", 5);
    let out = t.path().join("out");
    let (code, stderr) = run(&[s(&dir), "--quiet", "-j", "2"], &out);
    assert_eq!(
        stderr,
        format!(
            "pgn-audit: {}: refused: a Parquet file whose columns nest deeper than {MAX_SCHEMA_DEPTH} levels, not a table of games\n",
            deep.display()
        )
    );
    assert_eq!(code, Some(2));
    let v = common::summary(&out);
    assert_eq!(v["games"], 8);
    let errors: Vec<bool> = v["source_details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["error"].is_null())
        .collect();
    assert_eq!(errors, [true, false, true]);
}

/// Item 1, the bound itself: a column whose leaf is [`MAX_SCHEMA_DEPTH`]
/// levels deep beside `movetext` is read (its games audited, the struct
/// no tag), and one a level deeper is refused. (The tables are written
/// without the Arrow schema a writer may add to the metadata: Arrow's own
/// reader refuses one that nests so deep.)
#[test]
fn a_schema_as_deep_as_the_limit_is_read_and_one_level_more_refused() {
    let t = common::tempdir();
    for (levels, read) in [(MAX_SCHEMA_DEPTH, true), (MAX_SCHEMA_DEPTH + 1, false)] {
        let path = t.path().join(format!("deep{levels}.parquet"));
        write_table_with(
            &path,
            vec![text("movetext", &GAMES), nested(levels, GAMES.len())],
            ArrowWriterOptions::new().with_skip_arrow_metadata(true),
        );
        let out = t.path().join(format!("out{levels}"));
        let (code, stderr) = run(&[s(&path), "--quiet"], &out);
        if read {
            assert_eq!((code, stderr.as_str()), (Some(0), ""), "{levels} levels");
            assert_eq!(common::summary(&out)["games"], 3);
        } else {
            assert_eq!(code, Some(2));
            assert!(
                stderr.ends_with(&format!(
                    ": refused: a Parquet file whose columns nest deeper than {MAX_SCHEMA_DEPTH} levels, not a table of games\n"
                )),
                "{stderr}"
            );
        }
    }
}

/// A table's columns, and the cause it is refused for, if it is.
type Case = (&'static str, Vec<(Field, ArrayRef)>, Option<&'static str>);

/// Item 4: a table with two `movetext` columns was audited from the
/// second (exit 0), the first, whose every row plays three illegal moves,
/// silently ignored. A name that the audit reads (`movetext` or a tag)
/// given to two columns is refused with one line; two columns of a name
/// the audit does not read are no matter.
#[test]
fn two_columns_of_a_name_the_audit_reads_are_refused() {
    let t = common::tempdir();
    let illegal = ["1. Ke3 Ke6 2. Qh5 Qh4 3. O-O O-O *"; 3];
    let cases: [Case; 3] = [
        (
            "movetext",
            vec![text("movetext", &illegal), text("movetext", &GAMES)],
            Some(
                "refused: a Parquet file with 2 columns named movetext: which one holds the games' moves is not known",
            ),
        ),
        (
            "tag",
            vec![
                text("White", &["a", "b", "c"]),
                text("movetext", &GAMES),
                text("White", &["d", "e", "f"]),
            ],
            Some(
                "refused: a Parquet file with 2 columns named White: which one holds the games' tag is not known",
            ),
        ),
        (
            "unread",
            vec![
                text("movetext", &GAMES),
                text("not-a-tag", &["a", "b", "c"]),
                text("not-a-tag", &["d", "e", "f"]),
            ],
            None,
        ),
    ];
    for (case, columns, refused) in cases {
        let path = t.path().join(format!("{case}.parquet"));
        write_table(&path, columns, None);
        let out = t.path().join(format!("out-{case}"));
        let (code, stderr) = run(&[s(&path), common::SAMPLE, "--quiet"], &out);
        match refused {
            Some(cause) => {
                assert_eq!(stderr, format!("pgn-audit: {}: {cause}\n", path.display()));
                assert_eq!(code, Some(2));
                assert_eq!(common::summary(&out)["games"], 438, "{case}");
            }
            None => {
                assert_eq!((code, stderr.as_str()), (Some(0), ""), "{case}");
                assert_eq!(common::summary(&out)["games"], 441, "{case}");
            }
        }
    }
}

/// The properties of a table whose pages the tests below rewrite: plain
/// (no dictionary), uncompressed, without statistics, in data pages of
/// format 1, one page a column chunk.
fn plain_props() -> WriterProperties {
    WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_compression(parquet::basic::Compression::UNCOMPRESSED)
        .set_statistics_enabled(parquet::file::properties::EnabledStatistics::None)
        .set_writer_version(parquet::file::properties::WriterVersion::PARQUET_1_0)
        .build()
}

/// The column chunk `chunk` (one page, as [`plain_props`] writes it) with
/// the page's CRC-32 in its header: field 4 (`crc`) between field 3
/// (`compressed_page_size`) and field 5 (`data_page_header`), in Thrift's
/// compact protocol.
fn checksummed(chunk: &[u8]) -> Vec<u8> {
    let varint = |bytes: &[u8], at: &mut usize| {
        let mut v = 0u64;
        for shift in (0..).step_by(7) {
            let b = bytes[*at];
            *at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
        }
        v
    };
    let mut at = 0;
    let mut sizes = [0i64; 3];
    for size in &mut sizes {
        assert_eq!(chunk[at], 0x15, "an i32 field a delta of 1 after the last");
        at += 1;
        let v = varint(chunk, &mut at);
        *size = (v >> 1) as i64 ^ -((v & 1) as i64);
    }
    let next = chunk[at];
    assert_eq!(next, 0x2c, "field 5, a struct, two after field 3");
    let compressed = usize::try_from(sizes[2]).unwrap();
    let page = &chunk[chunk.len() - compressed..];
    let mut crc = flate2::Crc::new();
    crc.update(page);
    let crc = crc.sum() as i32;
    let mut out = chunk[..at].to_vec();
    out.push(0x15);
    let mut z = ((crc << 1) ^ (crc >> 31)) as u32;
    while z >= 0x80 {
        out.push(u8::try_from(z & 0x7f).unwrap() | 0x80);
        z >>= 7;
    }
    out.push(u8::try_from(z).unwrap());
    out.push(0x1c);
    out.extend_from_slice(&chunk[at + 1..]);
    out
}

/// Rewrites the Parquet file at `path` (written with [`plain_props`])
/// with a CRC-32 in each page's header, as a writer that checksums its
/// pages writes it; the column chunks are spliced into a new file by the
/// parquet crate, which writes their new offsets.
fn add_page_checksums(path: &Path) {
    use parquet::column::writer::ColumnCloseResult;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let bytes = bytes::Bytes::from(std::fs::read(path).unwrap());
    let reader = SerializedFileReader::new(bytes.clone()).unwrap();
    let metadata = reader.metadata();
    let schema = metadata.file_metadata().schema_descr().root_schema_ptr();
    let file = std::fs::File::create(path).unwrap();
    let mut w =
        parquet::file::writer::SerializedFileWriter::new(file, schema, Arc::new(plain_props()))
            .unwrap();
    for group in metadata.row_groups() {
        let mut g = w.next_row_group().unwrap();
        for column in group.columns() {
            assert!(column.dictionary_page_offset().is_none());
            let (start, len) = column.byte_range();
            let chunk = checksummed(&bytes[at(start)..at(start + len)]);
            let added = chunk.len() as i64 - len as i64;
            let metadata = column
                .clone()
                .into_builder()
                .set_data_page_offset(0)
                .set_total_compressed_size(chunk.len() as i64)
                .set_total_uncompressed_size(column.uncompressed_size() + added)
                .set_offset_index_offset(None)
                .set_offset_index_length(None)
                .set_column_index_offset(None)
                .set_column_index_length(None)
                .build()
                .unwrap();
            let close = ColumnCloseResult {
                bytes_written: chunk.len() as u64,
                rows_written: group.num_rows() as u64,
                metadata,
                bloom_filter: None,
                column_index: None,
                offset_index: None,
            };
            g.append_column(&bytes::Bytes::from(chunk), close).unwrap();
        }
        g.close().unwrap();
    }
    w.close().unwrap();
}

/// A table of [`GAMES`] (with an `Event` column) whose pages carry their
/// CRC-32, at `path`.
fn checksummed_table(path: &Path) {
    write_table(
        path,
        vec![text("Event", &["e1", "e2", "e3"]), text("movetext", &GAMES)],
        Some(plain_props()),
    );
    add_page_checksums(path);
}

/// Replaces the one `Bb5` in the file at `path` by `Bb9`.
fn spoil_bb5(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let at: Vec<usize> = bytes
        .windows(3)
        .enumerate()
        .filter(|(_, w)| w == b"Bb5")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 1, "Bb5 is stored once, as it is");
    bytes[at[0] + 2] = b'9';
    std::fs::write(path, bytes).unwrap();
}

/// Item 3: a page whose bytes no longer match the CRC-32 in its header
/// (one byte of a move changed, `Bb5` to `Bb9`) was read as it is (exit
/// 0, a parse_error at a move the file never held). It is a read error:
/// one line naming the file, exit 2, no game of the page reported. The
/// table as written, checksums intact, is read whole.
#[test]
fn a_page_that_fails_its_checksum_is_a_read_error() {
    let t = common::tempdir();
    let path = t.path().join("games.parquet");
    checksummed_table(&path);
    let out = t.path().join("intact");
    let (code, stderr) = run(&[s(&path), "--quiet"], &out);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert_eq!(common::summary(&out)["games"], 3);
    spoil_bb5(&path);
    let out = t.path().join("spoilt");
    let (code, stderr) = run(&[s(&path), common::SAMPLE, "--quiet"], &out);
    assert_eq!(
        stderr,
        format!(
            "pgn-audit: {}: Parquet read error: row group 0: a page fails its checksum (CRC-32): the file is damaged\n",
            path.display()
        )
    );
    assert_eq!(code, Some(2));
    let v = common::summary(&out);
    assert_eq!(v["source_details"][0]["games"], 0);
    assert_eq!(v["games"], 438);
    let errors = common::records(&out, "errors.csv");
    assert!(errors.iter().all(|r| r["source"] != s(&path)), "{errors:?}");
}

/// Item 3, the oracle: pyarrow, verifying page checksums, reads the table
/// as written (so its checksums are those of the format) and refuses it
/// once `Bb5` is `Bb9`.
#[test]
#[cfg_attr(not(oracle_pyarrow), ignore = "needs pyarrow: run tests/setup-oracles")]
fn pyarrow_agrees_on_the_page_checksums() {
    let t = common::tempdir();
    let path = t.path().join("games.parquet");
    checksummed_table(&path);
    let read = |path: &Path| {
        common::python()
            .args([
                "-c",
                "import sys, pyarrow.parquet as pq; \
                 t = pq.read_table(sys.argv[1], page_checksum_verification=True); \
                 print(t.column('movetext').to_pylist())",
                s(path),
            ])
            .output()
            .unwrap()
    };
    let o = read(&path);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("3. Bb5 a6"));
    spoil_bb5(&path);
    let o = read(&path);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("CRC checksum verification failed"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Item 2: a data page whose definition levels are damaged (a bit-packed
/// run longer than the page) made Arrow panic ("offset + len out of bounds"): five
/// lines of panic text on standard error before the exit-2 line, and with
/// several row groups read at once, in some runs only, so that standard
/// error depended on the thread count. It is the source's read error, one
/// line, the same at every thread count, with no panic text.
#[test]
fn a_damaged_page_is_one_line_at_every_thread_count() {
    let t = common::tempdir();
    let path = t.path().join("games.parquet");
    let rows = 400;
    let events: Vec<Option<String>> = (0..rows)
        .map(|r| (r % 3 != 0).then(|| format!("E{r}")))
        .collect();
    let moves: Vec<Option<String>> = (0..rows)
        .map(|r| (r % 5 != 0).then(|| format!("1. e4 e5 2. Nf3 {{ row {r} }} Nc6 *")))
        .collect();
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_compression(parquet::basic::Compression::UNCOMPRESSED)
        .set_statistics_enabled(parquet::file::properties::EnabledStatistics::None)
        .set_writer_version(parquet::file::properties::WriterVersion::PARQUET_1_0)
        .set_max_row_group_row_count(Some(100))
        .build();
    write_table(
        &path,
        vec![
            (
                Field::new("Event", DataType::Utf8, true),
                Arc::new(StringArray::from(events)),
            ),
            (
                Field::new("movetext", DataType::Utf8, true),
                Arc::new(StringArray::from(moves)),
            ),
        ],
        Some(props),
    );
    // Row groups 1 and 2 of 4: the first byte of their Event page's
    // definition levels (after the levels' 4-byte length), the header of
    // a bit-packed run, gets its high bit: a run of thousands of groups.
    let mut bytes = std::fs::read(&path).unwrap();
    let levels: Vec<usize> = {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let groups = reader.metadata().row_groups().to_vec();
        assert_eq!(groups.len(), 4);
        groups[1..3]
            .iter()
            .map(|g| {
                let (start, len) = g.column(0).byte_range();
                let chunk = &bytes[at(start)..at(start + len)];
                at(start) + chunk.len() - page_size(chunk) + 4
            })
            .collect()
    };
    for at in levels {
        assert_eq!(bytes[at], 27, "a bit-packed run of 13 groups of 8");
        bytes[at] ^= 0x80;
    }
    std::fs::write(&path, &bytes).unwrap();
    let mut first = None;
    for j in ["1", "2", "8"] {
        let out = t.path().join(format!("j{j}"));
        let (code, stderr) = run(&[s(&path), "--quiet", "-j", j], &out);
        assert_eq!(code, Some(2));
        assert!(!stderr.contains("panicked"), "-j{j}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "-j{j}: {stderr}");
        assert!(
            stderr.starts_with(&format!(
                "pgn-audit: {}: Parquet read error: row group 1: ",
                path.display()
            )),
            "-j{j}: {stderr}"
        );
        assert_eq!(common::summary(&out)["games"], 100);
        match &first {
            None => first = Some(stderr),
            Some(f) => assert_eq!(f, &stderr, "-j{j}"),
        }
    }
}

/// The compressed size of the page that starts `chunk`, field 3 of its
/// header (after fields 1 and 2, i32s too).
fn page_size(chunk: &[u8]) -> usize {
    let mut at = 0;
    let mut value = 0;
    for _ in 0..3 {
        assert_eq!(chunk[at], 0x15, "an i32 field a delta of 1 after the last");
        at += 1;
        let mut v = 0u64;
        for shift in (0..).step_by(7) {
            let b = chunk[at];
            at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
        }
        value = (v >> 1) as i64 ^ -((v & 1) as i64);
    }
    usize::try_from(value).unwrap()
}

/// A table of `rows` games whose columns are `tags` text columns (`T0`,
/// `T1`, …) and `movetext`, at `path`.
fn wide_table(path: &Path, tags: usize, rows: usize) {
    let mut columns: Vec<(Field, ArrayRef)> = (0..tags)
        .map(|c| {
            let values: Vec<String> = (0..rows).map(|r| format!("v{c}.{r}")).collect();
            let values: Vec<&str> = values.iter().map(String::as_str).collect();
            text(&format!("T{c}"), &values)
        })
        .collect();
    let moves: Vec<&str> = (0..rows).map(|r| GAMES[r % GAMES.len()]).collect();
    columns.push(text("movetext", &moves));
    write_table(path, columns, None);
}

/// Item 5: 20 rows of 10,000 text columns (each a tag) took 186 MiB, every
/// column decoded with buffers of its own. More than [`MAX_TAG_COLUMNS`]
/// tag columns are refused with one line; a table of as many is read
/// within the memory bound.
#[test]
fn more_tag_columns_than_the_limit_are_refused_and_as_many_read_within_the_bound() {
    let t = common::tempdir();
    let wide = t.path().join("wide.parquet");
    wide_table(&wide, 10_000, 20);
    let out = t.path().join("wide-out");
    let mut cmd = common::bin();
    cmd.args([
        s(&wide),
        common::SAMPLE,
        "-j",
        "2",
        "--quiet",
        "-o",
        s(&out),
    ]);
    let ran = support::run_measured(cmd, None);
    assert_eq!(
        ran.stderr,
        format!(
            "pgn-audit: {}: refused: a Parquet file with 10000 tag columns, more than {MAX_TAG_COLUMNS}: not a table of games\n",
            wide.display()
        )
    );
    assert_eq!(ran.status, Some(2));
    assert_eq!(common::summary(&out)["games"], 438);
    ran.assert_peak_at_most(support::PEAK_MIB);
    let limit = t.path().join("limit.parquet");
    wide_table(&limit, MAX_TAG_COLUMNS, 3000);
    let out = t.path().join("limit-out");
    let mut cmd = common::bin();
    cmd.args([s(&limit), "-j", "2", "--quiet", "-o", s(&out)]);
    let ran = support::run_measured(cmd, None);
    assert_eq!((ran.status, ran.stderr.as_str()), (Some(0), ""));
    assert_eq!(common::summary(&out)["games"], 3000);
    ran.assert_peak_at_most(support::PEAK_MIB);
}
