//! Issue 12: see main.rs.
