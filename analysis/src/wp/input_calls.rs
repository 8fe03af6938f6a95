//! Inputs read through calls: `__VERIFIER_nondet_<type>()` reads the test's nondet list
//! at the position given by the number of nondet calls before it on the path (a
//! symbolic call counter walked backwards like memory), and `syncmut_input_*` reads one
//! named input within the range it is read with. `getopt(argc, argv, "…")` returns the
//! option at a position of the option list, counted the same way: argv is then the
//! words of the options the model chooses. The counts are in `call_counts.rs`.

use super::call_counts::Counted;
use super::domain::{Base, FrameId, Loc, Sym};
use super::query::Conjunct;
use super::Wp;
use crate::error::{AnalysisError, Result};
use crate::ir::{TypeShape, Value};
use easy_smt::SExpr;

impl<'m> Wp<'m> {
    /// `__VERIFIER_nondet_<ty>()`: the value at the list position given by the call
    /// counter just before the call (see `inputs`).
    pub(super) fn nondet_value(&mut self, f: FrameId, v: Value<'m>, ty: &str) -> Result<Sym<'m>> {
        let TypeShape::Int(w) = v.ty().shape() else {
            return Err(AnalysisError::unsupported(
                format!("__VERIFIER_nondet_{ty}() (only integer types are modelled)"),
                v.where_(),
            ));
        };
        if w > 64 {
            return Err(AnalysisError::unsupported(
                format!("__VERIFIER_nondet_{ty}() of {w} bits (at most 64 are modelled)"),
                v.where_(),
            ));
        }
        let position = self.count_before(Counted::Nondet, f, v)?;
        let i = self.q.inputs.nondet_call(ty, w);
        let idx = self.ctx.atom(crate::inputs::nondet_index_symbol(i));
        let val = self.ctx.atom(crate::inputs::nondet_value_symbol(i));
        let limit = self.bv_const(crate::inputs::MAX_NONDET as u64, 32);
        let e = self.ctx.and(
            self.ctx.eq(idx, position),
            self.app("bvult", vec![idx, limit]),
        );
        self.q.conjuncts.push(Conjunct {
            comment: format!("__VERIFIER_nondet_{ty}() at {} reads the value at list position ndi{i} (the calls before it on the path)", v.where_()),
            expr: e,
        });
        for j in 0..i {
            let other_idx = self.ctx.atom(crate::inputs::nondet_index_symbol(j));
            let other_val = self.ctx.atom(crate::inputs::nondet_value_symbol(j));
            let same = self
                .ctx
                .imp(self.ctx.eq(idx, other_idx), self.ctx.eq(val, other_val));
            self.q.conjuncts.push(Conjunct {
                comment: format!("one list position holds one value (nd{i}, nd{j})"),
                expr: same,
            });
        }
        let e = if w == 64 {
            val
        } else {
            self.ctx.extract(w as i32 - 1, 0, val)
        };
        Ok(Sym::Bv(e, w))
    }

    /// `syncmut_input_int(name, lo, hi)` / `syncmut_input_bool(name)`: one symbol per
    /// name, within the range it is read with.
    pub(super) fn named_input(&mut self, f: FrameId, v: Value<'m>, func: &str) -> Result<Sym<'m>> {
        let args = v.call_args();
        let name = match args.first().map(|a| self.value(f, *a)).transpose()? {
            Some(Sym::Ptr(Loc {
                base: Base::Global(g),
                off: 0,
            })) => g.c_string(),
            _ => None,
        };
        let Some(name) = name else {
            return Err(AnalysisError::unsupported(
                format!("{func} with a name that is not a string literal"),
                v.where_(),
            ));
        };
        let range = if func == "syncmut_input_bool" {
            Some((0, 1))
        } else {
            args.get(1)
                .and_then(|a| a.const_int_signed())
                .zip(args.get(2).and_then(|a| a.const_int_signed()))
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
        let e = self.ctx.and(
            self.app("bvsle", vec![lo, x]),
            self.app("bvsle", vec![x, hi]),
        );
        self.q.conjuncts.push(Conjunct {
            comment: format!("named input \"{name}\" within its range ({})", v.where_()),
            expr: e,
        });
        Ok(Sym::Bv(x, 32))
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
        let argv = matches!(
            args.get(1).map(|a| self.value(f, *a)).transpose()?,
            Some(Sym::Ptr(Loc {
                base: Base::Argv,
                off: 0
            }))
        );
        let optstring = match args.get(2).map(|a| self.value(f, *a)).transpose()? {
            Some(Sym::Ptr(Loc {
                base: Base::Global(g),
                off: 0,
            })) => g.c_string(),
            _ => None,
        };
        let (true, true, Some(optstring)) = (argc, argv, optstring) else {
            return Ok(None);
        };
        let i = match self.q.inputs.getopt_call(&optstring) {
            Ok(i) => i,
            Err(AnalysisError::Unsupported(why)) => {
                return Err(AnalysisError::unsupported(why, v.where_()))
            }
            Err(e) => return Err(e),
        };
        let position = self.count_before(Counted::Getopt, f, v)?;
        let idx = self.ctx.atom(crate::inputs::getopt_position_symbol(i));
        let val = self.ctx.atom(crate::inputs::getopt_value_symbol(i));
        let returns: Vec<SExpr> = crate::inputs::getopt_returns(&optstring)
            .into_iter()
            .map(|r| self.ctx.eq(val, self.bv_const(r as u64 & 0xffff_ffff, 32)))
            .collect();
        let limit = self.bv_const(64, 32);
        let e = self.and(vec![
            self.ctx.eq(idx, position),
            self.app("bvult", vec![idx, limit]),
            self.or(returns),
        ]);
        self.q.conjuncts.push(Conjunct { comment: format!("getopt(argc, argv, \"{optstring}\") at {} returns the option at list position goi{i}", v.where_()), expr: e });
        let end = self.bv_const(0xffff_ffff, 32);
        for j in 0..i {
            let (oi, ov) = (
                self.ctx.atom(crate::inputs::getopt_position_symbol(j)),
                self.ctx.atom(crate::inputs::getopt_value_symbol(j)),
            );
            let same = self.ctx.imp(self.ctx.eq(idx, oi), self.ctx.eq(val, ov));
            let after = self.ctx.imp(
                self.ctx
                    .and(self.app("bvult", vec![oi, idx]), self.ctx.eq(ov, end)),
                self.ctx.eq(val, end),
            );
            let before = self.ctx.imp(
                self.ctx
                    .and(self.app("bvult", vec![idx, oi]), self.ctx.eq(val, end)),
                self.ctx.eq(ov, end),
            );
            self.q.conjuncts.push(Conjunct {
                comment: format!(
                    "one list position holds one option, and none follows the end (go{i}, go{j})"
                ),
                expr: self.and(vec![same, after, before]),
            });
        }
        Ok(Some(Sym::Bv(val, 32)))
    }
}
