//! What the commands show on the terminal besides their results: test generation's
//! progress and warnings (`run`'s own progress is `progress.rs`).

use indicatif::{ProgressBar, ProgressStyle};

/// Progress of test generation: a bar over the sites on a terminal, and on any stderr
/// a line for each site that took long or ran out of its budget, so a log shows what
/// a slow generation is doing.
pub struct GenBar {
    bar: ProgressBar,
}

/// A site that took longer than this gets a line of its own.
const SLOW_SITE_MS: f64 = 5000.0;

impl GenBar {
    pub fn new() -> GenBar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} {elapsed} {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_prefix("gen");
        bar.enable_steady_tick(std::time::Duration::from_millis(500));
        GenBar { bar }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn line(&self, text: String) {
        if self.bar.is_hidden() {
            eprintln!("{text}");
        } else {
            self.bar.println(text);
        }
    }
}

impl syncmut_analysis::Progress for GenBar {
    fn site_started(&self, index: u32, total: u32, at: &str) {
        self.bar.set_length(total as u64);
        self.bar.set_message(format!("site {index}: {at}"));
    }

    fn site_done(&self, result: &syncmut_analysis::SiteResult, at: &str) {
        self.bar.inc(1);
        if result.millis > SLOW_SITE_MS || result.out_of_budget() {
            self.line(format!(
                "syncmut gen: site {} ({at}) took {:.1} s: {}",
                result.index,
                result.millis / 1000.0,
                result.verdict
            ));
        }
    }

    fn default_run(&self, reached: usize, total: usize, unusable: Option<&str>) {
        self.line(match unusable {
            None => format!("syncmut gen: the default invocation (no arguments) reaches {reached} of {total} site(s); those need no formula"),
            Some(why) => format!("syncmut gen: the default invocation (no arguments) is not a usable test ({why}); analysing every site"),
        });
    }

    fn given_run(&self, tests: usize, more: usize) {
        self.line(format!(
            "syncmut gen: the {tests} given test(s) reach {more} more site(s); those are not analysed"
        ));
    }

    fn confirming(&self, candidates: usize) {
        self.bar.set_prefix("confirm");
        self.bar.set_message(format!(
            "running {candidates} candidate test(s) to check that they reach their sites"
        ));
    }
}

pub fn print_warnings(warnings: &[String]) {
    for warning in warnings {
        eprintln!("syncmut: warning: {warning}");
    }
}
