/* A thread in a loop that can never end (mutator/src/endless_loops.rs marks loops that
 * write nothing and read nothing another thread can change, and calls
 * syncmut_loops_forever when one goes round).
 *
 * Such a thread never does anything another thread can see again. Under the scheduler it
 * waits for the rest of the run, never chosen (W_ENDLESS), and the others go on: where
 * they end, the process ends as the design's would (main returning ends it whatever the
 * looping thread does). A run that cannot go on while a thread loops ends as a livelock
 * naming the loop, instead of spinning until its timeout. Inside an atomic section
 * nothing else may run until the section ends, which it never does: the run ends at once.
 * Natively the thread waits without using the processor. */
#define _GNU_SOURCE
#include "scheduler.h"
#include "scheduler_internal.h"
#include "syncmut_protocol.h"

#include <stdio.h>
#include <unistd.h>

#include "activation.h"
#include "trace.h"

/* Under `syncmut_sched_lock`: the first thread to loop, and where. */
static const struct sthread *first;
static const char *first_where;

__attribute__((noreturn)) static void end_run(void)
{
    dprintf(2,
            "syncmut runtime: livelock: T%u loops forever at %s (the loop writes nothing and reads nothing "
            "another thread can change), and %s\n",
            (unsigned)first->id, first_where,
            syncmut_sched_atomic_owner == first ? "it is inside an atomic section, so no other thread may run"
                                                : "no other thread can go on");
    syncmut_sched_write_schedule_out("livelock");
    syncmut_trace_finish("livelock", atomic_load_explicit(&first->name, memory_order_relaxed),
                         atomic_load_explicit(&first->site, memory_order_relaxed), SYNCMUT_STATUS_LIVELOCK);
}

void syncmut_sched_end_if_looping(void)
{
    if (first != NULL)
        end_run();
}

void syncmut_loops_forever(const char *where)
{
    if (syncmut_sched_controls_me()) {
        struct sthread *me = syncmut_sched_self;
        pthread_mutex_lock(&syncmut_sched_lock);
        if (first == NULL)
            first = me, first_where = where;
        if (syncmut_sched_atomic_owner == me && syncmut_sched_atomic_depth > 0) {
            first = me, first_where = where;
            end_run();
        }
        syncmut_sched_set_next(me, NULL, NULL, 1);
        syncmut_sched_block_on(NULL, W_ENDLESS, 0); /* nothing wakes W_ENDLESS */
        syncmut_fatal("a thread in an endless loop was woken");
    }
    for (;;)
        pause();
}
