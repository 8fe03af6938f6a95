//! Call counts: how many calls of one kind a path makes before an instruction. A
//! `__VERIFIER_nondet_*` call reads the nondet list at the position given by the nondet
//! calls before it, and a `getopt` call returns the option at the position given by the
//! getopt calls before it; both counts are walked backwards like memory: through the
//! block, across incoming edges (one `ite` over the edges taken), into the caller at a
//! function's entry, and into a callee's returns where that callee is followed. Where
//! the walk cannot know the count it is a fresh value with a note, so the positions a
//! formula picks are a guess that execution confirms or not.

use super::calls::nondet_type;
use super::domain::{FrameId, FrameKind, MAX_DEPTH};
use super::Wp;
use crate::error::Result;
use crate::ir::{Func, Value};
use easy_smt::SExpr;

/// The kind of call a count counts.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Counted {
    /// `__VERIFIER_nondet_<type>()`, and calls that may make one (functions that do, and
    /// under concurrent nondet calls every scheduling point of a thread).
    Nondet,
    /// `getopt(argc, argv, …)`, and calls into a function that calls it directly.
    Getopt,
}

impl Counted {
    /// What the count counts, for notes.
    fn calls(self) -> &'static str {
        match self {
            Counted::Nondet => "__VERIFIER_nondet_*",
            Counted::Getopt => "getopt",
        }
    }

    /// The stem of the count's fresh symbols.
    fn stem(self) -> &'static str {
        match self {
            Counted::Nondet => "ndcount",
            Counted::Getopt => "gocount",
        }
    }

    /// Whether `callee` is one counted call itself.
    fn is_counted(self, callee: Func<'_>) -> bool {
        match self {
            Counted::Nondet => nondet_type(callee).is_some(),
            Counted::Getopt => callee.name() == "getopt",
        }
    }
}

impl<'m> Wp<'m> {
    /// The number of `c` calls made before instruction `at` of frame `f` (32 bits).
    pub(super) fn count_before(&mut self, c: Counted, f: FrameId, at: Value<'m>) -> Result<SExpr> {
        if let Some(e) = self.call_counts.get(&(c, f, at)) {
            return Ok(*e);
        }
        let e = self.count_before_uncached(c, f, at)?;
        self.call_counts.insert((c, f, at), e);
        Ok(e)
    }

    fn count_before_uncached(&mut self, c: Counted, f: FrameId, at: Value<'m>) -> Result<SExpr> {
        let b = at.block();
        let insts = b.instructions();
        let pos = insts.iter().position(|i| *i == at).unwrap_or(insts.len());
        if let Some(j) = insts[..pos].iter().rev().find(|j| self.counts(c, f, **j)) {
            return self.count_after(c, f, *j);
        }
        if self.frames[f].func.entry() == Some(b) {
            return match self.frames[f].kind.clone() {
                FrameKind::Root => Ok(self.bv_const(0, 32)),
                FrameKind::Call { parent, call } => self.count_before(c, parent, call),
                // getopt in a thread is not modelled; with concurrent nondet calls,
                // other threads' calls interleave with the new thread's.
                FrameKind::Thread { .. }
                    if c == Counted::Getopt || self.facts.concurrent_nondet =>
                {
                    Ok(self.unknown_count(c, at, "at the entry of a thread or process"))
                }
                FrameKind::Thread { creator, point, .. } => self.count_before(c, creator, point),
            };
        }
        let mut arms = Vec::new();
        for (p, taken) in self.incoming(f, b)? {
            let t = p.terminator().expect("predecessor has a terminator");
            let val = if self.counts(c, f, t) {
                self.count_after(c, f, t)?
            } else {
                self.count_before(c, f, t)?
            };
            arms.push((taken, val));
        }
        let Some(acc) = self.ite_arms(arms) else {
            return Ok(self.unknown_count(c, at, "on a path cut by the loop bound"));
        };
        if self.summarised_header(f, b) {
            return Ok(self.summarise_count(c, f, b, at, acc));
        }
        Ok(acc)
    }

    /// Whether call `j` may change the count of `c` calls.
    pub(super) fn counts(&self, c: Counted, f: FrameId, j: Value<'m>) -> bool {
        let Some(callee) = j.called_function() else {
            return false;
        };
        if c.is_counted(callee) {
            return true;
        }
        match c {
            Counted::Nondet => {
                self.facts.nondet_callers.contains(&callee)
                    || (self.facts.concurrent_nondet
                        && self.facts.effects.is_scheduling_point(j)
                        && (self.in_thread(f) || self.facts.effects.starts_threads(j)))
            }
            // One level: deeper helpers are not looked into.
            Counted::Getopt => {
                callee.has_body()
                    && callee.blocks().into_iter().any(|b| {
                        b.instructions()
                            .into_iter()
                            .any(|i| i.called_function().is_some_and(|g| c.is_counted(g)))
                    })
            }
        }
    }

    /// The count just after call `j` (one that [`Self::counts`]): one more after a
    /// counted call; after a call into a function that makes them, the count at its
    /// returns where the walk follows it (nondet calls), unknown otherwise.
    fn count_after(&mut self, c: Counted, f: FrameId, j: Value<'m>) -> Result<SExpr> {
        let callee = j.called_function().expect("counts checked the callee");
        if c.is_counted(callee) {
            let before = self.count_before(c, f, j)?;
            return Ok(self.app("bvadd", vec![before, self.bv_const(1, 32)]));
        }
        let followed = c == Counted::Nondet
            && self.facts.nondet_callers.contains(&callee)
            && callee.has_body()
            && self.frames[f].depth < MAX_DEPTH;
        if !followed {
            let why = match c {
                Counted::Nondet => {
                    "after a synchronization point (other threads may call __VERIFIER_nondet_*)"
                }
                Counted::Getopt => "after a call into a function that calls getopt",
            };
            return Ok(self.unknown_count(c, j, why));
        }
        let arms = self.at_returns(f, j, callee, |wp, child, ret| {
            wp.count_before(c, child, ret)
        })?;
        match self.ite_arms(arms) {
            Some(acc) => Ok(acc),
            None => Ok(self.unknown_count(c, j, "after a call that does not return")),
        }
    }

    /// The value of the first arm whose condition holds, the last arm's otherwise (as
    /// `ite(c1, v1, ite(c2, v2, … vn))`); `None` without arms.
    fn ite_arms(&self, mut arms: Vec<(SExpr, SExpr)>) -> Option<SExpr> {
        let (_, mut acc) = arms.pop()?;
        for (c, v) in arms.into_iter().rev() {
            acc = self.ctx.ite(c, v, acc);
        }
        Some(acc)
    }

    /// A fresh count, with a note saying why the walk could not know it.
    pub(super) fn unknown_count(&mut self, c: Counted, at: Value<'m>, why: &str) -> SExpr {
        let name = format!(
            "{}{}_{}",
            c.stem(),
            self.fresh_count,
            at.where_()
                .replace(|ch: char| !ch.is_ascii_alphanumeric(), "_")
        );
        self.fresh_count += 1;
        self.q
            .fresh
            .push((name.clone(), "(_ BitVec 32)".to_string()));
        self.note(format!(
            "over-approximated: number of {} calls made {why} at {}",
            c.calls(),
            at.where_()
        ));
        self.ctx.atom(name)
    }
}
