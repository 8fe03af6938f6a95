/* The controlled scheduler's schedule file, both ways: recording every choice point
 * and writing them out (SYNCMUT_SCHEDULE_OUT; async-signal-safe, so it also runs from a
 * fatal signal), and reading one back for replay:<path>, follow:<path> and
 * events:<path>, whose picks are here. Also the signal handlers that save the file when
 * no trace does. Split from scheduler.c: the file format is one concern
 * (runtime-lib/README.md describes it, and schedule.rs reads it), apart from how threads
 * are scheduled. */
#define _GNU_SOURCE
#include "signal_safe_out.h"
#include "scheduler.h"
#include "scheduler_internal.h"
#include "activation.h"
#include "arena.h"

#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"
#include "races.h"

/* replay and follow: the chosen thread of each choice point, in order, and its kind
 * (REPLAY_ANY when the line names none, as in a dfs prefix); events: the thread of
 * each event. */
#define REPLAY_ANY 0xffu
static uint32_t *replay_ids;
static uint8_t *replay_kinds;
static uint64_t replay_len, replay_pos;
static int64_t replay_diverged = -1; /* choice point where the file stopped fitting */
/* SYNCMUT_SCHEDULE_OUT: every choice point (more than one option), preallocated. */
struct choice {
    uint32_t chosen;
    uint32_t current; /* K_RUN: the thread at the point (NO_NAME: none) */
    uint8_t kind;
    uint8_t single;   /* K_RUN with one option: not a choice (a `# step` line) */
    uint8_t opens;    /* the chosen thread starts an atomic section: its single steps that
                       * follow are merged into its option, as into a single step */
    uint8_t by_id;    /* SYNCMUT_RECORD_DETAIL=0: the options are the threads whose bits
                       * `off` sets, and nothing more is known of them */
    uint32_t n;       /* options, in opts[off..off+n) (by_id: the mask `off`) */
    uint64_t off;
    uint64_t events;  /* trace events recorded before the point */
};
/* 40 bytes, not 56: a long run records one for every ready thread at every point, and
 * zeroing the pages they fill was a sixth of such a run (perf). */
struct option {
    uint32_t id;
    int32_t site;
    uint32_t obj[2]; /* OBJ_NONE, OBJ_ALL, or k+1 for the k-th object seen */
    int32_t join;    /* the step joins thread k (`j<k>` for the objects), else -1 */
    uint8_t reads;   /* the step only reads its object: two reads commute */
    uint8_t waits;   /* taken now, the step would block and change nothing (`:w`) */
    uint8_t opens;   /* the step starts an atomic section (`:a`): see taken_object */
    int64_t access;  /* memory access number (`m<k>` in the site field), else -1 */
    int64_t readied; /* the thread's `readied` (`b<k>` after the objects), else -1 */
};
_Static_assert(sizeof(struct option) == 40, "an option record stays 40 bytes");
_Static_assert(sizeof(struct choice) == 32, "a choice record stays 32 bytes");
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
char *syncmut_sched_out_path; /* absolute */
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
int syncmut_sched_record_steps = 1;
/* SYNCMUT_RECORD_DETAIL=0 clears it: a choice's options are its threads alone, kept as a
 * mask in the choice (threads numbered below 64; others get an option record), which is
 * all that following a run and comparing two runs' choices read. Every pthread mutant
 * run of `syncmut run` records so: an option record for every ready thread at every
 * point, with its objects looked up, was a third of a long run (perf). */
int syncmut_sched_record_detail = 1;
/* The thread of the last point when it was a single step or the start of an atomic
 * section, else NO_NAME: the next single step of that thread is merged with it. */
static uint32_t last_single = NO_NAME;
int64_t syncmut_sched_current_step = -1;
const char *syncmut_sched_schedule_value;
pid_t syncmut_sched_owner_pid; /* a forked child must not write the parent's schedule file */

/* ---- recording choice points -------------------------------------------------------- */

static uint32_t object_number(const struct sthread *t, int j);

/* The objects of the step `t` takes now. The start of an atomic section is pending as a
 * step on every object (what the section will touch is not known yet), but taken it acts
 * on nothing itself: the section's points that follow, each with one option while its
 * owner runs, are merged into it, so it records the section as one step on what it
 * touches. */
static uint32_t taken_object(const struct sthread *t, int j)
{
    return t->next_section ? OBJ_NONE : object_number(t, j);
}

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

void syncmut_sched_set_next(struct sthread *t, const void *a, const void *b, int all)
{
    t->next_obj[0] = a;
    t->next_obj[1] = b;
    t->touches_all = all;
    t->next_reads = 0;
    t->next_access = -1;
    t->next_join = -1;
    t->next_lock = NULL;
    t->next_join_thread = NULL;
    t->next_section = 0;
}

/* The pending step joins `target`: it depends only on the target's end (the oracle's
 * partial-order reduction orders it after the target's last step, and no other). */
void syncmut_sched_set_next_join(struct sthread *t, const struct sthread *target)
{
    syncmut_sched_set_next(t, NULL, NULL, 0);
    t->next_join = target->id;
    t->next_join_thread = target;
}

/* glibc's lock-elision bits of a mutex's kind (its internal PTHREAD_MUTEX_ELISION_NP and
 * PTHREAD_MUTEX_NO_ELISION_NP): they do not change whether a lock blocks. */
#define GLIBC_MUTEX_ELISION_FLAGS (256 | 512)

/* The pending step of `t` would block and change nothing if taken now (`:w`): a join of
 * a thread that has not finished, a lock that is taken, a wait on a semaphore at 0. Read
 * from the real object (only the baton holder runs, so it agrees with the model). A
 * recursive or error-checking mutex its owner locks again does not block, and robust and
 * priority mutexes keep flags in their kind: only plain and adaptive mutexes are
 * judged. */
static int pending_waits(const struct sthread *t)
{
    if (t->next_join_thread != NULL) { /* FREE: joined already, the slot maybe reused */
        int s = load_state(t->next_join_thread);
        return s == READY || s == RUNNING || s == BLOCKED;
    }
    if (t->next_lock == NULL)
        return 0;
    if (t->next_lock_kind == SYNCMUT_SCHED_SPIN_LOCK)
        return *(const volatile int *)t->next_lock != 0;
    if (t->next_lock_kind == SYNCMUT_SCHED_SEM_WAIT) {
        int value;
        return sem_getvalue((sem_t *)t->next_lock, &value) == 0 && value <= 0;
    }
    const pthread_mutex_t *m = t->next_lock;
    int kind = m->__data.__kind & ~GLIBC_MUTEX_ELISION_FLAGS;
    return (kind == PTHREAD_MUTEX_TIMED_NP || kind == PTHREAD_MUTEX_ADAPTIVE_NP) && m->__data.__lock != 0;
}

/* Records a scheduling point: a choice (n > 1), or with `single` a run point with one
 * option, which the oracle's partial-order reduction needs for its happens-before
 * relation. Consecutive single steps of one thread are one record (one step, on the
 * union of their objects: every object when they are more than two). */
void syncmut_sched_record_choice(int kind, const struct sthread *chosen, const struct sthread *cur, uint32_t n)
{
    if (choices == NULL)
        return;
    int single = kind == K_RUN && n == 1;
    int follows = single && last_single == chosen->id;
    int opens = kind == K_RUN && chosen->next_section;
    last_single = single || opens ? chosen->id : NO_NAME;
    if (single && !syncmut_sched_record_steps)
        return;
    uint64_t k = atomic_load_explicit(&nchoices, memory_order_relaxed);
    if (follows && k > 0 && choices[k - 1].chosen == chosen->id &&
        (choices[k - 1].single || choices[k - 1].opens)) {
        if (choices[k - 1].by_id)
            return; /* no objects to merge */
        struct option *o = &options[choices[k - 1].off];
        while (o->id != chosen->id)
            o++;
        if (chosen->next_join >= 0 || o->join >= 0) { /* a join merged with other steps: everything */
            o->obj[0] = OBJ_ALL, o->obj[1] = OBJ_NONE, o->join = -1;
        }
        for (int j = 0; j < 2; j++) {
            uint32_t obj = taken_object(chosen, j);
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
        o->waits = 0; /* several steps now, not one that blocks */
        return;
    }
    if (k >= MAX_CHOICES || noptions + n > MAX_OPTIONS) {
        atomic_store_explicit(&choices_truncated, 1, memory_order_relaxed);
        return;
    }
    struct choice *c = &choices[k];
    c->chosen = chosen->id;
    c->current = cur != NULL ? cur->id : NO_NAME;
    c->kind = (uint8_t)kind;
    c->single = (uint8_t)single;
    c->opens = (uint8_t)opens;
    c->n = n;
    c->events = syncmut_trace_recorded();
    c->by_id = !syncmut_sched_record_detail;
    uint64_t ids = 0;
    for (uint32_t i = 0; c->by_id && i < n; i++) {
        uint32_t id = syncmut_sched_candidates[i]->id;
        if (id < 64)
            ids |= (uint64_t)1 << id;
        else
            c->by_id = 0;
    }
    if (c->by_id) {
        c->off = ids;
        atomic_store_explicit(&nchoices, k + 1, memory_order_release);
        return;
    }
    c->off = noptions;
    for (uint32_t i = 0; i < n; i++) {
        for (int j = 0; j < 2; j++)
            options[noptions + i].obj[j] = syncmut_sched_candidates[i] == chosen
                                               ? taken_object(chosen, j)
                                               : object_number(syncmut_sched_candidates[i], j);
        options[noptions + i].opens = kind == K_RUN && syncmut_sched_candidates[i]->next_section;
        options[noptions + i].reads = (uint32_t)syncmut_sched_candidates[i]->next_reads;
        options[noptions + i].access = syncmut_sched_candidates[i]->next_access;
        options[noptions + i].readied = syncmut_sched_candidates[i]->readied;
        options[noptions + i].join = (int32_t)syncmut_sched_candidates[i]->next_join;
        options[noptions + i].id = syncmut_sched_candidates[i]->id;
        options[noptions + i].waits = kind == K_RUN && pending_waits(syncmut_sched_candidates[i]);
        int64_t site = atomic_load_explicit(&syncmut_sched_candidates[i]->site, memory_order_relaxed);
        options[noptions + i].site = site < 0 || site > INT32_MAX ? -1 : (int32_t)site;
    }
    noptions += n;
    /* Published last: a flush from a signal handler sees whole entries only. */
    atomic_store_explicit(&nchoices, k + 1, memory_order_release);
}

/* A run point: records it and starts the chosen thread's step. */
void syncmut_sched_record_run(struct sthread *chosen, const struct sthread *cur, uint32_t n)
{
    if (choices == NULL)
        return;
    int merged = n == 1 && last_single == chosen->id;
    syncmut_sched_record_choice(K_RUN, chosen, cur, n);
    if (!merged)
        syncmut_sched_current_step = (int64_t)run_points++;
    chosen->readied = -1;
}

/* ---- replay, follow and events ------------------------------------------------------ */

/* Replay: the next recorded thread if it is among the n candidates, else `fallback`
 * (the file is used up, or stopped fitting: the rest of the run follows the default). */
struct sthread *syncmut_sched_replay_pick(uint32_t n, struct sthread *fallback)
{
    if (replay_pos >= replay_len)
        return fallback;
    uint32_t want = replay_ids[replay_pos++];
    for (uint32_t i = 0; i < n; i++)
        if (syncmut_sched_candidates[i]->id == want)
            return syncmut_sched_candidates[i];
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
struct sthread *syncmut_sched_follow_pick(int kind, uint32_t n, struct sthread *fallback)
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
            if (syncmut_sched_candidates[i]->id == want) {
                replay_pos++;
                return syncmut_sched_candidates[i];
            }
        int finished = 0;
        for (uint32_t i = 0; i < syncmut_sched_slots_used; i++)
            if (syncmut_sched_threads[i].id == want && load_state(&syncmut_sched_threads[i]) == FINISHED)
                finished = 1;
        if (!finished)
            return fallback;
        replay_pos++;
    }
    return fallback;
}

/* Events: the thread of each trace event of another run, in order (a run with real
 * threads, which records no choices). Each thread's k-th event there has an index in
 * the file; at a choice point the candidate whose next event (by its own count of
 * events recorded so far) comes first there runs, so this run's events come in that
 * run's order as far as its program lets them. Per thread, so an event one run has and
 * the other lacks (a removed call) only shifts that thread's. A thread with no event
 * left there, or one past the trace's table of threads, runs only by `fallback`.
 * Creating a thread is no event: while the earliest event left is one of a thread not
 * created yet, the candidate created first runs (its creator, or a thread created
 * before it), so the creation comes first, as it did there; else a thread created
 * earlier would run all its events before the other exists. */
static uint64_t *events_first; /* thread id k's indices: events_index[first[k]..first[k+1]) */
static uint64_t *events_index;
static uint32_t events_threads;

static void index_events(void)
{
    for (uint64_t i = 0; i < replay_len; i++)
        if (replay_ids[i] + 1 > events_threads)
            events_threads = replay_ids[i] + 1;
    events_first = calloc((size_t)events_threads + 1, sizeof *events_first);
    events_index = malloc((size_t)(replay_len ? replay_len : 1) * sizeof *events_index);
    if (events_first == NULL || events_index == NULL)
        syncmut_fatal("SYNCMUT_SCHEDULE: events file: out of memory");
    for (uint64_t i = 0; i < replay_len; i++)
        events_first[replay_ids[i] + 1]++;
    for (uint32_t k = 0; k < events_threads; k++)
        events_first[k + 1] += events_first[k];
    uint64_t *next = calloc((size_t)events_threads, sizeof *next);
    if (next == NULL)
        syncmut_fatal("SYNCMUT_SCHEDULE: events file: out of memory");
    for (uint64_t i = 0; i < replay_len; i++) {
        uint32_t k = replay_ids[i];
        events_index[events_first[k] + next[k]++] = i;
    }
    free(next);
}

/* The thread of the earliest event not yet matched by this run's events. */
static uint32_t earliest_thread_left(void)
{
    uint32_t earliest = NO_NAME;
    uint64_t earliest_index = UINT64_MAX;
    for (uint32_t k = 0; k < events_threads; k++) {
        uint64_t done = k < syncmut_sched_next_id ? syncmut_trace_thread_events(k) : 0;
        if (done >= events_first[k + 1] - events_first[k])
            continue;
        if (events_index[events_first[k] + done] < earliest_index) {
            earliest_index = events_index[events_first[k] + done];
            earliest = k;
        }
    }
    return earliest;
}

struct sthread *syncmut_sched_events_pick(uint32_t n, struct sthread *fallback)
{
    if (events_first == NULL)
        index_events();
    uint32_t earliest = earliest_thread_left();
    if (earliest != NO_NAME && earliest >= syncmut_sched_next_id)
        return syncmut_sched_lowest_id(n, UINT32_MAX);
    struct sthread *best = NULL;
    uint64_t best_index = UINT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = syncmut_sched_candidates[i]->id;
        if (id >= events_threads)
            continue;
        uint64_t done = syncmut_trace_thread_events(id); /* UINT64_MAX: not counted */
        if (done >= events_first[id + 1] - events_first[id])
            continue;
        uint64_t k = events_first[id] + done;
        if (events_index[k] < best_index) {
            best_index = events_index[k];
            best = syncmut_sched_candidates[i];
        }
    }
    return best != NULL ? best : fallback;
}

/* ---- SYNCMUT_SCHEDULE_OUT (async-signal-safe: open/write/close, static buffer) ------ */

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

/* The longest a choice line's head, each of its options and its tail can be (numbers of
 * at most 20 digits): the lines are written straight into the buffer. */
#define LINE_HEAD (7 + 20 + 1 + 7 + 1 + 20)
#define OPTION_TEXT (1 + 20 + 1 + 21 + 1 + 21 + 22 + 22 + 2 + 2)
#define LINE_TAIL (2 + 20 + 1)

/* Writes the choices made so far, once: at exit, in the end-record path (signals,
 * deadlock, livelock), or from the scheduler's own signal handlers without a trace. */
void syncmut_sched_write_schedule_out(const char *how)
{
    syncmut_races_write(); /* written at the same moments, to its own file */
    if (syncmut_sched_out_path == NULL || getpid() != syncmut_sched_owner_pid || atomic_exchange(&out_written, 1) != 0)
        return;
    int fd;
    do
        fd = open(syncmut_sched_out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
    sout_str(syncmut_sched_schedule_value);
    sout_str("\n# <chosen> <kind> <current|-> <id>:<site|->:<objects>[:b<step>],... e<events> (one line per choice point; `# step` lines: run points with one option)\n");
    uint64_t n = atomic_load_explicit(&nchoices, memory_order_acquire);
    for (uint64_t k = 0; k < n; k++) {
        const struct choice *c = &choices[k];
        char *p = signal_safe_room(&sout, LINE_HEAD);
        if (c->single)
            p = signal_safe_put_text(p, "# step ");
        p = signal_safe_put_decimal(p, c->chosen);
        *p++ = ' ';
        p = signal_safe_put_text(p, kind_names[c->kind]);
        *p++ = ' ';
        if (c->current == NO_NAME)
            *p++ = '-';
        else
            p = signal_safe_put_decimal(p, c->current);
        sout.used = (size_t)(p - sout.buf);
        /* By thread alone: each run of consecutive ids as `<first>-<last>`. */
        for (uint64_t ids = c->by_id ? c->off : 0, i = 0; ids != 0; i++) {
            unsigned first = (unsigned)__builtin_ctzll(ids);
            uint64_t above = ~(ids >> first); /* its lowest set bit: the run's end */
            unsigned len = above == 0 ? 64 - first : (unsigned)__builtin_ctzll(above);
            p = signal_safe_room(&sout, OPTION_TEXT);
            *p++ = i == 0 ? ' ' : ',';
            p = signal_safe_put_decimal(p, first);
            if (len > 1) {
                *p++ = '-';
                p = signal_safe_put_decimal(p, first + len - 1);
            }
            sout.used = (size_t)(p - sout.buf);
            ids = first + len >= 64 ? 0 : ids & ~UINT64_C(0) << (first + len);
        }
        for (uint32_t i = 0; !c->by_id && i < c->n; i++) {
            const struct option *o = &options[c->off + i];
            p = signal_safe_room(&sout, OPTION_TEXT);
            *p++ = i == 0 ? ' ' : ',';
            p = signal_safe_put_decimal(p, o->id);
            *p++ = ':';
            if (o->access >= 0) {
                *p++ = 'm';
                p = signal_safe_put_decimal(p, (uint64_t)o->access);
            } else if (o->site < 0)
                *p++ = '-';
            else
                p = signal_safe_put_decimal(p, (uint64_t)o->site);
            *p++ = ':';
            if (o->obj[0] == OBJ_ALL) {
                *p++ = '*';
            } else if (o->join >= 0) {
                *p++ = 'j';
                p = signal_safe_put_decimal(p, (uint64_t)o->join);
            } else if (o->obj[0] == OBJ_NONE) {
                *p++ = '-';
            } else {
                *p++ = o->reads ? 'r' : 'o';
                p = signal_safe_put_decimal(p, o->obj[0]);
                if (o->obj[1] != OBJ_NONE && o->obj[1] != OBJ_ALL) {
                    p = signal_safe_put_text(p, "+o");
                    p = signal_safe_put_decimal(p, o->obj[1]);
                }
            }
            if (o->readied >= 0) {
                p = signal_safe_put_text(p, ":b");
                p = signal_safe_put_decimal(p, (uint64_t)o->readied);
            }
            if (o->waits)
                p = signal_safe_put_text(p, ":w");
            if (o->opens)
                p = signal_safe_put_text(p, ":a");
            sout.used = (size_t)(p - sout.buf);
        }
        p = signal_safe_room(&sout, LINE_TAIL);
        p = signal_safe_put_text(p, " e");
        p = signal_safe_put_decimal(p, c->events);
        *p++ = '\n';
        sout.used = (size_t)(p - sout.buf);
    }
    if (!syncmut_sched_record_steps)
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
    sout_u64(syncmut_sched_steps);
    sout_str("\n");
    sout_flush();
    close(fd);
}

/* ---- start-up: the replay file, the recording buffer, the signal handlers ----------- */

/* replay:<path>: one choice point per line, its chosen thread id first; lines starting
 * with '#' and empty lines are skipped, the rest of a line is ignored. */
void syncmut_sched_load_replay(const char *path)
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

void syncmut_sched_start_recording(const char *path)
{
    if (path[0] == '/') {
        syncmut_sched_out_path = strdup(path);
    } else {
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd) != NULL && (syncmut_sched_out_path = malloc(strlen(cwd) + strlen(path) + 2)) != NULL) {
            strcpy(syncmut_sched_out_path, cwd);
            strcat(syncmut_sched_out_path, "/");
            strcat(syncmut_sched_out_path, path);
        }
    }
    /* Past their first 2 MiB in huge pages: a long run records 32 bytes a point and 40
     * an option, and faulting them in page by page was most of what recording cost such
     * a run. */
    choices = syncmut_arena((size_t)MAX_CHOICES * sizeof *choices);
    options = syncmut_arena((size_t)MAX_OPTIONS * sizeof *options);
    if (syncmut_sched_out_path == NULL || choices == NULL || options == NULL)
        syncmut_fatal("SYNCMUT_SCHEDULE_OUT: cannot allocate the choice buffer for '%s'", path);
}

void syncmut_sched_write_at_exit(void)
{
    syncmut_sched_write_schedule_out("exit");
}

/* Without a trace (whose handlers reach syncmut_sched_write_schedule_out through the end provider),
 * fatal signals still save the schedule, then die of the same signal. */
static void on_signal(int sig)
{
    int saved = errno;
    syncmut_sched_write_schedule_out("signal");
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved;
}

void syncmut_sched_install_signal_handlers(void)
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
