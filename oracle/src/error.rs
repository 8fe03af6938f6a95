//! Errors of the oracle stage; each names the file involved.

use std::path::PathBuf;

/// What can stop a run as a whole (a single misbehaving execution is a verdict, not an
/// error).
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error(transparent)]
    TestFile(#[from] syncmut_runtime::test_case::TestFileError),

    #[error("{}: cannot read: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{}: cannot write: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{}: cannot start: {source}", path.display())]
    Spawn {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{}: another syncmut (pid {pid}) is using this output directory; wait for it or choose another with -o", path.display())]
    Locked { path: PathBuf, pid: u32 },

    #[error("{}: the output directory's name is not valid UTF-8; clang and LLVM take paths as text: choose another with -o", path.display())]
    NonUtf8Path { path: PathBuf },

    #[error("{}: holds files syncmut did not write; choose a new or empty directory, or a syncmut run directory, with -o", path.display())]
    NotARunDirectory { path: PathBuf },

    #[error("{}: is a symbolic link inside the run directory; syncmut does not write through links: remove it, or choose another directory with -o", path.display())]
    SymlinkInRunDirectory { path: PathBuf },

    #[error("the machine failed the run, not the design: {message}; finished results are kept: free space or raise the limit, then run again with --resume")]
    Environment { message: String },

    #[error("no usable test: every test was set aside by the baseline (see {}); {first}", path.display())]
    NoUsableTest {
        path: PathBuf,
        /// The first test's reason, `NAME: why`, so the one line says what to change.
        first: String,
    },

    #[error("the original did not finish on {} at sync level while one thread ran without a synchronization call and others waited for their turn (a busy-wait on plain memory); --interleave memory makes its loads and stores scheduling points", tests.join(", "))]
    SpinsAtSyncLevel { tests: Vec<String> },

    #[error("the original did not finish on {}: a SystemC design whose sc_start() never returns by itself (a clock keeps it busy) needs a simulated-time bound: give the test a \"sim_time\" (docs/tests-format.md) or run with --sim-time", tests.join(", "))]
    NeverEnds { tests: Vec<String> },
}
