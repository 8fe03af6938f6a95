//! What a synchronization call does, as data.
//!
//! Every row of the API table (`api/`) states its call's [`Effect`]. The effect
//! travels with the call to later stages twice: in the catalogue (`Site::effect`) and
//! in the metamutant bitcode, as `!syncmut.effect` metadata on each call the mutator
//! rewrote or recognised ([`CallTag`]). The analysis and the thread hooks ask for the
//! effect instead of parsing function names, so supporting a new API is a table row
//! and a runtime wrapper.
//!
//! Argument positions count the original call's IR arguments, a member function's
//! object being argument 0: `pthread_cond_wait(c, m)` waits on 0 with mutex 1, and
//! `sc_module::wait(e)` on event 1.

use serde::{Deserialize, Serialize};

/// What one call of a recognised function does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Effect {
    /// Takes the lock `lock` (pthread mutex, rwlock or spinlock, `sc_mutex`).
    Lock {
        /// Argument position of the lock.
        lock: u32,
        /// Whether the call waits for the lock.
        blocking: Blocking,
    },
    /// Releases the lock `lock`.
    Unlock {
        /// Argument position of the lock.
        lock: u32,
    },
    /// Decrements the semaphore `semaphore`, waiting while it is zero as `blocking` says.
    SemaphoreWait {
        /// Argument position of the semaphore.
        semaphore: u32,
        /// Whether the call waits while the count is zero.
        blocking: Blocking,
    },
    /// Increments the semaphore `semaphore`.
    SemaphorePost {
        /// Argument position of the semaphore.
        semaphore: u32,
    },
    /// Releases `mutex`, waits for a signal of `cond` (or, `timed`, a deadline) and
    /// takes `mutex` again.
    CondWait {
        /// Argument position of the condition variable.
        cond: u32,
        /// Argument position of the mutex.
        mutex: u32,
        /// Whether the wait also ends at a deadline.
        timed: bool,
    },
    /// Wakes one waiter of `cond`, or all of them (`all`).
    CondSignal {
        /// Argument position of the condition variable.
        cond: u32,
        /// Whether every waiter wakes (a broadcast).
        all: bool,
    },
    /// Sets up the barrier or semaphore `object` with the number of parties or tokens
    /// `count`. Not a scheduling point: no other thread can reach the object yet.
    Initialize {
        /// Argument position of the barrier or semaphore.
        object: u32,
        /// Argument position of the number of parties or tokens.
        count: u32,
    },
    /// Waits until every party has reached `barrier`.
    Barrier {
        /// Argument position of the barrier.
        barrier: u32,
    },
    /// Counts the caller in at the barrier or latch `barrier` without waiting
    /// (`std::barrier::arrive`, `arrive_and_drop`).
    Arrive {
        /// Argument position of the barrier or latch.
        barrier: u32,
    },
    /// Waits until the atomic `object` no longer holds the value it had (C++20
    /// `std::atomic<T>::wait`, and the futex wait every C++20 primitive blocks in).
    AtomicWait {
        /// Argument position of the atomic.
        object: u32,
    },
    /// Wakes the waiters of the atomic `object` (`std::atomic<T>::notify_one`/`notify_all`,
    /// the wake-up of `std::latch::count_down`, the futex wake underneath).
    AtomicNotify {
        /// Argument position of the atomic.
        object: u32,
    },
    /// Lets other threads run (the spin loop of a C++20 wait).
    Yield,
    /// Waits for the thread `thread` to end.
    Join {
        /// Argument position of the thread.
        thread: u32,
    },
    /// Starts a thread that runs the function `routine` with the argument `data`.
    CreateThread {
        /// Argument position of the start routine.
        routine: u32,
        /// Argument position of the routine's argument.
        data: u32,
    },
    /// Ends the calling thread.
    ExitThread,
    /// SystemC `wait(…)`: the calling thread process yields until `until`.
    Wait {
        /// What the process waits for.
        until: Until,
    },
    /// SystemC `next_trigger(…)`: sets when the calling method process runs next; it
    /// does not yield.
    NextTrigger {
        /// What triggers the process next.
        until: Until,
    },
    /// Notifies the event `event`, `when`.
    Notify {
        /// Argument position of the event.
        event: u32,
        /// When the event triggers.
        when: When,
    },
    /// Cancels the pending notification of the event `event`.
    Cancel {
        /// Argument position of the event.
        event: u32,
    },
    /// Reads from or writes to the `sc_fifo` (or fifo port) `fifo`; a non-`blocking`
    /// access fails instead of waiting.
    Fifo {
        /// Argument position of the fifo.
        fifo: u32,
        /// Whether the call reads or writes.
        access: Access,
        /// Whether the call waits for data or room.
        blocking: bool,
    },
    /// Registers a SystemC process (`SC_THREAD`, `SC_CTHREAD`, `SC_METHOD`) of the module under
    /// construction; it first runs at `sc_start`.
    RegisterProcess,
    /// Runs the SystemC simulation, and with it every registered process.
    StartSimulation,
    /// A load or store of memory other threads may share, made a scheduling point by
    /// `--interleave memory`.
    SharedAccess,
}

/// Whether an acquiring call waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Blocking {
    /// Waits as long as it takes.
    Waits,
    /// Fails at once instead of waiting (`trylock`, `trywait`).
    Tries,
    /// Waits up to a deadline, then fails.
    Timed,
}

/// What a SystemC `wait` or `next_trigger` waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "on", rename_all = "kebab-case")]
pub enum Until {
    /// The process's static sensitivity (`wait()`, `wait(n)`).
    Static,
    /// The event `event`.
    Event {
        /// Argument position of the event.
        event: u32,
    },
    /// Any (`all` false) or all events of the list `list`.
    Events {
        /// Argument position of the event list.
        list: u32,
        /// Whether every event of the list must trigger (an and-list).
        all: bool,
    },
    /// A time.
    Time,
    /// A time, or earlier the event or event list `events`.
    TimeOrEvents {
        /// Argument position of the event or event list.
        events: u32,
    },
}

impl Until {
    /// The same, with every argument position moved by `by` (a member form's object).
    pub(crate) fn shifted(self, by: u32) -> Until {
        match self {
            Until::Event { event } => Until::Event { event: event + by },
            Until::Events { list, all } => Until::Events {
                list: list + by,
                all,
            },
            Until::TimeOrEvents { events } => Until::TimeOrEvents {
                events: events + by,
            },
            Until::Static | Until::Time => self,
        }
    }
}

/// When a notification triggers its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum When {
    /// At once, waking only processes already waiting (`notify()`).
    Immediate,
    /// In the next delta cycle (`notify_delayed()`).
    Delta,
    /// After a time, one delta cycle when the time is zero (`notify(t)`).
    Timed,
}

/// Reading or writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    /// The call reads (`read`, `nb_read`).
    Read,
    /// The call writes (`write`, `nb_write`).
    Write,
}

impl Effect {
    /// Whether another thread or process may run at this call before it returns.
    /// Registering a process does not let it run; `sc_start` does. Initialising an object
    /// does not either.
    pub fn is_scheduling_point(self) -> bool {
        !matches!(self, Effect::RegisterProcess | Effect::Initialize { .. })
    }

    /// Whether the call starts other threads or processes.
    pub fn starts_threads(self) -> bool {
        matches!(self, Effect::CreateThread { .. } | Effect::StartSimulation)
    }
}

/// Which threading model a primitive belongs to; decides how the design is linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// POSIX threads, C11 threads and the C++ standard library's threads.
    Pthread,
    /// SystemC processes; the design links the SystemC kernel.
    Systemc,
}

/// The metadata kind of a [`CallTag`].
pub const METADATA_KIND: &str = "syncmut.effect";

/// What the mutator attaches to a call in the metamutant bitcode, as
/// `!syncmut.effect !{!"<this, as JSON>"}`: the call's effect and how to find the
/// effect's arguments among the call's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallTag {
    /// What the call does, as its API row states it.
    pub effect: Effect,
    /// How many arguments the rewrite put before the original call's (the site number,
    /// a thread's name): an argument position of `effect` plus this is the position in
    /// the tagged call.
    pub leading: u32,
    /// Whether the call is a mutation site, whose first argument is then its number.
    pub site: bool,
    /// The threading model of the called function: a SystemC process yields to the
    /// kernel only in SystemC calls.
    pub family: Family,
}

impl CallTag {
    /// The JSON text stored in the metadata.
    pub fn to_metadata(&self) -> String {
        serde_json::to_string(self).expect("a call tag serialises")
    }

    /// Reads the text of a tag; `None` for text this version does not understand.
    pub fn from_metadata(text: &str) -> Option<CallTag> {
        serde_json::from_str(text).ok()
    }

    /// The position in the tagged call of the effect's argument `position`.
    pub fn argument(&self, position: u32) -> usize {
        (self.leading + position) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_through_their_metadata_text() {
        let tag = CallTag {
            effect: Effect::Wait {
                until: Until::Event { event: 1 },
            },
            leading: 1,
            site: true,
            family: Family::Systemc,
        };
        let text = tag.to_metadata();
        assert_eq!(
            text,
            r#"{"effect":{"kind":"wait","until":{"on":"event","event":1}},"leading":1,"site":true,"family":"systemc"}"#
        );
        assert_eq!(CallTag::from_metadata(&text), Some(tag));
        assert_eq!(tag.argument(1), 2);
        assert_eq!(
            CallTag::from_metadata("{\"effect\":{\"kind\":\"teleport\"}}"),
            None
        );
    }
}
