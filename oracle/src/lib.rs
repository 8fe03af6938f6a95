//! syncmut-oracle: runs the original and every mutant of a metamutant on a set of tests,
//! compares what a user could observe, and saves verdicts as they arrive.
//!
//! Running the metamutant and reading what it writes (traces, schedule files) is the
//! runtime protocol, in `syncmut_runtime`. Here, `observation` projects an execution to
//! what is observable, `mask` leaves out what the original does not repeat, `verdict` judges a mutant against the original, [`lab`] is the
//! main loop, [`schedules`] names the strategies and [`explore`] runs them, [`outdir`] the run directory, [`outcome`]
//! the saved results, [`diff`] and [`report`] render them.

// The CLI and tests read this crate's public items: each says what it is for.
#![warn(missing_docs)]

pub mod diff;
mod dpor;
mod error;
pub mod explain;
pub mod explore;
pub mod lab;
mod lost_notifications;
mod mask;
pub mod mix;
mod nondeterminism;
mod observation;
pub mod outcome;
pub mod outdir;
mod races;
pub mod report;
pub mod schedules;
pub mod strategies;
mod timeout;
mod verdict;

pub use error::OracleError;
pub use outcome::Outcomes;
pub use verdict::Verdict;
