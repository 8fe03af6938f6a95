/* Deterministic environment: a virtual clock and a deterministic getrandom.
 *
 * A design that seeds rand() from time(), prints a time stamp or draws random bytes
 * behaves differently from run to run, so every mutant would be "killed" by the first
 * value that differs and the score would move between runs. This file defines, in the
 * executable, the libc functions that read the wall or monotonic clock and that draw
 * random bytes; the executable's definitions take precedence over libc's, also for calls
 * made by shared libraries (libstdc++'s std::chrono clocks, libsystemc) because the
 * linker exports a symbol that a linked shared library uses. The mutator links this
 * object into both executables (original and metamutant) whatever the design calls, so
 * the two always see the same virtual world.
 *
 * Virtual clock: one counter of virtual nanoseconds, shared by all threads (atomics, no
 * lock). Every read of a virtualised clock returns start + counter and advances the
 * counter by 1 us, so a loop that waits for time to pass still ends. CLOCK_REALTIME
 * starts at 2000-01-01T00:00:00Z, CLOCK_MONOTONIC (and _RAW, _COARSE, BOOTTIME) at one
 * day; the _COARSE, _ALARM and TAI variants read the same counter. CPU-time clocks
 * (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, pthread_getcpuclockid's) pass
 * through to the real clock.
 *
 * With real threads timed waits really wait, and sleeps wait 10 ms at most plus a
 * thousandth of the rest (other threads run meanwhile; see shortened()); then the virtual
 * clock moves forward by what was asked: a sleep of d to at least start-of-sleep + d, a
 * timed wait that times out to at least its deadline. Without that a loop such as
 * "while (now() - t0 < 1 s) sleep 10 ms", or libstdc++'s wait_until, which after a
 * timeout compares now() with the deadline, would not end. Under the controlled
 * scheduler a sleep is a scheduling point instead and takes no real time (below).
 *
 * Deadlines: functions given an absolute deadline that the kernel or libc measures
 * against the real clock (timed/clock waits, locks and joins, clock_nanosleep with
 * TIMER_ABSTIME) translate the design's virtual deadline D into the real one
 * real_now + (D - virtual_now) on the same clock, so "100 ms from now" still waits
 * ~100 ms. A deadline with an invalid tv_nsec passes unchanged (libc reports EINVAL).
 *
 * Environment (read once, on first use or before main, whichever is first):
 *   SYNCMUT_REAL_TIME=1  everything passes through to libc: real clocks, real random
 *                        bytes, deadlines untranslated ("" or 0: virtual, the default)
 *   SYNCMUT_ENTROPY=<n>  0..4294967295 (default 0): shifts every virtual clock's start by
 *                        n x 1.001001001 s and seeds the random stream with n, so two
 *                        values of n are two different but reproducible virtual worlds
 * Anything else ends the run with status 120 and one "syncmut runtime:" line.
 *
 * Deliberately not virtualised:
 *   - getpid/getppid: programs signal themselves with kill(getpid(), ...); a virtual pid
 *     would send the signal to some other process. Pids are not printed by the examples
 *     this tool is meant for, and the oracle's runs compare outputs, not pids.
 *   - rand/srand/random: already deterministic for a given seed; a design's srand(42)
 *     must keep its sequence, and srand(time(NULL)) becomes deterministic through time().
 *   - clock(), times(), getrusage(): CPU time, which a design measures rather than
 *     prints; they pass through.
 *
 * The runtime's own timing (wait-to-timedwait's 1 ms) uses syncmut_real_* below and
 * never touches the virtual clock (virtual_clock.h). */
#define _GNU_SOURCE
#include "virtual_clock.h"
#include "syncmut_protocol.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <unistd.h>

#define NS_PER_S 1000000000LL
/* Virtual time one clock read takes. */
#define TICK_NS 1000
/* 2000-01-01T00:00:00Z */
#define REALTIME_START_NS (946684800LL * NS_PER_S)
#define MONOTONIC_START_NS (86400LL * NS_PER_S)
/* SYNCMUT_ENTROPY=n shifts the starts by n times this (seconds, milli-, micro- and
 * nanoseconds all differ). */
#define ENTROPY_SHIFT_NS 1001001001LL

enum { MODE_UNKNOWN, MODE_VIRTUAL, MODE_REAL };

static atomic_int mode;
static int64_t shift_ns;
static uint64_t random_key;
/* Virtual nanoseconds elapsed since the start. */
static _Atomic int64_t elapsed;
/* Random bytes handed out so far. */
static _Atomic uint64_t random_position;

/* Anchor the mutator names on the link line (-Wl,--undefined=...), so this object is
 * linked into every executable. */
const int syncmut_virtual_clock = 1;

/* ---- configuration ------------------------------------------------------------------ */

static void clock_fatal(const char *name, const char *value, const char *expected)
    __attribute__((noreturn));
static void clock_fatal(const char *name, const char *value, const char *expected)
{
    dprintf(2, "syncmut runtime: %s='%s' is not valid (expected %s)\n", name, value, expected);
    _exit(SYNCMUT_STATUS_CONFIG_ERROR);
}

static int configure(void)
{
    const char *real = getenv(SYNCMUT_ENV_REAL_TIME);
    int m = MODE_VIRTUAL;
    if (real && *real) {
        if (strcmp(real, "1") == 0)
            m = MODE_REAL;
        else if (strcmp(real, "0") != 0)
            clock_fatal(SYNCMUT_ENV_REAL_TIME, real, "0 or 1");
    }
    const char *entropy = getenv(SYNCMUT_ENV_ENTROPY);
    uint64_t n = 0;
    if (entropy && *entropy) {
        for (const char *p = entropy; *p; p++) {
            if (*p < '0' || *p > '9' || p - entropy >= 10)
                clock_fatal(SYNCMUT_ENV_ENTROPY, entropy, "a decimal integer 0..4294967295");
            n = n * 10 + (uint64_t)(*p - '0');
        }
        if (n > UINT32_MAX)
            clock_fatal(SYNCMUT_ENV_ENTROPY, entropy, "a decimal integer 0..4294967295");
    }
    /* Racing first readers compute the same values; the release store publishes them. */
    shift_ns = (int64_t)n * ENTROPY_SHIFT_NS;
    random_key = 0x243f6a8885a308d3ULL ^ (n * 0x9e3779b97f4a7c15ULL);
    atomic_store_explicit(&mode, m, memory_order_release);
    return m;
}

static inline int current_mode(void)
{
    int m = atomic_load_explicit(&mode, memory_order_acquire);
    return m != MODE_UNKNOWN ? m : configure();
}

/* Before main, so a malformed value is reported at start-up (after activation,
 * scheduler and inputs). */
__attribute__((constructor(104))) static void virtual_clock_init(void)
{
    current_mode();
}

/* ---- the real functions --------------------------------------------------------------- */

static void *real_symbol(_Atomic(void *) *cache, const char *name, const char *version)
{
    void *f = atomic_load_explicit(cache, memory_order_acquire);
    if (f)
        return f;
    /* pthread_cond_timedwait has two versions on x86_64: GLIBC_2.2.5 (the old condition
     * variable, kept for binaries of that era) and GLIBC_2.3.2, the default a design
     * links against. Ask for the version by name where there are several. */
    if (version)
        f = dlvsym(RTLD_NEXT, name, version);
    if (!f)
        f = dlsym(RTLD_NEXT, name);
    if (!f) {
        dprintf(2, "syncmut runtime: cannot find libc's %s (the design must be linked dynamically)\n",
                name);
        _exit(SYNCMUT_STATUS_CONFIG_ERROR);
    }
    atomic_store_explicit(cache, f, memory_order_release);
    return f;
}

#if defined(__x86_64__) && defined(__GLIBC__)
#define COND_TIMEDWAIT_VERSION "GLIBC_2.3.2"
#else
#define COND_TIMEDWAIT_VERSION NULL
#endif

#define REAL(name, type, version)                                                            \
    static type real_##name(void)                                                            \
    {                                                                                        \
        static _Atomic(void *) cache;                                                        \
        return (type)real_symbol(&cache, #name, version);                                    \
    }

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef time_t (*time_fn)(time_t *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef int (*timespec_get_fn)(struct timespec *, int);
typedef ssize_t (*getrandom_fn)(void *, size_t, unsigned int);
typedef int (*getentropy_fn)(void *, size_t);
typedef uint32_t (*arc4random_fn)(void);
typedef void (*arc4random_buf_fn)(void *, size_t);
typedef uint32_t (*arc4random_uniform_fn)(uint32_t);
typedef int (*cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_clockwait_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
                                 const struct timespec *);
typedef int (*mutex_timedlock_fn)(pthread_mutex_t *, const struct timespec *);
typedef int (*mutex_clocklock_fn)(pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*sem_timedwait_fn)(sem_t *, const struct timespec *);
typedef int (*sem_clockwait_fn)(sem_t *, clockid_t, const struct timespec *);
typedef int (*rwlock_timed_fn)(pthread_rwlock_t *, const struct timespec *);
typedef int (*rwlock_clock_fn)(pthread_rwlock_t *, clockid_t, const struct timespec *);
typedef int (*timedjoin_fn)(pthread_t, void **, const struct timespec *);
typedef int (*clockjoin_fn)(pthread_t, void **, clockid_t, const struct timespec *);
typedef int (*clock_nanosleep_fn)(clockid_t, int, const struct timespec *, struct timespec *);
typedef int (*nanosleep_fn)(const struct timespec *, struct timespec *);
typedef int (*usleep_fn)(useconds_t);
typedef unsigned int (*sleep_fn)(unsigned int);

REAL(clock_gettime, clock_gettime_fn, NULL)
REAL(time, time_fn, NULL)
REAL(gettimeofday, gettimeofday_fn, NULL)
REAL(timespec_get, timespec_get_fn, NULL)
REAL(getrandom, getrandom_fn, NULL)
REAL(getentropy, getentropy_fn, NULL)
REAL(arc4random, arc4random_fn, NULL)
REAL(arc4random_buf, arc4random_buf_fn, NULL)
REAL(arc4random_uniform, arc4random_uniform_fn, NULL)
REAL(pthread_cond_timedwait, cond_timedwait_fn, COND_TIMEDWAIT_VERSION)
REAL(pthread_cond_clockwait, cond_clockwait_fn, NULL)
REAL(pthread_mutex_timedlock, mutex_timedlock_fn, NULL)
REAL(pthread_mutex_clocklock, mutex_clocklock_fn, NULL)
REAL(sem_timedwait, sem_timedwait_fn, NULL)
REAL(sem_clockwait, sem_clockwait_fn, NULL)
REAL(pthread_rwlock_timedrdlock, rwlock_timed_fn, NULL)
REAL(pthread_rwlock_timedwrlock, rwlock_timed_fn, NULL)
REAL(pthread_rwlock_clockrdlock, rwlock_clock_fn, NULL)
REAL(pthread_rwlock_clockwrlock, rwlock_clock_fn, NULL)
REAL(pthread_timedjoin_np, timedjoin_fn, NULL)
REAL(pthread_clockjoin_np, clockjoin_fn, NULL)
REAL(clock_nanosleep, clock_nanosleep_fn, NULL)
REAL(nanosleep, nanosleep_fn, NULL)
REAL(usleep, usleep_fn, NULL)
REAL(sleep, sleep_fn, NULL)

int syncmut_real_clock_gettime(clockid_t clock, struct timespec *ts)
{
    return real_clock_gettime()(clock, ts);
}

int syncmut_real_pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                                        const struct timespec *abstime)
{
    return real_pthread_cond_clockwait()(c, m, clock, abstime);
}

int syncmut_real_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                        const struct timespec *abstime)
{
    return real_pthread_cond_timedwait()(c, m, abstime);
}

/* ---- virtual time ---------------------------------------------------------------------- */

/* The start of a virtualised clock (in virtual mode), or -1 for clocks that pass through. */
static int64_t clock_start(clockid_t clock)
{
    switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_REALTIME_ALARM:
    case CLOCK_TAI:
        return REALTIME_START_NS + shift_ns;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
    case CLOCK_BOOTTIME_ALARM:
        return MONOTONIC_START_NS + shift_ns;
    default:
        return -1;
    }
}

static inline struct timespec from_ns(int64_t ns)
{
    struct timespec ts = { .tv_sec = (time_t)(ns / NS_PER_S), .tv_nsec = (long)(ns % NS_PER_S) };
    if (ts.tv_nsec < 0) {
        ts.tv_sec -= 1;
        ts.tv_nsec += NS_PER_S;
    }
    return ts;
}

/* Saturating: deadlines such as { LONG_MAX, 0 } mean "never". */
static inline int64_t to_ns(const struct timespec *ts)
{
    if (ts->tv_sec >= INT64_MAX / NS_PER_S)
        return INT64_MAX;
    if (ts->tv_sec <= INT64_MIN / NS_PER_S)
        return INT64_MIN;
    return (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec;
}

static inline int64_t add_sat(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* One read of a virtualised clock: its value now, and 1 us passes. */
static inline int64_t read_virtual(int64_t start)
{
    return start + atomic_fetch_add_explicit(&elapsed, TICK_NS, memory_order_relaxed);
}

/* The virtual clock moves to at least `target` elapsed nanoseconds. */
static void advance_to(int64_t target)
{
    int64_t now = atomic_load_explicit(&elapsed, memory_order_relaxed);
    while (now < target
           && !atomic_compare_exchange_weak_explicit(&elapsed, &now, target, memory_order_relaxed,
                                                     memory_order_relaxed)) {
    }
}

/* After a wait for virtual deadline `deadline` on a clock starting at `start` expired. */
static void reach_deadline(int64_t start, const struct timespec *deadline)
{
    int64_t d = to_ns(deadline);
    /* An expired "never" would be a real-clock oddity; leave the clock alone. */
    if (d != INT64_MAX && d > start)
        advance_to(d - start);
}

/* A deadline a design gave, for a call that measures it on `clock` (virtual mode). */
struct deadline {
    int translated;           /* 0: pass the design's pointer unchanged */
    int64_t start;            /* the virtual clock's start */
    const struct timespec *virt;
    struct timespec real;
};

static struct deadline translate(clockid_t clock, const struct timespec *abstime)
{
    struct deadline d = { .translated = 0, .start = clock_start(clock), .virt = abstime };
    if (d.start < 0 || !abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= NS_PER_S)
        return d;
    struct timespec now;
    if (real_clock_gettime()(clock, &now) != 0)
        return d;
    /* Reading virtual_now is not a design's read: it does not tick. */
    int64_t virtual_now = d.start + atomic_load_explicit(&elapsed, memory_order_relaxed);
    int64_t wanted = to_ns(abstime);
    int64_t remaining;
    if (__builtin_sub_overflow(wanted, virtual_now, &remaining))
        remaining = wanted > 0 ? INT64_MAX : INT64_MIN;
    d.real = from_ns(add_sat(to_ns(&now), remaining));
    d.translated = 1;
    return d;
}

static inline const struct timespec *real_deadline(const struct deadline *d)
{
    return d->translated ? &d->real : d->virt;
}

static inline void expired(const struct deadline *d, int timed_out)
{
    if (d->translated && timed_out)
        reach_deadline(d->start, d->virt);
}

/* ---- clocks ----------------------------------------------------------------------------- */

int clock_gettime(clockid_t clock, struct timespec *ts)
{
    int64_t start;
    if (current_mode() == MODE_REAL || (start = clock_start(clock)) < 0)
        return real_clock_gettime()(clock, ts);
    *ts = from_ns(read_virtual(start));
    return 0;
}

time_t time(time_t *out)
{
    if (current_mode() == MODE_REAL)
        return real_time()(out);
    time_t t = (time_t)(read_virtual(REALTIME_START_NS + shift_ns) / NS_PER_S);
    if (out)
        *out = t;
    return t;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    if (current_mode() == MODE_REAL)
        return real_gettimeofday()(tv, tz);
    if (tz) {
        /* The obsolete time zone: whatever the system says (zeros on Linux). */
        struct timeval ignored;
        real_gettimeofday()(&ignored, tz);
    }
    struct timespec ts = from_ns(read_virtual(REALTIME_START_NS + shift_ns));
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

int timespec_get(struct timespec *ts, int base)
{
    if (current_mode() == MODE_REAL || base != TIME_UTC)
        return real_timespec_get()(ts, base);
    *ts = from_ns(read_virtual(REALTIME_START_NS + shift_ns));
    return base;
}

/* ---- random bytes -------------------------------------------------------------------------- */

static inline uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The next `len` bytes of the stream: byte k of the stream is byte k % 8 of
 * splitmix64(key + k / 8). Callers get disjoint ranges in the order they ask. */
static void random_bytes(void *buf, size_t len)
{
    uint64_t pos = atomic_fetch_add_explicit(&random_position, len, memory_order_relaxed);
    unsigned char *out = buf;
    for (size_t i = 0; i < len; i++, pos++) {
        uint64_t word = splitmix64(random_key + pos / 8);
        out[i] = (unsigned char)(word >> (8 * (pos % 8)));
    }
}

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
    if (current_mode() == MODE_REAL)
        return real_getrandom()(buf, len, flags);
    if (flags & ~(unsigned int)(GRND_NONBLOCK | GRND_RANDOM | 0x4 /* GRND_INSECURE */)) {
        errno = EINVAL;
        return -1;
    }
    /* The kernel hands out at most 32 MiB - 1 bytes a call. */
    if (len > 33554431)
        len = 33554431;
    random_bytes(buf, len);
    return (ssize_t)len;
}

int getentropy(void *buf, size_t len)
{
    if (current_mode() == MODE_REAL)
        return real_getentropy()(buf, len);
    if (len > 256) {
        errno = EIO;
        return -1;
    }
    random_bytes(buf, len);
    return 0;
}

uint32_t arc4random(void)
{
    if (current_mode() == MODE_REAL)
        return real_arc4random()();
    uint32_t v;
    random_bytes(&v, sizeof v);
    return v;
}

void arc4random_buf(void *buf, size_t len)
{
    if (current_mode() == MODE_REAL) {
        real_arc4random_buf()(buf, len);
        return;
    }
    random_bytes(buf, len);
}

uint32_t arc4random_uniform(uint32_t upper)
{
    if (current_mode() == MODE_REAL)
        return real_arc4random_uniform()(upper);
    if (upper <= 1)
        return 0;
    /* Rejection sampling: uniform over [0, upper). */
    uint32_t floor = (uint32_t)(-upper) % upper;
    for (;;) {
        uint32_t v;
        random_bytes(&v, sizeof v);
        if (v >= floor)
            return v % upper;
    }
}

/* ---- timed waits: virtual deadline -> real deadline ------------------------------------- */

/* The clock a condition variable measures pthread_cond_timedwait's deadline on. glibc
 * (>= 2.25) keeps it in bit 1 of __wrefs (set by pthread_condattr_setclock). */
static clockid_t cond_clock(const pthread_cond_t *c)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 25))
    unsigned int wrefs = atomic_load_explicit((_Atomic unsigned int *)&c->__data.__wrefs,
                                              memory_order_relaxed);
    return (wrefs & 2) ? CLOCK_MONOTONIC : CLOCK_REALTIME;
#else
    (void)c;
    return CLOCK_REALTIME;
#endif
}

int pthread_cond_timedwait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m,
                           const struct timespec *restrict abstime)
{
    if (current_mode() == MODE_REAL)
        return real_pthread_cond_timedwait()(c, m, abstime);
    struct deadline d = translate(cond_clock(c), abstime);
    int rc = real_pthread_cond_timedwait()(c, m, real_deadline(&d));
    expired(&d, rc == ETIMEDOUT);
    return rc;
}

int pthread_cond_clockwait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m,
                           clockid_t clock, const struct timespec *restrict abstime)
{
    if (current_mode() == MODE_REAL)
        return real_pthread_cond_clockwait()(c, m, clock, abstime);
    struct deadline d = translate(clock, abstime);
    int rc = real_pthread_cond_clockwait()(c, m, clock, real_deadline(&d));
    expired(&d, rc == ETIMEDOUT);
    return rc;
}

int pthread_mutex_timedlock(pthread_mutex_t *restrict m, const struct timespec *restrict abstime)
{
    if (current_mode() == MODE_REAL)
        return real_pthread_mutex_timedlock()(m, abstime);
    struct deadline d = translate(CLOCK_REALTIME, abstime);
    int rc = real_pthread_mutex_timedlock()(m, real_deadline(&d));
    expired(&d, rc == ETIMEDOUT);
    return rc;
}

int pthread_mutex_clocklock(pthread_mutex_t *restrict m, clockid_t clock,
                            const struct timespec *restrict abstime)
{
    if (current_mode() == MODE_REAL)
        return real_pthread_mutex_clocklock()(m, clock, abstime);
    struct deadline d = translate(clock, abstime);
    int rc = real_pthread_mutex_clocklock()(m, clock, real_deadline(&d));
    expired(&d, rc == ETIMEDOUT);
    return rc;
}

int sem_timedwait(sem_t *restrict s, const struct timespec *restrict abstime)
{
    if (current_mode() == MODE_REAL)
        return real_sem_timedwait()(s, abstime);
    struct deadline d = translate(CLOCK_REALTIME, abstime);
    int rc = real_sem_timedwait()(s, real_deadline(&d));
    int saved = errno;
    expired(&d, rc == -1 && saved == ETIMEDOUT);
    errno = saved;
    return rc;
}

int sem_clockwait(sem_t *restrict s, clockid_t clock, const struct timespec *restrict abstime)
{
    if (current_mode() == MODE_REAL)
        return real_sem_clockwait()(s, clock, abstime);
    struct deadline d = translate(clock, abstime);
    int rc = real_sem_clockwait()(s, clock, real_deadline(&d));
    int saved = errno;
    expired(&d, rc == -1 && saved == ETIMEDOUT);
    errno = saved;
    return rc;
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t *restrict l, const struct timespec *restrict abstime)
{
    if (current_mode() == MODE_REAL)
        return real_pthread_rwlock_timedrdlock()(l, abstime);
    struct deadline d = translate(CLOCK_REALTIME, abstime);
    int rc = real_pthread_rwlock_timedrdlock()(l, real_deadline(&d));
    expired(&d, rc == ETIMEDOUT);
    return rc;
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *restrict l, const struct timespec *restrict abstime)
{
    if (current_mode() == MODE_REAL)
        return real_pthread_rwlock_timedwrlock()(l, abstime);
    struct deadline d = translate(CLOCK_REALTIME, abstime);
    int rc = real_pthread_rwlock_timedwrlock()(l, real_deadline(&d));
    expired(&d, rc == ETIMEDOUT);
    return rc;
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t *restrict l, clockid_t clock,
                               const struct timespec *restrict abstime)
{
    if (current_mode() == MODE_REAL)
        return real_pthread_rwlock_clockrdlock()(l, clock, abstime);
    struct deadline d = translate(clock, abstime);
    int rc = real_pthread_rwlock_clockrdlock()(l, clock, real_deadline(&d));
    expired(&d, rc == ETIMEDOUT);
    return rc;
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t *restrict l, clockid_t clock,
                               const struct timespec *restrict abstime)
{
    if (current_mode() == MODE_REAL)
        return real_pthread_rwlock_clockwrlock()(l, clock, abstime);
    struct deadline d = translate(clock, abstime);
    int rc = real_pthread_rwlock_clockwrlock()(l, clock, real_deadline(&d));
    expired(&d, rc == ETIMEDOUT);
    return rc;
}

int pthread_timedjoin_np(pthread_t t, void **ret, const struct timespec *abstime)
{
    if (current_mode() == MODE_REAL)
        return real_pthread_timedjoin_np()(t, ret, abstime);
    struct deadline d = translate(CLOCK_REALTIME, abstime);
    int rc = real_pthread_timedjoin_np()(t, ret, real_deadline(&d));
    expired(&d, rc == ETIMEDOUT);
    return rc;
}

int pthread_clockjoin_np(pthread_t t, void **ret, clockid_t clock, const struct timespec *abstime)
{
    if (current_mode() == MODE_REAL)
        return real_pthread_clockjoin_np()(t, ret, clock, abstime);
    struct deadline d = translate(clock, abstime);
    int rc = real_pthread_clockjoin_np()(t, ret, clock, real_deadline(&d));
    expired(&d, rc == ETIMEDOUT);
    return rc;
}

/* ---- sleeps (yields and polls: waiting.c) ---------------------------------------------- */

/* The controlled scheduler (scheduler.c), when it is in the executable: the uninstrumented
 * original has none, and these weak references keep it out of that link. */
extern int syncmut_sched_controls_me(void) __attribute__((weak));
extern void syncmut_sched_sleep(void) __attribute__((weak));

/* Under the controlled scheduler a sleep is a scheduling point and takes no real time:
 * the other threads run meanwhile (a polling loop makes progress) and the virtual clock
 * moves on by what was asked, so a pool of "sleep_for(1s)" tasks takes milliseconds.
 * With real threads a sleep really waits, shortened (below): how long it lasts shapes
 * real interleavings. */
static inline int scheduled(void)
{
    return syncmut_sched_controls_me != NULL && syncmut_sched_controls_me();
}

int syncmut_waits_scheduled(void)
{
    return scheduled();
}

int syncmut_virtual_time(void)
{
    return current_mode() != MODE_REAL;
}

/* The real wait of a sleep of `ns` with real threads in the virtual world: up to 10 ms as
 * asked (a nap racing other threads' work, which is what runs with real threads are
 * for), then a thousandth of the rest, so a longer sleep still wakes later than a
 * shorter one started with it. A sleep of seconds is "let the others go first", which
 * 10 ms gives the short steps between synchronizations; waiting it out in full made a
 * design's real-thread runs (the original's reference run, native confirmation) cost
 * its sleeps' length each. The virtual clock still moves by `ns`. */
static struct timespec shortened(int64_t ns)
{
    const int64_t full = 10 * 1000000LL;
    int64_t real = ns <= full ? ns : full + (ns - full) / 1000;
    return (struct timespec){(time_t)(real / NS_PER_S), (long)(real % NS_PER_S)};
}

static inline int valid(const struct timespec *req)
{
    return req != NULL && req->tv_nsec >= 0 && req->tv_nsec < NS_PER_S && req->tv_sec >= 0;
}

/* After sleeping `slept_ns` from virtual elapsed `from`. */
static inline void slept(int64_t from, int64_t slept_ns)
{
    if (slept_ns > 0)
        advance_to(add_sat(from, slept_ns));
}

static inline int64_t elapsed_now(void)
{
    return atomic_load_explicit(&elapsed, memory_order_relaxed);
}

int64_t syncmut_virtual_elapsed(void)
{
    return elapsed_now();
}

void syncmut_virtual_slept(int64_t from, int64_t slept_ns)
{
    slept(from, slept_ns);
}

/* A sleep of `ns` under the scheduler (the caller checked scheduled()). In SYNCMUT_REAL_TIME
 * mode it then sleeps for real, as the design's clock is the real one. */
static int scheduled_sleep(int64_t ns, const struct timespec *req)
{
    int64_t from = elapsed_now();
    syncmut_sched_sleep();
    if (current_mode() == MODE_REAL)
        return req != NULL ? real_nanosleep()(req, NULL) : 0;
    slept(from, ns);
    return 0;
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem)
{
    if (scheduled() && req != NULL) {
        if (current_mode() == MODE_REAL || clock_start(clock) < 0) {
            syncmut_sched_sleep();
            return real_clock_nanosleep()(clock, flags, req, rem);
        }
        if (flags & TIMER_ABSTIME) {
            struct deadline d = translate(clock, req);
            syncmut_sched_sleep();
            expired(&d, 1);
            return 0;
        }
        return scheduled_sleep(to_ns(req), req);
    }
    if (current_mode() == MODE_REAL || clock_start(clock) < 0 || !valid(req))
        return real_clock_nanosleep()(clock, flags, req, rem);
    if (flags & TIMER_ABSTIME) {
        struct deadline d = translate(clock, req);
        int rc = real_clock_nanosleep()(clock, flags, real_deadline(&d), rem);
        expired(&d, rc == 0);
        return rc;
    }
    int64_t from = elapsed_now();
    struct timespec real = shortened(to_ns(req));
    int rc = real_clock_nanosleep()(clock, flags, &real, rem);
    if (rc == 0)
        slept(from, to_ns(req));
    return rc;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    if (scheduled() && valid(req))
        return scheduled_sleep(to_ns(req), req);
    if (current_mode() == MODE_REAL || !valid(req))
        return real_nanosleep()(req, rem);
    int64_t from = elapsed_now();
    struct timespec real = shortened(to_ns(req));
    int rc = real_nanosleep()(&real, rem);
    if (rc == 0)
        slept(from, to_ns(req));
    return rc;
}

int usleep(useconds_t us)
{
    if (scheduled()) {
        struct timespec req = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
        return scheduled_sleep((int64_t)us * 1000, &req);
    }
    if (current_mode() == MODE_REAL)
        return real_usleep()(us);
    int64_t from = elapsed_now();
    struct timespec real = shortened((int64_t)us * 1000);
    int rc = real_nanosleep()(&real, NULL);
    if (rc == 0)
        slept(from, (int64_t)us * 1000);
    return rc;
}

unsigned int sleep(unsigned int seconds)
{
    if (scheduled()) {
        struct timespec req = {(time_t)seconds, 0};
        scheduled_sleep((int64_t)seconds * NS_PER_S, &req);
        return 0;
    }
    if (current_mode() == MODE_REAL)
        return real_sleep()(seconds);
    int64_t from = elapsed_now();
    struct timespec real = shortened((int64_t)seconds * NS_PER_S);
    if (real_nanosleep()(&real, NULL) != 0)
        return seconds; /* interrupted: as if none of it had passed */
    slept(from, (int64_t)seconds * NS_PER_S);
    return 0;
}
