/* The controlled scheduler's strategies (scheduler.c calls them at each choice point):
 * the parser of SYNCMUT_SCHEDULE, each strategy's parameters and state, and its choice
 * of the thread to run (default, random, pct, rr, holdback) or of the waiter to wake or
 * the timed wait to expire (syncmut_sched_pick_other). replay: and follow: take their
 * choices from the schedule file (schedule_record.c). Split from scheduler.c so that a
 * strategy can be read, or added, in one place. */
#define _GNU_SOURCE
#include "scheduler_internal.h"
#include "syncmut_protocol.h"
#include "activation.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Default strategy: how many scheduling points in a row the current thread keeps the
 * baton while another thread could run, before it is rotated out. Without it a polling
 * loop (trylock, or lock/test/unlock) would starve the thread it waits for. */
#define SLICE 1000u

enum strategy syncmut_sched_strategy;
static uint64_t rng_state;
/* pct: depth d, d-1 change points over an estimated SYNCMUT_PCT_STEPS scheduling points. */
#define DEFAULT_PCT_STEPS 1000u
uint32_t syncmut_sched_pct_depth;
static uint64_t pct_steps = DEFAULT_PCT_STEPS;
uint64_t syncmut_sched_pct_change[PCT_MAX_DEPTH]; /* step numbers, index 1..d-1 */
/* rr: round-robin. The thread holding the baton keeps it for `rr_quantum` choice points
 * in a row, then hands it to the next ready thread by id (cyclic); a thread that blocks
 * or ends hands it on the same way. Each thread's first slice is `rr_phase` points
 * longer, so the phases 0..quantum-1 shift where its switches fall relative to its
 * loop (its start is a point of its own, and main's first slice includes creating the
 * threads). Deterministic: a strict alternation of the threads' steps, which a random
 * walk or a few preemptions rarely produce.
 * rr:<quantum>:<phase>:creators-last: besides, a thread that created threads waits while
 * one of them can run, except at its point right after a creation (where it goes on,
 * to create the next): the threads it started alternate among themselves to their end
 * before it looks at what they did, the order of a creator that checks their results
 * without joining them, which strict alternation with the creator in the rotation
 * never reaches. */
static uint64_t rr_quantum, rr_phase;
static int rr_creators_last;
static uint32_t rr_owner = NO_NAME;
static int64_t rr_used;
/* holdback: a seeded random walk in which, until the release step, a thread is not run
 * while the thread that created it could run: a creator starts all its threads before
 * any of them moves, and the threads then race on equal terms (a thread created last
 * may overtake the early ones). The release step is drawn in 1..steps. */
static uint64_t holdback_release;
static uint32_t slice_owner = NO_NAME; /* default strategy: id of the thread using its slice */
static uint32_t slice_used;

/* ---- strategy ----------------------------------------------------------------------- */

uint64_t syncmut_sched_rng_next(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* A choice among the n candidates that is not a run choice (which waiter wakes, which
 * timed wait expires): seeded for random/pct, recorded/replayed like every choice. */
struct sthread *syncmut_sched_pick_other(int kind, uint32_t n, struct sthread *fallback)
{
    struct sthread *chosen = fallback;
    if (syncmut_sched_strategy == STRATEGY_RANDOM || syncmut_sched_strategy == STRATEGY_PCT || syncmut_sched_strategy == STRATEGY_HOLDBACK)
        chosen = syncmut_sched_candidates[syncmut_sched_rng_next() % n];
    else if (syncmut_sched_strategy == STRATEGY_REPLAY && n > 1)
        chosen = syncmut_sched_replay_pick(n, fallback);
    else if (syncmut_sched_strategy == STRATEGY_FOLLOW && n > 1)
        chosen = syncmut_sched_follow_pick(kind, n, fallback);
    if (n > 1)
        syncmut_sched_record_choice(kind, chosen, NULL, n);
    return chosen;
}

/* The default strategy's choice; also keeps its time-slice state, so a replay that runs
 * out of recorded choices continues exactly like `default`. */
struct sthread *syncmut_sched_default_choice(struct sthread *me, uint32_t n)
{
    if (load_state(me) != READY)
        return syncmut_sched_lowest_id(n, UINT32_MAX);
    if (!syncmut_sched_is_candidate(me, n)) { /* held back by fairness: the next ready thread by id */
        struct sthread *next = syncmut_sched_lowest_id(n, me->id);
        return next != NULL ? next : syncmut_sched_lowest_id(n, UINT32_MAX);
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
    struct sthread *next = syncmut_sched_lowest_id(n, me->id);
    return next != NULL ? next : syncmut_sched_lowest_id(n, UINT32_MAX);
}

/* rr:…:creators-last: `t` has a thread of its own among the candidates. */
static int waits_for_its_threads(const struct sthread *t, uint32_t n)
{
    if (!rr_creators_last)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (syncmut_sched_candidates[i]->parent == t->id)
            return 1;
    return 0;
}

/* rr's choice among the n candidates (see rr_quantum); `just_created`: `me` is at its
 * point right after creating a thread. */
struct sthread *syncmut_sched_rr_choice(struct sthread *me, uint32_t n, int just_created)
{
    if (rr_owner != me->id) { /* handed the baton outside rr_choice (a timed wait expired) */
        rr_owner = me->id;
        rr_used = me->rr_sliced ? 0 : -(int64_t)rr_phase;
        me->rr_sliced = 1;
    }
    /* The rotation's members: every candidate, but for a creator waiting for its threads
     * (someone always stays: the relation follows creation), unless it is `me` going on
     * creating. */
    int creating = rr_creators_last && just_created;
    struct sthread *members[MAX_THREADS];
    uint32_t k = 0;
    int me_member = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct sthread *t = syncmut_sched_candidates[i];
        if ((t == me && creating) || !waits_for_its_threads(t, n)) {
            members[k++] = t;
            me_member |= t == me;
        }
    }
    if (load_state(me) == READY && me_member && (k == 1 || creating || ++rr_used < (int64_t)rr_quantum))
        return me;
    /* The next member by id after `me`, cyclic. */
    struct sthread *next = NULL, *lowest = NULL;
    for (uint32_t i = 0; i < k; i++) {
        if (members[i]->id > me->id && (next == NULL || members[i]->id < next->id))
            next = members[i];
        if (lowest == NULL || members[i]->id < lowest->id)
            lowest = members[i];
    }
    next = next != NULL ? next : lowest;
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
        if (syncmut_sched_candidates[i]->id == t->parent)
            return 1;
    return 0;
}

/* holdback's choice: uniform among the candidates not held back by their creator (the
 * relation follows creation, so someone always stays); uniform among all after release. */
struct sthread *syncmut_sched_holdback_choice(uint32_t n)
{
    if (syncmut_sched_steps >= holdback_release)
        return syncmut_sched_candidates[syncmut_sched_rng_next() % n];
    struct sthread *free_to_run[MAX_THREADS];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!held_back(syncmut_sched_candidates[i], n))
            free_to_run[k++] = syncmut_sched_candidates[i];
    return free_to_run[syncmut_sched_rng_next() % k];
}

struct sthread *syncmut_sched_highest_priority(uint32_t n)
{
    struct sthread *best = syncmut_sched_candidates[0];
    for (uint32_t i = 1; i < n; i++)
        if (syncmut_sched_candidates[i]->prio > best->prio || (syncmut_sched_candidates[i]->prio == best->prio && syncmut_sched_candidates[i]->id < best->id))
            best = syncmut_sched_candidates[i];
    return best;
}

/* ---- SYNCMUT_SCHEDULE --------------------------------------------------------------- */

int syncmut_sched_parse_u64(const char *s, uint64_t *out)
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

/* The parsers of each kind's arguments, parse_<C_NAME> for the kinds of
 * syncmut_schedules.def: `args` is the text after "name:", NULL for the name alone.
 * Each sets its strategy's parameters and says whether the arguments were well formed. */

static int parse_DEFAULT(const char *args)
{
    return args == NULL;
}

static int parse_RANDOM(const char *args)
{
    return args != NULL && syncmut_sched_parse_u64(args, &rng_state);
}

/* pct:<seed>:<depth>[:<steps>]; <steps>, else SYNCMUT_PCT_STEPS, else 1000, estimates
 * the run's scheduling points. The d-1 change points are drawn uniformly in 1..steps
 * from the seeded stream. */
static int parse_PCT(const char *s)
{
    if (s == NULL)
        return 0;
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
    if (n < 2 || !syncmut_sched_parse_u64(fields[0], &rng_state) || !syncmut_sched_parse_u64(fields[1], &depth) || depth == 0 || depth > PCT_MAX_DEPTH)
        return 0;
    syncmut_sched_pct_depth = (uint32_t)depth;
    const char *est = getenv(SYNCMUT_ENV_PCT_STEPS);
    if (n == 3) {
        if (!syncmut_sched_parse_u64(fields[2], &pct_steps) || pct_steps == 0)
            return 0;
    } else if (est != NULL && *est != '\0' && (!syncmut_sched_parse_u64(est, &pct_steps) || pct_steps == 0)) {
        syncmut_fatal("malformed SYNCMUT_PCT_STEPS '%s': expected a positive decimal number", est);
    }
    for (uint32_t j = 1; j < syncmut_sched_pct_depth; j++)
        syncmut_sched_pct_change[j] = 1 + syncmut_sched_rng_next() % pct_steps;
    return 1;
}

/* Two colon-separated decimal fields: rr:<quantum>:<phase> (quantum >= 1, phase <
 * quantum) and holdback:<seed>:<steps> (steps >= 1). */
static int parse_fields(const char *s, uint64_t *a, uint64_t *b)
{
    const char *colon = s != NULL ? strchr(s, ':') : NULL;
    char first[21];
    if (colon == NULL || (size_t)(colon - s) > 20)
        return 0;
    memcpy(first, s, (size_t)(colon - s));
    first[colon - s] = '\0';
    return syncmut_sched_parse_u64(first, a) && syncmut_sched_parse_u64(colon + 1, b);
}

/* rr:<quantum>:<phase>[:creators-last] */
static int parse_RR(const char *args)
{
    static const char suffix[] = ":creators-last";
    char fields[48];
    size_t len = args != NULL ? strlen(args) : 0;
    if (args == NULL || len >= sizeof fields)
        return 0;
    memcpy(fields, args, len + 1);
    if (len > sizeof suffix - 1 && strcmp(fields + len - (sizeof suffix - 1), suffix) == 0) {
        rr_creators_last = 1;
        fields[len - (sizeof suffix - 1)] = '\0';
    }
    return parse_fields(fields, &rr_quantum, &rr_phase) && rr_quantum >= 1 && rr_phase < rr_quantum;
}

static int parse_HOLDBACK(const char *args)
{
    uint64_t steps_estimate;
    if (!parse_fields(args, &rng_state, &steps_estimate) || steps_estimate == 0)
        return 0;
    holdback_release = 1 + syncmut_sched_rng_next() % steps_estimate;
    return 1;
}

/* replay:<path> and follow:<path>: schedule_record.c opens the file. */
static int parse_REPLAY(const char *args)
{
    return args != NULL && *args != '\0';
}

static int parse_FOLLOW(const char *args)
{
    return parse_REPLAY(args);
}

/* events:<path>: the same file format, one thread id per event (schedule_record.c). */
static int parse_EVENTS(const char *args)
{
    return parse_REPLAY(args);
}

static const struct schedule_kind {
    const char *name, *syntax;
    enum strategy strategy;
    int (*parse)(const char *args);
} kinds[] = {
#define SYNCMUT_SCHEDULE(Rust, C_NAME, name, syntax) {name, syntax, STRATEGY_##C_NAME, parse_##C_NAME},
#include "syncmut_schedules.def"
#undef SYNCMUT_SCHEDULE
};
#define KINDS (sizeof kinds / sizeof kinds[0])

/* SYNCMUT_SCHEDULE's value: sets the strategy and its parameters, or ends the run when
 * the value is malformed, listing every kind's syntax. Called once, by the scheduler's
 * constructor. */
void syncmut_sched_parse_strategy(const char *value)
{
    for (size_t i = 0; i < KINDS; i++) {
        size_t len = strlen(kinds[i].name);
        if (strncmp(value, kinds[i].name, len) != 0 || (value[len] != '\0' && value[len] != ':'))
            continue;
        if (kinds[i].parse(value[len] == ':' ? value + len + 1 : NULL)) {
            syncmut_sched_strategy = kinds[i].strategy;
            return;
        }
        break;
    }
    char expected[512] = "";
    for (size_t i = 0; i < KINDS; i++) {
        const char *sep = i == 0 ? "" : i + 1 < KINDS ? ", " : " or ";
        strncat(expected, sep, sizeof expected - strlen(expected) - 1);
        strncat(expected, kinds[i].syntax, sizeof expected - strlen(expected) - 1);
    }
    syncmut_fatal("malformed SYNCMUT_SCHEDULE '%s': expected %s", value, expected);
}
