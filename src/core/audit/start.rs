//! The start position of a game: the FEN tag, and the variant from the
//! Variant tag or from castling rights that only Chess960 can explain.

use shakmaty::{
    Board, CastlingMode, Chess, Color, File, FromSetup, Position, PositionError, Setup, Square,
    fen::Fen,
};

use super::findings::{ErrorKind, GameReport, Variant};
use crate::pgn::Tags;

/// How a game is to be replayed.
#[derive(Debug, Clone)]
pub struct Start {
    /// The position before the first move.
    pub position: Chess,
    /// How castling moves are written: standard, or Chess960 (Guidelines II.3).
    pub mode: CastlingMode,
    /// The variant the report names.
    pub variant: Variant,
    /// The game starts from a FEN tag (not the standard array).
    pub from_fen: bool,
    /// The FEN's castling rights that are impossible in the variant, as
    /// the FEN wrote them (`K`, `q`, `G`), in its order and each once,
    /// dropped: each is a notation quirk.
    pub(crate) dropped_rights: Vec<char>,
    /// (v3) The FEN's en-passant square where no double step can have made
    /// it, dropped: a notation quirk.
    pub(crate) dropped_ep: Option<Square>,
}

impl Start {
    /// The standard array, standard chess.
    pub(crate) fn standard() -> Start {
        Start {
            position: Chess::default(),
            mode: CastlingMode::Standard,
            variant: Variant::Standard,
            from_fen: false,
            dropped_rights: Vec::new(),
            dropped_ep: None,
        }
    }
}

/// The rook square that a castling right written in a FEN (`K`, `Q`, `k`,
/// `q`, or a file letter as X-FEN and Shredder-FEN write it) names on
/// `board`, as shakmaty reads the field: `K` the outermost rook beyond
/// the king, or h1/h8 where there is none. Each letter is read on its
/// own, so that `K` and `Q` of a king that is off its back rank, which
/// may both name its one rook, are two dropped rights.
fn right_square(board: &Board, letter: char) -> Option<Square> {
    let color = Color::from_white(letter.is_ascii_uppercase());
    let rank = color.backrank();
    let rooks_and_kings = board.by_color(color) & (board.rooks() | board.kings()) & rank;
    let rook = |sq: &Square| board.rooks().contains(*sq);
    Some(match letter.to_ascii_lowercase() {
        'k' => rooks_and_kings
            .last()
            .filter(rook)
            .unwrap_or_else(|| Square::from_coords(File::H, rank)),
        'q' => rooks_and_kings
            .first()
            .filter(rook)
            .unwrap_or_else(|| Square::from_coords(File::A, rank)),
        file => Square::from_coords(File::from_char(file)?, rank),
    })
}

/// The variant a Variant tag names, by the contract's aliases
/// (case-insensitive, surrounding whitespace ignored, a run of inner
/// whitespace read as one space); `None` for any other variant.
fn named_variant(value: &str) -> Option<Variant> {
    let key = value
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    match key.as_str() {
        "standard" | "normal" | "chess" | "from position" => Some(Variant::Standard),
        "chess960" | "chess 960" | "fischerandom" | "fischer random" | "frc" | "960" => {
            Some(Variant::Chess960)
        }
        _ => None,
    }
}

/// What the `variant` identity column writes instead of the variant the
/// game was replayed as ([`GameReport::variant`]): for an
/// `unsupported_variant`, the Variant tag's value, lowercased.
pub fn unsupported_variant(report: &GameReport, tags: &Tags) -> Option<String> {
    match (&report.error, tags.variant.as_deref()) {
        (Some(e), Some(value)) if e.kind == ErrorKind::UnsupportedVariant => {
            Some(value.to_lowercase())
        }
        _ => None,
    }
}

/// Sets up the start position from the tags. A Variant tag that names
/// standard chess or Chess960 decides the castling rules; without one (or
/// with an empty one) the game is Chess960 only when its FEN's castling
/// rights need Chess960 to be explained. A castling right impossible in
/// that variant (FIDE 3.8.2 and Guidelines II.3: the king and that rook on
/// their start squares, which in standard chess are e1/e8 and the corner,
/// and in Chess960 a rook on the back rank on that side of the king) is
/// dropped, and so is (v3) an en-passant square that no double step can
/// have made: no pawn of the side that just moved stands in front of it, or
/// the square behind it is occupied (FIDE 3.7.3.1 takes the capture only
/// right after the double step). A position no game can reach (the side not
/// to move in check, a pawn on the first or last rank, two kings of a
/// colour) stays a `bad_fen`. `[FEN ""]` is no FEN.
pub fn start_position(tags: &Tags) -> Result<Start, (ErrorKind, String)> {
    let named = tag_variant(tags)?;
    let fen = tags.fen.as_deref().map(str::trim).filter(|f| !f.is_empty());
    if fen.is_none() && named != Some(Variant::Chess960) {
        return Ok(Start::standard());
    }
    let (setup, from_fen) = match fen {
        Some(text) => match Fen::from_ascii(text.as_bytes()) {
            Ok(fen) => (fen.into_setup(), true),
            Err(e) => {
                return Err((
                    ErrorKind::BadFen,
                    format!("FEN \"{text}\" cannot be read: {e}"),
                ));
            }
        },
        None => (Setup::initial(), false),
    };
    let (mode, variant) = match named.unwrap_or_else(|| detect(&setup)) {
        Variant::Standard => (CastlingMode::Standard, Variant::Standard),
        Variant::Chess960 => (CastlingMode::Chess960, Variant::Chess960),
    };
    let ep = setup.ep_square;
    let position = Chess::from_setup(setup, mode)
        .or_else(PositionError::ignore_invalid_castling_rights)
        .or_else(PositionError::ignore_invalid_ep_square)
        .or_else(PositionError::ignore_too_much_material)
        .map_err(|e| {
            (
                ErrorKind::BadFen,
                format!(
                    "FEN \"{}\" is not a legal position: {e}",
                    fen.unwrap_or_default()
                ),
            )
        })?;
    let kept = position.castles().castling_rights();
    let mut dropped_rights: Vec<char> = Vec::new();
    for letter in fen
        .and_then(|f| f.split_whitespace().nth(2))
        .unwrap_or("")
        .chars()
    {
        if !dropped_rights.contains(&letter)
            && right_square(position.board(), letter).is_some_and(|sq| !kept.contains(sq))
        {
            dropped_rights.push(letter);
        }
    }
    let dropped_ep = ep.filter(|_| position.maybe_ep_square().is_none());
    Ok(Start {
        position,
        mode,
        variant,
        from_fen,
        dropped_rights,
        dropped_ep,
    })
}

/// The variant the Variant tag names, `None` without one (or with an
/// empty one).
fn tag_variant(tags: &Tags) -> Result<Option<Variant>, (ErrorKind, String)> {
    match tags.variant.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(value) => named_variant(value).map(Some).ok_or_else(|| {
            (
                ErrorKind::UnsupportedVariant,
                format!("variant \"{value}\" is not standard chess or Chess960"),
            )
        }),
    }
}

/// The variant of a game whose start position cannot be set up (its FEN
/// cannot be read): the one its Variant tag names, standard otherwise.
pub(crate) fn tagged_variant(tags: &Tags) -> Variant {
    tag_variant(tags).ok().flatten().unwrap_or_default()
}

/// The variant of a game without a Variant tag: Chess960 when some
/// castling right of its FEN is possible in Chess960 and not in standard
/// chess (a king off e1/e8 or a rook off its corner).
fn detect(setup: &Setup) -> Variant {
    match CastlingMode::detect(setup) {
        CastlingMode::Standard => Variant::Standard,
        CastlingMode::Chess960 => Variant::Chess960,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(variant: Option<&str>, fen: Option<&str>) -> Tags {
        let mut tags = Tags::default();
        tags.variant = variant.map(str::to_owned);
        tags.fen = fen.map(str::to_owned);
        tags
    }

    #[test]
    fn variant_names() {
        for v in [
            "Chess960",
            "chess 960",
            "Chess  960",
            "Fischerandom",
            "Fischer Random",
            "FRC",
            "960",
        ] {
            assert_eq!(named_variant(v), Some(Variant::Chess960), "{v}");
        }
        for v in [
            "Standard",
            "NORMAL",
            "chess",
            "From Position",
            " from  position ",
        ] {
            assert_eq!(named_variant(v), Some(Variant::Standard), "{v}");
        }
        for v in [
            "Crazyhouse",
            "Atomic",
            "Three-check",
            "Chess-960",
            "FromPosition",
            "classical",
            "",
        ] {
            assert_eq!(named_variant(v), None, "{v}");
        }
    }

    #[test]
    fn shredder_rights_off_the_corner_mean_chess960() {
        let s = start_position(&tags(
            None,
            Some("bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w GEge - 0 1"),
        ))
        .unwrap();
        assert_eq!(s.variant, Variant::Chess960);
        let s = start_position(&tags(
            None,
            Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        ))
        .unwrap();
        assert_eq!(s.variant, Variant::Standard);
    }

    /// The rights each start keeps and drops, as FEN castling fields.
    fn rights(variant: Option<&str>, fen: &str) -> (Variant, String, usize) {
        let s = start_position(&tags(variant, Some(fen))).unwrap();
        let kept = fen_of_start(&s);
        (s.variant, kept, s.dropped_rights.len())
    }

    fn fen_of_start(s: &Start) -> String {
        let fen = crate::audit::fen_of(&s.position);
        fen.split(' ').nth(2).unwrap().to_owned()
    }

    #[test]
    fn impossible_rights_are_dropped() {
        let morphy = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1NBQKBNR w KQkq - 0 1";
        assert_eq!(rights(None, morphy), (Variant::Standard, "Kkq".into(), 1));
        let d1 = "4k3/8/8/8/8/8/8/3K3R w K - 0 1";
        assert_eq!(rights(None, d1), (Variant::Chess960, "K".into(), 0));
        assert_eq!(
            rights(Some("Standard"), d1),
            (Variant::Standard, "-".into(), 1)
        );
        assert_eq!(
            rights(Some("Chess960"), d1),
            (Variant::Chess960, "K".into(), 0)
        );
        assert_eq!(
            rights(None, "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1"),
            (Variant::Standard, "-".into(), 4)
        );
        // Chess960: the G right needs a rook on g1, east of the king.
        assert_eq!(
            rights(Some("Chess960"), "4k3/8/8/8/8/8/8/1R1K4 w GB - 0 1"),
            (Variant::Chess960, "Q".into(), 1)
        );
        // A king off its back rank has no right in either variant.
        assert_eq!(
            rights(Some("chess 960"), "4k3/8/8/8/8/8/3K4/R6R w KQ - 0 1"),
            (Variant::Chess960, "-".into(), 2)
        );
    }

    #[test]
    fn an_empty_variant_or_fen_is_none() {
        let s = start_position(&tags(Some(" "), Some(""))).unwrap();
        assert_eq!((s.variant, s.from_fen), (Variant::Standard, false));
        let s = start_position(&tags(Some(""), Some("4k3/8/8/8/8/8/8/3K3R w K - 0 1"))).unwrap();
        assert_eq!(s.variant, Variant::Chess960);
    }

    #[test]
    fn bad_fens() {
        for fen in [
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "k7/8/8/8/8/8/8/KK6 w - - 0 1",
            "k6P/8/8/8/8/8/8/K7 w - - 0 1",
            "not a fen",
        ] {
            assert_eq!(
                start_position(&tags(None, Some(fen))).unwrap_err().0,
                ErrorKind::BadFen,
                "{fen}"
            );
        }
        assert_eq!(
            start_position(&tags(Some("Atomic"), None)).unwrap_err().0,
            ErrorKind::UnsupportedVariant
        );
    }
}
