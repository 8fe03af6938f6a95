//! Symbolic values: the SSA definition of a value evaluated on demand per frame (the
//! module is in SSA form, so this is the same as substituting backwards), including
//! arguments, phis, address arithmetic and the results of calls.

use super::calls::{nondet_type, ALLOCATORS, INT_PARSERS};
use super::domain::{Base, FrameId, FrameKind, Loc, Sym, MAX_DEPTH};
use super::{demangle_hint, Wp};
use crate::error::{AnalysisError, Result};
use crate::ir::{self, Func, Opcode, TypeShape, Value};
use easy_smt::SExpr;

/// Most candidate targets a virtual call is followed into (each is analysed as a
/// callee, so the formula grows with their number).
pub(super) const MAX_VIRTUAL_TARGETS: usize = 8;

pub(super) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl<'m> Wp<'m> {
    pub(super) fn bv(&mut self, f: FrameId, v: Value<'m>) -> Result<(SExpr, u32)> {
        match self.value(f, v)? {
            Sym::Bv(e, w) => Ok((e, w)),
            other => Err(AnalysisError::unsupported(
                format!("{} used as an integer (`{}`)", other.describe(), v.print()),
                v.where_(),
            )),
        }
    }

    pub(super) fn value(&mut self, f: FrameId, v: Value<'m>) -> Result<Sym<'m>> {
        if let Some(s) = self.values.get(&(f, v)) {
            return Ok(s.clone());
        }
        self.meter.check()?;
        if let Some(why) = self.unsupported.get(&(f, v)) {
            return Err(AnalysisError::Unsupported(why.clone()));
        }
        let s = match crate::budget::deep(|| self.compute(f, v)) {
            Ok(s) => s,
            Err(AnalysisError::Unsupported(why)) => {
                self.unsupported.insert((f, v), why.clone());
                return Err(AnalysisError::Unsupported(why));
            }
            Err(e) => return Err(e),
        };
        self.values.insert((f, v), s.clone());
        Ok(s)
    }

    pub(super) fn compute(&mut self, f: FrameId, v: Value<'m>) -> Result<Sym<'m>> {
        if let Some(k) = v.const_int() {
            let w = width(v)?;
            return Ok(Sym::Bv(self.bv_const(k, w), w));
        }
        if v.is_null_pointer() {
            return Ok(Sym::Bv(self.bv_const(0, 64), 64));
        }
        if let Some(func) = v.as_function() {
            return Ok(Sym::Func(func));
        }
        if v.is_global_variable() {
            return Ok(Sym::Ptr(Loc {
                base: Base::Global(v),
                off: 0,
            }));
        }
        if v.is_undef() {
            return self.fresh(v, "undefined value");
        }
        if let Some((func, i)) = v.argument_of() {
            return self.argument(f, func, i, v);
        }
        let Some(op) = v.opcode() else {
            return Err(AnalysisError::unsupported(
                format!("constant `{}`", v.print()),
                "?",
            ));
        };
        let ctx = self.ctx;
        use Opcode::*;
        match op {
            LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl
            | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor => {
                let (a, w) = self.bv(f, v.operand(0))?;
                let (b, _) = self.bv(f, v.operand(1))?;
                let name = match op {
                    LLVMAdd => "bvadd",
                    LLVMSub => "bvsub",
                    LLVMMul => "bvmul",
                    LLVMUDiv => "bvudiv",
                    LLVMSDiv => "bvsdiv",
                    LLVMURem => "bvurem",
                    LLVMSRem => "bvsrem",
                    LLVMShl => "bvshl",
                    LLVMLShr => "bvlshr",
                    LLVMAShr => "bvashr",
                    LLVMAnd => "bvand",
                    LLVMOr => "bvor",
                    _ => "bvxor",
                };
                Ok(Sym::Bv(self.app(name, vec![a, b]), w))
            }
            LLVMICmp => {
                let (name, _) = ir::predicate_smt(v.int_predicate());
                let c = match (self.value(f, v.operand(0))?, self.value(f, v.operand(1))?) {
                    (Sym::Bv(a, _), Sym::Bv(b, _)) => self.app(name, vec![a, b]),
                    (a, b) if self.same_object(&a, &b) => {
                        let (x, y) = (self.byte_offset(&a), self.byte_offset(&b));
                        self.app(name, vec![x, y])
                    }
                    (a, b)
                        if (name == "=" || name == "distinct")
                            && (self.untracked(&a) || self.untracked(&b)) =>
                    {
                        let eq = self.untracked_equality(&a, &b, v)?;
                        if name == "=" {
                            eq
                        } else {
                            ctx.not(eq)
                        }
                    }
                    (
                        a @ (Sym::Ptr(_) | Sym::PtrIdx { .. }),
                        b @ (Sym::Ptr(_) | Sym::PtrIdx { .. }),
                    ) if name != "=" && name != "distinct" => {
                        // Distinct objects: where each lies is the allocator's and the
                        // linker's choice, so their order is left to the solver (the run
                        // confirms the candidate).
                        self.note(format!(
                            "over-approximated: the order of the addresses of {} and {} compared at {} (distinct objects: their layout is not known)",
                            a.describe(),
                            b.describe(),
                            v.where_()
                        ));
                        let Sym::Bv(e, _) =
                            self.fresh(v, "the order of two distinct objects' addresses")?
                        else {
                            unreachable!("fresh of an i1 is a bit-vector")
                        };
                        let one = self.bv_const(1, 1);
                        ctx.eq(e, one)
                    }
                    (a, b) if name == "=" || name == "distinct" => {
                        // Pointers into distinct objects differ (the same object was
                        // compared by offsets above); a modelled pointer (global, stack
                        // slot, argv entry) is never null. An address left free (a
                        // merge of pointers) may be any of them.
                        if let (
                            Sym::Bv(e, _),
                            Sym::Ptr(_) | Sym::ArgStr(_) | Sym::ArgOrLiteral { .. },
                        )
                        | (
                            Sym::Ptr(_) | Sym::ArgStr(_) | Sym::ArgOrLiteral { .. },
                            Sym::Bv(e, _),
                        ) = (&a, &b)
                        {
                            if self.const_bv(*e).is_none_or(|(x, _)| x != 0) {
                                self.note(format!("over-approximated: the comparison at {} of {} with an address the analysis leaves free", v.where_(), if matches!(a, Sym::Bv(..)) { b.describe() } else { a.describe() }));
                                let Sym::Bv(e, _) = self.fresh(
                                    v,
                                    "the comparison of a pointer with an address left free",
                                )?
                                else {
                                    unreachable!("fresh of an i1 is a bit-vector")
                                };
                                let eq = ctx.eq(e, self.bv_const(1, 1));
                                return Ok(Sym::Bv(
                                    self.bool_to_bv(if name == "=" { eq } else { ctx.not(eq) }),
                                    1,
                                ));
                            }
                        }
                        let known = matches!(
                            (&a, &b),
                            (
                                Sym::Ptr(_) | Sym::PtrIdx { .. },
                                Sym::Ptr(_) | Sym::PtrIdx { .. }
                            )
                        ) || matches!(
                            (&a, &b),
                            (
                                Sym::Ptr(_) | Sym::ArgStr(_) | Sym::ArgOrLiteral { .. },
                                Sym::Bv(..)
                            ) | (
                                Sym::Bv(..),
                                Sym::Ptr(_) | Sym::ArgStr(_) | Sym::ArgOrLiteral { .. }
                            )
                        );
                        if !known {
                            return Err(AnalysisError::unsupported(
                                format!("pointer comparison `{}`", v.print()),
                                v.where_(),
                            ));
                        }
                        if name == "=" {
                            ctx.false_()
                        } else {
                            ctx.true_()
                        }
                    }
                    _ => {
                        return Err(AnalysisError::unsupported(
                            format!("comparison `{}`", v.print()),
                            v.where_(),
                        ))
                    }
                };
                Ok(Sym::Bv(self.bool_to_bv(c), 1))
            }
            LLVMSelect => {
                let (c, _) = self.bv(f, v.operand(0))?;
                let one = self.bv_const(1, 1);
                let cond = ctx.eq(c, one);
                match (self.value(f, v.operand(1))?, self.value(f, v.operand(2))?) {
                    (Sym::Bv(a, w), Sym::Bv(b, _)) => Ok(Sym::Bv(ctx.ite(cond, a, b), w)),
                    (Sym::Ptr(a), Sym::Ptr(b)) if a == b => Ok(Sym::Ptr(a)),
                    (Sym::Func(a), Sym::Func(b)) if a == b => Ok(Sym::Func(a)),
                    (a, b) if self.arg_or_literal(cond, &a, &b).is_some() => {
                        Ok(self.arg_or_literal(cond, &a, &b).expect("checked"))
                    }
                    (a, b) if v.ty().shape() == TypeShape::Pointer => self.fresh(
                        v,
                        &format!(
                            "a pointer that is {} or {} as a condition chooses",
                            a.describe(),
                            b.describe()
                        ),
                    ),
                    _ => Err(AnalysisError::unsupported(
                        format!("select of pointers `{}`", v.print()),
                        v.where_(),
                    )),
                }
            }
            LLVMZExt | LLVMSExt | LLVMTrunc => {
                let (a, w) = self.bv(f, v.operand(0))?;
                let to = width(v)?;
                let e = match op {
                    LLVMTrunc => ctx.extract(to as i32 - 1, 0, a),
                    _ if to == w => a,
                    LLVMZExt => self.indexed("zero_extend", to - w, a),
                    _ => self.indexed("sign_extend", to - w, a),
                };
                Ok(Sym::Bv(e, to))
            }
            LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast => {
                match self.value(f, v.operand(0))? {
                    Sym::Bv(a, w) => {
                        let to = if v.ty().shape() == TypeShape::Pointer {
                            64
                        } else {
                            width(v)?
                        };
                        let e = if to == w {
                            a
                        } else if to < w {
                            ctx.extract(to as i32 - 1, 0, a)
                        } else {
                            self.indexed("zero_extend", to - w, a)
                        };
                        Ok(Sym::Bv(e, to))
                    }
                    other if op != LLVMPtrToInt => Ok(other),
                    other => self.address_as_integer(v, other),
                }
            }
            LLVMPHI => self.phi(f, v),
            LLVMAlloca => Ok(Sym::Ptr(Loc {
                base: Base::Alloca(f, v),
                off: 0,
            })),
            LLVMGetElementPtr => self.gep(f, v),
            LLVMLoad => self.load(f, v),
            LLVMCall | LLVMInvoke => self.call(f, v),
            LLVMFreeze => self.value(f, v.operand(0)),
            // The value an atomic read-modify-write read: not modelled (sound: any value).
            LLVMAtomicRMW => self.fresh(v, "the value an atomic read-modify-write read"),
            _ => Err(AnalysisError::unsupported(
                format!("instruction `{}`", v.print()),
                v.where_(),
            )),
        }
    }

    /// `ite(cond, a, b)` where one of them is `argv[k]` and the other a string literal:
    /// the string operations modelled on argv apply to each arm.
    fn arg_or_literal(&self, cond: SExpr, a: &Sym<'m>, b: &Sym<'m>) -> Option<Sym<'m>> {
        let literal = |s: &Sym<'m>| match s {
            Sym::Ptr(Loc {
                base: Base::Global(g),
                off: 0,
            }) if g.c_string().is_some() => Some(*g),
            _ => None,
        };
        match (a, b) {
            (Sym::ArgStr(k), other) => Some(Sym::ArgOrLiteral {
                k: *k,
                cond,
                lit: literal(other)?,
            }),
            (other, Sym::ArgStr(k)) => Some(Sym::ArgOrLiteral {
                k: *k,
                cond: self.ctx.not(cond),
                lit: literal(other)?,
            }),
            _ => None,
        }
    }

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

    /// Whether `s` is a pointer whose target the analysis does not track: returned by
    /// a library function without a model (`getenv`), or loaded from memory it does
    /// not track. Such a pointer may be null, or equal to any other pointer; one
    /// `operator new` returned is never null. (An element of such memory chosen at run
    /// time stays unsupported: following its null tests into the TLM payload's
    /// extension array outgrew memory.)
    fn untracked(&self, s: &Sym<'m>) -> bool {
        match s {
            Sym::Ptr(Loc {
                base: Base::Opaque(v),
                ..
            }) => !v
                .called_function()
                .is_some_and(|f| ALLOCATORS.contains(&f.name().as_str())),
            _ => false,
        }
    }

    /// `a == b` where one of them is [`Self::untracked`]: against null, the pointer's
    /// own "is null" boolean (one per pointer, so two tests of it agree); against the
    /// same untracked object, equal offsets; against anything else, left free.
    fn untracked_equality(&mut self, a: &Sym<'m>, b: &Sym<'m>, at: Value<'m>) -> Result<SExpr> {
        let (p, other) = if self.untracked(a) { (a, b) } else { (b, a) };
        if self.same_object(p, other) {
            let (x, y) = (self.byte_offset(p), self.byte_offset(other));
            return Ok(self.ctx.eq(x, y));
        }
        let base = match p {
            Sym::Ptr(l) | Sym::PtrIdx { loc: l, .. } => l.base,
            _ => unreachable!("untracked pointers have a base"),
        };
        if let (Sym::Ptr(Loc { off: 0, .. }), Sym::Bv(e, _)) = (p, other) {
            if self.const_bv(*e).is_some_and(|(v, _)| v == 0) {
                return Ok(self.is_null(base));
            }
        }
        self.note(format!(
            "over-approximated: the comparison at {} of {} with {} (the first is not tracked)",
            at.where_(),
            p.describe(),
            other.describe()
        ));
        let Sym::Bv(e, _) = self.fresh(
            at,
            "the comparison of a pointer the analysis does not track",
        )?
        else {
            unreachable!("fresh of an i1 is a bit-vector")
        };
        Ok(self.ctx.eq(e, self.bv_const(1, 1)))
    }

    /// `ptrtoint` of a pointer the analysis tracks: the object's address (one free
    /// 64-bit value per object, never null) plus the byte offset, so the difference of
    /// two pointers into one object is exact (`std::distance` over a vector's
    /// iterators, which made whole TLM designs `unknown`). Anything else converted is
    /// any value, noted.
    fn address_as_integer(&mut self, v: Value<'m>, p: Sym<'m>) -> Result<Sym<'m>> {
        let w = width(v)?;
        let (base, off) = match p {
            Sym::Ptr(loc) => (loc.base, self.bv_const(loc.off as u64, 64)),
            Sym::PtrIdx { loc, idx, .. } => {
                let off = self.bv_const(loc.off as u64, 64);
                (loc.base, self.ctx.bvadd(off, idx))
            }
            other => {
                return self.fresh(v, &format!("{} converted to an integer", other.describe()))
            }
        };
        let start = match self.addresses.get(&base) {
            Some(e) => *e,
            None => {
                let name = format!(
                    "addr{}_{}",
                    self.fresh_count,
                    v.where_()
                        .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
                );
                self.fresh_count += 1;
                self.q.fresh.push((name.clone(), "(_ BitVec 64)".into()));
                self.note(format!(
                    "over-approximated: the address of {} as an integer is any non-null value",
                    base.describe()
                ));
                let e = self.ctx.atom(name);
                let zero = self.bv_const(0, 64);
                let not_null = self.ctx.not(self.ctx.eq(e, zero));
                self.q.conjuncts.push(super::Conjunct {
                    comment: format!("{} is not at address 0", base.describe()),
                    expr: not_null,
                });
                self.addresses.insert(base, e);
                e
            }
        };
        let address = self.ctx.bvadd(start, off);
        Ok(Sym::Bv(
            if w == 64 {
                address
            } else {
                self.ctx.extract(w as i32 - 1, 0, address)
            },
            w,
        ))
    }

    /// "The untracked pointer `base` is null": one boolean per pointer, noted.
    fn is_null(&mut self, base: Base<'m>) -> SExpr {
        if let Some(e) = self.null_tests.get(&base) {
            return *e;
        }
        let Base::Opaque(v) = base else {
            unreachable!("only untracked pointers get a null test")
        };
        let name = format!(
            "null{}_{}",
            self.fresh_count,
            v.where_()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        self.fresh_count += 1;
        self.q.fresh.push((name.clone(), "Bool".into()));
        self.note(format!(
            "over-approximated: {} may be null",
            base.describe()
        ));
        let e = self.ctx.atom(name);
        self.null_tests.insert(base, e);
        e
    }

    /// Whether two pointers point into the same modelled object (their comparison is
    /// then a comparison of byte offsets).
    fn same_object(&self, a: &Sym<'m>, b: &Sym<'m>) -> bool {
        let base = |s: &Sym<'m>| match s {
            Sym::Ptr(l) | Sym::PtrIdx { loc: l, .. } => Some(l.base),
            _ => None,
        };
        matches!((base(a), base(b)), (Some(x), Some(y)) if x == y)
    }

    /// A pointer's byte offset within its object (64 bits).
    fn byte_offset(&self, s: &Sym<'m>) -> SExpr {
        match s {
            Sym::Ptr(l) => self.bv_const(l.off as u64, 64),
            Sym::PtrIdx { loc, idx, .. } => {
                self.app("bvadd", vec![self.bv_const(loc.off as u64, 64), *idx])
            }
            _ => unreachable!("byte_offset of a pointer into a modelled object"),
        }
    }

    pub(super) fn argument(
        &mut self,
        f: FrameId,
        func: Func<'m>,
        i: u32,
        v: Value<'m>,
    ) -> Result<Sym<'m>> {
        if self.frames[f].func != func {
            return Err(AnalysisError::unsupported(
                "argument of another function",
                v.print(),
            ));
        }
        match self.frames[f].kind.clone() {
            FrameKind::Root => match i {
                0 => {
                    let e = self.ctx.atom("argc");
                    Ok(Sym::Bv(e, 32))
                }
                1 => Ok(Sym::Ptr(Loc {
                    base: Base::Argv,
                    off: 0,
                })),
                _ => Err(AnalysisError::unsupported(
                    "third parameter of main (envp)",
                    func.name(),
                )),
            },
            FrameKind::Call { parent, call } => {
                let a = call.call_args().get(i as usize).copied().ok_or_else(|| {
                    AnalysisError::unsupported("missing call argument", call.where_())
                })?;
                self.value(parent, a)
            }
            FrameKind::Thread { args, label, .. } => {
                args.get(i as usize).cloned().ok_or_else(|| {
                    AnalysisError::unsupported(format!("parameter {i} of {label}"), func.name())
                })
            }
        }
    }

    pub(super) fn phi(&mut self, f: FrameId, v: Value<'m>) -> Result<Sym<'m>> {
        let b = v.block();
        let func = self.frames[f].func;
        let mut arms = Vec::new();
        for (val, p) in v.incoming() {
            if self.facts.back[&func].contains(&(p, b)) {
                self.back_edge(f, p, b);
                continue;
            }
            let taken = {
                let r = self.reach_block(f, p)?;
                let e = self.edge(f, p, b)?;
                self.and(vec![r, e])
            };
            arms.push((taken, self.value(f, val)?));
        }
        let entry = self.merge(arms, v)?;
        if self.summarised_header(f, b) {
            return self.summarise_phi(f, b, v, entry);
        }
        Ok(entry)
    }

    /// `ite(c1, v1, ite(c2, v2, … vn))`.
    pub(super) fn merge(&mut self, arms: Vec<(SExpr, Sym<'m>)>, at: Value<'m>) -> Result<Sym<'m>> {
        let Some((_, last)) = arms.last().cloned() else {
            return self.fresh(at, "value on a path cut by the loop bound");
        };
        let mut acc = last;
        for (c, s) in arms.into_iter().rev().skip(1) {
            acc = match (s, acc) {
                (Sym::Bv(a, w), Sym::Bv(b, w2)) if w == w2 => Sym::Bv(self.ctx.ite(c, a, b), w),
                // Widths differ when memory written with one width is read with another
                // on some path: no well-sorted `ite` joins them.
                (Sym::Bv(_, w), Sym::Bv(_, w2)) if at.ty().shape() == TypeShape::Pointer => {
                    return self.fresh(
                        at,
                        &format!("a pointer that is a {w}-bit value on one path and a {w2}-bit value on another"),
                    );
                }
                (Sym::Bv(_, w), Sym::Bv(_, w2)) => {
                    return Err(AnalysisError::unsupported(
                        format!(
                            "a value that is {w} bits wide on one path and {w2} on another (`{}`)",
                            at.print()
                        ),
                        at.where_(),
                    ))
                }
                (Sym::Ptr(a), Sym::Ptr(b)) if a == b => Sym::Ptr(a),
                (Sym::ArgStr(a), Sym::ArgStr(b)) if a == b => Sym::ArgStr(a),
                (Sym::Func(a), Sym::Func(b)) if a == b => Sym::Func(a),
                // The same choice between argv[k] and a literal, read on two paths (a
                // member set from `argc > 1 ? argv[1] : ""`, loaded again after a branch).
                (
                    Sym::ArgOrLiteral { k, cond: c1, lit },
                    Sym::ArgOrLiteral {
                        k: k2,
                        cond: c2,
                        lit: lit2,
                    },
                ) if k == k2 && lit == lit2 => Sym::ArgOrLiteral {
                    k,
                    cond: self.ctx.ite(c, c1, c2),
                    lit,
                },
                (a, b) if self.arg_or_literal(c, &a, &b).is_some() => {
                    self.arg_or_literal(c, &a, &b).expect("checked")
                }
                // Different objects or functions: an address the formula leaves free
                // (comparisons with it are unconstrained; a load through it is not
                // modelled and says so where it happens).
                (a, b) if at.ty().shape() == TypeShape::Pointer => {
                    return self.fresh(
                        at,
                        &format!(
                            "a pointer that is {} on one path and {} on another",
                            a.describe(),
                            b.describe()
                        ),
                    );
                }
                (a, b) => {
                    return Err(AnalysisError::unsupported(
                        format!(
                            "a value that is {} on one path and {} on another (`{}`)",
                            a.describe(),
                            b.describe(),
                            at.print()
                        ),
                        at.where_(),
                    ))
                }
            };
        }
        Ok(acc)
    }

    pub(super) fn gep(&mut self, f: FrameId, v: Value<'m>) -> Result<Sym<'m>> {
        let base = self.value(f, v.operand(0))?;
        let (mut loc, mut sym) = match base {
            Sym::Ptr(loc) => (loc, None),
            Sym::PtrIdx { loc, idx, stride } => (loc, Some((idx, stride))),
            // An address the analysis leaves free (see `merge`): so is the one derived.
            Sym::Bv(..) if v.ty().shape() == TypeShape::Pointer => {
                return Ok(Sym::Ptr(Loc {
                    base: Base::Opaque(v),
                    off: 0,
                }))
            }
            other => {
                return Err(AnalysisError::unsupported(
                    format!(
                        "an address computed from {} (`{}`)",
                        other.describe(),
                        v.print()
                    ),
                    v.where_(),
                ))
            }
        };
        let mut ty = v.gep_source_type();
        for k in 1..v.operand_count() {
            let idx = v.operand(k);
            // Struct field indices are always constants; array/pointer indices may not be.
            let size = if k == 1 {
                self.m.alloc_size(ty)
            } else {
                match ty.shape() {
                    TypeShape::Struct => {
                        let i = idx.const_int().unwrap_or(0) as u32;
                        loc.off += self.m.offset_of_element(ty, i) as i64;
                        ty = ty.struct_element(i);
                        continue;
                    }
                    TypeShape::Array => {
                        ty = ty.array_element();
                        self.m.alloc_size(ty)
                    }
                    _ => {
                        return Err(AnalysisError::unsupported(
                            format!("getelementptr into `{}`", v.print()),
                            v.where_(),
                        ))
                    }
                }
            };
            let constant = match idx.const_int_signed() {
                Some(i) => Some(i),
                // An index computed from constants (an unrolled copy's counter).
                None => match self.value(f, idx)? {
                    Sym::Bv(e, _) => self.const_bv(e).map(|(i, w)| crate::inputs::signed(i, w)),
                    _ => None,
                },
            };
            match constant {
                Some(i) => loc.off += i * size as i64,
                None => {
                    let (i, w) = self.bv(f, idx)?;
                    let i64_ = if w >= 64 {
                        i
                    } else {
                        self.indexed("sign_extend", 64 - w, i)
                    };
                    let bytes = self.app("bvmul", vec![i64_, self.bv_const(size, 64)]);
                    sym = Some(match sym {
                        None => (bytes, size),
                        Some((prev, stride)) => {
                            (self.app("bvadd", vec![prev, bytes]), gcd(stride, size))
                        }
                    });
                }
            }
        }
        Ok(match sym {
            None => Sym::Ptr(loc),
            Some((idx, stride)) => Sym::PtrIdx {
                loc,
                idx,
                stride: stride.max(1),
            },
        })
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

    pub(super) fn fresh(&mut self, at: Value<'m>, why: &str) -> Result<Sym<'m>> {
        let w = match at.ty().shape() {
            TypeShape::Int(w) => w,
            TypeShape::Pointer => 64,
            _ => {
                return Err(AnalysisError::unsupported(
                    format!("{why} of type other than integer (`{}`)", at.print()),
                    at.where_(),
                ))
            }
        };
        let name = format!(
            "fresh{}_{}",
            self.fresh_count,
            at.where_()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        self.fresh_count += 1;
        self.q.fresh.push((name.clone(), format!("(_ BitVec {w})")));
        self.note(format!("over-approximated: {why} at {}", at.where_()));
        Ok(Sym::Bv(self.ctx.atom(name), w))
    }
}

pub(super) fn width(v: Value<'_>) -> Result<u32> {
    match v.ty().shape() {
        TypeShape::Int(w) => Ok(w),
        TypeShape::Pointer => Ok(64),
        _ => Err(AnalysisError::unsupported(
            format!("value of non-integer type `{}`", v.print()),
            v.where_(),
        )),
    }
}
