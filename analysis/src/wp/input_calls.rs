//! Inputs read through calls: `__VERIFIER_nondet_<type>()` reads the test's nondet list
//! at the position given by the number of nondet calls before it on the path (a
//! symbolic call counter walked backwards like memory), and `syncmut_input_*` reads one
//! named input within the range it is read with. `getopt(argc, argv, "…")` returns the
//! option at a position of the option list, counted the same way (`getopt_before`):
//! argv is then the words of the options the model chooses.

use super::calls::nondet_type;
use super::frames::{FrameId, FrameKind, MAX_DEPTH};
use super::memory::{Base, Loc};
use super::query::Conjunct;
use super::values::Sym;
use super::Wp;
use crate::error::{AnalysisError, Result};
use crate::ir::{TypeShape, Value};
use easy_smt::SExpr;

impl<'m> Wp<'m> {
    /// `__VERIFIER_nondet_<ty>()`: the value at the list position given by the call
    /// counter just before the call (see `inputs`).
    pub(super) fn nondet_value(&mut self, f: FrameId, v: Value<'m>, ty: &str) -> Result<Sym<'m>> {
        let TypeShape::Int(w) = v.ty().shape() else {
            return Err(AnalysisError::unsupported(format!("__VERIFIER_nondet_{ty}() (only integer types are modelled)"), v.where_()));
        };
        if w > 64 {
            return Err(AnalysisError::unsupported(format!("__VERIFIER_nondet_{ty}() of {w} bits (at most 64 are modelled)"), v.where_()));
        }
        let position = self.counter_before(f, v)?;
        let i = self.q.inputs.nondet_call(ty, w);
        let idx = self.ctx.atom(crate::inputs::nondet_index_symbol(i));
        let val = self.ctx.atom(crate::inputs::nondet_value_symbol(i));
        let limit = self.bv_const(crate::inputs::MAX_NONDET as u64, 32);
        let e = self.ctx.and(self.ctx.eq(idx, position), self.app("bvult", vec![idx, limit]));
        self.q.conjuncts.push(Conjunct {
            comment: format!("__VERIFIER_nondet_{ty}() at {} reads the value at list position ndi{i} (the calls before it on the path)", v.where_()),
            expr: e,
        });
        for j in 0..i {
            let other_idx = self.ctx.atom(crate::inputs::nondet_index_symbol(j));
            let other_val = self.ctx.atom(crate::inputs::nondet_value_symbol(j));
            let same = self.ctx.imp(self.ctx.eq(idx, other_idx), self.ctx.eq(val, other_val));
            self.q.conjuncts.push(Conjunct { comment: format!("one list position holds one value (nd{i}, nd{j})"), expr: same });
        }
        let e = if w == 64 { val } else { self.ctx.extract(w as i32 - 1, 0, val) };
        Ok(Sym::Bv(e, w))
    }

    /// `syncmut_input_int(name, lo, hi)` / `syncmut_input_bool(name)`: one symbol per
    /// name, within the range it is read with.
    pub(super) fn named_input(&mut self, f: FrameId, v: Value<'m>, func: &str) -> Result<Sym<'m>> {
        let args = v.call_args();
        let name = match args.first().map(|a| self.value(f, *a)).transpose()? {
            Some(Sym::Ptr(Loc { base: Base::Global(g), off: 0 })) => g.c_string(),
            _ => None,
        };
        let Some(name) = name else {
            return Err(AnalysisError::unsupported(format!("{func} with a name that is not a string literal"), v.where_()));
        };
        let range = if func == "syncmut_input_bool" {
            Some((0, 1))
        } else {
            args.get(1).and_then(|a| a.const_int_signed()).zip(args.get(2).and_then(|a| a.const_int_signed()))
        };
        let sym = self.q.inputs.named_input(&name, range)?;
        let x = self.ctx.atom(sym);
        let (lo, hi) = if func == "syncmut_input_bool" {
            (self.bv_const(0, 32), self.bv_const(1, 32))
        } else {
            let (lo, _) = self.bv(f, args[1])?;
            let (hi, _) = self.bv(f, args[2])?;
            (lo, hi)
        };
        let e = self.ctx.and(self.app("bvsle", vec![lo, x]), self.app("bvsle", vec![x, hi]));
        self.q.conjuncts.push(Conjunct { comment: format!("named input \"{name}\" within its range ({})", v.where_()), expr: e });
        Ok(Sym::Bv(x, 32))
    }

    /// The number of nondet calls made before instruction `at` of frame `f` (32 bits).
    pub(super) fn counter_before(&mut self, f: FrameId, at: Value<'m>) -> Result<SExpr> {
        if let Some(e) = self.counters.get(&(f, at)) {
            return Ok(*e);
        }
        let e = self.counter_before_uncached(f, at)?;
        self.counters.insert((f, at), e);
        Ok(e)
    }

    pub(super) fn counter_before_uncached(&mut self, f: FrameId, at: Value<'m>) -> Result<SExpr> {
        let b = at.block();
        let insts = b.instructions();
        let pos = insts.iter().position(|i| *i == at).unwrap_or(insts.len());
        if let Some(j) = insts[..pos].iter().rev().find(|j| self.counts_nondet(f, **j)) {
            return self.counter_after(f, *j);
        }
        let func = self.frames[f].func;
        if func.entry() == Some(b) {
            return match self.frames[f].kind.clone() {
                FrameKind::Root => Ok(self.bv_const(0, 32)),
                FrameKind::Call { parent, call } => self.counter_before(parent, call),
                FrameKind::Thread { .. } if self.facts.concurrent_nondet => Ok(self.unknown_counter(at, "at the entry of a thread or process")),
                FrameKind::Thread { creator, point, .. } => self.counter_before(creator, point),
            };
        }
        let mut arms = Vec::new();
        for (p, taken) in self.incoming(f, b)? {
            let t = p.terminator().expect("predecessor has a terminator");
            let val = if self.counts_nondet(f, t) { self.counter_after(f, t)? } else { self.counter_before(f, t)? };
            arms.push((taken, val));
        }
        let Some(acc) = self.ite_arms(arms) else {
            return Ok(self.unknown_counter(at, "on a path cut by the loop bound"));
        };
        if self.summarised_header(f, b) {
            return Ok(self.summarise_counter(f, b, at, acc));
        }
        Ok(acc)
    }

    /// Whether call `j` may change the nondet call counter.
    pub(super) fn counts_nondet(&self, f: FrameId, j: Value<'m>) -> bool {
        let Some(callee) = j.called_function() else { return false };
        if nondet_type(callee).is_some() || self.facts.nondet_callers.contains(&callee) {
            return true;
        }
        self.facts.concurrent_nondet && self.facts.effects.is_scheduling_point(j) && (self.in_thread(f) || self.facts.effects.starts_threads(j))
    }

    /// The counter just after call `j` (one that [`Self::counts_nondet`]).
    pub(super) fn counter_after(&mut self, f: FrameId, j: Value<'m>) -> Result<SExpr> {
        let callee = j.called_function().expect("counts_nondet checked the callee");
        if nondet_type(callee).is_some() {
            let before = self.counter_before(f, j)?;
            let one = self.bv_const(1, 32);
            return Ok(self.app("bvadd", vec![before, one]));
        }
        if !self.facts.nondet_callers.contains(&callee) || !callee.has_body() || self.frames[f].depth >= MAX_DEPTH {
            return Ok(self.unknown_counter(j, "after a synchronization point (other threads may call __VERIFIER_nondet_*)"));
        }
        let arms = self.at_returns(f, j, callee, |wp, child, ret| wp.counter_before(child, ret))?;
        match self.ite_arms(arms) {
            Some(acc) => Ok(acc),
            None => Ok(self.unknown_counter(j, "after a call that does not return")),
        }
    }

    /// The value of the first arm whose condition holds, the last arm's otherwise (as
    /// `ite(c1, v1, ite(c2, v2, … vn))`); `None` without arms.
    fn ite_arms(&self, mut arms: Vec<(SExpr, SExpr)>) -> Option<SExpr> {
        let (_, mut acc) = arms.pop()?;
        for (c, v) in arms.into_iter().rev() {
            acc = self.ctx.ite(c, v, acc);
        }
        Some(acc)
    }

    /// A fresh counter value, with a note: the positions a formula then picks for its
    /// nondet calls are a guess that execution confirms or not.
    pub(super) fn unknown_counter(&mut self, at: Value<'m>, why: &str) -> SExpr {
        let name = format!("ndcount{}_{}", self.fresh_count, at.where_().replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
        self.fresh_count += 1;
        self.q.fresh.push((name.clone(), "(_ BitVec 32)".to_string()));
        self.note(format!("over-approximated: number of __VERIFIER_nondet_* calls made {why} at {}", at.where_()));
        self.ctx.atom(name)
    }

    /// `getopt(argc, argv, optstring)` on main's arguments with a literal option
    /// string: the option at list position `goi<i>` (the getopt calls before it on the
    /// path), one of the values getopt may return; equal positions return equal
    /// values, and after a -1 every later position is -1. `None` when the arguments
    /// are not those (the result is then left free by the caller).
    pub(super) fn getopt_value(&mut self, f: FrameId, v: Value<'m>) -> Result<Option<Sym<'m>>> {
        let args = v.call_args();
        let argc = match args.first().map(|a| self.value(f, *a)).transpose()? {
            Some(Sym::Bv(e, 32)) => matches!(self.ctx.get(e), easy_smt::SExprData::Atom("argc")),
            _ => false,
        };
        let argv = matches!(args.get(1).map(|a| self.value(f, *a)).transpose()?, Some(Sym::Ptr(Loc { base: Base::Argv, off: 0 })));
        let optstring = match args.get(2).map(|a| self.value(f, *a)).transpose()? {
            Some(Sym::Ptr(Loc { base: Base::Global(g), off: 0 })) => g.c_string(),
            _ => None,
        };
        let (true, true, Some(optstring)) = (argc, argv, optstring) else { return Ok(None) };
        let i = match self.q.inputs.getopt_call(&optstring) {
            Ok(i) => i,
            Err(AnalysisError::Unsupported(why)) => return Err(AnalysisError::unsupported(why, v.where_())),
            Err(e) => return Err(e),
        };
        let position = self.getopt_before(f, v)?;
        let idx = self.ctx.atom(crate::inputs::getopt_position_symbol(i));
        let val = self.ctx.atom(crate::inputs::getopt_value_symbol(i));
        let returns: Vec<SExpr> = crate::inputs::getopt_returns(&optstring).into_iter().map(|r| self.ctx.eq(val, self.bv_const(r as u64 & 0xffff_ffff, 32))).collect();
        let limit = self.bv_const(64, 32);
        let e = self.and(vec![self.ctx.eq(idx, position), self.app("bvult", vec![idx, limit]), self.or(returns)]);
        self.q.conjuncts.push(Conjunct { comment: format!("getopt(argc, argv, \"{optstring}\") at {} returns the option at list position goi{i}", v.where_()), expr: e });
        let end = self.bv_const(0xffff_ffff, 32);
        for j in 0..i {
            let (oi, ov) = (self.ctx.atom(crate::inputs::getopt_position_symbol(j)), self.ctx.atom(crate::inputs::getopt_value_symbol(j)));
            let same = self.ctx.imp(self.ctx.eq(idx, oi), self.ctx.eq(val, ov));
            let after = self.ctx.imp(self.ctx.and(self.app("bvult", vec![oi, idx]), self.ctx.eq(ov, end)), self.ctx.eq(val, end));
            let before = self.ctx.imp(self.ctx.and(self.app("bvult", vec![idx, oi]), self.ctx.eq(val, end)), self.ctx.eq(ov, end));
            self.q.conjuncts.push(Conjunct { comment: format!("one list position holds one option, and none follows the end (go{i}, go{j})"), expr: self.and(vec![same, after, before]) });
        }
        Ok(Some(Sym::Bv(val, 32)))
    }

    /// The number of `getopt` calls made before instruction `at` of frame `f` (32
    /// bits), walked backwards like the nondet counter; unknown (a fresh value, noted)
    /// in a thread, after a call into a function that calls getopt, on a path cut by
    /// the loop bound, or in a summarised loop that calls it.
    pub(super) fn getopt_before(&mut self, f: FrameId, at: Value<'m>) -> Result<SExpr> {
        if let Some(e) = self.getopt_counters.get(&(f, at)) {
            return Ok(*e);
        }
        let e = self.getopt_before_uncached(f, at)?;
        self.getopt_counters.insert((f, at), e);
        Ok(e)
    }

    fn getopt_before_uncached(&mut self, f: FrameId, at: Value<'m>) -> Result<SExpr> {
        let b = at.block();
        let insts = b.instructions();
        let pos = insts.iter().position(|i| *i == at).unwrap_or(insts.len());
        if let Some(j) = insts[..pos].iter().rev().find(|j| calls_getopt(**j)) {
            return self.getopt_after(f, *j);
        }
        if self.frames[f].func.entry() == Some(b) {
            return match self.frames[f].kind.clone() {
                FrameKind::Root => Ok(self.bv_const(0, 32)),
                FrameKind::Call { parent, call } => self.getopt_before(parent, call),
                FrameKind::Thread { .. } => Ok(self.unknown_getopt_count(at, "in a thread or process")),
            };
        }
        let mut arms = Vec::new();
        for (p, taken) in self.incoming(f, b)? {
            let t = p.terminator().expect("predecessor has a terminator");
            let val = if calls_getopt(t) { self.getopt_after(f, t)? } else { self.getopt_before(f, t)? };
            arms.push((taken, val));
        }
        let Some(acc) = self.ite_arms(arms) else {
            return Ok(self.unknown_getopt_count(at, "on a path cut by the loop bound"));
        };
        if self.summarised_header(f, b) && self.loop_body(f, b).iter().any(|block| block.instructions().into_iter().any(calls_getopt)) {
            let again = self.again(f, b);
            let later = self.unknown_getopt_count(at, "in a summarised loop");
            return Ok(self.ctx.ite(again, later, acc));
        }
        Ok(acc)
    }

    /// The getopt counter just after call `j`, one that [`calls_getopt`].
    fn getopt_after(&mut self, f: FrameId, j: Value<'m>) -> Result<SExpr> {
        if j.called_function().is_some_and(|c| c.name() == "getopt") {
            let before = self.getopt_before(f, j)?;
            return Ok(self.app("bvadd", vec![before, self.bv_const(1, 32)]));
        }
        Ok(self.unknown_getopt_count(j, "after a call into a function that calls getopt"))
    }

    fn unknown_getopt_count(&mut self, at: Value<'m>, why: &str) -> SExpr {
        let name = format!("gocount{}_{}", self.fresh_count, at.where_().replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
        self.fresh_count += 1;
        self.q.fresh.push((name.clone(), "(_ BitVec 32)".to_string()));
        self.note(format!("over-approximated: number of getopt calls made {why} at {}", at.where_()));
        self.ctx.atom(name)
    }
}

/// Whether call `j` may call `getopt`: directly, or a function with a body that calls
/// it (one level; deeper helpers are not looked into).
fn calls_getopt(j: Value<'_>) -> bool {
    let Some(callee) = j.called_function() else { return false };
    callee.name() == "getopt"
        || (callee.has_body() && callee.blocks().into_iter().any(|b| b.instructions().into_iter().any(|i| i.called_function().is_some_and(|c| c.name() == "getopt"))))
}
