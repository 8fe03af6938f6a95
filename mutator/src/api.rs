//! The synchronization APIs syncmut recognises, and the runtime wrapper each one is
//! rewritten to.
//!
//! Functions are recognised by their demangled signature, so every overload is listed
//! explicitly and a new overload in a later SystemC release cannot slip through as a
//! near match. The wrapper contract (see `runtime-lib/README.md`): the wrapper takes
//! `uint32_t site` followed by the original call's arguments (for member functions the
//! object pointer first) and returns what the original returns.
//!
//! Each row also states what the call does ([`Effect`]), which later stages read
//! instead of the function's name. Calls that are not mutated but whose effect the
//! analysis and the scheduler need (thread creation and exit, SystemC process
//! registration, `sc_start`) are in a second table, [`observed`].

pub use crate::effect::Family;
use crate::effect::{Access, Blocking, Effect, Until, When};
use crate::operator::Operator;
use std::collections::HashMap;
use std::sync::OnceLock;

/// How a site's call is rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rewrite {
    /// Call a fixed runtime wrapper (`SyncApi::wrapper`).
    Wrapper,
    /// `sc_fifo<T>` and its ports are templates, so no precompiled wrapper can take
    /// every `T`: the mutator generates a trampoline per callee in the module itself,
    /// which asks the runtime's generic gate what to do and calls `counterpart` (the
    /// blocking/non-blocking twin of the same class) for the swap operator.
    FifoTrampoline {
        access: FifoAccess,
        counterpart: String,
    },
    /// A project's own synchronization function (`[[sync]]`): a trampoline in the
    /// module asks the runtime's `gate` whether the call is removed
    /// (`crate::user_sync`).
    UserTrampoline { gate: &'static str },
    /// The C++20 primitives (`std::counting_semaphore`, `std::latch`, `std::barrier`,
    /// `std::atomic<T>::wait`/`notify_*`) are header templates with no precompiled home,
    /// so, as for `[[sync]]`, a trampoline in the module asks the pthread gate and calls
    /// the library's own function, changed as `changes` says for each operator the
    /// callee's sites may carry (`crate::std_trampoline`).
    StdTrampoline { changes: Vec<(Operator, Change)> },
}

/// What a [`Rewrite::StdTrampoline`] does for one operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// No call; the result is "done" (`true` for a `bool`, else zero).
    Skip,
    /// The call with its `bool` argument `argument` set to `value` (`notify_one` ↔ `notify_all`).
    SetFlag { argument: u32, value: bool },
    /// The call with its integer argument `argument` moved by `by` (an initial count).
    Add { argument: u32, by: i64 },
}

/// The `sc_fifo` member functions syncmut mutates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FifoAccess {
    /// `T read()`.
    ReadValue,
    /// `void read(T&)`.
    Read,
    /// `bool nb_read(T&)`.
    NbRead,
    /// `void write(const T&)`.
    Write,
    /// `bool nb_write(const T&)`.
    NbWrite,
}

impl FifoAccess {
    /// The member function name of the blocking/non-blocking twin.
    pub fn counterpart_name(self) -> &'static str {
        match self {
            FifoAccess::ReadValue | FifoAccess::Read => "nb_read",
            FifoAccess::NbRead => "read",
            FifoAccess::Write => "nb_write",
            FifoAccess::NbWrite => "write",
        }
    }
}

/// One recognised function (one overload).
#[derive(Debug, Clone)]
pub struct SyncApi {
    /// Demangled signature as LLVM's demangler prints it, e.g.
    /// `sc_core::sc_module::wait(sc_core::sc_event const&)` or `pthread_mutex_lock`.
    pub signature: String,
    /// Symbol of the runtime wrapper that replaces the callee.
    pub wrapper: String,
    pub family: Family,
    /// What a call does.
    pub effect: Effect,
    /// Operators that apply to a call of this function.
    pub operators: Vec<Operator>,
    pub rewrite: Rewrite,
}

use Operator::*;

/// pthread, POSIX semaphore and C11 thread functions: (name, effect, operators).
const PTHREAD: &[(&str, Effect, &[Operator])] = &[
    (
        "pthread_mutex_lock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Waits,
        },
        &[Remove, LockToTrylock],
    ),
    (
        "pthread_mutex_trylock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Tries,
        },
        &[Remove],
    ),
    (
        "pthread_mutex_timedlock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Timed,
        },
        &[Remove, TimedlockToLock],
    ),
    (
        "pthread_mutex_unlock",
        Effect::Unlock { lock: 0 },
        &[Remove],
    ),
    (
        "pthread_cond_wait",
        Effect::CondWait {
            cond: 0,
            mutex: 1,
            timed: false,
        },
        &[Remove, WaitToTimedwait],
    ),
    (
        "pthread_cond_timedwait",
        Effect::CondWait {
            cond: 0,
            mutex: 1,
            timed: true,
        },
        &[Remove, TimedwaitToWait],
    ),
    (
        "pthread_cond_signal",
        Effect::CondSignal {
            cond: 0,
            all: false,
        },
        &[Remove, SignalToBroadcast],
    ),
    (
        "pthread_cond_broadcast",
        Effect::CondSignal { cond: 0, all: true },
        &[Remove, BroadcastToSignal],
    ),
    (
        "pthread_rwlock_rdlock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Waits,
        },
        &[Remove, LockToTrylock],
    ),
    (
        "pthread_rwlock_wrlock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Waits,
        },
        &[Remove, LockToTrylock],
    ),
    (
        "pthread_rwlock_unlock",
        Effect::Unlock { lock: 0 },
        &[Remove],
    ),
    (
        "pthread_spin_lock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Waits,
        },
        &[Remove, LockToTrylock],
    ),
    ("pthread_spin_unlock", Effect::Unlock { lock: 0 }, &[Remove]),
    (
        "sem_wait",
        Effect::SemaphoreWait {
            semaphore: 0,
            blocking: Blocking::Waits,
        },
        &[Remove, WaitToTrywait],
    ),
    (
        "sem_trywait",
        Effect::SemaphoreWait {
            semaphore: 0,
            blocking: Blocking::Tries,
        },
        &[Remove],
    ),
    (
        "sem_post",
        Effect::SemaphorePost { semaphore: 0 },
        &[Remove],
    ),
    (
        "pthread_barrier_wait",
        Effect::Barrier { barrier: 0 },
        &[Remove],
    ),
    // Initialisation is not removable (the object would be unusable), only miscounted.
    (
        "pthread_barrier_init",
        Effect::Initialize {
            object: 0,
            count: 2,
        },
        &[BarrierCountUp, BarrierCountDown],
    ),
    (
        "sem_init",
        Effect::Initialize {
            object: 0,
            count: 2,
        },
        &[SemaphoreCountUp, SemaphoreCountDown],
    ),
    ("pthread_join", Effect::Join { thread: 0 }, &[Remove]),
    // C11 <threads.h>: glibc builds them on the pthread objects; the wrappers are the
    // pthread ones with C11's results (runtime-lib/src/c11_wrappers.c).
    (
        "mtx_lock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Waits,
        },
        &[Remove, LockToTrylock],
    ),
    (
        "mtx_trylock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Tries,
        },
        &[Remove],
    ),
    (
        "mtx_timedlock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Timed,
        },
        &[Remove, TimedlockToLock],
    ),
    ("mtx_unlock", Effect::Unlock { lock: 0 }, &[Remove]),
    (
        "cnd_wait",
        Effect::CondWait {
            cond: 0,
            mutex: 1,
            timed: false,
        },
        &[Remove, WaitToTimedwait],
    ),
    (
        "cnd_timedwait",
        Effect::CondWait {
            cond: 0,
            mutex: 1,
            timed: true,
        },
        &[Remove, TimedwaitToWait],
    ),
    (
        "cnd_signal",
        Effect::CondSignal {
            cond: 0,
            all: false,
        },
        &[Remove, SignalToBroadcast],
    ),
    (
        "cnd_broadcast",
        Effect::CondSignal { cond: 0, all: true },
        &[Remove, BroadcastToSignal],
    ),
    ("thrd_join", Effect::Join { thread: 0 }, &[Remove]),
];

/// Overloads shared by `wait` and `next_trigger`: (wrapper suffix, parameter list,
/// what it waits for, operators). Argument positions in `Until` count the listed
/// parameters; member forms shift them by one for the object. `static` sensitivity
/// overloads (`wait()`, `wait(int)`) exist only for `wait`.
const WAIT_OVERLOADS: &[(&str, &str, Until, &[Operator])] = &[
    ("", "", Until::Static, &[Remove]),
    ("_n", "int", Until::Static, &[Remove]),
    (
        "_event",
        "sc_core::sc_event const&",
        Until::Event { event: 0 },
        &[Remove, EventToTimed, WaitToNotify],
    ),
    (
        "_or",
        "sc_core::sc_event_or_list const&",
        Until::Events {
            list: 0,
            all: false,
        },
        &[Remove, EventToTimed, OrToAnd, DropEvent],
    ),
    (
        "_and",
        "sc_core::sc_event_and_list const&",
        Until::Events { list: 0, all: true },
        &[Remove, EventToTimed, AndToOr, DropEvent],
    ),
    (
        "_time",
        "sc_core::sc_time const&",
        Until::Time,
        &[Remove, TimeDouble, TimeZero],
    ),
    (
        "_value",
        "double, sc_core::sc_time_unit",
        Until::Time,
        &[Remove, TimeDouble, TimeZero],
    ),
    (
        "_time_event",
        "sc_core::sc_time const&, sc_core::sc_event const&",
        Until::TimeOrEvents { events: 1 },
        &[Remove, TimeDouble],
    ),
    (
        "_value_event",
        "double, sc_core::sc_time_unit, sc_core::sc_event const&",
        Until::TimeOrEvents { events: 2 },
        &[Remove, TimeDouble],
    ),
    (
        "_time_or",
        "sc_core::sc_time const&, sc_core::sc_event_or_list const&",
        Until::TimeOrEvents { events: 1 },
        &[Remove, DropEvent, TimeDouble],
    ),
    (
        "_value_or",
        "double, sc_core::sc_time_unit, sc_core::sc_event_or_list const&",
        Until::TimeOrEvents { events: 2 },
        &[Remove, DropEvent, TimeDouble],
    ),
    (
        "_time_and",
        "sc_core::sc_time const&, sc_core::sc_event_and_list const&",
        Until::TimeOrEvents { events: 1 },
        &[Remove, DropEvent, TimeDouble],
    ),
    (
        "_value_and",
        "double, sc_core::sc_time_unit, sc_core::sc_event_and_list const&",
        Until::TimeOrEvents { events: 2 },
        &[Remove, DropEvent, TimeDouble],
    ),
];

/// SystemC member functions of channels and events: (signature, wrapper, effect,
/// operators). The object is argument 0.
const SC_MEMBERS: &[(&str, &str, Effect, &[Operator])] = &[
    (
        "sc_core::sc_event::notify()",
        "syncmut_sc_event_notify",
        Effect::Notify {
            event: 0,
            when: When::Immediate,
        },
        &[Remove, NotifyDelta, NotifyTimed, NotifyCancel],
    ),
    (
        "sc_core::sc_event::notify(sc_core::sc_time const&)",
        "syncmut_sc_event_notify_time",
        Effect::Notify {
            event: 0,
            when: When::Timed,
        },
        &[Remove, NotifyImmediate, NotifyDelta, NotifyCancel],
    ),
    (
        "sc_core::sc_event::notify(double, sc_core::sc_time_unit)",
        "syncmut_sc_event_notify_value",
        Effect::Notify {
            event: 0,
            when: When::Timed,
        },
        &[Remove, NotifyImmediate, NotifyDelta, NotifyCancel],
    ),
    (
        "sc_core::sc_event::notify_delayed()",
        "syncmut_sc_event_notify_delayed",
        Effect::Notify {
            event: 0,
            when: When::Delta,
        },
        &[Remove, NotifyImmediate, NotifyCancel],
    ),
    (
        "sc_core::sc_event::notify_delayed(sc_core::sc_time const&)",
        "syncmut_sc_event_notify_delayed_time",
        Effect::Notify {
            event: 0,
            when: When::Timed,
        },
        &[Remove, NotifyImmediate, NotifyCancel],
    ),
    (
        "sc_core::sc_event::notify_delayed(double, sc_core::sc_time_unit)",
        "syncmut_sc_event_notify_delayed_value",
        Effect::Notify {
            event: 0,
            when: When::Timed,
        },
        &[Remove, NotifyImmediate, NotifyCancel],
    ),
    (
        "sc_core::sc_event::cancel()",
        "syncmut_sc_event_cancel",
        Effect::Cancel { event: 0 },
        &[Remove],
    ),
    (
        "sc_core::sc_mutex::lock()",
        "syncmut_sc_mutex_lock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Waits,
        },
        &[Remove, LockToTrylock],
    ),
    (
        "sc_core::sc_mutex::trylock()",
        "syncmut_sc_mutex_trylock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Tries,
        },
        &[Remove],
    ),
    (
        "sc_core::sc_mutex::unlock()",
        "syncmut_sc_mutex_unlock",
        Effect::Unlock { lock: 0 },
        &[Remove],
    ),
    (
        "sc_core::sc_semaphore::wait()",
        "syncmut_sc_semaphore_wait",
        Effect::SemaphoreWait {
            semaphore: 0,
            blocking: Blocking::Waits,
        },
        &[Remove, WaitToTrywait],
    ),
    (
        "sc_core::sc_semaphore::trywait()",
        "syncmut_sc_semaphore_trywait",
        Effect::SemaphoreWait {
            semaphore: 0,
            blocking: Blocking::Tries,
        },
        &[Remove],
    ),
    (
        "sc_core::sc_semaphore::post()",
        "syncmut_sc_semaphore_post",
        Effect::SemaphorePost { semaphore: 0 },
        &[Remove],
    ),
    (
        "sc_core::sc_semaphore::sc_semaphore(int)",
        "syncmut_sc_semaphore_construct",
        Effect::Initialize {
            object: 0,
            count: 1,
        },
        &[SemaphoreCountUp, SemaphoreCountDown],
    ),
    (
        "sc_core::sc_semaphore::sc_semaphore(char const*, int)",
        "syncmut_sc_semaphore_construct_named",
        Effect::Initialize {
            object: 0,
            count: 2,
        },
        &[SemaphoreCountUp, SemaphoreCountDown],
    ),
];

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
fn std_rows() -> Vec<SyncApi> {
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
pub enum GuardCall {
    Construct,
    Member,
}

pub fn guard_call(signature: &str) -> Option<GuardCall> {
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
fn std_template_wait(signature: &str) -> Option<SyncApi> {
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
pub fn library_call(signature: &str) -> Option<SyncApi> {
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

/// The trampoline changes for a semaphore's or barrier's initial count.
fn count_changes(up: Operator, down: Operator) -> Vec<(Operator, Change)> {
    vec![
        (up, Change::Add { argument: 1, by: 1 }),
        (
            down,
            Change::Add {
                argument: 1,
                by: -1,
            },
        ),
    ]
}

fn cpp20_row(
    signature: &str,
    effect: Effect,
    operators: &[Operator],
    changes: Vec<(Operator, Change)>,
) -> SyncApi {
    SyncApi {
        signature: signature.to_string(),
        wrapper: String::new(), // set per callee by discovery, as for sc_fifo
        family: Family::Pthread,
        effect,
        operators: operators.to_vec(),
        rewrite: Rewrite::StdTrampoline { changes },
    }
}

/// The members of the C++20 primitives that stay calls in the user's code at -O0:
/// `std::counting_semaphore<N>` (and `binary_semaphore`, its `<1>`) and `std::barrier<F>`,
/// and the constructors of both and of `std::latch`. Class templates, so recognised by
/// pattern. (The members libstdc++ marks `always_inline` are [`cpp20_inlined`].)
fn cpp20_member(signature: &str) -> Option<SyncApi> {
    let skip = || vec![(Remove, Change::Skip)];
    if signature == "std::latch::latch(long)" {
        return Some(cpp20_row(
            signature,
            Effect::Initialize {
                object: 0,
                count: 1,
            },
            &[BarrierCountUp, BarrierCountDown],
            count_changes(BarrierCountUp, BarrierCountDown),
        ));
    }
    // The demangler prints the count as `<(long)4>`, which `split_member` would take
    // for a parameter list.
    if let Some(rest) = signature.strip_prefix("std::counting_semaphore<") {
        let (_, member) = rest.split_once(">::")?;
        return Some(match member {
            "acquire()" => cpp20_row(
                signature,
                Effect::SemaphoreWait {
                    semaphore: 0,
                    blocking: Blocking::Waits,
                },
                &[Remove],
                skip(),
            ),
            "try_acquire()" => cpp20_row(
                signature,
                Effect::SemaphoreWait {
                    semaphore: 0,
                    blocking: Blocking::Tries,
                },
                &[Remove],
                skip(),
            ),
            "release(long)" => cpp20_row(
                signature,
                Effect::SemaphorePost { semaphore: 0 },
                &[Remove],
                skip(),
            ),
            "counting_semaphore(long)" => cpp20_row(
                signature,
                Effect::Initialize {
                    object: 0,
                    count: 1,
                },
                &[SemaphoreCountUp, SemaphoreCountDown],
                count_changes(SemaphoreCountUp, SemaphoreCountDown),
            ),
            _ => return None,
        });
    }
    // `std::jthread`: its thread starts through the thread hook like a `std::thread`'s,
    // and the `std::thread::join` inside its members is a library call; the user's
    // `join()` and `request_stop()` are sites. Its destruction (request_stop, then join)
    // is not: clang emits one destructor call per way out of the scope (the exception
    // paths too), which would be one mutant each, most never reached.
    match signature {
        "std::jthread::join()" => {
            return Some(cpp20_row(
                signature,
                Effect::Join { thread: 0 },
                &[Remove],
                skip(),
            ))
        }
        "std::jthread::request_stop()" => {
            return Some(cpp20_row(
                signature,
                Effect::AtomicNotify { object: 0 },
                &[Remove],
                skip(),
            ))
        }
        _ => {}
    }
    // `std::lock(a, b, …)`: libstdc++'s deadlock-avoiding algorithm (lock one, try the
    // others, back off) is inner calls; the call is a site with `remove` only (there is
    // no order of the mutexes to swap).
    if signature.starts_with("void std::lock<") {
        return Some(cpp20_row(
            signature,
            Effect::Lock {
                lock: 0,
                blocking: Blocking::Waits,
            },
            &[Remove],
            skip(),
        ));
    }
    // Timed locks: their inner `pthread_mutex_clocklock` is a library call.
    let timed_lock = [
        "bool std::timed_mutex::try_lock_for<",
        "bool std::timed_mutex::try_lock_until<",
        "bool std::recursive_timed_mutex::try_lock_for<",
        "bool std::recursive_timed_mutex::try_lock_until<",
    ];
    if timed_lock.iter().any(|p| signature.starts_with(p)) {
        return Some(cpp20_row(
            signature,
            Effect::Lock {
                lock: 0,
                blocking: Blocking::Timed,
            },
            &[Remove],
            skip(),
        ));
    }
    let (class, member) = split_member(signature)?;
    // A `std::scoped_lock` of several mutexes (one mutex is a table row): as for the
    // one-mutex guards, `remove` on the construction also takes its destruction away
    // (`guard_call`), so the scope runs without the locks.
    if let Some(mutexes) = class
        .strip_prefix("std::scoped_lock<")
        .and_then(|r| r.strip_suffix('>'))
    {
        if mutexes.contains(", ") {
            return Some(if member.starts_with("~scoped_lock(") {
                cpp20_row(signature, Effect::Unlock { lock: 0 }, &[], skip())
            } else if member.starts_with("scoped_lock(") && !member.contains("std::adopt_lock_t") {
                cpp20_row(
                    signature,
                    Effect::Lock {
                        lock: 1,
                        blocking: Blocking::Waits,
                    },
                    &[Remove],
                    skip(),
                )
            } else {
                return None;
            });
        }
    }
    if class.starts_with("std::barrier<") && !class.contains("::arrival_token") {
        let (name, params) = member.split_once('(')?;
        return Some(match name {
            "arrive_and_wait" => {
                cpp20_row(signature, Effect::Barrier { barrier: 0 }, &[Remove], skip())
            }
            "wait" => cpp20_row(signature, Effect::Barrier { barrier: 0 }, &[Remove], skip()),
            "arrive" | "arrive_and_drop" => {
                cpp20_row(signature, Effect::Arrive { barrier: 0 }, &[Remove], skip())
            }
            "barrier" if params.starts_with("long") => cpp20_row(
                signature,
                Effect::Initialize {
                    object: 0,
                    count: 1,
                },
                &[BarrierCountUp, BarrierCountDown],
                count_changes(BarrierCountUp, BarrierCountDown),
            ),
            _ => return None,
        });
    }
    None
}

/// What the user called, for the C++20 members libstdc++ marks `always_inline` (clang
/// inlines them even at -O0): their call is gone, and what stays at the user's line is
/// the library's wait or notify template they called. `header` is the library header
/// the user's call entered (the file of the outermost inlined frame), which tells a
/// latch's `count_down` from an atomic's `notify_all`; `constant_all` is a notify's
/// `bool all` argument when it is a constant. The site is named by the user's call.
pub fn cpp20_inlined(callee: &str, header: &str, constant_all: Option<bool>) -> Option<SyncApi> {
    let skip = vec![(Remove, Change::Skip)];
    let latch = header.ends_with("/latch") || header == "latch";
    if callee.starts_with("void std::__atomic_wait_address<")
        && callee.contains("std::latch::wait() const")
    {
        return Some(cpp20_row(
            "std::latch::wait()",
            Effect::Barrier { barrier: 0 },
            &[Remove],
            skip,
        ));
    }
    if callee.starts_with("void std::__atomic_wait_address_v<") && !latch {
        return Some(cpp20_row(
            "std::atomic::wait()",
            Effect::AtomicWait { object: 0 },
            &[Remove],
            skip,
        ));
    }
    if callee.starts_with("void std::__atomic_notify_address<") {
        // One trampoline serves every call of the instance, a latch's and an atomic's
        // notify alike: it knows every operator any of them may carry.
        let changes = vec![
            (Remove, Change::Skip),
            (
                SignalToBroadcast,
                Change::SetFlag {
                    argument: 1,
                    value: true,
                },
            ),
            (
                BroadcastToSignal,
                Change::SetFlag {
                    argument: 1,
                    value: false,
                },
            ),
        ];
        if latch {
            // Only the wake-up is a call; the count's decrement is an inlined atomic
            // instruction, which stays.
            return Some(cpp20_row(
                "std::latch::count_down()",
                Effect::AtomicNotify { object: 0 },
                &[Remove],
                changes,
            ));
        }
        return Some(match constant_all {
            Some(false) => cpp20_row(
                "std::atomic::notify_one()",
                Effect::AtomicNotify { object: 0 },
                &[Remove, SignalToBroadcast],
                changes,
            ),
            Some(true) => cpp20_row(
                "std::atomic::notify_all()",
                Effect::AtomicNotify { object: 0 },
                &[Remove, BroadcastToSignal],
                changes,
            ),
            None => cpp20_row(
                "std::atomic::notify",
                Effect::AtomicNotify { object: 0 },
                &[Remove],
                changes,
            ),
        });
    }
    None
}

/// C++ standard library calls syncmut does not model: their blocking is done inside
/// libstdc++ (on its own condition variable, or a timed spin on the real clock), outside
/// the controlled scheduler. Discovery warns about each call in user code, naming it and
/// its line.
pub fn std_unmodelled(signature: &str) -> Option<&'static str> {
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

/// A function whose calls are never mutation sites but whose effect later stages
/// need. Every overload counts: their effect does not depend on the parameters.
#[derive(Debug, Clone, Copy)]
pub struct ObservedApi {
    /// The qualified name, without parameters (`sc_core::sc_start`, `pthread_create`).
    pub name: &'static str,
    pub family: Family,
    /// What a call does.
    pub effect: Effect,
    /// The runtime hook every call is rewritten to, wherever it is (a thread the
    /// runtime's scheduler does not know about would run uncontrolled); `None`: the
    /// call stays, tagged with its effect.
    pub hook: Option<&'static str>,
}

const OBSERVED: &[ObservedApi] = &[
    ObservedApi {
        name: "pthread_create",
        family: Family::Pthread,
        effect: Effect::CreateThread {
            routine: 2,
            data: 3,
        },
        hook: Some("syncmut_hook_pthread_create"),
    },
    ObservedApi {
        name: "pthread_exit",
        family: Family::Pthread,
        effect: Effect::ExitThread,
        hook: Some("syncmut_hook_pthread_exit"),
    },
    ObservedApi {
        name: "thrd_create",
        family: Family::Pthread,
        effect: Effect::CreateThread {
            routine: 1,
            data: 2,
        },
        hook: Some("syncmut_hook_thrd_create"),
    },
    ObservedApi {
        name: "thrd_exit",
        family: Family::Pthread,
        effect: Effect::ExitThread,
        hook: Some("syncmut_hook_thrd_exit"),
    },
    ObservedApi {
        name: "sc_core::sc_start",
        family: Family::Systemc,
        effect: Effect::StartSimulation,
        hook: None,
    },
    ObservedApi {
        name: "sc_core::sc_simcontext::create_thread_process",
        family: Family::Systemc,
        effect: Effect::RegisterProcess,
        hook: None,
    },
    ObservedApi {
        name: "sc_core::sc_simcontext::create_method_process",
        family: Family::Systemc,
        effect: Effect::RegisterProcess,
        hook: None,
    },
    ObservedApi {
        name: "sc_core::sc_simcontext::create_cthread_process",
        family: Family::Systemc,
        effect: Effect::RegisterProcess,
        hook: None,
    },
];

/// Looks up a demangled function signature in the table of observed functions.
pub fn observed(signature: &str) -> Option<&'static ObservedApi> {
    let name = signature.split('(').next().unwrap_or(signature);
    OBSERVED.iter().find(|api| api.name == name)
}

fn build_table() -> Vec<SyncApi> {
    let mut table = Vec::new();
    for (name, effect, ops) in PTHREAD {
        table.push(SyncApi {
            signature: (*name).to_string(),
            wrapper: format!("syncmut_{name}"),
            family: Family::Pthread,
            effect: *effect,
            operators: ops.to_vec(),
            rewrite: Rewrite::Wrapper,
        });
    }
    // `wait`/`next_trigger` exist as protected members of sc_module and sc_prim_channel
    // and as sc_core free functions that take the simulation context last.
    let owners = [
        ("sc_core::sc_module::", "sc_module_", ""),
        ("sc_core::sc_prim_channel::", "sc_prim_channel_", ""),
        ("sc_core::", "sc_", "sc_core::sc_simcontext*"),
    ];
    for (prefix, wrapper_owner, trailing) in owners {
        for function in ["wait", "next_trigger"] {
            for (suffix, params, until, ops) in WAIT_OVERLOADS {
                if function == "next_trigger" && matches!(*suffix, "" | "_n") {
                    continue; // next_trigger() has no static-sensitivity overloads
                }
                let params = match (params.is_empty(), trailing.is_empty()) {
                    (_, true) => params.to_string(),
                    (true, false) => trailing.to_string(),
                    (false, false) => format!("{params}, {trailing}"),
                };
                // next_trigger in an SC_METHOD cannot become a notify of the event.
                let ops = ops
                    .iter()
                    .copied()
                    .filter(|op| function == "wait" || *op != WaitToNotify)
                    .collect();
                // Member forms take the object first; the free ones take the context last.
                let until = if trailing.is_empty() {
                    until.shifted(1)
                } else {
                    *until
                };
                table.push(SyncApi {
                    signature: format!("{prefix}{function}({params})"),
                    wrapper: format!("syncmut_{wrapper_owner}{function}{suffix}"),
                    family: Family::Systemc,
                    effect: if function == "wait" {
                        Effect::Wait { until }
                    } else {
                        Effect::NextTrigger { until }
                    },
                    operators: ops,
                    rewrite: Rewrite::Wrapper,
                });
            }
        }
    }
    for (signature, wrapper, effect, ops) in SC_MEMBERS {
        table.push(SyncApi {
            signature: (*signature).to_string(),
            wrapper: (*wrapper).to_string(),
            family: Family::Systemc,
            effect: *effect,
            operators: ops.to_vec(),
            rewrite: Rewrite::Wrapper,
        });
    }
    table.extend(std_rows());
    table
}

/// Every recognised API, in a fixed order.
pub fn all() -> &'static [SyncApi] {
    static TABLE: OnceLock<Vec<SyncApi>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

/// Looks up a demangled function signature: first the fixed table, then the
/// `sc_fifo` family of templates and `std::condition_variable`'s predicate wait.
pub fn lookup(signature: &str) -> Option<SyncApi> {
    static INDEX: OnceLock<HashMap<&'static str, &'static SyncApi>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        all()
            .iter()
            .map(|api| (api.signature.as_str(), api))
            .collect()
    });
    index
        .get(signature)
        .map(|api| (*api).clone())
        .or_else(|| fifo_api(signature))
        .or_else(|| std_template_wait(signature))
        .or_else(|| cpp20_member(signature))
}

/// Recognises `sc_core::sc_fifo<T>`, `sc_fifo_in<T>` and `sc_fifo_out<T>` accesses.
/// The counterpart is named by the caller's class and the twin's name; the mutator
/// checks that the module actually contains it.
fn fifo_api(signature: &str) -> Option<SyncApi> {
    let (class, member) = split_member(signature)?;
    let is_fifo_class = [
        "sc_core::sc_fifo<",
        "sc_core::sc_fifo_in<",
        "sc_core::sc_fifo_out<",
    ]
    .iter()
    .any(|prefix| class.starts_with(prefix));
    if !is_fifo_class {
        return None;
    }
    let (name, params) = member.split_once('(')?;
    let params = params.strip_suffix(')')?;
    let access = match (name, params.is_empty()) {
        ("read", true) => FifoAccess::ReadValue,
        ("read", false) if params.ends_with('&') && !params.ends_with("const&") => FifoAccess::Read,
        ("nb_read", false) => FifoAccess::NbRead,
        ("write", false) => FifoAccess::Write,
        ("nb_write", false) => FifoAccess::NbWrite,
        _ => return None,
    };
    let swap = match access {
        FifoAccess::NbRead | FifoAccess::NbWrite => Operator::NonblockingToBlocking,
        _ => Operator::BlockingToNonblocking,
    };
    let counterpart_params = if access == FifoAccess::ReadValue {
        format!("{}&", template_argument(class)?)
    } else {
        params.to_string()
    };
    Some(SyncApi {
        signature: signature.to_string(),
        wrapper: format!("syncmut.fifo.{class}::{name}"),
        family: Family::Systemc,
        effect: Effect::Fifo {
            fifo: 0,
            access: if matches!(access, FifoAccess::Write | FifoAccess::NbWrite) {
                Access::Write
            } else {
                Access::Read
            },
            blocking: !matches!(access, FifoAccess::NbRead | FifoAccess::NbWrite),
        },
        operators: vec![Remove, swap],
        rewrite: Rewrite::FifoTrampoline {
            access,
            counterpart: format!(
                "{class}::{}({counterpart_params})",
                access.counterpart_name()
            ),
        },
    })
}

/// Splits `ns::cls<T>::member(params)` into the class and `member(params)`, honouring
/// `::` inside template arguments.
fn split_member(signature: &str) -> Option<(&str, &str)> {
    let open = signature.find('(')?;
    let head = &signature[..open];
    let mut depth = 0i32;
    let mut split = None;
    let bytes = head.as_bytes();
    for i in 0..bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && i + 1 < bytes.len() && bytes[i + 1] == b':' => split = Some(i),
            _ => {}
        }
    }
    let at = split?;
    Some((&signature[..at], &signature[at + 2..]))
}

/// `sc_core::sc_fifo<int>` → `int`.
fn template_argument(class: &str) -> Option<&str> {
    let open = class.find('<')?;
    class[open + 1..].strip_suffix('>').map(str::trim_end)
}

/// Demangles an Itanium C++ symbol the way `llvm-cxxfilt` prints it; C names pass
/// through unchanged.
pub fn demangle(symbol: &str) -> String {
    cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle(&cpp_demangle::DemangleOptions::default()).ok())
        .unwrap_or_else(|| symbol.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_and_wrappers_are_unique() {
        let mut sigs = std::collections::HashSet::new();
        let mut wrappers = std::collections::HashSet::new();
        for api in all() {
            assert!(sigs.insert(&api.signature), "{}", api.signature);
            // The std rows share wrappers: libstdc++ builds several classes on one pthread object.
            if !api.wrapper.starts_with("syncmut_std_") {
                assert!(wrappers.insert(&api.wrapper), "{}", api.wrapper);
            }
            // Every call can be removed except an initialisation, which can only be
            // miscounted, and a guard's destruction, which its construction's `remove` takes away.
            let initializes = matches!(api.effect, Effect::Initialize { .. });
            let guard_release = guard_call(&api.signature) == Some(GuardCall::Member)
                && api.signature.contains("::~");
            assert_eq!(
                api.operators.first() == Some(&Operator::Remove),
                !initializes && !guard_release,
                "{}",
                api.signature
            );
        }
    }

    #[test]
    fn demangled_names_match_the_table() {
        let cases = [
            (
                "_ZN7sc_core9sc_module4waitERKNS_8sc_eventE",
                "syncmut_sc_module_wait_event",
            ),
            (
                "_ZN7sc_core9sc_module4waitEdNS_12sc_time_unitE",
                "syncmut_sc_module_wait_value",
            ),
            (
                "_ZN7sc_core4waitERKNS_7sc_timeEPNS_13sc_simcontextE",
                "syncmut_sc_wait_time",
            ),
            ("_ZN7sc_core4waitEPNS_13sc_simcontextE", "syncmut_sc_wait"),
            ("_ZN7sc_core8sc_event6notifyEv", "syncmut_sc_event_notify"),
            ("pthread_mutex_lock", "syncmut_pthread_mutex_lock"),
            (
                "_ZN7sc_core12sc_semaphoreC1Ei",
                "syncmut_sc_semaphore_construct",
            ),
            (
                "_ZN7sc_core12sc_semaphoreC1EPKci",
                "syncmut_sc_semaphore_construct_named",
            ),
            ("_ZNSt5mutex4lockEv", "syncmut_std_mutex_lock"),
            (
                "_ZNSt15recursive_mutex6unlockEv",
                "syncmut_std_mutex_unlock",
            ),
            (
                "_ZNSt10lock_guardISt5mutexEC2ERS0_",
                "syncmut_std_lock_guard",
            ),
            (
                "_ZNSt10lock_guardISt5mutexED2Ev",
                "syncmut_std_lock_guard_release",
            ),
            (
                "_ZNSt11scoped_lockIJSt5mutexEEC2ERS0_",
                "syncmut_std_lock_guard",
            ),
            (
                "_ZNSt11unique_lockISt5mutexE6unlockEv",
                "syncmut_std_unique_lock_unlock",
            ),
            (
                "_ZNSt11shared_lockISt12shared_mutexEC2ERS0_",
                "syncmut_std_shared_lock",
            ),
            (
                "_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE",
                "syncmut_std_condition_variable_wait",
            ),
            (
                "_ZNSt18condition_variable10notify_allEv",
                "syncmut_std_condition_variable_notify_all",
            ),
            ("_ZNSt6thread4joinEv", "syncmut_std_thread_join"),
        ];
        for (mangled, wrapper) in cases {
            let sig = demangle(mangled);
            let api = lookup(&sig).unwrap_or_else(|| panic!("{mangled} → {sig} not found"));
            assert_eq!(api.wrapper, wrapper);
        }
        assert!(lookup(&demangle("_ZN7sc_core8sc_eventC2Ev")).is_none());
        // A predicate wait is a template: recognised by pattern, a trampoline per instance.
        let predicate = lookup(&demangle(
            "_ZNSt18condition_variable4waitIZ4workvE3$_0EEvRSt11unique_lockISt5mutexET_",
        ))
        .unwrap();
        assert_eq!(
            predicate.rewrite,
            Rewrite::UserTrampoline {
                gate: crate::user_gate::PTHREAD_GATE
            }
        );
        assert_eq!(
            guard_call(&demangle("_ZNSt11unique_lockISt5mutexED2Ev")),
            Some(GuardCall::Member)
        );
        assert_eq!(
            guard_call(&demangle("_ZNSt10lock_guardISt5mutexEC2ERS0_")),
            Some(GuardCall::Construct)
        );
        assert_eq!(guard_call("std::mutex::lock()"), None);
        let timed = lookup(&demangle("_ZNSt18condition_variable8wait_forIlSt5ratioILl1ELl1000EEEESt9cv_statusRSt11unique_lockISt5mutexERKNSt6chrono8durationIT_T0_EE")).unwrap();
        assert_eq!(
            timed.effect,
            Effect::CondWait {
                cond: 0,
                mutex: 1,
                timed: true
            }
        );
        // A timed lock is a site; its inner clocklock a scheduling point.
        let timed_lock = lookup(&demangle("_ZNSt11timed_mutex12try_lock_forIlSt5ratioILl1ELl1000EEEEbRKNSt6chrono8durationIT_T0_EE")).unwrap();
        assert_eq!(
            timed_lock.effect,
            Effect::Lock {
                lock: 0,
                blocking: Blocking::Timed
            }
        );
        assert!(library_call("pthread_mutex_clocklock").is_some());
    }

    #[test]
    fn cpp20_members_are_recognised() {
        let api = |mangled: &str| {
            let sig = demangle(mangled);
            lookup(&sig).unwrap_or_else(|| panic!("{mangled} → {sig} not found"))
        };
        assert_eq!(
            api("_ZNSt18counting_semaphoreILl4EE7acquireEv").effect,
            Effect::SemaphoreWait {
                semaphore: 0,
                blocking: Blocking::Waits
            }
        );
        assert_eq!(
            api("_ZNSt18counting_semaphoreILl1EE7releaseEl").effect,
            Effect::SemaphorePost { semaphore: 0 }
        );
        assert_eq!(
            api("_ZNSt18counting_semaphoreILl4EE11try_acquireEv").effect,
            Effect::SemaphoreWait {
                semaphore: 0,
                blocking: Blocking::Tries
            }
        );
        assert_eq!(
            api("_ZNSt18counting_semaphoreILl4EEC2El").operators,
            vec![SemaphoreCountUp, SemaphoreCountDown]
        );
        assert_eq!(
            api("_ZNSt5latchC2El").operators,
            vec![BarrierCountUp, BarrierCountDown]
        );
        assert_eq!(
            api("_ZNSt7barrierISt18__empty_completionEC2ElS0_").operators,
            vec![BarrierCountUp, BarrierCountDown]
        );
        assert_eq!(
            api("_ZNSt7barrierISt18__empty_completionE15arrive_and_waitEv").effect,
            Effect::Barrier { barrier: 0 }
        );
        assert_eq!(
            api("_ZNSt7barrierISt18__empty_completionE6arriveEl").effect,
            Effect::Arrive { barrier: 0 }
        );
        assert_eq!(
            api("_ZNKSt7barrierISt18__empty_completionE4waitEONS1_13arrival_tokenE").effect,
            Effect::Barrier { barrier: 0 }
        );
        // libstdc++'s futex wait, wake and yield: scheduling points in library code.
        for (mangled, wrapper) in [
            ("_ZNSt8__detail15__platform_waitIiEEvPKT_i", "syncmut_std_platform_wait"),
            ("_ZNSt8__detail17__platform_notifyIiEEvPKT_b", "syncmut_std_platform_notify"),
            ("_ZNSt8__detail14__thread_yieldEv", "syncmut_std_thread_yield"),
            ("_ZNSt8__detail26__platform_wait_until_implINSt6chrono8durationIlSt5ratioILl1ELl1000000000EEEEEEbPKiiRKNS2_10time_pointINS2_3_V212steady_clockET_EE", "syncmut_std_platform_wait_until"),
            // A future's wait and wake.
            ("_ZNSt28__atomic_futex_unsigned_base19_M_futex_wait_untilEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE", "syncmut_std_futex_wait_until"),
            ("_ZNSt28__atomic_futex_unsigned_base26_M_futex_wait_until_steadyEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE", "syncmut_std_futex_wait_until_steady"),
            ("_ZNSt28__atomic_futex_unsigned_base19_M_futex_notify_allEPj", "syncmut_std_futex_notify_all"),
        ] {
            let sig = demangle(mangled);
            assert_eq!(library_call(&sig).map(|a| a.wrapper), Some(wrapper.to_string()), "{sig}");
        }
        // Inlined members are named by the header the user's call entered.
        let notify = "void std::__atomic_notify_address<int>(int const*, bool)";
        assert_eq!(
            cpp20_inlined(notify, "/usr/include/c++/12/latch", Some(true))
                .unwrap()
                .signature,
            "std::latch::count_down()"
        );
        assert_eq!(
            cpp20_inlined(
                notify,
                "/usr/include/c++/12/bits/atomic_base.h",
                Some(false)
            )
            .unwrap()
            .operators,
            vec![Remove, SignalToBroadcast]
        );
        assert_eq!(
            cpp20_inlined(notify, "/usr/include/c++/12/bits/atomic_base.h", Some(true))
                .unwrap()
                .operators,
            vec![Remove, BroadcastToSignal]
        );
        // One trampoline per callee serves a latch's and an atomic's notify alike.
        let rewrite = |header: &str| cpp20_inlined(notify, header, Some(false)).unwrap().rewrite;
        assert_eq!(
            rewrite("/usr/include/c++/12/latch"),
            rewrite("/usr/include/c++/12/bits/atomic_base.h")
        );
        // The timed acquisitions spin on the real clock: still a warning.
        assert!(std_unmodelled(&demangle("_ZNSt18counting_semaphoreILl4EE15try_acquire_forIlSt5ratioILl1ELl1000EEEEbRKNSt6chrono8durationIT_T0_EE")).is_some());
    }

    #[test]
    fn effects_name_the_arguments_of_the_original_call() {
        let effect = |sig: &str| {
            lookup(sig)
                .unwrap_or_else(|| panic!("{sig} not found"))
                .effect
        };
        // Member forms count the object as argument 0; the free forms do not.
        assert_eq!(
            effect("sc_core::sc_module::wait(sc_core::sc_event const&)"),
            Effect::Wait {
                until: Until::Event { event: 1 }
            }
        );
        assert_eq!(
            effect("sc_core::wait(sc_core::sc_event const&, sc_core::sc_simcontext*)"),
            Effect::Wait {
                until: Until::Event { event: 0 }
            }
        );
        assert_eq!(
            effect("sc_core::sc_prim_channel::next_trigger(double, sc_core::sc_time_unit, sc_core::sc_event_or_list const&)"),
            Effect::NextTrigger { until: Until::TimeOrEvents { events: 3 } }
        );
        assert_eq!(
            effect("sc_core::sc_event::notify_delayed()"),
            Effect::Notify {
                event: 0,
                when: When::Delta
            }
        );
        assert_eq!(
            effect("pthread_cond_timedwait"),
            Effect::CondWait {
                cond: 0,
                mutex: 1,
                timed: true
            }
        );
        assert_eq!(
            effect("sc_core::sc_fifo<int>::nb_write(int const&)"),
            Effect::Fifo {
                fifo: 0,
                access: Access::Write,
                blocking: false
            }
        );
        assert_eq!(
            effect("sc_core::sc_fifo_in<int>::read()"),
            Effect::Fifo {
                fifo: 0,
                access: Access::Read,
                blocking: true
            }
        );
    }

    #[test]
    fn observed_functions_match_every_overload_and_are_never_sites() {
        let effect = |sig: &str| observed(sig).map(|api| api.effect);
        assert_eq!(
            effect("pthread_create"),
            Some(Effect::CreateThread {
                routine: 2,
                data: 3
            })
        );
        assert_eq!(effect("sc_core::sc_start()"), Some(Effect::StartSimulation));
        assert_eq!(
            effect("sc_core::sc_start(sc_core::sc_time const&, sc_core::sc_starvation_policy)"),
            Some(Effect::StartSimulation)
        );
        assert_eq!(
            effect("sc_core::sc_simcontext::create_method_process(char const*, bool, void (sc_core::sc_process_host::*)(), sc_core::sc_process_host*, sc_core::sc_spawn_options const*)"),
            Some(Effect::RegisterProcess)
        );
        assert_eq!(
            effect("sc_core::sc_simcontext::create_cthread_process(char const*, bool, void (sc_core::sc_process_host::*)(), sc_core::sc_process_host*, sc_core::sc_spawn_options const*)"),
            Some(Effect::RegisterProcess)
        );
        assert_eq!(effect("sc_core::sc_start_of_simulation_invoked()"), None);
        for api in OBSERVED {
            assert!(
                lookup(api.name).is_none()
                    && all()
                        .iter()
                        .all(|site| !site.signature.starts_with(api.name)),
                "{} is also a site",
                api.name
            );
        }
    }

    #[test]
    fn fifo_templates_are_recognised_with_their_counterparts() {
        let counterpart = |sig: &str| match lookup(sig).map(|a| a.rewrite) {
            Some(Rewrite::FifoTrampoline { counterpart, .. }) => counterpart,
            other => panic!("{sig}: {other:?}"),
        };
        assert_eq!(
            counterpart("sc_core::sc_fifo<int>::read()"),
            "sc_core::sc_fifo<int>::nb_read(int&)"
        );
        assert_eq!(
            counterpart("sc_core::sc_fifo<int>::read(int&)"),
            "sc_core::sc_fifo<int>::nb_read(int&)"
        );
        assert_eq!(
            counterpart("sc_core::sc_fifo<int>::nb_write(int const&)"),
            "sc_core::sc_fifo<int>::write(int const&)"
        );
        assert_eq!(
            counterpart("sc_core::sc_fifo_in<std::pair<int, int> >::read()"),
            "sc_core::sc_fifo_in<std::pair<int, int> >::nb_read(std::pair<int, int>&)"
        );
        assert!(lookup("sc_core::sc_fifo<int>::num_free() const").is_none());
        assert!(lookup("sc_core::sc_fifo<int>::update()").is_none());
        assert!(lookup("my::sc_fifo<int>::read()").is_none());
    }
}
