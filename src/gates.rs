//! The checks that end a command with a documented exit code other than 0 although
//! nothing failed, saying why on stderr: the score under `--fail-under`, a design
//! without synchronization sites.

use crate::exit;
use syncmut_mutator::Design;

/// `--fail-under`: exit 8 (saying so) when the score is below the threshold.
pub fn score_gate(score: f64, threshold: f64) -> i32 {
    if score < threshold {
        eprintln!("syncmut: mutation score {score:.1}% is below --fail-under {threshold}%");
        exit::SCORE_BELOW_THRESHOLD
    } else {
        exit::OK
    }
}

/// A design without sites is not an error of the build, but nothing can be tested:
/// say so and return the documented code.
pub fn no_sites_check(design: &Design, catalogue: &syncmut_mutator::Catalogue) -> i32 {
    if catalogue.sites.is_empty() {
        let names: Vec<String> = design
            .inputs
            .iter()
            .map(|i| i.path.display().to_string())
            .collect();
        eprintln!(
            "syncmut: {}: no synchronization calls found in user code (pthread or SystemC); nothing to mutate",
            names.join(", ")
        );
        exit::NO_SITES
    } else {
        exit::OK
    }
}
