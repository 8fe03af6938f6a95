//! Pointers: address arithmetic (`getelementptr`) over the region map's locations,
//! pointers the analysis does not track (a library's result: it may be null, and equals
//! other pointers only loosely), and a tracked pointer converted to an integer.

use super::calls::ALLOCATORS;
use super::domain::{Base, FrameId, Loc, Sym};
use super::values::width;
use super::Wp;
use crate::error::{AnalysisError, Result};
use crate::ir::{TypeShape, Value};
use easy_smt::SExpr;

pub(super) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl<'m> Wp<'m> {
    /// Whether `s` is a pointer whose target the analysis does not track: returned by
    /// a library function without a model (`getenv`), or loaded from memory it does
    /// not track. Such a pointer may be null, or equal to any other pointer; one
    /// `operator new` returned is never null. (An element of such memory chosen at run
    /// time stays unsupported: following its null tests into the TLM payload's
    /// extension array outgrew memory.)
    pub(super) fn untracked(&self, s: &Sym<'m>) -> bool {
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
    pub(super) fn untracked_equality(
        &mut self,
        a: &Sym<'m>,
        b: &Sym<'m>,
        at: Value<'m>,
    ) -> Result<SExpr> {
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
    pub(super) fn address_as_integer(&mut self, v: Value<'m>, p: Sym<'m>) -> Result<Sym<'m>> {
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
    pub(super) fn same_object(&self, a: &Sym<'m>, b: &Sym<'m>) -> bool {
        let base = |s: &Sym<'m>| match s {
            Sym::Ptr(l) | Sym::PtrIdx { loc: l, .. } => Some(l.base),
            _ => None,
        };
        matches!((base(a), base(b)), (Some(x), Some(y)) if x == y)
    }

    /// A pointer's byte offset within its object (64 bits).
    pub(super) fn byte_offset(&self, s: &Sym<'m>) -> SExpr {
        match s {
            Sym::Ptr(l) => self.bv_const(l.off as u64, 64),
            Sym::PtrIdx { loc, idx, .. } => {
                self.app("bvadd", vec![self.bv_const(loc.off as u64, 64), *idx])
            }
            _ => unreachable!("byte_offset of a pointer into a modelled object"),
        }
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
}
