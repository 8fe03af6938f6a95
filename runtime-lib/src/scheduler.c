/* Controlled scheduler for pthread designs: SYNCMUT_SCHEDULE=<kind>[:<arguments>] (the
 * kinds are listed in syncmut_schedules.def) and SYNCMUT_SCHEDULE_OUT=<path> (the
 * choices made, replayable).
 *
 * Baton: a thread the scheduler controls runs design code only while `current` points
 * to it. Everyone else waits on its own condition variable under `syncmut_sched_lock`.
 * At each scheduling point the holder picks the next thread (by the strategy,
 * schedule_strategy.c), hands `current` over and waits for it to come back. Threads
 * are numbered in creation order: T0 is main, T1, T2... the threads created through
 * syncmut_hook_pthread_create; the trace uses the same numbers
 * (syncmut_trace_set_thread_id).
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
 * run in a signal handler or at exit while other threads are parked.
 *
 * This file is the core: the thread table, the baton, the choice of the next thread
 * (fairness, and the dispatch to the strategy), blocking and waking, the scheduling
 * points of the wrapped calls, and the start-up. The rest is split by concern, so that
 * each part can be read on its own (what they share: scheduler_internal.h):
 * schedule_strategy.c (SYNCMUT_SCHEDULE's parser, each strategy's choice),
 * schedule_record.c (the schedule file: recording, writing, replay: and follow: input,
 * the signal handlers that save it), and the blocking models: model_mutex.c (mutexes,
 * rwlocks, spinlocks), model_cond.c (condition variables, futexes), model_sem_barrier.c
 * (semaphores, barriers), model_thread.c (thread creation, exit and join),
 * scheduler_atomic.c (SV-COMP's atomic sections and the threads parked in them), and
 * endless_loop.c (threads in a loop that never ends). */
#define _GNU_SOURCE
#include "scheduler.h"
#include "scheduler_internal.h"
#include "syncmut_protocol.h"
#include "activation.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"
#include "races.h"

#define DEFAULT_MAX_STEPS 10000000u
extern void *__libc_stack_end; /* glibc: the stack pointer the process started with */
/* Fairness (every strategy). A thread that has made SPIN_READS memory reads in a row
 * without a write of its own (a busy-wait: it cannot change anything, only wait for
 * another thread) yields at each further read: it does not run again until every thread
 * that was ready at the yield has run a step (CHESS's fair scheduler). And a ready
 * thread left out for FAIR_BOUND scheduling points runs next, whatever the strategy,
 * which bounds how long a polling loop that writes (trylock, lock/test/unlock) can
 * starve the thread it waits for. So an unfair schedule alone never ends a run as a
 * livelock: what exhausts the step budget spins under fair scheduling too. */
#define SPIN_READS 8u
/* A thread whose lock (or semaphore) attempts found the object taken RETRY_BOUND times in
 * a row runs at the next point once woken: a schedule that always hands it the baton
 * while a poller holds the lock (round-robin whose quantum fits the poller's loop, a
 * fairness pick every FAIR_BOUND points) would starve it as surely as never running it. */
#define RETRY_BOUND 8u
#define FAIR_BOUND 1000u

static int enabled; /* written once before main */
static uint64_t max_steps = DEFAULT_MAX_STEPS;

pthread_mutex_t syncmut_sched_lock = PTHREAD_MUTEX_INITIALIZER;
struct sthread syncmut_sched_threads[MAX_THREADS];
uint32_t syncmut_sched_slots_used; /* high-water mark of `syncmut_sched_threads` */
uint32_t syncmut_sched_next_id;
uint64_t syncmut_sched_thread_bound;
static struct sthread *current; /* the baton holder */
uint64_t syncmut_sched_steps;
static uint64_t wait_seq;
/* Threads BLOCKED in a lock or semaphore retry (W_RETRY): a release with none of them
 * wakes nobody, and then skips the lock (perf: every unlock took the scheduler's lock a
 * second time only to find no waiter). Changed under the lock by the baton holder; read
 * by the baton holder, the only thread that releases under the scheduler. */
static uint32_t retry_blocked;
static int provider_registered;
static _Atomic int deadlocked;
pthread_key_t syncmut_sched_exit_key;
_Thread_local struct sthread *syncmut_sched_self;

/* ---- ready threads ------------------------------------------------------------------ */

/* The candidates in slot order (deterministic: slots are allocated deterministically). */
struct sthread *syncmut_sched_candidates[MAX_THREADS];

/* The ready threads (the candidates), and what fairness asks of them, found in one pass
 * (perf: three passes over the candidates were a tenth of a scheduled run). */
struct ready {
    uint32_t n;
    struct sthread *starved; /* the one starved longest, if one has waited FAIR_BOUND points */
    int awake, dozing, yielded; /* some candidate is awake, dozes, has yielded */
};

static struct ready collect_ready(void)
{
    struct ready r = {0};
    for (uint32_t i = 0; i < syncmut_sched_slots_used; i++) {
        struct sthread *t = &syncmut_sched_threads[i];
        if (load_state(t) != READY)
            continue;
        syncmut_sched_candidates[r.n++] = t;
        if (syncmut_sched_steps - t->last_run >= FAIR_BOUND && (r.starved == NULL || t->last_run < r.starved->last_run))
            r.starved = t;
        r.awake |= !t->dozing;
        r.dozing |= t->dozing;
        r.yielded |= t->yielded_at != 0;
    }
    return r;
}

struct sthread *syncmut_sched_lowest_id(uint32_t n, uint32_t above)
{
    struct sthread *best = NULL;
    for (uint32_t i = 0; i < n; i++) {
        struct sthread *t = syncmut_sched_candidates[i];
        if (t->id > above || above == UINT32_MAX)
            if (best == NULL || t->id < best->id)
                best = t;
    }
    return best;
}

void syncmut_sched_wake(struct sthread *t, int reason)
{
    /* Ready from now on: starvation counts from here; but a thread that fairness ran and
     * that then found its lock taken (the poller it starved for holds it) stays starved,
     * and runs again at the next point. Else a poller whose loop period divides
     * FAIR_BOUND holds the lock at every forced point, and the retry is woken and starved
     * again forever: a livelock only the schedule made. */
    int still_starved = (t->forced || t->retries >= RETRY_BOUND) && t->kind == W_RETRY && syncmut_sched_steps >= FAIR_BOUND;
    if (t->kind == W_RETRY)
        retry_blocked--;
    t->obj = NULL;
    t->kind = W_NONE;
    t->wake = reason;
    t->last_run = still_starved ? syncmut_sched_steps - FAIR_BOUND : syncmut_sched_steps;
    t->readied = syncmut_sched_current_step;
    set_state(t, READY);
}

/* ---- choosing the next thread ------------------------------------------------------- */

/* Nothing can run: let one timed wait expire (lowest id, or a seeded choice). */
static struct sthread *expire_timed_wait(void)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < syncmut_sched_slots_used; i++)
        if (load_state(&syncmut_sched_threads[i]) == BLOCKED && syncmut_sched_threads[i].timed)
            syncmut_sched_candidates[n++] = &syncmut_sched_threads[i];
    if (n == 0)
        return NULL;
    struct sthread *t = syncmut_sched_pick_other(K_TIMEOUT, n, syncmut_sched_lowest_id(n, UINT32_MAX));
    syncmut_sched_wake(t, WAKE_TIMEOUT);
    return t;
}

/* Keeps among the n candidates the ones a fair scheduler may run (returns how many):
 * the one starved longest if some ready thread has waited FAIR_BOUND points, else those
 * not held back by their own busy-wait yield. Depends only on the run's past choices, so
 * replay and follow meet the same candidates. */
static int fair_pick; /* the last fair_candidates kept only a starved thread */

static uint32_t fair_candidates(const struct ready *r)
{
    uint32_t n = r->n;
    fair_pick = r->starved != NULL;
    if (r->starved != NULL) {
        syncmut_sched_candidates[0] = r->starved;
        return 1;
    }
    /* t is held back while some ready thread has not run since t's yield, and a dozing
     * thread while some ready thread is awake. Both relations are acyclic (a thread runs
     * at its own yield; someone is awake or everyone dozes), so someone always stays. */
    if (!r->yielded && !(r->awake && r->dozing)) /* nobody is held back: most points */
        return n;
    uint32_t kept = 0;
    struct sthread *keep[MAX_THREADS];
    for (uint32_t i = 0; i < n; i++) {
        struct sthread *t = syncmut_sched_candidates[i];
        int held = r->awake && t->dozing;
        for (uint32_t j = 0; j < n && !held && t->yielded_at != 0; j++)
            held = syncmut_sched_candidates[j] != t && syncmut_sched_candidates[j]->last_run < t->yielded_at;
        if (!held)
            keep[kept++] = t;
    }
    for (uint32_t i = 0; i < kept; i++)
        syncmut_sched_candidates[i] = keep[i];
    return kept;
}

int syncmut_sched_is_candidate(const struct sthread *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (syncmut_sched_candidates[i] == t)
            return 1;
    return 0;
}

/* The thread to run next; `me` is READY if it can go on. NULL: nothing can run. */
static struct sthread *choose(struct sthread *me)
{
    /* Only this point is the one right after its creation of a thread. */
    int just_created = me->just_created;
    me->just_created = 0;
    /* Inside __VERIFIER_atomic_begin/end the section is one step: no other thread runs
     * while its owner can go on (if the owner blocks, the section is broken: others run). */
    if (syncmut_sched_atomic_owner == me && syncmut_sched_atomic_depth > 0 && load_state(me) == READY) {
        syncmut_sched_candidates[0] = me;
        syncmut_sched_record_run(me, me, 1);
        return me;
    }
    if (syncmut_sched_strategy == STRATEGY_PCT) /* change points: the running thread drops below all */
        for (uint32_t j = 1; j < syncmut_sched_pct_depth; j++)
            if (syncmut_sched_pct_change[j] == syncmut_sched_steps)
                me->prio = syncmut_sched_pct_depth - j;
    struct ready ready = collect_ready();
    uint32_t n = ready.n;
    if (n == 0) {
        struct sthread *t = expire_timed_wait();
        if (t != NULL) { /* its step is a run point with one option */
            syncmut_sched_candidates[0] = t;
            syncmut_sched_record_run(t, me, 1);
        }
        return t;
    }
    n = fair_candidates(&ready);
    struct sthread *chosen;
    switch (syncmut_sched_strategy) {
    case STRATEGY_RANDOM:
        chosen = syncmut_sched_candidates[syncmut_sched_rng_next() % n];
        break;
    case STRATEGY_PCT:
        chosen = syncmut_sched_highest_priority(n);
        break;
    case STRATEGY_RR:
        chosen = syncmut_sched_rr_choice(me, n, just_created);
        break;
    case STRATEGY_HOLDBACK:
        chosen = syncmut_sched_holdback_choice(n);
        break;
    case STRATEGY_REPLAY:
        chosen = syncmut_sched_default_choice(me, n);
        if (n > 1)
            chosen = syncmut_sched_replay_pick(n, chosen);
        break;
    case STRATEGY_FOLLOW:
        chosen = syncmut_sched_default_choice(me, n);
        if (n > 1)
            chosen = syncmut_sched_follow_pick(K_RUN, n, chosen);
        break;
    case STRATEGY_EVENTS:
        chosen = syncmut_sched_default_choice(me, n);
        if (n > 1)
            chosen = syncmut_sched_events_pick(n, chosen);
        break;
    default:
        chosen = syncmut_sched_default_choice(me, n);
        break;
    }
    if (n == 1)
        syncmut_sched_candidates[0] = chosen;
    syncmut_sched_record_run(chosen, me, n);
    return chosen;
}

/* ---- end record --------------------------------------------------------------------- */

static void provide_end(syncmut_end *end)
{
    syncmut_sched_write_schedule_out("signal"); /* at exit, deadlock, livelock: already written */
    end->deadlock = atomic_load_explicit(&deadlocked, memory_order_relaxed);
    end->npending = 0;
    /* Unfinished threads in id order; slots may be reused out of order. */
    uint32_t last = 0;
    int first = 1;
    while (end->npending < SYNCMUT_MAX_PENDING) {
        const struct sthread *best = NULL;
        for (uint32_t i = 0; i < MAX_THREADS; i++) {
            const struct sthread *t = &syncmut_sched_threads[i];
            int s = load_state(t);
            if (s == FREE || s == FINISHED || (!first && t->id <= last) || (end->at_exit && t == syncmut_sched_self))
                continue; /* the thread calling exit() is ending, not waiting */
            if (best == NULL || t->id < best->id)
                best = t;
        }
        if (best == NULL)
            break;
        syncmut_pending *p = &end->pending[end->npending++];
        p->thread = atomic_load_explicit(&best->name, memory_order_relaxed);
        p->site = atomic_load_explicit(&best->site, memory_order_relaxed);
        last = best->id;
        first = 0;
    }
}

uint32_t syncmut_sched_intern_thread_name(uint32_t number)
{
    char name[16];
    snprintf(name, sizeof name, "T%u", (unsigned)number);
    return syncmut_trace_intern(name);
}

/* ---- the baton ---------------------------------------------------------------------- */

void syncmut_sched_wait_for_baton(struct sthread *me)
{
    /* Our wait is a cancellation point; a cancellation acted on here would unwind with
     * `syncmut_sched_lock` held. It is acted on at the thread's next cancellation point
     * instead. */
    if (current == me) /* kept the baton: most scheduling points (no system call) */
        return;
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    while (current != me)
        pthread_cond_wait(&me->cv, &syncmut_sched_lock);
    pthread_setcancelstate(old, NULL);
}

/* The choice at a scheduling point of the baton holder `me` (the step counted; past the
 * step budget, the run may end here). */
static struct sthread *point_choice(struct sthread *me, const void *frame)
{
    if (!provider_registered) {
        provider_registered = 1;
        syncmut_trace_set_end_provider(provide_end);
    }
    me->stack_low = me->at_access ? NULL : frame;
    me->at_access = 0;
    if (++syncmut_sched_steps > max_steps)
        syncmut_repeat_check(me, max_steps);
    return choose(me);
}

/* `next` runs from now on (the fields its choice resets). */
static void runs(struct sthread *next)
{
    set_state(next, RUNNING);
    next->next_lock = NULL; /* recorded: the step under way is no longer pending */
    next->next_join_thread = NULL;
    next->last_run = syncmut_sched_steps;
    next->dozing = 0;
    next->forced = fair_pick;
    fair_pick = 0;
}

/* Hands the baton to `next`, the choice at `me`'s point (NULL: nothing can run, which
 * ends the run unless every thread has finished), and waits for it to come back. */
static void hand_over(struct sthread *me, struct sthread *next)
{
    if (next == NULL) {
        syncmut_sched_end_if_parked(me);
        syncmut_sched_end_if_looping();
        int unfinished = 0;
        for (uint32_t i = 0; i < syncmut_sched_slots_used; i++) {
            int s = load_state(&syncmut_sched_threads[i]);
            unfinished |= s != FREE && s != FINISHED;
        }
        if (!unfinished) { /* the last thread is leaving; the process exits with it */
            current = NULL;
            return;
        }
        atomic_store_explicit(&deadlocked, 1, memory_order_relaxed);
        syncmut_sched_write_schedule_out("deadlock");
        syncmut_trace_finish("deadlock", NO_NAME, -1, SYNCMUT_STATUS_DEADLOCK);
    }
    runs(next);
    current = next;
    if (next != me)
        pthread_cond_signal(&next->cv);
    if (load_state(me) != FINISHED)
        syncmut_sched_wait_for_baton(me);
}

/* A scheduling point. Called with `syncmut_sched_lock` held by the baton holder `me`,
 * whose state says whether it can go on (READY), waits (BLOCKED) or is gone (FINISHED).
 * Returns when `me` holds the baton again (at once if FINISHED). */
void syncmut_sched_reschedule(struct sthread *me)
{
    hand_over(me, point_choice(me, __builtin_frame_address(0)));
}

/* A scheduling point of the baton holder `me`, which can go on (READY), taken without
 * `syncmut_sched_lock` as long as `me` keeps the baton: most points (perf: the lock
 * taken and released at every wrapped call was a tenth of a scheduled run). Only the
 * baton holder reads or changes what the choice depends on; the lock orders hand-overs
 * (a waiting thread reads `current` under it, and only a hand-over changes `current`),
 * so it is taken only for one. Past the step budget the point takes the locked path, as
 * the checks there may end the run. */
static void point(struct sthread *me)
{
    if (syncmut_sched_steps + 1 > max_steps) {
        pthread_mutex_lock(&syncmut_sched_lock);
        syncmut_sched_reschedule(me);
        pthread_mutex_unlock(&syncmut_sched_lock);
        return;
    }
    struct sthread *next = point_choice(me, __builtin_frame_address(0));
    if (next == me) {
        runs(me);
        return;
    }
    pthread_mutex_lock(&syncmut_sched_lock);
    hand_over(me, next);
    pthread_mutex_unlock(&syncmut_sched_lock);
}

/* Blocks `syncmut_sched_self` on `obj` until woken; returns WAKE_EVENT or WAKE_TIMEOUT.
 * `syncmut_sched_lock` held. */
int syncmut_sched_block_on(const void *obj, int kind, int timed)
{
    struct sthread *me = syncmut_sched_self;
    me->obj = obj;
    me->kind = kind;
    me->timed = timed;
    me->wake = WAKE_NONE;
    me->since = ++wait_seq;
    if (kind == W_RETRY)
        retry_blocked++;
    set_state(me, BLOCKED);
    syncmut_sched_reschedule(me);
    return me->wake;
}

void syncmut_sched_wake_all(const void *obj, int kind)
{
    for (uint32_t i = 0; i < syncmut_sched_slots_used; i++) {
        struct sthread *t = &syncmut_sched_threads[i];
        if (load_state(t) == BLOCKED && t->obj == obj && t->kind == kind)
            syncmut_sched_wake(t, WAKE_EVENT);
    }
}

/* A blocking acquisition: `try` returns 0, an error, or EBUSY for "would block". */
int syncmut_sched_acquire(void *obj, try_fn try, int arg, int timed)
{
    for (;;) {
        int rc = try(obj, arg);
        if (rc == 0)
            syncmut_races_acquire(syncmut_sched_self->id, obj, atomic_load_explicit(&syncmut_sched_self->site, memory_order_relaxed),
                                  try != syncmut_sched_try_sem);
        if (rc != EBUSY) {
            syncmut_sched_self->retries = 0;
            return rc;
        }
        pthread_mutex_lock(&syncmut_sched_lock);
        syncmut_sched_self->retries++;
        syncmut_sched_set_next(syncmut_sched_self, obj, NULL, 0); /* once woken: the retry */
        if (!timed) {
            syncmut_sched_self->next_lock_kind = try == syncmut_sched_try_mutex ? SYNCMUT_SCHED_MUTEX_LOCK
                                                 : try == syncmut_sched_try_spin ? SYNCMUT_SCHED_SPIN_LOCK
                                                 : try == syncmut_sched_try_sem  ? SYNCMUT_SCHED_SEM_WAIT
                                                                                 : 0;
            if (syncmut_sched_self->next_lock_kind != 0)
                syncmut_sched_self->next_lock = obj;
        }
        int woken = syncmut_sched_block_on(obj, W_RETRY, timed);
        pthread_mutex_unlock(&syncmut_sched_lock);
        if (woken == WAKE_TIMEOUT)
            return ETIMEDOUT;
    }
}

/* After an operation that may let a waiter of `obj` through (`lock`: an unlock, else a
 * semaphore post). */
void syncmut_sched_release(const void *obj, int lock_released)
{
    syncmut_races_release(syncmut_sched_self->id, obj, lock_released);
    if (retry_blocked == 0)
        return;
    pthread_mutex_lock(&syncmut_sched_lock);
    syncmut_sched_wake_all(obj, W_RETRY);
    pthread_mutex_unlock(&syncmut_sched_lock);
}

/* ---- threads (creation, exit and join: model_thread.c) ------------------------------ */

int syncmut_sched_controls_me(void)
{
    return enabled && syncmut_sched_self != NULL && load_state(syncmut_sched_self) == RUNNING;
}

void syncmut_sched_acquired(const void *obj, int lock)
{
    syncmut_races_acquire(syncmut_sched_self->id, obj, atomic_load_explicit(&syncmut_sched_self->site, memory_order_relaxed), lock);
}

struct sthread *syncmut_sched_new_slot(void) /* `syncmut_sched_lock` held */
{
    struct sthread *t = NULL;
    for (uint32_t i = 0; i < syncmut_sched_slots_used && t == NULL; i++)
        if (load_state(&syncmut_sched_threads[i]) == FREE)
            t = &syncmut_sched_threads[i];
    if (t == NULL) {
        if (syncmut_sched_slots_used == MAX_THREADS) {
            /* The design (a mutant, usually) keeps more threads than the scheduler
             * holds: a resource limit reached by the run, not a configuration error, so
             * the run ends with its trace and a status of its own. */
            struct sthread *me = syncmut_sched_self;
            uint32_t name = me != NULL ? atomic_load_explicit(&me->name, memory_order_relaxed) : NO_NAME;
            syncmut_sched_write_schedule_out("thread-limit");
            syncmut_trace_finish("thread limit (more than 1024 threads alive or not yet joined)",
                                 name,
                                 me != NULL ? atomic_load_explicit(&me->site, memory_order_relaxed) : -1,
                                 SYNCMUT_STATUS_THREAD_LIMIT);
        }
        t = &syncmut_sched_threads[syncmut_sched_slots_used++];
    }
    if (!t->cv_ready) {
        pthread_cond_init(&t->cv, NULL);
        t->cv_ready = 1;
    }
    t->id = syncmut_sched_next_id++;
    t->obj = NULL;
    t->kind = W_NONE;
    t->timed = 0;
    t->wake = WAKE_NONE;
    t->has_handle = 0;
    t->reads_in_a_row = 0;
    t->yielded_at = 0;
    t->dozing = 0;
    t->last_run = syncmut_sched_steps;
    t->readied = -1;
    t->at_access = 0;
    t->stack_low = t->stack_high = NULL;
    syncmut_sched_set_next(t, NULL, NULL, 0); /* starting runs design code only */
    /* pct: a random priority above every change-point priority (< 2^32) */
    t->prio = syncmut_sched_strategy == STRATEGY_PCT ? (UINT64_C(1) << 32) + (syncmut_sched_rng_next() >> 32) : 0;
    t->parent = syncmut_sched_self != NULL && t != syncmut_sched_self ? syncmut_sched_self->id : NO_NAME;
    t->rr_sliced = 0;
    t->just_created = 0;
    t->forced = 0;
    t->retries = 0;
    atomic_store_explicit(&t->site, -1, memory_order_relaxed);
    atomic_store_explicit(&t->name, NO_NAME, memory_order_relaxed);
    return t;
}

/* The thread is gone: joiners may go on, someone else gets the baton. Runs when the
 * start routine returns, and from the key destructor after pthread_exit/cancellation. */
void syncmut_sched_finish(struct sthread *t)
{
    pthread_mutex_lock(&syncmut_sched_lock);
    int s = load_state(t);
    if (s != FREE && s != FINISHED) {
        atomic_store_explicit(&t->site, -1, memory_order_relaxed);
        set_state(t, FINISHED);
        if (syncmut_sched_atomic_owner == t) { /* ended inside an atomic section: the section ends too */
            syncmut_sched_atomic_owner = NULL, syncmut_sched_atomic_depth = 0;
            syncmut_races_atomic_end(t->id);
        }
        syncmut_sched_wake_all(t, W_JOIN);
        if (current == t)
            syncmut_sched_reschedule(t);
    }
    pthread_mutex_unlock(&syncmut_sched_lock);
}

static void finish_at_exit(void *p)
{
    syncmut_sched_finish(p);
}

/* ---- wrapped calls ------------------------------------------------------------------ */

void syncmut_sched_enter(uint32_t site)
{
    syncmut_sched_enter_on(site, NULL, NULL);
    /* unknown objects: everything */
}

const char syncmut_sched_join_mark;

void syncmut_sched_enter_on(uint32_t site, const void *a, const void *b)
{
    syncmut_sched_enter_lock(site, a, b, 0);
}

void syncmut_sched_enter_lock(uint32_t site, const void *a, const void *b, int lock)
{
    struct sthread *me = syncmut_sched_self;
    if (a == SYNCMUT_SCHED_JOIN) {
        pthread_mutex_lock(&syncmut_sched_lock);
        struct sthread *target = syncmut_sched_thread_of_handle((pthread_t)b);
        if (target != NULL && target != me)
            syncmut_sched_set_next_join(me, target);
        else
            syncmut_sched_set_next(me, NULL, NULL, 1); /* not a thread of ours: everything */
        pthread_mutex_unlock(&syncmut_sched_lock);
    } else {
        syncmut_sched_set_next(me, a, b, a == NULL && b == NULL);
        if (lock != 0) {
            me->next_lock = a;
            me->next_lock_kind = lock;
        }
    }
    atomic_store_explicit(&me->site, (int64_t)site, memory_order_relaxed);
    me->reads_in_a_row = 0; /* a synchronization call may change what others wait for */
    set_state(me, READY);
    point(me);
}

void syncmut_sched_leave(void)
{
    atomic_store_explicit(&syncmut_sched_self->site, -1, memory_order_relaxed);
}

/* ---- waiting without an object: sleeps and yields ----------------------------------- */

/* The caller holds the baton and waits for time to pass (`doze`: a sleep, a poll or
 * select with a timeout and nothing ready) or gives way (a yield). Without a scheduling
 * point here a polling loop ("while (done < n) usleep(10000)") would keep the one turn
 * and the threads it waits for would never run. A sleeper runs again when no awake
 * thread is ready, or once fairness finds it starved (FAIR_BOUND points): a design whose
 * workers never block ("sleep(1); stop = 1") still ends. A yielder runs again once every
 * thread ready at the yield has run a step. The step acts on no object. */
/* Whether a thread other than `me` has started and not finished. */
static int others_alive(const struct sthread *me)
{
    for (uint32_t i = 0; i < syncmut_sched_slots_used; i++) {
        int s = load_state(&syncmut_sched_threads[i]);
        if (&syncmut_sched_threads[i] != me && s != FREE && s != FINISHED)
            return 1;
    }
    return 0;
}

static void wait_without_object(int doze)
{
    struct sthread *me = syncmut_sched_self;
    pthread_mutex_lock(&syncmut_sched_lock);
    if (!doze && !others_alive(me)) {
        /* A yield with nobody to yield to changes no schedule: not a step. Library code
         * spinning at exit (a sanitizer's leak check waiting for its helper) would
         * otherwise count against the livelock bound as long as the machine is slow. */
        pthread_mutex_unlock(&syncmut_sched_lock);
        return;
    }
    syncmut_sched_set_next(me, NULL, NULL, 0);
    me->reads_in_a_row = 0;
    if (doze)
        me->dozing = 1;
    else
        me->yielded_at = syncmut_sched_steps + 1; /* the step this point takes (reschedule counts it) */
    set_state(me, READY);
    syncmut_sched_reschedule(me);
    pthread_mutex_unlock(&syncmut_sched_lock);
}

void syncmut_sched_sleep(void)
{
    wait_without_object(1);
}

void syncmut_sched_yield(void)
{
    wait_without_object(0);
}

/* ---- shared-memory accesses (--interleave memory) ----------------------------------- */

/* Called by the mutator's instrumentation before every load/store of memory that may be
 * shared (mutator/src/interleave.rs); `access` numbers the access in the catalogue's
 * list (mutants.json `accesses`), written as the option's `m<k>` in the schedule file. The address is the step's object: accesses to
 * different addresses, and two reads of one address, commute (schedule-out `r<k>`).
 * Not a trace event (a loop would flood the trace); the schedule file records it. */
void syncmut_mem_access(const void *addr, uint32_t write, uint32_t access)
{
    if (!enabled || syncmut_sched_self == NULL || load_state(syncmut_sched_self) != RUNNING)
        return;
    struct sthread *me = syncmut_sched_self;
    me->at_access = 1; /* its stack is not hashed (repeat_state.c) */
    syncmut_sched_set_next(me, addr, NULL, 0);
    me->next_reads = (write & SYNCMUT_ACCESS_WRITE) == 0;
    me->next_access = access;
    if (write)
        me->reads_in_a_row = 0;
    else if (++me->reads_in_a_row >= SPIN_READS)
        me->yielded_at = syncmut_sched_steps + 1; /* the step this point takes (reschedule counts it) */
    set_state(me, READY);
    point(me);
    syncmut_races_access(me->id, addr, write, access);
    syncmut_trace_reads_access(addr, write & SYNCMUT_ACCESS_WRITE);
}

/* The same access in a metamutant built for race detection only (`run --races`): not a
 * scheduling point, so the interleavings explored are those of the synchronization. */
void syncmut_mem_observe(const void *addr, uint32_t flags, uint32_t access)
{
    if (!enabled || syncmut_sched_self == NULL || load_state(syncmut_sched_self) != RUNNING)
        return;
    syncmut_races_access(syncmut_sched_self->id, addr, flags, access);
    syncmut_trace_reads_access(addr, flags & SYNCMUT_ACCESS_WRITE);
}

/* ---- threads that wait for the rest of the run ------------------------------------- */

void syncmut_sched_end_if_parked(struct sthread *me)
{
    if (syncmut_sched_parked == 0)
        return;
    static const char msg[] = "syncmut runtime: the run cannot go on (or passed its step budget) while a thread waits at a failed assumption in an atomic section: discarded, run ended with exit status 123 (not a bug)\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    syncmut_sched_write_schedule_out("assume");
    /* As __VERIFIER_assume ends a run: exit, by a thread that holds the baton. */
    set_state(me, RUNNING);
    current = me;
    pthread_mutex_unlock(&syncmut_sched_lock);
    exit(SYNCMUT_STATUS_ASSUME);
}

/* ---- start-up ----------------------------------------------------------------------- */

/* In a forked child only the forking thread exists. */
static void after_fork_in_child(void)
{
    retry_blocked = 0;
    for (uint32_t i = 0; i < syncmut_sched_slots_used; i++) {
        int s = load_state(&syncmut_sched_threads[i]);
        if (&syncmut_sched_threads[i] != syncmut_sched_self && s != FREE && s != FINISHED)
            set_state(&syncmut_sched_threads[i], FINISHED);
    }
}

/* After the runtime's own initialisation (priority 101), before the design's
 * constructors; runs on the main thread. */
__attribute__((constructor(102))) static void scheduler_init(void)
{
    const char *value = getenv(SYNCMUT_ENV_SCHEDULE);
    if (value == NULL || *value == '\0')
        return;
    /* Without the rewrite a thread blocked in the real pthread_mutex_lock would keep
     * the one turn the scheduler hands out, and every other thread would wait for it
     * forever: a hang that looks like the design's. */
    if (!syncmut_instrumented())
        syncmut_fatal("SYNCMUT_SCHEDULE is set, but this program is not instrumented: its synchronization "
                      "calls do not reach the scheduler (it is the uninstrumented build). Run the metamutant "
                      "instead, or unset SYNCMUT_SCHEDULE");
    syncmut_sched_schedule_value = value;
    syncmut_sched_owner_pid = getpid();
    syncmut_sched_parse_strategy(value);
    if (syncmut_sched_strategy == STRATEGY_REPLAY || syncmut_sched_strategy == STRATEGY_FOLLOW ||
        syncmut_sched_strategy == STRATEGY_EVENTS)
        syncmut_sched_load_replay(value + 7); /* "replay:", "follow:", "events:" */
    const char *record = getenv(SYNCMUT_ENV_RECORD_STEPS);
    if (record != NULL && *record != '\0') {
        if (strcmp(record, "0") != 0 && strcmp(record, "1") != 0)
            syncmut_fatal("malformed SYNCMUT_RECORD_STEPS '%s': expected 0 (no `# step` lines) or 1", record);
        syncmut_sched_record_steps = record[0] == '1';
    }
    const char *detail = getenv(SYNCMUT_ENV_RECORD_DETAIL);
    if (detail != NULL && *detail != '\0') {
        if (strcmp(detail, "0") != 0 && strcmp(detail, "1") != 0)
            syncmut_fatal("malformed SYNCMUT_RECORD_DETAIL '%s': expected 0 (options named by their thread "
                          "alone) or 1", detail);
        syncmut_sched_record_detail = detail[0] == '1';
    }
    const char *out = getenv(SYNCMUT_ENV_SCHEDULE_OUT);
    if (out != NULL && *out != '\0')
        syncmut_sched_start_recording(out);
    const char *budget = getenv(SYNCMUT_ENV_MAX_STEPS);
    if (budget != NULL && *budget != '\0' && (!syncmut_sched_parse_u64(budget, &max_steps) || max_steps == 0))
        syncmut_fatal("malformed SYNCMUT_MAX_STEPS '%s': expected a positive decimal number", budget);
    const char *threads = getenv(SYNCMUT_ENV_THREAD_BOUND);
    if (threads != NULL && *threads != '\0' &&
        (!syncmut_sched_parse_u64(threads, &syncmut_sched_thread_bound) || syncmut_sched_thread_bound == 0))
        syncmut_fatal("malformed SYNCMUT_THREAD_BOUND '%s': expected a positive decimal number", threads);
    syncmut_repeat_init();
    if (pthread_key_create(&syncmut_sched_exit_key, finish_at_exit) != 0)
        syncmut_fatal("SYNCMUT_SCHEDULE: cannot start the scheduler (pthread_key_create failed)");
    pthread_atfork(NULL, NULL, after_fork_in_child);
    int races = syncmut_races_init();
    if (syncmut_sched_out_path != NULL || races) {
        atexit(syncmut_sched_write_at_exit); /* after the trace's handler was registered: runs before it */
        if (!syncmut_trace_on())
            syncmut_sched_install_signal_handlers();
    }

    struct sthread *main_thread = syncmut_sched_new_slot(); /* T0 */
    atomic_store_explicit(&main_thread->name, syncmut_sched_intern_thread_name(0), memory_order_relaxed);
    main_thread->routine = "main";
    syncmut_trace_set_thread_routine("main");
    main_thread->stack_high = __libc_stack_end; /* main's frames and the process's first */
    set_state(main_thread, RUNNING);
    pthread_setspecific(syncmut_sched_exit_key, main_thread); /* main calling pthread_exit */
    syncmut_sched_self = main_thread;
    current = main_thread;
    enabled = 1;
}
