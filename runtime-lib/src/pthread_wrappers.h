/* Prototypes of the pthread wrappers: syncmut_<name>(site, original arguments...).
 * The mutator declares them itself in the design's bitcode; this header keeps the
 * definitions checked against one list. */
#ifndef SYNCMUT_PTHREAD_WRAPPERS_H
#define SYNCMUT_PTHREAD_WRAPPERS_H

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

int syncmut_pthread_mutex_lock(uint32_t site, pthread_mutex_t *m);
int syncmut_pthread_mutex_trylock(uint32_t site, pthread_mutex_t *m);
int syncmut_pthread_mutex_timedlock(uint32_t site, pthread_mutex_t *m,
                                    const struct timespec *abstime);
int syncmut_pthread_mutex_clocklock(uint32_t site, pthread_mutex_t *m, clockid_t clock,
                                    const struct timespec *abstime);
int syncmut_pthread_mutex_unlock(uint32_t site, pthread_mutex_t *m);
int syncmut_pthread_cond_wait(uint32_t site, pthread_cond_t *c, pthread_mutex_t *m);
int syncmut_pthread_cond_timedwait(uint32_t site, pthread_cond_t *c, pthread_mutex_t *m,
                                   const struct timespec *abstime);
int syncmut_pthread_cond_clockwait(uint32_t site, pthread_cond_t *c, pthread_mutex_t *m,
                                   clockid_t clock, const struct timespec *abstime);
int syncmut_pthread_cond_signal(uint32_t site, pthread_cond_t *c);
int syncmut_pthread_cond_broadcast(uint32_t site, pthread_cond_t *c);
int syncmut_pthread_rwlock_rdlock(uint32_t site, pthread_rwlock_t *l);
int syncmut_pthread_rwlock_wrlock(uint32_t site, pthread_rwlock_t *l);
int syncmut_pthread_rwlock_unlock(uint32_t site, pthread_rwlock_t *l);
int syncmut_pthread_spin_lock(uint32_t site, pthread_spinlock_t *l);
int syncmut_pthread_spin_unlock(uint32_t site, pthread_spinlock_t *l);
int syncmut_sem_wait(uint32_t site, sem_t *s);
int syncmut_sem_trywait(uint32_t site, sem_t *s);
int syncmut_sem_post(uint32_t site, sem_t *s);
int syncmut_pthread_barrier_wait(uint32_t site, pthread_barrier_t *b);
int syncmut_pthread_barrier_init(uint32_t site, pthread_barrier_t *b,
                                 const pthread_barrierattr_t *attr, unsigned count);
int syncmut_sem_init(uint32_t site, sem_t *s, int pshared, unsigned value);
int syncmut_pthread_join(uint32_t site, pthread_t thread, void **retval);
/* The gate of trampolines around declared synchronization functions ([[sync]]). */
int32_t syncmut_user_gate(uint32_t site, const char *ops);

#ifdef __cplusplus
}
#endif

#endif
