//! chasolver's helpmates cross-checked against python-chess.
//! python-chess has no helpmate search; what it can check is a helpmate:
//! the line behind each `Possible` verdict of the audit's wrapper (the
//! side can mate, so no row), replayed from the position as given by
//! `tests/crosscheck/helpmate_check.py`, must be legal move by move and
//! end in a mate by that side. The positions: every 4th line of
//! chasolver's test files (Lichess games and constructed positions), each
//! side the crate classifies as able to mate where the audit asks the
//! full search. The verdicts that a side cannot mate are cross-checked by
//! `results_check.py` (every line played out). Ignored where python-chess
//! is missing (and run, so failing, under CI).

use pgn_audit_core::audit::helpmate::{FullSearch, full_search};
use shakmaty::{CastlingMode, Chess, Color, FromSetup, PositionError, fen::Fen};

use crate::common;

/// chasolver's own test file `name` (it ships with the crate), in its
/// vendored copy.
fn crate_file(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/chasolver/tests")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The helpmate lines (`FEN;side;UCI moves`) of every 4th position of
/// `text`, for each side the crate classifies as able to mate, where the
/// audit asks the full search; and how many sides were asked. A side able
/// to mate is never found unable, nor left undecided.
fn helpmates(text: &str) -> (Vec<String>, usize) {
    let mut lines = Vec::new();
    let mut asked = 0;
    let positions = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .step_by(4);
    for line in positions {
        let (class, fen) = line.split_at(2);
        let fen = fen.trim();
        let setup = Fen::from_ascii(fen.as_bytes()).unwrap().into_setup();
        let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard)
            .or_else(PositionError::ignore_too_much_material)
        else {
            continue;
        };
        for (side, letter, name) in [(Color::White, b'W', "white"), (Color::Black, b'B', "black")] {
            if class.as_bytes()[usize::from(side == Color::Black)] != letter {
                continue;
            }
            match full_search(&pos, side) {
                FullSearch::NotAsked => {}
                FullSearch::Helpmate(moves) => {
                    asked += 1;
                    lines.push(format!("{fen};{name};{}", moves.join(" ")));
                }
                other => panic!("{line}: {name} can mate, but {other:?}"),
            }
        }
    }
    (lines, asked)
}

#[test]
#[cfg_attr(
    not(oracle_python_chess),
    ignore = "needs python-chess: run tests/setup-oracles"
)]
fn chasolvers_helpmates_mate_in_python_chess() {
    let (mut lines, lichess) = helpmates(&crate_file("lichess.txt"));
    let (constructed, asked) = helpmates(&crate_file("positions.txt"));
    lines.extend(constructed);
    assert_eq!((lichess, asked), (927, 386));
    let t = common::tempdir();
    let file = common::write(t.path(), "helpmates.txt", lines.join("\n").as_bytes());
    let text = common::python_crosscheck("helpmate_check.py", &[file.to_str().unwrap()]);
    assert!(
        text.contains(&format!("{} helpmates", lines.len())),
        "{text}"
    );
    assert!(text.contains(", 0 disagree"), "{text}");
    // The check can fail: each line cut short of its mate is refused.
    let cut: Vec<String> = lines
        .iter()
        .filter_map(|l| {
            let (head, moves) = l.rsplit_once(';').unwrap();
            let (moves, _) = moves.rsplit_once(' ')?;
            Some(format!("{head};{moves}"))
        })
        .collect();
    assert!(cut.len() > 1000, "{}", cut.len());
    let file = common::write(t.path(), "cut.txt", cut.join("\n").as_bytes());
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crosscheck/helpmate_check.py");
    let out = common::python()
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_pgn-audit"))
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("{0} disagree", cut.len())), "{text}");
}
