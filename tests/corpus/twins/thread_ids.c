/* Threads started in a loop each mark their own slot of an array; each gets a pointer to
 * its own id, kept in an array that outlives the loop. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

#define N 4
int slots[N];

void *mark(void *arg)
{
    int id = *(int *)arg;
    slots[id] = 1;
    return 0;
}

int main()
{
    pthread_t t[N];
    int ids[N];
    int i, sum = 0;
    for (i = 0; i < N; i++) {
        ids[i] = i;
        pthread_create(&t[i], 0, mark, &ids[i]);
    }
    for (i = 0; i < N; i++)
        pthread_join(t[i], 0);
    for (i = 0; i < N; i++)
        sum += slots[i];
    if (sum != N) ERROR: { reach_error(); abort(); }
    return 0;
}
