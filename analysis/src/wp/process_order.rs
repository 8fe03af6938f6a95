//! SystemC's fixed process order and the calls a path must get past: a `wait(e)` on
//! the path returns only if another process reaches a notify of `e` that the waiter
//! does not miss, and every `__VERIFIER_assume(c)` on the path has `c` true.

use super::domain::{FrameId, FrameKind, Sym};
use super::{demangle_hint, Wp};
use crate::error::Result;
use crate::ir::{Block, Func, Value};
use easy_smt::SExpr;
use std::collections::HashSet;

impl<'m> Wp<'m> {
    /// The SystemC process (entry function) frame `f` runs in, if any.
    pub(super) fn process_of(&self, mut f: FrameId) -> Option<Func<'m>> {
        loop {
            match &self.frames[f].kind {
                FrameKind::Root => return None,
                FrameKind::Call { parent, .. } => f = *parent,
                FrameKind::Thread { also: Some(_), .. } => return Some(self.frames[f].func),
                FrameKind::Thread { .. } => return None,
            }
        }
    }

    /// The condition under which execution gets past the calls of block `b` of frame
    /// `f` (before `upto`, if given): every `__VERIFIER_assume(c)` has `c` true, and
    /// every SystemC `wait(e)` returns.
    pub(super) fn block_returns(
        &mut self,
        f: FrameId,
        b: Block<'m>,
        upto: Option<Value<'m>>,
    ) -> Result<SExpr> {
        let waits_modelled = !self.notifier_frames.contains(&f) && self.process_of(f).is_some();
        let mut parts = Vec::new();
        for i in b.instructions() {
            if Some(i) == upto {
                break;
            }
            let Some(callee) = i.called_function() else {
                continue;
            };
            let name = callee.name();
            if name == "__VERIFIER_assume" && !callee.has_body() {
                let (c, w) = self.bv(f, i.call_args()[0])?;
                let zero = self.bv_const(0, w);
                parts.push(self.ctx.not(self.ctx.eq(c, zero)));
            } else if let Some(k) = self
                .facts
                .effects
                .waited_event(i)
                .filter(|_| waits_modelled)
            {
                parts.push(self.wait_returns(f, i, k)?);
            }
        }
        Ok(self.and(parts))
    }

    /// Whether the process position of `call` is its first activation: no call where
    /// the process may yield lies on any path from the process entry to it. `None`
    /// when `call` is not in the process's entry function.
    pub(super) fn first_activation(&self, process: Func<'m>, call: Value<'m>) -> Option<bool> {
        let func = call.block().function();
        if func != process {
            return None;
        }
        let yields = |i: &Value<'m>| self.facts.effects.may_yield(*i);
        let insts = call.block().instructions();
        let pos = insts.iter().position(|i| *i == call).unwrap_or(0);
        if insts[..pos].iter().any(yields) {
            return Some(false);
        }
        let preds = &self.facts.preds[&func];
        let mut todo = preds.get(&call.block()).cloned().unwrap_or_default();
        let mut seen = HashSet::new();
        while let Some(p) = todo.pop() {
            if !seen.insert(p) {
                continue;
            }
            if p.instructions().iter().any(yields) {
                return Some(false);
            }
            todo.extend(preds.get(&p).cloned().unwrap_or_default());
        }
        Some(true)
    }

    /// When `wait(e)` (call `w`, event argument `k`) in frame `f` returns: some other
    /// process reaches a notify of the same event that the waiter does not miss. Under
    /// the kernel's fixed order, an immediate notify made in the notifier's first
    /// activation is missed by a waiter that starts waiting later (a process after it
    /// in the registration order, or a wait after a yield).
    pub(super) fn wait_returns(&mut self, f: FrameId, w: Value<'m>, k: usize) -> Result<SExpr> {
        if let Some(e) = self.returns.get(&(f, w)) {
            return Ok(*e);
        }
        let waiter = self
            .process_of(f)
            .expect("block_returns checked the frame is in a process");
        let event = match w
            .call_args()
            .get(k)
            .map(|a| self.value(f, *a))
            .transpose()?
        {
            Some(Sym::Ptr(loc)) => loc,
            _ => {
                self.q.schedule.push(format!(
                    "wait at {}: event not identified; assumed to return",
                    w.where_()
                ));
                return Ok(self.ctx.true_());
            }
        };
        let saved = self.in_notifier;
        self.in_notifier = true;
        let mut alts = Vec::new();
        let mut why = Vec::new();
        for n in self.facts.notifies.clone() {
            let Some((event_arg, immediate)) = self.facts.effects.notified_event(n) else {
                continue;
            };
            let contexts = self.contexts(n.block().function(), 0, &mut Vec::new())?;
            for nf in contexts {
                let Some(notifier) = self.process_of(nf) else {
                    continue;
                };
                if notifier == waiter {
                    continue;
                }
                if !matches!(n.call_args().get(event_arg).map(|a| self.value(nf, *a)), Some(Ok(Sym::Ptr(l))) if l == event)
                {
                    continue;
                }
                let order = |p: Func<'m>| self.facts.process_order.get(&p).copied();
                let lost = immediate
                    && self.first_activation(notifier, n) == Some(true)
                    && match self.first_activation(waiter, w) {
                        Some(false) => true,
                        Some(true) => {
                            matches!((order(notifier), order(waiter)), (Some((c1, i1)), Some((c2, i2))) if c1 == c2 && i1 < i2)
                        }
                        None => false,
                    };
                if lost {
                    why.push(format!(
                        "the immediate notify at {} runs before {} waits (process order)",
                        n.where_(),
                        demangle_hint(&waiter.name())
                    ));
                    continue;
                }
                let here = self.reach_block(nf, n.block())?;
                let up = self.frame_reach(nf)?;
                alts.push(self.and(vec![here, up]));
                why.push(format!(
                    "notify at {} in {}",
                    n.where_(),
                    demangle_hint(&notifier.name())
                ));
            }
        }
        self.in_notifier = saved;
        let e = self.or(alts);
        let label = format!(
            "wait at {} in {} returns only if another process notifies the event after it waits: {}; the notifier's own blocking calls are assumed to return",
            w.where_(),
            demangle_hint(&waiter.name()),
            if why.is_empty() { "no notify of that event (the wait blocks forever)".to_string() } else { why.join("; ") }
        );
        self.q.schedule.push(label);
        self.q.blocking.push(w.where_());
        self.returns.insert((f, w), e);
        Ok(e)
    }
}
