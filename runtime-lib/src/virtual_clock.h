/* The virtual clock (virtual_clock.c): runtime-internal access to the real clock and to
 * the real timed waits, for the runtime's own timing. The runtime never reads or moves
 * the design's virtual clock, so the metamutant with no mutant sees exactly the virtual
 * times the uninstrumented original sees. */
#ifndef SYNCMUT_VIRTUAL_CLOCK_H
#define SYNCMUT_VIRTUAL_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* clock_gettime of the real clock (libc's, through the vDSO), whatever the mode. */
int syncmut_real_clock_gettime(clockid_t clock, struct timespec *ts);

/* libc's pthread_cond_clockwait, without deadline translation: `abstime` is real. */
int syncmut_real_pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                                        const struct timespec *abstime);

/* libc's pthread_cond_timedwait (the current symbol version), without translation. */
int syncmut_real_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                        const struct timespec *abstime);

/* For waiting.c: whether the scheduler controls the caller (then it holds the baton),
 * whether the design's clock is the virtual one (not SYNCMUT_REAL_TIME=1), the virtual
 * nanoseconds elapsed, and "slept `ns` from elapsed `from`" (the clock moves to at least
 * from + ns). */
int syncmut_waits_scheduled(void);
int syncmut_virtual_time(void);
int64_t syncmut_virtual_elapsed(void);
void syncmut_virtual_slept(int64_t from, int64_t ns);

#endif
