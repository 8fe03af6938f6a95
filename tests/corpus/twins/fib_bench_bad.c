/* After SV-COMP's fib_bench: two threads add each other's counter five times each, and
 * main believes 144 is never reached. The strict alternation of all ten additions
 * reaches it: a bug that needs about ten context switches in a row. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

int i = 1, j = 1;

#define NUM 5

void *t1(void *arg)
{
    int k = 0;
    for (k = 0; k < NUM; k++)
        i += j;
    pthread_exit(0);
}

void *t2(void *arg)
{
    int k = 0;
    for (k = 0; k < NUM; k++)
        j += i;
    pthread_exit(0);
}

int main(int argc, char **argv)
{
    pthread_t id1, id2;
    pthread_create(&id1, 0, t1, 0);
    pthread_create(&id2, 0, t2, 0);
    pthread_join(id1, 0);
    pthread_join(id2, 0);
    if (i >= 144 || j >= 144) ERROR: { reach_error(); abort(); }
    return 0;
}
