/* Wrappers for the C11 <threads.h> calls listed in mutator/src/api.rs.
 *
 * glibc implements mtx_t, cnd_t and thrd_t on the pthread objects (mtx_lock is
 * pthread_mutex_lock on the same memory, thrd_t is a pthread_t), so each wrapper is the
 * pthread wrapper of the same call (pthread_wrappers.c: operators, events, the controlled
 * scheduler's models) with C11's results: thrd_success, thrd_busy, thrd_timedout or
 * thrd_error instead of 0 or an error number. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <threads.h>

#include "pthread_wrappers.h"

_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t), "glibc's mtx_t is a pthread mutex");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t), "glibc's cnd_t is a pthread condition variable");
_Static_assert(sizeof(thrd_t) == sizeof(pthread_t), "glibc's thrd_t is a pthread_t");

/* An error number of the pthread call as C11 reports it. */
static int c11_result(int rc)
{
    switch (rc) {
    case 0:
        return thrd_success;
    case EBUSY:
        return thrd_busy;
    case ETIMEDOUT:
        return thrd_timedout;
    default:
        return thrd_error;
    }
}

int syncmut_mtx_lock(uint32_t site, mtx_t *m)
{
    return c11_result(syncmut_pthread_mutex_lock(site, (pthread_mutex_t *)m));
}

int syncmut_mtx_trylock(uint32_t site, mtx_t *m)
{
    return c11_result(syncmut_pthread_mutex_trylock(site, (pthread_mutex_t *)m));
}

int syncmut_mtx_timedlock(uint32_t site, mtx_t *restrict m, const struct timespec *restrict t)
{
    return c11_result(syncmut_pthread_mutex_timedlock(site, (pthread_mutex_t *)m, t));
}

int syncmut_mtx_unlock(uint32_t site, mtx_t *m)
{
    return c11_result(syncmut_pthread_mutex_unlock(site, (pthread_mutex_t *)m));
}

int syncmut_cnd_wait(uint32_t site, cnd_t *c, mtx_t *m)
{
    return c11_result(syncmut_pthread_cond_wait(site, (pthread_cond_t *)c, (pthread_mutex_t *)m));
}

int syncmut_cnd_timedwait(uint32_t site, cnd_t *restrict c, mtx_t *restrict m,
                          const struct timespec *restrict t)
{
    return c11_result(syncmut_pthread_cond_timedwait(site, (pthread_cond_t *)c, (pthread_mutex_t *)m, t));
}

int syncmut_cnd_signal(uint32_t site, cnd_t *c)
{
    return c11_result(syncmut_pthread_cond_signal(site, (pthread_cond_t *)c));
}

int syncmut_cnd_broadcast(uint32_t site, cnd_t *c)
{
    return c11_result(syncmut_pthread_cond_broadcast(site, (pthread_cond_t *)c));
}

int syncmut_thrd_join(uint32_t site, thrd_t thread, int *result)
{
    void *value = NULL;
    int rc = syncmut_pthread_join(site, (pthread_t)thread, &value);
    if (rc == 0 && result != NULL)
        *result = (int)(intptr_t)value; /* as glibc's thrd_join converts it */
    return c11_result(rc);
}
