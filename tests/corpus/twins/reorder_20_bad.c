/* After SV-COMP's reorder benchmarks: 10 setter threads write a then b, 10 checker
 * threads read both. A checker that runs between a setter's two writes sees a == 1 and
 * b == 0. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

#define SET 10
#define CHECK 10

static int a = 0;
static int b = 0;

void *setThread(void *param)
{
    a = 1;
    b = -1;
    return 0;
}

void *checkThread(void *param)
{
    int ra = a, rb = b;
    if (!((ra == 0 && rb == 0) || (ra == 1 && rb == -1))) ERROR: { reach_error(); abort(); }
    return 0;
}

int main(int argc, char *argv[])
{
    pthread_t setPool[SET], checkPool[CHECK];
    int i;
    for (i = 0; i < SET; i++)
        pthread_create(&setPool[i], 0, setThread, 0);
    for (i = 0; i < CHECK; i++)
        pthread_create(&checkPool[i], 0, checkThread, 0);
    for (i = 0; i < SET; i++)
        pthread_join(setPool[i], 0);
    for (i = 0; i < CHECK; i++)
        pthread_join(checkPool[i], 0);
    return 0;
}
