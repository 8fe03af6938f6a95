/* After SV-COMP's twostage benchmarks: 99 writer threads each publish data1 and then,
 * from it, data2; one reader checks data2 == data1 + 1. The writers hold the first lock
 * across both stages, so the reader never sees a half-finished update. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

static int iTThreads = 99;
static int iRThreads = 1;
static int data1Value = 0;
static int data2Value = 0;
pthread_mutex_t *data1Lock;
pthread_mutex_t *data2Lock;

void lock(pthread_mutex_t *lock) { pthread_mutex_lock(lock); }
void unlock(pthread_mutex_t *lock) { pthread_mutex_unlock(lock); }

void *funcA(void *param)
{
    lock(data1Lock);
    data1Value = 1;
    lock(data2Lock);
    data2Value = data1Value + 1;
    unlock(data2Lock);
    unlock(data1Lock);
    return 0;
}

void *funcB(void *param)
{
    int t1 = -1;
    int t2 = -1;
    lock(data1Lock);
    if (data1Value == 0) {
        unlock(data1Lock);
        return 0;
    }
    t1 = data1Value;
    lock(data2Lock);
    t2 = data2Value;
    unlock(data2Lock);
    unlock(data1Lock);
    if (t2 != (t1 + 1)) ERROR: { reach_error(); abort(); }
    return 0;
}

pthread_mutex_t locks[2];

int main(int argc, char *argv[])
{
    int i, err;
    pthread_t tPool[99], rPool[1];
    data1Lock = &locks[0];
    data2Lock = &locks[1];
    pthread_mutex_init(data1Lock, 0);
    pthread_mutex_init(data2Lock, 0);
    for (i = 0; i < iTThreads; i++)
        if ((err = pthread_create(&tPool[i], 0, &funcA, 0)) != 0) return -1;
    for (i = 0; i < iRThreads; i++)
        if ((err = pthread_create(&rPool[i], 0, &funcB, 0)) != 0) return -1;
    for (i = 0; i < iTThreads; i++)
        pthread_join(tPool[i], 0);
    for (i = 0; i < iRThreads; i++)
        pthread_join(rPool[i], 0);
    return 0;
}
