//! Progress display on the terminal (hidden when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};
use syncmut_oracle::lab::Progress;
use syncmut_oracle::outcome::Run;

/// A progress bar over the mutant runs.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    pub fn new() -> Bar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        Bar { bar }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn baseline_started(&self, tests: usize) {
        self.bar.set_prefix("baseline");
        self.bar
            .set_message(format!("running the original on {tests} test(s)"));
        self.bar.tick();
    }

    fn runs_started(&self, runs: usize) {
        self.bar.set_prefix("mutants");
        self.bar.set_length(runs as u64);
        self.bar.set_position(0);
        self.bar.set_message("");
    }

    fn run_finished(&self, run: &Run) {
        self.bar
            .set_message(format!("{} on {}: {}", run.mutant, run.test, run.verdict));
        self.bar.inc(1);
    }
}
