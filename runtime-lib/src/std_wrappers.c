/* Wrappers for the C++ standard library's synchronization (mutator/src/api.rs, the
 * `std` rows): std::mutex and its relatives, the lock guards, std::condition_variable
 * and std::thread::join. Same contract as the pthread wrappers: syncmut_<name>(site,
 * original arguments...), the object pointer first for member functions.
 *
 * libstdc++ builds every one of these on a pthread object, so each wrapper finds that
 * object in the standard type's layout and calls the pthread wrapper with its own site:
 * the operators, the trace event and the controlled scheduler's model are the pthread
 * ones. The layouts (libstdc++ 11 to 14 with the POSIX thread model):
 *
 *   std::mutex, std::recursive_mutex, std::timed_mutex   pthread_mutex_t at offset 0
 *   std::shared_mutex                                     pthread_rwlock_t at offset 0
 *   std::condition_variable                               pthread_cond_t at offset 0
 *   std::lock_guard<M>, std::scoped_lock<M>               M *  (the reference member)
 *   std::unique_lock<M>, std::shared_lock<M>              M *, bool owns
 *   std::thread                                           pthread_t
 *
 * A guard's construction and destruction are sites of their own; `remove` on a guard is
 * one mutant activated at both (the mutator lists the destructor calls among its sites),
 * so neither the lock nor the unlock of that guard happens. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "activation.h"
#include "pthread_wrappers.h"

/* std::unique_lock<M> and std::shared_lock<M>. */
struct owning_lock {
    void *device;
    bool owns;
};

/* Whether the active mutant removes this site's call (then a guard's ownership flag
 * stays as it was: the call did not happen). */
static bool removed(uint32_t site)
{
    return syncmut_op_active(site) == SYNCMUT_REMOVE;
}

/* ---- the mutexes: exclusive (pthread mutex or the rwlock's write side) and shared ---- */

enum lock_kind { MUTEX, WRITER, READER };

static void acquire(uint32_t site, enum lock_kind kind, void *device)
{
    switch (kind) {
    case MUTEX:
        (void)syncmut_pthread_mutex_lock(site, device);
        break;
    case WRITER:
        (void)syncmut_pthread_rwlock_wrlock(site, device);
        break;
    case READER:
        (void)syncmut_pthread_rwlock_rdlock(site, device);
        break;
    }
}

static void release(uint32_t site, enum lock_kind kind, void *device)
{
    if (kind == MUTEX)
        (void)syncmut_pthread_mutex_unlock(site, device);
    else
        (void)syncmut_pthread_rwlock_unlock(site, device);
}

void syncmut_std_mutex_lock(uint32_t site, pthread_mutex_t *m) { acquire(site, MUTEX, m); }
void syncmut_std_mutex_unlock(uint32_t site, pthread_mutex_t *m) { release(site, MUTEX, m); }
bool syncmut_std_mutex_try_lock(uint32_t site, pthread_mutex_t *m)
{
    return syncmut_pthread_mutex_trylock(site, m) == 0;
}
void syncmut_std_shared_mutex_lock(uint32_t site, pthread_rwlock_t *l) { acquire(site, WRITER, l); }
void syncmut_std_shared_mutex_lock_shared(uint32_t site, pthread_rwlock_t *l) { acquire(site, READER, l); }
void syncmut_std_shared_mutex_unlock(uint32_t site, pthread_rwlock_t *l) { release(site, WRITER, l); }

/* ---- guards --------------------------------------------------------------------------- */

/* lock_guard<M>(M&) and scoped_lock<M>(M&): remember the mutex, lock it. Every guard
 * wrapper leaves the guard alone when its call is absent (syncmut_call_absent): a moving
 * operator's copy (swap-lock-order on two guards takes each guard with the other's
 * mutex) then holds the guard's state. */
static void guard(uint32_t site, enum lock_kind kind, void **self, void *device)
{
    if (syncmut_call_absent(site))
        return;
    *self = device;
    acquire(site, kind, device);
}

void syncmut_std_lock_guard(uint32_t site, void **self, pthread_mutex_t *m) { guard(site, MUTEX, self, m); }
void syncmut_std_lock_guard_shared_mutex(uint32_t site, void **self, pthread_rwlock_t *l) { guard(site, WRITER, self, l); }
/* Their destructors: unlock what the constructor locked. */
void syncmut_std_lock_guard_release(uint32_t site, void **self) { release(site, MUTEX, *self); }
void syncmut_std_lock_guard_shared_mutex_release(uint32_t site, void **self) { release(site, WRITER, *self); }

/* unique_lock<M>(M&), shared_lock<M>(M&): lock and own. Removed, the guard still says it
 * owns the mutex, as the design believes; its destructor's unlock is part of the same
 * mutant and is removed too. */
static void own(uint32_t site, enum lock_kind kind, struct owning_lock *self, void *device)
{
    if (syncmut_call_absent(site))
        return;
    self->device = device;
    self->owns = false;
    acquire(site, kind, device);
    self->owns = true;
}

static void own_lock(uint32_t site, enum lock_kind kind, struct owning_lock *self)
{
    if (syncmut_call_absent(site))
        return;
    acquire(site, kind, self->device);
    if (!removed(site))
        self->owns = true;
}

static void own_unlock(uint32_t site, enum lock_kind kind, struct owning_lock *self)
{
    if (syncmut_call_absent(site) || !self->owns || self->device == NULL)
        return; /* libstdc++ throws here; the design's own misuse, not a mutant's */
    release(site, kind, self->device);
    if (!removed(site))
        self->owns = false;
}

/* The destructor: unlock if owned. */
static void disown(uint32_t site, enum lock_kind kind, struct owning_lock *self)
{
    if (syncmut_call_absent(site))
        return;
    if (self->owns && self->device != NULL)
        release(site, kind, self->device);
}

#define OWNING_LOCK(name, kind, object)                                                       \
    void syncmut_std_##name(uint32_t site, struct owning_lock *self, object *device)         \
    {                                                                                         \
        own(site, kind, self, device);                                                        \
    }                                                                                         \
    void syncmut_std_##name##_lock(uint32_t site, struct owning_lock *self)                   \
    {                                                                                         \
        own_lock(site, kind, self);                                                           \
    }                                                                                         \
    void syncmut_std_##name##_unlock(uint32_t site, struct owning_lock *self)                 \
    {                                                                                         \
        own_unlock(site, kind, self);                                                         \
    }                                                                                         \
    void syncmut_std_##name##_release(uint32_t site, struct owning_lock *self)                \
    {                                                                                         \
        disown(site, kind, self);                                                             \
    }

OWNING_LOCK(unique_lock, MUTEX, pthread_mutex_t)
OWNING_LOCK(unique_lock_shared_mutex, WRITER, pthread_rwlock_t)
OWNING_LOCK(shared_lock, READER, pthread_rwlock_t)

/* ---- std::condition_variable ---------------------------------------------------------- */

void syncmut_std_condition_variable_wait(uint32_t site, pthread_cond_t *c, struct owning_lock *lock)
{
    (void)syncmut_pthread_cond_wait(site, c, lock->device);
}

void syncmut_std_condition_variable_notify_one(uint32_t site, pthread_cond_t *c)
{
    (void)syncmut_pthread_cond_signal(site, c);
}

void syncmut_std_condition_variable_notify_all(uint32_t site, pthread_cond_t *c)
{
    (void)syncmut_pthread_cond_broadcast(site, c);
}

/* ---- std::thread ---------------------------------------------------------------------- */

/* join(): wait for the thread, then it is no longer joinable. Removed, it stays joinable,
 * so its destructor calls std::terminate as the C++ program without the join would. */
void syncmut_std_thread_join(uint32_t site, pthread_t *self)
{
    (void)syncmut_pthread_join(site, *self, NULL);
    if (!removed(site))
        *self = 0;
}
