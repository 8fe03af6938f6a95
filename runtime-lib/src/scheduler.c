/* Controlled scheduler for pthread designs: SYNCMUT_SCHEDULE=default | random:<seed>.
 *
 * Baton: a thread the scheduler controls runs design code only while `current` points
 * to it. Everyone else waits on its own condition variable under `lock`. At each
 * scheduling point the holder picks the next thread (strategy below), hands `current`
 * over and waits for it to come back. Threads are numbered in creation order: T0 is
 * main, T1, T2... the threads created through syncmut_hook_pthread_create (the trace
 * uses these numbers once trace.c offers syncmut_trace_set_thread_id).
 *
 * Model: the real primitives stay the source of truth. A blocking operation first tries
 * the non-blocking variant of the real call (trylock, sem_trywait...); only when that
 * reports "would block" does the thread block in the model, on the object's address,
 * until an operation that may change the answer (unlock, post...) makes it runnable
 * again, and it retries. Because only one thread runs, the real primitive is never
 * contended and always agrees with the model, also after a mutation (a removed unlock
 * leaves the real mutex locked, so the next locker blocks in the model, and the run ends
 * as a deadlock instead of a hang). Condition variables and barriers have no usable
 * non-blocking variant and are modelled entirely (the real object is never waited on).
 *
 * The end provider reads only preallocated state with relaxed atomic loads, so it may
 * run in a signal handler or at exit while other threads are parked. */
#define _GNU_SOURCE
#include "scheduler.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

/* Proposed trace API (trace.c): records the calling thread's pthread events as T<k>.
 * Weak: while trace.c does not define it, the trace numbers threads by first event and
 * the scheduler mirrors that numbering for the end record (syncmut_sched_enter). */
void syncmut_trace_set_thread_id(uint32_t k) __attribute__((weak));

#define MAX_THREADS 1024u
#define DEFAULT_MAX_STEPS 10000000u
/* Default strategy: how many scheduling points in a row the current thread keeps the
 * baton while another thread could run, before it is rotated out. Without it a polling
 * loop (trylock, or lock/test/unlock) would starve the thread it waits for. */
#define SLICE 1000u
#define NO_NAME UINT32_MAX
#define STATUS_LIVELOCK 121
#define STATUS_DEADLOCK 122

enum state { FREE = 0, READY, RUNNING, BLOCKED, FINISHED };
enum wait_kind { W_NONE = 0, W_RETRY, W_COND, W_BARRIER, W_JOIN };
enum wake { WAKE_NONE = 0, WAKE_EVENT, WAKE_TIMEOUT };

struct sthread {
    /* Read by the end provider without the lock. */
    _Atomic int state;
    _Atomic int64_t site; /* wrapped call the thread is in, -1 outside */
    _Atomic uint32_t name; /* interned "T<k>", NO_NAME if not yet known */
    /* The rest only under `lock`. */
    uint32_t id;
    const void *obj; /* what a BLOCKED thread waits on */
    int kind;
    int timed;
    int wake;
    uint64_t since; /* FIFO order of condition-variable waiters */
    pthread_cond_t cv;
    int cv_ready;
    pthread_t handle;
    int has_handle;
    const char *routine; /* start routine's name, as given by the mutator */
    void *(*start)(void *);
    void *arg;
};

static int enabled; /* written once before main */
static enum { STRATEGY_DEFAULT, STRATEGY_RANDOM } strategy;
static uint64_t rng_state;
static uint64_t max_steps = DEFAULT_MAX_STEPS;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sthread threads[MAX_THREADS];
static uint32_t slots_used; /* high-water mark of `threads` */
static uint32_t next_id;
static struct sthread *current; /* the baton holder */
static uint64_t steps;
static uint64_t wait_seq;
static uint32_t slice_owner = NO_NAME; /* default strategy: id of the thread using its slice */
static uint32_t slice_used;
static int provider_registered;
static _Atomic int deadlocked;
static pthread_key_t exit_key;
static _Thread_local struct sthread *self;

/* Fallback naming (no syncmut_trace_set_thread_id): the trace numbers threads in the
 * order of their first event, main being T0. Events are recorded by the baton holder
 * only, so counting first events here gives the same numbers. */
static uint32_t next_trace_number = 1;
static uint32_t unnamed = NO_NAME; /* "T?": a thread with no event yet, in that mode */

/* One "syncmut runtime:" line on stderr, then status 120 (as for a bad SYNCMUT_ACTIVE). */
static void fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fatal(const char *fmt, ...)
{
    char line[512];
    int n = snprintf(line, sizeof line, "syncmut runtime: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    ssize_t ignored = write(2, line, len);
    (void)ignored;
    _exit(120);
}

/* ---- strategy ----------------------------------------------------------------------- */

static uint64_t rng_next(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static int load_state(const struct sthread *t)
{
    return atomic_load_explicit(&t->state, memory_order_relaxed);
}

static void set_state(struct sthread *t, int s)
{
    atomic_store_explicit(&t->state, s, memory_order_relaxed);
}

/* The candidates in slot order (deterministic: slots are allocated deterministically). */
static struct sthread *candidates[MAX_THREADS];

static uint32_t collect_ready(void)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < slots_used; i++)
        if (load_state(&threads[i]) == READY)
            candidates[n++] = &threads[i];
    return n;
}

static struct sthread *lowest_id(uint32_t n, uint32_t above)
{
    struct sthread *best = NULL;
    for (uint32_t i = 0; i < n; i++) {
        struct sthread *t = candidates[i];
        if (t->id > above || above == UINT32_MAX)
            if (best == NULL || t->id < best->id)
                best = t;
    }
    return best;
}

static void wake(struct sthread *t, int reason)
{
    t->obj = NULL;
    t->kind = W_NONE;
    t->wake = reason;
    set_state(t, READY);
}

/* Nothing can run: let one timed wait expire (lowest id, or a seeded choice). */
static struct sthread *expire_timed_wait(void)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < slots_used; i++)
        if (load_state(&threads[i]) == BLOCKED && threads[i].timed)
            candidates[n++] = &threads[i];
    if (n == 0)
        return NULL;
    struct sthread *t = strategy == STRATEGY_RANDOM ? candidates[rng_next() % n] : lowest_id(n, UINT32_MAX);
    wake(t, WAKE_TIMEOUT);
    return t;
}

/* The thread to run next; `me` is READY if it can go on. NULL: nothing can run. */
static struct sthread *choose(struct sthread *me)
{
    uint32_t n = collect_ready();
    if (n == 0)
        return expire_timed_wait();
    if (strategy == STRATEGY_RANDOM)
        return candidates[rng_next() % n];
    if (load_state(me) != READY)
        return lowest_id(n, UINT32_MAX);
    /* `me` could go on: it does, unless it has gone on for SLICE points in a row while
     * another thread was ready. Then it yields to the next ready thread by id (cyclic),
     * and keeps yielding at each of its points where another is ready until some other
     * thread has gone on at a point of its own: if the next thread only blocked (on a
     * lock `me` held when it yielded), it gets another chance as soon as it is woken,
     * whatever the period of the loop `me` polls in. */
    if (slice_owner != me->id) {
        slice_owner = me->id;
        slice_used = 0;
    }
    if (n == 1)
        return me;
    if (slice_used < SLICE && ++slice_used < SLICE)
        return me;
    struct sthread *next = lowest_id(n, me->id);
    return next != NULL ? next : lowest_id(n, UINT32_MAX);
}

/* ---- end record --------------------------------------------------------------------- */

static void provide_end(syncmut_end *end)
{
    end->deadlock = atomic_load_explicit(&deadlocked, memory_order_relaxed);
    end->npending = 0;
    /* Unfinished threads in id order; slots may be reused out of order. */
    uint32_t last = 0;
    int first = 1;
    while (end->npending < SYNCMUT_MAX_PENDING) {
        const struct sthread *best = NULL;
        for (uint32_t i = 0; i < MAX_THREADS; i++) {
            const struct sthread *t = &threads[i];
            int s = load_state(t);
            if (s == FREE || s == FINISHED || (!first && t->id <= last))
                continue;
            if (best == NULL || t->id < best->id)
                best = t;
        }
        if (best == NULL)
            break;
        syncmut_pending *p = &end->pending[end->npending++];
        p->thread = atomic_load_explicit(&best->name, memory_order_relaxed);
        if (p->thread == NO_NAME)
            p->thread = unnamed;
        p->site = atomic_load_explicit(&best->site, memory_order_relaxed);
        last = best->id;
        first = 0;
    }
}

static uint32_t intern_thread_name(uint32_t number)
{
    char name[16];
    snprintf(name, sizeof name, "T%u", (unsigned)number);
    return syncmut_trace_intern(name);
}

/* ---- the baton ---------------------------------------------------------------------- */

static void wait_for_baton(struct sthread *me)
{
    /* Our wait is a cancellation point; a cancellation acted on here would unwind with
     * `lock` held. It is acted on at the thread's next cancellation point instead. */
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    while (current != me)
        pthread_cond_wait(&me->cv, &lock);
    pthread_setcancelstate(old, NULL);
}

/* A scheduling point. Called with `lock` held by the baton holder `me`, whose state says
 * whether it can go on (READY), waits (BLOCKED) or is gone (FINISHED). Returns when `me`
 * holds the baton again (at once if FINISHED). */
static void reschedule(struct sthread *me)
{
    if (!provider_registered) {
        provider_registered = 1;
        syncmut_trace_set_end_provider(provide_end);
    }
    if (++steps > max_steps) {
        uint32_t name = atomic_load_explicit(&me->name, memory_order_relaxed);
        syncmut_trace_finish("livelock", name != NO_NAME ? name : unnamed,
                             atomic_load_explicit(&me->site, memory_order_relaxed), STATUS_LIVELOCK);
    }
    struct sthread *next = choose(me);
    if (next == NULL) {
        int unfinished = 0;
        for (uint32_t i = 0; i < slots_used; i++) {
            int s = load_state(&threads[i]);
            unfinished |= s != FREE && s != FINISHED;
        }
        if (!unfinished) { /* the last thread is leaving; the process exits with it */
            current = NULL;
            return;
        }
        atomic_store_explicit(&deadlocked, 1, memory_order_relaxed);
        syncmut_trace_finish("deadlock", NO_NAME, -1, STATUS_DEADLOCK);
    }
    set_state(next, RUNNING);
    current = next;
    if (next != me)
        pthread_cond_signal(&next->cv);
    if (load_state(me) != FINISHED)
        wait_for_baton(me);
}

/* Blocks `self` on `obj` until woken; returns WAKE_EVENT or WAKE_TIMEOUT. `lock` held. */
static int block_on(const void *obj, int kind, int timed)
{
    struct sthread *me = self;
    me->obj = obj;
    me->kind = kind;
    me->timed = timed;
    me->wake = WAKE_NONE;
    me->since = ++wait_seq;
    set_state(me, BLOCKED);
    reschedule(me);
    return me->wake;
}

static void wake_all(const void *obj, int kind)
{
    for (uint32_t i = 0; i < slots_used; i++) {
        struct sthread *t = &threads[i];
        if (load_state(t) == BLOCKED && t->obj == obj && t->kind == kind)
            wake(t, WAKE_EVENT);
    }
}

/* A blocking acquisition: `try` returns 0, an error, or EBUSY for "would block". */
typedef int (*try_fn)(void *obj, int arg);

static int acquire(void *obj, try_fn try, int arg, int timed)
{
    for (;;) {
        int rc = try(obj, arg);
        if (rc != EBUSY)
            return rc;
        pthread_mutex_lock(&lock);
        int woken = block_on(obj, W_RETRY, timed);
        pthread_mutex_unlock(&lock);
        if (woken == WAKE_TIMEOUT)
            return ETIMEDOUT;
    }
}

/* After an operation that may let a waiter of `obj` through. */
static void release(const void *obj)
{
    pthread_mutex_lock(&lock);
    wake_all(obj, W_RETRY);
    pthread_mutex_unlock(&lock);
}

/* ---- threads ------------------------------------------------------------------------ */

int syncmut_sched_controls_me(void)
{
    return enabled && self != NULL && load_state(self) == RUNNING;
}

static struct sthread *new_slot(void) /* `lock` held */
{
    struct sthread *t = NULL;
    for (uint32_t i = 0; i < slots_used && t == NULL; i++)
        if (load_state(&threads[i]) == FREE)
            t = &threads[i];
    if (t == NULL) {
        if (slots_used == MAX_THREADS)
            fatal("SYNCMUT_SCHEDULE: more than %u threads alive or not yet joined", MAX_THREADS);
        t = &threads[slots_used++];
    }
    if (!t->cv_ready) {
        pthread_cond_init(&t->cv, NULL);
        t->cv_ready = 1;
    }
    t->id = next_id++;
    t->obj = NULL;
    t->kind = W_NONE;
    t->timed = 0;
    t->wake = WAKE_NONE;
    t->has_handle = 0;
    atomic_store_explicit(&t->site, -1, memory_order_relaxed);
    atomic_store_explicit(&t->name, NO_NAME, memory_order_relaxed);
    return t;
}

/* The thread is gone: joiners may go on, someone else gets the baton. Runs when the
 * start routine returns, and from the key destructor after pthread_exit/cancellation. */
static void finish(struct sthread *t)
{
    pthread_mutex_lock(&lock);
    int s = load_state(t);
    if (s != FREE && s != FINISHED) {
        atomic_store_explicit(&t->site, -1, memory_order_relaxed);
        set_state(t, FINISHED);
        wake_all(t, W_JOIN);
        if (current == t)
            reschedule(t);
    }
    pthread_mutex_unlock(&lock);
}

static void finish_at_exit(void *p)
{
    finish(p);
}

static void *trampoline(void *p)
{
    struct sthread *t = p;
    self = t;
    pthread_setspecific(exit_key, t); /* pthread_exit and cancellation end via finish_at_exit */
    pthread_mutex_lock(&lock);
    wait_for_baton(t);
    pthread_mutex_unlock(&lock);
    if (syncmut_trace_set_thread_id != NULL)
        syncmut_trace_set_thread_id(t->id);
    void *result = t->start(t->arg);
    pthread_setspecific(exit_key, NULL);
    finish(t);
    return result;
}

int syncmut_sched_create(const char *start_name, pthread_t *thread, const pthread_attr_t *attr,
                         void *(*start)(void *), void *arg)
{
    struct sthread *me = self;
    pthread_mutex_lock(&lock);
    struct sthread *t = new_slot();
    t->routine = start_name;
    t->start = start;
    t->arg = arg;
    set_state(t, READY); /* parked in the trampoline until chosen */
    pthread_mutex_unlock(&lock);
    if (syncmut_trace_set_thread_id != NULL)
        atomic_store_explicit(&t->name, intern_thread_name(t->id), memory_order_relaxed);

    pthread_t handle;
    int rc = pthread_create(&handle, attr, trampoline, t);
    pthread_mutex_lock(&lock);
    if (rc != 0) {
        set_state(t, FREE);
        next_id--; /* nothing ran since new_slot: the number is reused */
    } else {
        t->handle = handle;
        t->has_handle = 1;
        if (thread != NULL)
            *thread = handle;
        set_state(me, READY);
        reschedule(me);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void syncmut_sched_exit(void *value)
{
    /* The thread-specific value's destructor (finish_at_exit) passes the baton after the
     * design's cleanup handlers ran, under control, in pthread_exit. */
    pthread_exit(value);
}

int syncmut_sched_join(pthread_t thread, void **retval)
{
    struct sthread *me = self;
    pthread_mutex_lock(&lock);
    struct sthread *target = NULL; /* the newest thread with this handle (handles recycle) */
    for (uint32_t i = 0; i < slots_used; i++) {
        struct sthread *t = &threads[i];
        if (load_state(t) != FREE && t->has_handle && pthread_equal(t->handle, thread) &&
            (target == NULL || t->id > target->id))
            target = t;
    }
    if (target == NULL || target == me) { /* not ours, or self-join (EDEADLK) */
        pthread_mutex_unlock(&lock);
        return pthread_join(thread, retval);
    }
    while (load_state(target) != FINISHED)
        block_on(target, W_JOIN, 0);
    pthread_mutex_unlock(&lock);
    /* The target passed the baton and is only tearing down: this waits for that. */
    int rc = pthread_join(thread, retval);
    if (rc == 0) {
        pthread_mutex_lock(&lock);
        set_state(target, FREE); /* terminated and joined: the slot can be reused */
        pthread_mutex_unlock(&lock);
    }
    return rc;
}

/* ---- wrapped calls ------------------------------------------------------------------ */

void syncmut_sched_enter(uint32_t site)
{
    struct sthread *me = self;
    atomic_store_explicit(&me->site, (int64_t)site, memory_order_relaxed);
    pthread_mutex_lock(&lock);
    set_state(me, READY);
    reschedule(me);
    pthread_mutex_unlock(&lock);
    /* The wrapper records its event next: mirror the trace's first-event numbering. */
    if (syncmut_trace_set_thread_id == NULL && syncmut_trace_on() &&
        atomic_load_explicit(&me->name, memory_order_relaxed) == NO_NAME)
        atomic_store_explicit(&me->name, intern_thread_name(next_trace_number++), memory_order_relaxed);
}

void syncmut_sched_leave(void)
{
    atomic_store_explicit(&self->site, -1, memory_order_relaxed);
}

static int try_mutex(void *m, int arg)
{
    (void)arg;
    return pthread_mutex_trylock(m);
}

int syncmut_sched_mutex_lock(pthread_mutex_t *m, int timed)
{
    return acquire(m, try_mutex, 0, timed);
}

int syncmut_sched_mutex_unlock(pthread_mutex_t *m)
{
    int rc = pthread_mutex_unlock(m);
    if (rc == 0)
        release(m);
    return rc;
}

int syncmut_sched_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int timed)
{
    /* Releasing the mutex and starting to wait is one step, as in pthread_cond_wait. */
    int rc = pthread_mutex_unlock(m);
    if (rc != 0)
        return rc;
    pthread_mutex_lock(&lock);
    wake_all(m, W_RETRY);
    int woken = block_on(c, W_COND, timed);
    pthread_mutex_unlock(&lock);
    rc = acquire(m, try_mutex, 0, 0);
    if (rc != 0)
        return rc;
    return woken == WAKE_TIMEOUT ? ETIMEDOUT : 0;
}

void syncmut_sched_cond_wake(pthread_cond_t *c, int all)
{
    pthread_mutex_lock(&lock);
    if (all) {
        wake_all(c, W_COND);
    } else {
        /* signal: the longest waiter (default) or a seeded choice (random). */
        uint32_t n = 0;
        for (uint32_t i = 0; i < slots_used; i++) {
            struct sthread *t = &threads[i];
            if (load_state(t) == BLOCKED && t->obj == c && t->kind == W_COND)
                candidates[n++] = t;
        }
        if (n > 0) {
            struct sthread *chosen = candidates[0];
            if (strategy == STRATEGY_RANDOM)
                chosen = candidates[rng_next() % n];
            else
                for (uint32_t i = 1; i < n; i++)
                    if (candidates[i]->since < chosen->since)
                        chosen = candidates[i];
            wake(chosen, WAKE_EVENT);
        }
    }
    pthread_mutex_unlock(&lock);
}

static int try_rwlock(void *l, int write)
{
    return write ? pthread_rwlock_trywrlock(l) : pthread_rwlock_tryrdlock(l);
}

int syncmut_sched_rwlock_lock(pthread_rwlock_t *l, int write)
{
    return acquire(l, try_rwlock, write, 0);
}

int syncmut_sched_rwlock_unlock(pthread_rwlock_t *l)
{
    int rc = pthread_rwlock_unlock(l);
    if (rc == 0)
        release(l);
    return rc;
}

static int try_spin(void *l, int arg)
{
    (void)arg;
    return pthread_spin_trylock(l);
}

int syncmut_sched_spin_lock(pthread_spinlock_t *l)
{
    return acquire((void *)l, try_spin, 0, 0);
}

int syncmut_sched_spin_unlock(pthread_spinlock_t *l)
{
    int rc = pthread_spin_unlock(l);
    if (rc == 0)
        release((const void *)l);
    return rc;
}

static int try_sem(void *s, int arg)
{
    (void)arg;
    if (sem_trywait(s) == 0)
        return 0;
    return errno == EAGAIN ? EBUSY : errno;
}

int syncmut_sched_sem_wait(sem_t *s)
{
    int saved = errno; /* failed sem_trywait attempts set EAGAIN */
    int rc = acquire(s, try_sem, 0, 0);
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
        release(s);
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
    pthread_mutex_lock(&lock);
    /* Arrived so far in this round = threads blocked on it (those released by the last
     * round are READY, not blocked). The real barrier is never waited on. */
    unsigned waiting = 0;
    for (uint32_t i = 0; i < slots_used; i++)
        waiting += load_state(&threads[i]) == BLOCKED && threads[i].obj == b && threads[i].kind == W_BARRIER;
    int rc = 0;
    if (waiting + 1 >= count) {
        wake_all(b, W_BARRIER);
        rc = PTHREAD_BARRIER_SERIAL_THREAD; /* the last to arrive, as in glibc */
    } else {
        block_on(b, W_BARRIER, 0);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* ---- start-up ----------------------------------------------------------------------- */

static int parse_u64(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return 0;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return 0;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return *s == '\0';
}

/* In a forked child only the forking thread exists. */
static void after_fork_in_child(void)
{
    for (uint32_t i = 0; i < slots_used; i++) {
        int s = load_state(&threads[i]);
        if (&threads[i] != self && s != FREE && s != FINISHED)
            set_state(&threads[i], FINISHED);
    }
}

/* After the runtime's own initialisation (priority 101), before the design's
 * constructors; runs on the main thread. */
__attribute__((constructor(102))) static void scheduler_init(void)
{
    const char *value = getenv("SYNCMUT_SCHEDULE");
    if (value == NULL || *value == '\0')
        return;
    if (strcmp(value, "default") == 0)
        strategy = STRATEGY_DEFAULT;
    else if (strncmp(value, "random:", 7) == 0 && parse_u64(value + 7, &rng_state))
        strategy = STRATEGY_RANDOM;
    else
        fatal("malformed SYNCMUT_SCHEDULE '%s': expected default or random:<seed> (decimal, "
              "64 bits)",
              value);
    const char *budget = getenv("SYNCMUT_MAX_STEPS");
    if (budget != NULL && *budget != '\0' && (!parse_u64(budget, &max_steps) || max_steps == 0))
        fatal("malformed SYNCMUT_MAX_STEPS '%s': expected a positive decimal number", budget);
    if (pthread_key_create(&exit_key, finish_at_exit) != 0)
        fatal("SYNCMUT_SCHEDULE: cannot start the scheduler (pthread_key_create failed)");
    pthread_atfork(NULL, NULL, after_fork_in_child);

    if (syncmut_trace_set_thread_id == NULL)
        unnamed = syncmut_trace_intern("T?");
    struct sthread *main_thread = new_slot(); /* T0 */
    atomic_store_explicit(&main_thread->name, intern_thread_name(0), memory_order_relaxed);
    main_thread->routine = "main";
    set_state(main_thread, RUNNING);
    pthread_setspecific(exit_key, main_thread); /* main calling pthread_exit */
    self = main_thread;
    current = main_thread;
    enabled = 1;
}
