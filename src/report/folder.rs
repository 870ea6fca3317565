//! The output folder of a run or a merge. It is locked while it is written
//! (a second run on it is refused), cleared of every report file an
//! earlier run left there before anything is written (summary.json first),
//! and each report is written under a temporary name of its own and renamed
//! when complete; summary.json is renamed last, after every other file, so
//! a folder that holds one is a finished run.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use super::{PathError, out_err};

/// The lock file a run holds in its output folder. It stays there after
/// the run: removing it would let two runs lock two different files.
const LOCK: &str = ".pgn-audit.lock";

/// Every file of the report contract (v4), in the order in which a run
/// removes an earlier run's: summary.json first, so that it never vouches
/// for a folder being cleared. A run in one format removes the reports of
/// an earlier run in the other too.
const CONTRACT_FILES: [&str; 19] = [
    "summary.json",
    "castling.csv",
    "claims.csv",
    "missed_draws.csv",
    "errors.csv",
    "results.csv",
    "quirks.csv",
    "corrections.csv",
    "castling.parquet",
    "claims.parquet",
    "missed_draws.parquet",
    "errors.parquet",
    "results.parquet",
    "quirks.parquet",
    "corrections.parquet",
    "report.html",
    "clean.pgn",
    "rejected.pgn",
    "fixed.pgn",
];

/// Numbers this process's temporary files.
static NEXT_TEMPORARY: AtomicU32 = AtomicU32::new(0);

/// An output folder, created if missing, locked for as long as this lives.
pub(crate) struct OutFolder {
    dir: PathBuf,
    _lock: File,
}

impl OutFolder {
    /// Creates the folder if missing, takes its lock, removes every contract
    /// file and temporary file that earlier runs left (other files stay),
    /// and checks that no directory stands where one of `writes` goes.
    pub(crate) fn claim(dir: &Path, writes: &[impl AsRef<str>]) -> Result<OutFolder, PathError> {
        std::fs::create_dir_all(dir).map_err(out_err(dir))?;
        let lock = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.join(LOCK))
            .map_err(out_err(dir))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(PathError::new(dir, "in use by another pgn-audit run"));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(out_err(dir)(e)),
        }
        let folder = OutFolder {
            dir: dir.to_path_buf(),
            _lock: lock,
        };
        folder.clear()?;
        for name in writes {
            let path = dir.join(name.as_ref());
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
                return Err(PathError::new(path, "is a directory"));
            }
        }
        Ok(folder)
    }

    /// Removes the contract files (summary.json first; a directory under
    /// such a name is no report and stays), then the temporary files of
    /// earlier runs: `.NAME.PID-N.partial`, and `.NAME.partial` as older
    /// versions named them.
    fn clear(&self) -> Result<(), PathError> {
        for name in CONTRACT_FILES {
            remove_file(&self.dir.join(name))?;
        }
        let listing = std::fs::read_dir(&self.dir).map_err(out_err(&self.dir))?;
        for entry in listing {
            let entry = entry.map_err(out_err(&self.dir))?;
            if entry.file_name().to_str().is_some_and(is_temporary) {
                remove_file(&entry.path())?;
            }
        }
        Ok(())
    }

    /// The final path of a report.
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Opens report `name` under a temporary name of its own.
    pub(crate) fn create(&self, name: &str) -> Result<(Temporary, File), PathError> {
        let done = self.path(name);
        let n = NEXT_TEMPORARY.fetch_add(1, Ordering::Relaxed);
        let tmp = self
            .dir
            .join(format!(".{name}.{}-{n}.partial", std::process::id()));
        let file = File::create_new(&tmp).map_err(out_err(&done))?;
        Ok((
            Temporary {
                tmp,
                done,
                renamed: false,
            },
            file,
        ))
    }

    /// Writes report `name` whole under a temporary name.
    pub(crate) fn write(&self, name: &str, bytes: &[u8]) -> Result<Temporary, PathError> {
        let (temporary, mut file) = self.create(name)?;
        file.write_all(bytes).map_err(out_err(&temporary.done))?;
        close(file, &temporary.done)?;
        Ok(temporary)
    }

    /// Completes the folder: `summary` is written under a temporary name,
    /// every other report (whole, in `files`) gets its final name, and
    /// summary.json last. On an error no summary.json is in place.
    pub(crate) fn finish(self, files: Vec<Temporary>, summary: &str) -> Result<(), PathError> {
        let summary = self.write("summary.json", summary.as_bytes())?;
        for file in files {
            file.rename()?;
        }
        summary.rename()
    }
}

/// Completes a report's file, whose final path is `done`: its bytes on the
/// disk (`fsync`), then the file closed, each checked. A write can fail
/// only there (NFS and disk quotas say a failed write-back at `fsync` or
/// `close`, as EIO, ENOSPC or EDQUOT): the report is then not whole, an
/// error like any other write's.
pub(crate) fn close(file: File, done: &Path) -> Result<(), PathError> {
    file.sync_all().map_err(out_err(done))?;
    nix::unistd::close(file).map_err(|e| PathError::io(done, io::Error::from(e)))
}

/// Removes a file (or link) if there is one; a directory stays.
fn remove_file(path: &Path) -> Result<(), PathError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => std::fs::remove_file(path).or_else(|e| match e.kind() {
            io::ErrorKind::NotFound => Ok(()),
            _ => Err(out_err(path)(e)),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(out_err(path)(e)),
    }
}

/// A temporary report file's name: `.NAME.partial` or `.NAME.PID-N.partial`
/// for a contract file NAME.
fn is_temporary(name: &str) -> bool {
    let Some(middle) = name
        .strip_prefix('.')
        .and_then(|n| n.strip_suffix(".partial"))
    else {
        return false;
    };
    CONTRACT_FILES.iter().any(|file| {
        middle.strip_prefix(file).is_some_and(|tag| {
            tag.is_empty()
                || tag.strip_prefix('.').is_some_and(|tag| {
                    tag.split_once('-').is_some_and(|(pid, n)| {
                        [pid, n]
                            .iter()
                            .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                    })
                })
        })
    })
}

/// A report written under a temporary name; removed unless renamed.
pub(crate) struct Temporary {
    tmp: PathBuf,
    done: PathBuf,
    renamed: bool,
}

impl Temporary {
    /// The final path.
    pub(crate) fn done(&self) -> &Path {
        &self.done
    }

    /// Gives the file its final name.
    fn rename(mut self) -> Result<(), PathError> {
        std::fs::rename(&self.tmp, &self.done).map_err(out_err(&self.done))?;
        self.renamed = true;
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_temporary;

    #[test]
    fn temporary_names() {
        for n in [
            ".summary.json.partial",
            ".castling.csv.partial",
            ".report.html.123-0.partial",
            ".clean.pgn.9-77.partial",
        ] {
            assert!(is_temporary(n), "{n}");
        }
        for n in [
            "summary.json.partial",
            ".notes.txt.partial",
            ".castling.csv.bak.partial",
            ".castling.csv.12.partial",
            ".castling.csv.1-.partial",
            ".castling.csv.a-1.partial",
            ".castling.csv",
        ] {
            assert!(!is_temporary(n), "{n}");
        }
    }
}
