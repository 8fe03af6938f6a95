//! The C++ standard library's rows: its mutexes, lock guards, condition variables and
//! `std::thread::join`, the condition variable's template waits, the calls inside
//! libstdc++'s inline code that are rewritten as scheduling points (timed waits, futex
//! waits of atomics and futures), and the calls syncmut warns it does not model.

use super::row::{Rewrite, SyncApi};
use super::signature::split_member;
use crate::effect::{Blocking, Effect, Family};
use crate::operator::Operator;
use Operator::*;

/// The C++ standard library's mutexes: (type, runtime name, what its exclusive lock is).
/// libstdc++ builds `mutex`, `recursive_mutex` and `timed_mutex` on a pthread mutex and
/// `shared_mutex` on a pthread rwlock (runtime-lib/src/std_wrappers.c).
const STD_MUTEXES: &[(&str, &str)] = &[
    ("std::mutex", ""),
    ("std::recursive_mutex", ""),
    ("std::timed_mutex", ""),
    ("std::shared_mutex", "_shared_mutex"),
];

/// The RAII guards over one mutex: (class, wrapper stem, whether it has `lock()`/`unlock()`
/// members, which mutexes it takes). `shared_lock` takes the shared side, so it has a
/// wrapper of its own.
const STD_GUARDS: &[(&str, &str, bool)] = &[
    ("lock_guard", "lock_guard", false),
    ("scoped_lock", "lock_guard", false),
    ("unique_lock", "unique_lock", true),
];

/// The rows for the C++ standard library (family `Pthread`: the wrappers are in the C
/// archive and act on the pthread objects inside the standard types). Unlike the other
/// tables, several rows share a wrapper: one type's layout serves several classes.
pub(super) fn std_rows() -> Vec<SyncApi> {
    let row = |signature: String, wrapper: &str, effect: Effect, operators: &[Operator]| SyncApi {
        signature,
        wrapper: format!("syncmut_std_{wrapper}"),
        family: Family::Pthread,
        effect,
        operators: operators.to_vec(),
        rewrite: Rewrite::Wrapper,
    };
    let lock = |object| Effect::Lock {
        lock: object,
        blocking: Blocking::Waits,
    };
    let mut rows = Vec::new();
    for (mutex, stem) in STD_MUTEXES {
        let shared = !stem.is_empty();
        let base = if shared { "shared_mutex" } else { "mutex" };
        rows.push(row(
            format!("{mutex}::lock()"),
            &format!("{base}_lock"),
            lock(0),
            &[Remove, LockToTrylock],
        ));
        rows.push(row(
            format!("{mutex}::unlock()"),
            &format!("{base}_unlock"),
            Effect::Unlock { lock: 0 },
            &[Remove],
        ));
        if shared {
            rows.push(row(
                format!("{mutex}::lock_shared()"),
                "shared_mutex_lock_shared",
                lock(0),
                &[Remove, LockToTrylock],
            ));
            rows.push(row(
                format!("{mutex}::unlock_shared()"),
                "shared_mutex_unlock",
                Effect::Unlock { lock: 0 },
                &[Remove],
            ));
        } else {
            rows.push(row(
                format!("{mutex}::try_lock()"),
                "mutex_try_lock",
                Effect::Lock {
                    lock: 0,
                    blocking: Blocking::Tries,
                },
                &[Remove],
            ));
        }
        let mut guards: Vec<(&str, String, bool)> = STD_GUARDS
            .iter()
            .map(|(class, wrapper, members)| (*class, format!("{wrapper}{stem}"), *members))
            .collect();
        if shared {
            guards.push(("shared_lock", "shared_lock".to_string(), true));
        }
        for (class, wrapper, members) in guards {
            let owner = format!("std::{class}<{mutex}>::");
            // The construction locks (the mutex is argument 1); the destruction unlocks
            // the guard's mutex (argument 0 is the guard). The destruction has no
            // mutants of its own: `remove` on the construction takes it away too.
            rows.push(row(
                format!("{owner}{class}({mutex}&)"),
                &wrapper,
                lock(1),
                &[Remove, LockToTrylock],
            ));
            rows.push(row(
                format!("{owner}~{class}()"),
                &format!("{wrapper}_release"),
                Effect::Unlock { lock: 0 },
                &[],
            ));
            if members {
                rows.push(row(
                    format!("{owner}lock()"),
                    &format!("{wrapper}_lock"),
                    lock(0),
                    &[Remove, LockToTrylock],
                ));
                rows.push(row(
                    format!("{owner}unlock()"),
                    &format!("{wrapper}_unlock"),
                    Effect::Unlock { lock: 0 },
                    &[Remove],
                ));
            }
        }
    }
    let cv = "std::condition_variable::";
    rows.push(row(
        format!("{cv}wait(std::unique_lock<std::mutex>&)"),
        "condition_variable_wait",
        Effect::CondWait {
            cond: 0,
            mutex: 1,
            timed: false,
        },
        &[Remove, WaitToTimedwait],
    ));
    rows.push(row(
        format!("{cv}notify_one()"),
        "condition_variable_notify_one",
        Effect::CondSignal {
            cond: 0,
            all: false,
        },
        &[Remove, SignalToBroadcast],
    ));
    rows.push(row(
        format!("{cv}notify_all()"),
        "condition_variable_notify_all",
        Effect::CondSignal { cond: 0, all: true },
        &[Remove, BroadcastToSignal],
    ));
    rows.push(row(
        "std::thread::join()".to_string(),
        "thread_join",
        Effect::Join { thread: 0 },
        &[Remove],
    ));
    rows
}

/// What a call does to a C++ lock guard object (argument 0), when it is one: its
/// construction locks, its destruction and its `lock()`/`unlock()` members act on the
/// lock the construction named. `remove` on a construction also removes the other calls
/// on the same guard object, so the guard's whole scope runs unlocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GuardCall {
    Construct,
    Member,
}

pub(crate) fn guard_call(signature: &str) -> Option<GuardCall> {
    let (class, member) = split_member(signature)?;
    let (name, _) = class.strip_prefix("std::")?.split_once('<')?;
    if !STD_GUARDS.iter().any(|(guard, _, _)| *guard == name) && name != "shared_lock" {
        return None;
    }
    Some(if member.starts_with(&format!("{name}(")) {
        GuardCall::Construct
    } else {
        GuardCall::Member
    })
}

/// `std::condition_variable::wait(lock, predicate)`: a template (the predicate's type)
/// whose body in the header loops over the plain wait. A call is a site with `remove`
/// (the wait is skipped, predicate unchecked); the plain waits inside stay scheduling
/// points without mutants (`inner` calls, see `discover`).
///
/// `wait_for`/`wait_until` (with or without predicate) are templates too and are
/// recognised the same way; their inner timed wait is libstdc++'s
/// `pthread_cond_clockwait` call ([`library_call`]). Removed, they return at once with
/// a zero result (`cv_status::no_timeout`, or `false` for a predicate that still fails).
pub(super) fn std_template_wait(signature: &str) -> Option<SyncApi> {
    let timed = [
        "std::cv_status std::condition_variable::wait_for<",
        "std::cv_status std::condition_variable::wait_until<",
        "bool std::condition_variable::wait_for<",
        "bool std::condition_variable::wait_until<",
    ];
    let (rest, timed) = match signature.strip_prefix("void std::condition_variable::wait<") {
        Some(rest) => (rest, false),
        None => (timed.iter().find_map(|p| signature.strip_prefix(p))?, true),
    };
    if !rest.contains(">(std::unique_lock<std::mutex>&, ") {
        return None;
    }
    Some(SyncApi {
        signature: signature.to_string(),
        wrapper: String::new(), // set per callee by discovery, as for sc_fifo
        family: Family::Pthread,
        effect: Effect::CondWait {
            cond: 0,
            mutex: 1,
            timed,
        },
        operators: crate::user_gate::OPERATORS.to_vec(),
        rewrite: Rewrite::UserTrampoline {
            gate: crate::user_gate::PTHREAD_GATE,
        },
    })
}

/// The futex wait every wait on a `std::future` comes down to (its first argument is the
/// shared state's `this`, the word waited on is the second), on the system clock.
const FUTURE_WAIT: &str = "std::__atomic_futex_unsigned_base::_M_futex_wait_until(unsigned int*, unsigned int, bool, std::chrono::duration<long, std::ratio<(long)1, (long)1> >, std::chrono::duration<long, std::ratio<(long)1, (long)1000000000> >)";
/// The same on the steady clock (`wait_for`).
const FUTURE_WAIT_STEADY: &str = "std::__atomic_futex_unsigned_base::_M_futex_wait_until_steady(unsigned int*, unsigned int, bool, std::chrono::duration<long, std::ratio<(long)1, (long)1> >, std::chrono::duration<long, std::ratio<(long)1, (long)1000000000> >)";

/// A call that is no site in user code but is rewritten where libstdc++'s inline code
/// makes it, so that it is a scheduling point too: `std::condition_variable::wait_for`'s
/// timed wait, `std::timed_mutex::try_lock_for`'s timed lock, the futex wait, futex wake and spin-loop yield every C++20 wait on an
/// atomic comes down to (runtime-lib/src/atomic_wait.c), and the futex wait and wake of
/// `std::future`, `std::promise` and `std::async` (runtime-lib/src/std_future.c). The futex functions take an
/// `int` on Linux (`__platform_wait_t`); the timed one is matched for the one instance
/// the library makes (a `steady_clock` time point in nanoseconds).
pub(crate) fn library_call(signature: &str) -> Option<SyncApi> {
    const CALLS: &[(&str, &str, Effect)] = &[
        (
            "pthread_cond_clockwait",
            "syncmut_pthread_cond_clockwait",
            Effect::CondWait {
                cond: 0,
                mutex: 1,
                timed: true,
            },
        ),
        (
            "pthread_mutex_clocklock",
            "syncmut_pthread_mutex_clocklock",
            Effect::Lock {
                lock: 0,
                blocking: Blocking::Timed,
            },
        ),
        (
            "void std::__detail::__platform_wait<int>(int const*, int)",
            "syncmut_std_platform_wait",
            Effect::AtomicWait { object: 0 },
        ),
        (
            "void std::__detail::__platform_notify<int>(int const*, bool)",
            "syncmut_std_platform_notify",
            Effect::AtomicNotify { object: 0 },
        ),
        (
            "std::__detail::__thread_yield()",
            "syncmut_std_thread_yield",
            Effect::Yield,
        ),
        (
            FUTURE_WAIT,
            "syncmut_std_futex_wait_until",
            Effect::AtomicWait { object: 1 },
        ),
        (
            FUTURE_WAIT_STEADY,
            "syncmut_std_futex_wait_until_steady",
            Effect::AtomicWait { object: 1 },
        ),
        (
            "std::__atomic_futex_unsigned_base::_M_futex_notify_all(unsigned int*)",
            "syncmut_std_futex_notify_all",
            Effect::AtomicNotify { object: 0 },
        ),
    ];
    let timed = signature.starts_with("bool std::__detail::__platform_wait_until_impl<")
        && signature.contains("(int const*, int, std::chrono::")
        && signature.contains("steady_clock")
        && signature.matches("1000000000").count() == 2;
    let found = if timed {
        Some((
            "",
            "syncmut_std_platform_wait_until",
            Effect::AtomicWait { object: 0 },
        ))
    } else {
        CALLS
            .iter()
            .find(|(name, _, _)| *name == signature)
            .copied()
    };
    found.map(|(_, wrapper, effect)| SyncApi {
        signature: signature.to_string(),
        wrapper: wrapper.to_string(),
        family: Family::Pthread,
        effect,
        operators: Vec::new(),
        rewrite: Rewrite::Wrapper,
    })
}

/// C++ standard library calls syncmut does not model: their blocking is done inside
/// libstdc++ (on its own condition variable, or a timed spin on the real clock), outside
/// the controlled scheduler. Discovery warns about each call in user code, naming it and
/// its line.
pub(crate) fn std_unmodelled(signature: &str) -> Option<&'static str> {
    const PREFIXES: &[(&str, &str)] = &[
        (
            "std::condition_variable_any::",
            "std::condition_variable_any",
        ),
        (
            "std::_V2::condition_variable_any::",
            "std::condition_variable_any",
        ),
    ];
    const TIMED: &[&str] = &[
        "::wait_for<",
        "::wait_until<",
        "::try_lock_for<",
        "::try_lock_until<",
        "::try_lock_shared_for<",
        "::try_lock_shared_until<",
    ];
    let name = signature
        .strip_prefix("void ")
        .or_else(|| signature.strip_prefix("bool "))
        .or_else(|| signature.strip_prefix("std::cv_status "))
        .unwrap_or(signature);
    if let Some((_, what)) = PREFIXES.iter().find(|(prefix, _)| name.starts_with(prefix)) {
        return Some(what);
    }
    let std_sync = [
        "std::timed_mutex::",
        "std::recursive_timed_mutex::",
        "std::shared_timed_mutex::",
        "std::unique_lock<",
        "std::shared_lock<",
    ];
    if std_sync.iter().any(|p| name.starts_with(p)) && TIMED.iter().any(|t| name.contains(t)) {
        return Some("timed locks (try_lock_for, try_lock_until)");
    }
    if name.starts_with("std::counting_semaphore<")
        && (name.contains("::try_acquire_for<") || name.contains("::try_acquire_until<"))
    {
        return Some("timed semaphore acquisitions (try_acquire_for, try_acquire_until: their spin runs on the real clock)");
    }
    // What else of libstdc++'s waits on atomics reaches user code (the timed waits of
    // `std::atomic_ref`, `std::atomic_flag`), when not recognised as a member above.
    if [
        "std::__atomic_wait_address",
        "std::__atomic_notify_address",
        "std::__detail::__platform_wait",
        "std::__detail::__platform_notify",
    ]
    .iter()
    .any(|p| name.starts_with(p))
    {
        return Some("a wait or notify on an atomic that syncmut does not recognise as a member of a C++20 primitive");
    }
    None
}
