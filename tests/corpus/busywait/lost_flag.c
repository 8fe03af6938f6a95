/* A consumer spins on `ready`, but the producer publishes `ready_flag` (a renamed field
 * left behind): the flag the consumer reads is never set, under any schedule. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

int data;
int ready, ready_flag;

void *producer(void *_)
{
    data = 42;
    ready_flag = 1;
    return 0;
}

void *consumer(void *_)
{
    while (!ready) {};
    if (data != 42) ERROR: { reach_error(); abort(); }
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
