//! Documented exit codes (docs/exit-codes.md). Scripts and CI depend on these numbers:
//! never renumber, only add.

use syncmut_analysis::AnalysisError;
use syncmut_mutator::MutatorError;
use syncmut_oracle::OracleError;

/// Everything went as asked.
pub const OK: i32 = 0;
/// syncmut itself failed (a bug, or the output directory cannot be written).
pub const INTERNAL: i32 = 1;
/// The command line is wrong (clap's own code), or a test file is unreadable or invalid.
pub const USAGE: i32 = 2;
/// The design cannot be used: missing or unsupported file, compile or link error,
/// unreadable bitcode.
pub const BAD_DESIGN: i32 = 3;
/// The design builds but has no synchronization site to mutate.
pub const NO_SITES: i32 = 4;
/// A required tool (clang-16, llvm-link-16) is not installed.
pub const TOOL_MISSING: i32 = 5;
/// Another syncmut holds the output directory's lock.
pub const LOCKED: i32 = 6;
/// Every test was set aside by the baseline (the original crashed, hung or was
/// nondeterministic on each); nothing could be judged.
pub const NO_USABLE_TEST: i32 = 7;
/// The mutation score is below `--fail-under`.
pub const SCORE_BELOW_THRESHOLD: i32 = 8;
/// `explore` found a concurrency bug in the original program.
pub const BUG_FOUND: i32 = 9;
/// `replay` ran the mutant again but did not get the saved trace.
pub const NOT_REPRODUCED: i32 = 10;

/// The exit code for a mutator failure.
pub fn for_mutator_error(error: &MutatorError) -> i32 {
    match error {
        MutatorError::ToolMissing { .. } => TOOL_MISSING,
        MutatorError::Verify(_) => INTERNAL,
        MutatorError::Write { .. } => INTERNAL,
        MutatorError::InputNotFound(_)
        | MutatorError::InputUnreadable { .. }
        | MutatorError::UnsupportedInput(_)
        | MutatorError::EmptyDirectory(_)
        | MutatorError::CompileFailed { .. }
        | MutatorError::LinkFailed { .. }
        | MutatorError::BadBitcode { .. }
        | MutatorError::AlreadyInstrumented(_) => BAD_DESIGN,
    }
}

/// The exit code for an oracle failure (`run`).
pub fn for_oracle_error(error: &OracleError) -> i32 {
    match error {
        OracleError::TestFile(_) => USAGE,
        OracleError::Locked { .. } => LOCKED,
        OracleError::NoUsableTest { .. } => NO_USABLE_TEST,
        OracleError::Write { .. } | OracleError::Spawn { .. } => INTERNAL,
    }
}

/// The exit code for a test-generation failure: a missing solver is a missing tool.
pub fn for_generation_error(error: &crate::gen::AnyError) -> i32 {
    if let Some(m) = error.downcast_ref::<MutatorError>() {
        for_mutator_error(m)
    } else if let Some(AnalysisError::SolverMissing { .. }) = error.downcast_ref::<AnalysisError>() {
        TOOL_MISSING
    } else {
        INTERNAL
    }
}
