/* The scheduler's side of SV-COMP's atomic sections (verifier.c): `__VERIFIER_atomic_begin`
 * and `_end`, and the parking of a thread whose assumption fails inside a section that has
 * done nothing yet (DESIGN.md, "Failed assumptions"). */
#define _GNU_SOURCE
#include "scheduler.h"
#include "scheduler_internal.h"

#include <unistd.h>

#include "activation.h"
#include "races.h"

struct sthread *syncmut_sched_atomic_owner;
uint32_t syncmut_sched_atomic_depth;
uint32_t syncmut_sched_parked;
/* The section was entered by an instrumented `__VERIFIER_atomic_*` function and has done
 * nothing another thread could see (mutator/src/atomic_functions.rs). */
static int clean;

void syncmut_sched_atomic_begin(int tracked)
{
    pthread_mutex_lock(&syncmut_sched_lock);
    if (syncmut_sched_atomic_owner != syncmut_sched_self) {
        /* A scheduling point first, so where the section starts is itself explored. The
         * section is recorded as one step on what it touches (schedule_record.c,
         * taken_object): a step of another thread on those objects is ordered before or
         * after the whole section, and the reduction sees the section's objects at its
         * start, where it must try the other order. */
        syncmut_sched_set_next(syncmut_sched_self, NULL, NULL, 1);
        syncmut_sched_self->next_section = 1;
        set_state(syncmut_sched_self, READY);
        syncmut_sched_reschedule(syncmut_sched_self);
        syncmut_sched_atomic_owner = syncmut_sched_self;
        syncmut_sched_atomic_depth = 0;
        clean = tracked;
        syncmut_races_atomic_begin(syncmut_sched_self->id);
    } else if (!tracked) {
        clean = 0; /* the program's own begin: what follows is not tracked */
    }
    syncmut_sched_atomic_depth++;
    pthread_mutex_unlock(&syncmut_sched_lock);
}

void syncmut_sched_atomic_end(void)
{
    pthread_mutex_lock(&syncmut_sched_lock);
    if (syncmut_sched_atomic_owner == syncmut_sched_self && syncmut_sched_atomic_depth > 0 &&
        --syncmut_sched_atomic_depth == 0) {
        syncmut_sched_atomic_owner = NULL;
        syncmut_races_atomic_end(syncmut_sched_self->id);
    }
    pthread_mutex_unlock(&syncmut_sched_lock);
}

void syncmut_sched_assume_failed(void)
{
    syncmut_sched_write_schedule_out("assume");
}

/* Only the owner runs inside its section: no lock needed. */
void syncmut_sched_atomic_acted(void)
{
    if (syncmut_sched_atomic_owner == syncmut_sched_self)
        clean = 0;
}

int syncmut_sched_atomic_parkable(void)
{
    return syncmut_sched_atomic_owner == syncmut_sched_self && syncmut_sched_atomic_depth > 0 && clean;
}

/* A failed assumption in an atomic section that has done nothing visible: as in a model
 * checker, the section did not happen. The thread stays at the point before it for the
 * rest of the run (never chosen again: a schedule where it is merely slow), and the
 * others go on. It does not try again: a rerun of the section would need its start
 * state back (DESIGN.md, "Failed assumptions"). */
void syncmut_sched_atomic_park(void)
{
    struct sthread *me = syncmut_sched_self;
    pthread_mutex_lock(&syncmut_sched_lock);
    syncmut_sched_atomic_owner = NULL, syncmut_sched_atomic_depth = 0, clean = 0;
    syncmut_races_atomic_end(me->id);
    syncmut_sched_parked++;
    static const char msg[] = "syncmut runtime: an assumption failed in an atomic section that changed nothing: its thread waits there for the rest of the run, the others go on\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    syncmut_sched_set_next(me, NULL, NULL, 1);
    syncmut_sched_block_on(NULL, W_PARKED, 0); /* nothing wakes W_PARKED */
    syncmut_fatal("a thread parked at a failed assumption was woken");
}
