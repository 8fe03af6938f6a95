//! SMT-LIB term builders over the solver-less easy-smt context, with `and`/`or`
//! simplified on constants so formulas stay readable.

use super::Wp;
use easy_smt::{SExpr, SExprData};

impl<'m> Wp<'m> {
    pub(super) fn app(&self, op: &str, args: Vec<SExpr>) -> SExpr {
        let mut l = vec![self.ctx.atom(op)];
        l.extend(args);
        self.ctx.list(l)
    }

    pub(super) fn indexed(&self, op: &str, n: u32, a: SExpr) -> SExpr {
        let head = self.ctx.list(vec![
            self.ctx.atom("_"),
            self.ctx.atom(op),
            self.ctx.numeral(n),
        ]);
        self.ctx.list(vec![head, a])
    }

    pub(super) fn bv_const(&self, v: u64, w: u32) -> SExpr {
        let v = if w >= 64 { v } else { v & ((1u64 << w) - 1) };
        self.ctx.list(vec![
            self.ctx.atom("_"),
            self.ctx.atom(format!("bv{v}")),
            self.ctx.numeral(w),
        ])
    }

    pub(super) fn bool_to_bv(&self, c: SExpr) -> SExpr {
        self.ctx.ite(c, self.bv_const(1, 1), self.bv_const(0, 1))
    }

    pub(super) fn and(&self, parts: Vec<SExpr>) -> SExpr {
        let t = self.ctx.true_();
        let f = self.ctx.false_();
        let parts: Vec<SExpr> = parts.into_iter().filter(|p| *p != t).collect();
        if parts.contains(&f) {
            return f;
        }
        match parts.len() {
            0 => t,
            1 => parts[0],
            _ => self.ctx.and_many(parts),
        }
    }

    pub(super) fn or(&self, parts: Vec<SExpr>) -> SExpr {
        let t = self.ctx.true_();
        let f = self.ctx.false_();
        let parts: Vec<SExpr> = parts.into_iter().filter(|p| *p != f).collect();
        if parts.contains(&t) {
            return t;
        }
        match parts.len() {
            0 => f,
            1 => parts[0],
            _ => self.ctx.or_many(parts),
        }
    }

    /// The value and width of a bit-vector term built from constants alone (`bvadd`,
    /// `bvsub`, `bvmul`, extensions, `extract`), e.g. a loop counter in an unrolled
    /// copy (`1 + 1`); `None` when it mentions a symbol or another operator.
    pub(super) fn const_bv(&self, e: SExpr) -> Option<(u64, u32)> {
        let mask = |v: u64, w: u32| if w >= 64 { v } else { v & ((1u64 << w) - 1) };
        let atom = |e: SExpr| match self.ctx.get(e) {
            SExprData::Atom(a) => Some(a.to_string()),
            _ => None,
        };
        let SExprData::List(items) = self.ctx.get(e) else {
            return None;
        };
        let items = items.to_vec();
        match items.as_slice() {
            [u, n, w] if atom(*u).as_deref() == Some("_") => {
                let v = atom(*n)?.strip_prefix("bv")?.parse().ok()?;
                let w = atom(*w)?.parse().ok()?;
                Some((v, w))
            }
            [op, a, b] => {
                let (x, w) = self.const_bv(*a)?;
                let (y, _) = self.const_bv(*b)?;
                let v = match atom(*op)?.as_str() {
                    "bvadd" => x.wrapping_add(y),
                    "bvsub" => x.wrapping_sub(y),
                    "bvmul" => x.wrapping_mul(y),
                    _ => return None,
                };
                Some((mask(v, w), w))
            }
            [head, a] => {
                let SExprData::List(h) = self.ctx.get(*head) else {
                    return None;
                };
                let h = h.to_vec();
                let (x, w) = self.const_bv(*a)?;
                match h.as_slice() {
                    [_, op, n] => {
                        let n: u32 = atom(*n)?.parse().ok()?;
                        match atom(*op)?.as_str() {
                            "zero_extend" => Some((x, w + n)),
                            "sign_extend" => {
                                Some((mask(crate::inputs::signed(x, w) as u64, w + n), w + n))
                            }
                            _ => None,
                        }
                    }
                    [_, op, hi, lo] if atom(*op).as_deref() == Some("extract") => {
                        let hi: u32 = atom(*hi)?.parse().ok()?;
                        let lo: u32 = atom(*lo)?.parse().ok()?;
                        Some((mask(x >> lo, hi - lo + 1), hi - lo + 1))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
