//! The progress bar on standard error: games, MiB, games/s and, when the
//! input size is known, an ETA. Shown only when standard error is a terminal.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Makes the bar: `total` is the size of the raw input where it is known.
pub fn bar(total: Option<u64>) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match total {
        Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template(
                "{bar:30} {binary_bytes}/{binary_total_bytes} {msg} ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template("{spinner} {binary_bytes} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The message part: games and games/s.
pub fn message(games: u64, seconds: f64) -> String {
    let rate = if seconds > 0.0 {
        games as f64 / seconds
    } else {
        0.0
    };
    format!("{games} games, {rate:.0} games/s")
}
