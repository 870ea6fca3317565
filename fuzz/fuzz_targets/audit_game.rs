//! One game's bytes, read and audited: must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let game = pgn_audit::pgn::Game::parse(data);
    let report = pgn_audit::audit::audit_game(&game);
    let _ = report.class();
});
