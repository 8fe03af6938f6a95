/* Thread hooks: the mutator rewrites every pthread_create/pthread_exit call (and C11's
 * thrd_create/thrd_exit) to these,
 * so the runtime sees each thread start and end (the controlled scheduler's entry
 * points). Without the scheduler (SYNCMUT_SCHEDULE unset) they pass straight through;
 * so does a call from a thread the scheduler does not control. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <threads.h>

#include "scheduler.h"
#include "thread_hooks.h"
#include "trace.h"

/* Set while this thread's hook creates a thread: the pthread_create it then calls (the
 * scheduler's or the pass-through) is libc's, also where std_thread.c defines
 * pthread_create in the executable. */
static _Thread_local int creating;

int syncmut_hook_creating(void)
{
    return creating;
}

/* With real threads and a trace, a created thread is T<k> by creation order, as under
 * the scheduler (otherwise by its first event): the scheduler's events: strategy runs
 * another program in the order of this run's events by those names. */
struct named_start {
    void *(*start)(void *);
    void *arg;
    uint32_t k;
};

static void *run_named(void *boxed)
{
    struct named_start s = *(struct named_start *)boxed;
    free(boxed);
    syncmut_trace_set_thread_id(s.k);
    return s.start(s.arg);
}

static int create_named(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    struct named_start *boxed = malloc(sizeof *boxed);
    if (boxed == NULL)
        return pthread_create(thread, attr, start, arg);
    *boxed = (struct named_start){start, arg, syncmut_trace_claim_thread_id()};
    int rc = pthread_create(thread, attr, run_named, boxed);
    if (rc != 0)
        free(boxed);
    return rc;
}

int syncmut_hook_pthread_create(const char *start_name, pthread_t *thread, const pthread_attr_t *attr,
                                void *(*start)(void *), void *arg)
{
    creating = 1;
    int rc = syncmut_sched_controls_me() ? syncmut_sched_create(start_name, thread, attr, start, arg)
             : syncmut_trace_on()        ? create_named(thread, attr, start, arg)
                                         : pthread_create(thread, attr, start, arg);
    creating = 0;
    return rc;
}

void syncmut_hook_pthread_exit(void *value)
{
    if (syncmut_sched_controls_me())
        syncmut_sched_exit(value);
    pthread_exit(value);
}

/* C11 threads: glibc's thrd_t is a pthread_t and a thread's int result travels as the
 * pthread result (intptr_t), which thrd_join converts back. */
struct c11_start {
    thrd_start_t start;
    void *arg;
};

static void *run_c11_thread(void *boxed)
{
    struct c11_start s = *(struct c11_start *)boxed;
    free(boxed);
    return (void *)(intptr_t)s.start(s.arg);
}

int syncmut_hook_thrd_create(const char *start_name, thrd_t *thread, thrd_start_t start, void *arg)
{
    int scheduled = syncmut_sched_controls_me();
    if (!scheduled && !syncmut_trace_on())
        return thrd_create(thread, start, arg);
    struct c11_start *boxed = malloc(sizeof *boxed);
    if (boxed == NULL)
        return thrd_nomem;
    boxed->start = start;
    boxed->arg = arg;
    creating = 1;
    /* Traced with real threads, named by creation as a pthread is (create_named). */
    int rc = scheduled ? syncmut_sched_create(start_name, (pthread_t *)thread, NULL, run_c11_thread, boxed)
                       : create_named((pthread_t *)thread, NULL, run_c11_thread, boxed);
    creating = 0;
    if (rc != 0)
        free(boxed);
    return rc == 0 ? thrd_success : thrd_error;
}

void syncmut_hook_thrd_exit(int result)
{
    if (syncmut_sched_controls_me())
        syncmut_sched_exit((void *)(intptr_t)result);
    thrd_exit(result);
}
