//! Start routines passed as values: a thread created from a table of start routines
//! (`workers[i]`, a `{ "name", fn }` array's field), from a local chosen by a switch or
//! a ternary, or from a helper's parameter. Module-wide, [`start_routines`] lists the
//! functions one creation may start; in the backward walk, [`Wp::starts`] is the
//! condition under which it starts a given one.
//!
//! Both follow the value back through casts, `select`, phis, loads of stack slots and of
//! globals (the initializer's elements; a stored value too when the global is not
//! constant), and a parameter to the arguments of its function's calls, with explicit
//! worklists bounded by [`MAX_STEPS`], so the analysed program does not set the work.
//! A value followed no further leaves the creation with every address-taken function
//! shaped like a start routine (one pointer parameter, a pointer or an `int` result: a
//! pthread or a C11 start routine), and the formula's notes say so.

use super::domain::{Base, FrameId, FrameKind, Loc, Sym};
use super::memory::MAX_ELEMENTS;
use super::pointers::gcd;
use super::Wp;
use crate::error::{AnalysisError, Result};
use crate::ir::{Func, Module, Opcode, TypeShape, Value};
use easy_smt::SExpr;
use std::collections::{HashMap, HashSet};

/// Most values followed back from one start routine (and most uses of one stack slot or
/// global scanned for the stores into it).
const MAX_STEPS: usize = 64;

/// Most initializer elements read from one global table.
const MAX_INITIALIZER: usize = 4096;

/// The functions one thread creation may start.
pub(super) struct Routines<'m> {
    /// With a body, in module order.
    pub(super) funcs: Vec<Func<'m>>,
    /// The value was not followed to its functions within the bound: `funcs` is every
    /// address-taken function shaped like a start routine.
    pub(super) guessed: bool,
}

/// The functions the start routine `routine` of a thread creation may be.
pub(super) fn start_routines<'m>(
    m: &'m Module,
    routine: Value<'m>,
    callers: &HashMap<Func<'m>, Vec<Value<'m>>>,
) -> Routines<'m> {
    let mut found: Vec<Func<'m>> = Vec::new();
    let mut complete = true;
    let mut todo = vec![routine];
    let mut seen = HashSet::new();
    while let Some(v) = todo.pop() {
        if !seen.insert(v) {
            continue;
        }
        if seen.len() > MAX_STEPS {
            complete = false;
            break;
        }
        if let Some(f) = v.as_function() {
            if f.has_body() && !found.contains(&f) {
                found.push(f);
            }
            continue;
        }
        if v.is_null_pointer() || v.is_undef() {
            continue;
        }
        if let Some((func, i)) = v.argument_of() {
            // A helper's parameter: what its direct calls pass. One called through a
            // pointer may get anything.
            complete &= !func.is_address_taken();
            for call in callers.get(&func).into_iter().flatten() {
                match call.call_args().get(i as usize) {
                    Some(a) => todo.push(*a),
                    None => complete = false,
                }
            }
            continue;
        }
        match v.opcode() {
            Some(
                Opcode::LLVMBitCast
                | Opcode::LLVMAddrSpaceCast
                | Opcode::LLVMIntToPtr
                | Opcode::LLVMPtrToInt
                | Opcode::LLVMFreeze,
            ) => todo.push(v.operand(0)),
            Some(Opcode::LLVMSelect) => todo.extend([v.operand(1), v.operand(2)]),
            Some(Opcode::LLVMPHI) => todo.extend(v.incoming().into_iter().map(|(x, _)| x)),
            Some(Opcode::LLVMLoad) => complete &= loaded(m, v.operand(0), &mut todo),
            _ => complete = false,
        }
    }
    if complete {
        let order: Vec<Func<'m>> = m.functions();
        found.sort_by_key(|f| order.iter().position(|g| g == f));
        return Routines {
            funcs: found,
            guessed: false,
        };
    }
    Routines {
        funcs: m
            .functions()
            .into_iter()
            .filter(|f| shaped_like_a_start_routine(*f))
            .collect(),
        guessed: true,
    }
}

/// A function with a body whose address is taken, with one pointer parameter and a
/// pointer or `int` result.
fn shaped_like_a_start_routine(f: Func<'_>) -> bool {
    f.has_body()
        && f.is_address_taken()
        && f.param_count() == 1
        && f.param(0)
            .is_some_and(|p| p.ty().shape() == TypeShape::Pointer)
        && matches!(f.return_shape(), TypeShape::Pointer | TypeShape::Int(32))
}

/// Adds to `todo` what a load through `address` may read: the elements of a global's
/// initializer at the offsets the address may have, and the pointers stored into a
/// non-constant global or a stack slot. False when the memory is not one of those, or
/// its address escapes (passed to a call, stored) so that other stores may reach it.
fn loaded<'m>(m: &'m Module, address: Value<'m>, todo: &mut Vec<Value<'m>>) -> bool {
    let Some((base, off, stride)) = base_and_offsets(m, address) else {
        return false;
    };
    let at = |o: i64| overlap((o, 0), (off, stride));
    let mut complete = true;
    if base.is_global_variable() {
        let Some(init) = base.initializer() else {
            return false;
        };
        match initializer_functions(m, init) {
            Some(elements) => todo.extend(
                elements
                    .into_iter()
                    .filter(|(o, _)| at(*o))
                    .map(|(_, f)| f.as_value()),
            ),
            None => complete = false,
        }
        if base.is_constant_global() {
            return complete;
        }
    } else if base.opcode() != Some(Opcode::LLVMAlloca) {
        return false;
    }
    complete && stored_pointers(m, base, (off, stride), todo)
}

/// Whether two sets of offsets `off + k·stride` (stride 0: `off` alone) meet.
fn overlap((a, s): (i64, u64), (b, t): (i64, u64)) -> bool {
    match gcd(s, t) {
        0 => a == b,
        g => (a - b).rem_euclid(g as i64) == 0,
    }
}

/// The object `address` points into (a global or a stack slot), its constant byte
/// offset, and the stride of the offsets an index computed at run time adds (0: none).
fn base_and_offsets<'m>(m: &'m Module, address: Value<'m>) -> Option<(Value<'m>, i64, u64)> {
    let (mut p, mut off, mut stride) = (address, 0i64, 0u64);
    for _ in 0..MAX_STEPS {
        if p.is_global_variable() || p.opcode() == Some(Opcode::LLVMAlloca) {
            return Some((p, off, stride));
        }
        match p.opcode()? {
            Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => p = p.operand(0),
            Opcode::LLVMGetElementPtr => {
                let mut ty = p.gep_source_type();
                for k in 1..p.operand_count() {
                    let idx = p.operand(k);
                    let size = if k == 1 {
                        m.alloc_size(ty)
                    } else if ty.shape() == TypeShape::Struct {
                        let field = idx.const_int()? as u32;
                        off += m.offset_of_element(ty, field) as i64;
                        ty = ty.struct_element(field);
                        continue;
                    } else if ty.shape() == TypeShape::Array {
                        ty = ty.array_element();
                        m.alloc_size(ty)
                    } else {
                        return None;
                    };
                    match idx.const_int_signed() {
                        Some(k) => off += k * size as i64,
                        None => stride = gcd(stride, size),
                    }
                }
                p = p.operand(0);
            }
            _ => return None,
        }
    }
    None
}

/// The functions a constant initializer holds, with their byte offsets; `None` past
/// [`MAX_INITIALIZER`] elements.
fn initializer_functions<'m>(m: &'m Module, init: Value<'m>) -> Option<Vec<(i64, Func<'m>)>> {
    let mut out = Vec::new();
    let mut todo = vec![(init, 0i64)];
    let mut visited = 0;
    while let Some((c, off)) = todo.pop() {
        visited += 1;
        if visited > MAX_INITIALIZER {
            return None;
        }
        if let Some(f) = c.as_function() {
            out.push((off, f));
            continue;
        }
        let ty = c.ty();
        match (ty.shape(), c.opcode()) {
            (_, Some(Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast)) => {
                todo.push((c.operand(0), off))
            }
            (TypeShape::Struct, _) if !c.is_zero_initializer() => {
                let mut k = 0;
                while let Some(e) = c.aggregate_element(k) {
                    todo.push((e, off + m.offset_of_element(ty, k) as i64));
                    k += 1;
                }
            }
            (TypeShape::Array, _) if !c.is_zero_initializer() => {
                let size = m.alloc_size(ty.array_element()) as i64;
                // An array of integers or characters holds no function.
                if !matches!(ty.array_element().shape(), TypeShape::Int(_)) {
                    let mut k = 0;
                    while let Some(e) = c.aggregate_element(k) {
                        todo.push((e, off + k as i64 * size));
                        k += 1;
                    }
                }
            }
            _ => {}
        }
    }
    Some(out)
}

/// Adds to `todo` the pointers stored into `object` (a global or a stack slot) at the
/// offsets `read` (as [`base_and_offsets`] gives them) through any address derived
/// from it; false when the address escapes, is used in a way not followed, or has more
/// than [`MAX_STEPS`] uses.
fn stored_pointers<'m>(
    m: &'m Module,
    object: Value<'m>,
    read: (i64, u64),
    todo: &mut Vec<Value<'m>>,
) -> bool {
    let mut addresses = vec![object];
    let mut seen = HashSet::new();
    while let Some(a) = addresses.pop() {
        for u in a.users() {
            if !seen.insert(u) || seen.len() > MAX_STEPS {
                return seen.len() <= MAX_STEPS;
            }
            match u.opcode() {
                Some(Opcode::LLVMLoad) => {}
                Some(Opcode::LLVMStore) if u.operand(1) == a && u.operand(0) != a => {
                    // A store elsewhere in the object (another field) does not matter.
                    let here = base_and_offsets(m, a)
                        .is_none_or(|(_, off, stride)| overlap((off, stride), read));
                    if here && u.operand(0).ty().shape() == TypeShape::Pointer {
                        todo.push(u.operand(0));
                    }
                }
                Some(
                    Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast,
                ) => addresses.push(u),
                // Debug and lifetime markers neither read nor write the object.
                Some(Opcode::LLVMCall)
                    if u.called_function().is_some_and(|f| {
                        f.name().starts_with("llvm.lifetime.") || f.name().starts_with("llvm.dbg.")
                    }) => {}
                _ => return false,
            }
        }
    }
    true
}

/// The walk of [`Wp::starts`]: values still to follow (frame, value, condition under
/// which the start routine is that value), and the conditions found so far.
struct Walk<'m> {
    func: Func<'m>,
    todo: Vec<(FrameId, Value<'m>, SExpr)>,
    /// The start routine is `func`.
    yes: Vec<SExpr>,
    /// The start routine is a value not followed further.
    unfollowed: Vec<SExpr>,
}

impl<'m> Walk<'m> {
    /// Files `guard` under "starts `func`" when `s` is `func`, nowhere when it is another
    /// function or null, and under "not followed" otherwise.
    fn decide(&mut self, wp: &Wp<'m>, s: Sym<'m>, guard: SExpr) {
        match s {
            Sym::Func(g) if g == self.func => self.yes.push(guard),
            Sym::Func(_) => {}
            Sym::Bv(e, _) if wp.const_bv(e).is_some_and(|(x, _)| x == 0) => {}
            _ => self.unfollowed.push(guard),
        }
    }
}

impl<'m> Wp<'m> {
    /// The condition, in the creator's frame `f`, under which the thread creation
    /// `call` starts `func`; `None` when its start routine is a function constant (the
    /// only function the creation was listed under). Followed like
    /// [`start_routines`], with the loads and conditions now in the formula; what is
    /// not followed is assumed to be `func`, noted.
    pub(super) fn starts(
        &mut self,
        f: FrameId,
        call: Value<'m>,
        func: Func<'m>,
    ) -> Result<Option<SExpr>> {
        let Some((position, _)) = self.facts.effects.thread_creation(call) else {
            return Ok(None);
        };
        let Some(routine) = call.call_args().get(position).copied() else {
            return Ok(None);
        };
        if routine.as_function().is_some() {
            return Ok(None);
        }
        let mut walk = Walk {
            func,
            todo: vec![(f, routine, self.ctx.true_())],
            yes: Vec::new(),
            unfollowed: Vec::new(),
        };
        let mut steps = 0;
        while let Some((f, v, guard)) = walk.todo.pop() {
            steps += 1;
            if steps > MAX_STEPS {
                walk.unfollowed.push(guard);
                continue;
            }
            match self.routine_step(f, v, guard, &mut walk) {
                Ok(()) => {}
                Err(AnalysisError::Unsupported(_)) => walk.unfollowed.push(guard),
                Err(e) => return Err(e),
            }
        }
        let mut yes = walk.yes;
        if !walk.unfollowed.is_empty() {
            self.note(format!(
                "over-approximated: the start routine passed at {} is not followed to its functions on every path; where it is not, it is assumed to be {}",
                call.where_(),
                super::demangle_hint(&func.name())
            ));
            yes.extend(walk.unfollowed);
        }
        Ok(Some(self.or(yes)))
    }

    /// One value of the walk: a function decides, anything else is followed one step.
    fn routine_step(
        &mut self,
        f: FrameId,
        v: Value<'m>,
        guard: SExpr,
        walk: &mut Walk<'m>,
    ) -> Result<()> {
        let ctx = self.ctx;
        if let Some(g) = v.as_function() {
            walk.decide(self, Sym::Func(g), guard);
            return Ok(());
        }
        if v.is_null_pointer() || v.is_undef() {
            return Ok(());
        }
        if let (Some((_, i)), FrameKind::Call { parent, call }) =
            (v.argument_of(), &self.frames[f].kind)
        {
            if let Some(a) = call.call_args().get(i as usize) {
                walk.todo.push((*parent, *a, guard));
                return Ok(());
            }
        }
        match v.opcode() {
            Some(
                Opcode::LLVMBitCast
                | Opcode::LLVMAddrSpaceCast
                | Opcode::LLVMIntToPtr
                | Opcode::LLVMPtrToInt
                | Opcode::LLVMFreeze,
            ) => walk.todo.push((f, v.operand(0), guard)),
            Some(Opcode::LLVMSelect) => {
                let (c, _) = self.bv(f, v.operand(0))?;
                let c = ctx.eq(c, self.bv_const(1, 1));
                walk.todo.push((f, v.operand(1), self.and(vec![guard, c])));
                walk.todo
                    .push((f, v.operand(2), self.and(vec![guard, ctx.not(c)])));
            }
            Some(Opcode::LLVMPHI) if !self.summarised_header(f, v.block()) => {
                // The first incoming edge taken, as `phi` merges them.
                let b = v.block();
                let mut earlier = Vec::new();
                for (x, p) in v.incoming() {
                    if self.is_back_edge(f, p, b) {
                        self.back_edge(f, p, b);
                        continue;
                    }
                    let r = self.reach_block(f, p)?;
                    let e = self.edge(f, p, b)?;
                    let taken = self.and(vec![r, e]);
                    let mut parts = vec![guard, taken];
                    parts.extend(earlier.iter().map(|t| ctx.not(*t)));
                    walk.todo.push((f, x, self.and(parts)));
                    earlier.push(taken);
                }
            }
            Some(Opcode::LLVMLoad) => {
                for (s, c) in self.loaded_routines(f, v)? {
                    let g = self.and(vec![guard, c]);
                    walk.decide(self, s, g);
                }
            }
            _ => {
                let s = self.value(f, v)?;
                walk.decide(self, s, guard);
            }
        }
        Ok(())
    }

    /// What the load `v` of a start routine may read, each with the condition under
    /// which it does: an element chosen at run time from a global table or a stack
    /// slot is read element by element (a merge of different functions would leave
    /// the value free); anything else is the load's value.
    fn loaded_routines(&mut self, f: FrameId, v: Value<'m>) -> Result<Vec<(Sym<'m>, SExpr)>> {
        let Sym::PtrIdx { loc, idx, stride } = self.value(f, v.operand(0))? else {
            return Ok(vec![(self.value(f, v)?, self.ctx.true_())]);
        };
        let size = match loc.base {
            Base::Global(g) => self.m.alloc_size(g.global_value_type()),
            Base::Alloca(_, a) => self.m.alloc_size(a.allocated_type()),
            _ => return Ok(vec![(self.value(f, v)?, self.ctx.true_())]),
        } as i64;
        let width = self.m.alloc_size(v.ty()) as i64;
        let first = loc.off.rem_euclid(stride as i64);
        let offsets: Vec<i64> = (0..)
            .map(|k| first + k * stride as i64)
            .take_while(|o| *o + width <= size)
            .collect();
        if offsets.len() > MAX_ELEMENTS {
            return Ok(vec![(self.value(f, v)?, self.ctx.true_())]);
        }
        let mut out = Vec::new();
        for o in offsets {
            let s = match loc.base {
                Base::Global(g) if g.is_constant_global() => self.initial(g, o, v)?,
                base => self.before(f, v, Loc { base, off: o }, v)?,
            };
            let chosen = self.ctx.eq(idx, self.bv_const((o - loc.off) as u64, 64));
            out.push((s, chosen));
        }
        // Out of bounds: undefined behaviour, no start routine.
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::overlap;

    #[test]
    fn offsets_meet_when_their_difference_is_a_multiple_of_both_strides() {
        // `roles[k].run` (offset 8, stride 16) against `roles[2].run` and `roles[1].name`.
        assert!(overlap((8, 16), (40, 0)));
        assert!(!overlap((8, 16), (16, 0)));
        // Two indices computed at run time: 8 + 16k and 4 + 12j meet at 40.
        assert!(overlap((8, 16), (4, 12)));
        assert!(!overlap((8, 16), (3, 12)));
        assert!(overlap((8, 0), (8, 0)));
        assert!(!overlap((8, 0), (0, 0)));
    }
}
