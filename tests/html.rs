//! report.html (issues 8 and 16): the page's content checked from the HTML
//! itself, built from typed report rows (as a run writes them, and from a
//! report folder as a merge does), capped in size, turned off by
//! --no-html; its castle boards marked from the audit's one castling
//! geometry; and opened for real in headless Chromium by selenium at five
//! widths (tests/browser/page_check.py).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::*;
use pgn_audit_core::audit::geometry::{castle_candidates, geometry};
use pgn_audit_core::audit::{CastlingReason, Variant};
use pgn_audit_report::cells::{Code, Plies, VariantColumn};
use pgn_audit_report::rows::{
    self, CastlingRow, ClaimRow, ErrorRow, Identity, MissedDrawRow, Record, ReportRow, ResultRow,
};
use pgn_audit_report::{HtmlReport, Summary, page_from_report_dir};
use shakmaty::Bitboard;

/// White O-O through f1, attacked by the bishop on c4.
const FEN_THROUGH: &str = "rn1qkbnr/ppp2ppp/8/3pp3/2b1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5";
/// White O-O-O after the king has moved (the FEN has no white rights).
const FEN_KING_MOVED: &str = "r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 20";
/// Black O-O-O: the knight on d6 checks e8 and attacks c8, the bishop on b8
/// is in the rook's way.
const FEN_BLOCKED: &str = "rb2k3/8/3N4/8/8/8/8/4K3 b q - 0 30";
/// Chess960, king d1 castles h-side with the g1 rook; the f1 bishop is in
/// the way (issue 14, point 1).
const FEN_960: &str = "1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K1BR1 w - - 0 1";
/// The h1 rook was captured by the bishop that stands there now; no rook
/// is left on the h-side.
const FEN_CAPTURED: &str = "4k3/8/8/8/8/8/8/R3K2b w Q - 0 2";
/// Karpov–Miles: the final position with different castling rights.
const FEN_CLAIM: &str = "r3k2r/ppp2ppp/2n5/8/8/2N5/PPP2PPP/R3K2R b KQ - 10 25";

/// The value whose code is `text`.
fn code<T: Code>(text: &str) -> T {
    T::from_code(text).unwrap_or_else(|| panic!("no code {text}"))
}

/// The value of a code column that may be empty.
fn optional<T: Code>(text: &str) -> Option<T> {
    (!text.is_empty()).then(|| code(text))
}

/// A set of codes from their texts joined with `;`.
fn reasons(text: &str) -> pgn_audit_core::audit::Reasons {
    text.split(';').map(code::<CastlingReason>).collect()
}

fn variant(text: &str) -> VariantColumn {
    match Variant::from_code(text) {
        Some(v) => VariantColumn::Known(v),
        None => VariantColumn::Unsupported(text.to_owned()),
    }
}

fn ident(game: u64, site: &str, date: &str, white: &str, black: &str, variant: &str) -> Identity {
    Identity {
        source: "games.pgn".into(),
        game,
        offset: 0,
        line: 7,
        event: "Test & <Open>".into(),
        site: site.into(),
        date: date.into(),
        round: "1".into(),
        white: white.into(),
        black: black.into(),
        result: "1-0".into(),
        variant: self::variant(variant),
    }
}

#[allow(clippy::too_many_arguments)]
fn castle(
    id: Identity,
    ply: u32,
    number: u32,
    side: &str,
    castle: &str,
    reasons: &str,
    detail: &str,
    fen: &str,
) -> CastlingRow {
    CastlingRow {
        id,
        ply,
        move_number: number,
        side: code(side),
        san: if castle == "kingside" { "O-O" } else { "O-O-O" }.into(),
        castle: code(castle),
        reasons: self::reasons(reasons),
        detail: detail.into(),
        fen: fen.into(),
    }
}

#[allow(clippy::too_many_arguments)]
fn claim(
    id: Identity,
    claim: &str,
    source: &str,
    verdict: &str,
    ply: u32,
    occurrences: (u32, u32),
    plies: &str,
    detail: &str,
) -> ClaimRow {
    ClaimRow {
        id,
        claim: code(claim),
        claim_source: code(source),
        verdict: code(verdict),
        ply,
        occurrences: occurrences.0,
        occurrences_ignoring_rights: occurrences.1,
        plies: Plies(plies.split(';').map(|p| p.parse().unwrap()).collect()),
        fen: FEN_CLAIM.into(),
        detail: detail.into(),
    }
}

struct Fixture {
    castling: Vec<CastlingRow>,
    claims: Vec<ClaimRow>,
    missed: Vec<MissedDrawRow>,
    errors: Vec<ErrorRow>,
    results: Vec<ResultRow>,
    summary: Summary,
}

fn fixture() -> Fixture {
    let lichess = "https://lichess.org/abcd1234";
    let karpov = || {
        ident(
            1,
            lichess,
            "1986.11.??",
            "Karpov, Anatoly",
            "Miles, Anthony",
            "standard",
        )
    };
    let castling = vec![
        castle(
            karpov(),
            9,
            5,
            "white",
            "kingside",
            "through_check",
            "The king passes over f1, attacked by the black bishop on c4.",
            FEN_THROUGH,
        ),
        castle(
            ident(
                2,
                "Tilburg NED",
                "1992.05.03",
                "<script>alert(1)</script>",
                "O'Kelly & Co",
                "standard",
            ),
            39,
            20,
            "white",
            "queenside",
            "king_moved",
            "The white king left e1 at ply 21 (Ke2) and came back at ply 25.",
            FEN_KING_MOVED,
        ),
        castle(
            ident(3, "javascript:alert(1)", "????.??.??", "", "", "standard"),
            60,
            30,
            "black",
            "queenside",
            "rook_moved;path_blocked;in_check;into_check",
            "The a8 rook moved at ply 12; the bishop on b8 is in the way; the knight on d6 checks.",
            FEN_BLOCKED,
        ),
        castle(
            ident(4, "", "2025.05.01", "A", "B", "chess960"),
            1,
            1,
            "white",
            "kingside",
            "no_right_in_fen;path_blocked",
            "The FEN withholds the h-side right; the bishop on f1 stands in the way.",
            FEN_960,
        ),
        castle(
            ident(5, "", "2025.05.01", "C", "", "standard"),
            3,
            2,
            "white",
            "kingside",
            "rook_captured;no_rook",
            "the h1 rook was captured on h1 with 1...Bxh1",
            FEN_CAPTURED,
        ),
    ];
    let claims = vec![
        claim(
            karpov(),
            "threefold",
            "termination",
            "false_castling_rights",
            49,
            (1, 3),
            "41;45;49",
            "the position after 25.Nb5 stood 3 times only when castling rights are ignored: \
             the first occurrence, after 21.Nb5, still had Black's rights to castle kingside and \
             queenside",
        ),
        claim(
            ident(6, "", "2001.01.01", "C", "D", "standard"),
            "threefold",
            "comment",
            "valid",
            30,
            (3, 3),
            "22;26;30",
            "Valid.",
        ),
        claim(
            ident(7, "", "2001.01.01", "E", "F", "standard"),
            "threefold",
            "implied",
            "valid",
            40,
            (3, 3),
            "32;36;40",
            "Valid.",
        ),
        claim(
            ident(8, "", "2001.01.01", "G", "H", "standard"),
            "fifty_moves",
            "termination",
            "false_fifty_moves",
            80,
            (1, 1),
            "80",
            "Only 40 moves without capture or pawn move.",
        ),
    ];
    let missed = vec![
        MissedDrawRow {
            id: ident(9, "", "2010.01.01", "I", "J", "standard"),
            rule: code("fivefold"),
            ply: 120,
            plies_after: 7,
            fen: FEN_CLAIM.into(),
            basis: optional(""),
        },
        MissedDrawRow {
            id: ident(10, "", "2010.01.01", "I", "J", "standard"),
            rule: code("dead_position"),
            ply: 61,
            plies_after: 1,
            fen: "8/8/8/8/8/8/3K4/5B1k b - - 0 31".into(),
            basis: optional("insufficient_material"),
        },
    ];
    let errors = vec![
        ErrorRow {
            id: ident(11, "", "2010.01.01", "K", "L", "standard"),
            ply: 12,
            san: "Nf9".into(),
            kind: code("parse_error"),
            detail: "Nf9 is not a move.".into(),
            fen: FEN_KING_MOVED.into(),
        },
        ErrorRow {
            id: ident(12, "", "", "", "", "standard"),
            ply: 3,
            san: "Ke3".into(),
            kind: code("illegal_move"),
            detail: "Ke3 is illegal here.".into(),
            fen: FEN_KING_MOVED.into(),
        },
    ];
    let results = vec![ResultRow {
        id: ident(13, "", "2010.01.01", "M", "N", "standard"),
        ply: 4,
        code: code("checkmate_not_scored"),
        recorded: "1/2-1/2".into(),
        expected: "0-1".into(),
        detail: "Black mates.".into(),
        fen: "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3".into(),
        basis: None,
    }];
    let mut summary = Summary {
        games: 14,
        clean: 3,
        flagged: 9,
        incomplete: 2,
        notation_quirks: 5,
        bytes: 3 << 20,
        seconds: 1.5,
        threads: 2,
        sources: vec!["games.pgn".to_owned()],
        ..Summary::default()
    };
    summary.castling = [1, 1, 1, 1, 0, 0, 1, 2, 1, 1, 1];
    summary.claims = [2, 0, 1, 0, 0, 0, 1];
    summary.missed_draws = [1, 0, 1];
    summary.errors = [1, 0, 0, 0, 0, 1];
    summary.results = [0, 1, 0, 0, 0];
    Fixture {
        castling,
        claims,
        missed,
        errors,
        results,
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
    for r in &f.results {
        h.add_result(r);
    }
    h
}

fn page() -> String {
    let f = fixture();
    collect(&f).render(&f.summary)
}

fn write_rows<R: ReportRow + Record>(dir: &Path, rows: &[R]) {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_path(dir.join(R::FILE))
        .unwrap();
    w.write_record(rows::columns::<R>()).unwrap();
    for r in rows {
        r.write(&mut w).unwrap();
    }
    w.flush().unwrap();
}

/// Writes the fixture as a report folder, as a run would.
fn write_dir(f: &Fixture, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    write_rows(dir, &f.castling);
    write_rows(dir, &f.claims);
    write_rows(dir, &f.missed);
    write_rows(dir, &f.errors);
    write_rows(dir, &f.results);
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
        loop {
            let rest_t = rest.trim_start();
            if rest_t.is_empty() {
                break;
            }
            let key_end = rest_t.find(['=', ' ']).unwrap_or(rest_t.len());
            let key = rest_t[..key_end].trim_start_matches('/').to_owned();
            if rest_t[key_end..].starts_with("=\"") {
                let after = &rest_t[key_end + 2..];
                let close = after.find('"').expect("closing quote");
                attrs.insert(key, after[..close].to_owned());
                rest = &after[close + 1..];
            } else {
                if !key.is_empty() {
                    attrs.insert(key, String::new());
                }
                rest = &rest_t[key_end..];
                if key_end == 0 {
                    rest = &rest[1..];
                }
            }
        }
        out.push((name, attrs));
    }
    out
}

/// The element with this id up to its closing tag, elements of the same
/// name nested inside included.
fn element<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let start = html[..at].rfind('<').unwrap();
    let name: String = html[start + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    let (open, close) = (format!("<{name}"), format!("</{name}>"));
    let mut depth = 0;
    let mut i = start;
    loop {
        let next_open = html[i + 1..].find(&open).map(|k| k + i + 1);
        let next_close = html[i..].find(&close).map(|k| k + i).expect("closing tag");
        match next_open {
            Some(o) if o < next_close => {
                depth += 1;
                i = o;
            }
            _ => {
                if depth == 0 {
                    return &html[start..next_close + close.len()];
                }
                depth -= 1;
                i = next_close + 1;
            }
        }
    }
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

/// The squares of one mark class, with their data-attackers.
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

fn set(squares: &[&str]) -> BTreeMap<String, String> {
    squares
        .iter()
        .map(|s| ((*s).to_owned(), String::new()))
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

/// The examples of one class (castle, claim, …), in page order.
fn examples(p: &str, class: &str) -> Vec<BTreeMap<String, String>> {
    tags(p)
        .into_iter()
        .filter(|(n, a)| {
            n == "details"
                && a.get("class").is_some_and(|c| {
                    c.split(' ').any(|x| x == "ex") && c.split(' ').any(|x| x == class)
                })
        })
        .map(|(_, a)| a)
        .collect()
}

/// The text of an HTML fragment, tags dropped.
fn text(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

// ---- the tests ----

#[test]
fn findings_come_first_then_the_run() {
    let p = page();
    assert!(p.starts_with("<!DOCTYPE html>"));
    let order: Vec<usize> = [
        "stat-castles",
        "stat-false-claims",
        "stat-missed",
        "stat-results",
        "stat-errors",
        "stat-games",
    ]
    .iter()
    .map(|id| p.find(&format!("id=\"{id}\"")).unwrap())
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    for (name, value) in [
        ("castles", "5"),
        ("false-claims", "2"),
        ("missed", "2"),
        ("results", "1"),
        ("errors", "2"),
        ("games", "14"),
        ("clean", "3"),
        ("flagged", "9"),
        ("incomplete", "2"),
        ("quirks", "5"),
        ("bytes", "3.0"),
        ("seconds", "1.50"),
        ("rate", "9"),
    ] {
        assert_eq!(stat(&p, name), value, "{name}");
    }
    // Each count names the summary.json count it shows.
    let t = tags(element(&p, "stat-missed"));
    assert_eq!(
        t[1].1["data-key"],
        "missed_draws.fivefold+missed_draws.seventy_five_moves+missed_draws.dead_position"
    );
    let t = tags(element(&p, "stat-false-claims"));
    assert!(
        element(&p, "stat-false-claims").contains("2 from a Termination tag or comment"),
        "{t:?}"
    );
    assert_eq!(data_count(&p, "sources"), "1");
    assert!(!p.contains("id=\"interrupted\""));
    // Self-contained: no script, no external resource.
    assert!(!p.contains("<script"));
    assert!(!p.contains("src=\""));
    assert!(!p.contains("<link"));
    assert!(!p.contains("@import"));
    assert!(!p.contains("url(http"));

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
    assert_eq!(data_count(&p, "castles-total"), "5");
    assert_eq!(
        bars(&p, "chart-castle-reasons"),
        pairs(&[
            ("king_moved", 1),
            ("rook_moved", 1),
            ("rook_captured", 1),
            ("no_right_in_fen", 1),
            ("no_rook", 1),
            ("path_blocked", 2),
            ("in_check", 1),
            ("through_check", 1),
            ("into_check", 1),
        ])
    );
    assert_eq!(
        bars(&p, "chart-castle-decades"),
        pairs(&[("1980s", 1), ("1990s", 1), ("2020s", 2), ("unknown", 1)])
    );
    assert_eq!(
        bars(&p, "chart-castle-variants"),
        pairs(&[("chess960", 1), ("standard", 4)])
    );
    let combos: Vec<String> = tags(element(&p, "castle-combos"))
        .into_iter()
        .filter_map(|(_, a)| a.get("data-reasons").cloned())
        .collect();
    assert_eq!(combos.len(), 5);
    assert!(combos.contains(&"rook_moved;path_blocked;in_check;into_check".to_owned()));

    assert_eq!(data_count(&p, "claims-total"), "4");
    assert!(element(&p, "claims-total").contains("(4 claims audited, 2 false)"));
    assert_eq!(
        bars(&p, "chart-claim-verdicts"),
        pairs(&[
            ("valid", 2),
            ("false_castling_rights", 1),
            ("false_fifty_moves", 1)
        ])
    );
    // Upheld and false verdicts in two colours.
    let chart = element(&p, "chart-claim-verdicts");
    assert_eq!(chart.matches("class=\"fill ok\"").count(), 1);
    assert_eq!(chart.matches("class=\"fill bad\"").count(), 2);
    let t = tags(element(&p, "claim-table"));
    let valid: Vec<&str> = t
        .iter()
        .filter(|(n, a)| n == "td" && a.contains_key("data-source"))
        .take(3)
        .map(|(_, a)| a["data-source"].as_str())
        .collect();
    assert_eq!(valid, ["termination", "comment", "implied"]);
    assert!(text(element(&p, "claim-table")).contains("valid011"));
    assert_eq!(
        bars(&p, "chart-claim-kinds"),
        pairs(&[("fifty_moves", 1), ("threefold", 3)])
    );
    // Every rule, code and kind of contract v2, zeros included where the
    // summary has them.
    assert_eq!(data_count(&p, "missed-draws-total"), "2");
    assert_eq!(
        bars(&p, "chart-missed-draws"),
        pairs(&[
            ("fivefold", 1),
            ("seventy_five_moves", 0),
            ("dead_position", 1)
        ])
    );
    assert_eq!(data_count(&p, "results-total"), "1");
    assert_eq!(
        bars(&p, "chart-results"),
        pairs(&[
            ("result_mismatch", 0),
            ("checkmate_not_scored", 1),
            ("stalemate_not_drawn", 0),
            ("dead_position_not_drawn", 0),
            ("timeout_without_mating_material", 0),
        ])
    );
    assert_eq!(data_count(&p, "errors-total"), "2");
    assert_eq!(
        bars(&p, "chart-errors"),
        pairs(&[("illegal_move", 1), ("parse_error", 1)])
    );
}

#[test]
fn every_castle_is_shown_with_its_identity() {
    let p = page();
    let reasons: Vec<String> = examples(&p, "castle")
        .iter()
        .map(|a| a["data-reasons"].clone())
        .collect();
    // Grouped by first reason, in the canonical order.
    assert_eq!(
        reasons,
        [
            "king_moved",
            "rook_moved;path_blocked;in_check;into_check",
            "rook_captured;no_rook",
            "no_right_in_fen;path_blocked",
            "through_check"
        ]
    );
    let karpov = element(&p, "ex-5");
    assert!(karpov.contains("Karpov, Anatoly – Miles, Anthony"));
    assert!(karpov.contains(r#"<a href="https://lichess.org/abcd1234""#));
    // Move numbers as a reader writes them, the ply in small print; a
    // date as far as it is known.
    assert!(text(karpov).contains("5.O-O ply 9"), "{}", text(karpov));
    assert!(karpov.contains("<small class=\"ply\">ply 9</small>"));
    assert!(text(karpov).contains("1986.11"));
    assert!(!p.contains("1986.11.??"));
    assert!(karpov.contains("attacked by the black bishop on c4"));
    let black = element(&p, "ex-2");
    assert!(text(black).contains("30…O-O-O ply 60"));
    assert!(text(black).contains("games.pgn, game 3, line 7"));
    // Missing tags: no dangling dash, no placeholder date.
    // Without players, the event names the game.
    assert!(
        text(black).contains("Test &amp; &lt;Open&gt; 1-0"),
        "{}",
        text(black)
    );
    assert!(!black.contains("<b>?"), "{black}");
    assert!(!p.contains("????.??.??"));
    assert!(!text(black).contains(" – "));
    // One colour named: the other is `?`.
    assert!(text(element(&p, "ex-3")).contains("C – ?"));
    // Shown per group, with totals; the first example is open.
    let h = tags(element(&p, "castles-through_check"));
    assert_eq!(h[0].1["data-total"], "1");
    assert_eq!(h[0].1["data-shown"], "1");
    assert!(tags(element(&p, "ex-1"))[0].1.contains_key("open"));
    assert!(!tags(element(&p, "ex-2"))[0].1.contains_key("open"));
}

/// The geometry the page should draw for a castle row, from the audit's
/// geometry of its FEN.
fn expected_geometry(row: &CastlingRow) -> pgn_audit_core::audit::geometry::Geometry {
    let setup = shakmaty::fen::Fen::from_ascii(row.fen.as_bytes())
        .unwrap()
        .into_setup();
    let castles = castle_candidates(
        &setup.board,
        setup.castling_rights,
        row.side,
        row.castle,
        row.id.variant == VariantColumn::Known(Variant::Chess960),
    );
    assert_eq!(castles.len(), 1);
    geometry(&setup.board, castles[0])
}

fn bb_set(bb: Bitboard) -> BTreeMap<String, String> {
    bb.into_iter()
        .map(|s| (s.to_string(), String::new()))
        .collect()
}

#[test]
fn boards_are_marked_from_the_castling_geometry() {
    let f = fixture();
    let p = page();
    for fen in [
        FEN_THROUGH,
        FEN_KING_MOVED,
        FEN_BLOCKED,
        FEN_960,
        FEN_CAPTURED,
        FEN_CLAIM,
    ] {
        assert_eq!(pieces(board(&p, fen)), fen_pieces(fen), "{fen}");
    }
    // Every castle board: its marks are the geometry's.
    for row in &f.castling {
        let g = expected_geometry(row);
        let b = board(&p, &row.fen);
        assert_eq!(marked(b, "path"), bb_set(g.king_path), "{}", row.fen);
        assert_eq!(
            marked(b, "rook-path"),
            bb_set(g.rook_path & !g.king_path),
            "{}",
            row.fen
        );
        assert_eq!(
            marked(b, "blocker"),
            bb_set(g.blocker_squares()),
            "{}",
            row.fen
        );
        let attacked: BTreeMap<String, String> = g
            .attacked()
            .iter()
            .map(|(sq, by)| {
                (
                    sq.to_string(),
                    by.into_iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            })
            .collect();
        assert_eq!(marked(b, "attacked"), attacked, "{}", row.fen);
    }

    let b = board(&p, FEN_THROUGH);
    assert_eq!(marked(b, "attacked"), map(&[("f1", "c4")]));
    assert_eq!(marked(b, "attacker"), set(&["c4"]));
    assert_eq!(marked(b, "path"), set(&["f1", "g1"]));
    assert!(marked(b, "moved").is_empty());
    assert!(marked(b, "blocker").is_empty());
    let t = tags(b);
    let arrows: Vec<(String, String)> = with_class(&t, "king-arrow")
        .map(|a| (a["data-from"].clone(), a["data-to"].clone()))
        .collect();
    assert_eq!(arrows, [("e1".to_owned(), "g1".to_owned())]);
    let attacks: Vec<_> = with_class(&t, "attack")
        .map(|a| (a["data-from"].clone(), a["data-to"].clone()))
        .collect();
    assert_eq!(attacks, [("c4".to_owned(), "f1".to_owned())]);
    // The geometry is written on the board for the browser test.
    assert_eq!(t[0].1["data-king"], "e1");
    assert_eq!(t[0].1["data-rook"], "h1");
    assert_eq!(t[0].1["data-through"], "f1:c4");

    let b = board(&p, FEN_KING_MOVED);
    assert_eq!(marked(b, "moved"), set(&["e1"]));
    assert!(marked(b, "attacked").is_empty());

    // In check and through the king's path: the king's arrow runs above
    // the rank's centre line, the attacks end on the squares' centres.
    let b = board(&p, FEN_BLOCKED);
    assert_eq!(marked(b, "attacked"), map(&[("e8", "d6"), ("c8", "d6")]));
    assert_eq!(marked(b, "blocker"), set(&["b8"]));
    assert_eq!(marked(b, "moved"), set(&["a8"]));
    let t = tags(b);
    let king = with_class(&t, "king-arrow").next().unwrap();
    assert_eq!(king["y1"], king["y2"]);
    assert_ne!(king["y1"], "0.500");

    // Chess960 (issue 14, point 1): the f1 bishop in the way is marked.
    let b = board(&p, FEN_960);
    let t = tags(b);
    let king = with_class(&t, "king-arrow").next().unwrap();
    assert_eq!(
        (king["data-from"].as_str(), king["data-to"].as_str()),
        ("d1", "g1")
    );
    assert_eq!(marked(b, "blocker"), set(&["f1"]));
    assert!(marked(b, "attacked").is_empty());

    // rook_captured (issue 16): the bishop standing on h1 is not shaded
    // as a piece that had moved; h1 is marked as the rook's square.
    let b = board(&p, FEN_CAPTURED);
    assert!(marked(b, "moved").is_empty());
    assert_eq!(marked(b, "captured"), set(&["h1"]));
    assert_eq!(tags(b)[0].1.get("data-rook"), None);

    // The false claim's board marks the rooks that keep a right.
    let b = board(&p, FEN_CLAIM);
    assert_eq!(marked(b, "right"), set(&["a1", "h1"]));
}

#[test]
fn false_claims_read_as_a_person_would_say_them() {
    let p = page();
    let got: Vec<(String, String)> = examples(&p, "claim")
        .iter()
        .map(|a| (a["data-verdict"].clone(), a["data-plies"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("false_castling_rights".to_owned(), "41;45;49".to_owned()),
            ("false_fifty_moves".to_owned(), "80".to_owned())
        ]
    );
    // Issue 26: Karpov–Miles, the claim after White's 25th move, named by
    // the move its detail names (claims.csv has no column for the move);
    // the earlier positions by their plies, never by a number without its
    // move ("after 21.").
    let c = text(element(&p, "ex-6"));
    assert!(c.starts_with("after 25.Nb5 ply 49"), "{c}");
    assert!(c.contains("occurred once under FIDE identity (9.2.3), 3 times ignoring castling and en-passant rights: at plies 41, 45 and 49."), "{c}");
    // A detail that names no move (another tool's): the ply alone.
    let c = text(element(&p, "ex-7"));
    assert!(c.starts_with("at ply 80"), "{c}");
    // A false fifty-move claim talks about the fifty-move rule.
    assert!(c.contains("The fifty-move rule (FIDE 9.3) needs 50 moves of each side, 100 plies, without a capture or a pawn move; the last one was 10 plies before the claim."), "{c}");
    assert!(!c.contains("FIDE identity"), "{c}");
    // Valid claims are counted, not shown one by one.
    assert!(!p.contains("data-plies=\"22;26;30\""));
    // Missed draws, results and errors are listed, each with its board.
    let m = element(&p, "missed-dead_position");
    assert!(
        text(m).contains("drawn after White's 31st move ply 61, 1 ply played on"),
        "{}",
        text(m)
    );
    assert!(m.contains("data-fen=\"8/8/8/8/8/8/3K4/5B1k b - - 0 31\""));
    let r = element(&p, "results-checkmate_not_scored");
    assert!(
        text(r).contains("recorded 1/2-1/2, the Laws give 0-1"),
        "{}",
        text(r)
    );
    let e = element(&p, "errors-parse_error");
    assert!(text(e).contains("20.Nf9 ply 12"), "{}", text(e));
    assert!(text(e).contains("Nf9 is not a move."));
}

#[test]
fn text_from_pgn_files_is_escaped() {
    let p = page();
    assert!(!p.contains("<script>alert(1)</script>"));
    assert!(p.contains("&lt;script&gt;alert(1)&lt;/script&gt; – O'Kelly &amp; Co"));
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
    let from_dir = page_from_report_dir(t.path()).unwrap();
    assert_eq!(from_dir, collect(&f).render(&f.summary));
    // A folder without its reports is an error naming the file.
    let e = page_from_report_dir(&t.path().join("missing")).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    // A report of other columns is refused, not read by position.
    std::fs::write(t.path().join("results.csv"), "source,game,ply\n").unwrap();
    let e = page_from_report_dir(t.path()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: not the columns of this version",
            t.path().join("results.csv").display()
        )
    );
    // A row whose number column holds no number, too.
    let mut bad = f.results[0].clone();
    bad.id.source = "x".into();
    write_rows(t.path(), &[bad]);
    let text = std::fs::read_to_string(t.path().join("results.csv")).unwrap();
    std::fs::write(
        t.path().join("results.csv"),
        text.replace(",4,checkmate", ",four,checkmate"),
    )
    .unwrap();
    let e = page_from_report_dir(t.path()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: line 2: column ply: invalid digit found in string",
            t.path().join("results.csv").display()
        )
    );
    // A code column that holds no code of the contract (another tool's
    // file, a tampered one) is an error naming the file and the line,
    // never a default: in every report the page reads.
    write_rows(t.path(), &f.results);
    let tampered = |file: &str, from: &str, to: &str, cause: &str| {
        let path = t.path().join(file);
        let good = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<String> = good.lines().map(str::to_owned).collect();
        let last = lines.len() - 1;
        assert!(lines[last].contains(from), "{file}: {}", lines[last]);
        lines[last] = lines[last].replacen(from, to, 1);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let e = page_from_report_dir(t.path()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(
            e.to_string(),
            format!("{}: line {}: {cause}", path.display(), last + 1)
        );
        std::fs::write(&path, good).unwrap();
    };
    tampered(
        "castling.csv",
        ",kingside,",
        ",h_side,",
        "\"h_side\" is not kingside or queenside",
    );
    tampered(
        "castling.csv",
        ",white,",
        ",White,",
        "\"White\" is not white or black",
    );
    tampered(
        "castling.csv",
        "rook_captured;no_rook",
        "rook_captured;no_rooks",
        "\"no_rooks\" is not king_moved, rook_moved, rook_captured, no_right_in_fen, \
         king_displaced, rook_displaced, no_rook, path_blocked, in_check, through_check or into_check",
    );
    tampered(
        "claims.csv",
        ",false_fifty_moves,",
        ",false_50_moves,",
        "\"false_50_moves\" is not valid, valid_on_announced_move, false_castling_rights, \
         false_en_passant, false_side_to_move, false_not_repeated or false_fifty_moves",
    );
    tampered(
        "claims.csv",
        "fifty_moves,termination",
        "fifty_moves,tag",
        "\"tag\" is not termination, comment or implied",
    );
    tampered(
        "missed_draws.csv",
        ",insufficient_material",
        ",few_pieces",
        "\"few_pieces\" is not insufficient_material or helpmate_analysis",
    );
    tampered(
        "errors.csv",
        ",illegal_move,",
        ",illegal,",
        "\"illegal\" is not illegal_move, ambiguous_move, unplayable_castle, bad_fen, \
         unsupported_variant or parse_error",
    );
    tampered(
        "results.csv",
        ",checkmate_not_scored,",
        ",mate_not_scored,",
        "\"mate_not_scored\" is not result_mismatch, checkmate_not_scored, \
         stalemate_not_drawn, dead_position_not_drawn or timeout_without_mating_material",
    );
    assert_eq!(page_from_report_dir(t.path()).unwrap(), from_dir);
}

/// Issue 26: Karpov–Miles from a real run: each false claim's line names
/// its move as the game wrote it, "after 26.Nb5", read back from the
/// claim's detail (the page is built from the CSV rows alone), the same in
/// the run's page and in its folder's.
#[test]
fn claim_examples_name_the_move_from_a_run() {
    let t = tempdir();
    let out = t.path().join("r");
    run_ok(
        &[concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpora/fixtures/claims/karpov_miles.pgn"
        )],
        &out,
    );
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(page, page_from_report_dir(&out).unwrap());
    let lines: Vec<String> = page
        .match_indices("<details class=\"ex claim\"")
        .map(|(at, _)| {
            let rest = &page[at..];
            let summary = &rest[rest.find("<summary>").unwrap()..rest.find("</summary>").unwrap()];
            let t = text(summary);
            t[..t.find("Karpov").unwrap()].to_owned()
        })
        .collect();
    assert_eq!(lines, ["after 25…Ra8 ply 8", "after 26.Nb5 ply 9"]);
}

#[test]
fn a_run_writes_the_same_page_as_its_folder() {
    let t = tempdir();
    let out = t.path().join("r");
    run_ok(&[SAMPLE], &out);
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(page, page_from_report_dir(&out).unwrap());
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
        "results.csv",
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
            &serde_json::json!({"split": true, "quirks": false, "html": true, "excel_safe": false, "format": "csv", "max_window": 128, "fix": false}),
            &serde_json::json!({"split": true, "quirks": false, "html": false, "excel_safe": false, "format": "csv", "max_window": 128, "fix": false})
        )
    );
    for s in [&mut x, &mut y] {
        s.as_object_mut().unwrap().remove("seconds");
        s.as_object_mut().unwrap().remove("helpmate_seconds");
        s.as_object_mut().unwrap().remove("options");
    }
    assert_eq!(x, y);
}

#[test]
fn the_page_stays_small_however_big_the_run() {
    // 300 castles for each first reason, 300 claims for each verdict, and
    // as many missed draws, results and errors: at most 50 of each shown.
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
    for i in 0..300 {
        for (k, r) in reasons.iter().enumerate() {
            let mut row = f.castling[i % 4].clone();
            row.id.white = long.clone();
            row.reasons = self::reasons(&reasons[k..].join(";"));
            row.detail = long.clone();
            assert_eq!(row.reasons.iter().next(), Some(code(r)));
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
            row.verdict = code(v);
            h.add_claim(&row);
        }
        h.add_missed_draw(&f.missed[0]);
        h.add_error(&f.errors[0]);
        h.add_result(&f.results[0]);
    }
    let p = h.render(&f.summary);
    assert!(p.len() < 4 << 20, "{} bytes", p.len());
    assert_eq!(examples(&p, "castle").len(), 11 * 50);
    assert_eq!(data_count(&p, "castles-total"), "3300");
    let g = tags(element(&p, "castles-king_moved"));
    assert_eq!(
        (g[0].1["data-total"].as_str(), g[0].1["data-shown"].as_str()),
        ("300", "50")
    );
    assert!(p.contains("… and 250 more in castling.csv."));
    assert!(p.contains("… and 250 more in claims.csv."));
    assert!(p.contains("… and 250 more in results.csv."));
    // Long names are cut.
    assert!(!p.contains(&"x".repeat(400)));
}

// ---- one castling geometry: its facts agree with the audit's reasons ----

mod geometry_agrees {
    use pgn_audit_core::Game;
    use pgn_audit_core::audit::audit_game;
    use shakmaty::fen::Fen;
    use shakmaty::san::SanPlus;
    use shakmaty::{CastlingMode, Chess, Position, Role};

    use super::*;

    /// Start positions: the standard one and Chess960 ones (king between
    /// adjacent rooks, on b, on g, on d).
    const STARTS: [Option<&str>; 5] = [
        None,
        Some("bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"),
        Some("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1"),
        Some("qnnrbbkr/pppppppp/8/8/8/8/PPPPPPPP/QNNRBBKR w KQkq - 0 1"),
        Some("nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w KQkq - 0 1"),
    ];

    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            let n = u64::try_from(n).expect("a usize fits in u64");
            usize::try_from(self.0 % n).expect("below n, a usize")
        }
    }

    /// A random game that ends with a castle written whatever its
    /// legality: random legal moves, king and rook moves and captures
    /// preferred, then `O-O` or `O-O-O`.
    pub(super) fn game_ending_in_a_castle(seed: u64) -> String {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let fen = STARTS[rng.below(STARTS.len())];
        let mut pos = match fen {
            None => Chess::default(),
            Some(f) => f
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Chess960)
                .unwrap(),
        };
        let mut pgn = format!("[Event \"castle {seed}\"]\n");
        if let Some(f) = fen {
            pgn += &format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{f}\"]\n");
        }
        pgn += "\n";
        for _ in 0..rng.below(70) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let liked: Vec<_> = moves
                .iter()
                .filter(|m| {
                    matches!(m.role(), Role::King | Role::Rook) || m.is_capture() || m.is_castle()
                })
                .collect();
            let m = if !liked.is_empty() && rng.below(3) == 0 {
                *liked[rng.below(liked.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            if pos.turn().is_white() {
                pgn += &format!("{}. ", pos.fullmoves());
            } else {
                pgn += &format!("{}... ", pos.fullmoves());
            }
            pgn += &SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string();
            pgn += " ";
        }
        if pos.is_game_over() {
            return pgn + "*\n";
        }
        let dots = if pos.turn().is_white() { "." } else { "..." };
        let castle = ["O-O", "O-O-O"][rng.below(2)];
        pgn + &format!("{}{dots} {castle} *\n", pos.fullmoves())
    }

    /// The reasons of a row that geometry decides, in canonical order.
    const GEOMETRIC: [&str; 5] = [
        "no_rook",
        "path_blocked",
        "in_check",
        "through_check",
        "into_check",
    ];

    /// Checks one castling row against the geometry of its FEN: the facts
    /// of its castle (of one of them, where a Chess960 FEN leaves the rook
    /// open) agree with the row's reasons. Returns the reasons and whether
    /// the rook was open.
    fn check(row: &CastlingRow) -> (String, bool) {
        let setup = Fen::from_ascii(row.fen.as_bytes()).unwrap().into_setup();
        let castles = castle_candidates(
            &setup.board,
            setup.castling_rights,
            row.side,
            row.castle,
            row.id.variant == VariantColumn::Known(Variant::Chess960),
        );
        let codes = row.reasons.codes();
        let want: Vec<&str> = codes.split(';').filter(|r| GEOMETRIC.contains(r)).collect();
        let what = format!("{} {} {codes}: {}", row.fen, row.castle.code(), row.detail);
        let facts: Vec<String> = castles
            .iter()
            .map(|c| geometry(&setup.board, *c).breaks().codes())
            .collect();
        assert!(
            facts.contains(&want.join(";")),
            "geometry {facts:?} for {what}"
        );
        let g = geometry(&setup.board, castles[0]);
        if castles.len() == 1 {
            // The facts one by one, as the page marks them.
            let has = |code: &str| want.contains(&code);
            assert_eq!(has("path_blocked"), !g.blockers.is_empty(), "{what}");
            assert_eq!(has("in_check"), g.checkers.any(), "{what}");
            assert_eq!(
                has("through_check"),
                !g.crossed_attacks.is_empty(),
                "{what}"
            );
            assert_eq!(has("into_check"), g.landing_attackers.any(), "{what}");
            assert_eq!(has("no_rook"), g.on_back_rank && g.rook.is_none(), "{what}");
        }
        if !g.on_back_rank {
            assert!(
                row.reasons.contains(CastlingReason::KingDisplaced),
                "{what}"
            );
        }
        (codes, castles.len() > 1)
    }

    /// Every castling row of generated games: the geometry's facts agree
    /// with its reasons (blockers ⇔ path_blocked, checkers ⇔ in_check, an
    /// attacked crossed square ⇔ through_check, an attacked landing square
    /// ⇔ into_check, no rook ⇔ no_rook).
    #[test]
    fn on_generated_games() {
        let mut reasons = BTreeSet::new();
        let (mut rows_seen, mut open_rook) = (0, 0);
        for seed in 0..20000 {
            let pgn = game_ending_in_a_castle(seed);
            let report = audit_game(&Game::parse(pgn.as_bytes()));
            for c in &report.castling {
                let variant = if pgn.contains("Chess960") {
                    "chess960"
                } else {
                    "standard"
                };
                let row = CastlingRow {
                    id: super::ident(0, "", "", "", "", variant),
                    ply: c.ply,
                    move_number: c.move_number,
                    side: c.side,
                    san: c.san.clone(),
                    castle: c.castle,
                    reasons: c.reasons,
                    detail: c.detail.clone(),
                    fen: c.fen.clone(),
                };
                let (codes, open) = check(&row);
                for r in codes.split(';') {
                    reasons.insert(r.to_owned());
                }
                rows_seen += 1;
                open_rook += usize::from(open);
            }
        }
        assert!(rows_seen > 5000, "{rows_seen} castling rows");
        // Few Chess960 rows leave the rook open.
        assert!(open_rook * 20 < rows_seen, "{open_rook} of {rows_seen}");
        // Every reason but no_right_in_fen (the games start from rights).
        for code in [
            "king_moved",
            "rook_moved",
            "rook_captured",
            "king_displaced",
            "rook_displaced",
            "no_rook",
            "path_blocked",
            "in_check",
            "through_check",
            "into_check",
        ] {
            assert!(reasons.contains(code), "{code} never came up: {reasons:?}");
        }
    }

    /// The same on the castling.csv of a run over corpora/ (the castling
    /// fixtures, Chess960 included, and the sample).
    #[test]
    fn on_the_corpora() {
        let t = tempdir();
        let out = t.path().join("r");
        run_ok(&[concat!(env!("CARGO_MANIFEST_DIR"), "/corpora")], &out);
        let mut n = 0;
        let file = std::fs::File::open(out.join("castling.csv")).unwrap();
        rows::read::<CastlingRow>(file, |row| {
            check(&row);
            n += 1;
        })
        .unwrap();
        assert_eq!(n, 7);
    }
}

// ---- the page in a real browser ----

/// Games with every kind of finding: the castling fixtures (Chess960
/// included), Karpov–Miles, random games that end in a castle written
/// whatever its legality, and games for false claims, missed draws (dead
/// position included), results that contradict the board and errors.
fn findings_rich_pgn() -> String {
    let mut pgn = String::new();
    for seed in 0..600 {
        pgn += &geometry_agrees::game_ending_in_a_castle(seed);
        pgn += "\n";
    }
    let repeat = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8 9. e4";
    for (tags, moves) in [
        (
            "[Event \"Fivefold, claimed too late\"]\n[White \"Lasker, Emanuel\"]\n[Black \"Tarrasch, Siegbert\"]\n[Date \"1908.??.??\"]\n[Termination \"repetition\"]\n[Result \"1/2-1/2\"]\n",
            format!("{repeat} 1/2-1/2"),
        ),
        (
            "[Event \"Dead position played on\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/3r4/4KB2 w - - 0 1\"]\n[Result \"1-0\"]\n",
            "1. Kxd2 Kf7 2. Ke3 1-0".to_owned(),
        ),
        (
            "[Event \"Seventy-five moves\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 w - - 149 80\"]\n[Result \"*\"]\n",
            "80. Ra2 Kd7 81. Ra3 *".to_owned(),
        ),
        (
            "[Event \"No right in the FEN\"]\n[SetUp \"1\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1\"]\n[Result \"*\"]\n",
            "1. O-O *".to_owned(),
        ),
        (
            "[Event \"Mate not scored\"]\n[Result \"1/2-1/2\"]\n",
            "1. f3 e5 2. g4 Qh4# 1/2-1/2".to_owned(),
        ),
        (
            "[Event \"Result mismatch\"]\n[Result \"1-0\"]\n",
            "1. e4 e5 0-1".to_owned(),
        ),
        (
            "[Event \"False fifty-move claim\"]\n[Termination \"50 moves\"]\n[Result \"1/2-1/2\"]\n",
            "1. e4 e5 2. Nf3 Nc6 1/2-1/2".to_owned(),
        ),
        (
            "[Event \"Illegal move\"]\n[Result \"*\"]\n",
            "1. e4 e5 2. Ke3 *".to_owned(),
        ),
        (
            "[Event \"Bad FEN\"]\n[SetUp \"1\"]\n[FEN \"8/8/8 w - - 0 1\"]\n[Result \"*\"]\n",
            "1. e4 *".to_owned(),
        ),
        (
            "[Event \"Crazyhouse\"]\n[Variant \"Crazyhouse\"]\n[Result \"*\"]\n",
            "1. e4 *".to_owned(),
        ),
        ("", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0".to_owned()),
    ] {
        pgn += &format!("{tags}\n{moves}\n\n");
    }
    pgn
}

/// Runs the audit on corpora/ and the findings-rich games; returns the
/// report folder.
fn findings_rich_run(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("findings.pgn"), findings_rich_pgn()).unwrap();
    // Relative names, as a person types them: the page is the same
    // wherever the test runs.
    std::os::unix::fs::symlink(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora"),
        dir.join("corpora"),
    )
    .unwrap();
    let o = bin()
        .current_dir(dir)
        .args(["corpora", "findings.pgn", "-o", "report"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    dir.join("report")
}

/// The findings-rich run has what the browser test needs to see.
#[test]
fn the_findings_rich_run_has_every_kind_of_finding() {
    let t = tempdir();
    let out = findings_rich_run(t.path());
    let s = summary(&out);
    for (group, code) in [
        ("castling", "king_moved"),
        ("castling", "rook_moved"),
        ("castling", "rook_captured"),
        ("castling", "no_right_in_fen"),
        ("castling", "king_displaced"),
        ("castling", "rook_displaced"),
        ("castling", "no_rook"),
        ("castling", "path_blocked"),
        ("castling", "in_check"),
        ("castling", "through_check"),
        ("castling", "into_check"),
        ("claims", "false_castling_rights"),
        ("claims", "false_not_repeated"),
        ("claims", "false_fifty_moves"),
        ("missed_draws", "fivefold"),
        ("missed_draws", "seventy_five_moves"),
        ("missed_draws", "dead_position"),
        ("results", "result_mismatch"),
        ("results", "checkmate_not_scored"),
        ("results", "dead_position_not_drawn"),
        ("errors", "illegal_move"),
        ("errors", "bad_fen"),
        ("errors", "unsupported_variant"),
    ] {
        assert!(
            s[group][code].as_u64().unwrap() > 0,
            "{group}.{code}: {}",
            s[group]
        );
    }
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains("data-variant=\"chess960\""));
    assert!(page.len() < 3 << 20, "{} bytes", page.len());
    assert_eq!(page, page_from_report_dir(&out).unwrap());
}

/// Codes wrap at their underscores and FENs at their slashes, never inside
/// a word (issue 26): a `<wbr>` after each, in the text only, the
/// attributes as written.
#[test]
fn codes_wrap_at_underscores_and_fens_at_slashes() {
    let p = page();
    let c = element(&p, "ex-6");
    assert!(
        c.contains("<code class=\"reason\">false_<wbr>castling_<wbr>rights</code>"),
        "{c}"
    );
    assert!(c.contains("data-verdict=\"false_castling_rights\""), "{c}");
    assert!(
        c.contains(
            "<code class=\"fen\">r3k2r/<wbr>ppp2ppp/<wbr>2n5/<wbr>8/<wbr>8/<wbr>2N5/<wbr>PPP2PPP/<wbr>R3K2R b KQ - 10 25</code>"
        ),
        "{c}"
    );
    assert!(c.contains(&format!("data-fen=\"{FEN_CLAIM}\"")), "{c}");
    let chart = element(&p, "chart-claim-verdicts");
    assert!(
        chart.contains("<span class=\"label\">false_<wbr>castling_<wbr>rights</span>"),
        "{chart}"
    );
    let table = element(&p, "claim-table");
    assert!(
        table.contains("false_<wbr>fifty_<wbr>moves</td>"),
        "{table}"
    );
    // Text is still the code: the `<wbr>`s give no characters.
    assert!(text(c).contains("false_castling_rights"), "{}", text(c));
}

/// Issue 16's "done when": report.html of a findings-rich run, opened in
/// headless Chromium by selenium at 390, 1024, 1280, 1440 and 1920 px,
/// fits the window, keeps every chart inside its card, shows the counts of
/// summary.json and the CSV files, and marks each castle board as
/// python-chess works out the castle's geometry; and (issue 26) draws
/// every board as a board: each label, piece and mark inside it at its
/// size, its picture with the squares' colours and few black pixels. With
/// PGN_AUDIT_SCREENSHOT=1 it writes tests/screenshots/report-390.png and
/// report-1440.png (the README's pictures).
#[test]
#[cfg_attr(
    not(oracle_chromium),
    ignore = "needs chromium, chromedriver (apt-get install chromium chromium-driver), selenium and Pillow (tests/setup-oracles)"
)]
fn the_page_holds_in_a_real_browser() {
    let t = tempdir();
    let out = findings_rich_run(t.path());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmd = std::process::Command::new(env!("PGN_AUDIT_PYTHON"));
    cmd.arg(root.join("tests/browser/page_check.py"))
        .arg(&out)
        .env("PYTHONPATH", env!("PGN_AUDIT_PYTHONPATH"));
    if std::env::var_os("PGN_AUDIT_SCREENSHOT").is_some_and(|v| v == "1") {
        cmd.arg("--screenshots").arg(root.join("tests/screenshots"));
    }
    let o = cmd.output().expect("run python");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for width in [390, 1024, 1280, 1440, 1920] {
        assert!(stdout.contains(&format!("{width}px: fits;")), "{stdout}");
    }
    for width in [390, 1440] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{width}px:")))
            .unwrap();
        assert!(
            line.ends_with("boards drawn inside their squares and look right"),
            "{line}"
        );
    }
    assert!(stdout.ends_with("ok\n"), "{stdout}");
}
