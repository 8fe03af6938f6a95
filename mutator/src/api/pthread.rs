//! The pthread rows of the table: pthread functions, POSIX semaphores and C11 threads,
//! each a C function with a wrapper of the same name in the runtime's C archive.

use crate::effect::{Blocking, Effect};
use crate::operator::Operator;
use Operator::*;

/// pthread, POSIX semaphore and C11 thread functions: (name, effect, operators).
pub(super) const PTHREAD: &[(&str, Effect, &[Operator])] = &[
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
