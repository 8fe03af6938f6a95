//! The run directory as `run`, `gen`, `mutate` and `merge` open it: opened and locked by
//! the oracle's `OutDir`, a refusal mapped to its exit code. Apart from `run.rs` so that
//! `gen.rs`, which `run` calls, does not import it back.

use crate::failure::{oracle_failure, Failure};
use syncmut_oracle::outdir::OutDir;

/// Opens (and locks) the run directory of `run`, `gen` or `mutate`; the interruption
/// handler finds it through `outdir::hold_for_exit`.
pub fn open_run_directory(path: &std::path::Path) -> Result<OutDir, Failure> {
    OutDir::open(path).map_err(oracle_failure)
}
