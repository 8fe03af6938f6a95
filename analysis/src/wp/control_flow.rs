//! Control flow within a frame: a block is reached when some predecessor is reached and
//! its edge to the block is taken; loop back edges are cut (and the cut is noted), so
//! paths through more iterations than `opt` unrolled are not followed.

use super::domain::FrameId;
use super::query::Definition;
use super::{demangle_hint, Wp};
use crate::error::{AnalysisError, Result};
use crate::ir::{Block, Opcode, Value};
use easy_smt::SExpr;

impl<'m> Wp<'m> {
    /// Condition under which block `b` of frame `f` is entered (given the frame is).
    pub(super) fn reach_block(&mut self, f: FrameId, b: Block<'m>) -> Result<SExpr> {
        if let Some(e) = self.reach.get(&(f, b)) {
            return Ok(*e);
        }
        let func = self.frames[f].func;
        let e = if func.entry() == Some(b) {
            self.ctx.true_()
        } else {
            let preds = self.facts.preds[&func].get(&b).cloned().unwrap_or_default();
            let mut alts = Vec::new();
            for p in preds {
                if self.facts.back[&func].contains(&(p, b)) {
                    self.back_edge(f, p, b);
                    continue;
                }
                let edge = self.edge(f, p, b)?;
                self.meter.check()?;
                let pr = crate::budget::deep(|| self.reach_block(f, p))?;
                let through = self.block_returns(f, p, None)?;
                alts.push(self.and(vec![pr, through, edge]));
            }
            self.or(alts)
        };
        self.reach.insert((f, b), e);
        Ok(e)
    }

    /// The predecessors of block `b` of frame `f`, each with the condition of arriving
    /// from it (predecessor entered ∧ edge taken); back edges are cut, and the cut noted.
    pub(super) fn incoming(&mut self, f: FrameId, b: Block<'m>) -> Result<Vec<(Block<'m>, SExpr)>> {
        let func = self.frames[f].func;
        let preds = self.facts.preds[&func].get(&b).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for p in preds {
            if self.facts.back[&func].contains(&(p, b)) {
                self.back_edge(f, p, b);
                continue;
            }
            let r = self.reach_block(f, p)?;
            let e = self.edge(f, p, b)?;
            out.push((p, self.and(vec![r, e])));
        }
        Ok(out)
    }

    pub(super) fn cut(&mut self, p: Block<'m>) {
        let at = p.terminator().map(|t| t.where_()).unwrap_or_default();
        let msg = format!("loop at {at} iterates beyond the unroll bound {} (paths through further iterations cut)", self.bound);
        if !self.q.cut.contains(&msg) {
            self.q.cut.push(msg);
        }
    }

    /// Condition of the CFG edge p → b.
    pub(super) fn edge(&mut self, f: FrameId, p: Block<'m>, b: Block<'m>) -> Result<SExpr> {
        let t = p
            .terminator()
            .ok_or_else(|| AnalysisError::unsupported("block without terminator", p.name()))?;
        match t.opcode() {
            Some(Opcode::LLVMBr) if t.is_conditional_branch() => {
                let c = self.branch_condition(f, t)?;
                let (on_true, on_false) = (t.successor(0) == b, t.successor(1) == b);
                Ok(match (on_true, on_false) {
                    (true, true) => self.ctx.true_(),
                    (true, false) => c,
                    (false, true) => self.ctx.not(c),
                    _ => self.ctx.false_(),
                })
            }
            Some(Opcode::LLVMBr) => Ok(self.ctx.true_()),
            Some(Opcode::LLVMSwitch) => {
                let (x, w) = self.bv(f, t.condition())?;
                let cases = t.switch_cases();
                let mut hits = Vec::new();
                let mut all = Vec::new();
                for (v, dest) in &cases {
                    let k = self.bv_const(v.const_int().unwrap_or(0), w);
                    let eq = self.ctx.eq(x, k);
                    all.push(eq);
                    if *dest == b {
                        hits.push(eq);
                    }
                }
                if t.successor(0) == b {
                    let any = self.or(all);
                    hits.push(self.ctx.not(any));
                }
                Ok(self.or(hits))
            }
            Some(Opcode::LLVMInvoke) => {
                if t.successor(0) == b {
                    Ok(self.ctx.true_())
                } else {
                    // Unwind edge: exceptions are not modelled (no path).
                    Ok(self.ctx.false_())
                }
            }
            _ => Err(AnalysisError::unsupported(
                format!("terminator `{}`", t.print()),
                t.where_(),
            )),
        }
    }

    /// A branch condition as a named definition (so the formula file names its line).
    pub(super) fn branch_condition(&mut self, f: FrameId, t: Value<'m>) -> Result<SExpr> {
        if let Some(e) = self.edge_defs.get(&(f, t)) {
            return Ok(*e);
        }
        let (c, _) = self.bv(f, t.condition())?;
        let one = self.bv_const(1, 1);
        let expr = self.ctx.eq(c, one);
        let name = format!(
            "br{}_{}",
            self.q.definitions.len(),
            t.where_()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        self.q.definitions.push(Definition {
            name: name.clone(),
            sort: "Bool".into(),
            expr,
            comment: format!(
                "branch at {} in {}",
                t.where_(),
                demangle_hint(&self.frames[f].func.name())
            ),
        });
        let atom = self.ctx.atom(name);
        self.edge_defs.insert((f, t), atom);
        Ok(atom)
    }
}
