//! pgn-audit-core: the audit of one chess game, pure and typed.
//!
//! [`Game::parse`] reads one game's PGN text; [`audit_game`] replays it
//! from its start position and judges it against the FIDE Laws of Chess
//! (castling, 3.8.2; draw claims, 9.2 and 9.3; automatic draws, 9.6) into
//! a [`GameReport`]. No threads, files or output formats: bytes in, typed
//! report out.
//!
//! ```
//! use pgn_audit_core::{CastlingReason, Game, GameClass, audit_game};
//!
//! // White's king walks out and back, then castles: FIDE 3.8.2.1 forbids it.
//! let pgn = b"[Event \"?\"]\n\n1. e4 e5 2. Ke2 Ke7 3. Ke1 Ke8 4. Nf3 Nf6 \
//!             5. Bc4 Bc5 6. O-O *\n";
//! let report = audit_game(&Game::parse(pgn));
//! assert_eq!(report.class(), GameClass::Flagged);
//! let castle = &report.castling[0];
//! assert_eq!((castle.ply, castle.san.as_str()), (11, "O-O"));
//! assert!(castle.reasons.contains(CastlingReason::KingMoved));
//! assert_eq!(castle.reasons.codes(), "king_moved");
//! ```
//!
//! The entry points and report types are re-exported here; [`audit`]'s
//! modules [`audit::castling`], [`audit::geometry`] and [`audit::start`]
//! hold the castling history, the castle's squares the report page draws,
//! and the start position.

#![forbid(unsafe_code)]

pub mod audit;
mod pgn;

pub use audit::{
    Basis, CastlingReason, CastlingViolation, ClaimAudit, ClaimKind, ClaimSource, ClaimVerdict,
    DrawRule, ErrorKind, GameClass, GameError, GameReport, MissedDraw, Reasons, ResultCode,
    ResultFinding, Undecided, Variant, audit_game, audit_game_caught, fen_of, repetition_counts,
};
pub use pgn::{
    Game, Glyph, Mended, MoveToken, Moves, PieceLetters, ResultPlaces, SyntaxError, TagQuirk,
    TagQuirkKind, Tags, decode_text,
};
