/* After SV-COMP's reorder benchmarks: 10 setter threads write a then b, 10 checker
 * threads read both. The setters write and the checkers read in one atomic function
 * each, so a checker sees both writes or neither (a checker reading a and b apart could
 * see a == 0 and b == -1, a setter's atomic writes falling between its reads). */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

#define SET 10
#define CHECK 10

static int a = 0;
static int b = 0;

void __VERIFIER_atomic_set()
{
    a = 1;
    b = -1;
}

void *setThread(void *param)
{
    __VERIFIER_atomic_set();
    return 0;
}

void __VERIFIER_atomic_get(int *ra, int *rb)
{
    *ra = a;
    *rb = b;
}

void *checkThread(void *param)
{
    int ra, rb;
    __VERIFIER_atomic_get(&ra, &rb);
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
