/* After SV-COMP's unbounded-thread benchmarks: main starts workers in an endless loop,
 * never joining them. Each worker reads the counter and writes it back incremented in
 * two critical sections, then checks it only grew by one: another worker in between
 * breaks that. */
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
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    count = before + 1;
    after = count;
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m);
    if (count != after) ERROR: { pthread_mutex_unlock(&m); reach_error(); abort(); }
    pthread_mutex_unlock(&m);
    return 0;
}

int main()
{
    pthread_t t;
    while (1)
        pthread_create(&t, 0, thr, 0);
    return 0;
}
