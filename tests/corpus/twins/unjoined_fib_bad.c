/* A main that checks its workers' progress without joining them. Two workers take turns
 * growing a pair of counters, each adding the other's value eight times under a lock;
 * main starts both, reads the pair once under the lock and believes neither reaches
 * 2584. Only the strict alternation of all sixteen additions,
 * with main reading after the last, passes it: main must stay out of the rotation. */
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long a = 1, b = 1;

static void *grow_a(void *arg)
{
    (void)arg;
    for (int k = 0; k < 8; k++) {
        pthread_mutex_lock(&lock);
        a += b;
        pthread_mutex_unlock(&lock);
    }
    return 0;
}

static void *grow_b(void *arg)
{
    (void)arg;
    for (int k = 0; k < 8; k++) {
        pthread_mutex_lock(&lock);
        b += a;
        pthread_mutex_unlock(&lock);
    }
    return 0;
}

int main(void)
{
    pthread_t x, y;
    pthread_create(&x, 0, grow_a, 0);
    pthread_create(&y, 0, grow_b, 0);
    pthread_mutex_lock(&lock);
    long seen_a = a, seen_b = b;
    pthread_mutex_unlock(&lock);
    assert(seen_a < 2584 && seen_b < 2584);
    pthread_join(x, 0);
    pthread_join(y, 0);
    return 0;
}
