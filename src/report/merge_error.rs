//! Why a merge cannot be done: the one error of `merge` and of the
//! identities it checks.

use std::path::Path;

use pgn_audit_input::PathError;

/// Why a merge cannot be done.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A folder given to merge, or one of its files, that cannot be
    /// merged, or the merged folder that cannot be written: one line,
    /// `PATH: CAUSE`.
    #[error(transparent)]
    Refused(#[from] PathError),
    /// A signal stopped the merge while it wrote: no report was completed.
    #[error("interrupted")]
    Interrupted,
}

/// A refusal of `path`: one line, `PATH: CAUSE`.
pub(crate) fn fail(path: &Path, cause: impl Into<String>) -> MergeError {
    PathError::new(path, cause).into()
}
