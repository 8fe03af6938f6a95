//! syncmut-oracle: runs the original and every mutant of a metamutant on a set of tests,
//! compares what a user could observe, and saves verdicts as they arrive.
//!
//! [`exec`] runs one contained process, [`trace`] reads the runtime's traces,
//! [`observation`] projects an execution to what is observable, [`verdict`] judges a
//! mutant against the original, [`lab`] is the main loop, [`outdir`] the run directory,
//! [`outcome`] the saved results, [`diff`] and [`report`] render them.

pub mod diff;
pub mod error;
pub mod exec;
pub mod explain;
pub mod explore;
pub mod lab;
pub mod observation;
pub mod outcome;
pub mod outdir;
pub mod report;
pub mod test_case;
pub mod trace;
pub mod verdict;

pub use error::OracleError;
pub use outcome::Outcomes;
pub use test_case::TestCase;
pub use verdict::Verdict;
