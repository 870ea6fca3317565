//! pgn-audit: audits chess games in PGN against the Laws of Chess.
//!
//! The pipeline: `pgn_audit_input` (sources, decompression, games cut at
//! their boundaries) → `pgn_audit_core` (one game's text read, replayed and
//! judged, pure) → `pgn_audit_report` (ordered writers) → [`app`], the run
//! that the command line ([`cli`]) starts.

#![forbid(unsafe_code)]

pub mod app;
pub mod cli;
pub mod progress;
