/* SV-COMP's atomic sections, so concurrency benchmarks that use them link and run
 * unmodified: __VERIFIER_atomic_begin()/__VERIFIER_atomic_end() hold one process-wide
 * recursive mutex. Under the controlled pthread scheduler only one thread runs between
 * scheduling points anyway (the mutex is then never contended unless the section makes
 * a blocking synchronization call, which SV-COMP forbids); in free-running builds (the
 * original) the mutex gives the atomicity. Self-contained like inputs.c, so the
 * original links only this member. */
#define _GNU_SOURCE
#include <pthread.h>

static pthread_mutex_t atomic_section = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void __VERIFIER_atomic_begin(void) {
    pthread_mutex_lock(&atomic_section);
}

void __VERIFIER_atomic_end(void) {
    pthread_mutex_unlock(&atomic_section);
}
