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
/// `run --self-check` judged the original different from itself (a false kill).
pub const SELF_CHECK_FAILED: i32 = 11;
/// `explore` found no bug, but runs ended at a limit of the tool (the scheduler's thread
/// limit) before the program did: the search did not cover what lies past it.
pub const INCOMPLETE: i32 = 12;

/// Interrupted by SIGINT (128 + 2, as a shell reports it); `--resume` continues.
pub const INTERRUPTED: i32 = 130;
/// Terminated by SIGTERM (128 + 15); `--resume` continues.
pub const TERMINATED: i32 = 143;

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
        | MutatorError::NonUtf8Path(_)
        | MutatorError::CompileFailed { .. }
        | MutatorError::LinkFailed { .. }
        | MutatorError::BadBitcode { .. }
        | MutatorError::CompileDatabase { .. }
        | MutatorError::MultiplyDefined { .. }
        | MutatorError::AlreadyInstrumented(_)
        | MutatorError::OpenMp { .. } => BAD_DESIGN,
    }
}

/// The exit code for a test generation failure: a missing solver is a missing tool, a
/// failed metamutant build is judged as a mutator failure, anything else is ours.
pub fn for_analysis_error(error: &AnalysisError) -> i32 {
    match error {
        AnalysisError::Mutator(m) => for_mutator_error(m),
        AnalysisError::SolverMissing { .. } => TOOL_MISSING,
        AnalysisError::SpinsAtSyncLevel => NO_USABLE_TEST,
        AnalysisError::LoopBoundExceeded { .. }
        | AnalysisError::Unsupported(_)
        | AnalysisError::Solver(_)
        | AnalysisError::Budget(_)
        | AnalysisError::Bitcode { .. }
        | AnalysisError::Io { .. }
        | AnalysisError::Opt { .. } => INTERNAL,
    }
}

/// The exit code for an oracle failure (`run`, and opening a run directory).
pub fn for_oracle_error(error: &OracleError) -> i32 {
    match error {
        OracleError::TestFile(_)
        | OracleError::NotARunDirectory { .. }
        | OracleError::SymlinkInRunDirectory { .. }
        | OracleError::NonUtf8Path { .. } => USAGE,
        OracleError::Locked { .. } => LOCKED,
        OracleError::NoUsableTest { .. }
        | OracleError::SpinsAtSyncLevel { .. }
        | OracleError::NeverEnds { .. } => NO_USABLE_TEST,
        OracleError::Read { .. }
        | OracleError::Write { .. }
        | OracleError::Spawn { .. }
        | OracleError::Environment { .. } => INTERNAL,
    }
}
