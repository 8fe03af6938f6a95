/* Controlled scheduler for pthread designs (SYNCMUT_SCHEDULE). Internal to the runtime.
 *
 * When SYNCMUT_SCHEDULE is set, exactly one thread the scheduler controls runs at a time
 * (it holds the "baton"); every wrapped synchronization call, thread creation, thread
 * exit and join is a scheduling point where a seeded strategy picks who runs next.
 * Blocking calls are modelled: a thread that would block gives up the baton until the
 * object it waits on changes; the real primitive is then never contended. Contract and
 * limits: runtime-lib/README.md. */
#ifndef SYNCMUT_SCHEDULER_H
#define SYNCMUT_SCHEDULER_H

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Nonzero when the scheduler is on and the calling thread is one it controls (then
 * the caller holds the baton). Everything below may only be called when it is. */
int syncmut_sched_controls_me(void);

/* Scheduling point at the start of the wrapped call at `site`: may run other threads
 * first; returns holding the baton. Until syncmut_sched_leave, the end record shows the
 * thread as inside `site`. */
void syncmut_sched_enter(uint32_t site);
/* The same, naming the synchronization objects the call acts on (up to two; NULL: none),
 * for the schedule-out file's independence information (sleep sets). Without it
 * (syncmut_sched_enter) the call counts as touching everything. */
void syncmut_sched_enter_on(uint32_t site, const void *a, const void *b);
/* syncmut_sched_enter_on for a call that takes `a` and blocks while it cannot: a
 * mutex's lock (SYNCMUT_SCHED_MUTEX_LOCK), a spinlock's (SYNCMUT_SCHED_SPIN_LOCK), a
 * semaphore's wait (SYNCMUT_SCHED_SEM_WAIT); 0: as syncmut_sched_enter_on. The file then
 * says when taking the step now would only block (`:w`), which the partial-order
 * reduction does not count as acting on the object. */
#define SYNCMUT_SCHED_MUTEX_LOCK 1
#define SYNCMUT_SCHED_SPIN_LOCK 2
#define SYNCMUT_SCHED_SEM_WAIT 3
void syncmut_sched_enter_lock(uint32_t site, const void *a, const void *b, int lock);
/* `a` of a pthread_join's scheduling point when `b` is the pthread_t joined (cast): the
 * step waits for that thread's end and acts on nothing else (`j<k>` in the file). */
extern const char syncmut_sched_join_mark;
#define SYNCMUT_SCHED_JOIN (&syncmut_sched_join_mark)
void syncmut_sched_leave(void);
/* A non-blocking acquisition (trylock, sem_trywait) succeeded: the race detector's
 * happens-before edge from the object's last release (`lock`: a lock, else a semaphore). */
void syncmut_sched_acquired(const void *obj, int lock);

/* Waiting without an object (virtual_clock.c): a sleep (also poll/select with a timeout
 * and nothing ready) lets the other threads run until none of them can or FAIR_BOUND
 * points have passed; a yield lets each thread that is ready run a step first. The caller
 * moves the virtual clock itself. */
void syncmut_sched_sleep(void);
void syncmut_sched_yield(void);

/* Modelled blocking operations: same results as the real calls (0 or an error number;
 * sem_wait: 0 or -1 with errno). `timed`: the wait may time out, which happens only
 * when no other thread can run (then ETIMEDOUT). */
int syncmut_sched_mutex_lock(pthread_mutex_t *m, int timed);
int syncmut_sched_mutex_unlock(pthread_mutex_t *m);
int syncmut_sched_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int timed);
void syncmut_sched_cond_wake(pthread_cond_t *c, int all);
int syncmut_sched_rwlock_lock(pthread_rwlock_t *l, int write);
int syncmut_sched_rwlock_unlock(pthread_rwlock_t *l);
int syncmut_sched_spin_lock(pthread_spinlock_t *l);
int syncmut_sched_spin_unlock(pthread_spinlock_t *l);
int syncmut_sched_sem_wait(sem_t *s);
int syncmut_sched_sem_post(sem_t *s);
int syncmut_sched_barrier_wait(pthread_barrier_t *b);
int syncmut_sched_join(pthread_t thread, void **retval);
/* libc's function `name` (dlsym RTLD_NEXT), looked up once and kept in *cache; a
 * missing one ends the run with status 120. The executable of a pthread design defines
 * pthread_create and pthread_join itself (std_thread.c, for the threads and joins
 * libstdc++ makes), so the runtime's own calls reach libc's through this. */
void *syncmut_libc_function(_Atomic(void *) *cache, const char *name);
/* libc's pthread_join, for the runtime's own joins. */
int syncmut_real_pthread_join(pthread_t thread, void **retval);
/* A futex wait on `addr`: EAGAIN at once when *addr != expected, else blocks until a
 * futex wake on `addr` (0) or, when `timed`, until nothing else can run (ETIMEDOUT). */
int syncmut_sched_futex_wait(const int *addr, int expected, int timed);
void syncmut_sched_futex_wake(const int *addr, int all);

/* --interleave memory: a scheduling point before a load (`write` bit 0 clear) or store
 * (set) of possibly shared memory at `addr`, inserted by the mutator (bit 1: an atomic
 * access, races.h); the race detector then sees the access; `access` is the access's
 * number in the catalogue. Does nothing unless the scheduler controls the caller. */
void syncmut_mem_access(const void *addr, uint32_t write, uint32_t access);
/* The same for a metamutant built for race detection only: the race detector sees the
 * access, no scheduling point. `flags` as for syncmut_mem_access (races.h: bit 0 store,
 * bit 1 atomic). */
void syncmut_mem_observe(const void *addr, uint32_t flags, uint32_t access);

/* Reached when a loop that changes nothing goes round, inserted by the mutator on the
 * loop's back edge (mutator/src/endless_loops.rs): the caller never comes back. `where`
 * names the loop (`file:line:col in function`). */
__attribute__((noreturn)) void syncmut_loops_forever(const char *where);

/* __VERIFIER_atomic_begin/end (verifier.c): while the caller is inside (nesting
 * counted), no other thread is scheduled as long as it can run. `tracked`: entered by an
 * instrumented `__VERIFIER_atomic_*` function, whose effects are reported. */
void syncmut_sched_atomic_begin(int tracked);
void syncmut_sched_atomic_end(void);
/* An `__VERIFIER_atomic_*` function's instrumentation (mutator/src/atomic_functions.rs)
 * says the section did something another thread could see. */
void syncmut_sched_atomic_acted(void);
/* Whether the caller owns a section entered by an atomic function that has done
 * nothing another thread could see: its failed assumption can park it. */
int syncmut_sched_atomic_parkable(void);
/* Parks the caller for the rest of the run (its section did not happen); never returns. */
__attribute__((noreturn)) void syncmut_sched_atomic_park(void);
/* __VERIFIER_assume(0): saves the schedule with `# end assume`; the caller then exits. */
void syncmut_sched_assume_failed(void);

/* Thread hooks (thread_hooks.c), for a controlled caller. */
int syncmut_sched_create(const char *start_name, pthread_t *thread, const pthread_attr_t *attr,
                         void *(*start)(void *), void *arg);
__attribute__((noreturn)) void syncmut_sched_exit(void *value);

#ifdef __cplusplus
}
#endif

#endif
