/* Controlled scheduler for pthread designs:
 * SYNCMUT_SCHEDULE=default | random:<seed> | pct:<seed>:<depth>[:<steps>] |
 * rr:<quantum>:<phase> | holdback:<seed>:<steps> | replay:<path> | follow:<path>, and
 * SYNCMUT_SCHEDULE_OUT=<path> (the choices made, replayable).
 *
 * Baton: a thread the scheduler controls runs design code only while `current` points
 * to it. Everyone else waits on its own condition variable under `lock`. At each
 * scheduling point the holder picks the next thread (strategy below), hands `current`
 * over and waits for it to come back. Threads are numbered in creation order: T0 is
 * main, T1, T2... the threads created through syncmut_hook_pthread_create; the trace
 * uses the same numbers (syncmut_trace_set_thread_id).
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
#include "signal_safe_out.h"
#include "scheduler.h"
#include "syncmut_protocol.h"
#include "activation.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace.h"
#include "races.h"

#define MAX_THREADS 1024u
#define DEFAULT_MAX_STEPS 10000000u
/* Default strategy: how many scheduling points in a row the current thread keeps the
 * baton while another thread could run, before it is rotated out. Without it a polling
 * loop (trylock, or lock/test/unlock) would starve the thread it waits for. */
#define SLICE 1000u
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
#define NO_NAME UINT32_MAX

enum state { FREE = 0, READY, RUNNING, BLOCKED, FINISHED };
enum wait_kind { W_NONE = 0, W_RETRY, W_COND, W_BARRIER, W_JOIN, W_FUTEX };
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
    uint64_t prio; /* pct: higher runs first */
    uint32_t parent; /* id of the thread that created it (holdback); NO_NAME for main */
    int rr_sliced; /* rr: has had a slice (its first one is `rr_phase` points longer) */
    /* Objects the thread's pending step acts on (schedule-out file): up to two, or
     * `touches_all` when unknown. */
    const void *next_obj[2];
    int touches_all;
    int next_reads; /* the pending step only reads next_obj[0] (a memory load) */
    int64_t next_join; /* the pending step joins thread k (waits for its end only), else -1 */
    int64_t next_access; /* the pending step is memory access number k (mutator's list), else -1 */
    /* Fairness. */
    uint32_t reads_in_a_row; /* memory reads since the thread's last write or sync call */
    uint64_t yielded_at; /* step of its last busy-wait yield, 0: none */
    uint64_t last_run; /* step it last ran at, or was made ready at */
    int forced; /* its last run was a fairness pick (it had starved FAIR_BOUND points) */
    uint32_t retries; /* lock attempts in a row that found the object taken */
    /* The run step (index among the recorded run points) during which another thread
     * created or woke it, if it has not run since; -1: none. A causal edge the objects
     * do not show (a signal wakes a waiter that then relocks the mutex). */
    int64_t readied;
};

static int enabled; /* written once before main */
static enum { STRATEGY_DEFAULT, STRATEGY_RANDOM, STRATEGY_PCT, STRATEGY_RR, STRATEGY_HOLDBACK, STRATEGY_REPLAY, STRATEGY_FOLLOW } strategy;
static uint64_t rng_state;
/* pct: depth d, d-1 change points over an estimated SYNCMUT_PCT_STEPS scheduling points. */
#define PCT_MAX_DEPTH 64u
#define DEFAULT_PCT_STEPS 1000u
static uint32_t pct_depth;
static uint64_t pct_steps = DEFAULT_PCT_STEPS;
static uint64_t pct_change[PCT_MAX_DEPTH]; /* step numbers, index 1..d-1 */
/* rr: round-robin. The thread holding the baton keeps it for `rr_quantum` choice points
 * in a row, then hands it to the next ready thread by id (cyclic); a thread that blocks
 * or ends hands it on the same way. Each thread's first slice is `rr_phase` points
 * longer, so the phases 0..quantum-1 shift where its switches fall relative to its
 * loop (its start is a point of its own, and main's first slice includes creating the
 * threads). Deterministic: a strict alternation of the threads' steps, which a random
 * walk or a few preemptions rarely produce. */
static uint64_t rr_quantum, rr_phase;
static uint32_t rr_owner = NO_NAME;
static int64_t rr_used;
/* holdback: a seeded random walk in which, until the release step, a thread is not run
 * while the thread that created it could run: a creator starts all its threads before
 * any of them moves, and the threads then race on equal terms (a thread created last
 * may overtake the early ones). The release step is drawn in 1..steps. */
static uint64_t holdback_release;
/* replay and follow: the chosen thread of each choice point, in order, and its kind
 * (REPLAY_ANY when the line names none, as in a dfs prefix). */
#define REPLAY_ANY 0xffu
static uint32_t *replay_ids;
static uint8_t *replay_kinds;
static uint64_t replay_len, replay_pos;
static int64_t replay_diverged = -1; /* choice point where the file stopped fitting */
/* SYNCMUT_SCHEDULE_OUT: every choice point (more than one option), preallocated. */
enum choice_kind { K_RUN = 0, K_WAKE, K_TIMEOUT };
struct choice {
    uint32_t chosen;
    uint32_t current; /* K_RUN: the thread at the point (NO_NAME: none) */
    uint32_t kind;
    uint32_t single;  /* K_RUN with one option: not a choice (a `# step` line) */
    uint32_t n;       /* options, in opts[off..off+n) */
    uint64_t off;
    uint64_t events;  /* trace events recorded before the point */
};
struct option {
    uint32_t id;
    int32_t site;
    uint32_t obj[2]; /* OBJ_NONE, OBJ_ALL, or k+1 for the k-th object seen */
    uint32_t reads;  /* the step only reads its object: two reads commute */
    int64_t access;  /* memory access number (`m<k>` in the site field), else -1 */
    int64_t readied; /* the thread's `readied` (`b<k>` after the objects), else -1 */
    int64_t join;    /* the step joins thread k (`j<k>` for the objects), else -1 */
};
#define OBJ_NONE 0u
#define OBJ_ALL UINT32_MAX
/* Objects numbered by first appearance in the recording (addresses vary with ASLR; the
 * numbering is the same for runs that share a prefix of choices). */
#define MAX_OBJECTS 65536u
/* Open addressing, twice as many slots as objects: with --interleave memory every
 * shared address is an object, and numbering must stay cheap at each choice point. */
#define OBJECT_SLOTS (2u * MAX_OBJECTS)
static struct { const void *addr; uint32_t number; } object_table[OBJECT_SLOTS];
static uint32_t nobjects;
#define MAX_CHOICES (1u << 22)
#define MAX_OPTIONS (1u << 24)
static char *out_path; /* absolute */
static struct choice *choices;
static struct option *options;
static _Atomic uint64_t nchoices;
static uint64_t noptions;
static _Atomic int choices_truncated;
static _Atomic int out_written;
/* Run points recorded (choices and single steps); the step under way is the last. */
static uint64_t run_points;
/* SYNCMUT_RECORD_STEPS=0 clears it: single steps are counted (run_points, so `b<k>` and
 * the merging of consecutive ones stay as when they are written) but neither stored nor
 * written. Only the partial-order reduction reads them; other runs save the work. */
static int record_steps = 1;
/* The thread of the last point when it was a single step, else NO_NAME: the next single
 * step of that thread is merged with it. */
static uint32_t last_single = NO_NAME;
static int64_t current_step = -1;
static const char *schedule_value;
static pid_t owner_pid; /* a forked child must not write the parent's schedule file */
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
/* __VERIFIER_atomic_begin/end: the thread inside an atomic section, and its nesting. */
static struct sthread *atomic_owner;
static uint32_t atomic_depth;
static pthread_key_t exit_key;
static _Thread_local struct sthread *self;


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
    /* Ready from now on: starvation counts from here; but a thread that fairness ran and
     * that then found its lock taken (the poller it starved for holds it) stays starved,
     * and runs again at the next point. Else a poller whose loop period divides
     * FAIR_BOUND holds the lock at every forced point, and the retry is woken and starved
     * again forever: a livelock only the schedule made. */
    int still_starved = (t->forced || t->retries >= RETRY_BOUND) && t->kind == W_RETRY && steps >= FAIR_BOUND;
    t->obj = NULL;
    t->kind = W_NONE;
    t->wake = reason;
    t->last_run = still_starved ? steps - FAIR_BOUND : steps;
    t->readied = current_step;
    set_state(t, READY);
}

/* ---- choice points: strategies, replay, recording ------------------------------------ */

static uint32_t object_number(const struct sthread *t, int j)
{
    if (t->touches_all)
        return j == 0 ? OBJ_ALL : OBJ_NONE;
    const void *o = t->next_obj[j];
    if (o == NULL)
        return OBJ_NONE;
    uint64_t h = (uint64_t)(uintptr_t)o * 0x9E3779B97F4A7C15u;
    for (uint32_t i = (uint32_t)(h >> 40) % OBJECT_SLOTS;; i = (i + 1) % OBJECT_SLOTS) {
        if (object_table[i].addr == o)
            return object_table[i].number;
        if (object_table[i].addr == NULL) {
            if (nobjects == MAX_OBJECTS)
                return OBJ_ALL;
            object_table[i].addr = o;
            object_table[i].number = ++nobjects;
            return nobjects;
        }
    }
}

static void set_next(struct sthread *t, const void *a, const void *b, int all)
{
    t->next_obj[0] = a;
    t->next_obj[1] = b;
    t->touches_all = all;
    t->next_reads = 0;
    t->next_access = -1;
    t->next_join = -1;
}

/* The pending step joins `target`: it depends only on the target's end (the oracle's
 * partial-order reduction orders it after the target's last step, and no other). */
static void set_next_join(struct sthread *t, const struct sthread *target)
{
    set_next(t, NULL, NULL, 0);
    t->next_join = target->id;
}

/* Records a scheduling point: a choice (n > 1), or with `single` a run point with one
 * option, which the oracle's partial-order reduction needs for its happens-before
 * relation. Consecutive single steps of one thread are one record (one step, on the
 * union of their objects: every object when they are more than two). */
static void record_choice(int kind, const struct sthread *chosen, const struct sthread *cur, uint32_t n)
{
    if (choices == NULL)
        return;
    int single = kind == K_RUN && n == 1;
    int follows = single && last_single == chosen->id;
    last_single = single ? chosen->id : NO_NAME;
    if (single && !record_steps)
        return;
    uint64_t k = atomic_load_explicit(&nchoices, memory_order_relaxed);
    if (follows && k > 0 && choices[k - 1].single && choices[k - 1].chosen == chosen->id) {
        struct option *o = &options[choices[k - 1].off];
        if (chosen->next_join >= 0 || o->join >= 0) { /* a join merged with other steps: everything */
            o->obj[0] = OBJ_ALL, o->obj[1] = OBJ_NONE, o->join = -1;
        }
        for (int j = 0; j < 2; j++) {
            uint32_t obj = object_number(chosen, j);
            int reads = chosen->next_reads;
            if (obj == OBJ_NONE || o->obj[0] == OBJ_ALL)
                continue;
            if (obj == OBJ_ALL || (o->obj[1] != OBJ_NONE && o->obj[1] != obj && o->obj[0] != obj)) {
                o->obj[0] = OBJ_ALL, o->obj[1] = OBJ_NONE;
                continue;
            }
            if (o->obj[0] == OBJ_NONE) {
                o->obj[0] = obj;
                o->reads = (uint32_t)reads;
            } else if (o->obj[0] == obj) {
                o->reads = o->reads && reads;
            } else if (o->obj[1] == OBJ_NONE || o->obj[1] == obj) {
                /* the second slot is written `+o<k>`: not a read */
                o->obj[1] = obj;
                o->reads = 0;
            }
        }
        o->access = -1;
        return;
    }
    if (k >= MAX_CHOICES || noptions + n > MAX_OPTIONS) {
        atomic_store_explicit(&choices_truncated, 1, memory_order_relaxed);
        return;
    }
    struct choice *c = &choices[k];
    c->chosen = chosen->id;
    c->current = cur != NULL ? cur->id : NO_NAME;
    c->kind = (uint32_t)kind;
    c->single = (uint32_t)single;
    c->n = n;
    c->off = noptions;
    c->events = syncmut_trace_recorded();
    for (uint32_t i = 0; i < n; i++) {
        for (int j = 0; j < 2; j++)
            options[noptions + i].obj[j] = object_number(candidates[i], j);
        options[noptions + i].reads = (uint32_t)candidates[i]->next_reads;
        options[noptions + i].access = candidates[i]->next_access;
        options[noptions + i].readied = candidates[i]->readied;
        options[noptions + i].join = candidates[i]->next_join;
        options[noptions + i].id = candidates[i]->id;
        int64_t site = atomic_load_explicit(&candidates[i]->site, memory_order_relaxed);
        options[noptions + i].site = site < 0 || site > INT32_MAX ? -1 : (int32_t)site;
    }
    noptions += n;
    /* Published last: a flush from a signal handler sees whole entries only. */
    atomic_store_explicit(&nchoices, k + 1, memory_order_release);
}

/* A run point: records it and starts the chosen thread's step. */
static void record_run(struct sthread *chosen, const struct sthread *cur, uint32_t n)
{
    if (choices == NULL)
        return;
    int merged = n == 1 && last_single == chosen->id;
    record_choice(K_RUN, chosen, cur, n);
    if (!merged)
        current_step = (int64_t)run_points++;
    chosen->readied = -1;
}

/* Replay: the next recorded thread if it is among the n candidates, else `fallback`
 * (the file is used up, or stopped fitting: the rest of the run follows the default). */
static struct sthread *replay_pick(uint32_t n, struct sthread *fallback)
{
    if (replay_pos >= replay_len)
        return fallback;
    uint32_t want = replay_ids[replay_pos++];
    for (uint32_t i = 0; i < n; i++)
        if (candidates[i]->id == want)
            return candidates[i];
    replay_diverged = (int64_t)replay_pos - 1;
    replay_pos = replay_len;
    return fallback;
}

/* Follow: the recorded order of thread steps, as far as this run can take it. Another
 * program (the original following a mutant's interleaving) meets other choice points:
 * a recorded wake/timeout choice this run does not have is skipped at a run choice; a
 * wake/timeout choice the file does not have takes `fallback`; a recorded thread that
 * is not among the candidates yet waits (this point takes `fallback`) until it is, and
 * one that has finished is dropped. Never diverges for good, unlike replay. */
static struct sthread *follow_pick(int kind, uint32_t n, struct sthread *fallback)
{
    while (replay_pos < replay_len) {
        uint8_t want_kind = replay_kinds[replay_pos];
        if (want_kind == REPLAY_ANY || want_kind == (uint8_t)kind)
            break;
        if (kind != K_RUN)
            return fallback;
        replay_pos++;
    }
    while (replay_pos < replay_len) {
        uint32_t want = replay_ids[replay_pos];
        for (uint32_t i = 0; i < n; i++)
            if (candidates[i]->id == want) {
                replay_pos++;
                return candidates[i];
            }
        int finished = 0;
        for (uint32_t i = 0; i < slots_used; i++)
            if (threads[i].id == want && load_state(&threads[i]) == FINISHED)
                finished = 1;
        if (!finished)
            return fallback;
        replay_pos++;
    }
    return fallback;
}

/* A choice among the n candidates that is not a run choice (which waiter wakes, which
 * timed wait expires): seeded for random/pct, recorded/replayed like every choice. */
static struct sthread *pick_other(int kind, uint32_t n, struct sthread *fallback)
{
    struct sthread *chosen = fallback;
    if (strategy == STRATEGY_RANDOM || strategy == STRATEGY_PCT || strategy == STRATEGY_HOLDBACK)
        chosen = candidates[rng_next() % n];
    else if (strategy == STRATEGY_REPLAY && n > 1)
        chosen = replay_pick(n, fallback);
    else if (strategy == STRATEGY_FOLLOW && n > 1)
        chosen = follow_pick(kind, n, fallback);
    if (n > 1)
        record_choice(kind, chosen, NULL, n);
    return chosen;
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
    struct sthread *t = pick_other(K_TIMEOUT, n, lowest_id(n, UINT32_MAX));
    wake(t, WAKE_TIMEOUT);
    return t;
}

/* Keeps among the n candidates the ones a fair scheduler may run (returns how many):
 * the one starved longest if some ready thread has waited FAIR_BOUND points, else those
 * not held back by their own busy-wait yield. Depends only on the run's past choices, so
 * replay and follow meet the same candidates. */
static int fair_pick; /* the last fair_candidates kept only a starved thread */

static uint32_t fair_candidates(uint32_t n)
{
    struct sthread *starved = NULL;
    for (uint32_t i = 0; i < n; i++) {
        struct sthread *t = candidates[i];
        if (steps - t->last_run >= FAIR_BOUND && (starved == NULL || t->last_run < starved->last_run))
            starved = t;
    }
    fair_pick = starved != NULL;
    if (starved != NULL) {
        candidates[0] = starved;
        return 1;
    }
    /* t is held back while some ready thread has not run since t's yield. The relation
     * is acyclic (a thread runs at its own yield), so someone always stays. */
    uint32_t kept = 0;
    struct sthread *keep[MAX_THREADS];
    for (uint32_t i = 0; i < n; i++) {
        struct sthread *t = candidates[i];
        int held = 0;
        for (uint32_t j = 0; j < n && !held && t->yielded_at != 0; j++)
            held = candidates[j] != t && candidates[j]->last_run < t->yielded_at;
        if (!held)
            keep[kept++] = t;
    }
    for (uint32_t i = 0; i < kept; i++)
        candidates[i] = keep[i];
    return kept;
}

static int is_candidate(const struct sthread *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (candidates[i] == t)
            return 1;
    return 0;
}

/* The default strategy's choice; also keeps its time-slice state, so a replay that runs
 * out of recorded choices continues exactly like `default`. */
static struct sthread *default_choice(struct sthread *me, uint32_t n)
{
    if (load_state(me) != READY)
        return lowest_id(n, UINT32_MAX);
    if (!is_candidate(me, n)) { /* held back by fairness: the next ready thread by id */
        struct sthread *next = lowest_id(n, me->id);
        return next != NULL ? next : lowest_id(n, UINT32_MAX);
    }
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

/* rr's choice among the n candidates (see rr_quantum). */
static struct sthread *rr_choice(struct sthread *me, uint32_t n)
{
    if (rr_owner != me->id) { /* handed the baton outside rr_choice (a timed wait expired) */
        rr_owner = me->id;
        rr_used = me->rr_sliced ? 0 : -(int64_t)rr_phase;
        me->rr_sliced = 1;
    }
    if (load_state(me) == READY && is_candidate(me, n) && (n == 1 || ++rr_used < (int64_t)rr_quantum))
        return me;
    struct sthread *next = lowest_id(n, me->id);
    next = next != NULL ? next : lowest_id(n, UINT32_MAX);
    if (next != me) {
        rr_owner = next->id;
        rr_used = next->rr_sliced ? 0 : -(int64_t)rr_phase;
        next->rr_sliced = 1;
    }
    return next;
}

/* A candidate whose creator is also a candidate (holdback, before the release step). */
static int held_back(const struct sthread *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (candidates[i]->id == t->parent)
            return 1;
    return 0;
}

/* holdback's choice: uniform among the candidates not held back by their creator (the
 * relation follows creation, so someone always stays); uniform among all after release. */
static struct sthread *holdback_choice(uint32_t n)
{
    if (steps >= holdback_release)
        return candidates[rng_next() % n];
    struct sthread *free_to_run[MAX_THREADS];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!held_back(candidates[i], n))
            free_to_run[k++] = candidates[i];
    return free_to_run[rng_next() % k];
}

static struct sthread *highest_priority(uint32_t n)
{
    struct sthread *best = candidates[0];
    for (uint32_t i = 1; i < n; i++)
        if (candidates[i]->prio > best->prio || (candidates[i]->prio == best->prio && candidates[i]->id < best->id))
            best = candidates[i];
    return best;
}

/* The thread to run next; `me` is READY if it can go on. NULL: nothing can run. */
static struct sthread *choose(struct sthread *me)
{
    /* Inside __VERIFIER_atomic_begin/end the section is one step: no other thread runs
     * while its owner can go on (if the owner blocks, the section is broken: others run). */
    if (atomic_owner == me && atomic_depth > 0 && load_state(me) == READY) {
        candidates[0] = me;
        record_run(me, me, 1);
        return me;
    }
    if (strategy == STRATEGY_PCT) /* change points: the running thread drops below all */
        for (uint32_t j = 1; j < pct_depth; j++)
            if (pct_change[j] == steps)
                me->prio = pct_depth - j;
    uint32_t n = collect_ready();
    if (n == 0) {
        struct sthread *t = expire_timed_wait();
        if (t != NULL) { /* its step is a run point with one option */
            candidates[0] = t;
            record_run(t, me, 1);
        }
        return t;
    }
    n = fair_candidates(n);
    struct sthread *chosen;
    switch (strategy) {
    case STRATEGY_RANDOM:
        chosen = candidates[rng_next() % n];
        break;
    case STRATEGY_PCT:
        chosen = highest_priority(n);
        break;
    case STRATEGY_RR:
        chosen = rr_choice(me, n);
        break;
    case STRATEGY_HOLDBACK:
        chosen = holdback_choice(n);
        break;
    case STRATEGY_REPLAY:
        chosen = default_choice(me, n);
        if (n > 1)
            chosen = replay_pick(n, chosen);
        break;
    case STRATEGY_FOLLOW:
        chosen = default_choice(me, n);
        if (n > 1)
            chosen = follow_pick(K_RUN, n, chosen);
        break;
    default:
        chosen = default_choice(me, n);
        break;
    }
    if (n == 1)
        candidates[0] = chosen;
    record_run(chosen, me, n);
    return chosen;
}

/* ---- SYNCMUT_SCHEDULE_OUT (async-signal-safe: open/write/close, static buffer) ------- */

static char sout_space[1 << 14];
static struct signal_safe_out sout = { .fd = -1, .size = sizeof sout_space, .buf = sout_space };

static void sout_flush(void)
{
    signal_safe_flush(&sout);
}

static void sout_str(const char *s)
{
    signal_safe_str(&sout, s);
}

static void sout_u64(uint64_t v)
{
    signal_safe_u64(&sout, v);
}

static const char *const kind_names[] = {"run", "wake", "timeout"};

/* Writes the choices made so far, once: at exit, in the end-record path (signals,
 * deadlock, livelock), or from the scheduler's own signal handlers without a trace. */
static void write_schedule_out(const char *how)
{
    syncmut_races_write(); /* written at the same moments, to its own file */
    if (out_path == NULL || getpid() != owner_pid || atomic_exchange(&out_written, 1) != 0)
        return;
    int fd;
    do
        fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        static const char msg[] = "syncmut runtime: cannot create SYNCMUT_SCHEDULE_OUT file\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        return;
    }
    sout.fd = fd;
    sout.used = 0;
    sout_str("# syncmut-schedule 1 ");
    sout_str(schedule_value);
    sout_str("\n# <chosen> <kind> <current|-> <id>:<site|->:<objects>[:b<step>],... e<events> (one line per choice point; `# step` lines: run points with one option)\n");
    uint64_t n = atomic_load_explicit(&nchoices, memory_order_acquire);
    for (uint64_t k = 0; k < n; k++) {
        const struct choice *c = &choices[k];
        if (c->single)
            sout_str("# step ");
        sout_u64(c->chosen);
        sout_str(" ");
        sout_str(kind_names[c->kind]);
        sout_str(" ");
        if (c->current == NO_NAME)
            sout_str("-");
        else
            sout_u64(c->current);
        for (uint32_t i = 0; i < c->n; i++) {
            const struct option *o = &options[c->off + i];
            sout_str(i == 0 ? " " : ",");
            sout_u64(o->id);
            sout_str(":");
            if (o->access >= 0) {
                sout_str("m");
                sout_u64((uint64_t)o->access);
            } else if (o->site < 0)
                sout_str("-");
            else
                sout_u64((uint64_t)o->site);
            sout_str(":");
            if (o->obj[0] == OBJ_ALL) {
                sout_str("*");
            } else if (o->join >= 0) {
                sout_str("j");
                sout_u64((uint64_t)o->join);
            } else if (o->obj[0] == OBJ_NONE) {
                sout_str("-");
            } else {
                sout_str(o->reads ? "r" : "o");
                sout_u64(o->obj[0]);
                if (o->obj[1] != OBJ_NONE && o->obj[1] != OBJ_ALL) {
                    sout_str("+o");
                    sout_u64(o->obj[1]);
                }
            }
            if (o->readied >= 0) {
                sout_str(":b");
                sout_u64((uint64_t)o->readied);
            }
        }
        sout_str(" e");
        sout_u64(c->events);
        sout_str("\n");
    }
    if (!record_steps)
        sout_str("# steps not recorded (SYNCMUT_RECORD_STEPS=0)\n");
    if (atomic_load_explicit(&choices_truncated, memory_order_relaxed))
        sout_str("# truncated\n");
    if (replay_diverged >= 0) {
        sout_str("# diverged ");
        sout_u64((uint64_t)replay_diverged);
        sout_str("\n");
    }
    sout_str("# end ");
    sout_str(how);
    sout_str(" steps ");
    sout_u64(steps);
    sout_str("\n");
    sout_flush();
    close(fd);
}

/* ---- end record --------------------------------------------------------------------- */

static void provide_end(syncmut_end *end)
{
    write_schedule_out("signal"); /* at exit, deadlock, livelock: already written */
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
            if (s == FREE || s == FINISHED || (!first && t->id <= last) || (end->at_exit && t == self))
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
        write_schedule_out("livelock");
        syncmut_trace_finish("livelock", name,
                             atomic_load_explicit(&me->site, memory_order_relaxed), SYNCMUT_STATUS_LIVELOCK);
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
        write_schedule_out("deadlock");
        syncmut_trace_finish("deadlock", NO_NAME, -1, SYNCMUT_STATUS_DEADLOCK);
    }
    set_state(next, RUNNING);
    next->last_run = steps;
    next->forced = fair_pick;
    fair_pick = 0;
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
static int try_sem(void *s, int arg);

static int acquire(void *obj, try_fn try, int arg, int timed)
{
    for (;;) {
        int rc = try(obj, arg);
        if (rc == 0)
            syncmut_races_acquire(self->id, obj, atomic_load_explicit(&self->site, memory_order_relaxed),
                                  try != try_sem);
        if (rc != EBUSY) {
            self->retries = 0;
            return rc;
        }
        pthread_mutex_lock(&lock);
        self->retries++;
        set_next(self, obj, NULL, 0); /* once woken: the retry */
        int woken = block_on(obj, W_RETRY, timed);
        pthread_mutex_unlock(&lock);
        if (woken == WAKE_TIMEOUT)
            return ETIMEDOUT;
    }
}

/* After an operation that may let a waiter of `obj` through (`lock`: an unlock, else a
 * semaphore post). */
static void release(const void *obj, int lock_released)
{
    syncmut_races_release(self->id, obj, lock_released);
    pthread_mutex_lock(&lock);
    wake_all(obj, W_RETRY);
    pthread_mutex_unlock(&lock);
}

/* ---- threads ------------------------------------------------------------------------ */

int syncmut_sched_controls_me(void)
{
    return enabled && self != NULL && load_state(self) == RUNNING;
}

void syncmut_sched_acquired(const void *obj, int lock)
{
    syncmut_races_acquire(self->id, obj, atomic_load_explicit(&self->site, memory_order_relaxed), lock);
}

static struct sthread *new_slot(void) /* `lock` held */
{
    struct sthread *t = NULL;
    for (uint32_t i = 0; i < slots_used && t == NULL; i++)
        if (load_state(&threads[i]) == FREE)
            t = &threads[i];
    if (t == NULL) {
        if (slots_used == MAX_THREADS) {
            /* The design (a mutant, usually) keeps more threads than the scheduler
             * holds: a resource limit reached by the run, not a configuration error, so
             * the run ends with its trace and a status of its own. */
            struct sthread *me = self;
            uint32_t name = me != NULL ? atomic_load_explicit(&me->name, memory_order_relaxed) : NO_NAME;
            write_schedule_out("thread-limit");
            syncmut_trace_finish("thread limit (more than 1024 threads alive or not yet joined)",
                                 name,
                                 me != NULL ? atomic_load_explicit(&me->site, memory_order_relaxed) : -1,
                                 SYNCMUT_STATUS_THREAD_LIMIT);
        }
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
    t->reads_in_a_row = 0;
    t->yielded_at = 0;
    t->last_run = steps;
    t->readied = -1;
    set_next(t, NULL, NULL, 0); /* starting runs design code only */
    /* pct: a random priority above every change-point priority (< 2^32) */
    t->prio = strategy == STRATEGY_PCT ? (UINT64_C(1) << 32) + (rng_next() >> 32) : 0;
    t->parent = self != NULL && t != self ? self->id : NO_NAME;
    t->rr_sliced = 0;
    t->forced = 0;
    t->retries = 0;
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
        if (atomic_owner == t) { /* ended inside an atomic section: the section ends too */
            atomic_owner = NULL, atomic_depth = 0;
            syncmut_races_atomic_end(t->id);
        }
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
    syncmut_races_create(me->id, t->id);
    t->readied = current_step;
    set_state(t, READY); /* parked in the trampoline until chosen */
    pthread_mutex_unlock(&lock);
    atomic_store_explicit(&t->name, intern_thread_name(t->id), memory_order_relaxed);

    pthread_t handle;
    int rc = pthread_create(&handle, attr, trampoline, t);
    pthread_mutex_lock(&lock);
    if (rc == EAGAIN) {
        /* The system refused another thread (the run's memory limit holds fewer thread
         * stacks than the scheduler has slots): the same resource limit as the slots
         * running out. Handing EAGAIN back would leave a program that retries in a loop
         * (`while (1) pthread_create(...)`) spinning at one scheduling point until the
         * timeout, reported as a hang it does not have. */
        uint32_t name = atomic_load_explicit(&me->name, memory_order_relaxed);
        write_schedule_out("thread-limit");
        syncmut_trace_finish("thread limit (the system refused another thread: EAGAIN, the run's memory holds no more thread stacks)",
                             name, atomic_load_explicit(&me->site, memory_order_relaxed), SYNCMUT_STATUS_THREAD_LIMIT);
    }
    if (rc != 0) {
        set_state(t, FREE);
        next_id--; /* nothing ran since new_slot: the number is reused */
    } else {
        t->handle = handle;
        t->has_handle = 1;
        if (thread != NULL)
            *thread = handle;
        set_state(me, READY);
        set_next(me, NULL, NULL, 0); /* back to design code */
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

/* The thread of ours with pthread handle `thread` (the newest: handles recycle), or NULL.
 * Under `lock`. */
static struct sthread *thread_of_handle(pthread_t thread)
{
    struct sthread *target = NULL;
    for (uint32_t i = 0; i < slots_used; i++) {
        struct sthread *t = &threads[i];
        if (load_state(t) != FREE && t->has_handle && pthread_equal(t->handle, thread) &&
            (target == NULL || t->id > target->id))
            target = t;
    }
    return target;
}

void *syncmut_libc_function(_Atomic(void *) *cache, const char *name)
{
    void *f = atomic_load_explicit(cache, memory_order_acquire);
    if (f == NULL) {
        f = dlsym(RTLD_NEXT, name);
        if (f == NULL)
            syncmut_fatal("cannot find libc's %s (the design must be linked dynamically)", name);
        atomic_store_explicit(cache, f, memory_order_release);
    }
    return f;
}

int syncmut_real_pthread_join(pthread_t thread, void **retval)
{
    static _Atomic(void *) real;
    int (*join)(pthread_t, void **) = (int (*)(pthread_t, void **))syncmut_libc_function(&real, "pthread_join");
    return join(thread, retval);
}

int syncmut_sched_join(pthread_t thread, void **retval)
{
    struct sthread *me = self;
    pthread_mutex_lock(&lock);
    struct sthread *target = thread_of_handle(thread);
    if (target == NULL || target == me) { /* not ours, or self-join (EDEADLK) */
        pthread_mutex_unlock(&lock);
        return syncmut_real_pthread_join(thread, retval);
    }
    while (load_state(target) != FINISHED) {
        set_next_join(me, target);
        block_on(target, W_JOIN, 0);
    }
    syncmut_races_join(me->id, target->id);
    pthread_mutex_unlock(&lock);
    /* The target passed the baton and is only tearing down: this waits for that. */
    int rc = syncmut_real_pthread_join(thread, retval);
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
    syncmut_sched_enter_on(site, NULL, NULL);
    /* unknown objects: everything */
}

const char syncmut_sched_join_mark;

void syncmut_sched_enter_on(uint32_t site, const void *a, const void *b)
{
    struct sthread *me = self;
    if (a == SYNCMUT_SCHED_JOIN) {
        pthread_mutex_lock(&lock);
        struct sthread *target = thread_of_handle((pthread_t)b);
        if (target != NULL && target != me)
            set_next_join(me, target);
        else
            set_next(me, NULL, NULL, 1); /* not a thread of ours: everything */
        pthread_mutex_unlock(&lock);
    } else {
        set_next(me, a, b, a == NULL && b == NULL);
    }
    atomic_store_explicit(&me->site, (int64_t)site, memory_order_relaxed);
    pthread_mutex_lock(&lock);
    me->reads_in_a_row = 0; /* a synchronization call may change what others wait for */
    set_state(me, READY);
    reschedule(me);
    pthread_mutex_unlock(&lock);
}

void syncmut_sched_leave(void)
{
    atomic_store_explicit(&self->site, -1, memory_order_relaxed);
}

/* ---- shared-memory accesses (--interleave memory) ------------------------------------ */

/* Called by the mutator's instrumentation before every load/store of memory that may be
 * shared (mutator/src/interleave.rs); `access` numbers the access in the catalogue's
 * list (mutants.json `accesses`), written as the option's `m<k>` in the schedule file. The address is the step's object: accesses to
 * different addresses, and two reads of one address, commute (schedule-out `r<k>`).
 * Not a trace event (a loop would flood the trace); the schedule file records it. */
void syncmut_mem_access(const void *addr, uint32_t write, uint32_t access)
{
    if (!enabled || self == NULL || load_state(self) != RUNNING)
        return;
    struct sthread *me = self;
    pthread_mutex_lock(&lock);
    set_next(me, addr, NULL, 0);
    me->next_reads = (write & SYNCMUT_ACCESS_WRITE) == 0;
    me->next_access = access;
    if (write)
        me->reads_in_a_row = 0;
    else if (++me->reads_in_a_row >= SPIN_READS)
        me->yielded_at = steps + 1; /* the step this point takes (reschedule counts it) */
    set_state(me, READY);
    reschedule(me);
    pthread_mutex_unlock(&lock);
    syncmut_races_access(me->id, addr, write, access);
}

/* The same access in a metamutant built for race detection only (`run --races`): not a
 * scheduling point, so the interleavings explored are those of the synchronization. */
void syncmut_mem_observe(const void *addr, uint32_t flags, uint32_t access)
{
    if (!enabled || self == NULL || load_state(self) != RUNNING)
        return;
    syncmut_races_access(self->id, addr, flags, access);
}

/* ---- SV-COMP conventions (verifier.c) --------------------------------------------- */

void syncmut_sched_atomic_begin(void)
{
    pthread_mutex_lock(&lock);
    if (atomic_owner != self) {
        /* A scheduling point first, so where the section starts is itself explored. */
        set_next(self, NULL, NULL, 1);
        set_state(self, READY);
        reschedule(self);
        atomic_owner = self;
        atomic_depth = 0;
        syncmut_races_atomic_begin(self->id);
    }
    atomic_depth++;
    pthread_mutex_unlock(&lock);
}

void syncmut_sched_atomic_end(void)
{
    pthread_mutex_lock(&lock);
    if (atomic_owner == self && atomic_depth > 0 && --atomic_depth == 0) {
        atomic_owner = NULL;
        syncmut_races_atomic_end(self->id);
    }
    pthread_mutex_unlock(&lock);
}

void syncmut_sched_assume_failed(void)
{
    write_schedule_out("assume");
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
        release(m, 1);
    return rc;
}

int syncmut_sched_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int timed)
{
    /* Releasing the mutex and starting to wait is one step, as in pthread_cond_wait. */
    int rc = pthread_mutex_unlock(m);
    if (rc != 0)
        return rc;
    syncmut_races_release(self->id, m, 1);
    pthread_mutex_lock(&lock);
    wake_all(m, W_RETRY);
    set_next(self, m, NULL, 0); /* once woken: relock the mutex */
    int woken = block_on(c, W_COND, timed);
    pthread_mutex_unlock(&lock);
    rc = acquire(m, try_mutex, 0, 0);
    if (rc != 0)
        return rc;
    return woken == WAKE_TIMEOUT ? ETIMEDOUT : 0;
}

/* Wakes every waiter of `obj` or, for a signal, one: the longest waiter (default) or a
 * seeded choice (random). `lock` held. */
static void wake_waiters(const void *obj, int kind, int all)
{
    if (all) {
        wake_all(obj, kind);
        return;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < slots_used; i++) {
        struct sthread *t = &threads[i];
        if (load_state(t) == BLOCKED && t->obj == obj && t->kind == kind)
            candidates[n++] = t;
    }
    if (n > 0) {
        struct sthread *longest = candidates[0];
        for (uint32_t i = 1; i < n; i++)
            if (candidates[i]->since < longest->since)
                longest = candidates[i];
        wake(pick_other(K_WAKE, n, longest), WAKE_EVENT);
    }
}

void syncmut_sched_cond_wake(pthread_cond_t *c, int all)
{
    pthread_mutex_lock(&lock);
    wake_waiters(c, W_COND, all);
    pthread_mutex_unlock(&lock);
}

/* A futex on `addr` (libstdc++'s waits on atomics: std::counting_semaphore, std::latch,
 * std::barrier, std::atomic<T>::wait). Checking the value and blocking is one step, as
 * in the kernel: the caller holds the baton, so no wake can fall in between. */
int syncmut_sched_futex_wait(const int *addr, int expected, int timed)
{
    if (__atomic_load_n(addr, __ATOMIC_SEQ_CST) != expected)
        return EAGAIN;
    pthread_mutex_lock(&lock);
    set_next(self, addr, NULL, 0); /* once woken: the caller's re-check of the value */
    int woken = block_on(addr, W_FUTEX, timed);
    pthread_mutex_unlock(&lock);
    if (woken == WAKE_TIMEOUT)
        return ETIMEDOUT;
    syncmut_races_acquire(self->id, addr, atomic_load_explicit(&self->site, memory_order_relaxed), 0);
    return 0;
}

void syncmut_sched_futex_wake(const int *addr, int all)
{
    syncmut_races_release(self->id, addr, 0);
    pthread_mutex_lock(&lock);
    wake_waiters(addr, W_FUTEX, all);
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
        release(l, 1);
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
        release((const void *)l, 1);
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
        release(s, 0);
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
        if (syncmut_races_on()) { /* every arrival of the round happens before every return */
            uint32_t ids[MAX_THREADS], n = 0;
            for (uint32_t i = 0; i < slots_used; i++)
                if (load_state(&threads[i]) == BLOCKED && threads[i].obj == b && threads[i].kind == W_BARRIER)
                    ids[n++] = threads[i].id;
            ids[n++] = self->id;
            syncmut_races_barrier(ids, n);
        }
        wake_all(b, W_BARRIER);
        rc = PTHREAD_BARRIER_SERIAL_THREAD; /* the last to arrive, as in glibc */
    } else {
        set_next(self, NULL, NULL, 0); /* once released: return */
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

/* pct:<seed>:<depth>[:<steps>]; <steps>, else SYNCMUT_PCT_STEPS, else 1000, estimates
 * the run's scheduling points. The d-1 change points are drawn uniformly in 1..steps
 * from the seeded stream. */
static int parse_pct(const char *s)
{
    char fields[3][21];
    int n = 0;
    for (const char *p = s;; n++) {
        const char *colon = strchr(p, ':');
        size_t len = colon != NULL ? (size_t)(colon - p) : strlen(p);
        if (n == 3 || len > 20)
            return 0;
        memcpy(fields[n], p, len);
        fields[n][len] = '\0';
        if (colon == NULL) {
            n++;
            break;
        }
        p = colon + 1;
    }
    uint64_t depth;
    if (n < 2 || !parse_u64(fields[0], &rng_state) || !parse_u64(fields[1], &depth) || depth == 0 || depth > PCT_MAX_DEPTH)
        return 0;
    pct_depth = (uint32_t)depth;
    const char *est = getenv(SYNCMUT_ENV_PCT_STEPS);
    if (n == 3) {
        if (!parse_u64(fields[2], &pct_steps) || pct_steps == 0)
            return 0;
    } else if (est != NULL && *est != '\0' && (!parse_u64(est, &pct_steps) || pct_steps == 0)) {
        syncmut_fatal("malformed SYNCMUT_PCT_STEPS '%s': expected a positive decimal number", est);
    }
    for (uint32_t j = 1; j < pct_depth; j++)
        pct_change[j] = 1 + rng_next() % pct_steps;
    return 1;
}

/* Two or three colon-separated decimal fields: rr:<quantum>:<phase> (quantum >= 1,
 * phase < quantum) and holdback:<seed>:<steps> (steps >= 1). */
static int parse_fields(const char *s, uint64_t *a, uint64_t *b)
{
    const char *colon = strchr(s, ':');
    char first[21];
    if (colon == NULL || (size_t)(colon - s) > 20)
        return 0;
    memcpy(first, s, (size_t)(colon - s));
    first[colon - s] = '\0';
    return parse_u64(first, a) && parse_u64(colon + 1, b);
}

static int parse_rr(const char *s)
{
    return parse_fields(s, &rr_quantum, &rr_phase) && rr_quantum >= 1 && rr_phase < rr_quantum;
}

static int parse_holdback(const char *s)
{
    uint64_t steps_estimate;
    if (!parse_fields(s, &rng_state, &steps_estimate) || steps_estimate == 0)
        return 0;
    holdback_release = 1 + rng_next() % steps_estimate;
    return 1;
}

/* replay:<path>: one choice point per line, its chosen thread id first; lines starting
 * with '#' and empty lines are skipped, the rest of a line is ignored. */
static void load_replay(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        syncmut_fatal("SYNCMUT_SCHEDULE: cannot read replay file '%s': %s", path, strerror(errno));
    uint64_t cap = 0;
    char line[4096];
    uint64_t lineno = 0;
    int whole = 1; /* the previous fgets ended a line */
    while (fgets(line, sizeof line, f) != NULL) {
        int starts = whole;
        whole = strchr(line, '\n') != NULL;
        if (!starts)
            continue; /* the rest of a long line */
        lineno++;
        if (line[0] == '#' || line[0] == '\n' || line[0] == '\0')
            continue;
        uint64_t id = 0;
        const char *p = line;
        if (*p < '0' || *p > '9')
            syncmut_fatal("replay file '%s', line %llu: expected a thread id", path, (unsigned long long)lineno);
        for (; *p >= '0' && *p <= '9'; p++)
            if ((id = id * 10 + (uint64_t)(*p - '0')) > UINT32_MAX)
                syncmut_fatal("replay file '%s', line %llu: thread id out of range", path, (unsigned long long)lineno);
        if (*p != ' ' && *p != '\n' && *p != '\0')
            syncmut_fatal("replay file '%s', line %llu: expected a thread id", path, (unsigned long long)lineno);
        uint8_t kind = REPLAY_ANY;
        if (strncmp(p, " run", 4) == 0 && (p[4] == ' ' || p[4] == '\n' || p[4] == '\0'))
            kind = K_RUN;
        else if (strncmp(p, " wake", 5) == 0 && (p[5] == ' ' || p[5] == '\n' || p[5] == '\0'))
            kind = K_WAKE;
        else if (strncmp(p, " timeout", 8) == 0 && (p[8] == ' ' || p[8] == '\n' || p[8] == '\0'))
            kind = K_TIMEOUT;
        if (replay_len == cap) {
            cap = cap ? cap * 2 : 1024;
            replay_ids = realloc(replay_ids, cap * sizeof *replay_ids);
            replay_kinds = realloc(replay_kinds, cap * sizeof *replay_kinds);
            if (replay_ids == NULL || replay_kinds == NULL)
                syncmut_fatal("replay file '%s': out of memory", path);
        }
        replay_kinds[replay_len] = kind;
        replay_ids[replay_len++] = (uint32_t)id;
    }
    fclose(f);
}

static void start_recording(const char *path)
{
    if (path[0] == '/') {
        out_path = strdup(path);
    } else {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd) != NULL && (out_path = malloc(strlen(cwd) + strlen(path) + 2)) != NULL) {
            strcpy(out_path, cwd);
            strcat(out_path, "/");
            strcat(out_path, path);
        }
    }
    choices = mmap(NULL, (size_t)MAX_CHOICES * sizeof *choices, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    options = mmap(NULL, (size_t)MAX_OPTIONS * sizeof *options, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (out_path == NULL || choices == MAP_FAILED || options == MAP_FAILED)
        syncmut_fatal("SYNCMUT_SCHEDULE_OUT: cannot allocate the choice buffer for '%s'", path);
}

static void write_at_exit(void)
{
    write_schedule_out("exit");
}

/* Without a trace (whose handlers reach write_schedule_out through the end provider),
 * fatal signals still save the schedule, then die of the same signal. */
static void on_signal(int sig)
{
    int saved = errno;
    write_schedule_out("signal");
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved;
}

static void install_signal_handlers(void)
{
    static const int sigs[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGTERM, SIGINT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
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
    schedule_value = value;
    owner_pid = getpid();
    if (strcmp(value, "default") == 0)
        strategy = STRATEGY_DEFAULT;
    else if (strncmp(value, "random:", 7) == 0 && parse_u64(value + 7, &rng_state))
        strategy = STRATEGY_RANDOM;
    else if (strncmp(value, "pct:", 4) == 0 && parse_pct(value + 4))
        strategy = STRATEGY_PCT;
    else if (strncmp(value, "rr:", 3) == 0 && parse_rr(value + 3))
        strategy = STRATEGY_RR;
    else if (strncmp(value, "holdback:", 9) == 0 && parse_holdback(value + 9))
        strategy = STRATEGY_HOLDBACK;
    else if (strncmp(value, "replay:", 7) == 0 && value[7] != '\0')
        strategy = STRATEGY_REPLAY;
    else if (strncmp(value, "follow:", 7) == 0 && value[7] != '\0')
        strategy = STRATEGY_FOLLOW;
    else
        syncmut_fatal("malformed SYNCMUT_SCHEDULE '%s': expected default, random:<seed>, "
              "pct:<seed>:<depth>[:<steps>] (decimal; depth 1..%u), rr:<quantum>:<phase> (phase < quantum), "
              "holdback:<seed>:<steps>, replay:<path> or follow:<path>",
              value, PCT_MAX_DEPTH);
    if (strategy == STRATEGY_REPLAY || strategy == STRATEGY_FOLLOW)
        load_replay(value + 7);
    const char *record = getenv(SYNCMUT_ENV_RECORD_STEPS);
    if (record != NULL && *record != '\0') {
        if (strcmp(record, "0") != 0 && strcmp(record, "1") != 0)
            syncmut_fatal("malformed SYNCMUT_RECORD_STEPS '%s': expected 0 (no `# step` lines) or 1", record);
        record_steps = record[0] == '1';
    }
    const char *out = getenv(SYNCMUT_ENV_SCHEDULE_OUT);
    if (out != NULL && *out != '\0')
        start_recording(out);
    const char *budget = getenv(SYNCMUT_ENV_MAX_STEPS);
    if (budget != NULL && *budget != '\0' && (!parse_u64(budget, &max_steps) || max_steps == 0))
        syncmut_fatal("malformed SYNCMUT_MAX_STEPS '%s': expected a positive decimal number", budget);
    if (pthread_key_create(&exit_key, finish_at_exit) != 0)
        syncmut_fatal("SYNCMUT_SCHEDULE: cannot start the scheduler (pthread_key_create failed)");
    pthread_atfork(NULL, NULL, after_fork_in_child);
    int races = syncmut_races_init();
    if (out_path != NULL || races) {
        atexit(write_at_exit); /* after the trace's handler was registered: runs before it */
        if (!syncmut_trace_on())
            install_signal_handlers();
    }

    struct sthread *main_thread = new_slot(); /* T0 */
    atomic_store_explicit(&main_thread->name, intern_thread_name(0), memory_order_relaxed);
    main_thread->routine = "main";
    set_state(main_thread, RUNNING);
    pthread_setspecific(exit_key, main_thread); /* main calling pthread_exit */
    self = main_thread;
    current = main_thread;
    enabled = 1;
}
