//! What a call does, for the analysis: read from the `!syncmut.effect` tag the mutator
//! puts on every call it rewrote or recognised (`syncmut_mutator::effect`), not from
//! the called function's name. A new synchronization API thus needs no change here,
//! only its row in the mutator's table.

use crate::ir::{Module, Value};
use std::collections::HashMap;
use syncmut_mutator::api::Family;
use syncmut_mutator::effect::{Blocking, CallTag, Effect, Until, When, METADATA_KIND};

/// The tagged calls of the module `'m`.
pub struct Effects<'m> {
    tags: HashMap<Value<'m>, CallTag>,
    /// The tagged calls in module order (functions, blocks, instructions).
    order: Vec<Value<'m>>,
}

impl<'m> Effects<'m> {
    /// Reads every call's tag once.
    pub fn of(m: &'m Module) -> Effects<'m> {
        let kind = m.metadata_kind(METADATA_KIND);
        let mut tags = HashMap::new();
        let mut order = Vec::new();
        for f in m.functions().into_iter().filter(|f| f.has_body()) {
            for b in f.blocks() {
                for i in b.instructions() {
                    if let Some(tag) = i
                        .metadata_string(kind)
                        .and_then(|text| CallTag::from_metadata(&text))
                    {
                        tags.insert(i, tag);
                        order.push(i);
                    }
                }
            }
        }
        Effects { tags, order }
    }

    fn effect(&self, call: Value<'m>) -> Option<Effect> {
        self.tags.get(&call).map(|t| t.effect)
    }

    /// Every mutation site call with its site number (its first, constant argument), in
    /// module order.
    pub fn sites(&self) -> Vec<(u32, Value<'m>)> {
        self.order
            .iter()
            .filter(|i| self.tags[*i].site)
            .filter_map(|i| Some((i.call_args().first()?.const_int()? as u32, *i)))
            .collect()
    }

    /// For a thread creation: the positions in the call of the start routine and of
    /// its argument.
    pub fn thread_creation(&self, call: Value<'m>) -> Option<(usize, usize)> {
        let tag = self.tags.get(&call)?;
        match tag.effect {
            Effect::CreateThread { routine, data } => {
                Some((tag.argument(routine), tag.argument(data)))
            }
            _ => None,
        }
    }

    /// Whether the call registers a SystemC process.
    pub fn registers_process(&self, call: Value<'m>) -> bool {
        self.effect(call) == Some(Effect::RegisterProcess)
    }

    /// Whether the call is `sc_start`.
    pub fn starts_simulation(&self, call: Value<'m>) -> bool {
        self.effect(call) == Some(Effect::StartSimulation)
    }

    /// Whether the call starts other threads or processes (`pthread_create`, `sc_start`).
    pub fn starts_threads(&self, call: Value<'m>) -> bool {
        self.effect(call).is_some_and(Effect::starts_threads)
    }

    /// For a SystemC `wait(e)` on one event: the event's position in the call.
    pub fn waited_event(&self, call: Value<'m>) -> Option<usize> {
        let tag = self.tags.get(&call)?;
        match tag.effect {
            Effect::Wait {
                until: Until::Event { event },
            } => Some(tag.argument(event)),
            _ => None,
        }
    }

    /// For an `sc_event` notification: the event's position in the call, and whether
    /// the notification is immediate (only an immediate one can be lost: delta and
    /// timed ones wake whoever waits by the end of the delta cycle).
    pub fn notified_event(&self, call: Value<'m>) -> Option<(usize, bool)> {
        let tag = self.tags.get(&call)?;
        match tag.effect {
            Effect::Notify { event, when } => Some((tag.argument(event), when == When::Immediate)),
            _ => None,
        }
    }

    /// Whether a SystemC process may yield to the kernel at this call. Try-waits and
    /// non-blocking fifo accesses count too: this only serves to prove a notify missed,
    /// and counting a call that does not yield only makes fewer notifies missed.
    pub fn may_yield(&self, call: Value<'m>) -> bool {
        self.tags.get(&call).is_some_and(|tag| {
            tag.family == Family::Systemc
                && matches!(
                    tag.effect,
                    Effect::Wait { .. }
                        | Effect::Lock {
                            blocking: Blocking::Waits,
                            ..
                        }
                        | Effect::SemaphoreWait { .. }
                        | Effect::Fifo { .. }
                )
        })
    }

    /// Whether the call is a SystemC event operation that cannot give control away: a
    /// process runs until it waits (the kernel is cooperative), so memory read after
    /// `notify`, `cancel` or `next_trigger` is what the process itself left.
    pub fn never_yields(&self, call: Value<'m>) -> bool {
        self.tags.get(&call).is_some_and(|tag| {
            tag.family == Family::Systemc
                && matches!(
                    tag.effect,
                    Effect::Notify { .. } | Effect::Cancel { .. } | Effect::NextTrigger { .. }
                )
        })
    }

    /// Whether another thread or process may run during the call: a tagged
    /// synchronization call, or a pthread library call the mutator left alone (inside
    /// system headers, or one it does not model such as `pthread_once`), which is
    /// assumed to be one rather than proved not to be.
    pub fn is_scheduling_point(&self, call: Value<'m>) -> bool {
        match self.effect(call) {
            Some(effect) => effect.is_scheduling_point(),
            None => call
                .called_function()
                .is_some_and(|f| f.name().starts_with("pthread_")),
        }
    }
}
