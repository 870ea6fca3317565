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
mod decode;
pub mod piece;
mod split;

pub use batch::{BATCH_BYTES, Batch, GAME_CAP, read_batches};
pub use split::{GameSpan, Splitter};

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a source's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file, by its path.
    File(PathBuf),
    /// Standard input (`-`).
    Stdin,
    /// Member `index` (in archive order) of the zip archive at `archive`.
    ZipMember {
        /// The archive's path.
        archive: PathBuf,
        /// The member's index in archive order.
        index: usize,
    },
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
    /// or `zip` (for an archive's member too). `None` for standard input
    /// (not read here), a file that cannot be read, and a format that is
    /// refused (opening it says why).
    pub fn stored_format(&self) -> Option<&'static str> {
        let path = match &self.origin {
            Origin::File(path) => path,
            Origin::ZipMember { .. } => return Some("zip"),
            Origin::Stdin => return None,
        };
        let (head, sniffed, _) = sniff(&mut File::open(path).ok()?).ok()?;
        let head = &head[..sniffed];
        if archive::is_zip(head) {
            Some("zip")
        } else if refused_format(head).is_some() {
            None
        } else {
            Some(Compression::detect(head).name())
        }
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
/// a directory that cannot be listed, is an error, and so is an input read
/// twice (`-` named twice, or one file by two names: the same device and
/// inode), and an input inside the output folder `out`, which the run
/// clears and never reads (a directory walk skips it).
pub fn collect_sources(inputs: &[String], out: &Path) -> Result<Vec<Source>, PathError> {
    let out = OutFolderId::of(out);
    let mut sources = Vec::new();
    let mut seen = ReadOnce::default();
    for input in inputs {
        if input == "-" {
            seen.stdin(input)?;
            sources.push(Source {
                name: "-".to_owned(),
                origin: Origin::Stdin,
            });
            continue;
        }
        let path = Path::new(input);
        let meta = std::fs::metadata(path).map_err(|e| PathError::io(input, e))?;
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
            let mut files = Vec::new();
            walk(path, out.as_ref(), &mut files)?;
            files.sort();
            if files.is_empty() {
                eprintln!(
                    "pgn-audit: {}: warning: no PGN file in this directory",
                    printable(input)
                );
            }
            for f in files {
                let name = f.to_string_lossy().into_owned();
                if let Ok(meta) = std::fs::metadata(&f) {
                    seen.file(&meta, &name)?;
                }
                sources.push(Source {
                    name,
                    origin: Origin::File(f),
                });
            }
        } else {
            seen.file(&meta, input)?;
            sources.push(Source {
                name: input.clone(),
                origin: Origin::File(path.to_path_buf()),
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
    /// Standard input, read once; where it is a file, that file.
    fn stdin(&mut self, name: &str) -> Result<(), PathError> {
        if std::mem::replace(&mut self.stdin, true) {
            return Err(PathError::new(
                name,
                "standard input is named twice: it can be read only once",
            ));
        }
        match std::fs::metadata("/dev/stdin") {
            Ok(meta) if meta.is_file() => self.file(&meta, name),
            _ => Ok(()),
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
/// links into it.
fn walk(dir: &Path, out: Option<&OutFolderId>, found: &mut Vec<PathBuf>) -> Result<(), PathError> {
    let err = |e: io::Error| PathError::io(dir, e);
    for entry in std::fs::read_dir(dir).map_err(err)? {
        let entry = entry.map_err(err)?;
        let path = entry.path();
        let kind = entry.file_type().map_err(err)?;
        if kind.is_dir() {
            let is_out = out.is_some_and(|o| entry.metadata().is_ok_and(|m| file_id(&m) == o.id));
            if !is_out {
                walk(&path, out, found)?;
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
                _ => found.push(path),
            }
        }
    }
    Ok(())
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

/// Whether a game's text ends with a result token (`1-0`, `0-1`,
/// `1/2-1/2`, `1/2`, `*`) outside any comment and then a line end: a game
/// whose source fails after that is whole, not broken off.
pub fn ends_with_result_line(game: &[u8]) -> bool {
    (game.ends_with(b"\n") || game.ends_with(b"\r")) && ends_with_result(game)
}

/// Whether a game's text ends with a result token outside any comment.
fn ends_with_result(game: &[u8]) -> bool {
    const RESULTS: [&[u8]; 5] = [b"1-0", b"0-1", b"1/2-1/2", b"1/2", b"*"];
    let mut in_comment = false;
    let mut in_line_comment = false;
    let mut token = 0..0;
    let mut start = None;
    for (i, &b) in game.iter().enumerate() {
        let word = if in_comment {
            in_comment = b != b'}';
            false
        } else if in_line_comment {
            in_line_comment = b != b'\n' && b != b'\r';
            false
        } else {
            in_comment = b == b'{';
            in_line_comment = b == b';';
            !(in_comment || in_line_comment || b == b'(' || b == b')' || b.is_ascii_whitespace())
        };
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                token = s..i;
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        token = s..game.len();
    }
    !in_comment && RESULTS.contains(&&game[token])
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
    ];
    if let Some((_, name)) = MAGIC.iter().find(|(m, _)| head.starts_with(m)) {
        return Some(name);
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

/// An opened source: its decompressed bytes and what it was compressed with.
pub struct Opened {
    /// The decompressed bytes.
    pub reader: Box<dyn Read + Send>,
    /// What the source was compressed with.
    pub compression: Compression,
}

/// Opens a source, decompressing by magic bytes. `raw_read` counts the
/// bytes read from the file or standard input. A gzip, bzip2 or xz source is
/// decompressed on a thread of its own from now on; a zstd one, with more
/// than two threads, frame by frame on `pool`, `threads` frames at a time,
/// and with two or fewer as it is read, on the reader thread.
pub fn open(
    source: &Source,
    raw_read: Arc<AtomicU64>,
    pool: &Arc<rayon::ThreadPool>,
    threads: usize,
) -> Result<Opened, PathError> {
    let err = |e: io::Error| PathError::io(&source.name, e);
    let raw: Box<dyn Read + Send> = match &source.origin {
        Origin::File(p) => Box::new(File::open(p).map_err(err)?),
        Origin::Stdin => Box::new(io::stdin()),
        Origin::ZipMember { archive, index } => {
            Box::new(archive::member_reader(archive, *index).map_err(err)?)
        }
    };
    let mut counted = Counting {
        inner: raw,
        count: raw_read,
    };
    // The magic bytes are sniffed with reads of their own, so that a plain
    // source's text goes from the file straight into the batches: sniffing
    // through a 1 MiB buffer would copy its first MiB twice.
    let (head, sniffed, ended) = sniff(&mut counted).map_err(err)?;
    refuse(source, &head[..sniffed])?;
    let compression = Compression::detect(&head[..sniffed]);
    let rest: Box<dyn Read + Send> = if ended {
        Box::new(io::empty())
    } else {
        Box::new(counted)
    };
    let stream = io::Cursor::new(head).take(sniffed as u64).chain(rest);
    let reader = decoder(compression, stream, pool, threads).map_err(err)?;
    Ok(Opened {
        reader,
        compression,
    })
}

/// The first bytes of a source, up to [`SNIFF`]: the bytes, how many were
/// read, and whether the source ended there (a terminal gives its end,
/// Ctrl-D, once, and a read after it waits for more).
fn sniff(source: &mut impl Read) -> io::Result<([u8; SNIFF], usize, bool)> {
    let mut head = [0u8; SNIFF];
    let mut sniffed = 0;
    while sniffed < head.len() {
        match source.read(&mut head[sniffed..]) {
            Ok(0) => return Ok((head, sniffed, true)),
            Ok(n) => sniffed += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((head, sniffed, false))
}

/// Refuses a source whose first bytes are a zip archive's (its members
/// were not taken from it) or a format that is not PGN text.
fn refuse(source: &Source, head: &[u8]) -> Result<(), PathError> {
    if archive::is_zip(head) {
        return Err(PathError::new(
            &source.name,
            archive::refusal(&source.origin),
        ));
    }
    if let Some(format) = refused_format(head) {
        let cause = if format.ends_with(" text") {
            format!("refused: {format}, not UTF-8 (convert it to UTF-8)")
        } else {
            format!("refused: {format}, not PGN text")
        };
        return Err(PathError::new(&source.name, cause));
    }
    Ok(())
}

/// The decompressed bytes of `stream`, compressed with `compression`.
fn decoder(
    compression: Compression,
    stream: impl Read + Send + 'static,
    pool: &Arc<rayon::ThreadPool>,
    threads: usize,
) -> io::Result<Box<dyn Read + Send>> {
    let buffered = |stream| BufReader::with_capacity(1 << 20, stream);
    Ok(match compression {
        Compression::None => Box::new(stream),
        // Frames in parallel only where a core is left over: with two or
        // fewer, the audit keeps every core busy, and frames decoded on the
        // pool only take turns with it (measured: 1.23x the plain input's
        // time at -j2, against 1.06x for one decoder thread). Nor a decoder
        // thread of its own then: decoding on the reader thread, straight
        // into the batch buffers, saves a copy of every byte and a hand-over
        // per MiB (zstd 1.06x -> 1.02x, pzstd 1.08x -> 1.06x the plain
        // input's time at -j2, 15 interleaved rounds); the reader thread
        // still cuts games while the workers audit.
        Compression::Zstd if threads <= 2 => Box::new(decode::ZstdStream::new(buffered(stream))?),
        Compression::Zstd => Box::new(decode::spawn_zstd(buffered(stream), pool.clone(), threads)),
        Compression::Gzip => Box::new(decode::spawn_stream(Box::new(
            flate2::read::MultiGzDecoder::new(buffered(stream)),
        ))),
        Compression::Bzip2 => Box::new(decode::spawn_stream(Box::new(
            bzip2::read::MultiBzDecoder::new(buffered(stream)),
        ))),
        // Every stream of a multi-stream file (as `xz` concatenates them).
        Compression::Xz => Box::new(decode::spawn_stream(Box::new(
            liblzma::bufread::XzDecoder::new_multi_decoder(buffered(stream)),
        ))),
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
    fn games_that_end_with_their_result() {
        for g in [
            "[Event \"x\"]\n\n1. e4 e5 1-0",
            "1. e4 { a } e5 (1... d5) 1/2-1/2",
            "1. e4 e5 0-1 ; comment",
            "1. e4 *",
            "1. e4 {c}*",
            "1. e4 1/2",
        ] {
            assert!(ends_with_result(g.as_bytes()), "{g}");
        }
        for g in [
            "[Event \"x\"]\n[Result \"1-0\"]",
            "1. e4 e5 1-",
            "1. e4 1/2-1",
            "1. e4 { won 1-0",
            "1. e4 { won } 1-0 {",
            "1. e4 ; 1-0",
            "1. e4 e5 2. Nf3",
            "",
        ] {
            assert!(!ends_with_result(g.as_bytes()), "{g}");
        }
        assert!(ends_with_result_line(b"1. e4 1-0\n"));
        assert!(ends_with_result_line(b"1. e4 1-0 \r"));
        assert!(!ends_with_result_line(b"1. e4 1-0"));
        assert!(!ends_with_result_line(b"1. e4 e5\n"));
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
        ] {
            assert_eq!(refused_format(head), Some(name), "{head:?}");
        }
        for head in [
            &b"[Event \"x\"]\n"[..],
            b"\xef\xbb\xbf[Event",
            b"1. e4 e5 *",
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
        let missing = "no/such/file.pgn".to_owned();
        let e = collect_sources(std::slice::from_ref(&missing), Path::new("reports")).unwrap_err();
        assert_eq!(e.to_string(), "no/such/file.pgn: no such file or directory");
        let source = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<io::Error>());
        assert_eq!(source.map(io::Error::kind), Some(io::ErrorKind::NotFound));
        let twice = collect_sources(&["-".to_owned(), "-".to_owned()], Path::new("reports"));
        let e = twice.unwrap_err();
        assert_eq!(
            e.to_string(),
            "-: standard input is named twice: it can be read only once"
        );
        assert!(std::error::Error::source(&e).is_none());
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
