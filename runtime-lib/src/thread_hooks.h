/* The thread hooks (thread_hooks.c) that std_thread.c's pthread_create goes through. */
#ifndef SYNCMUT_THREAD_HOOKS_H
#define SYNCMUT_THREAD_HOOKS_H

#include <pthread.h>

int syncmut_hook_pthread_create(const char *start_name, pthread_t *thread, const pthread_attr_t *attr,
                                void *(*start)(void *), void *arg);
/* Whether the calling thread is inside a hook that is creating a thread. */
int syncmut_hook_creating(void);

#endif
