/* The producer raises `ready` before it fills the record: the consumer, busy-waiting on
 * the flag, can take the mutex first and read an empty record. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int data;
volatile int ready;

void *producer(void *_)
{
    ready = 1;
    pthread_mutex_lock(&m);
    data = 42;
    pthread_mutex_unlock(&m);
    return 0;
}

void *consumer(void *_)
{
    while (!ready) {};
    pthread_mutex_lock(&m);
    if (data != 42) ERROR: { reach_error(); abort(); }
    pthread_mutex_unlock(&m);
    return 0;
}

int main()
{
    pthread_t p, c;
    pthread_create(&c, 0, consumer, 0);
    pthread_create(&p, 0, producer, 0);
    pthread_join(p, 0);
    pthread_join(c, 0);
    return 0;
}
