//! The progress bar on standard error: the bytes read as stored (a
//! compressed file's compressed bytes, which is what its size counts; the
//! summary's MiB are the text they decompress to), games, games/s and,
//! when the input size is known and a rate has been measured, an ETA.
//! Shown only when standard error is a terminal, and not with `--quiet`.
//! Also the width of the summary table.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{HumanDuration, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

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
                "{bar:30} read {binary_bytes} of {binary_total_bytes} stored, {msg}{eta_known}",
            )
            .map(|style| style.with_key("eta_known", eta_known))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template("{spinner} read {binary_bytes} stored, {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    tick(&bar);
    bar
}

/// How long bytes are read before their rate gives an ETA: the first
/// reads (the magic bytes, a file's first chunk) say nothing of the rate.
const RATE_AFTER: Duration = Duration::from_secs(1);

/// `  ETA 12s` once bytes have been read at a measured rate; nothing
/// before (an estimate from no rate would read `ETA 0s`).
fn eta_known(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    if state.pos() > 0 && state.per_sec() > 0.0 && state.elapsed() >= RATE_AFTER {
        let _ = write!(w, "  ETA {:#}", HumanDuration(state.eta()));
    }
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
