//! The result of one site's analysis: its reachability formula with the inputs it
//! reads, its fresh symbols, and what it assumed or over-approximated.

use crate::inputs::Inputs;
use easy_smt::SExpr;

/// One conjunct of a formula, with the source line it comes from.
#[derive(Debug, Clone)]
pub struct Conjunct {
    pub comment: String,
    pub expr: SExpr,
}

/// A named definition (branch conditions), emitted before the conjuncts.
#[derive(Debug, Clone)]
pub struct Definition {
    pub name: String,
    pub sort: String,
    pub expr: SExpr,
    pub comment: String,
}

/// The reachability formula of one site.
#[derive(Debug, Clone)]
pub struct Query {
    pub inputs: Inputs,
    /// Fresh symbols (over-approximated values) with their sorts.
    pub fresh: Vec<(String, String)>,
    pub definitions: Vec<Definition>,
    pub conjuncts: Vec<Conjunct>,
    /// Over-approximations made (a model may then not be a real test).
    pub notes: Vec<String>,
    /// Paths were cut at a loop back edge (an unsat answer is then not a proof).
    pub cut: Vec<String>,
    /// Indirect calls that may also reach a function on the path, not followed because
    /// direct calls reach it (an unsat answer is then not a proof either).
    pub unfollowed: Vec<String>,
    /// What the formula assumes about the schedule.
    pub schedule: Vec<String>,
    /// SystemC waits whose return the formula conditions on a notify (an unsat
    /// answer may then mean "blocked" rather than dead code).
    pub blocking: Vec<String>,
    /// Assumptions the solver tries to keep, in order, before it takes any model:
    /// "nobody else wrote this" for each value read after another thread or process
    /// may have run ([`super::Wp`]'s `own_or_any`). Each is only a preference: the
    /// formula without them is the reachability condition.
    pub quiet: Vec<SExpr>,
    /// Tried before `quiet`: "the value read is the reader's own or one a store of
    /// another writer that the formula traces wrote, not any value", for each such
    /// value.
    pub known_writes: Vec<SExpr>,
    /// Loops summarised instead of cut ([`super::Wp::summarising_loops`]).
    pub summarised: Vec<String>,
}
