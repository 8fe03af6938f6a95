/* Execution trace (SYNCMUT_TRACE): one event per wrapper call, kept in memory and written
 * as one binary file at exit or on a fatal signal (the oracle renders it as JSON Lines).
 * Internal to the runtime. */
#ifndef SYNCMUT_TRACE_H
#define SYNCMUT_TRACE_H

#include <stdint.h>

#include "activation.h"
#include "syncmut_protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called once by the runtime's initialisation with SYNCMUT_TRACE and SYNCMUT_ACTIVE
 * (either may be NULL). Does nothing unless `path` is non-empty. */
void syncmut_trace_init(const char *path, const char *active);

/* Nonzero when events are being recorded; written once at start-up. */
extern int syncmut_tracing;

/* Inline: every wrapper call asks, twice for a notification. */
static inline int syncmut_trace_on(void)
{
    return syncmut_tracing;
}

/* Events recorded so far: the seq the next event gets (0 when tracing is off). The
 * scheduler writes it with each choice point, which places the steps that are not
 * events (memory accesses) among the events. */
uint64_t syncmut_trace_recorded(void);

/* Events thread T<k> has recorded so far; UINT64_MAX (not counted) for threads past the
 * first 4096. */
uint64_t syncmut_trace_thread_events(uint32_t k);

/* A new thread's number k (T<k>), claimed by its creator with real threads, so threads
 * are numbered by creation order there too; the new thread passes it to
 * syncmut_trace_set_thread_id. */
uint32_t syncmut_trace_claim_thread_id(void);

/* Names the calling thread T<k> in the trace (the scheduler's creation-order id). */
void syncmut_trace_set_thread_id(uint32_t k);

/* Names the calling thread's start routine ("main" for the main thread): its snapshots
 * then hold only the globals that routine can read (the mutator's syncmut_thread_reads). */
void syncmut_trace_set_thread_routine(const char *routine);

/* trace_reads.c: under the scheduler, in a metamutant whose shared accesses are
 * instrumented, a join event's snapshot holds what the thread loads until its next
 * event. `watch` starts that for the calling thread (the scheduler names its routine
 * first); `open` makes the join record at `record` (a u64 mask of the globals loaded,
 * then each global's value as a u64, all zero) the one its loads fill, `close` stops
 * filling it; `access` is a load or store (`write` nonzero) about to happen. */
void syncmut_trace_reads_watch(void);
int syncmut_trace_reads_watching(void);
void syncmut_trace_reads_open(unsigned char *record);
void syncmut_trace_reads_close(void);
void syncmut_trace_reads_access(const void *addr, uint32_t write);

/* Records a pthread event; the calling thread is named T<k>. `join`: the event of a
 * join, whose snapshot holds what the thread loads after it (trace_reads.c). */
void syncmut_trace_pthread(uint32_t site, syncmut_op action, int join);

/* Returns a stable id for a string (process names, time stamps); the text is copied. */
uint32_t syncmut_trace_intern(const char *text);

/* The text of an interned id ("?" for an unknown one), and how many there are; both
 * async-signal-safe (the flush reads them). */
const char *syncmut_trace_string(uint32_t id);
uint32_t syncmut_trace_string_count(void);

/* Flags of a SystemC event: SYNCMUT_EVENT_* in syncmut_protocol.h. */

/* Records a SystemC event; `process`, `time` and `module` are ids from
 * syncmut_trace_intern, `flags` a set of SYNCMUT_EVENT_* bits. `object` is the start of the
 * (most-derived) object of the running process's module, `cls` its class from
 * syncmut_trace_class_of: the state snapshot records that object's members under
 * "<module>.<member>" (none when `object` is NULL or `cls` 0). */
void syncmut_trace_systemc(uint32_t site, syncmut_op action, uint32_t process,
                           uint32_t time, uint64_t delta, uint32_t flags,
                           const void *object, uint32_t module, uint32_t cls);

/* The class of a module object, from its typeid(...).name(), for syncmut_trace_systemc:
 * 1 + its index in the mutator's class table, 0 if the class has no recorded members. */
uint32_t syncmut_trace_class_of(const char *type_name);

/* ---- End record --------------------------------------------------------------------
 * The last record of a trace says how the run ended (shown as the oracle renders it):
 *   {"end":"exit","deadlock":false,"pending":[{"thread":"m.t1","site":0}]}
 *   {"end":"signal","signal":15,"pending":[...]}
 *   {"end":"livelock","thread":"m.t1","site":3,"pending":[...]}
 *   {"end":"deadlock","deadlock":true,"pending":[{"thread":"T1","site":4}, ...]}
 * "site" is omitted for a thread not inside a wrapped call. "deadlock" is always written
 * for "exit" and "deadlock", elsewhere only when true. The line comes after
 * {"truncated":true}, if present.
 * The part of the runtime that knows the threads (the SystemC monitor, the pthread
 * scheduler) registers a provider that fills `pending` and `deadlock` at flush time; it
 * runs at exit and in fatal-signal handlers, so it must be async-signal-safe (read only
 * preallocated state, no malloc, no locks). */
#define SYNCMUT_MAX_PENDING 256

typedef struct syncmut_pending {
    uint32_t thread; /* interned name (syncmut_trace_intern) */
    int64_t site;    /* -1: not inside a wrapped call */
} syncmut_pending;

typedef struct syncmut_end {
    int at_exit;     /* set by the trace before asking: the run ends through exit(), called
                      * by the asking thread, which is therefore not left waiting */
    int deadlock;    /* no thread could make progress while some had not finished */
    uint32_t npending;
    syncmut_pending pending[SYNCMUT_MAX_PENDING];
} syncmut_end;

typedef void (*syncmut_end_provider)(syncmut_end *end);

/* Registers the provider (one per process: SystemC or pthread, never both). */
void syncmut_trace_set_end_provider(syncmut_end_provider provider);

/* Ends the run now: prints one "syncmut runtime: <kind> detected in <thread> at site <n>
 * (...); run ended with exit status <status>" line on stderr (also when tracing is off),
 * writes the trace with end kind `kind` ("livelock" or "deadlock"; "deadlock" forces
 * "deadlock":true), `thread`/`site` naming the culprit (thread = interned id, or
 * UINT32_MAX; site = -1 if none), then _exit(status). Used when the runtime itself
 * detects that the design cannot go on (exit statuses in docs/exit-codes.md). */
__attribute__((noreturn)) void syncmut_trace_finish(const char *kind, uint32_t thread,
                                                    int64_t site, int status);

#ifdef __cplusplus
}
#endif

#endif
