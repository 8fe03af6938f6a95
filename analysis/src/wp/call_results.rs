//! The value of a call: what a modelled library or input function returns (integer
//! parsers, string comparisons, `strchr`, `getopt`, nondet and named inputs, the object
//! `operator new` makes), a callee's return value in a frame of its own, and an indirect
//! or virtual call's over the targets it may reach.

use super::calls::{nondet_type, ALLOCATORS, INT_PARSERS};
use super::domain::{Base, FrameId, FrameKind, Loc, Sym, MAX_DEPTH};
use super::values::width;
use super::{demangle_hint, Wp};
use crate::error::{AnalysisError, Result};
use crate::ir::{Func, Opcode, TypeShape, Value};
use easy_smt::SExpr;

/// Most candidate targets a virtual call is followed into (each is analysed as a
/// callee, so the formula grows with their number).
pub(super) const MAX_VIRTUAL_TARGETS: usize = 8;

impl<'m> Wp<'m> {
    /// `strchr(s, c)` where `s` is argv[k] or a literal chosen by a condition: a
    /// non-null pointer (1) when the string contains `c`, null otherwise. What the
    /// pointer points to is not modelled (a load through it is left free).
    fn strchr(&mut self, s: &Sym<'m>, c: u64, at: Value<'m>) -> Result<Option<Sym<'m>>> {
        let c = (c & 0xff) as u8 as char;
        let contains = |wp: &mut Self, k: u32| -> Result<SExpr> {
            if c == '\0' {
                return Ok(wp.ctx.true_());
            }
            let sym = wp.q.inputs.letter(k, c)?;
            Ok(wp.ctx.atom(sym))
        };
        let in_literal = |g: Value<'m>| c == '\0' || g.c_string().is_some_and(|l| l.contains(c));
        let found = match s {
            Sym::ArgStr(k) => contains(self, *k)?,
            Sym::ArgOrLiteral { k, cond, lit } => {
                let arg = contains(self, *k)?;
                let lit = if in_literal(*lit) {
                    self.ctx.true_()
                } else {
                    self.ctx.false_()
                };
                self.ctx.ite(*cond, arg, lit)
            }
            Sym::Ptr(Loc {
                base: Base::Global(g),
                off: 0,
            }) if g.c_string().is_some() => {
                if in_literal(*g) {
                    self.ctx.true_()
                } else {
                    self.ctx.false_()
                }
            }
            _ => return Ok(None),
        };
        self.note(format!(
            "strchr at {} modelled as non-null exactly when the string contains {c:?}",
            at.where_()
        ));
        let (one, zero) = (self.bv_const(1, 64), self.bv_const(0, 64));
        Ok(Some(Sym::Bv(self.ctx.ite(found, one, zero), 64)))
    }

    pub(super) fn call(&mut self, f: FrameId, v: Value<'m>) -> Result<Sym<'m>> {
        match v.called_function() {
            Some(callee) => self.call_to(f, v, callee),
            None => self.indirect_call(f, v),
        }
    }

    /// The result of an indirect call: the called function's when the pointer is
    /// known; with several candidate targets, one of their results, the choice left
    /// to the solver (execution confirms it); with none, an unconstrained result.
    fn indirect_call(&mut self, f: FrameId, v: Value<'m>) -> Result<Sym<'m>> {
        let Some(targets) = self.call_targets(f, v) else {
            self.note(format!(
                "over-approximated: result of the indirect call at {} (its target is not known)",
                v.where_()
            ));
            return self.fresh_or_ptr(v, "result of an indirect call whose target is not known");
        };
        let conds = self.target_choice(v, targets.len());
        let mut arms = Vec::new();
        for (c, t) in conds.into_iter().zip(targets) {
            let r = self.call_to(f, v, t)?;
            arms.push((c, r));
        }
        self.merge(arms, v)
    }

    /// The functions indirect call `call` in frame `f` may reach: the one its pointer
    /// is known to be, else those its vtable slot may hold, if at most
    /// [`MAX_VIRTUAL_TARGETS`]; `None` when not known.
    pub(super) fn call_targets(&mut self, f: FrameId, call: Value<'m>) -> Option<Vec<Func<'m>>> {
        if let Ok(Sym::Func(known)) = self.value(f, call.called_value()) {
            return Some(vec![known]);
        }
        let targets = self.facts.virtual_targets.get(&call)?;
        if targets.len() > MAX_VIRTUAL_TARGETS {
            return None;
        }
        if targets.len() > 1 {
            let names: Vec<String> = targets.iter().map(|t| demangle_hint(&t.name())).collect();
            self.note(format!("over-approximated: the virtual call at {} may reach {} (the object's class is not known)", call.where_(), names.join(", ")));
        }
        Some(targets.clone())
    }

    /// Conditions choosing one of `n` targets of call `at`: a fresh selector when
    /// there are several.
    pub(super) fn target_choice(&mut self, at: Value<'m>, n: usize) -> Vec<SExpr> {
        if n <= 1 {
            return vec![self.ctx.true_(); n];
        }
        let name = format!(
            "target{}_{}",
            self.fresh_count,
            at.where_()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        self.fresh_count += 1;
        self.q
            .fresh
            .push((name.clone(), "(_ BitVec 8)".to_string()));
        let sel = self.ctx.atom(name);
        (0..n)
            .map(|k| {
                if k + 1 == n {
                    self.ctx.true_()
                } else {
                    self.ctx.eq(sel, self.bv_const(k as u64, 8))
                }
            })
            .collect()
    }

    pub(super) fn call_to(
        &mut self,
        f: FrameId,
        v: Value<'m>,
        callee: Func<'m>,
    ) -> Result<Sym<'m>> {
        let name = callee.name();
        let args = v.call_args();
        if INT_PARSERS.contains(&name.as_str()) {
            if let Some(Sym::ArgStr(k)) = args.first().map(|a| self.value(f, *a)).transpose()? {
                let w = width(v)?;
                let sym = self.q.inputs.int(k, w)?;
                if name.starts_with("strto") {
                    if let Some(base) = args.get(2).and_then(|b| b.const_int()) {
                        if base != 10 && base != 0 {
                            return Err(AnalysisError::unsupported(
                                format!("{name} with base {base}: not supported yet"),
                                v.where_(),
                            ));
                        }
                    }
                }
                let e = self.ctx.atom(sym);
                return Ok(Sym::Bv(e, w));
            }
        }
        if name == "strcmp" || name == "strncmp" {
            let a = self.value(f, args[0])?;
            let b = self.value(f, args[1])?;
            let (k, lit) = match (&a, &b) {
                (
                    Sym::ArgStr(k),
                    Sym::Ptr(Loc {
                        base: Base::Global(g),
                        off: 0,
                    }),
                )
                | (
                    Sym::Ptr(Loc {
                        base: Base::Global(g),
                        off: 0,
                    }),
                    Sym::ArgStr(k),
                ) => (*k, g.c_string()),
                _ => (0, None),
            };
            if let Some(lit) = lit {
                if name == "strncmp" {
                    let n = args.get(2).and_then(|n| n.const_int());
                    if n.map(|n| (n as usize) < lit.len() + 1).unwrap_or(true) {
                        return Err(AnalysisError::unsupported(
                            "strncmp of a prefix: not supported yet",
                            v.where_(),
                        ));
                    }
                }
                let sym = self.q.inputs.choice(k, &lit)?;
                self.q.notes.push(format!(
                    "{name}(argv[{k}], \"{lit}\") modelled as 0 when equal, 1 otherwise ({})",
                    v.where_()
                ));
                let eq = self.ctx.atom(sym);
                let zero = self.bv_const(0, 32);
                let one = self.bv_const(1, 32);
                return Ok(Sym::Bv(self.ctx.ite(eq, zero, one), 32));
            }
        }
        if name == "strchr" {
            if let (Some(s), Some(c)) = (args.first(), args.get(1).and_then(|c| c.const_int())) {
                let s = self.value(f, *s)?;
                if let Some(r) = self.strchr(&s, c, v)? {
                    return Ok(r);
                }
            }
        }
        if name == "getopt" {
            if let Some(r) = self.getopt_value(f, v)? {
                return Ok(r);
            }
        }
        if let Some(ty) = nondet_type(callee) {
            return self.nondet_value(f, v, &ty);
        }
        if name == "syncmut_input_int" || name == "syncmut_input_bool" {
            return self.named_input(f, v, &name);
        }
        if callee.has_body() && self.frames[f].depth < MAX_DEPTH {
            return self.return_value(f, v, callee);
        }
        // No body: a fresh, unconstrained result.
        match v.ty().shape() {
            TypeShape::Int(_) => {
                self.q.notes.push(format!(
                    "over-approximated: result of {} at {}",
                    demangle_hint(&name),
                    v.where_()
                ));
                self.fresh(v, "result of a function without a body")
            }
            TypeShape::Pointer if ALLOCATORS.contains(&name.as_str()) => Ok(self.heap_object(f, v)),
            TypeShape::Pointer => Ok(Sym::Ptr(Loc {
                base: Base::Opaque(v),
                off: 0,
            })),
            _ => Err(AnalysisError::unsupported(
                format!("result of {} (`{}`)", demangle_hint(&name), v.print()),
                v.where_(),
            )),
        }
    }

    /// The object `operator new` returns at `call` in frame `f`: memory the region map
    /// tracks like a global's, so the constructor's stores (its vtable pointer, its
    /// fields) are what later loads see and a virtual call on it goes to its class's
    /// method. Along one path of a formula built with loop cuts each call runs at most
    /// once, so one call is one object; when loops are summarised, a call inside a loop
    /// (of its function or of a caller) may have made several, and stays untracked.
    fn heap_object(&mut self, f: FrameId, call: Value<'m>) -> Sym<'m> {
        if self.summarise && self.repeats(f, call) {
            return Sym::Ptr(Loc {
                base: Base::Opaque(call),
                off: 0,
            });
        }
        Sym::Ptr(Loc {
            base: Base::Heap(call, self.call_string(f)),
            off: 0,
        })
    }

    /// A hash of frame `f`'s calling context (the calls and thread creations from its
    /// root), equal for every frame built for the same context.
    fn call_string(&self, mut f: FrameId) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        loop {
            self.frames[f].func.hash(&mut h);
            match &self.frames[f].kind {
                FrameKind::Root => return h.finish(),
                FrameKind::Call { parent, call } => {
                    call.hash(&mut h);
                    f = *parent;
                }
                FrameKind::Thread { creator, point, .. } => {
                    point.hash(&mut h);
                    f = *creator;
                }
            }
        }
    }

    /// Whether instruction `at` of frame `f` may run more than once in its context: it,
    /// or a call or thread creation leading to the frame, lies in a loop.
    fn repeats(&self, mut f: FrameId, at: Value<'m>) -> bool {
        let mut at = at;
        loop {
            let func = self.frames[f].func;
            let b = at.block();
            if self.facts.back[&func]
                .iter()
                .any(|(_, h)| self.loop_body(f, *h).contains(&b))
            {
                return true;
            }
            match &self.frames[f].kind {
                FrameKind::Root => return false,
                FrameKind::Call { parent, call } => (f, at) = (*parent, *call),
                FrameKind::Thread { creator, point, .. } => (f, at) = (*creator, *point),
            }
        }
    }

    pub(super) fn return_value(
        &mut self,
        f: FrameId,
        call: Value<'m>,
        callee: Func<'m>,
    ) -> Result<Sym<'m>> {
        let depth = self.frames[f].depth + 1;
        let child = self.push_frame(callee, FrameKind::Call { parent: f, call }, depth);
        let mut arms = Vec::new();
        for b in callee.blocks() {
            let Some(t) = b.terminator() else { continue };
            if t.opcode() != Some(Opcode::LLVMRet) || t.operand_count() == 0 {
                continue;
            }
            let r = self.reach_block(child, b)?;
            let val = self.value(child, t.operand(0))?;
            arms.push((r, val));
        }
        self.merge(arms, call)
    }
}
