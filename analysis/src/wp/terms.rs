//! SMT-LIB term builders over the solver-less easy-smt context, with `and`/`or`
//! simplified on constants so formulas stay readable.

use super::Wp;
use easy_smt::SExpr;

impl<'m> Wp<'m> {
    pub(super) fn app(&self, op: &str, args: Vec<SExpr>) -> SExpr {
        let mut l = vec![self.ctx.atom(op)];
        l.extend(args);
        self.ctx.list(l)
    }

    pub(super) fn indexed(&self, op: &str, n: u32, a: SExpr) -> SExpr {
        let head = self.ctx.list(vec![self.ctx.atom("_"), self.ctx.atom(op), self.ctx.numeral(n)]);
        self.ctx.list(vec![head, a])
    }

    pub(super) fn bv_const(&self, v: u64, w: u32) -> SExpr {
        let v = if w >= 64 { v } else { v & ((1u64 << w) - 1) };
        self.ctx.list(vec![self.ctx.atom("_"), self.ctx.atom(format!("bv{v}")), self.ctx.numeral(w)])
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
}
