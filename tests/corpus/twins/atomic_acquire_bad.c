/* A lock whose acquire is not an atomic function: the test of m and the write of m are
 * two steps, so two threads can both see m == 0 and enter. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }
extern void __VERIFIER_assume(int);

#include <pthread.h>

int m = 0;
int critical = 0;

void acquire()
{
    __VERIFIER_assume(m == 0);
    m = 1;
}

void __VERIFIER_atomic_release()
{
    m = 0;
}

void *thr(void *arg)
{
    acquire();
    critical++;
    if (critical != 1) ERROR: { reach_error(); abort(); }
    critical--;
    __VERIFIER_atomic_release();
    return 0;
}

int main()
{
    pthread_t t1, t2, t3;
    pthread_create(&t1, 0, thr, 0);
    pthread_create(&t2, 0, thr, 0);
    pthread_create(&t3, 0, thr, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    pthread_join(t3, 0);
    return 0;
}
