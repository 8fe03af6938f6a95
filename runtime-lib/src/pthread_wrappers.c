/* Wrappers for the pthread and POSIX semaphore calls listed in mutator/src/api.rs.
 *
 * Contract: syncmut_<name>(site, original arguments...) returns what <name> returns.
 * Each wrapper asks which operator its site applies, records the event (before acting,
 * so a thread that then blocks forever still shows where it stopped), then acts.
 * `remove` does nothing and reports success (0). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <time.h>

#include "activation.h"
#include "pthread_wrappers.h"
#include "trace.h"

/* The operator for this call, checked against what this wrapper implements, recorded. */
static syncmut_op begin(uint32_t site, uint32_t allowed, const char *wrapper)
{
    syncmut_op op = syncmut_op_for(site, allowed, wrapper);
    syncmut_trace_pthread(site, op);
    return op;
}

#define REMOVE SYNCMUT_OPS(REMOVE)
#define BEGIN(extra) begin(site, REMOVE | (extra), __func__)

/* ---- mutexes ------------------------------------------------------------------------ */

int syncmut_pthread_mutex_lock(uint32_t site, pthread_mutex_t *m)
{
    switch (BEGIN(SYNCMUT_OPS(LOCK_TO_TRYLOCK))) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_LOCK_TO_TRYLOCK:
        (void)pthread_mutex_trylock(m); /* failure ignored: the caller runs unprotected */
        return 0;
    default:
        return pthread_mutex_lock(m);
    }
}

int syncmut_pthread_mutex_trylock(uint32_t site, pthread_mutex_t *m)
{
    if (BEGIN(0) == SYNCMUT_REMOVE)
        return 0;
    return pthread_mutex_trylock(m);
}

int syncmut_pthread_mutex_timedlock(uint32_t site, pthread_mutex_t *m,
                                    const struct timespec *abstime)
{
    switch (BEGIN(SYNCMUT_OPS(TIMEDLOCK_TO_LOCK))) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_TIMEDLOCK_TO_LOCK:
        return pthread_mutex_lock(m);
    default:
        return pthread_mutex_timedlock(m, abstime);
    }
}

int syncmut_pthread_mutex_unlock(uint32_t site, pthread_mutex_t *m)
{
    if (BEGIN(0) == SYNCMUT_REMOVE)
        return 0;
    return pthread_mutex_unlock(m);
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
    struct timespec deadline;
    clock_gettime(clock, &deadline);
    deadline.tv_nsec += 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000;
    }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
    int rc = pthread_cond_clockwait(c, m, clock, &deadline);
#else
    int rc = pthread_cond_timedwait(c, m, &deadline);
#endif
    /* pthread_cond_wait never reports a timeout; the caller re-checks its predicate as it
     * must after any wake-up. */
    return rc == ETIMEDOUT ? 0 : rc;
}

int syncmut_pthread_cond_wait(uint32_t site, pthread_cond_t *c, pthread_mutex_t *m)
{
    switch (BEGIN(SYNCMUT_OPS(WAIT_TO_TIMEDWAIT))) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_WAIT_TO_TIMEDWAIT:
        return wait_briefly(c, m);
    default:
        return pthread_cond_wait(c, m);
    }
}

int syncmut_pthread_cond_timedwait(uint32_t site, pthread_cond_t *c, pthread_mutex_t *m,
                                   const struct timespec *abstime)
{
    switch (BEGIN(SYNCMUT_OPS(TIMEDWAIT_TO_WAIT))) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_TIMEDWAIT_TO_WAIT:
        return pthread_cond_wait(c, m);
    default:
        return pthread_cond_timedwait(c, m, abstime);
    }
}

int syncmut_pthread_cond_signal(uint32_t site, pthread_cond_t *c)
{
    switch (BEGIN(SYNCMUT_OPS(SIGNAL_TO_BROADCAST))) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_SIGNAL_TO_BROADCAST:
        return pthread_cond_broadcast(c);
    default:
        return pthread_cond_signal(c);
    }
}

int syncmut_pthread_cond_broadcast(uint32_t site, pthread_cond_t *c)
{
    switch (BEGIN(SYNCMUT_OPS(BROADCAST_TO_SIGNAL))) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_BROADCAST_TO_SIGNAL:
        return pthread_cond_signal(c);
    default:
        return pthread_cond_broadcast(c);
    }
}

/* ---- read-write locks and spin locks ------------------------------------------------ */

int syncmut_pthread_rwlock_rdlock(uint32_t site, pthread_rwlock_t *l)
{
    switch (BEGIN(SYNCMUT_OPS(LOCK_TO_TRYLOCK))) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_LOCK_TO_TRYLOCK:
        (void)pthread_rwlock_tryrdlock(l);
        return 0;
    default:
        return pthread_rwlock_rdlock(l);
    }
}

int syncmut_pthread_rwlock_wrlock(uint32_t site, pthread_rwlock_t *l)
{
    switch (BEGIN(SYNCMUT_OPS(LOCK_TO_TRYLOCK))) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_LOCK_TO_TRYLOCK:
        (void)pthread_rwlock_trywrlock(l);
        return 0;
    default:
        return pthread_rwlock_wrlock(l);
    }
}

int syncmut_pthread_rwlock_unlock(uint32_t site, pthread_rwlock_t *l)
{
    if (BEGIN(0) == SYNCMUT_REMOVE)
        return 0;
    return pthread_rwlock_unlock(l);
}

int syncmut_pthread_spin_lock(uint32_t site, pthread_spinlock_t *l)
{
    switch (BEGIN(SYNCMUT_OPS(LOCK_TO_TRYLOCK))) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_LOCK_TO_TRYLOCK:
        (void)pthread_spin_trylock(l);
        return 0;
    default:
        return pthread_spin_lock(l);
    }
}

int syncmut_pthread_spin_unlock(uint32_t site, pthread_spinlock_t *l)
{
    if (BEGIN(0) == SYNCMUT_REMOVE)
        return 0;
    return pthread_spin_unlock(l);
}

/* ---- semaphores --------------------------------------------------------------------- */

int syncmut_sem_wait(uint32_t site, sem_t *s)
{
    switch (BEGIN(SYNCMUT_OPS(WAIT_TO_TRYWAIT))) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_WAIT_TO_TRYWAIT: {
        int saved = errno; /* a failed trywait sets EAGAIN; the caller sees success */
        (void)sem_trywait(s);
        errno = saved;
        return 0;
    }
    default:
        return sem_wait(s);
    }
}

int syncmut_sem_trywait(uint32_t site, sem_t *s)
{
    if (BEGIN(0) == SYNCMUT_REMOVE)
        return 0;
    return sem_trywait(s);
}

int syncmut_sem_post(uint32_t site, sem_t *s)
{
    if (BEGIN(0) == SYNCMUT_REMOVE)
        return 0;
    return sem_post(s);
}

/* ---- barriers and join -------------------------------------------------------------- */

int syncmut_pthread_barrier_wait(uint32_t site, pthread_barrier_t *b)
{
    if (BEGIN(0) == SYNCMUT_REMOVE)
        return 0; /* never PTHREAD_BARRIER_SERIAL_THREAD: no thread is elected */
    return pthread_barrier_wait(b);
}

int syncmut_pthread_join(uint32_t site, pthread_t thread, void **retval)
{
    if (BEGIN(0) == SYNCMUT_REMOVE) {
        /* The thread's result does not exist yet; a defined NULL keeps runs reproducible
         * where the caller would otherwise read an uninitialised variable. */
        if (retval != NULL)
            *retval = NULL;
        return 0;
    }
    return pthread_join(thread, retval);
}
