/* What a scheduled pthread thread loads after a join, until its next event (docs/
 * verdicts.md, "What a snapshot holds"). Internal to the runtime; trace.c opens a join
 * event's snapshot here, the memory hooks (scheduler.c) report each access.
 *
 * A snapshot taken at the call of a join shows what the other threads have left
 * half-done at that moment (the joined one, and any other still running), though the
 * joining thread may load none of it before its next event, and the values it does load
 * are those it finds when the join returns. So under the controlled scheduler, in a
 * metamutant whose shared accesses are instrumented, a join event's snapshot holds
 * exactly the globals the thread loads between that event and its next, each with the
 * value its first load saw; a global it wrote first is left out (it reads its own
 * value). Other events keep the snapshot trace.c takes at the call. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "syncmut_tables.h"
#include "trace.h"
#include "trace_internal.h"

/* Emitted by the mutator when it instrumented the design's shared accesses
 * (mutator/src/interleave.rs); weak: absent, snapshots stay those of trace.c. */
extern const uint32_t syncmut_reads_observed __attribute__((weak));
extern const uint32_t syncmut_global_count __attribute__((weak));
extern const struct syncmut_field syncmut_globals[] __attribute__((weak));

#define WATCHED ((uint32_t)SYNCMUT_MAX_GLOBALS) /* all fit a 64-bit mask */

static _Thread_local bool watching;
/* The open join record: its mask of globals loaded, then their values (u64 each,
 * little-endian, unaligned), or NULL. */
static _Thread_local unsigned char *open_record;
static _Thread_local uint64_t touched;      /* loaded or stored since that event */

static uint32_t watched_count(void)
{
    if (&syncmut_global_count == NULL || syncmut_globals == NULL)
        return 0;
    return syncmut_global_count < WATCHED ? syncmut_global_count : WATCHED;
}

void syncmut_trace_reads_watch(void)
{
    watching = &syncmut_reads_observed != NULL && watched_count() > 0;
    syncmut_trace_reads_close();
}

int syncmut_trace_reads_watching(void)
{
    return watching;
}

void syncmut_trace_reads_open(unsigned char *record)
{
    open_record = record;
    touched = 0;
}

void syncmut_trace_reads_close(void)
{
    open_record = NULL;
}

void syncmut_trace_reads_access(const void *addr, uint32_t write)
{
    if (open_record == NULL)
        return;
    uintptr_t a = (uintptr_t)addr;
    uint32_t n = watched_count();
    for (uint32_t i = 0; i < n; i++) {
        const struct syncmut_field *g = &syncmut_globals[i];
        if (a < (uintptr_t)g->where || a >= (uintptr_t)g->where + g->size)
            continue;
        uint64_t bit = (uint64_t)1 << i;
        if (touched & bit)
            return;
        touched |= bit;
        if (!write) {
            uint64_t value = trace_read_value((const void *)(uintptr_t)g->where, (uint32_t)g->size);
            uint64_t mask;
            memcpy(open_record + 8 + 8 * (size_t)i, &value, 8);
            memcpy(&mask, open_record, 8);
            mask |= bit;
            memcpy(open_record, &mask, 8);
        }
        return;
    }
}
