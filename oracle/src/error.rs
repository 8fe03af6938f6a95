//! Errors of the oracle stage; each names the file involved.

use std::path::PathBuf;

/// What can stop a run as a whole (a single misbehaving execution is a verdict, not an
/// error).
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// The tests file cannot be read or is not valid.
    #[error(transparent)]
    TestFile(#[from] syncmut_runner::test_case::TestFileError),

    /// A file cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why reading failed.
        source: std::io::Error,
    },

    /// A file cannot be written.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why writing failed.
        source: std::io::Error,
    },

    /// A program cannot be started.
    #[error("{}: cannot start: {source}", path.display())]
    Spawn {
        /// The program.
        path: PathBuf,
        /// Why starting it failed.
        source: std::io::Error,
    },

    /// Another syncmut holds the run directory's lock.
    #[error("{}: another syncmut (pid {pid}) is using this output directory; wait for it or choose another with -o", path.display())]
    Locked {
        /// The run directory.
        path: PathBuf,
        /// The process that holds the lock.
        pid: u32,
    },

    /// The run directory's path is not UTF-8.
    #[error("{}: the output directory's name is not valid UTF-8; clang and LLVM take paths as text: choose another with -o", path.display())]
    NonUtf8Path {
        /// The run directory.
        path: PathBuf,
    },

    /// The directory chosen holds files of something else.
    #[error("{}: holds files syncmut did not write; choose a new or empty directory, or a syncmut run directory, with -o", path.display())]
    NotARunDirectory {
        /// The directory.
        path: PathBuf,
    },

    /// A symbolic link inside the run directory, which syncmut does not write through.
    #[error("{}: is a symbolic link inside the run directory; syncmut does not write through links: remove it, or choose another directory with -o", path.display())]
    SymlinkInRunDirectory {
        /// The link.
        path: PathBuf,
    },

    /// The machine, not the design, failed a run (no space, a limit reached).
    #[error("the machine failed the run, not the design: {message}; finished results are kept: free space or raise the limit, then run again with --resume")]
    Environment {
        /// What failed.
        message: String,
    },

    /// The baseline set every test aside, so no mutant can be judged.
    #[error("no usable test: every test was set aside by the baseline (see {}); {first}", path.display())]
    NoUsableTest {
        /// The baseline's file, which says why each test was set aside.
        path: PathBuf,
        /// The first test's reason, `NAME: why`, so the one line says what to change.
        first: String,
    },

    /// The original busy-waits on plain memory, which only `--interleave memory` lets end.
    #[error("the original did not finish on {} at sync level while one thread ran without a synchronization call and others waited for their turn (a busy-wait on plain memory); --interleave memory makes its loads and stores scheduling points", tests.join(", "))]
    SpinsAtSyncLevel {
        /// The tests it did not finish on.
        tests: Vec<String>,
    },

    /// A SystemC original never ends by itself and needs a simulated-time bound.
    #[error("the original did not finish on {}: a SystemC design whose sc_start() never returns by itself (a clock keeps it busy) needs a simulated-time bound: give the test a \"sim_time\" (docs/tests-format.md) or run with --sim-time", tests.join(", "))]
    NeverEnds {
        /// The tests it did not finish on.
        tests: Vec<String>,
    },
}
