/* The controlled scheduler's model of the locks: mutexes, rwlocks and spinlocks. Each
 * is a blocking acquisition (syncmut_sched_acquire, scheduler.c) whose "would block"
 * test is the real trylock, and an unlock that wakes the waiters to retry. Split from
 * scheduler.c with the other blocking models (model_*.c), one file per family of
 * primitives. */
#define _GNU_SOURCE
#include "scheduler.h"
#include "scheduler_internal.h"

#include <pthread.h>

int syncmut_sched_try_mutex(void *m, int arg)
{
    (void)arg;
    return pthread_mutex_trylock(m);
}

int syncmut_sched_mutex_lock(pthread_mutex_t *m, int timed)
{
    return syncmut_sched_acquire(m, syncmut_sched_try_mutex, 0, timed);
}

int syncmut_sched_mutex_unlock(pthread_mutex_t *m)
{
    int rc = pthread_mutex_unlock(m);
    if (rc == 0)
        syncmut_sched_release(m, 1);
    return rc;
}

static int try_rwlock(void *l, int write)
{
    return write ? pthread_rwlock_trywrlock(l) : pthread_rwlock_tryrdlock(l);
}

int syncmut_sched_rwlock_lock(pthread_rwlock_t *l, int write)
{
    return syncmut_sched_acquire(l, try_rwlock, write, 0);
}

int syncmut_sched_rwlock_unlock(pthread_rwlock_t *l)
{
    int rc = pthread_rwlock_unlock(l);
    if (rc == 0)
        syncmut_sched_release(l, 1);
    return rc;
}

int syncmut_sched_try_spin(void *l, int arg)
{
    (void)arg;
    return pthread_spin_trylock(l);
}

int syncmut_sched_spin_lock(pthread_spinlock_t *l)
{
    return syncmut_sched_acquire((void *)l, syncmut_sched_try_spin, 0, 0);
}

int syncmut_sched_spin_unlock(pthread_spinlock_t *l)
{
    int rc = pthread_spin_unlock(l);
    if (rc == 0)
        syncmut_sched_release((const void *)l, 1);
    return rc;
}
