/* After SV-COMP's unbounded-thread benchmarks: main starts workers in an endless loop,
 * never joining them. Each worker bumps a counter under a mutex and checks it only grows.
 * No run ends by itself: the controlled scheduler stops it at its thread limit. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int count = 0;

void *thr(void *arg)
{
    int before, after;
    pthread_mutex_lock(&m);
    before = count;
    count = before + 1;
    after = count;
    pthread_mutex_unlock(&m);
    if (after != before + 1) ERROR: { reach_error(); abort(); }
    return 0;
}

int main()
{
    pthread_t t;
    while (1)
        pthread_create(&t, 0, thr, 0);
    return 0;
}
