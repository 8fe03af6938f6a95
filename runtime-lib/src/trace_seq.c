/* The events' seq counter: the first thread's plain counting and the turn to locked
 * adds (trace_seq.h). */
#define _GNU_SOURCE
#include "trace_seq.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "activation.h"

_Thread_local enum trace_seq_mode trace_seq_mode;
atomic_bool trace_seq_turned;
atomic_bool trace_seq_in_plain;

static bool plain_possible;          /* written at start-up, before other threads */
static atomic_bool first_taken;      /* a thread counts plainly, or did */
static atomic_bool turn_done;        /* the first thread's last plain increment is over */

static int membarrier(int cmd)
{
    return (int)syscall(SYS_membarrier, cmd, 0, 0);
}

/* A forked child has one thread, the one that forked: it may count plainly again, and
 * must not wait for a first thread that was between its load and store at the fork
 * and does not exist in the child. */
static void forked_child(void)
{
    trace_seq_mode = TRACE_SEQ_NEW;
    atomic_store(&first_taken, false);
    atomic_store(&trace_seq_turned, false);
    atomic_store(&trace_seq_in_plain, false);
    atomic_store(&turn_done, false);
}

void trace_seq_init(void)
{
    plain_possible = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
    pthread_atfork(NULL, NULL, forked_child);
}

void trace_seq_join(void)
{
    if (plain_possible && !atomic_exchange(&first_taken, true)) {
        trace_seq_mode = TRACE_SEQ_PLAIN;
        return;
    }
    trace_seq_mode = TRACE_SEQ_LOCKED;
    if (!plain_possible)
        return;
    if (atomic_exchange(&trace_seq_turned, true)) {
        /* Another newcomer turns it: wait until it has. */
        while (!atomic_load_explicit(&turn_done, memory_order_acquire))
            sched_yield();
        return;
    }
    /* A process forked from the registered one may have lost the registration: the
     * global barrier needs none. */
    if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 && membarrier(MEMBARRIER_CMD_GLOBAL) != 0)
        syncmut_fatal("SYNCMUT_TRACE: a second thread records, and the kernel refused the "
                      "memory barrier that orders its events after the first thread's");
    while (atomic_load_explicit(&trace_seq_in_plain, memory_order_acquire))
        sched_yield();
    atomic_store_explicit(&turn_done, true, memory_order_release);
}
