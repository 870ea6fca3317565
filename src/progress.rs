//! The progress bar on standard error: games, MiB, games/s and, when the
//! input size is known, an ETA. Shown only when standard error is a
//! terminal, and not with `--quiet`. Also the width of the summary table.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The summary table's width when standard error is not a terminal (a
/// file, a pipe, a CI log).
const PLAIN_WIDTH: usize = 80;

/// The columns the summary table may use: the terminal's width where
/// standard error is a terminal whose size is known, else 80.
pub(crate) fn table_width() -> usize {
    let term = console::Term::stderr();
    match term.size_checked() {
        Some((_, columns)) if term.is_term() => usize::from(columns).max(20),
        _ => PLAIN_WIDTH,
    }
}

/// Makes the bar: `total` is the size of the raw input where it is known;
/// hidden when `quiet`.
pub(crate) fn bar(total: Option<u64>, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
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
    tick(&bar);
    bar
}

/// How often the bar is drawn again while the input gives nothing new.
const TICK: Duration = Duration::from_millis(200);

/// Draws `bar` again every [`TICK`] until it is finished, on a thread of
/// its own (indicatif's steady tick panics where its thread cannot
/// start): where the OS refuses that thread, the bar moves with the input
/// alone.
fn tick(bar: &ProgressBar) {
    let bar = bar.clone();
    let _ = std::thread::Builder::new()
        .name("progress".to_owned())
        .spawn(move || {
            while !bar.is_finished() {
                bar.tick();
                std::thread::sleep(TICK);
            }
        });
}

/// The message part: games and games/s.
pub(crate) fn message(games: u64, seconds: f64) -> String {
    let rate = if seconds > 0.0 {
        games as f64 / seconds
    } else {
        0.0
    };
    format!("{games} games, {rate:.0} games/s")
}
