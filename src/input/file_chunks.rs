//! Chunks of a regular, uncompressed file, each read by the worker that
//! audits it. The reader thread reads only a window after each chunk's
//! nominal end, to find the first sync point there (any sync point is a
//! valid cut, see `chunk.rs`), and hands out the chunk's offsets; the
//! worker reads them with `pread` into its buffer, so that the copy from
//! the page cache runs on the pool and the text is in that core's cache
//! when it is parsed.
//!
//! Every guarantee of the serial reading holds. A chunk holds fewer bytes
//! than a NUL run that ends a source ([`NUL_RUN_LIMIT`]), and no NUL run
//! crosses a sync point (the byte before one is `\n`, the point itself
//! `[`): so no such run lies in a chunk read this way. A stretch without a
//! sync point within that length ([`Cut::Serial`]) is read from its start
//! to the source's end by the serial reader, through the NUL-run check. A
//! file that ends before its size at the start, as the reader or a worker
//! sees it, is the read error [`shrank`] says, at the offset where it
//! ended.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::chunk::is_sync_point;
use super::nul::{NUL_RUN_LIMIT, NulRuns};
use super::split::HEAD;
use super::{Counting, Whole};

/// The most bytes of a chunk read by its worker: fewer than a NUL run that
/// ends a source.
const MOST: u64 = NUL_RUN_LIMIT - 1;
/// The most bytes a chunk's nominal length may have, leaving room below
/// [`MOST`] to find a sync point after it.
const GOAL_MOST: u64 = MOST - (64 << 10);
/// Bytes read before a nominal end, for the blank line before a sync
/// point there.
const BACK: u64 = 64;
/// Bytes read after a nominal end at first; doubled while no sync point
/// is found.
const WINDOW: usize = 8 << 10;

/// A regular file, uncompressed, read by offset.
pub struct RegularFile {
    file: File,
    /// Its size as the run started.
    size: u64,
    /// Raw bytes read, for the progress bar.
    raw_read: Arc<AtomicU64>,
}

/// The read error of a file that ends after `at` of the `size` bytes it had
/// as the run started.
pub(super) fn shrank(at: u64, size: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!(
            "the file shrank while it was read: it ends after {at} of the {size} bytes it had at the start"
        ),
    )
}

impl RegularFile {
    pub(super) fn new(file: File, size: u64, raw_read: Arc<AtomicU64>) -> RegularFile {
        RegularFile {
            file,
            size,
            raw_read,
        }
    }

    /// Reads from `at` until `buf` is full, the file ends or a read fails:
    /// the bytes read, and the error that stopped the reading short (an
    /// end before the file's size at the start is one, see [`shrank`]).
    fn read_at_most(&self, at: u64, buf: &mut [u8]) -> (usize, Option<io::Error>) {
        let mut got = 0;
        while got < buf.len() {
            match self.file.read_at(&mut buf[got..], at + got as u64) {
                Ok(0) => {
                    let end = at + got as u64;
                    let error = (end < self.size).then(|| shrank(end, self.size));
                    self.raw_read.fetch_add(got as u64, Ordering::Relaxed);
                    return (got, error);
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.raw_read.fetch_add(got as u64, Ordering::Relaxed);
                    return (got, Some(e));
                }
            }
        }
        self.raw_read.fetch_add(got as u64, Ordering::Relaxed);
        (got, None)
    }

    /// The file from `offset` on, read in order as [`super::open`] reads
    /// it: to its end, through the NUL-run check.
    pub fn reader_from(&self, offset: u64) -> io::Result<Box<dyn Read + Send>> {
        let mut file = self.file.try_clone()?;
        file.seek(SeekFrom::Start(offset))?;
        Ok(Box::new(NulRuns::new(Counting {
            inner: Whole {
                file,
                read: offset,
                size: self.size,
            },
            count: self.raw_read.clone(),
        })))
    }

    /// Reads `cut`'s bytes into `buf` (a spare, or empty): its text is
    /// `buf[..len]`, and where the reading ended early or the source ends
    /// with it, the offset and the read error that ended the source.
    pub fn read_cut(&self, cut: &FileCut, mut buf: Vec<u8>) -> ChunkRead {
        let want = usize::try_from(cut.end - cut.start).expect("a chunk fits in memory");
        if buf.len() < want {
            buf = vec![0; want];
        }
        let (len, error) = self.read_at_most(cut.start, &mut buf[..want]);
        let at = cut.start + len as u64;
        let failed = match error {
            Some(e) => Some((at, e)),
            // An end that is a bound: the file ends where the reading did.
            None if len < want && cut.open => None,
            None if len < want => Some((at, shrank(at, self.size))),
            None => None,
        };
        ChunkRead {
            bytes: buf,
            len,
            end: at,
            failed,
        }
    }
}

/// A chunk's offsets, for its worker to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileCut {
    /// Its first byte's offset: a sync point or the file's start.
    pub start: u64,
    /// Its end: a sync point, or the file's end as the reader saw it.
    pub end: u64,
    /// `end` is a bound: the file ended before it when the reader looked.
    pub open: bool,
    /// The source's last chunk.
    pub last: bool,
}

/// What a worker read of its chunk.
#[derive(Debug)]
pub struct ChunkRead {
    /// The chunk's text is `bytes[..len]`.
    pub bytes: Vec<u8>,
    /// How many bytes of `bytes` are the chunk's.
    pub len: usize,
    /// The source offset after the text.
    pub end: u64,
    /// The reading stopped short: where, and why.
    pub failed: Option<(u64, io::Error)>,
}

/// What the reader cuts next.
#[derive(Debug)]
pub enum Cut {
    /// A chunk for a worker to read; on the source's last, the read error
    /// the reader saw at its end, if one ended it.
    Chunk(FileCut, Option<io::Error>),
    /// No sync point within [`MOST`] bytes of this offset (a sync point or
    /// the file's start): the rest of the file from there is read in order.
    Serial(u64),
}

/// Cuts a regular file into chunks at sync points, reading only a window
/// after each chunk's nominal end.
pub struct FileCuts {
    file: Arc<RegularFile>,
    goal: u64,
    start: u64,
    window: Vec<u8>,
    done: bool,
}

impl FileCuts {
    /// Cuts for chunks of about `chunk_bytes` (at least 1; at most a little
    /// under [`NUL_RUN_LIMIT`]) from the file's start.
    pub fn new(file: Arc<RegularFile>, chunk_bytes: usize) -> FileCuts {
        FileCuts {
            file,
            goal: (chunk_bytes.max(1) as u64).min(GOAL_MOST),
            start: 0,
            window: Vec::new(),
            done: false,
        }
    }

    /// The next chunk's offsets, or the end of the file (`None`).
    pub fn next_cut(&mut self) -> Option<Cut> {
        if self.done {
            return None;
        }
        let s = self.start;
        let nominal = s + self.goal;
        let lo = nominal.saturating_sub(BACK).max(s);
        // Sync points are looked for from the nominal end to `MOST` bytes
        // from the chunk's start, each with its tag line read.
        let last_point = s + MOST;
        let read_to = last_point + HEAD as u64;
        let mut want = WINDOW;
        let mut held = 0;
        let mut searched = usize::try_from(nominal - lo).unwrap_or(0);
        loop {
            let end = (lo + (held + want) as u64).min(read_to);
            let room = usize::try_from(end - lo).expect("a window fits in memory");
            if self.window.len() < room {
                self.window.resize(room, 0);
            }
            let (n, error) = self
                .file
                .read_at_most(lo + held as u64, &mut self.window[held..room]);
            held += n;
            let ended = held < room;
            let text = &self.window[..held];
            let top = usize::try_from(last_point - lo)
                .unwrap_or(usize::MAX)
                .min(held);
            if let Some(p) = first_sync_point(text, searched, top) {
                self.start = lo + p as u64;
                let cut = FileCut {
                    start: s,
                    end: self.start,
                    open: false,
                    last: false,
                };
                return Some(Cut::Chunk(cut, None));
            }
            // A point whose tag line is not all read yet may still be one.
            searched = searched.max(held.saturating_sub(HEAD));
            if ended {
                self.done = true;
                // Nothing read at the window: the file ends before it, and
                // the worker finds where (and whether that is too soon).
                if held == 0 && lo > s {
                    let cut = FileCut {
                        start: s,
                        end: lo,
                        open: true,
                        last: true,
                    };
                    return Some(Cut::Chunk(cut, None));
                }
                let end = lo + held as u64;
                if end == s {
                    return error.map(|e| Cut::Chunk(closed(s, s), Some(e)));
                }
                // A last chunk longer than a worker reads (the file ends
                // within a tag line's length past it) may hold a whole NUL
                // run: read in order, through the check.
                if end - s > MOST {
                    return Some(Cut::Serial(s));
                }
                return Some(Cut::Chunk(closed(s, end), error));
            }
            if lo + held as u64 >= read_to {
                self.done = true;
                return Some(Cut::Serial(s));
            }
            want = want.saturating_mul(2);
        }
    }
}

/// The last chunk `[start, end)`.
fn closed(start: u64, end: u64) -> FileCut {
    FileCut {
        start,
        end,
        open: false,
        last: true,
    }
}

/// The first sync point of `text` at or after `from` and before `top`,
/// whose tag line is read far enough to tell; never 0.
fn first_sync_point(text: &[u8], from: usize, top: usize) -> Option<usize> {
    let mut at = from.max(1);
    while at < top {
        let k = memchr::memchr(b'[', &text[at..top])?;
        let p = at + k;
        if is_sync_point(text, p) {
            return Some(p);
        }
        at = p + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file of `text` (its path, removed at the end) read by offset.
    struct Temp(std::path::PathBuf);

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn regular(name: &str, text: &[u8]) -> (Temp, Arc<RegularFile>) {
        let path = std::env::temp_dir().join(format!(
            "pgn-audit-file-chunks-{}-{name}",
            std::process::id()
        ));
        File::create(&path).unwrap().write_all(text).unwrap();
        let file = File::open(&path).unwrap();
        let size = text.len() as u64;
        let regular = RegularFile::new(file, size, Arc::new(AtomicU64::new(0)));
        (Temp(path), Arc::new(regular))
    }

    fn games(n: usize) -> Vec<u8> {
        let mut text = Vec::new();
        for i in 0..n {
            text.extend_from_slice(format!("[Event \"{i}\"]\n\n1. e4 e5 *\n\n").as_bytes());
        }
        text
    }

    /// The cuts follow each other from the file's start to its end, each
    /// at a sync point.
    #[test]
    fn cuts_cover_the_file_at_sync_points() {
        let text = games(3000);
        let (_tmp, file) = regular("cover", &text);
        for size in [1, 100, 4096, 1 << 20] {
            let mut cuts = FileCuts::new(file.clone(), size);
            let mut at = 0;
            while let Some(cut) = cuts.next_cut() {
                let Cut::Chunk(cut, error) = cut else {
                    panic!("a stretch without sync points, chunks of {size}");
                };
                assert!(error.is_none());
                assert_eq!(cut.start, at, "chunks of {size}");
                assert!(cut.end > cut.start && cut.end - cut.start <= MOST);
                let end = usize::try_from(cut.end).unwrap();
                assert!(cut.open || end == text.len() || is_sync_point(&text, end));
                assert_eq!(cut.last, end == text.len() || cut.open);
                at = if cut.open { text.len() as u64 } else { cut.end };
            }
            assert_eq!(at, text.len() as u64, "chunks of {size}");
        }
    }

    /// A file cut short after the reader cut it: the worker's reading
    /// stops where the file now ends, with the read error of a file that
    /// shrank.
    #[test]
    fn a_chunk_of_a_file_that_shrank_is_a_read_error_where_it_ends() {
        let text = games(100);
        let (tmp, file) = regular("shrank", &text);
        let mut cuts = FileCuts::new(file.clone(), 600);
        let Some(Cut::Chunk(first, None)) = cuts.next_cut() else {
            panic!("no first chunk");
        };
        let shrunk = first.end - 10;
        std::fs::OpenOptions::new()
            .write(true)
            .open(&tmp.0)
            .unwrap()
            .set_len(shrunk)
            .unwrap();
        let read = file.read_cut(&first, Vec::new());
        assert_eq!((read.len as u64, read.end), (shrunk, shrunk));
        let (at, e) = read.failed.unwrap();
        assert_eq!(at, shrunk);
        assert_eq!(e.to_string(), shrank(shrunk, text.len() as u64).to_string());
    }
}
