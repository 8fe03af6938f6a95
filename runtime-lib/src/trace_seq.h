/* The events' seq counter. Internal to the trace (trace.c).
 *
 * Every event takes the next number of one counter, which orders the events of all
 * threads. While only one thread records (every SystemC design, whose processes are
 * coroutines on one thread, and every run with one thread), that thread counts with a
 * plain load and store: a locked add is a full barrier, and it was 5% of a traced
 * SystemC run.
 *
 * The first time a second thread records, the counter turns to locked adds for good.
 * The newcomer announces the turn, then waits until the first thread is no longer
 * between its load and its store, a window that thread marks with a flag of its own.
 * This is Dekker's handshake with the fence on one side only: a membarrier(2) call
 * between the newcomer's announcement and its look at the flag stands for the fence
 * the first thread would otherwise pay at every event. The first thread either sees
 * the announcement, or has set its flag where the newcomer sees it. Where the kernel
 * does not offer membarrier, every thread uses locked adds from the start. */
#ifndef SYNCMUT_TRACE_SEQ_H
#define SYNCMUT_TRACE_SEQ_H

#include "trace_internal.h"

enum trace_seq_mode {
    TRACE_SEQ_NEW,    /* the thread has not recorded yet */
    TRACE_SEQ_PLAIN,  /* the first thread that recorded, while it is the only one */
    TRACE_SEQ_LOCKED, /* locked adds */
};

extern _Thread_local enum trace_seq_mode trace_seq_mode;
extern atomic_bool trace_seq_turned;  /* a second thread has recorded */
extern atomic_bool trace_seq_in_plain; /* the first thread is between load and store */

/* At start-up, before any thread but the main one exists: whether plain counting is
 * possible (membarrier registered). */
void trace_seq_init(void);

/* A thread's first event: sets its mode, and when it is the second thread to record,
 * turns the counter to locked adds. */
void trace_seq_join(void);

/* The next seq (may run past the cap: the caller checks). */
static inline uint64_t trace_seq_next(void)
{
    if (trace_seq_mode == TRACE_SEQ_NEW)
        trace_seq_join();
    if (trace_seq_mode == TRACE_SEQ_PLAIN) {
        atomic_store_explicit(&trace_seq_in_plain, true, memory_order_relaxed);
        /* A compiler barrier only: the newcomer's membarrier() is the fence. */
        atomic_signal_fence(memory_order_seq_cst);
        if (!atomic_load_explicit(&trace_seq_turned, memory_order_relaxed)) {
            uint64_t seq = atomic_load_explicit(&trace_shared.claimed, memory_order_relaxed);
            atomic_store_explicit(&trace_shared.claimed, seq + 1, memory_order_relaxed);
            atomic_store_explicit(&trace_seq_in_plain, false, memory_order_release);
            return seq;
        }
        atomic_store_explicit(&trace_seq_in_plain, false, memory_order_release);
        trace_seq_mode = TRACE_SEQ_LOCKED;
    }
    return atomic_fetch_add_explicit(&trace_shared.claimed, 1, memory_order_relaxed);
}

#endif
