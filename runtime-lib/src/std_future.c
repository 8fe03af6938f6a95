/* Futures under the controlled scheduler.
 *
 * std::future::get and wait, std::shared_future, std::promise::set_value and the end
 * of a std::async task all come down to one futex word in the shared state
 * (bits/atomic_futex.h): a waiter sets the word's waiter bit and blocks in
 * __atomic_futex_unsigned_base::_M_futex_wait_until while the word holds the value it
 * saw; whoever makes the state ready stores the new value and, if the waiter bit was
 * set, wakes every waiter through _M_futex_notify_all. Both are functions of
 * libstdc++.so, but their calls are in the header's inline code, so at -O0 they are in
 * the design's module and the mutator rewrites them to the wrappers below (site
 * SYNCMUT_SITE_INNER: scheduling points, no events of their own). The library re-checks
 * the word after every wake, so a wait that returns at once is always safe.
 *
 * Under the scheduler the futex is the scheduler's (as for C++20 waits on atomics,
 * atomic_wait.c): a thread blocked on a future is seen as blocked, and a timed wait
 * expires only when nothing else can run. Without it each wrapper calls libstdc++'s own
 * function. In its own file so that only designs whose code waits on a future pull in
 * the references to libstdc++ below. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "scheduler.h"

/* libstdc++'s functions: (this, addr, val, has_timeout, seconds, nanoseconds) of an
 * absolute time on the system clock, or on the steady clock; false iff it timed out. */
bool _ZNSt28__atomic_futex_unsigned_base19_M_futex_wait_untilEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE(
    void *self, unsigned *addr, unsigned val, bool has_timeout, int64_t s, int64_t ns);
bool _ZNSt28__atomic_futex_unsigned_base26_M_futex_wait_until_steadyEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE(
    void *self, unsigned *addr, unsigned val, bool has_timeout, int64_t s, int64_t ns);
void _ZNSt28__atomic_futex_unsigned_base19_M_futex_notify_allEPj(unsigned *addr);

/* Blocks while *addr == val until a wake on addr; false iff a timed wait expired. */
static bool scheduled_wait(uint32_t site, unsigned *addr, unsigned val, bool has_timeout)
{
    syncmut_sched_enter_on(site, addr, NULL);
    int rc = syncmut_sched_futex_wait((const int *)addr, (int)val, has_timeout);
    syncmut_sched_leave();
    return rc != ETIMEDOUT;
}

/* __atomic_futex_unsigned_base::_M_futex_wait_until (system clock). */
bool syncmut_std_futex_wait_until(uint32_t site, void *self, unsigned *addr, unsigned val, bool has_timeout, int64_t s, int64_t ns)
{
    if (!syncmut_sched_controls_me())
        return _ZNSt28__atomic_futex_unsigned_base19_M_futex_wait_untilEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE(
            self, addr, val, has_timeout, s, ns);
    return scheduled_wait(site, addr, val, has_timeout);
}

/* __atomic_futex_unsigned_base::_M_futex_wait_until_steady (steady clock). */
bool syncmut_std_futex_wait_until_steady(uint32_t site, void *self, unsigned *addr, unsigned val, bool has_timeout, int64_t s, int64_t ns)
{
    if (!syncmut_sched_controls_me())
        return _ZNSt28__atomic_futex_unsigned_base26_M_futex_wait_until_steadyEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE(
            self, addr, val, has_timeout, s, ns);
    return scheduled_wait(site, addr, val, has_timeout);
}

/* __atomic_futex_unsigned_base::_M_futex_notify_all. */
void syncmut_std_futex_notify_all(uint32_t site, unsigned *addr)
{
    if (!syncmut_sched_controls_me()) {
        _ZNSt28__atomic_futex_unsigned_base19_M_futex_notify_allEPj(addr);
        return;
    }
    syncmut_sched_enter_on(site, addr, NULL);
    syncmut_sched_futex_wake((const int *)addr, 1);
    syncmut_sched_leave();
}
