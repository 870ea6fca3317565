//! Properties (issue 6), through the library:
//! - random legal games, written as PGN with correct SAN, audit with no
//!   castling row, no error and no notation quirk;
//! - random byte mutations of real games never panic and keep the count:
//!   every game the splitter finds is counted once, in exactly one class,
//!   whatever the batch size.

use proptest::prelude::*;
use shakmaty::{CastlingMode, Chess, Position, fen::Fen, san::SanPlus};

use pgn_audit::app::audit_bytes;
use pgn_audit_core::Game;
use pgn_audit_core::audit::{GameClass, ResultCode, audit_game};
use pgn_audit_input::Splitter;

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/corpora/lichess_2025-05_sample.pgn"
);

/// Start positions: the standard one, and Chess960 ones with the king
/// between adjacent rooks, on b, on g.
const STARTS: [Option<&str>; 5] = [
    None,
    Some("bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"),
    Some("nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w KQkq - 0 1"),
    Some("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1"),
    Some("qnnrbbkr/pppppppp/8/8/8/8/PPPPPPPP/QNNRBBKR w KQkq - 0 1"),
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }
}

/// A random legal game of at most `plies` plies from `STARTS[start]`, as
/// PGN, with comments, NAGs and line breaks strewn in; castling is
/// preferred when it is legal. Returns the PGN and the number of plies.
fn random_game(seed: u64, plies: usize, start: usize) -> (String, u32) {
    let mut rng = Rng(seed | 1);
    let fen = STARTS[start];
    let mut pos = match fen {
        None => Chess::default(),
        Some(f) => f
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap(),
    };
    let mut pgn = format!("[Event \"random {seed}\"]\n");
    if let Some(f) = fen {
        pgn += &format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{f}\"]\n");
    }
    pgn += "[Result \"*\"]\n\n";
    let mut n = 0;
    while n < plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let castles: Vec<_> = moves.iter().filter(|m| m.is_castle()).collect();
        let m = if !castles.is_empty() && rng.below(2) == 0 {
            *castles[rng.below(castles.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        if pos.turn().is_white() {
            pgn += &format!("{}. ", pos.fullmoves());
        } else if n == 0 || rng.below(8) == 0 {
            pgn += &format!("{}... ", pos.fullmoves());
        }
        pgn += &SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string();
        n += 1;
        pgn += match rng.below(12) {
            0 => " { a comment (with a bracket } ",
            1 => " $1 ",
            2 => "!? ",
            3 => " (1. a3 { side line }) ",
            4 => "\n",
            5 => " ; to the end of the line\n",
            _ => " ",
        };
    }
    pgn += "*\n";
    (pgn, u32::try_from(n).unwrap())
}

/// The seeds of failures found before, kept beside this file: the test
/// binary's root (tests/main.rs) would otherwise make proptest keep them in
/// a folder of its own at the top of the repository.
fn regressions() -> Option<Box<dyn proptest::test_runner::FailurePersistence>> {
    Some(Box::new(
        proptest::test_runner::FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/properties.proptest-regressions"
        )),
    ))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: regressions(), ..ProptestConfig::default() })]

    #[test]
    fn random_legal_games_have_no_findings(seed in any::<u64>(), plies in 0usize..260, start in 0usize..STARTS.len()) {
        let (pgn, n) = random_game(seed, plies, start);
        let game = Game::parse(pgn.as_bytes());
        prop_assert_eq!(game.syntax_error.as_ref(), None, "{}", pgn);
        let report = audit_game(&game);
        prop_assert_eq!(report.error.as_ref(), None, "{}", pgn);
        prop_assert!(report.castling.is_empty(), "{:?}\n{}", report.castling, pgn);
        prop_assert_eq!(report.notation_quirks, 0, "{}", pgn);
        prop_assert_eq!(report.plies, n);
        prop_assert_eq!(report.variant.code(), if start == 0 { "standard" } else { "chess960" });
        // Missed draws may occur in a long random game, and a mate or
        // stalemate scored `*` is a results row; nothing else flags.
        prop_assert!(report.class() != GameClass::Incomplete);
        for r in &report.results {
            prop_assert!(
                matches!(r.code, ResultCode::CheckmateNotScored | ResultCode::StalemateNotDrawn),
                "{:?}\n{}", r, pgn
            );
        }
        if report.missed_draws.is_empty() && report.results.is_empty() {
            prop_assert_eq!(report.class(), GameClass::Clean);
        }
    }

    #[test]
    fn random_legal_games_together_are_each_counted(seeds in prop::collection::vec((any::<u64>(), 0usize..120, 0usize..STARTS.len()), 1..8), batch in 1usize..4096) {
        let text: String = seeds
            .iter()
            .map(|&(seed, plies, start)| random_game(seed, plies, start).0)
            .collect::<Vec<_>>()
            .join("\n");
        let s = audit_bytes(text.as_bytes(), batch);
        prop_assert_eq!(s.games, seeds.len() as u64);
        prop_assert_eq!(s.incomplete, 0);
        prop_assert_eq!(s.errors.iter().sum::<u64>(), 0);
        prop_assert_eq!(s.castling.iter().sum::<u64>(), 0);
    }
}

/// The sample's games, each with its own bytes.
fn sample_games() -> &'static [Vec<u8>] {
    static GAMES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    GAMES.get_or_init(|| {
        let data = std::fs::read(SAMPLE).unwrap();
        let mut spans = Vec::new();
        Splitter::new().feed(&data, 0, true, |g| spans.push(g));
        spans
            .iter()
            .map(|g| {
                data[usize::try_from(g.start).unwrap()..usize::try_from(g.end).unwrap()].to_vec()
            })
            .collect()
    })
}

/// How many games the splitter finds in `data`.
fn split_count(data: &[u8]) -> u64 {
    let mut n = 0;
    Splitter::new().feed(data, 0, true, |_| n += 1);
    n
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Bytes worth inserting: PGN's own punctuation, line ends, NUL, high bytes.
    let byte = prop_oneof![
        prop::sample::select(
            b"{}()[]\";%$!?.-=+#*/\n\r \t\0\xff\xef\xbb\xbfOKQRBN0123456789".to_vec()
        ),
        any::<u8>(),
    ];
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip(at, bit)),
        (any::<usize>(), byte).prop_map(|(at, b)| Mutation::Insert(at, b)),
        (any::<usize>(), 1usize..64).prop_map(|(at, n)| Mutation::Delete(at, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(data: &mut Vec<u8>, m: &Mutation) {
    let len = data.len();
    match *m {
        _ if len == 0 => {}
        Mutation::Flip(at, bit) => data[at % len] ^= 1 << bit,
        Mutation::Insert(at, b) => data.insert(at % (len + 1), b),
        Mutation::Delete(at, n) => {
            let at = at % len;
            data.drain(at..(at + n).min(len));
        }
        Mutation::Truncate(at) => data.truncate(at % len),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: regressions(), ..ProptestConfig::default() })]

    #[test]
    fn mutated_real_games_keep_the_count(
        first in 0usize..438,
        count in 1usize..4,
        mutations in prop::collection::vec(mutation(), 1..6),
        batch in 1usize..2048,
    ) {
        let games = sample_games();
        let mut data: Vec<u8> = Vec::new();
        for g in games.iter().cycle().skip(first).take(count) {
            data.extend_from_slice(g);
            data.extend_from_slice(b"\n\n");
        }
        for m in &mutations {
            apply(&mut data, m);
        }
        let s = audit_bytes(&data, batch);
        prop_assert_eq!(s.games, s.clean + s.flagged + s.incomplete);
        prop_assert_eq!(s.games, split_count(&data));
        prop_assert_eq!(s.bytes, data.len() as u64);
        let mut whole = audit_bytes(&data, 1 << 20);
        // The same input gives the same counts whatever the batch size
        // (the analysis time aside).
        whole.helpmate_seconds = s.helpmate_seconds;
        prop_assert_eq!(s, whole);
    }
}

/// The generator is worth its salt: over a few seeds it castles short from
/// every start and long from most, and the audit replays those castles without a row.
#[test]
fn random_games_do_castle() {
    let mut all_long = 0;
    for start in 0..STARTS.len() {
        let (mut short, mut long) = (0, 0);
        for seed in 1..200u64 {
            let (pgn, _) = random_game(seed, 200, start);
            for token in pgn.split_ascii_whitespace() {
                match token.trim_end_matches(['+', '#', '!', '?']) {
                    "O-O" => short += 1,
                    "O-O-O" => long += 1,
                    _ => {}
                }
            }
            let report = audit_game(&Game::parse(pgn.as_bytes()));
            assert!(
                report.error.is_none() && report.castling.is_empty(),
                "{pgn}"
            );
        }
        assert!(short > 20, "start {start}: {short} O-O, {long} O-O-O");
        all_long += long;
    }
    assert!(all_long > 50, "{all_long} O-O-O");
}
