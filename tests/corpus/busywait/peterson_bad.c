/* Peterson with the two writes of the entry protocol swapped: a thread gives the turn away before it raises its flag, so both can pass the wait. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

int flag1 = 0, flag2 = 0;
int turn;
int x;

void *thr1(void *_)
{
    turn = 1;
    flag1 = 1;
    while (flag2 == 1 && turn == 1) {};
    // begin: critical section
    x = 0;
    if (!(x <= 0)) ERROR: { reach_error(); abort(); }
    // end: critical section
    flag1 = 0;
    return 0;
}

void *thr2(void *_)
{
    turn = 0;
    flag2 = 1;
    while (flag1 == 1 && turn == 0) {};
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
