//! Memory as a region map: a location is a base (global, stack slot of a frame, `argv`,
//! memory behind a library pointer) plus a byte offset. A load's value is the last
//! store to its location found walking backwards (through callees that may write it,
//! into the creator at a thread's entry), merged over predecessors like a phi.

use super::domain::{Base, FrameId, FrameKind, Loc, Sym, MAX_DEPTH};
use super::Wp;
use crate::error::{AnalysisError, Result};
use crate::ir::{Opcode, TypeShape, Value};
use easy_smt::SExpr;

/// Most elements a load through a symbolic index is expanded over.
pub(super) const MAX_ELEMENTS: usize = 256;

impl<'m> Wp<'m> {
    pub(super) fn load(&mut self, f: FrameId, v: Value<'m>) -> Result<Sym<'m>> {
        let p = self.value(f, v.operand(0))?;
        if let Sym::PtrIdx { loc, idx, stride } = p {
            return self.load_indexed(f, v, loc, idx, stride);
        }
        if let Sym::Bv(..) = p {
            // An address left free (a pointer that differs between paths or targets,
            // or one computed from an integer): its memory is not modelled.
            self.note(format!(
                "over-approximated: value loaded at {} through an address the analysis leaves free",
                v.where_()
            ));
            return self.fresh_or_ptr(v, "memory behind an address the analysis leaves free");
        }
        let Sym::Ptr(loc) = p else {
            return Err(AnalysisError::unsupported(
                format!("load through {} (`{}`)", p.describe(), v.print()),
                v.where_(),
            ));
        };
        if loc.base == Base::Argv {
            if loc.off % 8 != 0 {
                return Err(AnalysisError::unsupported(
                    "unaligned argv access",
                    v.where_(),
                ));
            }
            return Ok(Sym::ArgStr((loc.off / 8) as u32));
        }
        // A constant global (a vtable, a string) holds its initializer all along.
        if let Base::Global(g) = loc.base {
            if g.is_constant_global() {
                return self.initial(g, loc.off, v);
            }
        }
        if let Base::Opaque(_) = loc.base {
            return self.fresh_or_ptr(v, "memory behind a pointer returned by a library function");
        }
        self.before(f, v, loc, v)
    }

    /// A load through a symbolic index: `ite(idx = o₁ − off, value at o₁, ite(…,
    /// unconstrained))` over every in-bounds element of the object.
    pub(super) fn load_indexed(
        &mut self,
        f: FrameId,
        v: Value<'m>,
        loc: Loc<'m>,
        idx: SExpr,
        stride: u64,
    ) -> Result<Sym<'m>> {
        let size = match loc.base {
            Base::Global(g) => self.m.alloc_size(g.global_value_type()),
            Base::Alloca(_, a) => self.m.alloc_size(a.allocated_type()),
            Base::Opaque(_) => {
                return self
                    .fresh_or_ptr(v, "memory behind a pointer returned by a library function")
            }
            Base::Heap(call, _) => match call.call_args().first().and_then(|n| n.const_int()) {
                Some(n) => n,
                None => {
                    return self
                        .fresh_or_ptr(v, "memory of an object whose size is computed at run time")
                }
            },
            Base::Argv => {
                return Err(AnalysisError::unsupported(
                    "argv indexed by a value computed at run time",
                    v.where_(),
                ))
            }
        } as i64;
        let width = self.m.alloc_size(v.ty()) as i64;
        let stride = stride as i64;
        // Element offsets o = off + k·stride (k may be negative) with 0 ≤ o ≤ size − width.
        let first = loc.off.rem_euclid(stride);
        let offsets: Vec<i64> = (0..)
            .map(|k| first + k * stride)
            .take_while(|o| *o + width <= size)
            .collect();
        if offsets.len() > MAX_ELEMENTS {
            return Err(AnalysisError::unsupported(
                format!("load with a symbolic index over {} elements (at most {MAX_ELEMENTS} are modelled)", offsets.len()),
                v.where_(),
            ));
        }
        let mut arms = Vec::new();
        for o in offsets {
            let at = self.bv_const((o - loc.off) as u64, 64);
            let c = self.ctx.eq(idx, at);
            let val = self.before(
                f,
                v,
                Loc {
                    base: loc.base,
                    off: o,
                },
                v,
            )?;
            arms.push((c, val));
        }
        // Out of bounds: undefined behaviour, any value.
        let otherwise = self.fresh_or_ptr(v, "value read out of the bounds of an array")?;
        arms.push((self.ctx.true_(), otherwise));
        self.merge(arms, v)
    }

    /// Value of `loc` just before instruction `at` in frame `f`; `load` is the load
    /// being resolved (for its type and messages).
    pub(super) fn before(
        &mut self,
        f: FrameId,
        at: Value<'m>,
        loc: Loc<'m>,
        load: Value<'m>,
    ) -> Result<Sym<'m>> {
        if let Some(s) = self.memory.get(&(f, at, loc)) {
            return Ok(s.clone());
        }
        self.meter.check()?;
        let s = crate::budget::deep(|| self.before_uncached(f, at, loc, load))?;
        self.memory.insert((f, at, loc), s.clone());
        Ok(s)
    }

    pub(super) fn before_uncached(
        &mut self,
        f: FrameId,
        at: Value<'m>,
        loc: Loc<'m>,
        load: Value<'m>,
    ) -> Result<Sym<'m>> {
        let b = at.block();
        let insts = b.instructions();
        let pos = insts.iter().position(|i| *i == at).unwrap_or(insts.len());
        for &j in insts[..pos].iter().rev() {
            match j.opcode() {
                Some(Opcode::LLVMStore) => match self.value(f, j.operand(1)) {
                    Ok(Sym::Ptr(l)) if l == loc => {
                        let stored = self.value(f, j.operand(0))?;
                        return self.fit(stored, load);
                    }
                    // A store through a symbolic index writes `loc` when the index
                    // points there; otherwise `loc` keeps its earlier value.
                    Ok(Sym::PtrIdx {
                        loc: l,
                        idx,
                        stride,
                    }) if l.base == loc.base
                        && (loc.off - l.off).rem_euclid(stride as i64) == 0 =>
                    {
                        let stored = self.value(f, j.operand(0))?;
                        let stored = self.fit(stored, load)?;
                        let earlier = self.before(f, j, loc, load)?;
                        let at = self.bv_const((loc.off - l.off) as u64, 64);
                        let hit = self.ctx.eq(idx, at);
                        return self.merge(vec![(hit, stored), (self.ctx.true_(), earlier)], load);
                    }
                    _ => {}
                },
                Some(Opcode::LLVMCall) | Some(Opcode::LLVMInvoke) => {
                    if let Some(s) = self.through_call(f, j, loc, load)? {
                        return Ok(s);
                    }
                }
                // An atomic read-modify-write or compare-and-swap that may write `loc`:
                // its new value is not modelled.
                Some(Opcode::LLVMAtomicRMW) | Some(Opcode::LLVMAtomicCmpXchg) => {
                    let hit = match self.value(f, j.operand(0)) {
                        Ok(Sym::Ptr(l)) => l == loc,
                        Ok(Sym::PtrIdx { loc: l, .. }) => l.base == loc.base,
                        _ => true,
                    };
                    if hit {
                        return self.fresh_or_ptr(
                            load,
                            &format!("memory after the atomic update at {}", j.where_()),
                        );
                    }
                }
                _ => {}
            }
        }
        // Block start: merge over predecessors, or leave the function.
        let func = self.frames[f].func;
        if func.entry() == Some(b) {
            return self.at_entry(f, loc, load);
        }
        let mut arms = Vec::new();
        for (p, taken) in self.incoming(f, b)? {
            let t = p.terminator().expect("predecessor has a terminator");
            // The predecessor's terminator itself may be an invoke that writes.
            let val = match t.opcode() {
                Some(Opcode::LLVMInvoke) => match self.through_call(f, t, loc, load)? {
                    Some(s) => s,
                    None => self.before(f, t, loc, load)?,
                },
                _ => self.before(f, t, loc, load)?,
            };
            arms.push((taken, val));
        }
        let entry = self.merge(arms, load)?;
        if self.summarised_header(f, b) {
            return self.summarise_location(f, b, loc, load, entry);
        }
        Ok(entry)
    }

    /// The effect of call `j` on `loc`: `Some(value after the call)` if it may write it.
    pub(super) fn through_call(
        &mut self,
        f: FrameId,
        j: Value<'m>,
        loc: Loc<'m>,
        load: Value<'m>,
    ) -> Result<Option<Sym<'m>>> {
        if let Some(callee) = j.called_function() {
            return self.through_callee(f, j, callee, loc, load);
        }
        let Some(targets) = self.call_targets(f, j) else {
            return Ok(Some(self.fresh_or_ptr(
                load,
                "memory after an indirect call whose target is not known",
            )?));
        };
        // Each candidate target's effect, one chosen as for the call's result.
        let mut effects = Vec::new();
        for t in &targets {
            effects.push(self.through_callee(f, j, *t, loc, load)?);
        }
        if effects.iter().all(Option::is_none) {
            return Ok(None);
        }
        let conds = self.target_choice(j, targets.len());
        let mut arms = Vec::new();
        for (c, e) in conds.into_iter().zip(effects) {
            let val = match e {
                Some(v) => v,
                None => self.before(f, j, loc, load)?,
            };
            arms.push((c, val));
        }
        Ok(Some(self.merge(arms, load)?))
    }

    /// The effect on `loc` of call `j` entering `callee`.
    fn through_callee(
        &mut self,
        f: FrameId,
        j: Value<'m>,
        callee: crate::ir::Func<'m>,
        loc: Loc<'m>,
        load: Value<'m>,
    ) -> Result<Option<Sym<'m>>> {
        let name = callee.name();
        if name.starts_with("llvm.") {
            if name.starts_with("llvm.memset") {
                return self.through_memset(f, j, loc, load);
            }
            if name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove") {
                if let Ok(Sym::Ptr(l)) = self.value(f, j.operand(0)) {
                    if l.base == loc.base {
                        return Err(AnalysisError::unsupported(
                            format!("{name} over a modelled object"),
                            j.where_(),
                        ));
                    }
                }
            }
            return Ok(None);
        }
        if let Some(bound) = self.bound_interface(f, j, callee, loc, load)? {
            return Ok(Some(bound));
        }
        if self.binds_another_object(f, j, callee, loc) {
            return Ok(None);
        }
        let scheduling =
            self.facts.effects.is_scheduling_point(j) && !self.facts.effects.never_yields(j);
        if scheduling
            && (self.in_thread(f) || self.facts.effects.starts_threads(j))
            && self.written_by_others(f, loc, load)
        {
            let why = format!("value of memory read at {} after the synchronization point at {} (other threads may write it)", load.where_(), j.where_());
            if !self.may_trace_own(f, loc, load) {
                self.note(format!("over-approximated: {why}"));
                return Ok(Some(
                    self.fresh_or_ptr(load, "memory after a synchronization point")?,
                ));
            }
            let own = match self.through_body(f, j, callee, loc, load)? {
                Some(v) => v,
                None => self.before(f, j, loc, load)?,
            };
            let writes = self.other_writes(f, loc, load);
            return self.own_or_any(own, load, &why, writes).map(Some);
        }
        if let Base::Global(g) = loc.base {
            if name.starts_with("getopt")
                && !callee.has_body()
                && super::calls::GETOPT_GLOBALS.contains(&g.name().as_str())
            {
                return Ok(Some(self.fresh_or_ptr(
                    load,
                    &format!("{} after the getopt call at {}", g.name(), j.where_()),
                )?));
            }
        }
        self.through_body(f, j, callee, loc, load)
    }

    /// The effect on `loc` of the body of `callee` entered at call `j`, if it has one
    /// the analysis follows and the callee can see the object.
    fn through_body(
        &mut self,
        f: FrameId,
        j: Value<'m>,
        callee: crate::ir::Func<'m>,
        loc: Loc<'m>,
        load: Value<'m>,
    ) -> Result<Option<Sym<'m>>> {
        if !callee.has_body() || self.frames[f].depth >= MAX_DEPTH {
            // Library functions are assumed not to write program objects.
            return Ok(None);
        }
        // Only look into callees that can see the object: a global, or a pointer
        // argument to the same object.
        let sees = matches!(loc.base, Base::Global(_))
            || j.call_args().iter().any(|a| matches!(self.value(f, *a), Ok(Sym::Ptr(l) | Sym::PtrIdx { loc: l, .. }) if l.base == loc.base));
        if !sees {
            return Ok(None);
        }
        let arms = self.at_returns(f, j, callee, |wp, child, ret| {
            wp.before(child, ret, loc, load)
        })?;
        if arms.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.merge(arms, load)?))
    }

    /// `memset(p, byte, len)` (zero-initialising a member, e.g. an empty vector in a
    /// constructor): `loc` gets the byte repeated when the constant range covers it,
    /// and keeps its value when the range is elsewhere in the object.
    fn through_memset(
        &mut self,
        f: FrameId,
        j: Value<'m>,
        loc: Loc<'m>,
        load: Value<'m>,
    ) -> Result<Option<Sym<'m>>> {
        let dest = match self.value(f, j.operand(0)) {
            Ok(Sym::Ptr(l)) if l.base == loc.base => l,
            _ => return Ok(None),
        };
        let (Some(byte), Some(len)) = (j.operand(1).const_int(), j.operand(2).const_int()) else {
            return Err(AnalysisError::unsupported(
                "memset of a length or value computed at run time over a modelled object",
                j.where_(),
            ));
        };
        let width = self.m.alloc_size(load.ty()) as i64;
        if loc.off + width <= dest.off || loc.off >= dest.off + len as i64 {
            return Ok(None);
        }
        if loc.off < dest.off || loc.off + width > dest.off + len as i64 {
            return Err(AnalysisError::unsupported(
                "a load that memset writes only in part",
                j.where_(),
            ));
        }
        match load.ty().shape() {
            TypeShape::Int(w) => {
                let bytes = (w as u64).div_ceil(8);
                let mut value: u64 = 0;
                for _ in 0..bytes.min(8) {
                    value = (value << 8) | (byte & 0xff);
                }
                Ok(Some(Sym::Bv(self.bv_const(value, w), w)))
            }
            TypeShape::Pointer if byte == 0 => Ok(Some(Sym::Bv(self.bv_const(0, 64), 64))),
            _ => Err(AnalysisError::unsupported(
                "a load of memory memset writes, of a type other than an integer or a null pointer",
                j.where_(),
            )),
        }
    }

    /// Value of `loc` at the entry of frame `f`.
    pub(super) fn at_entry(
        &mut self,
        f: FrameId,
        loc: Loc<'m>,
        load: Value<'m>,
    ) -> Result<Sym<'m>> {
        match self.frames[f].kind.clone() {
            FrameKind::Call { parent, call } => self.before(parent, call, loc, load),
            FrameKind::Thread { creator, point, .. }
                if self.facts.methods.contains(&self.frames[f].func)
                    && self.written_at_activation(loc, load) =>
            {
                let why = format!(
                    "value read at {} when the SC_METHOD {} starts (it runs on every trigger: module state is what earlier activations left)",
                    load.where_(),
                    super::demangle_hint(&self.frames[f].func.name())
                );
                if self.kernel_updated(load) {
                    self.note(format!("over-approximated: {why}"));
                    return self.fresh_or_ptr(load, "memory at an SC_METHOD's activation");
                }
                // Its first activation sees the value at sc_start.
                let first = self.before(creator, point, loc, load)?;
                self.own_or_any(first, load, &why, Vec::new())
            }
            // A process registered before this one runs first, up to its first wait,
            // and may have stored there since sc_start. The kernel updates a
            // channel's value only after that first round, so it is still the one
            // at sc_start.
            FrameKind::Thread {
                creator,
                point,
                also: Some(_),
                ..
            } if !self.kernel_updated(load) && self.written_before_start(f, loc, load) => {
                let why = format!(
                    "value read at {} when the SystemC process {} starts (another process may store there before it first runs)",
                    load.where_(),
                    super::demangle_hint(&self.frames[f].func.name())
                );
                let first = self.before(creator, point, loc, load)?;
                let writes = self.other_writes(f, loc, load);
                self.own_or_any(first, load, &why, writes)
            }
            FrameKind::Thread { creator, point, .. } => self.before(creator, point, loc, load),
            FrameKind::Root => match loc.base {
                Base::Global(g) => self.initial(g, loc.off, load),
                _ => self.fresh_or_ptr(load, "uninitialised memory"),
            },
        }
    }

    /// The initializer of global `g` at byte offset `off`, as the load's type.
    pub(super) fn initial(&mut self, g: Value<'m>, off: i64, load: Value<'m>) -> Result<Sym<'m>> {
        let Some(mut init) = g.initializer() else {
            return self.fresh_or_ptr(load, "external global");
        };
        let mut ty = init.ty();
        let mut off = off;
        loop {
            if init.is_zero_initializer() || init.is_null_pointer() {
                let w = match load.ty().shape() {
                    TypeShape::Int(w) => w,
                    TypeShape::Pointer => 64,
                    _ => {
                        return Err(AnalysisError::unsupported(
                            "load of an aggregate",
                            load.where_(),
                        ))
                    }
                };
                return Ok(Sym::Bv(self.bv_const(0, w), w));
            }
            if off == 0
                && (init.const_int().is_some()
                    || init.as_function().is_some()
                    || init.is_global_variable())
            {
                let s = self.value(0, init)?;
                return self.fit(s, load);
            }
            match ty.shape() {
                TypeShape::Struct => {
                    let mut k = 0u32;
                    loop {
                        let next = self.m.offset_of_element(ty, k + 1);
                        if init.aggregate_element(k + 1).is_none() || next as i64 > off {
                            break;
                        }
                        k += 1;
                    }
                    off -= self.m.offset_of_element(ty, k) as i64;
                    ty = ty.struct_element(k);
                    init = init.aggregate_element(k).ok_or_else(|| {
                        AnalysisError::unsupported("global initializer", g.name())
                    })?;
                }
                TypeShape::Array => {
                    let et = ty.array_element();
                    let size = self.m.alloc_size(et).max(1) as i64;
                    let k = (off / size) as u32;
                    off %= size;
                    ty = et;
                    init = init.aggregate_element(k).ok_or_else(|| {
                        AnalysisError::unsupported("global initializer", g.name())
                    })?;
                }
                _ => {
                    return Err(AnalysisError::unsupported(
                        format!("initializer of {} at offset {off}", g.name()),
                        load.where_(),
                    ))
                }
            }
        }
    }

    /// Checks a stored value against the load's type.
    pub(super) fn fit(&mut self, s: Sym<'m>, load: Value<'m>) -> Result<Sym<'m>> {
        match (&s, load.ty().shape()) {
            (Sym::Bv(_, w), TypeShape::Int(lw)) if *w == lw => Ok(s),
            (Sym::Bv(e, w), TypeShape::Int(lw)) if *w > lw => {
                Ok(Sym::Bv(self.ctx.extract(lw as i32 - 1, 0, *e), lw))
            }
            (Sym::Bv(..), TypeShape::Int(_)) => Err(AnalysisError::unsupported(
                "load wider than the stored value",
                load.where_(),
            )),
            // A pointer read from memory last written as a narrower integer (a union):
            // its low bytes are the integer's, the bytes above any value.
            (Sym::Bv(e, w), TypeShape::Pointer) if *w < 64 => {
                let (e, w) = (*e, *w);
                let why =
                    format!("the bytes of a pointer above the {w}-bit integer last written there");
                let Sym::Bv(any, _) = self.fresh(load, &why)? else {
                    unreachable!("a fresh pointer is a 64-bit value")
                };
                let high = self.ctx.extract(63, w as i32, any);
                Ok(Sym::Bv(self.ctx.concat(high, e), 64))
            }
            (_, TypeShape::Pointer) => Ok(s),
            _ => Err(AnalysisError::unsupported(
                format!("load of {} (`{}`)", s.describe(), load.print()),
                load.where_(),
            )),
        }
    }

    pub(super) fn fresh_or_ptr(&mut self, load: Value<'m>, why: &str) -> Result<Sym<'m>> {
        match load.ty().shape() {
            TypeShape::Pointer => Ok(Sym::Ptr(Loc {
                base: Base::Opaque(load),
                off: 0,
            })),
            _ => self.fresh(load, why),
        }
    }
}
