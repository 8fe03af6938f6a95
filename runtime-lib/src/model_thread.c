/* The controlled scheduler's model of threads: creation (a new thread waits in the
 * trampoline until it is chosen), pthread_exit, and join (the joiner blocks until the
 * target has finished), with the lookups of libc's own functions the runtime calls.
 * The thread table itself, and a thread's end, are scheduler.c's. Split from scheduler.c
 * with the other blocking models (model_*.c), one file per family of primitives. */
#define _GNU_SOURCE
#include "scheduler.h"
#include "scheduler_internal.h"
#include "syncmut_protocol.h"
#include "activation.h"

#include <dlfcn.h>
#include <sched.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>

#include "trace.h"
#include "races.h"

/* Keeps the controlled threads on the CPU the process runs on when it creates its first:
 * the scheduler runs one of them at a time, so a second CPU adds no speed, only the
 * latency of waking the next thread there at every hand-over. A thread inherits the
 * CPU of its creator, so pinning the creator of the first thread pins them all. On a
 * two-core virtual machine a hand-over that wakes an idle CPU took about 28 µs, against
 * a few on the same CPU: the scheduled pthread counter ran in about half the time. The CPU is
 * the one the kernel placed the run on, so parallel runs stay spread as it placed them;
 * best effort (a CPU past the set's size, or a refusal, leaves the threads free). */
static void keep_threads_on_one_cpu(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    int cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    (void)sched_setaffinity(0, sizeof one, &one);
}

static void *trampoline(void *p)
{
    struct sthread *t = p;
    syncmut_sched_self = t;
    pthread_setspecific(syncmut_sched_exit_key, t); /* pthread_exit and cancellation end via finish_at_exit */
    pthread_mutex_lock(&syncmut_sched_lock);
    t->stack_high = __builtin_frame_address(0); /* the start routine's frames lie below */
    syncmut_sched_wait_for_baton(t);
    pthread_mutex_unlock(&syncmut_sched_lock);
    syncmut_trace_set_thread_id(t->id);
    syncmut_trace_set_thread_routine(t->routine);
    void *result = t->start(t->arg);
    pthread_setspecific(syncmut_sched_exit_key, NULL);
    syncmut_sched_finish(t);
    return result;
}

int syncmut_sched_create(const char *start_name, pthread_t *thread, const pthread_attr_t *attr,
                         void *(*start)(void *), void *arg)
{
    struct sthread *me = syncmut_sched_self;
    pthread_mutex_lock(&syncmut_sched_lock);
    /* Ids count the threads created so far (T0 is main; a failed creation gives its id
     * back). Past the bound the path is cut, as the preemption bound cuts a dfs: a
     * program that keeps creating threads (`while (1) pthread_create(...)`) is explored
     * up to the bound in every run, instead of each run ending at the thread limit after
     * a thousand threads, minutes into the search. */
    if (syncmut_sched_thread_bound != 0 && syncmut_sched_next_id > syncmut_sched_thread_bound) {
        char why[96];
        snprintf(why, sizeof why, "thread bound (the run asked for thread %u; SYNCMUT_THREAD_BOUND=%llu)",
                 syncmut_sched_next_id, (unsigned long long)syncmut_sched_thread_bound);
        syncmut_sched_write_schedule_out("thread-bound");
        syncmut_trace_finish(why, atomic_load_explicit(&me->name, memory_order_relaxed),
                             atomic_load_explicit(&me->site, memory_order_relaxed), SYNCMUT_STATUS_THREAD_BOUND);
    }
    struct sthread *t = syncmut_sched_new_slot();
    t->routine = start_name;
    t->start = start;
    t->arg = arg;
    syncmut_races_create(me->id, t->id);
    t->readied = syncmut_sched_current_step;
    set_state(t, READY); /* parked in the trampoline until chosen */
    pthread_mutex_unlock(&syncmut_sched_lock);
    atomic_store_explicit(&t->name, syncmut_sched_intern_thread_name(t->id), memory_order_relaxed);

    keep_threads_on_one_cpu();
    pthread_t handle;
    int rc = pthread_create(&handle, attr, trampoline, t);
    pthread_mutex_lock(&syncmut_sched_lock);
    if (rc == EAGAIN) {
        /* The system refused another thread (the run's memory limit holds fewer thread
         * stacks than the scheduler has slots): the same resource limit as the slots
         * running out. Handing EAGAIN back would leave a program that retries in a loop
         * (`while (1) pthread_create(...)`) spinning at one scheduling point until the
         * timeout, reported as a hang it does not have. */
        uint32_t name = atomic_load_explicit(&me->name, memory_order_relaxed);
        syncmut_sched_write_schedule_out("thread-limit");
        syncmut_trace_finish("thread limit (the system refused another thread: EAGAIN, the run's memory holds no more thread stacks)",
                             name, atomic_load_explicit(&me->site, memory_order_relaxed), SYNCMUT_STATUS_THREAD_LIMIT);
    }
    if (rc != 0) {
        set_state(t, FREE);
        syncmut_sched_next_id--; /* nothing ran since syncmut_sched_new_slot: the number is reused */
    } else {
        t->handle = handle;
        t->has_handle = 1;
        if (thread != NULL)
            *thread = handle;
        /* A creation changes what others can do, as a synchronization call does: the
         * reads before it are no busy-wait (main reading its settings between creations
         * would otherwise yield, and no schedule would create every thread first). */
        me->reads_in_a_row = 0;
        me->just_created = 1;
        set_state(me, READY);
        syncmut_sched_set_next(me, NULL, NULL, 0); /* back to design code */
        syncmut_sched_reschedule(me);
    }
    pthread_mutex_unlock(&syncmut_sched_lock);
    return rc;
}

void syncmut_sched_exit(void *value)
{
    /* The thread-specific value's destructor (finish_at_exit, scheduler.c) passes the baton
     * after the design's cleanup handlers ran, under control, in pthread_exit. */
    pthread_exit(value);
}

/* The thread of ours with pthread handle `thread` (the newest: handles recycle), or NULL.
 * Under `syncmut_sched_lock`. */
struct sthread *syncmut_sched_thread_of_handle(pthread_t thread)
{
    struct sthread *target = NULL;
    for (uint32_t i = 0; i < syncmut_sched_slots_used; i++) {
        struct sthread *t = &syncmut_sched_threads[i];
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
    struct sthread *me = syncmut_sched_self;
    pthread_mutex_lock(&syncmut_sched_lock);
    struct sthread *target = syncmut_sched_thread_of_handle(thread);
    if (target == NULL || target == me) { /* not ours, or self-join (EDEADLK) */
        pthread_mutex_unlock(&syncmut_sched_lock);
        return syncmut_real_pthread_join(thread, retval);
    }
    while (load_state(target) != FINISHED) {
        syncmut_sched_set_next_join(me, target);
        syncmut_sched_block_on(target, W_JOIN, 0);
    }
    syncmut_races_join(me->id, target->id);
    pthread_mutex_unlock(&syncmut_sched_lock);
    /* The target passed the baton and is only tearing down: this waits for that. */
    int rc = syncmut_real_pthread_join(thread, retval);
    if (rc == 0) {
        pthread_mutex_lock(&syncmut_sched_lock);
        set_state(target, FREE); /* terminated and joined: the slot can be reused */
        pthread_mutex_unlock(&syncmut_sched_lock);
    }
    return rc;
}
