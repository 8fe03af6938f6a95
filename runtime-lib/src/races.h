/* Happens-before data-race detector for pthread designs under the controlled scheduler
 * (SYNCMUT_RACES_OUT). Internal to the runtime; contract: runtime-lib/README.md, "Data
 * races".
 *
 * Every function is called by the thread holding the scheduler's baton (only one design
 * thread runs at a time), so the detector needs no lock of its own. Threads are named by
 * the scheduler's creation numbers (T0 is main); `site` is the wrapped call's site. */
#ifndef SYNCMUT_RACES_H
#define SYNCMUT_RACES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads SYNCMUT_RACES_OUT; nonzero when detection is on. Called once by the scheduler's
 * start-up, after it decided to run. */
int syncmut_races_init(void);
int syncmut_races_on(void);

/* Thread `child` was created by `parent`: everything the parent did so far happens before
 * the child's first step. */
void syncmut_races_create(uint32_t parent, uint32_t child);
/* `joiner` returned from joining `target`: the target's steps happen before. */
void syncmut_races_join(uint32_t joiner, uint32_t target);
/* Acquisition of a lock or semaphore token `obj` by `t` at `site` (`lock` nonzero: a
 * mutex/rwlock/spinlock, held until the matching release, named in reports). */
void syncmut_races_acquire(uint32_t t, const void *obj, int64_t site, int lock);
/* Release of `obj` by `t` (unlock, semaphore post, the unlock inside a condition wait). */
void syncmut_races_release(uint32_t t, const void *obj, int lock);
/* A barrier round completed: the `n` threads in `ids` (the last arrival included) all
 * happen after everything each of them did before arriving. */
void syncmut_races_barrier(const uint32_t *ids, uint32_t n);
/* `__VERIFIER_atomic_*` sections: one process-wide lock. */
void syncmut_races_atomic_begin(uint32_t t);
void syncmut_races_atomic_end(uint32_t t);

/* Access flags (the mutator's third argument's low bits, mutator/src/interleave.rs). */
#define SYNCMUT_ACCESS_WRITE 1u
#define SYNCMUT_ACCESS_ATOMIC 2u
/* A load/store by `t` of `addr`, access number `access` of the catalogue. Atomic accesses
 * are synchronization (release on store, acquire on load), never races. */
void syncmut_races_access(uint32_t t, const void *addr, uint32_t flags, uint32_t access);

/* Writes the races found so far to SYNCMUT_RACES_OUT, once (async-signal-safe). */
void syncmut_races_write(void);

#ifdef __cplusplus
}
#endif

#endif
