//! pgn-audit: audits chess games in PGN against the Laws of Chess.
//!
//! The pipeline: [`input`] (sources, decompression, games cut at their
//! boundaries) → [`pgn`] (one game's text read) → [`audit`] (one game
//! replayed and judged, pure) → [`report`] (ordered writers) → [`app`].

#![forbid(unsafe_code)]

pub mod app;
pub mod audit;
pub mod cli;
pub mod input;
pub mod merge;
pub mod pgn;
pub mod progress;
pub mod report;
