//! Errors of the analysis: one type for both a site's undecided reachability and a
//! failed run, so the CLI picks an exit code by matching on it.

use std::path::PathBuf;

/// Why a site's reachability could not be decided, or the analysis could not run.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// Paths through more loop iterations than the bound were cut and the remaining
    /// paths do not reach the site.
    #[error("loop bound {bound} cut paths: {detail}")]
    LoopBoundExceeded {
        /// The unroll bound.
        bound: u32,
        /// Where paths were cut.
        detail: String,
    },
    /// A construct the transformer does not model, with its location.
    #[error("{0}")]
    Unsupported(String),
    /// A budget of test generation ran out (`budget.rs`): what ran out, and the flag
    /// that changes it.
    #[error("budget: {0}")]
    Budget(String),
    /// The SMT solver could not be started or answered unexpectedly.
    #[error("SMT solver: {0}")]
    Solver(String),
    /// The solver program is not installed (or the override names no file).
    #[error("SMT solver {program} not found: {hint}")]
    SolverMissing {
        /// The solver program looked for.
        program: String,
        /// How to install it or name another.
        hint: String,
    },
    /// The analysis copy of the metamutant is not LLVM 16 bitcode.
    #[error("cannot read bitcode {path}: {why}")]
    Bitcode {
        /// The bitcode file.
        path: PathBuf,
        /// LLVM's reason.
        why: String,
    },
    /// A first run of generation (the default invocation, a given test) ran past its
    /// timeout at sync level with one thread busy outside every synchronization call
    /// while others waited for their turn (asked for by
    /// [`crate::Options::stop_when_first_runs_spin`]).
    #[error("the design did not finish at sync level on generation's first runs (its default invocation, the given tests): one thread ran without a synchronization call while others waited for their turn (a busy-wait on plain memory)")]
    SpinsAtSyncLevel,
    /// A file or process operation failed; `what` names the file or program (and how
    /// to install a missing one).
    #[error("{what}: {source}")]
    Io {
        /// The file or program, and the operation.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// `opt-16` rejected the metamutant when simplifying it for the analysis.
    #[error("opt-16 failed on {path}: {why}")]
    Opt {
        /// The metamutant bitcode.
        path: PathBuf,
        /// opt-16's diagnostics.
        why: String,
    },
    /// Building the metamutant failed (its message names the file and the remedy).
    #[error(transparent)]
    Mutator(#[from] syncmut_mutator::MutatorError),
}

impl AnalysisError {
    pub(crate) fn unsupported(
        construct: impl std::fmt::Display,
        at: impl std::fmt::Display,
    ) -> Self {
        AnalysisError::Unsupported(format!("{construct}, {at}"))
    }
}

/// The analysis's result type.
pub type Result<T, E = AnalysisError> = std::result::Result<T, E>;
