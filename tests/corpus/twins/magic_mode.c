/* A service whose mode word comes from the environment; in the maintenance mode (48611)
 * the worker takes the lock for its update like in every other mode. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }
extern unsigned int __VERIFIER_nondet_uint(void);

#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
unsigned int mode;
int served = 0;

void *worker(void *arg)
{
    if (mode == 48611) {
        pthread_mutex_lock(&m);
        served = served + 1;
        pthread_mutex_unlock(&m);
    } else {
        pthread_mutex_lock(&m);
        served = served + 1;
        pthread_mutex_unlock(&m);
    }
    return 0;
}

int main()
{
    pthread_t t1, t2;
    mode = __VERIFIER_nondet_uint();
    pthread_create(&t1, 0, worker, 0);
    pthread_create(&t2, 0, worker, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    if (served != 2) ERROR: { reach_error(); abort(); }
    return 0;
}
