//! The start position of a game: the FEN tag, and the variant from the
//! Variant tag or from castling rights that only Chess960 can explain.

use shakmaty::{CastlingMode, Chess, FromSetup, Setup, fen::Fen};

use super::findings::{ErrorKind, Variant};
use crate::pgn::Tags;

/// How a game is to be replayed.
#[derive(Debug, Clone)]
pub struct Start {
    pub position: Chess,
    pub mode: CastlingMode,
    pub variant: Variant,
    /// The game starts from a FEN tag (not the standard array).
    pub from_fen: bool,
}

/// Classifies a Variant tag: `Some(true)` for Chess960, `Some(false)` for
/// standard chess, `None` for any other variant.
pub fn is_chess960(variant: &str) -> Option<bool> {
    let key: String = variant
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    match key.as_str() {
        "" | "standard" | "normal" | "chess" | "fromposition" | "classical" | "regular" => {
            Some(false)
        }
        "chess960"
        | "960"
        | "fischerandom"
        | "fischerrandom"
        | "fischerrandomchess"
        | "frc"
        | "chess960fischerrandom" => Some(true),
        _ => None,
    }
}

/// Sets up the start position from the tags.
pub fn start_position(tags: &Tags) -> Result<Start, (ErrorKind, String)> {
    let chess960 = match tags.variant.as_deref().map(is_chess960) {
        None => false,
        Some(Some(b)) => b,
        Some(None) => {
            return Err((
                ErrorKind::UnsupportedVariant,
                format!(
                    "variant \"{}\" is not standard chess or Chess960",
                    tags.variant.as_deref().unwrap_or_default()
                ),
            ));
        }
    };
    let fen = tags.fen.as_deref().map(str::trim).filter(|f| !f.is_empty());
    if fen.is_none() && !chess960 {
        return Ok(Start {
            position: Chess::default(),
            mode: CastlingMode::Standard,
            variant: Variant::Standard,
            from_fen: false,
        });
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
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::detect(&setup)
    };
    let variant = if mode == CastlingMode::Chess960 {
        Variant::Chess960
    } else {
        Variant::Standard
    };
    let position = match Chess::from_setup(setup, mode) {
        Ok(p) => p,
        Err(e) => e.ignore_too_much_material().map_err(|e| {
            (
                ErrorKind::BadFen,
                format!(
                    "FEN \"{}\" is not a legal position: {e}",
                    fen.unwrap_or_default()
                ),
            )
        })?,
    };
    Ok(Start {
        position,
        mode,
        variant,
        from_fen,
    })
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
            "Fischerandom",
            "chess 960",
            "Fischer Random",
            "960",
        ] {
            assert_eq!(is_chess960(v), Some(true), "{v}");
        }
        for v in ["Standard", "From Position", ""] {
            assert_eq!(is_chess960(v), Some(false), "{v}");
        }
        for v in ["Crazyhouse", "Atomic", "Three-check"] {
            assert_eq!(is_chess960(v), None, "{v}");
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

    #[test]
    fn bad_fens() {
        for fen in [
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "k7/8/8/8/8/8/8/KK6 w - - 0 1",
            "k6P/8/8/8/8/8/8/K7 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
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
