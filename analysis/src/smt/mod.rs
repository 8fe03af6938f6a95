//! The SMT solver session: one solver process (z3 or cvc5, spoken to in plain SMT-LIB 2
//! through easy-smt) for all sites, one push/pop per query, a per-query timeout, and
//! each query written as a readable `.smt2` file that the chosen solver accepts.
//!
//! A solver is an external program that can crash, hang or print garbage. None of
//! these may stop the analysis: the query in flight gets [`Answer::Unknown`] with the
//! reason, the process is killed and a new one is started for the next query. So that
//! a restart does not lose the formulas, expressions are built in a solver-less
//! context (the *builder*, shared with the WP transformer) and copied into the running
//! solver's context for each query.
//!
//! One file per part: `solver` (which solver and its settings), `session` (the running
//! solver, one query at a time, and its failures), `watchdog` (killing a solver that
//! hangs) and `script` (a query as a stand-alone `.smt2` file, and checking a saved one).

mod script;
mod session;
mod solver;
mod watchdog;

pub use script::{equivalent, script};
pub use session::{is_solver_failure, Answer, Session};
pub use solver::{SolverConfig, SolverKind, DEFAULT_TIMEOUT_MS, PROGRAM_ENV};
