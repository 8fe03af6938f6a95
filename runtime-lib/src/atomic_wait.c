/* Waits on atomics: what libstdc++'s C++20 primitives block on.
 *
 * std::counting_semaphore, std::latch, std::barrier and std::atomic<T>::wait/notify are
 * header-only in libstdc++ (bits/atomic_wait.h, bits/atomic_timed_wait.h): they spin a
 * few times on the atomic, then block in std::__detail::__platform_wait (a futex wait on
 * an int: sleep while the int still holds the value seen) and are woken by
 * __platform_notify (a futex wake of one or all sleepers on that int). At -O0 these are
 * functions in the design's own module, so the mutator rewrites their calls in the
 * library's inline code to the wrappers below (site SYNCMUT_SITE_INNER: scheduling
 * points, no events of their own; the user's call is the site). Every waiting loop in
 * the library re-checks its condition after a wake, so a wait that returns at once is
 * always safe.
 *
 * Under the controlled scheduler the futex is the scheduler's (block until a wake on the
 * address; a timed wait expires only when nothing else can run), so a thread blocked in
 * a semaphore, latch or barrier is seen, and a run where every thread waits ends as a
 * deadlock. The spin loop's yield is a scheduling point. Without the scheduler each
 * wrapper makes the library's own system call. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "scheduler.h"

static void futex_wait(const int *addr, int old, const struct timespec *deadline, int *timed_out)
{
    long rc = syscall(SYS_futex, addr, FUTEX_WAIT_BITSET_PRIVATE, old, deadline, NULL, FUTEX_BITSET_MATCH_ANY);
    *timed_out = rc != 0 && errno == ETIMEDOUT;
}

/* std::__detail::__platform_wait<int>(const int *addr, int old). */
void syncmut_std_platform_wait(uint32_t site, const int *addr, int old)
{
    if (!syncmut_sched_controls_me()) {
        int timed_out;
        futex_wait(addr, old, NULL, &timed_out);
        return;
    }
    syncmut_sched_enter_on(site, addr, NULL);
    (void)syncmut_sched_futex_wait(addr, old, 0);
    syncmut_sched_leave();
}

/* std::__detail::__platform_notify<int>(const int *addr, bool all). */
void syncmut_std_platform_notify(uint32_t site, const int *addr, bool all)
{
    if (!syncmut_sched_controls_me()) {
        (void)syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, all ? INT_MAX : 1);
        return;
    }
    syncmut_sched_enter_on(site, addr, NULL);
    syncmut_sched_futex_wake(addr, all);
    syncmut_sched_leave();
}

/* std::__detail::__platform_wait_until_impl(addr, old, deadline) for a steady_clock
 * time point in nanoseconds (the only instance the library makes): true unless the wait
 * timed out. */
struct steady_time_point {
    int64_t nanoseconds;
};

bool syncmut_std_platform_wait_until(uint32_t site, const int *addr, int old, const struct steady_time_point *deadline)
{
    if (!syncmut_sched_controls_me()) {
        struct timespec at = {
            .tv_sec = deadline->nanoseconds / 1000000000,
            .tv_nsec = deadline->nanoseconds % 1000000000,
        };
        int timed_out;
        futex_wait(addr, old, &at, &timed_out);
        return !timed_out;
    }
    syncmut_sched_enter_on(site, addr, NULL);
    int rc = syncmut_sched_futex_wait(addr, old, 1);
    syncmut_sched_leave();
    return rc != ETIMEDOUT;
}

/* std::__detail::__thread_yield(), between the spin loop's attempts. */
void syncmut_std_thread_yield(uint32_t site)
{
    if (!syncmut_sched_controls_me()) {
        (void)sched_yield();
        return;
    }
    syncmut_sched_enter_on(site, NULL, NULL);
    syncmut_sched_leave();
}
