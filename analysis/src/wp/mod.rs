//! Backward weakest precondition: the condition on program inputs under which
//! execution reaches a site.
//!
//! The module is in SSA form (mem2reg/sroa ran first), so substituting each defined
//! value backwards into the predicate is the same as evaluating the value's definition
//! on demand, memoised per frame; that is what [`Wp::value`] does. Block reachability
//! is the disjunction over predecessors of (edge condition ∧ predecessor reached),
//! memoised per block. Loop back edges are not followed: paths through more iterations
//! than `opt` unrolled are cut, and the result says so ([`Query::cut`]); or, when asked
//! ([`Wp::summarising_loops`]), such loops are summarised (`loops`).
//!
//! A *frame* is one function in one calling context: the root (`main`/`sc_main`, whose
//! `argv` is the input), a call from a parent frame, or a thread/process entry created
//! from a creator frame. Memory is a region map: a location is a base (global, stack
//! slot of a frame, `argv`) plus a byte offset; a load's value is the last store to the
//! same location found walking backwards (through callees that may write it, into the
//! creator at a thread's entry), merged over predecessors like a phi.
//!
//! One file per part of the model: `domain` (what the walk computes: symbolic values,
//! memory locations, frames), `facts` (module-wide facts computed once; how
//! thread and process entries are found in `entries`, what they may store to in `writes`),
//! `frames` (calling contexts), `control_flow` (block reachability and edges),
//! `values` (SSA values), `pointers` (address arithmetic, untracked pointers),
//! `call_results` (what calls return), `memory` (the region map),
//! `input_calls` (nondet and named inputs, the nondet call counter), `interference`
//! (values other threads or processes may write), `ports`
//! (SystemC port binding), `start_routines` (thread start routines passed as
//! values: tables, locals, parameters), `process_order`
//! (SystemC waits and notifies, assumptions on the path), `calls` (what a called
//! function's name means), `terms` (SMT-LIB builders) and `query` (the result).

mod call_counts;
mod call_results;
mod calls;
mod control_flow;
mod domain;
mod entries;
mod facts;
mod frames;
mod input_calls;
mod interference;
mod loops;
mod memory;
mod pointers;
mod ports;
mod process_order;
mod query;
mod start_routines;
mod terms;
mod values;
mod writes;

pub use domain::FrameId;
pub use facts::ModuleFacts;
pub use query::{Conjunct, Query};

use crate::error::{AnalysisError, Result};
use crate::inputs::Inputs;
use crate::ir::{Block, Module, Value};
use domain::{Frame, Loc, Sym};
use easy_smt::{Context, SExpr};
use std::collections::{HashMap, HashSet};

/// The analysis of one site: builds its reachability formula.
///
/// The maps below are memos keyed by frame, each filled by the file named, because the
/// backward walk reaches the same value, block or location along many paths.
pub struct Wp<'m> {
    m: &'m Module,
    facts: &'m ModuleFacts<'m>,
    /// The solver-less context terms are built in (a solver restart loses none).
    ctx: &'m Context,
    /// Every frame made so far (`frames.rs`); a `FrameId` indexes it.
    frames: Vec<Frame<'m>>,
    /// A value's symbolic form (`values.rs`).
    values: HashMap<(FrameId, Value<'m>), Sym<'m>>,
    /// Values found not modelled, with the reason: a caller that can do without the
    /// value (and swallows the error) would otherwise compute it again, and its
    /// message, on every path that reaches it (a TLM target's method spent its whole
    /// budget so).
    unsupported: HashMap<(FrameId, Value<'m>), String>,
    /// The condition under which a block is entered (`control_flow.rs`).
    reach: HashMap<(FrameId, Block<'m>), SExpr>,
    /// The value of a location just before an instruction (`memory.rs`).
    memory: HashMap<(FrameId, Value<'m>, Loc<'m>), Sym<'m>>,
    /// The named definition of a branch condition (`control_flow.rs`).
    edge_defs: HashMap<(FrameId, Value<'m>), SExpr>,
    /// The count of nondet or getopt calls just before an instruction (`call_counts.rs`).
    call_counts: HashMap<(call_counts::Counted, FrameId, Value<'m>), SExpr>,
    /// Whether a SystemC `wait(e)` returns, per (frame, call) (`process_order.rs`).
    returns: HashMap<(FrameId, Value<'m>), SExpr>,
    /// Frames created to decide whether some process notifies an event: their own
    /// blocking calls are assumed to return (one level of the process-order model).
    notifier_frames: HashSet<FrameId>,
    /// Frames pushed now belong to `notifier_frames` (`process_order.rs`).
    in_notifier: bool,
    /// The formula being built, returned by [`Wp::site`].
    q: Query,
    /// Numbers fresh symbols so their names are unique within the query.
    fresh_count: usize,
    /// The unroll bound, named when a loop cut is reported.
    bound: u32,
    /// Loops are summarised instead of cut (`loops.rs`).
    summarise: bool,
    /// Indirect calls are followed into functions direct calls also reach (`frames.rs`).
    follow_indirect: bool,
    /// Per summarised (frame, loop header): "went round again" (`loops.rs`).
    loops_again: HashMap<(FrameId, Block<'m>), SExpr>,
    /// (frame, header, location) whose loop writes are being decided (`loops.rs`).
    loops_checking: HashSet<(FrameId, Block<'m>, Loc<'m>)>,
    /// "This untracked pointer is null", one boolean per pointer (`pointers.rs`).
    null_tests: HashMap<domain::Base<'m>, SExpr>,
    /// The address of an object as an integer (`ptrtoint`), one free value per object
    /// (`pointers.rs`).
    addresses: HashMap<domain::Base<'m>, SExpr>,
    /// Another writer's stores are being evaluated (`interference.rs`): a value they
    /// read after a synchronization point is not traced to its writers again.
    in_writer: bool,
    /// Other writers' stores found for (location, reader's entry, width read).
    writes: HashMap<(Loc<'m>, Option<crate::ir::Func<'m>>, u32), Vec<interference::Write>>,
    /// Stores of other writers evaluated so far (`interference.rs`).
    traced_stores: usize,
    /// Reads after a synchronization point followed back to the reader's own value.
    own_values: usize,
    /// The time and memory this formula may take (`budget.rs`), checked at each
    /// recursive step of the backward walk.
    meter: crate::budget::Meter,
}

impl<'m> Wp<'m> {
    /// A fresh analysis (per site: definitions are scoped to one solver query).
    pub fn new(m: &'m Module, facts: &'m ModuleFacts<'m>, ctx: &'m Context, bound: u32) -> Self {
        Wp {
            m,
            facts,
            ctx,
            frames: Vec::new(),
            values: HashMap::new(),
            unsupported: HashMap::new(),
            reach: HashMap::new(),
            memory: HashMap::new(),
            edge_defs: HashMap::new(),
            call_counts: HashMap::new(),
            returns: HashMap::new(),
            notifier_frames: HashSet::new(),
            in_notifier: false,
            q: Query {
                inputs: Inputs::default(),
                fresh: Vec::new(),
                definitions: Vec::new(),
                conjuncts: Vec::new(),
                notes: Vec::new(),
                cut: Vec::new(),
                unfollowed: Vec::new(),
                schedule: Vec::new(),
                blocking: Vec::new(),
                summarised: Vec::new(),
                quiet: Vec::new(),
                known_writes: Vec::new(),
            },
            fresh_count: 0,
            bound,
            summarise: false,
            follow_indirect: false,
            loops_again: HashMap::new(),
            loops_checking: HashSet::new(),
            null_tests: HashMap::new(),
            addresses: HashMap::new(),
            in_writer: false,
            writes: HashMap::new(),
            traced_stores: 0,
            own_values: 0,
            meter: crate::budget::Meter::unlimited(),
        }
    }

    /// Builds the formula within `meter`'s time and memory: past them, [`Wp::site`]
    /// returns [`AnalysisError::Budget`].
    pub fn within(mut self, meter: crate::budget::Meter) -> Self {
        self.meter = meter;
        self
    }

    /// Summarises loops not unrolled within the bound instead of cutting their paths
    /// (`loops.rs`); for a site whose formula is unsatisfiable with the cuts.
    pub fn summarising_loops(mut self) -> Self {
        self.summarise = true;
        self
    }

    /// Follows the indirect calls of their type into functions that direct calls also
    /// reach (`frames.rs`); for a site whose formula is unsatisfiable without them.
    pub fn following_indirect_calls(mut self) -> Self {
        self.follow_indirect = true;
        self
    }

    /// Records an over-approximation in the formula's notes, once.
    pub(super) fn note(&mut self, note: String) {
        if !self.q.notes.contains(&note) {
            self.q.notes.push(note);
        }
    }

    /// `value` at each return of `callee` entered from call `j` in frame `f`, with the
    /// condition under which that return is reached (a new frame for the callee).
    pub(super) fn at_returns<T>(
        &mut self,
        f: FrameId,
        j: Value<'m>,
        callee: crate::ir::Func<'m>,
        mut value: impl FnMut(&mut Self, FrameId, Value<'m>) -> Result<T>,
    ) -> Result<Vec<(SExpr, T)>> {
        let depth = self.frames[f].depth + 1;
        let child = self.push_frame(
            callee,
            domain::FrameKind::Call { parent: f, call: j },
            depth,
        );
        let mut arms = Vec::new();
        for b in callee.blocks() {
            let Some(t) = b.terminator() else { continue };
            if t.opcode() != Some(crate::ir::Opcode::LLVMRet) {
                continue;
            }
            let r = self.reach_block(child, b)?;
            arms.push((r, value(self, child, t)?));
        }
        Ok(arms)
    }

    /// The formula under which `site` (a call instruction) is executed.
    pub fn site(mut self, site: Value<'m>) -> Result<Query> {
        let func = site.block().function();
        let contexts = self.contexts(func, 0, &mut Vec::new())?;
        if contexts.is_empty() {
            return Err(AnalysisError::Unsupported(format!(
                "no path from main/sc_main or a thread entry to {}: no direct call chain, thread or process creation, or indirect call of its type reaches it, {}",
                func.name(),
                site.where_()
            )));
        }
        let mut alternatives = Vec::new();
        for frame in contexts {
            let here = self.reach_block(frame, site.block())?;
            let before = self.block_returns(frame, site.block(), Some(site))?;
            let up = self.frame_reach(frame)?;
            alternatives.push(self.and(vec![here, before, up]));
        }
        // One statement per process and assumption, in the order first made.
        let mut seen = HashSet::new();
        self.q.schedule.retain(|s| seen.insert(s.clone()));
        let expr = self.or(alternatives);
        self.q.conjuncts.push(Conjunct {
            comment: format!(
                "the site's block is reached ({} in {})",
                site.where_(),
                demangle_hint(&func.name())
            ),
            expr,
        });
        // argc covers every argv[k] read.
        let argc = self.ctx.atom("argc");
        let max = self.q.inputs.max_index();
        let lo = self.bv_const(max as u64 + 1, 32);
        let hi = self.bv_const(64, 32);
        let c = self.ctx.and(
            self.app("bvuge", vec![argc, lo]),
            self.app("bvule", vec![argc, hi]),
        );
        self.q.conjuncts.push(Conjunct {
            comment: format!("argc covers every argv[k] read (k ≤ {max}), at most 63 arguments"),
            expr: c,
        });
        // At most one literal per compared argument.
        let choices: Vec<Vec<String>> = self
            .q
            .inputs
            .args
            .iter()
            .filter_map(|(k, u)| match u {
                crate::inputs::ArgUse::Choice(l) if l.len() > 1 => Some(
                    l.iter()
                        .map(|l| crate::inputs::choice_symbol(*k, l))
                        .collect(),
                ),
                _ => None,
            })
            .collect();
        for syms in choices {
            for i in 0..syms.len() {
                for j in i + 1..syms.len() {
                    let e = self.ctx.not(
                        self.ctx
                            .and(self.ctx.atom(&syms[i]), self.ctx.atom(&syms[j])),
                    );
                    self.q.conjuncts.push(Conjunct {
                        comment: "one string cannot equal two literals".into(),
                        expr: e,
                    });
                }
            }
        }
        Ok(self.q)
    }
}

/// A short readable form of a mangled name (`_ZN3top2t1Ev` → `top::t1`).
pub fn demangle_hint(name: &str) -> String {
    let Some(rest) = name.strip_prefix("_ZN") else {
        return name.to_string();
    };
    let mut parts = Vec::new();
    let mut s = rest;
    while let Some(d) = s.find(|c: char| !c.is_ascii_digit()) {
        if d == 0 {
            break;
        }
        let n: usize = s[..d].parse().unwrap_or(0);
        if s.len() < d + n {
            break;
        }
        parts.push(&s[d..d + n]);
        s = &s[d + n..];
    }
    if parts.is_empty() {
        name.to_string()
    } else {
        parts.join("::")
    }
}
