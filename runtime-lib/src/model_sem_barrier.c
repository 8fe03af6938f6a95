/* The controlled scheduler's model of the counting primitives: semaphores (a blocking
 * acquisition whose "would block" test is sem_trywait) and barriers (modelled entirely:
 * the real barrier is never waited on). Split from scheduler.c with the other blocking
 * models (model_*.c), one file per family of primitives. */
#define _GNU_SOURCE
#include "scheduler.h"
#include "scheduler_internal.h"

#include <errno.h>
#include <semaphore.h>
#include <string.h>

#include "races.h"

int syncmut_sched_try_sem(void *s, int arg)
{
    (void)arg;
    if (sem_trywait(s) == 0)
        return 0;
    return errno == EAGAIN ? EBUSY : errno;
}

int syncmut_sched_sem_wait(sem_t *s)
{
    int saved = errno; /* failed sem_trywait attempts set EAGAIN */
    int rc = syncmut_sched_acquire(s, syncmut_sched_try_sem, 0, 0);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    errno = saved;
    return 0;
}

int syncmut_sched_sem_post(sem_t *s)
{
    int rc = sem_post(s);
    if (rc == 0)
        syncmut_sched_release(s, 0);
    return rc;
}

/* The barrier's count, which pthread_barrier_t keeps private. glibc >= 2.23 lays it out
 * as {in, current_round, count, shared, out} (nptl/internaltypes.h). */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 23))
static unsigned barrier_count(const pthread_barrier_t *b)
{
    unsigned fields[5];
    _Static_assert(sizeof(pthread_barrier_t) >= sizeof fields, "glibc barrier layout");
    memcpy(fields, b, sizeof fields);
    return fields[2];
}
#else
#error "pthread_barrier_wait under the scheduler needs glibc's barrier layout"
#endif

int syncmut_sched_barrier_wait(pthread_barrier_t *b)
{
    unsigned count = barrier_count(b);
    pthread_mutex_lock(&syncmut_sched_lock);
    /* Arrived so far in this round = threads blocked on it (those released by the last
     * round are READY, not blocked). The real barrier is never waited on. */
    unsigned waiting = 0;
    for (uint32_t i = 0; i < syncmut_sched_slots_used; i++)
        waiting += load_state(&syncmut_sched_threads[i]) == BLOCKED && syncmut_sched_threads[i].obj == b && syncmut_sched_threads[i].kind == W_BARRIER;
    int rc = 0;
    if (waiting + 1 >= count) {
        if (syncmut_races_on()) { /* every arrival of the round happens before every return */
            uint32_t ids[MAX_THREADS], n = 0;
            for (uint32_t i = 0; i < syncmut_sched_slots_used; i++)
                if (load_state(&syncmut_sched_threads[i]) == BLOCKED && syncmut_sched_threads[i].obj == b && syncmut_sched_threads[i].kind == W_BARRIER)
                    ids[n++] = syncmut_sched_threads[i].id;
            ids[n++] = syncmut_sched_self->id;
            syncmut_races_barrier(ids, n);
        }
        syncmut_sched_wake_all(b, W_BARRIER);
        rc = PTHREAD_BARRIER_SERIAL_THREAD; /* the last to arrive, as in glibc */
    } else {
        syncmut_sched_set_next(syncmut_sched_self, NULL, NULL, 0); /* once released: return */
        syncmut_sched_block_on(b, W_BARRIER, 0);
    }
    pthread_mutex_unlock(&syncmut_sched_lock);
    return rc;
}
