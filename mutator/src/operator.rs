//! Synchronization mutation operators (METHOD.md §4).
//!
//! An operator is named by a stable slug; the slug is what crosses into the runtime
//! library (`SYNCMUT_ACTIVE=<site>:<slug>`) and what the runtime writes back into the
//! trace as the action it performed, so the two sides agree on text, not on numbers.

use serde::{Deserialize, Serialize};

/// One way of injecting a fault into a synchronization call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operator {
    /// Delete the call (a value-returning call reports success).
    Remove,
    /// SystemC `wait(e)` (or an event list) becomes `wait(1, SC_NS)`.
    EventToTimed,
    /// SystemC `wait(e)` becomes `e.notify()`.
    WaitToNotify,
    /// SystemC `wait(e1 | e2)` becomes `wait(e1 & e2)`.
    OrToAnd,
    /// SystemC `wait(e1 & e2)` becomes `wait(e1 | e2)`.
    AndToOr,
    /// The time argument of a timed wait or notify is doubled.
    TimeDouble,
    /// The time argument of a timed wait becomes `SC_ZERO_TIME` (one delta cycle).
    TimeZero,
    /// A notification becomes a delta notification (`notify(SC_ZERO_TIME)`).
    NotifyDelta,
    /// A notification becomes a timed notification (`notify(1, SC_NS)`).
    NotifyTimed,
    /// A delta or timed notification becomes immediate (`notify()`).
    NotifyImmediate,
    /// A notification becomes `cancel()`.
    NotifyCancel,
    /// A blocking lock becomes a try-lock whose failure is ignored.
    LockToTrylock,
    /// A blocking semaphore wait becomes a try-wait whose failure is ignored.
    WaitToTrywait,
    /// `pthread_mutex_timedlock` becomes `pthread_mutex_lock`.
    TimedlockToLock,
    /// `pthread_cond_wait` becomes a `pthread_cond_timedwait` with a short timeout.
    WaitToTimedwait,
    /// `pthread_cond_timedwait` becomes `pthread_cond_wait`.
    TimedwaitToWait,
    /// `pthread_cond_signal` becomes `pthread_cond_broadcast`.
    SignalToBroadcast,
    /// `pthread_cond_broadcast` becomes `pthread_cond_signal`.
    BroadcastToSignal,
    /// A blocking `sc_fifo` read/write becomes `nb_read`/`nb_write`, failure ignored.
    BlockingToNonblocking,
    /// A non-blocking `sc_fifo` access becomes the blocking one.
    NonblockingToBlocking,
}

impl Operator {
    /// Every operator, in catalogue order.
    pub const ALL: [Operator; 20] = [
        Operator::Remove,
        Operator::EventToTimed,
        Operator::WaitToNotify,
        Operator::OrToAnd,
        Operator::AndToOr,
        Operator::TimeDouble,
        Operator::TimeZero,
        Operator::NotifyDelta,
        Operator::NotifyTimed,
        Operator::NotifyImmediate,
        Operator::NotifyCancel,
        Operator::LockToTrylock,
        Operator::WaitToTrywait,
        Operator::TimedlockToLock,
        Operator::WaitToTimedwait,
        Operator::TimedwaitToWait,
        Operator::SignalToBroadcast,
        Operator::BroadcastToSignal,
        Operator::BlockingToNonblocking,
        Operator::NonblockingToBlocking,
    ];

    /// The stable slug used in mutant ids, the runtime's environment and traces.
    pub fn slug(self) -> &'static str {
        match self {
            Operator::Remove => "remove",
            Operator::EventToTimed => "event-to-timed",
            Operator::WaitToNotify => "wait-to-notify",
            Operator::OrToAnd => "or-to-and",
            Operator::AndToOr => "and-to-or",
            Operator::TimeDouble => "time-double",
            Operator::TimeZero => "time-zero",
            Operator::NotifyDelta => "notify-delta",
            Operator::NotifyTimed => "notify-timed",
            Operator::NotifyImmediate => "notify-immediate",
            Operator::NotifyCancel => "notify-cancel",
            Operator::LockToTrylock => "lock-to-trylock",
            Operator::WaitToTrywait => "wait-to-trywait",
            Operator::TimedlockToLock => "timedlock-to-lock",
            Operator::WaitToTimedwait => "wait-to-timedwait",
            Operator::TimedwaitToWait => "timedwait-to-wait",
            Operator::SignalToBroadcast => "signal-to-broadcast",
            Operator::BroadcastToSignal => "broadcast-to-signal",
            Operator::BlockingToNonblocking => "blocking-to-nonblocking",
            Operator::NonblockingToBlocking => "nonblocking-to-blocking",
        }
    }

    /// Parses a slug back into an operator.
    pub fn from_slug(slug: &str) -> Option<Operator> {
        Operator::ALL.into_iter().find(|op| op.slug() == slug)
    }

    /// A human description of the mutation applied to `call` (the call's source text).
    pub fn describe(self, call: &str) -> String {
        match self {
            Operator::Remove => format!("remove {call}"),
            Operator::EventToTimed => format!("{call} → wait(1, SC_NS)"),
            Operator::WaitToNotify => format!("{call} → notify() of the same event"),
            Operator::OrToAnd => format!("{call}: event or-list → and-list"),
            Operator::AndToOr => format!("{call}: event and-list → or-list"),
            Operator::TimeDouble => format!("{call}: double the time argument"),
            Operator::TimeZero => format!("{call}: time argument → SC_ZERO_TIME"),
            Operator::NotifyDelta => format!("{call} → notify(SC_ZERO_TIME)"),
            Operator::NotifyTimed => format!("{call} → notify(1, SC_NS)"),
            Operator::NotifyImmediate => format!("{call} → notify()"),
            Operator::NotifyCancel => format!("{call} → cancel()"),
            Operator::LockToTrylock => format!("{call} → try-lock, failure ignored"),
            Operator::WaitToTrywait => format!("{call} → try-wait, failure ignored"),
            Operator::TimedlockToLock => format!("{call} → pthread_mutex_lock"),
            Operator::WaitToTimedwait => format!("{call} → pthread_cond_timedwait (1 ms)"),
            Operator::TimedwaitToWait => format!("{call} → pthread_cond_wait"),
            Operator::SignalToBroadcast => format!("{call} → pthread_cond_broadcast"),
            Operator::BroadcastToSignal => format!("{call} → pthread_cond_signal"),
            Operator::BlockingToNonblocking => format!("{call} → non-blocking access, failure ignored"),
            Operator::NonblockingToBlocking => format!("{call} → blocking access"),
        }
    }
}

impl std::fmt::Display for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.slug())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for op in Operator::ALL {
            assert!(seen.insert(op.slug()), "duplicate slug {}", op.slug());
            assert_eq!(Operator::from_slug(op.slug()), Some(op));
            // serde and slug must agree: the catalogue and the runtime use both.
            let json = serde_json::to_string(&op).unwrap();
            assert_eq!(json, format!("\"{}\"", op.slug()));
        }
        assert_eq!(Operator::from_slug("no-such-operator"), None);
    }
}
