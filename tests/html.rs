//! report.html (issue 8): the page's content checked from the HTML itself,
//! built from report rows (as a run writes them, and from a report folder
//! as a merge does), capped in size, turned off by --no-html, and rendered
//! for real in headless Chromium when it is installed.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::*;
use pgn_audit::report::html::{self, HtmlReport};
use pgn_audit::report::{IDENTITY, Summary};

const CASTLING: [&str; 8] = [
    "ply",
    "move_number",
    "side",
    "san",
    "castle",
    "reasons",
    "detail",
    "fen",
];
const CLAIMS: [&str; 9] = [
    "claim",
    "claim_source",
    "verdict",
    "ply",
    "occurrences",
    "occurrences_ignoring_rights",
    "plies",
    "fen",
    "detail",
];
const MISSED: [&str; 4] = ["rule", "ply", "plies_after", "fen"];
const ERRORS: [&str; 5] = ["ply", "san", "kind", "detail", "fen"];

/// White O-O through f1, attacked by the bishop on c4.
const FEN_THROUGH: &str = "rn1qkbnr/ppp2ppp/8/3pp3/2b1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5";
/// White O-O-O after the king has moved (the FEN has no white rights).
const FEN_KING_MOVED: &str = "r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 20";
/// Black O-O-O: the knight on d6 checks e8 and attacks c8, the bishop on b8
/// is in the rook's way.
const FEN_BLOCKED: &str = "rb2k3/8/3N4/8/8/8/8/4K3 b q - 0 30";
/// Chess960, king d1 castles h-side with the g1 rook.
const FEN_960: &str = "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w - - 0 1";
/// Karpov–Miles: the final position with different castling rights.
const FEN_CLAIM: &str = "r3k2r/ppp2ppp/2n5/8/8/2N5/PPP2PPP/R3K2R b KQ - 10 25";

fn id<'a>(
    game: &'a str,
    site: &'a str,
    date: &'a str,
    white: &'a str,
    black: &'a str,
    variant: &'a str,
) -> Vec<&'a str> {
    vec![
        "games.pgn",
        game,
        "0",
        "7",
        "Test & <Open>",
        site,
        date,
        "1",
        white,
        black,
        "1-0",
        variant,
    ]
}

fn join<'a>(a: Vec<&'a str>, b: &[&'a str]) -> Vec<String> {
    a.into_iter()
        .chain(b.iter().copied())
        .map(str::to_owned)
        .collect()
}

struct Fixture {
    castling: Vec<Vec<String>>,
    claims: Vec<Vec<String>>,
    missed: Vec<Vec<String>>,
    errors: Vec<Vec<String>>,
    summary: Summary,
}

fn fixture() -> Fixture {
    let lichess = "https://lichess.org/abcd1234";
    let castling = vec![
        join(
            id(
                "1",
                lichess,
                "1986.11.??",
                "Karpov, Anatoly",
                "Miles, Anthony",
                "standard",
            ),
            &[
                "9",
                "5",
                "white",
                "O-O",
                "kingside",
                "through_check",
                "The king passes over f1, attacked by the black bishop on c4.",
                FEN_THROUGH,
            ],
        ),
        join(
            id(
                "2",
                "Tilburg NED",
                "1992.05.03",
                "<script>alert(1)</script>",
                "O'Kelly & Co",
                "standard",
            ),
            &[
                "39",
                "20",
                "white",
                "O-O-O",
                "queenside",
                "king_moved",
                "The white king left e1 at ply 21 (Ke2) and came back at ply 25.",
                FEN_KING_MOVED,
            ],
        ),
        join(
            id(
                "3",
                "javascript:alert(1)",
                "????.??.??",
                "White",
                "Black",
                "standard",
            ),
            &[
                "60",
                "30",
                "black",
                "O-O-O",
                "queenside",
                "rook_moved;path_blocked;in_check;into_check",
                "The a8 rook moved at ply 12; the bishop on b8 is in the way; the knight on d6 checks.",
                FEN_BLOCKED,
            ],
        ),
        join(
            id("4", "", "2025.05.01", "A", "B", "chess960"),
            &[
                "1",
                "1",
                "white",
                "O-O",
                "kingside",
                "no_right_in_fen",
                "The FEN withholds the h-side right.",
                FEN_960,
            ],
        ),
    ];
    let claims = vec![
        join(
            id(
                "1",
                lichess,
                "1986.11.??",
                "Karpov, Anatoly",
                "Miles, Anthony",
                "standard",
            ),
            &[
                "threefold",
                "termination",
                "false_castling_rights",
                "49",
                "1",
                "3",
                "41;45;49",
                FEN_CLAIM,
                "The position stood 3 times, but twice with black castling rights.",
            ],
        ),
        join(
            id("5", "", "2001.01.01", "C", "D", "standard"),
            &[
                "threefold",
                "comment",
                "valid",
                "30",
                "3",
                "3",
                "22;26;30",
                FEN_CLAIM,
                "Valid.",
            ],
        ),
        join(
            id("6", "", "2001.01.01", "E", "F", "standard"),
            &[
                "threefold",
                "implied",
                "valid",
                "40",
                "3",
                "3",
                "32;36;40",
                FEN_CLAIM,
                "Valid.",
            ],
        ),
        join(
            id("7", "", "2001.01.01", "G", "H", "standard"),
            &[
                "fifty_moves",
                "termination",
                "false_fifty_moves",
                "80",
                "1",
                "1",
                "80",
                FEN_CLAIM,
                "Only 40 moves without capture or pawn move.",
            ],
        ),
    ];
    let missed = vec![join(
        id("8", "", "2010.01.01", "I", "J", "standard"),
        &["fivefold", "120", "7", FEN_CLAIM],
    )];
    let errors = vec![
        join(
            id("9", "", "2010.01.01", "K", "L", "standard"),
            &[
                "12",
                "Nf9",
                "parse_error",
                "Nf9 is not a move.",
                FEN_KING_MOVED,
            ],
        ),
        join(
            id("10", "", "2010.01.01", "M", "N", "standard"),
            &[
                "3",
                "Ke3",
                "illegal_move",
                "Ke3 is illegal here.",
                FEN_KING_MOVED,
            ],
        ),
    ];
    let mut summary = Summary {
        games: 12,
        clean: 3,
        flagged: 7,
        incomplete: 2,
        notation_quirks: 5,
        bytes: 3 << 20,
        seconds: 1.5,
        threads: 2,
        sources: vec!["games.pgn".to_owned()],
        ..Summary::default()
    };
    summary.castling = [1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1];
    summary.claims = [2, 0, 1, 0, 0, 0, 1];
    summary.missed_draws = [1, 0, 0];
    summary.errors = [1, 0, 0, 0, 0, 1];
    Fixture {
        castling,
        claims,
        missed,
        errors,
        summary,
    }
}

fn collect(f: &Fixture) -> HtmlReport {
    let mut h = HtmlReport::default();
    for r in &f.castling {
        h.add_castling(r);
    }
    for r in &f.claims {
        h.add_claim(r);
    }
    for r in &f.missed {
        h.add_missed_draw(r);
    }
    for r in &f.errors {
        h.add_error(r);
    }
    h
}

fn page() -> String {
    let f = fixture();
    collect(&f).render(&f.summary)
}

/// Writes the fixture as a report folder, as a run would.
fn write_dir(f: &Fixture, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, cols, rows) in [
        ("castling.csv", &CASTLING[..], &f.castling),
        ("claims.csv", &CLAIMS[..], &f.claims),
        ("missed_draws.csv", &MISSED[..], &f.missed),
        ("errors.csv", &ERRORS[..], &f.errors),
    ] {
        let mut w = csv::Writer::from_path(dir.join(name)).unwrap();
        w.write_record(IDENTITY.iter().chain(cols)).unwrap();
        for r in rows {
            w.write_record(r).unwrap();
        }
        w.flush().unwrap();
    }
    // results.csv (contract v2): no rows in this fixture.
    let results = ["ply", "code", "recorded", "expected", "detail", "fen"];
    let mut w = csv::Writer::from_path(dir.join("results.csv")).unwrap();
    w.write_record(IDENTITY.iter().chain(&results)).unwrap();
    w.flush().unwrap();
    std::fs::write(dir.join("summary.json"), f.summary.to_json().unwrap()).unwrap();
}

// ---- a small reader for the page's tags and attributes ----

/// Every start tag of `html` as (name, attributes).
fn tags(html: &str) -> Vec<(String, BTreeMap<String, String>)> {
    let mut out = Vec::new();
    for part in html.split('<').skip(1) {
        let Some(end) = part.find('>') else { continue };
        let inner = &part[..end];
        if inner.starts_with('/') || inner.starts_with('!') {
            continue;
        }
        let name_end = inner.find([' ', '/']).unwrap_or(inner.len());
        let name = inner[..name_end].to_owned();
        let mut attrs = BTreeMap::new();
        let mut rest = &inner[name_end..];
        while let Some(eq) = rest.find("=\"") {
            let key = rest[..eq].trim().trim_start_matches('/').trim().to_owned();
            let after = &rest[eq + 2..];
            let close = after.find('"').expect("closing quote");
            attrs.insert(key, after[..close].to_owned());
            rest = &after[close + 1..];
        }
        out.push((name, attrs));
    }
    out
}

/// The element with this id up to its closing tag (no nesting of the same
/// tag name inside, as for svg and article).
fn element<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let start = html[..at].rfind('<').unwrap();
    let name: String = html[start + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    let close = format!("</{name}>");
    let end = html[start..].find(&close).unwrap() + start + close.len();
    &html[start..end]
}

/// The board whose data-fen is `fen`.
fn board<'a>(html: &'a str, fen: &str) -> &'a str {
    let at = html
        .find(&format!("data-fen=\"{fen}\""))
        .unwrap_or_else(|| panic!("no board for {fen}"));
    let start = html[..at].rfind("<svg").unwrap();
    let end = html[start..].find("</svg>").unwrap() + start + 6;
    &html[start..end]
}

fn with_class<'a>(
    tags: &'a [(String, BTreeMap<String, String>)],
    class: &'a str,
) -> impl Iterator<Item = &'a BTreeMap<String, String>> + 'a {
    tags.iter()
        .filter(move |(_, a)| {
            a.get("class")
                .is_some_and(|c| c.split(' ').any(|x| x == class))
        })
        .map(|(_, a)| a)
}

/// (square, piece letter) of every piece drawn on a board.
fn pieces(svg: &str) -> BTreeSet<(String, String)> {
    let t = tags(svg);
    with_class(&t, "pc")
        .map(|a| (a["data-sq"].clone(), a["data-piece"].clone()))
        .collect()
}

/// (square, piece letter) of every piece of a FEN, worked out by shakmaty.
fn fen_pieces(fen: &str) -> BTreeSet<(String, String)> {
    let setup = shakmaty::fen::Fen::from_ascii(fen.as_bytes())
        .unwrap()
        .into_setup();
    setup
        .board
        .iter()
        .map(|(sq, p)| (sq.to_string(), p.char().to_string()))
        .collect()
}

fn marked(svg: &str, class: &str) -> BTreeMap<String, String> {
    let t = tags(svg);
    with_class(&t, class)
        .map(|a| {
            (
                a["data-sq"].clone(),
                a.get("data-attackers").cloned().unwrap_or_default(),
            )
        })
        .collect()
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

/// data-label → data-count of the bars of one chart.
fn bars(html: &str, chart: &str) -> Vec<(String, u64)> {
    let t = tags(element(html, chart));
    with_class(&t, "bar")
        .map(|a| (a["data-label"].clone(), a["data-count"].parse().unwrap()))
        .collect()
}

fn data_count(html: &str, id: &str) -> String {
    let t = tags(element(html, id));
    t[0].1["data-count"].clone()
}

fn stat(html: &str, name: &str) -> String {
    tags(element(html, &format!("stat-{name}")))[0].1["data-value"].clone()
}

fn pairs(v: &[(&str, u64)]) -> Vec<(String, u64)> {
    v.iter().map(|(a, n)| ((*a).to_owned(), *n)).collect()
}

// ---- the tests ----

#[test]
fn glance_shows_the_summary() {
    let p = page();
    assert!(p.starts_with("<!DOCTYPE html>"));
    assert_eq!(stat(&p, "games"), "12");
    assert_eq!(stat(&p, "clean"), "3");
    assert_eq!(stat(&p, "flagged"), "7");
    assert_eq!(stat(&p, "incomplete"), "2");
    assert_eq!(stat(&p, "quirks"), "5");
    assert_eq!(stat(&p, "bytes"), "3.0");
    assert_eq!(stat(&p, "seconds"), "1.50");
    assert_eq!(stat(&p, "rate"), "8");
    assert_eq!(data_count(&p, "sources"), "1");
    assert!(!p.contains("id=\"interrupted\""));
    // Self-contained: no script, no external resource.
    assert!(!p.contains("<script"));
    assert!(!p.contains("src=\""));
    assert!(!p.contains("<link"));
    assert!(!p.contains("@import"));

    // An interrupted run says so; a long list of sources is cut.
    let mut f = fixture();
    f.summary.interrupted = true;
    f.summary.sources = (0..25).map(|i| format!("s{i}.pgn")).collect();
    let p = collect(&f).render(&f.summary);
    assert!(p.contains("id=\"interrupted\""));
    assert_eq!(data_count(&p, "sources"), "25");
    assert!(p.contains("<code>s19.pgn</code> and 5 more"));
    assert!(!p.contains("s20.pgn"));
}

#[test]
fn charts_count_the_rows() {
    let p = page();
    assert_eq!(data_count(&p, "castles-total"), "4");
    assert_eq!(
        bars(&p, "chart-castle-reasons"),
        pairs(&[
            ("king_moved", 1),
            ("rook_moved", 1),
            ("no_right_in_fen", 1),
            ("path_blocked", 1),
            ("in_check", 1),
            ("through_check", 1),
            ("into_check", 1),
        ])
    );
    assert_eq!(
        bars(&p, "chart-castle-decades"),
        pairs(&[("1980s", 1), ("1990s", 1), ("2020s", 1), ("unknown", 1)])
    );
    assert_eq!(
        bars(&p, "chart-castle-variants"),
        pairs(&[("chess960", 1), ("standard", 3)])
    );
    let combos: Vec<String> = tags(element(&p, "castle-combos"))
        .into_iter()
        .filter_map(|(_, a)| a.get("data-reasons").cloned())
        .collect();
    assert_eq!(combos.len(), 4);
    assert!(combos.contains(&"rook_moved;path_blocked;in_check;into_check".to_owned()));

    assert_eq!(data_count(&p, "claims-total"), "4");
    assert_eq!(
        bars(&p, "chart-claim-verdicts"),
        pairs(&[
            ("valid", 2),
            ("false_castling_rights", 1),
            ("false_fifty_moves", 1)
        ])
    );
    // The verdict × source table.
    let table = element(&p, "claim-table");
    assert!(table.contains(
        r#"<tr data-verdict="valid"><td>valid</td><td class="n" data-source="termination">0</td><td class="n" data-source="comment">1</td><td class="n" data-source="implied">1</td><td class="n">2</td></tr>"#
    ));
    assert_eq!(
        bars(&p, "chart-claim-kinds"),
        pairs(&[("fifty_moves", 1), ("threefold", 3)])
    );
    assert_eq!(data_count(&p, "missed-draws-total"), "1");
    assert_eq!(bars(&p, "chart-missed"), pairs(&[("fivefold", 1)]));
    assert_eq!(data_count(&p, "errors-total"), "2");
    assert_eq!(
        bars(&p, "chart-errors"),
        pairs(&[("illegal_move", 1), ("parse_error", 1)])
    );
}

#[test]
fn every_castle_is_shown_with_its_identity() {
    let p = page();
    let articles: Vec<BTreeMap<String, String>> = tags(&p)
        .into_iter()
        .filter(|(n, a)| n == "article" && a.get("class").is_some_and(|c| c.contains("castle")))
        .map(|(_, a)| a)
        .collect();
    let reasons: Vec<&str> = articles
        .iter()
        .map(|a| a["data-reasons"].as_str())
        .collect();
    // Grouped by first reason, in the canonical order.
    assert_eq!(
        reasons,
        [
            "king_moved",
            "rook_moved;path_blocked;in_check;into_check",
            "no_right_in_fen",
            "through_check"
        ]
    );
    let first = element(&p, "castle-4");
    assert!(first.contains("Karpov, Anatoly – Miles, Anthony"));
    assert!(first.contains(r#"<a href="https://lichess.org/abcd1234""#));
    assert!(first.contains("1986.11.??"));
    assert!(first.contains("Ply 9: <b>5. O-O</b> (white kingside)"));
    assert!(first.contains("attacked by the black bishop on c4"));
    let black = element(&p, "castle-2");
    assert!(black.contains("<b>30… O-O-O</b> (black queenside)"));
    assert!(black.contains("games.pgn, game 3, line 7, byte 0"));
    // Shown per group, with totals.
    let h = tags(element(&p, "castles-through_check"));
    assert_eq!(h[0].1["data-total"], "1");
    assert_eq!(h[0].1["data-shown"], "1");
}

#[test]
fn boards_show_the_pieces_and_the_marked_squares() {
    let p = page();
    for fen in [FEN_THROUGH, FEN_KING_MOVED, FEN_BLOCKED, FEN_960, FEN_CLAIM] {
        assert_eq!(pieces(board(&p, fen)), fen_pieces(fen), "{fen}");
    }

    let b = board(&p, FEN_THROUGH);
    assert_eq!(marked(b, "attacked"), map(&[("f1", "c4")]));
    assert_eq!(marked(b, "attacker"), map(&[("c4", "")]));
    assert!(marked(b, "moved").is_empty());
    assert!(marked(b, "blocker").is_empty());
    let t = tags(b);
    let path: Vec<_> = with_class(&t, "path").collect();
    assert_eq!(path.len(), 1);
    assert_eq!(
        (path[0]["data-from"].as_str(), path[0]["data-to"].as_str()),
        ("e1", "g1")
    );
    let attacks: Vec<_> = with_class(&t, "attack")
        .map(|a| (a["data-from"].clone(), a["data-to"].clone()))
        .collect();
    assert_eq!(attacks, [("c4".to_owned(), "f1".to_owned())]);

    let b = board(&p, FEN_KING_MOVED);
    assert_eq!(marked(b, "moved"), map(&[("e1", "")]));
    assert!(marked(b, "attacked").is_empty());

    let b = board(&p, FEN_BLOCKED);
    assert_eq!(marked(b, "attacked"), map(&[("e8", "d6"), ("c8", "d6")]));
    assert_eq!(marked(b, "blocker"), map(&[("b8", "")]));
    assert_eq!(marked(b, "moved"), map(&[("a8", "")]));

    // Chess960: king d1 to g1 with the g1 rook; nothing attacked or in the way.
    let b = board(&p, FEN_960);
    let t = tags(b);
    let path: Vec<_> = with_class(&t, "path").collect();
    assert_eq!(
        (path[0]["data-from"].as_str(), path[0]["data-to"].as_str()),
        ("d1", "g1")
    );
    assert!(marked(b, "attacked").is_empty());
    assert!(marked(b, "blocker").is_empty());

    // The false claim's board marks the rooks that keep a right.
    let b = board(&p, FEN_CLAIM);
    assert_eq!(marked(b, "right"), map(&[("a1", ""), ("h1", "")]));
}

#[test]
fn false_claims_are_shown_with_their_plies() {
    let p = page();
    let claims: Vec<BTreeMap<String, String>> = tags(&p)
        .into_iter()
        .filter(|(n, a)| n == "article" && a.get("class").is_some_and(|c| c.contains("claim")))
        .map(|(_, a)| a)
        .collect();
    let got: Vec<(&str, &str)> = claims
        .iter()
        .map(|a| (a["data-verdict"].as_str(), a["data-plies"].as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("false_castling_rights", "41;45;49"),
            ("false_fifty_moves", "80")
        ]
    );
    let c = element(&p, "claim-1");
    assert!(c.contains("at plies 41, 45, 49"));
    assert!(c.contains("occurred once (FIDE identity), 3 times ignoring"));
    // Valid claims are counted, not shown one by one.
    assert!(!p.contains("22, 26, 30"));
    // Missed draws and errors are listed.
    let t = element(&p, "missed-fivefold");
    assert!(t.contains("<td class=\"n\">120</td><td class=\"n\">7</td>"));
    assert!(t.contains(", line 7 · "));
    let t = element(&p, "errors-list-parse_error");
    assert!(t.contains("Nf9 is not a move."));
}

#[test]
fn text_from_pgn_files_is_escaped() {
    let p = page();
    assert!(!p.contains("<script>alert(1)</script>"));
    assert!(p.contains("&lt;script&gt;alert(1)&lt;/script&gt; – O&#39;Kelly &amp; Co"));
    assert!(p.contains("Test &amp; &lt;Open&gt;"));
    // A Site that is no http(s) URL is text, not a link.
    assert!(!p.contains("href=\"javascript"));
    assert!(p.contains("javascript:alert(1)"));
    // Every tag the reader finds is well formed (quotes balanced).
    assert!(tags(&p).len() > 100);
}

#[test]
fn a_report_folder_gives_the_same_page() {
    let f = fixture();
    let t = tempdir();
    write_dir(&f, t.path());
    let from_dir = html::from_report_dir(t.path()).unwrap();
    assert_eq!(from_dir, collect(&f).render(&f.summary));
    // A folder without its reports is an error naming the file.
    let e = html::from_report_dir(&t.path().join("missing")).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn a_run_writes_the_same_page_as_its_folder() {
    let t = tempdir();
    let out = t.path().join("r");
    run_ok(&[SAMPLE], &out);
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(page, html::from_report_dir(&out).unwrap());
    assert_eq!(stat(&page, "games"), "438");
    assert_eq!(stat(&page, "clean"), "438");
    assert_eq!(data_count(&page, "castles-total"), "0");
    assert!(page.contains("lichess_2025-05_sample.pgn"));
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".partial")), "{names:?}");
}

#[test]
fn no_html_turns_it_off_and_changes_no_csv() {
    let t = tempdir();
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    run_ok(&[SAMPLE, "--split"], &a);
    run_ok(&[SAMPLE, "--split", "--no-html"], &b);
    assert!(a.join("report.html").is_file());
    assert!(!b.join("report.html").exists());
    for f in [
        "castling.csv",
        "claims.csv",
        "missed_draws.csv",
        "errors.csv",
        "clean.pgn",
        "rejected.pgn",
    ] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    let (mut x, mut y) = (summary(&a), summary(&b));
    assert_eq!(
        (&x["options"], &y["options"]),
        (
            &serde_json::json!({"split": true, "quirks": false, "html": true}),
            &serde_json::json!({"split": true, "quirks": false, "html": false})
        )
    );
    for s in [&mut x, &mut y] {
        s.as_object_mut().unwrap().remove("seconds");
        s.as_object_mut().unwrap().remove("options");
    }
    assert_eq!(x, y);
}

#[test]
fn the_page_stays_small_however_big_the_run() {
    // 300 castles for each first reason, 300 claims for each verdict, and
    // as many missed draws and errors: at most 50 of each are shown.
    let f = fixture();
    let mut h = HtmlReport::default();
    let reasons = [
        "king_moved",
        "rook_moved",
        "rook_captured",
        "no_right_in_fen",
        "king_displaced",
        "rook_displaced",
        "no_rook",
        "path_blocked",
        "in_check",
        "through_check",
        "into_check",
    ];
    let long = "x".repeat(10_000);
    let at =
        |own: &[&str], name: &str| IDENTITY.iter().chain(own).position(|c| *c == name).unwrap();
    let (white, reasons_at, detail) = (
        at(&CASTLING, "white"),
        at(&CASTLING, "reasons"),
        at(&CASTLING, "detail"),
    );
    for i in 0..300 {
        for (k, r) in reasons.iter().enumerate() {
            let mut row = f.castling[i % 4].clone();
            row[white] = long.clone();
            row[reasons_at] = reasons[k..].join(";");
            row[detail] = long.clone();
            assert!(row[reasons_at].starts_with(r));
            h.add_castling(&row);
        }
        for v in [
            "valid",
            "false_castling_rights",
            "false_en_passant",
            "false_side_to_move",
            "false_not_repeated",
            "false_fifty_moves",
        ] {
            let mut row = f.claims[0].clone();
            row[at(&CLAIMS, "verdict")] = v.to_owned();
            h.add_claim(&row);
        }
        h.add_missed_draw(&f.missed[0]);
        h.add_error(&f.errors[0]);
    }
    let p = h.render(&f.summary);
    assert!(p.len() < 4 << 20, "{} bytes", p.len());
    let castles = tags(&p)
        .into_iter()
        .filter(|(n, a)| n == "article" && a["class"].contains("castle"))
        .count();
    assert_eq!(castles, 11 * 50);
    assert_eq!(data_count(&p, "castles-total"), "3300");
    let g = tags(element(&p, "castles-king_moved"));
    assert_eq!(
        (g[0].1["data-total"].as_str(), g[0].1["data-shown"].as_str()),
        ("300", "50")
    );
    assert!(p.contains("… and 250 more in castling.csv."));
    assert!(p.contains("… and 250 more in claims.csv."));
    // Long names are cut.
    assert!(!p.contains(&"x".repeat(400)));
}

/// Renders the fixture page and the page of a run on corpora/ in headless
/// Chromium and checks that a real picture came out. With
/// PGN_AUDIT_SCREENSHOT=1 the corpora page's picture is kept as
/// tests/screenshots/report.png (the README's screenshot).
#[test]
#[cfg_attr(
    not(oracle_chromium),
    ignore = "needs Chromium: apt-get install chromium"
)]
fn renders_in_headless_chromium() {
    let chromium = "chromium";
    let t = tempdir();
    let dir = t.path().join("fixture");
    write_dir(&fixture(), &dir);
    std::fs::write(
        dir.join("report.html"),
        html::from_report_dir(&dir).unwrap(),
    )
    .unwrap();
    let corpora = t.path().join("corpora");
    run_ok(&[concat!(env!("CARGO_MANIFEST_DIR"), "/corpora")], &corpora);
    for (name, dir) in [("fixture", &dir), ("corpora", &corpora)] {
        let png = t.path().join(format!("{name}.png"));
        let profile = tempdir();
        let o = std::process::Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1280,2400",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("file://{}", dir.join("report.html").display()))
            .output()
            .expect("run chromium");
        let bytes = std::fs::read(&png).unwrap_or_else(|_| {
            panic!(
                "no screenshot of {name}: {}",
                String::from_utf8_lossy(&o.stderr)
            )
        });
        assert!(bytes.starts_with(b"\x89PNG"), "{name}: not a PNG");
        // A blank page compresses to a few kB; the report does not.
        assert!(bytes.len() > 20_000, "{name}: {} bytes", bytes.len());
        if name == "corpora" && std::env::var_os("PGN_AUDIT_SCREENSHOT").is_some() {
            let keep = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/screenshots");
            std::fs::create_dir_all(&keep).unwrap();
            std::fs::copy(&png, keep.join("report.png")).unwrap();
        }
        if let Some(keep) = std::env::var_os("PGN_AUDIT_SCREENSHOT_DIR") {
            let keep = Path::new(&keep);
            std::fs::copy(&png, keep.join(format!("{name}.png"))).unwrap();
            std::fs::copy(dir.join("report.html"), keep.join(format!("{name}.html"))).unwrap();
        }
    }
}
