//! `syncmut gen`: generate tests that reach every synchronization site (backward
//! weakest precondition + SMT), confirm them by execution, write `DIR/tests.json`.

use crate::exit;
use std::path::Path;
use syncmut_analysis::{AnalysisError, Options, Verdict};
use syncmut_mutator::{Design, MutatorError};

/// Runs test generation for `design` into `output`; returns the exit code, or the
/// error with its exit code.
pub fn gen_command(design: &Design, output: &Path, bound: u32) -> Result<i32, (i32, anyhow::Error)> {
    let options = Options { bound };
    let g = match syncmut_analysis::generate(design, output, &options) {
        Ok(g) => g,
        Err(e) => {
            let code = if let Some(m) = e.downcast_ref::<MutatorError>() {
                exit::for_mutator_error(m)
            } else if let Some(AnalysisError::Solver(_)) = e.downcast_ref::<AnalysisError>() {
                exit::TOOL_MISSING
            } else {
                exit::INTERNAL
            };
            return Err((code, anyhow::anyhow!("{e}")));
        }
    };
    if g.catalogue.sites.is_empty() {
        eprintln!("syncmut: no synchronization sites in the design: nothing to generate");
        return Ok(exit::NO_SITES);
    }
    println!("{:>4}  {:<36}  {:>7}  result", "site", "location", "time");
    for r in &g.sites {
        let site = &g.catalogue.sites[r.index as usize];
        let file = Path::new(&site.file).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let confirmed = match &r.verdict {
            Verdict::TestFound { .. } if g.suite.confirmed.contains(&r.index) => "",
            Verdict::TestFound { .. } => "  [NOT confirmed by execution]",
            _ => "",
        };
        let location: String = format!("{file}:{} {}", site.line, site.call).chars().take(36).collect();
        println!("{:>4}  {:<36}  {:>5}ms  {}{}", r.index, location, r.millis, r.verdict, confirmed);
    }
    println!(
        "{} test(s) → {} (Test-Comp test cases in {}, formulas in {})",
        g.suite.tests.len(),
        g.tests_file.display(),
        output.join("tests").display(),
        output.join("formulas").display()
    );
    println!(
        "reach rate: {}/{} reachable sites confirmed by execution ({:.0}%)",
        g.suite.confirmed.len(),
        g.suite.reachable.len(),
        100.0 * g.suite.reach_rate()
    );
    Ok(exit::OK)
}
