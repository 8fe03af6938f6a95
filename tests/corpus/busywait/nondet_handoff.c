/* A worker hands a request code to main through a flag it busy-waits on; the request code
 * comes from the environment (__VERIFIER_nondet_int). Code 7 makes main reuse the slot
 * while the worker still reads it: an error reachable only with that one value. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }
extern int __VERIFIER_nondet_int(void);

#include <pthread.h>

int slot;
volatile int posted, taken;

void *worker(void *_)
{
    slot = __VERIFIER_nondet_int();
    posted = 1;
    while (!taken) {};
    int mine = slot;
    if (mine != slot) ERROR: { reach_error(); abort(); }
    return 0;
}

int main()
{
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    while (!posted) {};
    int code = slot;
    taken = 1;
    if (code == 7)
        slot = 0; /* recycled too early: the worker has not finished with it */
    pthread_join(t, 0);
    return 0;
}
