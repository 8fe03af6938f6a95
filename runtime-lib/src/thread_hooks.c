/* Thread hooks: the mutator rewrites every pthread_create/pthread_exit call to these,
 * so the runtime sees each thread start and end (the controlled scheduler's entry
 * points). Without a scheduler they pass straight through. */
#define _GNU_SOURCE
#include <pthread.h>

int syncmut_hook_pthread_create(const char *start_name, pthread_t *thread, const pthread_attr_t *attr,
                                void *(*start)(void *), void *arg) {
    (void)start_name;
    return pthread_create(thread, attr, start, arg);
}

void syncmut_hook_pthread_exit(void *value) {
    pthread_exit(value);
}
