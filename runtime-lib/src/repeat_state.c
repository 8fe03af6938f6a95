/* When a run passes its step budget: a livelock only if a state came back.
 *
 * The budget (SYNCMUT_MAX_STEPS) proves only that a run is long: a subtractive gcd of
 * two large numbers passes any budget and then ends. With SYNCMUT_REPEAT_WINDOW=W
 * (explore sets it) the scheduler goes on for up to W more scheduling points, hashing
 * the state at each, and ends the run as a livelock only when a state comes back after
 * every thread that was ready there has run: the program between two scheduling points
 * is a function of that state, so the same choices lead round the same cycle forever,
 * and a fair scheduler can take it. Without a repeat the run ends as "step budget"
 * (status 126), which explore reports as a long run, not as a bug. Without the variable
 * the budget's end is a livelock, as the mutation lab expects.
 *
 * The state: which thread is at the point; per thread its state, what it waits on, its
 * site and pending memory access; the globals the mutator found can decide anything
 * (mutator/src/state_globals.rs), so that a counter nothing reads back is left out and
 * two threads that count their retries while each waits for the other still repeat;
 * and the stack of each thread stopped at a synchronization call, from the scheduler's
 * frame to where its start routine (main: the process's first frame) began, so that a
 * loop that takes a lock per turn and counts in a local does not repeat. A thread
 * stopped at a memory access keeps in its frame the values in flight around the access
 * (the retry counter's next value, spilled across the hook): hashing it would make no
 * such loop ever repeat, so its stack is left out, and a memory-level loop whose
 * progress lives only in a local could be taken for a livelock, as any run past the
 * budget was before. Memory the table cannot cover (the heap, or what a thread reaches
 * through its argument) makes the check impossible: such a run ends as "step budget"
 * at once. Two different states hashing alike would be called a repeat:
 * 64-bit hashes of at most a few hundred thousand states make that about 1 in 10^9. */
#define _GNU_SOURCE
#include "scheduler_internal.h"
#include "syncmut_protocol.h"
#include "trace.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct state_global {
    const void *where;
    uint64_t size;
};
extern const uint32_t syncmut_state_global_count __attribute__((weak));
extern const uint32_t syncmut_state_complete __attribute__((weak));
extern const struct state_global syncmut_state_globals[] __attribute__((weak));

static uint64_t window; /* 0: the budget's end is a livelock */
static uint64_t *seen;  /* open addressing: (hash, step) pairs, step 0 = empty */
static uint64_t capacity;

void syncmut_repeat_init(void)
{
    const char *value = getenv(SYNCMUT_ENV_REPEAT_WINDOW);
    if (value != NULL && *value != '\0' && (!syncmut_sched_parse_u64(value, &window) || window == 0))
        syncmut_fatal("malformed SYNCMUT_REPEAT_WINDOW '%s': expected a positive decimal number", value);
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

static uint64_t hash_bytes(uint64_t h, const unsigned char *p, size_t n)
{
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        h = mix(h, word);
    }
    uint64_t tail = 0;
    memcpy(&tail, p, n);
    return mix(h, tail ^ ((uint64_t)n << 56));
}

static uint64_t state_hash(const struct sthread *me)
{
    uint64_t h = mix(0x243F6A8885A308D3ull, me->id);
    for (uint32_t i = 0; i < syncmut_sched_slots_used; i++) {
        const struct sthread *t = &syncmut_sched_threads[i];
        int s = load_state(t);
        h = mix(h, (uint64_t)s);
        if (s == FREE || s == FINISHED)
            continue;
        h = mix(h, t->id);
        h = mix(h, (uint64_t)t->kind);
        h = mix(h, (uint64_t)(uintptr_t)t->obj);
        h = mix(h, (uint64_t)atomic_load_explicit(&t->site, memory_order_relaxed));
        h = mix(h, (uint64_t)t->next_access);
        const unsigned char *low = t->stack_low, *high = t->stack_high;
        if (low != NULL && high != NULL && high > low)
            h = hash_bytes(h, low, (size_t)(high - low));
    }
    for (uint32_t i = 0; i < syncmut_state_global_count; i++)
        h = hash_bytes(h, syncmut_state_globals[i].where, syncmut_state_globals[i].size);
    return h | 1; /* never 0, which the steps of the table use for "empty" */
}

__attribute__((noreturn)) static void end_without_repeat(const struct sthread *me, uint64_t budget, const char *why)
{
    char kind[200];
    snprintf(kind, sizeof kind, "step budget (%llu scheduling points passed, %s)", (unsigned long long)budget, why);
    syncmut_sched_write_schedule_out("step-budget");
    syncmut_trace_finish(kind, atomic_load_explicit(&me->name, memory_order_relaxed),
                         atomic_load_explicit(&me->site, memory_order_relaxed), SYNCMUT_STATUS_STEP_BUDGET);
}

__attribute__((noreturn)) static void end_as_livelock(const struct sthread *me, uint64_t first)
{
    dprintf(2, "syncmut runtime: livelock: the state of step %llu came back at step %llu, every ready thread having run: a cycle the run never leaves\n",
            (unsigned long long)first, (unsigned long long)syncmut_sched_steps);
    syncmut_sched_write_schedule_out("livelock");
    syncmut_trace_finish("livelock", atomic_load_explicit(&me->name, memory_order_relaxed),
                         atomic_load_explicit(&me->site, memory_order_relaxed), SYNCMUT_STATUS_LIVELOCK);
}

/* Every ready thread other than `me` ran (or was made ready) since step `first`. */
static int fair_since(const struct sthread *me, uint64_t first)
{
    for (uint32_t i = 0; i < syncmut_sched_slots_used; i++) {
        const struct sthread *t = &syncmut_sched_threads[i];
        if (t != me && load_state(t) == READY && t->last_run < first)
            return 0;
    }
    return 1;
}

void syncmut_repeat_check(struct sthread *me, uint64_t budget)
{
    syncmut_sched_end_if_parked(me);
    if (window == 0) {
        syncmut_sched_write_schedule_out("livelock");
        syncmut_trace_finish("livelock", atomic_load_explicit(&me->name, memory_order_relaxed),
                             atomic_load_explicit(&me->site, memory_order_relaxed), SYNCMUT_STATUS_LIVELOCK);
    }
    if (&syncmut_state_complete == NULL || !syncmut_state_complete)
        end_without_repeat(me, budget, "and the program reaches memory no state check covers (the heap, or through pointers)");
    if (syncmut_sched_steps > budget + window) {
        char why[96];
        snprintf(why, sizeof why, "no state repeated in the %llu after it", (unsigned long long)window);
        end_without_repeat(me, budget, why);
    }
    if (seen == NULL) {
        for (capacity = 1024; capacity < 2 * window; capacity *= 2) {
        }
        void *memory = mmap(NULL, capacity * 2 * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED)
            end_without_repeat(me, budget, "and no memory was left to check for a repeated state");
        seen = memory;
    }
    uint64_t h = state_hash(me);
    for (uint64_t slot = h & (capacity - 1);; slot = (slot + 1) & (capacity - 1)) {
        uint64_t *entry = &seen[2 * slot];
        if (entry[1] == 0) {
            entry[0] = h;
            entry[1] = syncmut_sched_steps;
            return;
        }
        if (entry[0] == h) {
            if (fair_since(me, entry[1]))
                end_as_livelock(me, entry[1]);
            entry[1] = syncmut_sched_steps; /* a ready thread starved in between: look again from here */
            return;
        }
    }
}
