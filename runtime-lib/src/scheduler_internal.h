/* Internal to the controlled scheduler: what scheduler.c and the files split from it
 * (schedule_strategy.c, schedule_record.c, model_*.c) share. The thread table's types
 * and limits, the state more than one of them reads or writes (defined in the file
 * named above each group), and the functions they call in one another. It was one file
 * until it grew past 1,600 lines; the split is by concern, without a change of
 * behaviour. Not part of the runtime's interface (scheduler.h is): these names are
 * linked into the design under test, hence the syncmut_sched_ prefix. */
#ifndef SYNCMUT_SCHEDULER_INTERNAL_H
#define SYNCMUT_SCHEDULER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#define MAX_THREADS 1024u
#define NO_NAME UINT32_MAX

enum state { FREE = 0, READY, RUNNING, BLOCKED, FINISHED };
/* W_PARKED: at a failed assumption in an atomic section; W_ENDLESS: in a loop that never
 * ends (endless_loop.c). Nothing wakes either. */
enum wait_kind { W_NONE = 0, W_RETRY, W_COND, W_BARRIER, W_JOIN, W_FUTEX, W_PARKED, W_ENDLESS };
enum wake { WAKE_NONE = 0, WAKE_EVENT, WAKE_TIMEOUT };

struct sthread {
    /* Read by the end provider without the lock. */
    _Atomic int state;
    _Atomic int64_t site; /* wrapped call the thread is in, -1 outside */
    _Atomic uint32_t name; /* interned "T<k>", NO_NAME if not yet known */
    /* The rest only by the baton holder: under `syncmut_sched_lock`, except at a point
     * where it keeps the baton (scheduler.c's point()). */
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
    int just_created; /* created a thread since its last choice point (rr:…:creators-last) */
    /* Objects the thread's pending step acts on (schedule-out file): up to two, or
     * `touches_all` when unknown. */
    const void *next_obj[2];
    int touches_all;
    int next_reads; /* the pending step only reads next_obj[0] (a memory load) */
    int64_t next_join; /* the pending step joins thread k (waits for its end only), else -1 */
    /* What the pending step blocks on without acting, if it is taken while it cannot go
     * on (the schedule file's `:w`): a plain lock of this mutex or spinlock that is
     * taken, a wait on this semaphore at 0 (`next_lock_kind`: SYNCMUT_SCHED_MUTEX_LOCK,
     * _SPIN_LOCK, _SEM_WAIT); a join of this thread while it runs. Cleared when the
     * thread is picked. */
    const void *next_lock;
    int next_lock_kind;
    const struct sthread *next_join_thread;
    int64_t next_access; /* the pending step is memory access number k (mutator's list), else -1 */
    /* The pending step starts an atomic section (scheduler_atomic.c): pending, it acts on
     * every object; taken, on what the section's single points that follow touch. */
    int next_section;
    /* Fairness. */
    uint32_t reads_in_a_row; /* memory reads since the thread's last write or sync call */
    uint64_t yielded_at; /* step of its last busy-wait yield, 0: none */
    int dozing; /* sleeping (sleep, usleep, poll with a timeout...): runs only when no one else can, or starved */
    uint64_t last_run; /* step it last ran at, or was made ready at */
    int forced; /* its last run was a fairness pick (it had starved FAIR_BOUND points) */
    uint32_t retries; /* lock attempts in a row that found the object taken */
    /* The run step (index among the recorded run points) during which another thread
     * created or woke it, if it has not run since; -1: none. A causal edge the objects
     * do not show (a signal wakes a waiter that then relocks the mutex). */
    int64_t readied;
    /* The state check past the step budget (repeat_state.c) hashes the stack of a thread
     * stopped at a synchronization call, from the scheduler's frame (stack_low; NULL when
     * stopped at a memory access) to where its start routine began (stack_high; NULL
     * before it ran). */
    int at_access;
    const void *stack_low;
    const void *stack_high;
};

/* The strategies of SYNCMUT_SCHEDULE (schedule_strategy.c). */
/* The kinds of SYNCMUT_SCHEDULE value; the first (0, a static's initial value) is the
 * strategy of a run that sets none. */
enum strategy {
#define SYNCMUT_SCHEDULE(Rust, C_NAME, name, syntax) STRATEGY_##C_NAME,
#include "syncmut_schedules.def"
#undef SYNCMUT_SCHEDULE
};
/* pct: the largest depth (SYNCMUT_SCHEDULE=pct:<seed>:<depth>; the list's pct syntax
 * states it). */
#define PCT_MAX_DEPTH 64u
/* The kinds of choice point (`run`, `wake`, `timeout` in the schedule file). */
enum choice_kind { K_RUN = 0, K_WAKE, K_TIMEOUT };

/* A blocking acquisition: `try` returns 0, an error, or EBUSY for "would block". */
typedef int (*try_fn)(void *obj, int arg);

/* A thread's state, also read without the lock (the end provider). */
static inline int load_state(const struct sthread *t)
{
    return atomic_load_explicit(&t->state, memory_order_relaxed);
}

static inline void set_state(struct sthread *t, int s)
{
    atomic_store_explicit(&t->state, s, memory_order_relaxed);
}

/* ---- scheduler.c: the thread table, the baton, blocking and waking ------------------ */

extern pthread_mutex_t syncmut_sched_lock; /* held to hand the baton over, and by the paths that block or wake */
extern struct sthread syncmut_sched_threads[MAX_THREADS];
extern uint32_t syncmut_sched_slots_used; /* high-water mark of syncmut_sched_threads */
extern uint32_t syncmut_sched_next_id;
/* SYNCMUT_THREAD_BOUND: threads a run may create, main not counted (0: no bound). */
extern uint64_t syncmut_sched_thread_bound;
/* repeat_state.c: reads SYNCMUT_REPEAT_WINDOW; called at each point past the step budget
 * `budget`, returns if the run may go on, else ends it (livelock or step budget). */
void syncmut_repeat_init(void);
void syncmut_repeat_check(struct sthread *me, uint64_t budget);
extern uint64_t syncmut_sched_steps; /* scheduling points so far */
extern pthread_key_t syncmut_sched_exit_key;
extern _Thread_local struct sthread *syncmut_sched_self;
/* The candidates of the choice under way, in slot order. */
extern struct sthread *syncmut_sched_candidates[MAX_THREADS];

struct sthread *syncmut_sched_lowest_id(uint32_t n, uint32_t above);
int syncmut_sched_is_candidate(const struct sthread *t, uint32_t n);
void syncmut_sched_wake(struct sthread *t, int reason);
void syncmut_sched_wake_all(const void *obj, int kind);
int syncmut_sched_block_on(const void *obj, int kind, int timed);
int syncmut_sched_acquire(void *obj, try_fn try, int arg, int timed);
int syncmut_sched_try_spin(void *l, int arg);
void syncmut_sched_release(const void *obj, int lock_released);
void syncmut_sched_reschedule(struct sthread *me);
void syncmut_sched_wait_for_baton(struct sthread *me);
struct sthread *syncmut_sched_new_slot(void);
void syncmut_sched_finish(struct sthread *t);
/* ---- scheduler_atomic.c: SV-COMP's atomic sections --------------------------------- */

/* The thread inside an atomic section (`__VERIFIER_atomic_begin/end`), and its nesting. */
extern struct sthread *syncmut_sched_atomic_owner;
extern uint32_t syncmut_sched_atomic_depth;
/* Threads parked at a failed assumption in an atomic section (W_PARKED). */
extern uint32_t syncmut_sched_parked;
/* A run that cannot go on, or passed its step budget, while a thread is parked at a
 * failed assumption in an atomic section: ended as discarded (SYNCMUT_STATUS_ASSUME), since
 * the parked thread might have gone on had it tried again. Returns if none is parked. */
void syncmut_sched_end_if_parked(struct sthread *me);
/* endless_loop.c: a run that cannot go on while a thread is in an endless loop ends as a
 * livelock that names the loop. Returns if no thread is in one. */
void syncmut_sched_end_if_looping(void);
uint32_t syncmut_sched_intern_thread_name(uint32_t number);

/* ---- schedule_strategy.c: SYNCMUT_SCHEDULE and each strategy's choice --------------- */

extern enum strategy syncmut_sched_strategy;
extern uint32_t syncmut_sched_pct_depth;
extern uint64_t syncmut_sched_pct_change[PCT_MAX_DEPTH];

uint64_t syncmut_sched_rng_next(void);
struct sthread *syncmut_sched_pick_other(int kind, uint32_t n, struct sthread *fallback);
struct sthread *syncmut_sched_default_choice(struct sthread *me, uint32_t n);
struct sthread *syncmut_sched_rr_choice(struct sthread *me, uint32_t n, int just_created);
struct sthread *syncmut_sched_holdback_choice(uint32_t n);
struct sthread *syncmut_sched_highest_priority(uint32_t n);
int syncmut_sched_parse_u64(const char *s, uint64_t *out);
void syncmut_sched_parse_strategy(const char *value);

/* ---- schedule_record.c: the schedule file, recorded and replayed -------------------- */

extern char *syncmut_sched_out_path;
extern int syncmut_sched_record_steps;
/* SYNCMUT_RECORD_DETAIL (schedule_record.c). */
extern int syncmut_sched_record_detail;
extern int64_t syncmut_sched_current_step;
extern const char *syncmut_sched_schedule_value;
extern pid_t syncmut_sched_owner_pid;

void syncmut_sched_set_next(struct sthread *t, const void *a, const void *b, int all);
void syncmut_sched_set_next_join(struct sthread *t, const struct sthread *target);
void syncmut_sched_record_choice(int kind, const struct sthread *chosen, const struct sthread *cur, uint32_t n);
void syncmut_sched_record_run(struct sthread *chosen, const struct sthread *cur, uint32_t n);
struct sthread *syncmut_sched_replay_pick(uint32_t n, struct sthread *fallback);
struct sthread *syncmut_sched_follow_pick(int kind, uint32_t n, struct sthread *fallback);
struct sthread *syncmut_sched_events_pick(uint32_t n, struct sthread *fallback);
void syncmut_sched_write_schedule_out(const char *how);
void syncmut_sched_load_replay(const char *path);
void syncmut_sched_start_recording(const char *path);
void syncmut_sched_write_at_exit(void);
void syncmut_sched_install_signal_handlers(void);

/* ---- the blocking models ------------------------------------------------------------ */

int syncmut_sched_try_mutex(void *m, int arg); /* model_mutex.c */
int syncmut_sched_try_sem(void *s, int arg); /* model_sem_barrier.c */
struct sthread *syncmut_sched_thread_of_handle(pthread_t thread); /* model_thread.c */

#endif
