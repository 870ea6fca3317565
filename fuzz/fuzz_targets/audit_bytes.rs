//! The command line's path over arbitrary bytes held in memory: sniffing,
//! decompression, the splitter at small and large chunk sizes (so that
//! games straddle chunks), the workers' audit of each game and the
//! reports' counts. Must never panic, and every game must be counted once,
//! the same whatever the chunk size.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let chunk = 1 + data.first().map_or(0, |b| *b as usize) * 4;
    let s = pgn_audit::app::audit_bytes(data, chunk);
    assert_eq!(s.games, s.clean + s.flagged + s.incomplete);
    let whole = pgn_audit::app::audit_bytes(data, 1 << 20);
    assert_eq!(s, whole, "the chunk size changes the reports");
});
