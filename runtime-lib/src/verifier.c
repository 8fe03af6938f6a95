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
#pragma weak syncmut_sched_atomic_acted
#pragma weak syncmut_sched_atomic_parkable
#pragma weak syncmut_sched_atomic_park
#pragma weak syncmut_sched_sleep

static int scheduled(void)
{
    return syncmut_sched_controls_me != NULL && syncmut_sched_controls_me();
}

/* Natively, atomic sections exclude each other (one recursive lock): the closest a real
 * execution comes to "no other thread runs in between". */
static pthread_mutex_t native_atomic = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static _Thread_local unsigned native_depth;

/* Before a path is discarded (a failed __VERIFIER_assume, and the mutator's call before
 * `abort()` in an SV-COMP program, mutator/src/atomic_functions.rs): a scheduling point
 * at which the thread dozes, so the others go first while any can. The discard is a step
 * of its own thread that changes nothing: a schedule that runs the others first, up to a
 * bug they reach, is one the program has; as the thread's last step it only cut every
 * run short. Inside an atomic section its owner runs on at once. */
void syncmut_discard_point(void)
{
    if (scheduled())
        syncmut_sched_sleep();
}

__attribute__((weak)) void __VERIFIER_assume(int condition)
{
    if (condition)
        return;
    syncmut_discard_point();
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

static void section_begin(int tracked)
{
    if (scheduled()) {
        syncmut_sched_atomic_begin(tracked);
        return;
    }
    pthread_mutex_lock(&native_atomic);
    native_depth++;
}

/* An atomic section, entered by the mutator's calls in a program's own
 * __VERIFIER_atomic_begin/end (these names are not weak, so a program's definitions
 * cannot replace them) and at the entry of `__VERIFIER_atomic_*` functions, whose
 * instrumentation also reports what the section does (mutator/src/atomic_functions.rs). */
void syncmut_atomic_section_begin(void)
{
    section_begin(0);
}

void syncmut_atomic_function_begin(void)
{
    section_begin(1);
}

/* Before an instruction of an atomic function that another thread could see (a store
 * to memory other than the function's own locals, a call). */
void syncmut_atomic_acted(void)
{
    if (scheduled())
        syncmut_sched_atomic_acted();
}

/* Before an atomic function's `abort()` (condition 0) or `__VERIFIER_assume(condition)`:
 * when the condition fails in a section that has done nothing visible, the thread is
 * parked there instead of the run ending (SV-COMP's blocking idiom `assume(m == 0); m =
 * 1;`), see syncmut_sched_atomic_park. Else the call that follows ends the run as before. */
void syncmut_atomic_park_unless(int condition)
{
    if (!condition && scheduled() && syncmut_sched_atomic_parkable())
        syncmut_sched_atomic_park();
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
