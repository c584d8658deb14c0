//! Progress shown on a terminal and nothing elsewhere: the tour's per-row spinner, the tuning
//! bar and the bench sweep's bar.

use crate::methods::Method;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// Whether both stdout and stderr are terminals: progress drawn into a pipe or a file would
/// only be noise among the results.
pub fn on_terminal() -> bool {
    std::io::stdout().is_terminal() && std::io::stderr().is_terminal()
}

/// A spinner on stderr saying `message` while one slow step runs; hidden off a terminal.
/// Clear it (`finish_and_clear`) before printing the step's result.
pub fn spinner(message: String) -> ProgressBar {
    if !on_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(message);
    // Drawn at once, so that even a fast row shows what ran; then kept turning.
    bar.tick();
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

/// The progress bar of `tune`: `total` runs of `method`, hidden when `hidden` (JSON output).
pub fn tuning_bar(total: u64, hidden: bool, method: Method) -> ProgressBar {
    let bar = if hidden {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "tuning {prefix} [{bar:30}] {pos}/{len} runs, {msg} ({elapsed})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_prefix(method.name());
    bar
}

/// The bar of a bench sweep: `rows` rows, hidden when `hidden` (JSON on stdout).
pub fn sweep_bar(rows: u64, hidden: bool) -> ProgressBar {
    let bar = ProgressBar::new(rows);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} rows {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    if hidden {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

/// The bar of a tiled multiply's blocks of C (the entry point tells it how many are done);
/// hidden when `hidden` (JSON on stdout) or off a terminal, and drawn only once a product is
/// tiled (its length is set by the first block done).
pub fn tiling_bar(hidden: bool, method: Method) -> ProgressBar {
    if hidden || !on_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "tiling {prefix} [{bar:30}] {pos}/{len} blocks of C ({elapsed})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_prefix(method.name());
    bar
}
