//! `pgn-audit sources`: the sources an audit of the same inputs reads.

use std::io;

use super::{Exit, check_out_folder, path_inputs, say, stat_sources};
use crate::cli::SourcesArgs;
use pgn_audit_input::{self as input, Origin, PathError};

/// Runs `pgn-audit sources`: prints the sources an audit of the same
/// inputs and output folder reads, in its order, one JSON object a line;
/// says why they cannot be read, as the audit says it, if they cannot.
/// A source that cannot be read at all (a missing input, a folder that
/// cannot be listed) or that the audit refuses (a 7z archive, binary data,
/// an HTML page) is said as the audit says it, in one line, and gets no
/// JSON line; the others are still printed, and the exit status is the
/// audit's, 2.
pub(crate) fn run_sources(args: &SourcesArgs) -> Exit {
    let resolved = check_out_folder(&args.out).and_then(|()| {
        Ok(input::collect_sources(
            &path_inputs(&args.inputs),
            &args.out,
        )?)
    });
    let sources = match resolved {
        Ok(sources) => sources,
        Err(e) => {
            say(&e.to_string());
            return e.exit();
        }
    };
    let stats = stat_sources(&sources);
    let mut text = String::new();
    let mut unreadable = false;
    for (source, stat) in sources.iter().zip(stats) {
        let path = match &source.origin {
            Origin::File(p) | Origin::ZipMember { archive: p, .. } => Some(p.to_string_lossy()),
            Origin::Stdin | Origin::Memory(_) => None,
            Origin::Unreadable(cause) => {
                say(&PathError::new(&source.name, cause.clone()).to_string());
                unreadable = true;
                continue;
            }
        };
        if let Some(refused) = source.refusal(stat.size) {
            say(&refused.to_string());
            unreadable = true;
            continue;
        }
        let line = serde_json::json!({
            "source": source.name,
            "path": path,
            "format": source.stored_format(),
            "size": stat.size,
            "modified": stat.modified,
            "modified_ns": stat.modified_ns,
        });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    match print(&text) {
        Exit::Completed if unreadable => Exit::Input,
        exit => exit,
    }
}

/// Writes `text` on standard output. A reader that is gone (`| head -1`)
/// took what it wanted: that is no error.
pub(super) fn print(text: &str) -> Exit {
    match io::Write::write_all(&mut io::stdout().lock(), text.as_bytes()) {
        Ok(()) => Exit::Completed,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Exit::Completed,
        Err(e) => {
            say(&format!("standard output: {}", input::io_cause(&e)));
            Exit::Input
        }
    }
}
