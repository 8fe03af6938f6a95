/* A writer publishes a job's three phases under a mutex, one critical section for all
 * three; a monitor polls three times and counts the phases it saw one by one. It can see
 * the job before it started or after it ended, never in between. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int phase = 0;

void *writer(void *arg)
{
    int k;
    pthread_mutex_lock(&m);
    for (k = 1; k <= 3; k++)
        phase = k;
    pthread_mutex_unlock(&m);
    return 0;
}

void *monitor(void *arg)
{
    int k, seen = 0;
    for (k = 0; k < 3; k++) {
        pthread_mutex_lock(&m);
        if (phase == seen + 1)
            seen = phase;
        pthread_mutex_unlock(&m);
    }
    if (seen == 3) ERROR: { reach_error(); abort(); }
    return 0;
}

int main()
{
    pthread_t w, r;
    pthread_create(&w, 0, writer, 0);
    pthread_create(&r, 0, monitor, 0);
    pthread_join(w, 0);
    pthread_join(r, 0);
    return 0;
}
