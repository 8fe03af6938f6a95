/* Two threads that each wait for the other to finish first, and keep counting their
 * retries meanwhile: neither ever finishes, under every schedule (a livelock, not a
 * deadlock: both keep running and writing). */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

int done1 = 0, done2 = 0;
int retries1 = 0, retries2 = 0;

void *thr1(void *_)
{
    while (!done2)
        retries1++;
    done1 = 1;
    return 0;
}

void *thr2(void *_)
{
    while (!done1)
        retries2++;
    done2 = 1;
    return 0;
}

int main()
{
    pthread_t t1, t2;
    pthread_create(&t1, 0, thr1, 0);
    pthread_create(&t2, 0, thr2, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    return 0;
}
