//! `pgn-audit plan`: the pieces of one large file, for a cluster.

use super::sources::print;
use super::{Exit, say};
use crate::cli::PlanArgs;
use pgn_audit_input as input;

/// Runs `pgn-audit plan`: prints the pieces of a file, one `START..END` a
/// line; says why it failed, if it did.
pub(crate) fn run_plan(args: &PlanArgs) -> Exit {
    let name = args.file.to_string_lossy();
    let planned = match args.piece_size {
        Some(size) => input::piece::plan(
            &args.file,
            &name,
            size,
            input::MaxWindow::mib(args.max_window),
        )
        .map(|pieces| pieces.iter().map(|p| format!("{p}\n")).collect::<String>()),
        None => {
            input::piece::text_estimate(&args.file, &name, input::MaxWindow::mib(args.max_window))
                .map(|text| format!("{text}\n"))
        }
    };
    match planned {
        Ok(text) => print(&text),
        Err(e) => {
            say(&e.to_string());
            Exit::Input
        }
    }
}
