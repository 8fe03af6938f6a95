/* After SV-COMP's triangular benchmarks: two threads set i = j + 1 and j = i + 1 five
 * times each, and main believes neither reaches 16. Strict alternation of all ten
 * assignments reaches it: a bug that needs about ten context switches in a row. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

int i = 3, j = 6;

#define NUM 5
#define LIMIT (2 * NUM + 6)

void *t1(void *arg)
{
    for (int k = 0; k < NUM; k++)
        i = j + 1;
    pthread_exit(0);
}

void *t2(void *arg)
{
    for (int k = 0; k < NUM; k++)
        j = i + 1;
    pthread_exit(0);
}

int main(int argc, char **argv)
{
    pthread_t id1, id2;
    pthread_create(&id1, 0, t1, 0);
    pthread_create(&id2, 0, t2, 0);
    pthread_join(id1, 0);
    pthread_join(id2, 0);
    if (i >= LIMIT || j >= LIMIT) ERROR: { reach_error(); abort(); }
    return 0;
}
