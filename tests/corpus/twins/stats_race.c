/* Worker threads count hits under a mutex; a reporter reads the count under the same
 * mutex. No two accesses to `hits` are unordered. */
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int hits = 0;

void *worker(void *arg)
{
    int k;
    for (k = 0; k < 2; k++) {
        pthread_mutex_lock(&lock);
        hits = hits + 1;
        pthread_mutex_unlock(&lock);
    }
    return 0;
}

void *reporter(void *arg)
{
    int seen;
    pthread_mutex_lock(&lock);
    seen = hits;
    pthread_mutex_unlock(&lock);
    if (seen > 4)
        printf("more hits than requests\n");
    return 0;
}

int main()
{
    pthread_t w1, w2, r;
    pthread_create(&w1, 0, worker, 0);
    pthread_create(&w2, 0, worker, 0);
    pthread_create(&r, 0, reporter, 0);
    pthread_join(w1, 0);
    pthread_join(w2, 0);
    pthread_join(r, 0);
    return 0;
}
