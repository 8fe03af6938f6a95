/* Waiting without a synchronization object, besides the sleeps (virtual_clock.c):
 * sched_yield, and poll, select and epoll_wait with a timeout. With real threads they
 * are libc's. Under the controlled scheduler (scheduler.c) a yield is a scheduling point
 * after which every thread that was ready runs a step first, so a spin such as
 * "while (!flag.load()) sched_yield();" lets the thread it waits for run; a poll with
 * nothing ready is a sleep: the others run, and a finite timeout passes on the virtual
 * clock. Linked into every executable with the virtual clock (VIRTUAL_CLOCK_LINK_FLAG
 * names syncmut_waiting). */
#define _GNU_SOURCE
#include "virtual_clock.h"

#include <dlfcn.h>
#include <poll.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Referenced by the link flag, so this object is always linked. */
const int syncmut_waiting = 1;

extern void syncmut_sched_sleep(void) __attribute__((weak));
extern void syncmut_sched_yield(void) __attribute__((weak));

/* libc's `name`, looked up once. Missing ones cannot happen for these functions (glibc
 * has them all); a NULL would crash at the call, as a missing libc would. */
static void *real(_Atomic(void *) *cache, const char *name)
{
    void *f = atomic_load_explicit(cache, memory_order_acquire);
    if (f == NULL) {
        f = dlsym(RTLD_NEXT, name);
        atomic_store_explicit(cache, f, memory_order_release);
    }
    return f;
}

#define REAL(name, type)                                                                     \
    static type real_##name(void)                                                            \
    {                                                                                        \
        static _Atomic(void *) cache;                                                        \
        return (type)real(&cache, #name);                                                    \
    }

typedef int (*poll_fn)(struct pollfd *, nfds_t, int);
typedef int (*select_fn)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
typedef int (*epoll_wait_fn)(int, struct epoll_event *, int, int);
REAL(poll, poll_fn)
REAL(select, select_fn)
REAL(epoll_wait, epoll_wait_fn)

/* sched_yield (std::this_thread::yield calls it, and glibc's headers redirect the
 * deprecated pthread_yield to it): a scheduling point under the scheduler, so a spin such
 * as "while (!flag.load()) sched_yield();" lets the thread it waits for run. */
int sched_yield(void)
{
    if (syncmut_waits_scheduled()) {
        syncmut_sched_yield();
        return 0;
    }
    /* The system call itself, as libc's is: no dlsym here. LeakSanitizer's exit check
     * calls sched_yield while it holds the allocator's lock, and a first dlsym allocates,
     * so looking up libc's function then would never return. */
    return (int)syscall(SYS_sched_yield);
}

/* poll, select and epoll_wait with a timeout: under the scheduler, asked without waiting
 * first; when nothing is ready the call is a sleep (others run), then asked again, and
 * when still nothing is ready a finite timeout has passed on the virtual clock (0 is
 * returned, as the real call does on timeout); an infinite one sleeps again. */
static int64_t ms_to_ns(int timeout_ms)
{
    return (int64_t)timeout_ms * 1000000;
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
    if (!syncmut_waits_scheduled() || timeout == 0)
        return real_poll()(fds, nfds, timeout);
    for (;;) {
        int rc = real_poll()(fds, nfds, 0);
        if (rc != 0)
            return rc;
        int64_t from = syncmut_virtual_elapsed();
        syncmut_sched_sleep();
        rc = real_poll()(fds, nfds, 0);
        if (rc != 0 || timeout > 0) {
            if (rc == 0 && syncmut_virtual_time())
                syncmut_virtual_slept(from, ms_to_ns(timeout));
            return rc;
        }
    }
}

int select(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds, struct timeval *timeout)
{
    if (!syncmut_waits_scheduled() || timeout == NULL || (timeout->tv_sec == 0 && timeout->tv_usec == 0) || nfds < 0 ||
        nfds > FD_SETSIZE)
        return real_select()(nfds, readfds, writefds, exceptfds, timeout);
    /* select overwrites the sets: ask each time with the caller's. */
    fd_set asked[3];
    fd_set *sets[3] = {readfds, writefds, exceptfds};
    for (int i = 0; i < 3; i++)
        if (sets[i] != NULL)
            asked[i] = *sets[i];
    int64_t from = syncmut_virtual_elapsed();
    for (int attempt = 0;; attempt++) {
        struct timeval zero = {0, 0};
        for (int i = 0; i < 3; i++)
            if (sets[i] != NULL)
                *sets[i] = asked[i];
        int rc = real_select()(nfds, readfds, writefds, exceptfds, &zero);
        if (rc != 0 || attempt == 1) {
            if (rc == 0 && syncmut_virtual_time())
                syncmut_virtual_slept(from, (int64_t)timeout->tv_sec * 1000000000LL + (int64_t)timeout->tv_usec * 1000);
            if (rc == 0)
                timeout->tv_sec = 0, timeout->tv_usec = 0; /* Linux: what is left of the timeout */
            return rc;
        }
        syncmut_sched_sleep();
    }
}

int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)
{
    if (!syncmut_waits_scheduled() || timeout == 0)
        return real_epoll_wait()(epfd, events, maxevents, timeout);
    for (;;) {
        int rc = real_epoll_wait()(epfd, events, maxevents, 0);
        if (rc != 0)
            return rc;
        int64_t from = syncmut_virtual_elapsed();
        syncmut_sched_sleep();
        rc = real_epoll_wait()(epfd, events, maxevents, 0);
        if (rc != 0 || timeout > 0) {
            if (rc == 0 && syncmut_virtual_time())
                syncmut_virtual_slept(from, ms_to_ns(timeout));
            return rc;
        }
    }
}
