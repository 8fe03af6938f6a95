//! Symbolic values: the SSA definition of a value evaluated on demand per frame (the
//! module is in SSA form, so this is the same as substituting backwards), including
//! arguments, phis, address arithmetic and the results of calls.
//!
//! Pointers (address arithmetic, untracked pointers, pointers as integers) are in
//! `pointers.rs`; the results of calls in `call_results.rs`.

use super::domain::{Base, FrameId, FrameKind, Loc, Sym};
use super::Wp;
use crate::error::{AnalysisError, Result};
use crate::ir::{self, Func, Opcode, TypeShape, Value};
use easy_smt::SExpr;

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
