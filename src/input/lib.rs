//! Input: the sources named on the command line (files, directories, `-`),
//! opened with decompression chosen by magic bytes, and read as batches of
//! whole games with their byte offsets.
//!
//! Entry points: [`collect_sources`] expands the inputs into [`Source`]s,
//! [`open`] opens one (an [`Opened`] reader and its [`Compression`]), and
//! [`read_batches`] cuts its text into [`Batch`]es of whole games
//! ([`GameSpan`]s, found by a [`Splitter`]). [`piece`] plans and opens the
//! pieces of one large file, each read by a worker process of its own.
//! Every failure is a [`PathError`], said as `PATH: CAUSE`.

#![forbid(unsafe_code)]

mod archive;
mod batch;
mod chunk;
mod decode;
mod decoded;
mod fifo;
mod file_chunks;
mod footer;
mod nul;
pub mod piece;
mod split;
mod table;

pub use archive::Member;
pub use batch::{BATCH_BYTES, BATCH_GAMES, Batch, read_batches, read_batches_at};
pub use chunk::{
    CHUNK_BYTES, Chunk, ChunkGame, ChunkGames, Chunker, ChunksRead, Portion, Step, UntilSync,
    read_chunks, read_chunks_from,
};
pub use decode::{MaxWindow, NoThread, PieceBuffers};
pub use decoded::{Decoded, PieceChunk, Pieces};
pub use file_chunks::{ChunkRead, Cut, FileCut, FileCuts, RegularFile};
pub use nul::{NUL_RUN_LIMIT, NulRun};
pub use split::{GAME_CAP, GameSpan, Splitter};
pub use table::{GroupReader, MAX_SCHEMA_DEPTH, MAX_TAG_COLUMNS, ParquetSource};

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Where a source's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file, by its path.
    File(PathBuf),
    /// Standard input (`-`).
    Stdin,
    /// An input that cannot be read at all (a missing file, a folder that
    /// cannot be listed): why, said when its turn comes, as a read error
    /// is, while the other sources are audited.
    Unreadable(String),
    /// A member of the zip archive at `archive`, by its entry in the
    /// archive's central directory.
    ZipMember {
        /// The archive's path.
        archive: PathBuf,
        /// The member's entry, read when the archive was listed.
        member: archive::Member,
    },
    /// Text held in memory by the program that runs the audit (the Python
    /// package's `bytes` and `str` inputs, the tests' and the fuzzer's
    /// data), read as standard input is.
    Memory(Memory),
}

/// Bytes held in memory and shared, not copied, with the reader: a
/// source's whole text, compressed or not.
#[derive(Clone)]
pub struct Memory(Arc<dyn AsRef<[u8]> + Send + Sync>);

impl Memory {
    /// Holds `bytes` (a `Vec<u8>`, or a buffer another program owns).
    pub fn new(bytes: impl AsRef<[u8]> + Send + Sync + 'static) -> Memory {
        Memory(Arc::new(bytes))
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        (*self.0).as_ref()
    }

    /// A reader of the bytes from their start.
    fn reader(&self) -> MemoryReader {
        MemoryReader {
            memory: self.clone(),
            at: 0,
        }
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memory({} bytes)", self.bytes().len())
    }
}

/// Two holdings are the same source where they hold the same buffer.
impl PartialEq for Memory {
    fn eq(&self, other: &Memory) -> bool {
        std::ptr::addr_eq(Arc::as_ptr(&self.0), Arc::as_ptr(&other.0))
    }
}

impl Eq for Memory {}

/// Reads a [`Memory`] in order.
struct MemoryReader {
    memory: Memory,
    at: usize,
}

impl Read for MemoryReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = self.memory.bytes().get(self.at..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

/// One input as the caller names it: a path (a file, a folder, `-` for
/// standard input), or text in memory with the name its reports give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A path, as the command line takes it.
    Path(PathBuf),
    /// Text in memory, named `name` in the `source` column.
    Memory {
        /// The `source` column.
        name: String,
        /// The text.
        text: Memory,
    },
}

impl From<PathBuf> for Input {
    fn from(path: PathBuf) -> Input {
        Input::Path(path)
    }
}

/// One PGN source, named as the reports name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The `source` column: the path as given, a file's path below a given
    /// directory, or `-`.
    pub name: String,
    /// Where its bytes come from.
    pub origin: Origin,
}

impl Source {
    /// How the file that holds this source is stored, told by its first
    /// bytes as [`open`] tells them: `plain`, `zstd`, `gzip`, `bzip2`, `xz`,
    /// `parquet`, or `zip` (for an archive's member too). `None` for standard input
    /// (not read here), a file that cannot be read, and a format that is
    /// refused (opening it says why).
    pub fn stored_format(&self) -> Option<&'static str> {
        let path = match &self.origin {
            Origin::File(path) => path,
            Origin::ZipMember { .. } => return Some("zip"),
            Origin::Stdin | Origin::Unreadable(_) | Origin::Memory(_) => return None,
        };
        let (head, sniffed, end) = sniff(&mut File::open(path).ok()?);
        if let Sniffed::Failed(_) = end {
            return None;
        }
        if table::is_parquet(&head[..sniffed]) {
            return Some("parquet");
        }
        match Head::of(&head[..sniffed]) {
            Head::Zip => Some("zip"),
            Head::Refused(_) => None,
            Head::Stored(compression) => Some(compression.name()),
        }
    }
}

impl Source {
    /// Why an audit refuses this source, said as the audit says it
    /// (`NAME: refused: a 7z archive, not PGN text`), or why it cannot open
    /// it: the source is opened as [`open`] opens it (its first bytes, and
    /// those inside its compression, told apart) and closed again, so that
    /// `pgn-audit sources` says what the audit would say. `None` for a
    /// source the audit reads, for standard input and for a file that is
    /// not a regular file (a pipe is read once, by the audit), and for a
    /// read error after its first bytes, which the audit meets only as it
    /// reads. `size` is the file's size as [`open`] takes it.
    pub fn refusal(&self, size: Option<u64>) -> Option<PathError> {
        match &self.origin {
            Origin::File(path) if std::fs::metadata(path).is_ok_and(|m| m.is_file()) => {}
            Origin::ZipMember { .. } => {}
            Origin::File(_) | Origin::Stdin | Origin::Unreadable(_) | Origin::Memory(_) => {
                return None;
            }
        }
        static POOL: std::sync::OnceLock<Option<Arc<rayon::ThreadPool>>> =
            std::sync::OnceLock::new();
        let pool = POOL.get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .ok()
                .map(Arc::new)
        });
        let pool = pool.as_ref()?;
        let opened = open(
            self,
            size,
            MaxWindow::default(),
            Arc::new(AtomicU64::new(0)),
            pool,
            1,
            &Arc::new(AtomicBool::new(false)),
        );
        opened.err()
    }
}

/// An input that cannot be read, a report that cannot be written, a folder
/// that cannot be merged: one line, `PATH: CAUSE`, that names the path and
/// says why.
#[derive(Debug, thiserror::Error)]
#[error("{}: {cause}", path.display())]
pub struct PathError {
    /// The path: an input as the reports name it (`-`, `ARCHIVE.zip/MEMBER`),
    /// a report file or folder.
    pub path: PathBuf,
    /// Why, for a person.
    pub cause: String,
    /// The error behind the cause, where there is one.
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl PathError {
    /// An error that no other error caused.
    pub fn new(path: impl Into<PathBuf>, cause: impl Into<String>) -> PathError {
        PathError {
            path: path.into(),
            cause: cause.into(),
            source: None,
        }
    }

    /// An I/O error, its cause said without the "(os error N)" noise.
    pub fn io(path: impl Into<PathBuf>, e: io::Error) -> PathError {
        PathError::caused(path, io_cause(&e), e)
    }

    /// An error that `source` caused, said as `cause`.
    pub fn caused(
        path: impl Into<PathBuf>,
        cause: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> PathError {
        PathError {
            path: path.into(),
            cause: cause.into(),
            source: Some(Box::new(source)),
        }
    }
}

/// File names taken from a directory: PGN, plain or compressed, and zip
/// archives.
fn is_pgn_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.ends_with(".zip") {
        return true;
    }
    let name = ["zst", "zstd", "gz", "bz2", "xz"]
        .iter()
        .find_map(|ext| name.strip_suffix(&format!(".{ext}")))
        .unwrap_or(&name);
    name.ends_with(".pgn")
}

/// Expands the command line's inputs into sources, in order; a directory
/// gives every PGN file below it in sorted path order. A missing input, or
/// a directory that cannot be listed, is a source of its own that cannot
/// be read ([`Origin::Unreadable`]): the others are still audited. An input
/// read twice (`-` named twice, or one file by two names: the same device
/// and inode), and an input inside the output folder `out`, which the run
/// clears and never reads (a directory walk skips it), are errors. Paths
/// are OS strings; a source's name is its path written lossily (U+FFFD
/// for bytes that are not UTF-8).
pub fn collect_sources(inputs: &[Input], out: &Path) -> Result<Vec<Source>, PathError> {
    let out = OutFolderId::of(out);
    let mut sources = Vec::new();
    let mut seen = ReadOnce::default();
    for input in inputs {
        let path = match input {
            Input::Path(path) => path,
            Input::Memory { name, text } => {
                sources.push(Source {
                    name: name.clone(),
                    origin: Origin::Memory(text.clone()),
                });
                continue;
            }
        };
        let input = path.to_string_lossy().into_owned();
        if path.as_os_str() == "-" {
            seen.stdin(&input)?;
            sources.push(Source {
                name: "-".to_owned(),
                origin: Origin::Stdin,
            });
            continue;
        }
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) => {
                sources.push(Source {
                    name: input,
                    origin: Origin::Unreadable(io_cause(&e)),
                });
                continue;
            }
        };
        if let Some(out) = &out
            && out.holds(path)
        {
            return Err(PathError::new(
                input,
                format!(
                    "inside the output folder {}: the output folder is never read",
                    out.named.display()
                ),
            ));
        }
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(path, out.as_ref(), &mut found);
            found.sort_by(|a, b| a.0.cmp(&b.0));
            if found.is_empty() {
                eprintln!(
                    "pgn-audit: {}: warning: no PGN file in this directory",
                    printable(&input)
                );
            }
            for (f, unreadable) in found {
                let name = f.to_string_lossy().into_owned();
                let origin = match unreadable {
                    Some(cause) => Origin::Unreadable(cause),
                    None => {
                        if let Ok(meta) = std::fs::metadata(&f) {
                            seen.file(&meta, &name)?;
                        }
                        Origin::File(f)
                    }
                };
                sources.push(Source { name, origin });
            }
        } else {
            seen.file(&meta, &input)?;
            sources.push(Source {
                name: input,
                origin: Origin::File(path.clone()),
            });
        }
    }
    Ok(archive::expand_zips(sources))
}

/// The output folder, where it exists: its device and inode.
struct OutFolderId {
    named: PathBuf,
    id: (u64, u64),
}

impl OutFolderId {
    fn of(out: &Path) -> Option<OutFolderId> {
        let meta = std::fs::metadata(out).ok()?;
        Some(OutFolderId {
            named: out.to_path_buf(),
            id: file_id(&meta),
        })
    }

    /// Whether `path` (followed through links) is the folder or below it:
    /// whether it or a folder above it has the folder's device and inode.
    /// Paths are not compared, so that a folder reached by another path
    /// (a bind mount of it, which no link resolution sees) is found too.
    fn holds(&self, path: &Path) -> bool {
        let Ok(path) = path.canonicalize() else {
            return false;
        };
        path.ancestors()
            .any(|p| std::fs::metadata(p).is_ok_and(|m| file_id(&m) == self.id))
    }
}

/// Device and inode: one file, whatever the path that names it.
fn file_id(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

/// The inputs named so far, so that none is read twice.
#[derive(Default)]
struct ReadOnce {
    stdin: bool,
    files: std::collections::HashMap<(u64, u64), String>,
}

impl ReadOnce {
    /// Standard input, read once; and what it is (a file, a pipe, a
    /// terminal), so that no other name of it (`/dev/stdin`, the file's
    /// path) is read as another source.
    fn stdin(&mut self, name: &str) -> Result<(), PathError> {
        if std::mem::replace(&mut self.stdin, true) {
            return Err(PathError::new(
                name,
                "standard input is named twice: it can be read only once",
            ));
        }
        match std::fs::metadata("/dev/stdin") {
            Ok(meta) => self.file(&meta, name),
            Err(_) => Ok(()),
        }
    }

    fn file(&mut self, meta: &std::fs::Metadata, name: &str) -> Result<(), PathError> {
        match self.files.entry(file_id(meta)) {
            std::collections::hash_map::Entry::Occupied(first) => Err(PathError::new(
                name,
                format!("the same file as {}, named twice", first.get()),
            )),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(name.to_owned());
                Ok(())
            }
        }
    }
}

/// Collects the PGN files below `dir`, skipping the output folder `out` and
/// links into it; a folder that cannot be listed is collected with the
/// cause, and the walk goes on with the others.
fn walk(dir: &Path, out: Option<&OutFolderId>, found: &mut Vec<(PathBuf, Option<String>)>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return found.push((dir.to_path_buf(), Some(io_cause(&e)))),
    };
    for entry in entries {
        let (path, kind) = match entry.and_then(|e| Ok((e.path(), e.file_type()?))) {
            Ok(entry) => entry,
            Err(e) => return found.push((dir.to_path_buf(), Some(io_cause(&e)))),
        };
        if kind.is_dir() {
            let is_out =
                out.is_some_and(|o| std::fs::metadata(&path).is_ok_and(|m| file_id(&m) == o.id));
            if !is_out {
                walk(&path, out, found);
            }
        } else if is_pgn_name(&path) {
            if kind.is_symlink() && out.is_some_and(|o| o.holds(&path)) {
                continue;
            }
            // A regular file, or a link whose target cannot be read (opening
            // it reports why). A FIFO, socket or device would block or never
            // end: it is not a PGN file.
            match std::fs::metadata(&path) {
                Ok(m) if !m.is_file() => {}
                _ => found.push((path, None)),
            }
        }
    }
}

/// A message as it may be printed on a terminal: every character that
/// could move the cursor, end the line or start an escape sequence (the
/// control characters, a newline and ESC among them; the line and
/// paragraph separators U+2028 and U+2029; the bidirectional overrides and
/// isolates) is written as its escape (`\n`, `\u{1b}`), so that a file
/// name cannot rewrite the terminal or forge a line of its own.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let hostile = |c: char| {
        c.is_control()
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(hostile) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hostile(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out.into()
}

/// A short cause for an I/O error, without the "(os error N)" noise.
pub fn io_cause(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_owned(),
                None => s,
            }
        }
    }
}

/// The compression of a stream, told by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// Zstandard, in one frame or many (`pzstd`, Lichess).
    Zstd,
    /// gzip, one member or many.
    Gzip,
    /// bzip2, one stream or many.
    Bzip2,
    /// xz, one stream or many.
    Xz,
}

impl Compression {
    /// The compression whose magic bytes `head` starts with (a zstd frame
    /// or a skippable frame for zstd); plain text otherwise.
    pub fn detect(head: &[u8]) -> Compression {
        if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
            || (head.len() >= 4 && head[1..4] == [0x2a, 0x4d, 0x18] && head[0] & 0xf0 == 0x50)
        {
            Compression::Zstd
        } else if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else if head.starts_with(b"\xfd7zXZ\0") {
            Compression::Xz
        } else {
            Compression::None
        }
    }

    /// The compression's name, as messages say it.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Zstd => "zstd",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
        }
    }
}

/// How many first bytes of a source are read to tell its format: enough
/// for a tar header's `ustar` mark at 257.
const SNIFF: usize = 262;

/// The format of a source that is neither PGN text nor a format read here,
/// told by its first bytes, as the message that refuses it names it.
fn refused_format(head: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\xff\xfe\0\0", "UTF-32LE text"),
        (b"\0\0\xfe\xff", "UTF-32BE text"),
        (b"\xff\xfe", "UTF-16LE text"),
        (b"\xfe\xff", "UTF-16BE text"),
        (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
        (b"Rar!\x1a\x07", "a RAR archive"),
        (b"\x7fELF", "an ELF executable"),
        (b"MZ", "a Windows executable"),
        (b"\xfe\xed\xfa\xce", "a Mach-O executable"),
        (b"\xfe\xed\xfa\xcf", "a Mach-O executable"),
        (b"\xce\xfa\xed\xfe", "a Mach-O executable"),
        (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
        (b"\x04\x22\x4d\x18", "an lz4 stream"),
        (b"%PDF-", "a PDF document"),
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF87a", "a GIF image"),
        (b"GIF89a", "a GIF image"),
        (b"SQLite format 3\0", "an SQLite database"),
        // The legacy LZMA format (`.lzma`, `lzma_alone`): the properties
        // byte that every encoder writes by default, then a dictionary
        // size whose low two bytes are zero.
        (b"\x5d\0\0", "a legacy LZMA stream (.lzma)"),
    ];
    if let Some((_, name)) = MAGIC.iter().find(|(m, _)| head.starts_with(m)) {
        return Some(name);
    }
    if is_markup(head) {
        return Some("an HTML page");
    }
    if head.get(257..262) == Some(b"ustar") {
        return Some("a tar archive");
    }
    // Without a byte-order mark: NUL in every other (UTF-16) or in three
    // of every four bytes (UTF-32), ASCII text in the others.
    let text = &head[..head.len().min(64)];
    let pattern = |width: usize, at: usize| {
        text.len() >= 2 * width
            && text.chunks_exact(width).all(|unit| {
                unit.iter()
                    .enumerate()
                    .all(|(i, &b)| if i == at { b != 0 && b < 0x80 } else { b == 0 })
            })
    };
    [
        (4, 0, "UTF-32LE text"),
        (4, 3, "UTF-32BE text"),
        (2, 0, "UTF-16LE text"),
        (2, 1, "UTF-16BE text"),
    ]
    .into_iter()
    .find(|&(width, at, _)| pattern(width, at))
    .map(|(_, _, name)| name)
}

/// (v3) Whether a text is an HTML or XML document (a browser's "save as"
/// of a game's page): its first bytes that are not blank, after a UTF-8
/// byte order mark, are `<!DOCTYPE`, `<html` or `<?xml`, in any case.
fn is_markup(head: &[u8]) -> bool {
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let text = text.trim_ascii_start();
    [&b"<!doctype"[..], b"<html", b"<?xml"].iter().any(|mark| {
        text.get(..mark.len())
            .is_some_and(|t| t.eq_ignore_ascii_case(mark))
    })
}

/// Counts the raw (compressed) bytes read, for the progress bar.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An opened source: its decompressed bytes and what it was compressed
/// with, or a Parquet table of games.
pub struct Opened {
    /// The decompressed bytes (none for a Parquet source).
    pub reader: Box<dyn Read + Send>,
    /// What the source was compressed with.
    pub compression: Compression,
    /// A Parquet file's games, read row by row (contract v3).
    pub parquet: Option<ParquetSource>,
    /// A regular file of text, uncompressed, as the run started: read by
    /// offset, its chunks by the workers (`reader` reads it in order).
    pub file: Option<RegularFile>,
    /// A decompressed source's text as its decoder hands it over, in
    /// pieces (`reader` reads nothing then).
    pub decoded: Option<Decoded>,
}

/// Whether `path` names a FIFO, read as [`fifo::Fifo`] reads it.
fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// How many layers of compression a source may have: a zstd stream inside
/// a gzip file is decompressed twice; a third layer is refused.
const LAYERS: usize = 2;

/// Opens a source, decompressing by magic bytes. `raw_read` counts the
/// bytes read from the file or standard input. A gzip, bzip2 or xz source is
/// decompressed on a thread of its own from now on; a zstd one frame by
/// frame on `pool`, up to `threads` frames at a time, where its frames can
/// be walked (`pzstd`, Lichess), else on a thread of its own. What comes
/// out of a decompressor is told by its own first bytes in turn: another
/// compression is decompressed again (up to [`LAYERS`] in all), and
/// anything that is not PGN text is refused.
///
/// `window` bounds the zstd window and xz dictionary a stream may ask for.
/// `size` is the file's size as the run started: a file that ends before
/// it (truncated while it is read, or replaced by a shorter one) fails with
/// a read error at its end, so that no part of it passes for the whole.
/// `stop` set ends the reading of a FIFO that waits for its writer.
pub fn open(
    source: &Source,
    size: Option<u64>,
    window: MaxWindow,
    raw_read: Arc<AtomicU64>,
    pool: &Arc<rayon::ThreadPool>,
    threads: usize,
    stop: &Arc<AtomicBool>,
) -> Result<Opened, PathError> {
    let err = |e: io::Error| PathError::io(&source.name, e);
    let mut regular = None;
    let raw: Box<dyn Read + Send> = match &source.origin {
        Origin::File(p) if is_fifo(p) => Box::new(fifo::Fifo::open(p, stop.clone()).map_err(err)?),
        Origin::File(p) => {
            let file = File::open(p).map_err(err)?;
            regular = size
                .and_then(|size| Some((file.try_clone().ok()?, size)))
                .map(|(f, size)| RegularFile::new(f, size, raw_read.clone()));
            match size {
                Some(size) => Box::new(Whole {
                    file,
                    read: 0,
                    size,
                }),
                None => Box::new(file),
            }
        }
        Origin::Stdin => Box::new(io::stdin()),
        Origin::Memory(text) => Box::new(text.reader()),
        Origin::Unreadable(cause) => return Err(PathError::new(&source.name, cause.clone())),
        Origin::ZipMember { archive, member } => {
            Box::new(archive::member_reader(archive, member).map_err(err)?)
        }
    };
    let mut stream: Box<dyn Read + Send> = Box::new(Counting {
        inner: raw,
        count: raw_read,
    });
    let mut layers: Vec<Compression> = Vec::new();
    // The outer layer's decoder, while its first bytes are sniffed.
    let mut outer: Option<decode::Chunks> = None;
    loop {
        // The magic bytes are sniffed with reads of their own, so that a
        // plain source's text goes from the file straight into the batches:
        // sniffing through a 1 MiB buffer would copy its first MiB twice.
        let (head, sniffed, end) = match outer.as_mut() {
            Some(chunks) => sniff(chunks),
            None => sniff(&mut stream),
        };
        let head_bytes = &head[..sniffed];
        if let Some(chunks) = outer.take() {
            let text = matches!(end, Sniffed::More)
                && !table::is_parquet(head_bytes)
                && Compression::detect(head_bytes) == Compression::None
                && refuse(source, head_bytes, &layers).is_ok();
            if text {
                return Ok(Opened {
                    reader: Box::new(io::empty()),
                    compression: layers[0],
                    parquet: None,
                    file: None,
                    decoded: Some(Decoded::new(head_bytes.to_vec(), chunks)),
                });
            }
            stream = Box::new(chunks);
        }
        let rest: Box<dyn Read + Send> = match end {
            Sniffed::More => stream,
            Sniffed::Ended => Box::new(io::empty()),
            // A decompressor that fails in its first bytes, or a file that
            // ends in them before its size at the start (it shrank): they
            // are the text up to the fault, and the fault is the read
            // error that follows them, as it would be after more.
            Sniffed::Failed(e) if !layers.is_empty() || sniffed > 0 => Box::new(Fails(Some(e))),
            Sniffed::Failed(e) => return Err(err(e)),
        };
        if table::is_parquet(head_bytes) {
            return match layers.is_empty() {
                true => open_parquet(source),
                false => Err(PathError::new(
                    &source.name,
                    format!(
                        "refused: a Parquet file inside {}: a Parquet file is read as it is stored, not decompressed",
                        within(&layers)
                    ),
                )),
            };
        }
        refuse(source, head_bytes, &layers)?;
        let compression = Compression::detect(head_bytes);
        let again: Box<dyn Read + Send> =
            Box::new(io::Cursor::new(head).take(sniffed as u64).chain(rest));
        if compression == Compression::None {
            return Ok(Opened {
                reader: Box::new(nul::NulRuns::new(again)),
                compression: layers.first().copied().unwrap_or(Compression::None),
                parquet: None,
                file: regular.filter(|_| layers.is_empty()),
                decoded: None,
            });
        }
        if layers.len() == LAYERS {
            return Err(PathError::new(
                &source.name,
                format!(
                    "refused: compressed more than {LAYERS} times ({} inside {})",
                    compression.name(),
                    within(&layers)
                ),
            ));
        }
        // An inner layer is decoded as it is read, whatever the thread
        // count, so that its faults fall where they fall at -j1.
        if layers.is_empty() {
            outer = Some(pooled_decoder(compression, again, pool, threads, window).map_err(err)?);
            stream = Box::new(io::empty());
        } else {
            stream = decoder(compression, again, pool, threads, false, window).map_err(err)?;
        }
        layers.push(compression);
    }
}

/// The compression layers around a stream, innermost first: `gzip`, or
/// `zstd inside gzip`.
fn within(layers: &[Compression]) -> String {
    let names: Vec<&str> = layers.iter().rev().map(|c| c.name()).collect();
    names.join(" inside ")
}

/// A regular file read to the size it had when the run started: where it
/// ends before that (truncated while it is read, or replaced by a shorter
/// one), its end is a read error, not the end of the source.
struct Whole {
    file: File,
    read: u64,
    size: u64,
}

impl Read for Whole {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.read += n as u64;
        if n == 0 && !buf.is_empty() && self.read < self.size {
            return Err(file_chunks::shrank(self.read, self.size));
        }
        Ok(n)
    }
}

/// How the first bytes of a stream were read.
pub(crate) enum Sniffed {
    /// All of [`SNIFF`] were read; more may follow.
    More,
    /// The stream ended there.
    Ended,
    /// A read failed there.
    Failed(io::Error),
}

/// Opens a Parquet source, which is read by its footer first: a file, not
/// a stream (standard input, a pipe or a zip member is refused).
fn open_parquet(source: &Source) -> Result<Opened, PathError> {
    let path = match &source.origin {
        Origin::File(p) if std::fs::metadata(p).is_ok_and(|m| m.is_file()) => p,
        _ => {
            return Err(PathError::new(
                &source.name,
                "refused: a Parquet file is read from a regular file, not a stream or an archive member",
            ));
        }
    };
    let file = File::open(path).map_err(|e| PathError::io(&source.name, e))?;
    Ok(Opened {
        reader: Box::new(io::empty()),
        compression: Compression::None,
        parquet: Some(ParquetSource::open(&source.name, file)?),
        file: None,
        decoded: None,
    })
}

/// The first bytes of a source, up to [`SNIFF`]: the bytes, how many were
/// read, and how reading them ended (a terminal gives its end, Ctrl-D,
/// once, and a read after it waits for more).
pub(crate) fn sniff(source: &mut impl Read) -> ([u8; SNIFF], usize, Sniffed) {
    let mut head = [0u8; SNIFF];
    let mut sniffed = 0;
    while sniffed < head.len() {
        match source.read(&mut head[sniffed..]) {
            Ok(0) => return (head, sniffed, Sniffed::Ended),
            Ok(n) => sniffed += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (head, sniffed, Sniffed::Failed(e)),
        }
    }
    (head, sniffed, Sniffed::More)
}

/// A reader whose one read is an error.
struct Fails(Option<io::Error>);

impl Read for Fails {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

/// What a stream's first bytes say it holds: the one reading of the magic
/// bytes that opening a source ([`open`]), cutting a file into pieces and
/// `pgn-audit sources` ([`Source::stored_format`]) share.
pub(crate) enum Head {
    /// A zip archive.
    Zip,
    /// A format that is not PGN text, or binary data that no compression
    /// explains: its name for the message that refuses it.
    Refused(&'static str),
    /// PGN text, plain or compressed.
    Stored(Compression),
}

impl Head {
    /// What `head`, a stream's first bytes (up to [`SNIFF`]), holds.
    pub(crate) fn of(head: &[u8]) -> Head {
        let compression = Compression::detect(head);
        if archive::is_zip(head) {
            Head::Zip
        } else if let Some(format) = refused_format(head) {
            Head::Refused(format)
        } else if compression == Compression::None && is_binary(head) {
            Head::Refused("binary data")
        } else {
            Head::Stored(compression)
        }
    }
}

/// The cause that refuses a source of `format` (a [`Head::Refused`]),
/// `inside` the compression layers around it (`""`, or ` inside gzip`).
pub(crate) fn refusal(format: &str, inside: &str) -> String {
    if format.ends_with(" text") {
        format!("refused: {format}{inside}, not UTF-8 (convert it to UTF-8)")
    } else {
        format!("refused: {format}{inside}, not PGN text")
    }
}

/// Refuses a source whose first bytes (within the compression `layers`)
/// are a zip archive's (its members were not taken from it), a format that
/// is not PGN text, or binary data that no compression explains.
fn refuse(source: &Source, head: &[u8], layers: &[Compression]) -> Result<(), PathError> {
    let inside = if layers.is_empty() {
        String::new()
    } else {
        format!(" inside {}", within(layers))
    };
    match Head::of(head) {
        Head::Zip if layers.is_empty() => Err(PathError::new(
            &source.name,
            archive::refusal(&source.origin),
        )),
        Head::Zip => Err(PathError::new(
            &source.name,
            format!("refused: a zip archive{inside}"),
        )),
        Head::Refused(format) => Err(PathError::new(&source.name, refusal(format, &inside))),
        Head::Stored(_) => Ok(()),
    }
}

/// Whether a source's first bytes are binary data, not text: at least 8
/// control bytes that no text holds (NUL, tab, line ends, vertical tab,
/// form feed and Ctrl-Z excepted, which PGN files carry), where the bytes
/// do not begin as PGN does (after blanks: a tag `[` and a letter, a move
/// number and its dot, a comment or a `%` line). Compressed and encrypted
/// data has one control byte in about ten; text, none; and binary after a
/// game is that game's and the next one's business, not a refusal.
fn is_binary(head: &[u8]) -> bool {
    let text = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = text
        .iter()
        .position(|&b| !b.is_ascii_whitespace() && b != 0)
        .map_or(&[][..], |i| &text[i..]);
    let digits = start.iter().take_while(|b| b.is_ascii_digit()).count();
    let pgn_like = match start {
        [b'[', c, ..] => c.is_ascii_alphabetic(),
        [b'{' | b';' | b'%', ..] => true,
        _ => digits > 0 && start.get(digits) == Some(&b'.'),
    };
    let control = |b: &&u8| matches!(b, 0x01..=0x08 | 0x0e..=0x19 | 0x1b..=0x1f | 0x7f);
    !pgn_like && head.iter().filter(control).count() >= 8
}

/// The decompressed bytes of `stream`, compressed with `compression`: zstd
/// frames on `pool` where `on_pool`, else as they are read.
fn decoder(
    compression: Compression,
    stream: impl Read + Send + 'static,
    pool: &Arc<rayon::ThreadPool>,
    threads: usize,
    on_pool: bool,
    window: MaxWindow,
) -> io::Result<Box<dyn Read + Send>> {
    let buffered = |stream| BufReader::with_capacity(1 << 20, stream);
    Ok(match compression {
        Compression::None => Box::new(stream),
        Compression::Zstd if !on_pool => {
            Box::new(decode::ZstdStream::new(buffered(stream), window)?)
        }
        _ => Box::new(pooled_decoder(compression, stream, pool, threads, window)?),
    })
}

/// A decoder on threads of its own, handing its output over in pieces.
fn pooled_decoder(
    compression: Compression,
    stream: impl Read + Send + 'static,
    pool: &Arc<rayon::ThreadPool>,
    threads: usize,
    window: MaxWindow,
) -> io::Result<decode::Chunks> {
    let buffered = |stream| BufReader::with_capacity(1 << 20, stream);
    Ok(match compression {
        Compression::None => decode::spawn_stream(Box::new(stream)),
        // Frames on the pool at any thread count, so that the threads
        // outside it only walk frame headers and pass the output on (at
        // -j2 the reader thread's zstd decoding was 18 % of all the CPU
        // time, which no number of cores could take over); a stream that
        // cannot be walked frame by frame is decoded on the decoder thread.
        Compression::Zstd => decode::spawn_zstd(buffered(stream), pool.clone(), threads, window),
        Compression::Gzip => decode::spawn_stream(Box::new(flate2::read::MultiGzDecoder::new(
            buffered(stream),
        ))),
        Compression::Bzip2 => {
            decode::spawn_stream(Box::new(bzip2::read::MultiBzDecoder::new(buffered(stream))))
        }
        // Every stream of a multi-stream file (as `xz` concatenates them).
        Compression::Xz => {
            decode::spawn_stream(Box::new(decode::xz_decoder(buffered(stream), window)?))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes() {
        assert_eq!(
            Compression::detect(&[0x28, 0xb5, 0x2f, 0xfd, 0]),
            Compression::Zstd
        );
        assert_eq!(
            Compression::detect(&[0x50, 0x2a, 0x4d, 0x18]),
            Compression::Zstd
        );
        assert_eq!(Compression::detect(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(Compression::detect(b"BZh91AY"), Compression::Bzip2);
        assert_eq!(Compression::detect(b"\xfd7zXZ\0\0\x04"), Compression::Xz);
        assert_eq!(Compression::detect(b"[Event"), Compression::None);
        assert_eq!(Compression::detect(b""), Compression::None);
    }

    #[test]
    fn refused_formats() {
        let utf16le: Vec<u8> = "[Event \"x\"]".bytes().flat_map(|b| [b, 0]).collect();
        let utf16be: Vec<u8> = "[Event \"x\"]".bytes().flat_map(|b| [0, b]).collect();
        let utf32le: Vec<u8> = "[Event".bytes().flat_map(|b| [b, 0, 0, 0]).collect();
        let mut tar = b"games.pgn".to_vec();
        tar.resize(257, 0);
        tar.extend_from_slice(b"ustar\x0000");
        for (head, name) in [
            (&b"\xff\xfe[\0E\0"[..], "UTF-16LE text"),
            (b"\xfe\xff\0[\0E", "UTF-16BE text"),
            (b"\xff\xfe\0\0[\0\0\0", "UTF-32LE text"),
            (&utf16le, "UTF-16LE text"),
            (&utf16be, "UTF-16BE text"),
            (&utf32le, "UTF-32LE text"),
            (b"7z\xbc\xaf\x27\x1c\0\x04", "a 7z archive"),
            (b"Rar!\x1a\x07\x01\0", "a RAR archive"),
            (b"\x7fELF\x02\x01", "an ELF executable"),
            (b"MZ\x90\0", "a Windows executable"),
            (&tar, "a tar archive"),
            (b"<!DOCTYPE html>\n<html lang=\"en\">", "an HTML page"),
            (b"\xef\xbb\xbf\r\n  <html><head>", "an HTML page"),
            (b"<?xml version=\"1.0\"?>", "an HTML page"),
            (b"<!doctype html>", "an HTML page"),
        ] {
            assert_eq!(refused_format(head), Some(name), "{head:?}");
        }
        for head in [
            &b"[Event \"x\"]\n"[..],
            b"\xef\xbb\xbf[Event",
            b"1. e4 e5 *",
            b"{ <html> is no PGN } 1. e4 *",
            b"<p>",
            b"\0\0\0\0",
            b"\n\0",
            b"",
        ] {
            assert_eq!(refused_format(head), None, "{head:?}");
        }
    }

    /// An input error says `PATH: CAUSE` in one line and keeps the I/O
    /// error behind it as its source.
    #[test]
    fn input_errors_keep_their_source() {
        let e = PathError::io("no/such/file.pgn", io::ErrorKind::NotFound.into());
        assert_eq!(e.to_string(), "no/such/file.pgn: no such file or directory");
        let source = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<io::Error>());
        assert_eq!(source.map(io::Error::kind), Some(io::ErrorKind::NotFound));
        let twice = collect_sources(
            &[Input::Path("-".into()), Input::Path("-".into())],
            Path::new("reports"),
        );
        let e = twice.unwrap_err();
        assert_eq!(
            e.to_string(),
            "-: standard input is named twice: it can be read only once"
        );
        assert!(std::error::Error::source(&e).is_none());
    }

    /// A missing input is a source that cannot be read, not an error that
    /// stops every source.
    #[test]
    fn a_missing_input_is_an_unreadable_source() {
        let sources = collect_sources(
            &[Input::Path("no/such/file.pgn".into())],
            Path::new("reports"),
        )
        .unwrap();
        assert_eq!(
            sources,
            [Source {
                name: "no/such/file.pgn".to_owned(),
                origin: Origin::Unreadable("no such file or directory".to_owned()),
            }]
        );
    }

    /// Binary data is told from text, and from PGN that binary follows.
    #[test]
    fn binary_heads() {
        let mut noise = vec![
            0x5a, 0x01, 0x9c, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x1b,
        ];
        assert!(is_binary(&noise));
        for pgn in [
            &b"[Event \"x\"]\n"[..],
            b"\n\n1. e4",
            b"{ intro }",
            b"\xef\xbb\xbf[Site",
        ] {
            let mut head = pgn.to_vec();
            head.append(&mut noise.clone());
            assert!(!is_binary(&head), "{head:?}");
        }
        noise.truncate(8);
        assert!(!is_binary(&noise), "7 control bytes");
        assert!(!is_binary(b"[Event \"caf\xe9\"]\r\n\x0c\x1a\0"));
    }

    #[test]
    fn pgn_names() {
        for n in [
            "a.pgn",
            "b.PGN",
            "c.pgn.zst",
            "d.pgn.gz",
            "e.pgn.bz2",
            "f.pgn.xz",
        ] {
            assert!(is_pgn_name(Path::new(n)), "{n}");
        }
        for n in ["a.txt", "pgn", "b.zst", "c.png"] {
            assert!(!is_pgn_name(Path::new(n)), "{n}");
        }
    }
}
