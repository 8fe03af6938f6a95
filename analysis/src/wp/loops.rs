//! Loop summaries, for a site whose formula is unsatisfiable only because paths were
//! cut at a loop that `opt` could not unroll within the bound (a constant trip count
//! above it, or more iterations than the partial unrolling kept).
//!
//! A summarised loop header is entered whenever the loop is (its back edges add no
//! condition), and one fresh boolean per (frame, header), `again`, says whether
//! execution went round the back edge some number of times. When it did, every value
//! the loop may change is unknown: the header's integer phis, each location some
//! store or call in the loop body may write, and the nondet call counter if the body
//! calls nondet functions; the exit edges then keep their conditions over those
//! values, so the loop's exit condition holds after it. When it did not, everything
//! is as without the summary. A location nothing in the loop writes keeps its value:
//! such a loop costs nothing. The result over-approximates, so execution confirms the
//! candidate as for every test.

use super::call_counts::Counted;
use super::domain::{FrameId, Loc, Sym};
use super::Wp;
use crate::error::Result;
use crate::ir::{Block, Opcode, Value};
use easy_smt::SExpr;
use std::collections::HashSet;

impl<'m> Wp<'m> {
    /// Whether `(p, b)` is a back edge of frame `f`'s function.
    pub(super) fn is_back_edge(&self, f: FrameId, p: Block<'m>, b: Block<'m>) -> bool {
        self.facts.back[&self.frames[f].func].contains(&(p, b))
    }

    /// A back edge `p → b` met on the backward walk: summarised (noted) when
    /// summarising, else cut (noted as a cut).
    pub(super) fn back_edge(&mut self, f: FrameId, p: Block<'m>, b: Block<'m>) {
        if self.summarise {
            let at = p.terminator().map(|t| t.where_()).unwrap_or_default();
            let msg = format!(
                "loop at {at} summarised: after the iterations unrolled, what it writes is unknown"
            );
            if !self.q.summarised.contains(&msg) {
                self.q.summarised.push(msg);
            }
            let _ = self.again(f, b);
        } else {
            self.cut(p);
        }
    }

    /// Whether header `b` of frame `f` is a summarised loop header.
    pub(super) fn summarised_header(&self, f: FrameId, b: Block<'m>) -> bool {
        self.summarise
            && self.facts.preds[&self.frames[f].func]
                .get(&b)
                .is_some_and(|ps| ps.iter().any(|p| self.is_back_edge(f, *p, b)))
    }

    /// The boolean "execution went round the loop headed by `b` beyond the unrolled
    /// iterations", one per (frame, header).
    pub(super) fn again(&mut self, f: FrameId, b: Block<'m>) -> SExpr {
        if let Some(e) = self.loops_again.get(&(f, b)) {
            return *e;
        }
        let at = b.terminator().map(|t| t.where_()).unwrap_or_default();
        let name = format!(
            "again{}_{}",
            self.fresh_count,
            at.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        self.fresh_count += 1;
        self.q.fresh.push((name.clone(), "Bool".into()));
        let e = self.ctx.atom(name);
        self.loops_again.insert((f, b), e);
        e
    }

    /// The blocks of the natural loop(s) headed by `b`: `b` and every block that
    /// reaches a back edge into `b` without passing through `b`.
    pub(super) fn loop_body(&self, f: FrameId, b: Block<'m>) -> Vec<Block<'m>> {
        let preds = &self.facts.preds[&self.frames[f].func];
        let mut body = vec![b];
        let mut seen: HashSet<Block<'m>> = HashSet::from([b]);
        let mut work: Vec<Block<'m>> = preds
            .get(&b)
            .into_iter()
            .flatten()
            .copied()
            .filter(|p| self.is_back_edge(f, *p, b))
            .collect();
        while let Some(x) = work.pop() {
            if seen.insert(x) {
                body.push(x);
                work.extend(preds.get(&x).into_iter().flatten().copied());
            }
        }
        body
    }

    /// `value` at the summarised header `b` for integer phi `phi`: unknown when the loop
    /// went round again.
    pub(super) fn summarise_phi(
        &mut self,
        f: FrameId,
        b: Block<'m>,
        phi: Value<'m>,
        entry: Sym<'m>,
    ) -> Result<Sym<'m>> {
        let again = self.again(f, b);
        let later = self.fresh(phi, "value changed by a summarised loop")?;
        self.merge(vec![(again, later), (self.ctx.true_(), entry)], phi)
    }

    /// The value of `loc` at the summarised header `b`, given its value on entry:
    /// unknown when the loop went round again and its body may write `loc`.
    pub(super) fn summarise_location(
        &mut self,
        f: FrameId,
        b: Block<'m>,
        loc: Loc<'m>,
        load: Value<'m>,
        entry: Sym<'m>,
    ) -> Result<Sym<'m>> {
        if !self.loop_may_write(f, b, loc, load) {
            return Ok(entry);
        }
        let again = self.again(f, b);
        let later = self.fresh(load, "memory written by a summarised loop")?;
        self.merge(vec![(again, later), (self.ctx.true_(), entry)], load)
    }

    /// Whether some store or call in the loop headed by `b` may write `loc`. Anything
    /// the model cannot resolve counts as a write.
    fn loop_may_write(&mut self, f: FrameId, b: Block<'m>, loc: Loc<'m>, load: Value<'m>) -> bool {
        // A loaded pointer inside the loop may lead back here; assume the worst.
        if !self.loops_checking.insert((f, b, loc)) {
            return true;
        }
        let mut writes = false;
        'body: for block in self.loop_body(f, b) {
            for j in block.instructions() {
                let hit = match j.opcode() {
                    Some(Opcode::LLVMStore | Opcode::LLVMAtomicRMW | Opcode::LLVMAtomicCmpXchg) => {
                        let address =
                            super::writes::written_address(j).expect("a writing instruction");
                        match self.value(f, address) {
                            Ok(Sym::Ptr(l)) => l == loc,
                            Ok(Sym::PtrIdx { loc: l, .. }) => l.base == loc.base,
                            _ => true,
                        }
                    }
                    Some(Opcode::LLVMCall) | Some(Opcode::LLVMInvoke) => {
                        !matches!(self.through_call(f, j, loc, load), Ok(None))
                    }
                    _ => false,
                };
                if hit {
                    writes = true;
                    break 'body;
                }
            }
        }
        self.loops_checking.remove(&(f, b, loc));
        writes
    }

    /// The count of `c` calls at the summarised header `b`, given its value on entry:
    /// unknown when the loop went round again and its body makes such calls.
    pub(super) fn summarise_count(
        &mut self,
        c: Counted,
        f: FrameId,
        b: Block<'m>,
        at: Value<'m>,
        entry: SExpr,
    ) -> SExpr {
        let counts = self
            .loop_body(f, b)
            .iter()
            .any(|block| block.instructions().iter().any(|j| self.counts(c, f, *j)));
        if !counts {
            return entry;
        }
        let again = self.again(f, b);
        let later = self.unknown_count(c, at, "in a summarised loop");
        self.ctx.ite(again, later, entry)
    }
}
