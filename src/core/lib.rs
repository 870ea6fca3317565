//! pgn-audit-core: the audit of one chess game, pure and typed.
//!
//! [`pgn`] reads one game's text; [`audit`] replays it and judges it
//! against the Laws of Chess into a [`audit::GameReport`]. No threads,
//! files or output formats: bytes in, typed report out.

#![forbid(unsafe_code)]

pub mod audit;
pub mod pgn;
