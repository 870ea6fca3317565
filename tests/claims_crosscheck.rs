//! Draw-claim verdicts cross-checked against python-chess: random walks with
//! claims at their end, run through the binary by
//! `tests/crosscheck/claims_check.py`; repetition counts and whether each
//! claim is upheld must agree with python-chess, but for the contract's
//! Karpov–Miles rule (see the script). Ignored where python-chess is
//! missing (and run, so failing, under CI).

use crate::common;

#[test]
#[cfg_attr(
    not(oracle_python_chess),
    ignore = "needs python-chess: run tests/setup-oracles"
)]
fn claim_verdicts_agree_with_python_chess() {
    let text = common::python_crosscheck("claims_check.py", &["--games", "2000"]);
    assert!(text.contains(" 0 disagree"), "{text}");
}
