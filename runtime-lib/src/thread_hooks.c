/* Thread hooks: the mutator rewrites every pthread_create/pthread_exit call to these,
 * so the runtime sees each thread start and end (the controlled scheduler's entry
 * points). Without the scheduler (SYNCMUT_SCHEDULE unset) they pass straight through;
 * so does a call from a thread the scheduler does not control. */
#define _GNU_SOURCE
#include <pthread.h>

#include "scheduler.h"

int syncmut_hook_pthread_create(const char *start_name, pthread_t *thread, const pthread_attr_t *attr,
                                void *(*start)(void *), void *arg)
{
    if (syncmut_sched_controls_me())
        return syncmut_sched_create(start_name, thread, attr, start, arg);
    return pthread_create(thread, attr, start, arg);
}

void syncmut_hook_pthread_exit(void *value)
{
    if (syncmut_sched_controls_me())
        syncmut_sched_exit(value);
    pthread_exit(value);
}
