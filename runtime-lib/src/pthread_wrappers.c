/* Wrappers for the pthread and POSIX semaphore calls listed in mutator/src/api.rs.
 *
 * Contract: syncmut_<name>(site, original arguments...) returns what <name> returns.
 * Each wrapper asks which operator its site applies, records the event (before acting,
 * so a thread that then blocks forever still shows where it stopped), then acts. With
 * real threads a blocking acquisition (lock, semaphore wait) records its event once it
 * holds the object instead: the trace's order is then the order of acquisitions, which
 * the original's run in the order of a run's events (`events:`) follows. Recorded at
 * entry, a thread that lost the race for a lock came first in the trace, and the
 * original in that order took another interleaving (a quarter of such runs on a program
 * of five critical sections).
 * `remove` does nothing and reports success (0).
 *
 * Under the controlled scheduler (SYNCMUT_SCHEDULE, scheduler.c) every wrapper is a
 * scheduling point taken before the event is recorded (so the trace's order is the
 * order in which the calls act), and calls that may block go through the scheduler's
 * model instead of blocking for real. Mutated actions go through the same model.
 * Without it, each wrapper performs exactly the call (or mutation) it always did. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <time.h>

#include "activation.h"
#include "syncmut_protocol.h"
#include "pthread_wrappers.h"
#include "scheduler.h"
#include "trace.h"
#include "virtual_clock.h"

/* One wrapped call: the operator its site applies, and whether the scheduler runs it. */
struct call {
    syncmut_op op;
    int sched;
    /* With real threads, a blocking acquisition's event waits for end(): its site and
     * operator. */
    int deferred;
    uint32_t site;
    syncmut_op traced;
};

/* The operator for this call, checked against what this wrapper implements; under the
 * scheduler, the scheduling point; then the event. */
static struct call begin(uint32_t site, uint32_t allowed, const char *wrapper, const void *a,
                         const void *b, int lock, int acquires)
{
    syncmut_op op;
    struct call call = {0};
    if (site == (uint32_t)SYNCMUT_SITE_INNER) {
        /* A library's own call (a std::mutex body's pthread_mutex_lock): the original
         * call, a scheduling point, no event of its own. */
        call.op = SYNCMUT_ORIGINAL;
        call.sched = syncmut_sched_controls_me();
        if (call.sched)
            syncmut_sched_enter_lock(site, a, b, lock);
        return call;
    }
    if (site & SYNCMUT_SITE_COPY) {
        /* A copy placed by a moving operator: it performs the call only while its mutant
         * is active, and is otherwise absent (no event, no scheduling point), so runs of
         * other mutants and of the original see the same program. */
        if (!syncmut_copy_active(site & ~(uint32_t)SYNCMUT_SITE_COPY, &site, &op))
            return (struct call){.op = SYNCMUT_REMOVE};
        call.op = SYNCMUT_ORIGINAL;
    } else {
        op = syncmut_op_for(site, allowed, wrapper);
        if (SYNCMUT_MOVES_CALL & (UINT32_C(1) << op))
            return (struct call){.op = SYNCMUT_REMOVE}; /* its copy stands for it */
        /* remove-lock-pair removes the call like `remove`; the event names the operator. */
        call.op = op == SYNCMUT_REMOVE_LOCK_PAIR ? SYNCMUT_REMOVE : op;
    }
    call.sched = syncmut_sched_controls_me();
    if (call.sched) /* a, b both NULL: touches everything; a mutated lock need not block */
        syncmut_sched_enter_lock(site, a, b, call.op == SYNCMUT_ORIGINAL ? lock : 0);
    if (acquires && !call.sched && call.op == SYNCMUT_ORIGINAL) {
        call.deferred = 1;
        call.site = site;
        call.traced = op;
        return call;
    }
    syncmut_trace_pthread(site, op, a == SYNCMUT_SCHED_JOIN);
    return call;
}

/* Leaves the wrapped call (for the end record) and returns its result. */
static int end(struct call call, int result)
{
    if (call.deferred)
        syncmut_trace_pthread(call.site, call.traced, 0);
    if (call.sched)
        syncmut_sched_leave();
    return result;
}

/* A non-blocking acquisition's result; when it succeeded under the scheduler, the race
 * detector orders the caller after the object's last release. */
static int tried(struct call call, const void *obj, int lock, int rc)
{
    if (call.sched && rc == 0)
        syncmut_sched_acquired(obj, lock);
    return rc;
}

#define REMOVE SYNCMUT_OPS(REMOVE)
/* The structural operators a blocking acquisition and a release take part in. */
#define ACQUIRE_OPS                                                                          \
    (SYNCMUT_OPS(REMOVE_LOCK_PAIR) | SYNCMUT_OPS(SWAP_LOCK_ORDER) |                          \
     SYNCMUT_OPS(WIDEN_CRITICAL_SECTION) | SYNCMUT_OPS(SPLIT_CRITICAL_SECTION))
#define RELEASE_OPS (SYNCMUT_OPS(REMOVE_LOCK_PAIR) | SYNCMUT_OPS(SHRINK_CRITICAL_SECTION))
/* `a`, `b`: the synchronization objects the call acts on (schedule-out independence). */
#define BEGIN(extra, a, b) begin(site, REMOVE | (extra), __func__, (a), (b), 0, 0)
/* A call that takes `l` and blocks while it cannot (SYNCMUT_SCHED_MUTEX_LOCK, _SPIN_LOCK, _SEM_WAIT). */
#define BEGIN_LOCK(extra, l, lock) begin(site, REMOVE | (extra), __func__, (l), NULL, (lock), 1)
/* Another call that blocks until it takes `l` (a timed or read-write lock). */
#define BEGIN_ACQUIRE(extra, l) begin(site, REMOVE | (extra), __func__, (l), NULL, 0, 1)

/* ---- mutexes ------------------------------------------------------------------------ */

int syncmut_pthread_mutex_lock(uint32_t site, pthread_mutex_t *m)
{
    struct call c = BEGIN_LOCK(SYNCMUT_OPS(LOCK_TO_TRYLOCK) | ACQUIRE_OPS, m, SYNCMUT_SCHED_MUTEX_LOCK);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return end(c, 0);
    case SYNCMUT_LOCK_TO_TRYLOCK:
        (void)tried(c, m, 1, pthread_mutex_trylock(m)); /* failure ignored: the caller runs unprotected */
        return end(c, 0);
    default:
        return end(c, c.sched ? syncmut_sched_mutex_lock(m, 0) : pthread_mutex_lock(m));
    }
}

int syncmut_pthread_mutex_trylock(uint32_t site, pthread_mutex_t *m)
{
    struct call c = BEGIN(0, m, NULL);
    if (c.op == SYNCMUT_REMOVE)
        return end(c, 0);
    return end(c, tried(c, m, 1, pthread_mutex_trylock(m)));
}

int syncmut_pthread_mutex_timedlock(uint32_t site, pthread_mutex_t *m,
                                    const struct timespec *abstime)
{
    struct call c = BEGIN_ACQUIRE(SYNCMUT_OPS(TIMEDLOCK_TO_LOCK), m);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return end(c, 0);
    case SYNCMUT_TIMEDLOCK_TO_LOCK:
        return end(c, c.sched ? syncmut_sched_mutex_lock(m, 0) : pthread_mutex_lock(m));
    default:
        /* Scheduled: the deadline is not looked at; the lock times out only when no
         * other thread can run. */
        return end(c, c.sched ? syncmut_sched_mutex_lock(m, 1) : pthread_mutex_timedlock(m, abstime));
    }
}

/* Only in libstdc++'s code (std::timed_mutex::try_lock_for/try_lock_until): a scheduling
 * point; scheduled, the deadline is not looked at, as for timedlock. */
int syncmut_pthread_mutex_clocklock(uint32_t site, pthread_mutex_t *m, clockid_t clock,
                                    const struct timespec *abstime)
{
    struct call c = BEGIN_ACQUIRE(0, m);
    if (c.op == SYNCMUT_REMOVE)
        return end(c, 0);
    return end(c, c.sched ? syncmut_sched_mutex_lock(m, 1) : pthread_mutex_clocklock(m, clock, abstime));
}

int syncmut_pthread_mutex_unlock(uint32_t site, pthread_mutex_t *m)
{
    struct call c = BEGIN(RELEASE_OPS, m, NULL);
    if (c.op == SYNCMUT_REMOVE)
        return end(c, 0);
    return end(c, c.sched ? syncmut_sched_mutex_unlock(m) : pthread_mutex_unlock(m));
}

/* ---- condition variables ------------------------------------------------------------ */

/* wait-to-timedwait: the wait gives up after 1 ms, as if woken spuriously. The deadline
 * is measured on CLOCK_MONOTONIC with pthread_cond_clockwait (glibc >= 2.30), which
 * ignores the clock the condition variable was created with: a CLOCK_REALTIME deadline
 * given to pthread_cond_timedwait would mean "in ~50 years" for a condition variable
 * initialised with CLOCK_MONOTONIC, and wall-clock jumps would stretch it. */
static int wait_briefly(pthread_cond_t *c, pthread_mutex_t *m)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
    const clockid_t clock = CLOCK_MONOTONIC;
#else
    const clockid_t clock = CLOCK_REALTIME;
#endif
    /* The real clock and the real wait (virtual_clock.h): the runtime's own 1 ms neither
     * reads nor moves the design's virtual clock. */
    struct timespec deadline;
    syncmut_real_clock_gettime(clock, &deadline);
    deadline.tv_nsec += 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000;
    }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
    int rc = syncmut_real_pthread_cond_clockwait(c, m, clock, &deadline);
#else
    int rc = syncmut_real_pthread_cond_timedwait(c, m, &deadline);
#endif
    /* pthread_cond_wait never reports a timeout; the caller re-checks its predicate as it
     * must after any wake-up. */
    return rc == ETIMEDOUT ? 0 : rc;
}

/* Scheduled wait-to-timedwait: times out (returning 0) only when no other thread can run. */
static int sched_wait_briefly(pthread_cond_t *c, pthread_mutex_t *m)
{
    int rc = syncmut_sched_cond_wait(c, m, 1);
    return rc == ETIMEDOUT ? 0 : rc;
}

int syncmut_pthread_cond_wait(uint32_t site, pthread_cond_t *c, pthread_mutex_t *m)
{
    struct call s = BEGIN(SYNCMUT_OPS(WAIT_TO_TIMEDWAIT), c, m);
    switch (s.op) {
    case SYNCMUT_REMOVE:
        return end(s, 0);
    case SYNCMUT_WAIT_TO_TIMEDWAIT:
        return end(s, s.sched ? sched_wait_briefly(c, m) : wait_briefly(c, m));
    default:
        return end(s, s.sched ? syncmut_sched_cond_wait(c, m, 0) : pthread_cond_wait(c, m));
    }
}

int syncmut_pthread_cond_timedwait(uint32_t site, pthread_cond_t *c, pthread_mutex_t *m,
                                   const struct timespec *abstime)
{
    struct call s = BEGIN(SYNCMUT_OPS(TIMEDWAIT_TO_WAIT), c, m);
    switch (s.op) {
    case SYNCMUT_REMOVE:
        return end(s, 0);
    case SYNCMUT_TIMEDWAIT_TO_WAIT:
        return end(s, s.sched ? syncmut_sched_cond_wait(c, m, 0) : pthread_cond_wait(c, m));
    default:
        return end(s, s.sched ? syncmut_sched_cond_wait(c, m, 1)
                              : pthread_cond_timedwait(c, m, abstime));
    }
}

/* libstdc++'s timed wait (std::condition_variable::wait_for/wait_until), reached only
 * from its inline code: no operators of its own (its caller's site has them). */
int syncmut_pthread_cond_clockwait(uint32_t site, pthread_cond_t *c, pthread_mutex_t *m,
                                   clockid_t clock, const struct timespec *abstime)
{
    struct call s = BEGIN(0, c, m);
    if (s.op == SYNCMUT_REMOVE)
        return end(s, 0);
    return end(s, s.sched ? syncmut_sched_cond_wait(c, m, 1) : pthread_cond_clockwait(c, m, clock, abstime));
}

/* Scheduled signal/broadcast: the waiters are the scheduler's, never the real object's. */
static int wake_waiters(struct call s, pthread_cond_t *c, int all)
{
    if (s.sched) {
        syncmut_sched_cond_wake(c, all);
        return 0;
    }
    return all ? pthread_cond_broadcast(c) : pthread_cond_signal(c);
}

int syncmut_pthread_cond_signal(uint32_t site, pthread_cond_t *c)
{
    struct call s = BEGIN(SYNCMUT_OPS(SIGNAL_TO_BROADCAST), c, NULL);
    switch (s.op) {
    case SYNCMUT_REMOVE:
        return end(s, 0);
    case SYNCMUT_SIGNAL_TO_BROADCAST:
        return end(s, wake_waiters(s, c, 1));
    default:
        return end(s, wake_waiters(s, c, 0));
    }
}

int syncmut_pthread_cond_broadcast(uint32_t site, pthread_cond_t *c)
{
    struct call s = BEGIN(SYNCMUT_OPS(BROADCAST_TO_SIGNAL), c, NULL);
    switch (s.op) {
    case SYNCMUT_REMOVE:
        return end(s, 0);
    case SYNCMUT_BROADCAST_TO_SIGNAL:
        return end(s, wake_waiters(s, c, 0));
    default:
        return end(s, wake_waiters(s, c, 1));
    }
}

/* ---- read-write locks and spin locks ------------------------------------------------ */

int syncmut_pthread_rwlock_rdlock(uint32_t site, pthread_rwlock_t *l)
{
    struct call c = BEGIN_ACQUIRE(SYNCMUT_OPS(LOCK_TO_TRYLOCK) | ACQUIRE_OPS, l);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return end(c, 0);
    case SYNCMUT_LOCK_TO_TRYLOCK:
        (void)tried(c, l, 1, pthread_rwlock_tryrdlock(l));
        return end(c, 0);
    default:
        return end(c, c.sched ? syncmut_sched_rwlock_lock(l, 0) : pthread_rwlock_rdlock(l));
    }
}

int syncmut_pthread_rwlock_wrlock(uint32_t site, pthread_rwlock_t *l)
{
    struct call c = BEGIN_ACQUIRE(SYNCMUT_OPS(LOCK_TO_TRYLOCK) | ACQUIRE_OPS, l);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return end(c, 0);
    case SYNCMUT_LOCK_TO_TRYLOCK:
        (void)tried(c, l, 1, pthread_rwlock_trywrlock(l));
        return end(c, 0);
    default:
        return end(c, c.sched ? syncmut_sched_rwlock_lock(l, 1) : pthread_rwlock_wrlock(l));
    }
}

int syncmut_pthread_rwlock_unlock(uint32_t site, pthread_rwlock_t *l)
{
    struct call c = BEGIN(RELEASE_OPS, l, NULL);
    if (c.op == SYNCMUT_REMOVE)
        return end(c, 0);
    return end(c, c.sched ? syncmut_sched_rwlock_unlock(l) : pthread_rwlock_unlock(l));
}

int syncmut_pthread_spin_lock(uint32_t site, pthread_spinlock_t *l)
{
    struct call c = BEGIN_LOCK(SYNCMUT_OPS(LOCK_TO_TRYLOCK) | ACQUIRE_OPS, (const void *)l, SYNCMUT_SCHED_SPIN_LOCK);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return end(c, 0);
    case SYNCMUT_LOCK_TO_TRYLOCK:
        (void)tried(c, (const void *)l, 1, pthread_spin_trylock(l));
        return end(c, 0);
    default:
        return end(c, c.sched ? syncmut_sched_spin_lock(l) : pthread_spin_lock(l));
    }
}

int syncmut_pthread_spin_unlock(uint32_t site, pthread_spinlock_t *l)
{
    struct call c = BEGIN(RELEASE_OPS, (const void *)l, NULL);
    if (c.op == SYNCMUT_REMOVE)
        return end(c, 0);
    return end(c, c.sched ? syncmut_sched_spin_unlock(l) : pthread_spin_unlock(l));
}

/* ---- semaphores --------------------------------------------------------------------- */

int syncmut_sem_wait(uint32_t site, sem_t *s)
{
    struct call c = BEGIN_LOCK(SYNCMUT_OPS(WAIT_TO_TRYWAIT), s, SYNCMUT_SCHED_SEM_WAIT);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return end(c, 0);
    case SYNCMUT_WAIT_TO_TRYWAIT: {
        int saved = errno; /* a failed trywait sets EAGAIN; the caller sees success */
        (void)tried(c, s, 0, sem_trywait(s));
        errno = saved;
        return end(c, 0);
    }
    default:
        return end(c, c.sched ? syncmut_sched_sem_wait(s) : sem_wait(s));
    }
}

int syncmut_sem_trywait(uint32_t site, sem_t *s)
{
    struct call c = BEGIN(0, s, NULL);
    if (c.op == SYNCMUT_REMOVE)
        return end(c, 0);
    return end(c, tried(c, s, 0, sem_trywait(s)));
}

int syncmut_sem_post(uint32_t site, sem_t *s)
{
    struct call c = BEGIN(0, s, NULL);
    if (c.op == SYNCMUT_REMOVE)
        return end(c, 0);
    return end(c, c.sched ? syncmut_sched_sem_post(s) : sem_post(s));
}

/* ---- initial counts ----------------------------------------------------------------- */

/* Initialisation is not a scheduling point (no other thread can reach the object yet);
 * the event records which count the design started with. The scheduler reads both counts
 * back from the initialised objects. */

int syncmut_pthread_barrier_init(uint32_t site, pthread_barrier_t *b,
                                 const pthread_barrierattr_t *attr, unsigned count)
{
    syncmut_op op = syncmut_op_for(site, SYNCMUT_OPS(BARRIER_COUNT_UP) | SYNCMUT_OPS(BARRIER_COUNT_DOWN), __func__);
    syncmut_trace_pthread(site, op, 0);
    if (op == SYNCMUT_BARRIER_COUNT_UP)
        count++;
    else if (op == SYNCMUT_BARRIER_COUNT_DOWN)
        count--; /* from 1: 0 parties, which pthread_barrier_init rejects (EINVAL) */
    return pthread_barrier_init(b, attr, count);
}

int syncmut_sem_init(uint32_t site, sem_t *s, int pshared, unsigned value)
{
    syncmut_op op = syncmut_op_for(site, SYNCMUT_OPS(SEMAPHORE_COUNT_UP) | SYNCMUT_OPS(SEMAPHORE_COUNT_DOWN), __func__);
    syncmut_trace_pthread(site, op, 0);
    if (op == SYNCMUT_SEMAPHORE_COUNT_UP)
        value++;
    else if (op == SYNCMUT_SEMAPHORE_COUNT_DOWN)
        value--; /* from 0: above SEM_VALUE_MAX, which sem_init rejects (EINVAL) */
    return sem_init(s, pshared, value);
}

/* ---- barriers and join -------------------------------------------------------------- */

int syncmut_pthread_barrier_wait(uint32_t site, pthread_barrier_t *b)
{
    struct call c = BEGIN(0, b, NULL);
    if (c.op == SYNCMUT_REMOVE)
        return end(c, 0); /* never PTHREAD_BARRIER_SERIAL_THREAD: no thread is elected */
    return end(c, c.sched ? syncmut_sched_barrier_wait(b) : pthread_barrier_wait(b));
}

int syncmut_pthread_join(uint32_t site, pthread_t thread, void **retval)
{
    struct call c = BEGIN(0, SYNCMUT_SCHED_JOIN, (const void *)thread);
    if (c.op == SYNCMUT_REMOVE) {
        /* The thread's result does not exist yet; a defined NULL keeps runs reproducible
         * where the caller would otherwise read an uninitialised variable. */
        if (retval != NULL)
            *retval = NULL;
        return end(c, 0);
    }
    return end(c, c.sched ? syncmut_sched_join(thread, retval) : syncmut_real_pthread_join(thread, retval));
}

/* ---- the project's own synchronization functions ([[sync]] in syncmut.toml) ---------- */
/* A declared function (a threading layer's possess(), release(), …) is called through a
 * trampoline the mutator generates in the design; it asks here what to do. `ops` is the
 * site's comma-separated operator list; the answer is the active operator's 1-based
 * position in it (1: removed), or 0 for the original call. The calls inside the
 * function are wrapped sites of their own, so they are the scheduling points; this only
 * records the caller's event. */
int32_t syncmut_user_gate(uint32_t site, const char *ops)
{
    syncmut_op op;
    int position = syncmut_op_position(site, ops, &op);
    syncmut_trace_pthread(site, op, 0);
    return position;
}
