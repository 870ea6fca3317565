//! The whole-input path over arbitrary bytes: splitter, batches (small ones,
//! so that games straddle batch reads), parse and audit. Must never panic,
//! and every game must be counted once.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let batch = 1 + data.first().map_or(0, |b| *b as usize) * 4;
    let s = pgn_audit::app::audit_bytes(data, batch);
    assert_eq!(s.games, s.clean + s.flagged + s.incomplete);
    assert_eq!(s.bytes, data.len() as u64);
    let whole = pgn_audit::app::audit_bytes(data, 1 << 20);
    assert_eq!(s.games, whole.games, "batch size changes the game count");
    assert_eq!(s.errors, whole.errors);
});
