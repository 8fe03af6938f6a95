//! Frames: one function in one calling context (the root, a call from a parent frame,
//! or a thread/process entry created from a creator frame). A site is reached in some
//! context, and every value, block and memory location is evaluated per frame, so the
//! contexts are where the backward walk leaves a function.

use super::domain::{Base, Frame, FrameId, FrameKind, Loc, Sym, MAX_DEPTH};
use super::entries::Creation;
use super::{demangle_hint, Wp};
use crate::error::{AnalysisError, Result};
use crate::ir::{Func, Value};
use easy_smt::SExpr;

/// Most indirect calls followed into one function: a function whose type is shared by
/// many indirect calls (library callbacks, TLM sockets' internals) would multiply the
/// calling contexts of everything above it.
const MAX_INDIRECT_CALLS: usize = 8;

/// Most calling contexts built for one site's formula.
const MAX_FRAMES: usize = 4096;

impl<'m> Wp<'m> {
    pub(super) fn push_frame(
        &mut self,
        func: Func<'m>,
        kind: FrameKind<'m>,
        depth: usize,
    ) -> FrameId {
        self.frames.push(Frame { func, kind, depth });
        let id = self.frames.len() - 1;
        if self.in_notifier {
            self.notifier_frames.insert(id);
        }
        id
    }

    /// Every calling context of `func`, from a root through calls and thread creations.
    pub(super) fn contexts(
        &mut self,
        func: Func<'m>,
        depth: usize,
        visiting: &mut Vec<Func<'m>>,
    ) -> Result<Vec<FrameId>> {
        if self.facts.roots.contains(&func) {
            return Ok(vec![self.root_frame(func)]);
        }
        if self.frames.len() > MAX_FRAMES {
            return Err(AnalysisError::Unsupported(format!(
                "more than {MAX_FRAMES} calling contexts lead to {}: too many to analyse",
                demangle_hint(&func.name())
            )));
        }
        if depth > MAX_DEPTH || visiting.contains(&func) {
            self.q.notes.push(format!(
                "call chains deeper than {MAX_DEPTH} or recursive ones into {} were not followed",
                func.name()
            ));
            return Ok(Vec::new());
        }
        visiting.push(func);
        let mut out = Vec::new();
        if let Some(creations) = self.facts.entries.get(&func).cloned() {
            for c in creations {
                match c {
                    Creation::Pthread { call, arg, guessed } => {
                        if guessed {
                            self.note(format!(
                                "over-approximated: the start routine passed at {} is not followed to its functions within the bound; {} is assumed to be started there, as is every address-taken function with one pointer parameter",
                                call.where_(),
                                demangle_hint(&func.name())
                            ));
                        }
                        let creator = call.block().function();
                        for cf in self.contexts(creator, depth + 1, visiting)? {
                            let a = self.value(cf, arg)?;
                            let label = format!(
                                "pthread start routine {} created at {}",
                                func.name(),
                                call.where_()
                            );
                            self.q.schedule.push(format!(
                                "{label}: reads before the thread's first synchronization point see memory as at its creation (default schedule)"
                            ));
                            out.push(self.push_frame(
                                func,
                                FrameKind::Thread {
                                    creator: cf,
                                    point: call,
                                    args: vec![a],
                                    also: None,
                                    label,
                                },
                                depth,
                            ));
                        }
                    }
                    Creation::Systemc { constructor } => {
                        for ctor in self.contexts(constructor, depth + 1, visiting)? {
                            let this = constructor.param(0).ok_or_else(|| {
                                AnalysisError::unsupported("constructor without this", "?")
                            })?;
                            let this = self.value(ctor, this)?;
                            let root = self.root_of(ctor);
                            let start = self.sc_start(root)?;
                            let label = format!(
                                "SystemC process {} registered in {}",
                                demangle_hint(&func.name()),
                                demangle_hint(&constructor.name())
                            );
                            self.q.schedule.push(format!(
                                "{label}: module fields at process start are their values at sc_start ({}); processes first run in registration order; a `wait(e)` on the path returns only if another process notifies e (below), other blocking calls are assumed to return",
                                start.where_()
                            ));
                            out.push(self.push_frame(
                                func,
                                FrameKind::Thread {
                                    creator: root,
                                    point: start,
                                    args: vec![this],
                                    also: Some(ctor),
                                    label,
                                },
                                depth,
                            ));
                        }
                    }
                    Creation::Spawn { call } | Creation::StdThread { call } => {
                        // The object that starts it (the kernel's spawn object, the
                        // std::thread's state) is built inside the library: the function
                        // and the arguments it holds are not tracked.
                        let (label, statement) = match c {
                            Creation::Spawn { .. } => (
                                format!("SystemC process spawned at {}", call.where_()),
                                "memory at its start is as at the sc_spawn call; the arguments bound to its function are over-approximated",
                            ),
                            _ => (
                                format!("std::thread started at {}", call.where_()),
                                "reads before the thread's first synchronization point see memory as at its construction (default schedule); the function and arguments it was given are over-approximated",
                            ),
                        };
                        let creator = call.block().function();
                        for cf in self.contexts(creator, depth + 1, visiting)? {
                            let object = Sym::Ptr(Loc {
                                base: Base::Opaque(call),
                                off: 0,
                            });
                            self.q.schedule.push(format!("{label}: {statement}"));
                            out.push(self.push_frame(
                                func,
                                FrameKind::Thread {
                                    creator: cf,
                                    point: call,
                                    args: vec![object],
                                    also: None,
                                    label: label.clone(),
                                },
                                depth,
                            ));
                        }
                    }
                }
            }
        }
        for call in self.facts.callers.get(&func).cloned().unwrap_or_default() {
            let caller = call.block().function();
            for parent in self.contexts(caller, depth + 1, visiting)? {
                out.push(self.push_frame(func, FrameKind::Call { parent, call }, depth));
            }
        }
        // A function listed as a thread entry only because some start routine was not
        // followed (every function shaped like one is) is, as far as its contexts go,
        // one no call chain reaches: its calls through pointers count as before.
        let guessed_only = !self.surely_entry(func)
            && self.facts.callers.get(&func).is_none_or(|c| c.is_empty())
            && self
                .facts
                .indirect_callers
                .get(&func)
                .is_some_and(|c| c.len() <= MAX_INDIRECT_CALLS);
        if out.is_empty() {
            out = self.indirect_contexts(func, depth, visiting)?;
        } else if (self.follow_indirect || guessed_only) && !self.surely_entry(func) {
            let more = self.indirect_contexts(func, depth, visiting)?;
            out.extend(more);
        } else if !self.surely_entry(func) {
            // Following indirect calls too would multiply the contexts of every
            // address-taken function; an unsat answer just stops being a proof.
            if let Some(call) = self
                .facts
                .indirect_callers
                .get(&func)
                .and_then(|c| c.first())
            {
                let what = format!(
                    "{} may also be called through a pointer (e.g. at {})",
                    demangle_hint(&func.name()),
                    call.where_()
                );
                if !self.q.unfollowed.contains(&what) {
                    self.q.unfollowed.push(what);
                }
            }
        }
        visiting.pop();
        Ok(out)
    }

    /// Whether `func` is started as a thread or process by some creation that names it,
    /// not only by one whose start routine was not followed (which lists every
    /// function shaped like one, callbacks called through pointers included).
    fn surely_entry(&self, func: Func<'m>) -> bool {
        self.facts.entries.get(&func).is_some_and(|cs| {
            cs.iter()
                .any(|c| !matches!(c, Creation::Pthread { guessed: true, .. }))
        })
    }

    /// The contexts of a function no direct call chain reaches, through the indirect
    /// calls of its type (function pointers, virtual and interface calls). A call
    /// whose called value is known to be another function is left out; otherwise the
    /// call is assumed to reach `func`, an over-approximation the formula's notes name
    /// (candidates are confirmed by execution).
    fn indirect_contexts(
        &mut self,
        func: Func<'m>,
        depth: usize,
        visiting: &mut Vec<Func<'m>>,
    ) -> Result<Vec<FrameId>> {
        let calls = self
            .facts
            .indirect_callers
            .get(&func)
            .cloned()
            .unwrap_or_default();
        if calls.len() > MAX_INDIRECT_CALLS {
            return Err(AnalysisError::Unsupported(format!(
                "{} is reached only through indirect calls, and {} calls in the module have its type (at most {MAX_INDIRECT_CALLS} are followed)",
                demangle_hint(&func.name()),
                calls.len()
            )));
        }
        let mut out = Vec::new();
        for call in calls {
            let caller = call.block().function();
            for parent in self.contexts(caller, depth + 1, visiting)? {
                if let Ok(Sym::Func(known)) = self.value(parent, call.called_value()) {
                    if known != func {
                        continue;
                    }
                }
                self.note(format!(
                    "over-approximated: the indirect call at {} is assumed to reach {}",
                    call.where_(),
                    demangle_hint(&func.name())
                ));
                out.push(self.push_frame(func, FrameKind::Call { parent, call }, depth));
            }
        }
        Ok(out)
    }

    pub(super) fn root_frame(&mut self, func: Func<'m>) -> FrameId {
        if let Some(i) = self
            .frames
            .iter()
            .position(|f| f.func == func && matches!(f.kind, FrameKind::Root))
        {
            return i;
        }
        self.push_frame(func, FrameKind::Root, 0)
    }

    pub(super) fn root_of(&self, mut f: FrameId) -> FrameId {
        loop {
            match &self.frames[f].kind {
                FrameKind::Root => return f,
                FrameKind::Call { parent, .. } => f = *parent,
                FrameKind::Thread { creator, .. } => f = *creator,
            }
        }
    }

    pub(super) fn sc_start(&self, root: FrameId) -> Result<Value<'m>> {
        let f = self.frames[root].func;
        for b in f.blocks() {
            for i in b.instructions() {
                if self.facts.effects.starts_simulation(i) {
                    return Ok(i);
                }
            }
        }
        Err(AnalysisError::Unsupported(format!(
            "SystemC design without a call to sc_start in {}: not supported yet",
            f.name()
        )))
    }

    /// Condition under which the frame is entered at all.
    pub(super) fn frame_reach(&mut self, f: FrameId) -> Result<SExpr> {
        match self.frames[f].kind.clone() {
            FrameKind::Root => Ok(self.ctx.true_()),
            FrameKind::Call { parent, call } => {
                let here = self.reach_block(parent, call.block())?;
                let before = self.block_returns(parent, call.block(), Some(call))?;
                let up = self.frame_reach(parent)?;
                Ok(self.and(vec![here, before, up]))
            }
            FrameKind::Thread {
                creator,
                point,
                also,
                ..
            } => {
                let here = self.reach_block(creator, point.block())?;
                let up = self.frame_reach(creator)?;
                let mut parts = vec![here, up];
                if let Some(a) = also {
                    parts.push(self.frame_reach(a)?);
                }
                // A start routine taken from a table or a local: the creation starts
                // this function only when the value is it.
                let func = self.frames[f].func;
                if let Some(c) = self.starts(creator, point, func)? {
                    parts.push(c);
                }
                Ok(self.and(parts))
            }
        }
    }

    /// The thread or process entry frame `f` runs in; `None` in a root.
    pub(super) fn thread_entry(&self, mut f: FrameId) -> Option<Func<'m>> {
        loop {
            match &self.frames[f].kind {
                FrameKind::Root => return None,
                FrameKind::Call { parent, .. } => f = *parent,
                FrameKind::Thread { .. } => return Some(self.frames[f].func),
            }
        }
    }

    pub(super) fn in_thread(&self, mut f: FrameId) -> bool {
        loop {
            match &self.frames[f].kind {
                FrameKind::Root => return false,
                FrameKind::Call { parent, .. } => f = *parent,
                FrameKind::Thread { .. } => return true,
            }
        }
    }
}
