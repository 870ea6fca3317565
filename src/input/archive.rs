//! Zip archives: a zip source stands for its PGN members, in archive
//! order, each a source of its own named `ARCHIVE.zip/MEMBER`, and
//! `ARCHIVE.zip/MEMBER#2`, `#3`, ... where a member's name repeats. A
//! member may itself be compressed PGN (`.pgn.gz` inside a zip); members
//! that are not PGN are skipped.
//!
//! The central directory is read once, in one pass that keeps every entry
//! (a name-keyed index would drop the earlier of two members of one name);
//! each member is then opened from its entry, without reading the
//! directory again, so an archive of many members takes linear time.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Arc;

use zip::ZipReadOptions;
use zip::read::{Config, OwnedZipFileEntry};
use zip::unstable::read::ZipIterable;

use super::{Origin, Source, decode, is_pgn_name};

/// A zip member's central-directory entry, read once when the archive is
/// listed, from which the member is opened.
#[derive(Clone)]
pub struct Member(Arc<OwnedZipFileEntry>);

impl std::fmt::Debug for Member {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Member")
    }
}

/// Two entries are the same where they come from one listing.
impl PartialEq for Member {
    fn eq(&self, other: &Member) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Member {}

/// Whether a stream's first bytes are a zip archive's: a local file header,
/// or the end record of an empty archive.
pub(crate) fn is_zip(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06")
}

/// Whether the file at `path` is a regular file that is a zip archive, by
/// its magic bytes. Anything else (a pipe, a FIFO, a process substitution)
/// is not opened here: it can be read only once, by [`super::open`].
fn file_is_zip(path: &Path) -> bool {
    let mut head = [0u8; 4];
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok_and(|()| is_zip(&head))
}

/// A zip member taken as PGN: a PGN file's name, plain or compressed, and
/// no nested archive.
fn is_pgn_member(name: &str) -> bool {
    !name.ends_with('/')
        && !name.to_ascii_lowercase().ends_with(".zip")
        && is_pgn_name(Path::new(name))
}

/// The PGN members of the zip archive at `path`, in archive order, each
/// with its name and its entry.
fn pgn_members(path: &Path) -> zip::result::ZipResult<Vec<(String, Member)>> {
    let mut archive = ZipIterable::try_new(File::open(path)?, Config::default())?;
    let mut members = Vec::new();
    for entry in archive.files()? {
        let entry = entry?;
        let name = entry.name()?.into_owned();
        if !entry.is_dir() && is_pgn_member(&name) {
            members.push((name, Member(Arc::new(entry.into()))));
        }
    }
    Ok(members)
}

/// Replaces every zip archive among `sources` with its PGN members, in
/// archive order; the second member of a name is `NAME#2`, the third
/// `NAME#3`. An archive without a PGN member is dropped with a warning;
/// one that cannot be read stays, and opening it says why.
pub(crate) fn expand_zips(sources: Vec<Source>) -> Vec<Source> {
    let mut out = Vec::with_capacity(sources.len());
    for source in sources {
        let Origin::File(path) = &source.origin else {
            out.push(source);
            continue;
        };
        if !file_is_zip(path) {
            out.push(source);
            continue;
        }
        let Ok(members) = pgn_members(path) else {
            out.push(source);
            continue;
        };
        if members.is_empty() {
            // A standard error that cannot be written costs the warning,
            // never the run (`eprintln!` panics on a failed write).
            let _ = writeln!(
                io::stderr().lock(),
                "pgn-audit: {}: warning: no PGN member in this zip archive",
                super::printable(&source.name)
            );
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (member, entry) in members {
            let count = seen.entry(member.clone()).or_default();
            *count += 1;
            let name = match *count {
                1 => format!("{}/{member}", source.name),
                n => format!("{}/{member}#{n}", source.name),
            };
            out.push(Source {
                name,
                origin: Origin::ZipMember {
                    archive: path.clone(),
                    member: entry,
                },
            });
        }
    }
    out
}

/// Why a zip archive that reached [`super::open`] cannot be read: its
/// members were not taken from it, or it comes on standard input or a
/// pipe.
pub(crate) fn refusal(origin: &Origin) -> String {
    match origin {
        Origin::File(path) if std::fs::metadata(path).is_ok_and(|m| m.is_file()) => {
            match pgn_members(path) {
                Err(e) => format!("refused: a zip archive that cannot be read: {e}"),
                Ok(_) => "refused: a zip archive whose members cannot be listed".to_owned(),
            }
        }
        Origin::File(_) => "refused: a zip archive on a pipe (give its path)".to_owned(),
        Origin::ZipMember { .. } => "refused: a zip archive inside a zip archive".to_owned(),
        Origin::Stdin => "refused: a zip archive on standard input (give its path)".to_owned(),
        Origin::Memory(_) => "refused: a zip archive in memory (give its path)".to_owned(),
        Origin::Unreadable(cause) => cause.clone(),
    }
}

/// The decompressed bytes of the zip member `member` of the archive at
/// `path`, read on a thread of its own (the member's CRC is checked at its
/// end).
pub(crate) fn member_reader(path: &Path, member: &Member) -> io::Result<decode::Chunks> {
    let mut file = File::open(path)?;
    let entry = member.0.clone();
    Ok(decode::spawn(move |tx| {
        match OwnedZipFileEntry::as_ref(&entry).with_reader(&mut file, ZipReadOptions::new()) {
            Ok(member) => decode::pump(member, tx),
            Err(e) => decode::fail(tx, zip_error(e)),
        }
    }))
}

fn zip_error(e: zip::result::ZipError) -> io::Error {
    match e {
        zip::result::ZipError::Io(e) => e,
        e => io::Error::other(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_members() {
        for n in ["a.pgn", "dir/b.PGN", "c.pgn.gz", "d/e.pgn.zst"] {
            assert!(is_pgn_member(n), "{n}");
        }
        for n in ["readme.txt", "dir/", "pgn/", "inner.zip", "x.pgn.zip"] {
            assert!(!is_pgn_member(n), "{n}");
        }
    }
}
