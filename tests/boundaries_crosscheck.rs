//! Game boundaries (contract v2, "Game boundaries" and "Not games")
//! cross-checked against python-chess's `read_game` loop by
//! `tests/crosscheck/boundaries_check.py`: on files of the forms python-chess
//! reads as the contract does (blank-line-separated games, no blank line
//! between games, `;` and `%` lines between games, CRLF), the same games
//! with the same moves; on files mixing every boundary form, the games as
//! written, the forms python-chess reads otherwise listed. Ignored where
//! python-chess is missing (and run, so failing, under CI).

use crate::common;

#[test]
#[cfg_attr(
    not(oracle_python_chess),
    ignore = "needs python-chess: run tests/setup-oracles"
)]
fn game_boundaries_agree_with_python_chess() {
    let text = common::python_crosscheck("boundaries_check.py", &["--games", "400"]);
    assert!(text.contains(": 0 disagree"), "{text}");
    // Every form python-chess reads otherwise came up in the mixed files.
    for form in [
        "blank_in_movetext",
        "comment_blank_first_move",
        "two_blanks_after_tags",
        "tag_only_section",
        "brace_block",
        "same_line",
        "nul_tail",
    ] {
        assert!(
            text.lines()
                .filter(|l| l.starts_with("every"))
                .all(|l| l.contains(form)),
            "{form}: {text}"
        );
    }
}
