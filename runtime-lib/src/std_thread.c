/* std::thread under the controlled scheduler.
 *
 * std::thread's constructor starts its thread inside libstdc++.so
 * (std::thread::_M_start_thread calls pthread_create there), out of reach of the
 * mutator, which rewrites only the design's own pthread_create calls. So this file
 * defines pthread_create in the executable: a symbol that a linked shared library uses
 * is exported by the executable and takes precedence over libc's, so libstdc++'s call
 * arrives here and goes through the same hook as the design's calls (thread_hooks.c),
 * with "std::thread" as the start routine's name. The mutator links this object into
 * pthread designs' executables (`syncmut_runtime::STD_THREAD_LINK_FLAG`).
 *
 * The runtime's own thread creation (the scheduler's, the hook's pass-through) calls
 * pthread_create too; the hook marks those calls (syncmut_hook_creating) and they go
 * straight to libc's function.
 *
 * pthread_join likewise: std::thread::join joins inside libstdc++.so, and a join the
 * design reaches only through a pointer (std::async's shared state joins its thread
 * through std::call_once(&std::thread::join, …)) is out of the rewrite's reach too. Such
 * a join arrives here and is a join of the scheduler, as a scheduling point without an
 * event of its own (SYNCMUT_SITE_INNER), instead of a real join that would block while
 * holding the scheduler's one turn. The runtime's own joins call libc's function
 * directly (syncmut_real_pthread_join). */
#define _GNU_SOURCE
#include <pthread.h>

#include "pthread_wrappers.h"
#include "scheduler.h"
#include "syncmut_protocol.h"
#include "thread_hooks.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* Referenced by the link flag so that the linker takes this object from the archive. */
const int syncmut_std_thread = 1;

static int real_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    static _Atomic(void *) real;
    return ((create_fn)syncmut_libc_function(&real, "pthread_create"))(thread, attr, start, arg);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                   void *arg)
{
    if (syncmut_hook_creating())
        return real_pthread_create(thread, attr, start, arg);
    return syncmut_hook_pthread_create("std::thread", thread, attr, start, arg);
}

int pthread_join(pthread_t thread, void **retval)
{
    return syncmut_pthread_join(SYNCMUT_SITE_INNER, thread, retval);
}
