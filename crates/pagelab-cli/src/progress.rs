//! Progress bars for long runs, shown only when stderr is a terminal (never in pipes, CI logs or tests).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A bar over `total` units of work; a no-op when stderr is not a terminal.
pub fn bar(total: u64, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template("{prefix:>12} [{bar:40}] {pos}/{len} {msg} ({elapsed}, eta {eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_prefix(what.to_string());
    pb
}
