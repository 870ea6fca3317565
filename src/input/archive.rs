//! Zip archives: a zip source stands for its PGN members, in archive
//! order, each a source of its own named `ARCHIVE.zip/MEMBER`. A member
//! may itself be compressed PGN (`.pgn.gz` inside a zip); members that are
//! not PGN are skipped.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use super::{Origin, Source, decode, is_pgn_name};

/// Whether a stream's first bytes are a zip archive's: a local file header,
/// or the end record of an empty archive.
pub(crate) fn is_zip(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06")
}

/// Whether the file at `path` is a zip archive, by its magic bytes.
fn file_is_zip(path: &Path) -> bool {
    let mut head = [0u8; 4];
    File::open(path)
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

/// Replaces every zip archive among `sources` with its PGN members, in
/// archive order. An archive without a PGN member is dropped with a
/// warning; one that cannot be read stays, and opening it says why.
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
        let Ok(archive) = File::open(path)
            .map_err(zip::result::ZipError::Io)
            .and_then(zip::ZipArchive::new)
        else {
            out.push(source);
            continue;
        };
        let before = out.len();
        for index in 0..archive.len() {
            let Some(Ok(member)) = archive.name_for_index(index) else {
                continue;
            };
            if is_pgn_member(&member) {
                out.push(Source {
                    name: format!("{}/{member}", source.name),
                    origin: Origin::ZipMember {
                        archive: path.clone(),
                        index,
                    },
                });
            }
        }
        if out.len() == before {
            // A standard error that cannot be written costs the warning,
            // never the run (`eprintln!` panics on a failed write).
            let _ = writeln!(
                io::stderr().lock(),
                "pgn-audit: {}: warning: no PGN member in this zip archive",
                super::printable(&source.name)
            );
        }
    }
    out
}

/// Why a zip archive that reached [`super::open`] cannot be read: its
/// members were not taken from it, or it comes on standard input.
pub(crate) fn refusal(origin: &Origin) -> String {
    match origin {
        Origin::File(path) => match File::open(path)
            .map_err(zip::result::ZipError::Io)
            .and_then(zip::ZipArchive::new)
        {
            Err(e) => format!("refused: a zip archive that cannot be read: {e}"),
            Ok(_) => "refused: a zip archive whose members cannot be listed".to_owned(),
        },
        Origin::ZipMember { .. } => "refused: a zip archive inside a zip archive".to_owned(),
        Origin::Stdin => "refused: a zip archive on standard input (give its path)".to_owned(),
    }
}

/// The decompressed bytes of member `index` of the zip archive at `path`,
/// read on a thread of its own (the member's CRC is checked at its end).
pub(crate) fn member_reader(path: &Path, index: usize) -> io::Result<decode::Chunks> {
    let file = File::open(path)?;
    Ok(decode::spawn(move |tx| {
        let mut archive = match zip::ZipArchive::new(file) {
            Ok(a) => a,
            Err(e) => return decode::fail(tx, zip_error(e)),
        };
        match archive.by_index(index) {
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
