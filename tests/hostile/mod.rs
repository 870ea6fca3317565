//! Hostile input (issue 12): no input, however large or damaged, and no
//! everyday mistake may crash pgn-audit, grow its memory without bound, or
//! let it exit 0 with numbers that are wrong. Large inputs are generated
//! here and streamed into the child (never stored); memory cases assert the
//! child's peak RSS, taken from `wait4`.
//!
//! One module per area; each test names the item of issue 12 (or of
//! issue 23, the second round) it pins.

use crate::{common, support};

mod boundaries;
mod cells;
mod decode;
mod faults;
mod folder;
mod helpmate;
mod input_caps;
mod linear;
mod messages;
mod reading;
mod runtime;
mod shards;
mod sources;
mod tables;
mod threads;
mod variant;

/// The measuring runner itself: the sample through standard input gives
/// its 438 games, and a peak RSS that is read (non-zero) and small.
#[test]
fn measured_run_of_the_sample() {
    let t = common::tempdir();
    let out = t.path().join("r");
    let sample = std::fs::read(common::SAMPLE).unwrap();
    let ran = support::audit_stdin(&["-", "-j", "2"], &out, move |w| {
        std::io::Write::write_all(w, &sample)
    });
    assert_eq!(ran.status, Some(0), "{}", ran.stderr);
    assert_eq!(common::counts(&out).0, 438);
    assert!(ran.peak_kib > 1024, "peak {} KiB", ran.peak_kib);
    ran.assert_peak_at_most(support::PEAK_MIB);
}
