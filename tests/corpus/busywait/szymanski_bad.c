/* Szymanski's protocol without the second thread's wait for the lower id once the door
 * is closed: both threads can reach flag 4 together and both enter. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

int flag1 = 0, flag2 = 0;
int x;

void *thr1(void *_)
{
    flag1 = 1;
    while (flag2 >= 3);
    flag1 = 3;
    if (flag2 == 1) {
        flag1 = 2;
        while (flag2 != 4);
    }
    flag1 = 4;
    // no thread with a lower id to wait for
    // begin: critical section
    x = 0;
    if (!(x <= 0)) ERROR: { reach_error(); abort(); }
    // end: critical section
    while (2 <= flag2 && flag2 <= 3);
    flag1 = 0;
    return 0;
}

void *thr2(void *_)
{
    flag2 = 1;
    while (flag1 >= 3);
    flag2 = 3;
    if (flag1 == 1) {
        flag2 = 2;
        while (flag1 != 4);
    }
    flag2 = 4;
    // begin: critical section
    x = 1;
    if (!(x >= 1)) ERROR: { reach_error(); abort(); }
    // end: critical section
    flag2 = 0;
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
