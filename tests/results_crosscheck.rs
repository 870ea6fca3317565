//! results.csv and the missed draw `dead_position` cross-checked against
//! python-chess: random games with random recorded results, run through
//! the binary by `tests/crosscheck/results_check.py`; every row must be the
//! one python-chess's `outcome()`, `is_checkmate`, `is_stalemate`,
//! `is_insufficient_material` and `has_insufficient_material(color)` call
//! for; a row on the basis `helpmate_analysis` is checked by python-chess
//! playing out every line from its position instead (python-chess has no
//! helpmate search). Ignored where python-chess is missing (and run, so
//! failing, under CI).

use crate::common;

#[test]
#[cfg_attr(
    not(oracle_python_chess),
    ignore = "needs python-chess: run tests/setup-oracles"
)]
fn results_agree_with_python_chess() {
    let text = common::python_crosscheck("results_check.py", &["--games", "1500"]);
    assert!(text.contains(" 0 disagree"), "{text}");
    // Every code and the dead position are exercised.
    for code in [
        "result_mismatch",
        "checkmate_not_scored",
        "stalemate_not_drawn",
        "dead_position_not_drawn",
        "timeout_without_mating_material",
        "missed dead_position",
        "by helpmate analysis",
    ] {
        let n: u64 = text
            .split(&format!("{code} "))
            .nth(1)
            .and_then(|t| t.split([',', ';']).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(n > 0, "no {code} row: {text}");
    }
}
