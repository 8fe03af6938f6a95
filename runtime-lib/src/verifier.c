/* The SV-COMP conventions a concurrent benchmark program may call, so such programs run
 * unmodified: __VERIFIER_assume, __VERIFIER_atomic_begin/end, __VERIFIER_error.
 *
 * All are weak: a program that defines its own wins. The scheduler's functions are weak
 * references, so this object links on its own: the `original` build (no runtime) gets
 * it from the same archive without pulling in the scheduler, the trace or the wrappers,
 * and then behaves natively (see each function).
 *
 * A failed assumption ends the run with SYNCMUT_STATUS_ASSUME (syncmut_protocol.h): the
 * schedule or input it took is outside what the program's author considers possible, which
 * is not a bug. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scheduler.h"
#include "syncmut_protocol.h"

#pragma weak syncmut_sched_controls_me
#pragma weak syncmut_sched_atomic_begin
#pragma weak syncmut_sched_atomic_end
#pragma weak syncmut_sched_assume_failed

static int scheduled(void)
{
    return syncmut_sched_controls_me != NULL && syncmut_sched_controls_me();
}

/* Natively, atomic sections exclude each other (one recursive lock): the closest a real
 * execution comes to "no other thread runs in between". */
static pthread_mutex_t native_atomic = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static _Thread_local unsigned native_depth;

__attribute__((weak)) void __VERIFIER_assume(int condition)
{
    if (condition)
        return;
    if (scheduled()) {
        static const char msg[] = "syncmut runtime: __VERIFIER_assume failed: run ended with exit status 123 (not a bug)\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        syncmut_sched_assume_failed();
    }
    /* exit, not _exit: the design's buffered output and the trace are written, as at a
     * normal end. Under the scheduler no other thread runs meanwhile. */
    exit(SYNCMUT_STATUS_ASSUME);
}

/* An atomic section, also entered by the mutator's calls in `__VERIFIER_atomic_*`
 * functions and in a program's own __VERIFIER_atomic_begin/end (these names are not
 * weak, so a program's definitions cannot replace them). */
void syncmut_atomic_section_begin(void)
{
    if (scheduled()) {
        syncmut_sched_atomic_begin();
        return;
    }
    pthread_mutex_lock(&native_atomic);
    native_depth++;
}

void syncmut_atomic_section_end(void)
{
    if (scheduled()) {
        syncmut_sched_atomic_end();
        return;
    }
    if (native_depth > 0) {
        native_depth--;
        pthread_mutex_unlock(&native_atomic);
    }
}

__attribute__((weak)) void __VERIFIER_atomic_begin(void)
{
    syncmut_atomic_section_begin();
}

__attribute__((weak)) void __VERIFIER_atomic_end(void)
{
    syncmut_atomic_section_end();
}

/* The older SV-COMP error call: an assertion failure (SIGABRT, like reach_error). */
__attribute__((weak, noreturn)) void __VERIFIER_error(void)
{
    static const char msg[] = "__VERIFIER_error: assertion failure (error location reached)\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    abort();
}

/* Called by the metamutant before every call of reach_error() or __VERIFIER_error()
 * (mutator/src/error_calls.rs): SV-COMP's error location is the call, whatever the
 * function's body does, and a violation witness names where it is. One write(2), so the
 * line is whole even when the body then aborts. */
void syncmut_error_call(const char *where)
{
    char line[512];
    static const char head[] = "syncmut runtime: error function called at ";
    size_t n = sizeof head - 1;
    memcpy(line, head, n);
    size_t len = strlen(where);
    if (len > sizeof line - n - 1)
        len = sizeof line - n - 1;
    memcpy(line + n, where, len);
    n += len;
    line[n++] = '\n';
    ssize_t ignored = write(2, line, n);
    (void)ignored;
}
