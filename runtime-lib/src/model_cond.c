/* The controlled scheduler's model of the waits that another thread's notification
 * ends: condition variables and futexes (libstdc++'s waits on atomics and futures). The
 * waiters are the scheduler's: the real object is never waited on, and a signal wakes
 * the longest waiter or, under a seeded strategy, a chosen one. Split from scheduler.c
 * with the other blocking models (model_*.c), one file per family of primitives. */
#define _GNU_SOURCE
#include "scheduler.h"
#include "scheduler_internal.h"

#include <errno.h>
#include <stdatomic.h>

#include "races.h"

int syncmut_sched_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int timed)
{
    /* Releasing the mutex and starting to wait is one step, as in pthread_cond_wait. */
    int rc = pthread_mutex_unlock(m);
    if (rc != 0)
        return rc;
    syncmut_races_release(syncmut_sched_self->id, m, 1);
    pthread_mutex_lock(&syncmut_sched_lock);
    syncmut_sched_wake_all(m, W_RETRY);
    syncmut_sched_set_next(syncmut_sched_self, m, NULL, 0); /* once woken: relock the mutex */
    int woken = syncmut_sched_block_on(c, W_COND, timed);
    pthread_mutex_unlock(&syncmut_sched_lock);
    rc = syncmut_sched_acquire(m, syncmut_sched_try_mutex, 0, 0);
    if (rc != 0)
        return rc;
    return woken == WAKE_TIMEOUT ? ETIMEDOUT : 0;
}

/* Wakes every waiter of `obj` or, for a signal, one: the longest waiter (default) or a
 * seeded choice (random). `syncmut_sched_lock` held. */
static void wake_waiters(const void *obj, int kind, int all)
{
    if (all) {
        syncmut_sched_wake_all(obj, kind);
        return;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < syncmut_sched_slots_used; i++) {
        struct sthread *t = &syncmut_sched_threads[i];
        if (load_state(t) == BLOCKED && t->obj == obj && t->kind == kind)
            syncmut_sched_candidates[n++] = t;
    }
    if (n > 0) {
        struct sthread *longest = syncmut_sched_candidates[0];
        for (uint32_t i = 1; i < n; i++)
            if (syncmut_sched_candidates[i]->since < longest->since)
                longest = syncmut_sched_candidates[i];
        syncmut_sched_wake(syncmut_sched_pick_other(K_WAKE, n, longest), WAKE_EVENT);
    }
}

void syncmut_sched_cond_wake(pthread_cond_t *c, int all)
{
    pthread_mutex_lock(&syncmut_sched_lock);
    wake_waiters(c, W_COND, all);
    pthread_mutex_unlock(&syncmut_sched_lock);
}

/* A futex on `addr` (libstdc++'s waits on atomics: std::counting_semaphore, std::latch,
 * std::barrier, std::atomic<T>::wait). Checking the value and blocking is one step, as
 * in the kernel: the caller holds the baton, so no wake can fall in between. */
int syncmut_sched_futex_wait(const int *addr, int expected, int timed)
{
    if (__atomic_load_n(addr, __ATOMIC_SEQ_CST) != expected)
        return EAGAIN;
    pthread_mutex_lock(&syncmut_sched_lock);
    syncmut_sched_set_next(syncmut_sched_self, addr, NULL, 0); /* once woken: the caller's re-check of the value */
    int woken = syncmut_sched_block_on(addr, W_FUTEX, timed);
    pthread_mutex_unlock(&syncmut_sched_lock);
    if (woken == WAKE_TIMEOUT)
        return ETIMEDOUT;
    syncmut_races_acquire(syncmut_sched_self->id, addr, atomic_load_explicit(&syncmut_sched_self->site, memory_order_relaxed), 0);
    return 0;
}

void syncmut_sched_futex_wake(const int *addr, int all)
{
    syncmut_races_release(syncmut_sched_self->id, addr, 0);
    pthread_mutex_lock(&syncmut_sched_lock);
    wake_waiters(addr, W_FUTEX, all);
    pthread_mutex_unlock(&syncmut_sched_lock);
}
