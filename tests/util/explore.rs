//! Helpers of the exploration tests (`explore_*.rs`, `run_strategies.rs`): building a
//! design, running its binary, and the settings `explore` runs it with.

use std::path::{Path, PathBuf};
use std::process::Command;
use syncmut_mutator::interleave::Interleave;
use syncmut_oracle::explore::ExploreSettings;
use syncmut_oracle::schedules::Strategy;
use syncmut_runner::Invocation;

/// The corpus of bugs, each program beside its correct twin.
pub fn bugs_dir() -> PathBuf {
    super::example("pthread/bugs")
}

/// Builds a design into `out` and returns its metamutant.
pub fn build(source: &Path, out: &Path) -> syncmut_mutator::metamutant::Build {
    build_with(source, out, Interleave::Sync, &[])
}

/// [`build`] at `interleave`, with `flags` passed to clang.
pub fn build_with(
    source: &Path,
    out: &Path,
    interleave: Interleave,
    flags: &[&str],
) -> syncmut_mutator::metamutant::Build {
    let flags: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
    let design = syncmut_mutator::Design::from_paths(&[source.to_path_buf()], &flags).unwrap();
    let options = syncmut_mutator::metamutant::Options {
        interleave,
        races: false,
    };
    syncmut_mutator::metamutant::build_with(&design, out, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", source.display()))
}

/// Runs `binary` with `env` added: its exit status and stdout.
pub fn run(binary: &Path, env: &[(&str, &str)]) -> (std::process::ExitStatus, String) {
    let out = Command::new(binary)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The metamutant with no mutant active, as `explore` runs it.
pub fn original(metamutant: &Path) -> Invocation {
    Invocation {
        active: Some(String::new()),
        ..Invocation::new(metamutant, &[])
    }
}

/// `explore`'s default settings with `strategy` and a budget of `schedules`.
pub fn config(strategy: Strategy, schedules: usize) -> ExploreSettings {
    ExploreSettings {
        strategy,
        schedules,
        ..ExploreSettings::default()
    }
}

/// A file of tests/fixtures/verifier.
pub fn verifier(name: &str) -> PathBuf {
    super::fixture("verifier").join(name)
}
