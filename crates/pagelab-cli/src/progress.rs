//! Progress bars for long runs, shown only when stderr is a terminal (never in pipes, CI logs or tests).

use indicatif::{ProgressBar, ProgressStyle};
use pagelab_sim::server::RunProgress;
use std::io::IsTerminal;

/// A bar over `total` units of work; a no-op when stderr is not a terminal.
pub fn bar(total: u64, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(total);
    pb.set_style(bar_style("{pos}/{len} {msg}"));
    pb.set_prefix(what.to_string());
    pb
}

/// The bars' one look: what, bar, `middle`, time spent and left.
fn bar_style(middle: &str) -> ProgressStyle {
    ProgressStyle::with_template(&format!("{{prefix:>12}} [{{bar:40}}] {middle} ({{elapsed}}, eta {{eta}})"))
        .expect("valid template")
        .progress_chars("=> ")
}

/// One simulation's progress, in simulated time: the warm-up as a spinner (a warm-up that runs until
/// steady state has no known end), then the measured period as a bar over `--duration`. A program that
/// runs to completion stays a spinner: it usually ends well before that bound. Hidden when stderr is not
/// a terminal.
pub struct SimulationProgress {
    pb: ProgressBar,
    runs_to_completion: bool,
    /// The bar has replaced the warm-up's spinner.
    measuring: bool,
}

impl SimulationProgress {
    pub fn new(runs_to_completion: bool) -> SimulationProgress {
        let pb =
            if std::io::stderr().is_terminal() { ProgressBar::new_spinner() } else { ProgressBar::hidden() };
        pb.set_style(
            ProgressStyle::with_template("{prefix:>12} {spinner} {msg} ({elapsed})").expect("valid template"),
        );
        pb.set_prefix(if runs_to_completion { "simulate" } else { "warm-up" });
        SimulationProgress { pb, runs_to_completion, measuring: false }
    }

    /// Moves the display to where the run is.
    pub fn show(&mut self, p: RunProgress) {
        if self.pb.is_hidden() {
            return;
        }
        match p.measured {
            Some((start, end)) if !self.runs_to_completion => {
                if !self.measuring {
                    self.measuring = true;
                    self.pb.set_style(bar_style("{msg}"));
                    self.pb.set_prefix("simulate");
                    self.pb.set_length((end - start).0 / 1_000_000);
                }
                let done = p.now.saturating_sub(start);
                self.pb.set_position(done.0 / 1_000_000);
                self.pb.set_message(format!(
                    "{:.1} of {:.1} s simulated, {} requests",
                    done.as_secs_f64(),
                    (end - start).as_secs_f64(),
                    p.requests
                ));
            }
            _ => {
                self.pb.set_message(format!(
                    "{:.1} s simulated, {} requests",
                    p.now.as_secs_f64(),
                    p.requests
                ));
                self.pb.tick();
            }
        }
    }

    pub fn finish(&self) {
        self.pb.finish_and_clear();
    }
}
