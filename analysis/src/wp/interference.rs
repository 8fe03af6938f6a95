//! Values other threads or processes may write: whether another writer may store to a
//! location read after a synchronization point (per writer, `facts.rs`), and the value
//! read then: the reader's own last value, a value one of the other writers' stores
//! traced in its own context wrote, or any value.

use super::domain::{Base, FrameId, Loc, Sym};
use super::facts::ModuleFacts;
use super::writes::Target;
use super::Wp;
use crate::error::{AnalysisError, Result};
use crate::ir::{Opcode, TypeShape, Value};
use easy_smt::SExpr;

/// Most stores of other writers traced for one read (each is evaluated in every
/// context of its function).
const MAX_WRITER_STORES: usize = 4;

/// Most stores of other writers evaluated for one formula: each is evaluated in
/// fresh frames of its function, which is what a formula with many reads of shared
/// memory after many synchronization points would multiply.
const MAX_TRACED_STORES: usize = 16;

/// Most reads after a synchronization point followed back to the reader's own value
/// in one formula ([`Wp::may_trace_own`]).
const MAX_OWN_VALUES: usize = 32;

/// A store of another writer that may have left the value read: the condition that
/// it runs, the value it stores, and where it is.
#[derive(Clone)]
pub(super) struct Write {
    runs: SExpr,
    value: SExpr,
    at: String,
}

impl<'m> Wp<'m> {
    /// Whether code running while frame `f` runs (another thread or process, or the
    /// kernel's update of a channel) may store to `loc`, read by `load`: a global
    /// another writer stores to, or a field (read as `this->level`) one stores to.
    pub(super) fn written_by_others(&self, f: FrameId, loc: Loc<'m>, load: Value<'m>) -> bool {
        let Some(target) = self.target(loc, load) else {
            return false;
        };
        self.facts.written_by_others(self.thread_entry(f), &target)
    }

    /// Whether another thread or process may store to `loc`, read by `load` as the
    /// SystemC process of frame `f` starts, before it starts: one that first runs
    /// before it ([`ModuleFacts::starts_after`]), unless it is a process that stores
    /// there only after its own first wait, when the reader runs with the first round.
    pub(super) fn written_before_start(&self, f: FrameId, loc: Loc<'m>, load: Value<'m>) -> bool {
        let (Some(target), Some(reader)) = (self.target(loc, load), self.thread_entry(f)) else {
            return false;
        };
        let first_round = !self.facts.late_starts.contains(&reader);
        self.facts.entry_writes.iter().any(|(writer, written)| {
            if *writer == reader && self.facts.single_instance.contains(writer) {
                return false;
            }
            let Some(written) = written else { return true };
            if !written.contains(&target) || self.facts.starts_after(*writer, reader) {
                return false;
            }
            let process = self.facts.process_order.contains_key(writer);
            let after_first_wait = |s: &Value<'m>| {
                !ModuleFacts::stores_to(*s, &target)
                    || self.first_activation(*writer, *s) == Some(false)
            };
            let known = matches!(target, Target::Global(_) | Target::Field(_));
            !(first_round && process && known && written.stores.iter().all(after_first_wait))
        })
    }

    /// What the write sets name for `loc` read by `load`; `None` when no process
    /// writes it (a vtable pointer, a SystemC interface member).
    fn target(&self, loc: Loc<'m>, load: Value<'m>) -> Option<Target<'m>> {
        if load.is_vtable_pointer_load() {
            return None;
        }
        let field = || {
            (load.opcode() == Some(Opcode::LLVMLoad))
                .then(|| ModuleFacts::field_key_of(load.operand(0)))
                .flatten()
        };
        match loc.base {
            Base::Global(g) => Some(Target::Global(g)),
            Base::Alloca(_, slot) if self.facts.shared_slots.contains(&slot) => {
                Some(Target::Slot(slot, field()))
            }
            _ if load.opcode() != Some(Opcode::LLVMLoad) => Some(Target::Unknown),
            _ => ModuleFacts::field_target(load.operand(0)),
        }
    }

    /// Whether some process (an SC_METHOD's own earlier activations included) may store
    /// to `loc` between `sc_start` and an activation.
    pub(super) fn written_at_activation(&self, loc: Loc<'m>, load: Value<'m>) -> bool {
        self.target(loc, load)
            .is_some_and(|t| self.facts.written_by_any(&t))
    }

    /// Whether `load` reads a field the SystemC kernel updates (a signal's value).
    pub(super) fn kernel_updated(&self, load: Value<'m>) -> bool {
        load.opcode() == Some(Opcode::LLVMLoad) && ModuleFacts::kernel_field(load.operand(0))
    }

    /// Whether a read after a synchronization point may be followed back to the
    /// reader's own last value: an integer the reader itself never stores to (its own
    /// last value is then the one it started with, e.g. a member set from argv), and
    /// fewer than [`MAX_OWN_VALUES`] followed in this formula. Memory the reader also
    /// updates (a shared counter in a loop of waits) is any value, as it always may
    /// be: following it back through every earlier synchronization point multiplies
    /// the formula past what the solver answers in time.
    pub(super) fn may_trace_own(&mut self, f: FrameId, loc: Loc<'m>, load: Value<'m>) -> bool {
        if !matches!(load.ty().shape(), TypeShape::Int(_)) || self.own_values >= MAX_OWN_VALUES {
            return false;
        }
        let Some(target) = self.target(loc, load) else {
            return false;
        };
        if self.facts.written_by_self(self.thread_entry(f), &target) {
            return false;
        }
        self.own_values += 1;
        true
    }

    /// The stores of other threads or processes that write exactly `loc` (the same
    /// object and offset, evaluated in the writer's own context), read by `load` in
    /// frame `f`, with the condition that each runs. Not traced again from within
    /// such a store's evaluation, and a store whose address or value the analysis
    /// cannot evaluate is left out: "any value" stays possible beside them.
    pub(super) fn other_writes(&mut self, f: FrameId, loc: Loc<'m>, load: Value<'m>) -> Vec<Write> {
        if self.in_writer || !matches!(load.ty().shape(), TypeShape::Int(_)) {
            return Vec::new();
        }
        let Some(target) = self.target(loc, load) else {
            return Vec::new();
        };
        let reader = self.thread_entry(f);
        let TypeShape::Int(width) = load.ty().shape() else {
            return Vec::new();
        };
        if let Some(known) = self.writes.get(&(loc, reader, width)) {
            return known.clone();
        }
        let stores = self.facts.stores_by_others(reader, &target);
        self.in_writer = true;
        let mut writes = Vec::new();
        for s in stores.into_iter().take(MAX_WRITER_STORES) {
            if self.traced_stores >= MAX_TRACED_STORES {
                self.note(format!("stores of other threads traced for at most {MAX_TRACED_STORES} reads a formula: later reads of shared memory are any value"));
                break;
            }
            self.traced_stores += 1;
            let contexts = self
                .contexts(s.block().function(), 0, &mut Vec::new())
                .unwrap_or_default();
            for nf in contexts {
                let writer = self.thread_entry(nf);
                if writer.is_none()
                    || (writer == reader
                        && self
                            .facts
                            .single_instance
                            .contains(&writer.expect("checked")))
                {
                    continue;
                }
                if let Ok(Some(w)) = self.write_in(nf, s, loc, load) {
                    writes.push(w);
                }
            }
        }
        self.in_writer = false;
        self.writes.insert((loc, reader, width), writes.clone());
        writes
    }

    /// Store `s` in frame `nf` as a [`Write`] of `loc`, if it writes exactly there.
    fn write_in(
        &mut self,
        nf: FrameId,
        s: Value<'m>,
        loc: Loc<'m>,
        load: Value<'m>,
    ) -> Result<Option<Write>> {
        if !matches!(self.value(nf, s.operand(1))?, Sym::Ptr(l) if l == loc) {
            return Ok(None);
        }
        let Sym::Bv(value, _) = self
            .value(nf, s.operand(0))
            .and_then(|v| self.fit(v, load))?
        else {
            return Ok(None);
        };
        let here = self.reach_block(nf, s.block())?;
        let before = self.block_returns(nf, s.block(), Some(s))?;
        let up = self.frame_reach(nf)?;
        Ok(Some(Write {
            runs: self.and(vec![here, before, up]),
            value,
            at: s.where_(),
        }))
    }

    /// A value read after another thread or process may have run: `own` (the reader's
    /// own last value: nobody else wrote in between), the value one of `writes` stored
    /// (if that store runs), or any value, chosen by a fresh selector. The solver tries
    /// the reader's own value first ([`Query::quiet`](super::Query::quiet)), then a
    /// traced store's; a pointer is left free.
    pub(super) fn own_or_any(
        &mut self,
        own: Sym<'m>,
        load: Value<'m>,
        why: &str,
        writes: Vec<Write>,
    ) -> Result<Sym<'m>> {
        let TypeShape::Int(w) = load.ty().shape() else {
            self.note(format!("over-approximated: {why}"));
            return self.fresh_or_ptr(load, why);
        };
        let stores: Vec<&str> = writes.iter().map(|w| w.at.as_str()).collect();
        let traced = if stores.is_empty() {
            String::new()
        } else {
            format!(", the value stored at {}", stores.join(", "))
        };
        self.note(format!("over-approximated: {why}: the reader's own last value (tried first){traced}, or any value"));
        let Sym::Bv(any, _) =
            self.fresh(load, "a value another thread or process may have written")?
        else {
            return Err(AnalysisError::unsupported(
                "a value another writer left that is not an integer",
                load.where_(),
            ));
        };
        let Sym::Bv(own, _) = self.fit(own, load)? else {
            return Err(AnalysisError::unsupported(
                format!(
                    "a value read after a synchronization point that is not an integer (`{}`)",
                    load.print()
                ),
                load.where_(),
            ));
        };
        let name = format!(
            "written{}_{}",
            self.fresh_count,
            load.where_()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        self.fresh_count += 1;
        self.q
            .fresh
            .push((name.clone(), "(_ BitVec 8)".to_string()));
        let source = self.ctx.atom(name);
        let is = |wp: &Self, k: usize| wp.ctx.eq(source, wp.bv_const(k as u64, 8));
        self.q.quiet.push(is(self, 0));
        let known = self.app("bvule", vec![source, self.bv_const(writes.len() as u64, 8)]);
        self.q.known_writes.push(known);
        let mut value = any;
        for (k, write) in writes.iter().enumerate().rev() {
            let chosen = is(self, k + 1);
            value = self.ctx.ite(chosen, write.value, value);
            let runs = self.ctx.imp(chosen, write.runs);
            self.q.conjuncts.push(super::Conjunct {
                comment: format!(
                    "the value read at {} is the one stored at {} only if that store runs",
                    load.where_(),
                    write.at
                ),
                expr: runs,
            });
        }
        Ok(Sym::Bv(self.ctx.ite(is(self, 0), own, value), w))
    }
}
