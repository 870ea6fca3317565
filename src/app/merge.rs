//! `pgn-audit merge`: report folders of disjoint inputs joined into one
//! run's reports.

use super::signals::Signals;
use super::{Exit, Failure, check_out_folder, say, to_stderr};
use crate::cli::MergeArgs;
use pgn_audit_report::MergeError;

/// Runs `pgn-audit merge`; says why it failed, if it did.
pub(crate) fn run_merge(args: &MergeArgs) -> Exit {
    merge_folders(args).unwrap_or_else(|e| {
        say(&e.to_string());
        e.exit()
    })
}

/// The merge's stages: the signal handler, the folders read and checked,
/// then the merged folder written (a signal before it is touched ends the
/// process at once with 130; after, it stops the merge, which leaves no
/// report behind, and exits 130).
fn merge_folders(args: &MergeArgs) -> Result<Exit, Failure> {
    let signals = Signals::install()?;
    check_out_folder(&args.out)?;
    let merged = pgn_audit_report::merge(
        &args.dirs,
        &args.out,
        || signals.begin_reports(),
        &signals.interrupted,
    );
    let summary = match merged {
        Err(MergeError::Interrupted) => return Err(Failure::MergeInterrupted(args.out.clone())),
        merged => merged?,
    };
    // A source that a read error ended is said as the one run over the
    // same inputs says it, and the merge exits as that run does: the
    // merged reports hold only what was read of it.
    let mut read_errors = 0;
    for detail in &summary.source_details {
        if let Some(error) = &detail.error {
            say(&format!("{}: {error}", detail.name));
            read_errors += 1;
        }
    }
    if !args.quiet {
        to_stderr(&summary.table(&args.out, crate::progress::table_width()));
    }
    Ok(if read_errors > 0 {
        Exit::Input
    } else {
        Exit::Completed
    })
}
