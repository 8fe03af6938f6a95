/* Dekker's mutual exclusion for two threads (after the SV-COMP pthread benchmark). */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

int flag1 = 0, flag2 = 0; /* boolean flags */
int turn = 0;             /* integer variable to hold the ID of the thread whose turn is it */
int x;                    /* variable to test mutual exclusion */

void *thr1(void *_)
{
    flag1 = 1;
    while (flag2 >= 1) {
        if (turn != 0) {
            flag1 = 0;
            while (turn != 0) {};
            flag1 = 1;
        }
    }
    // begin: critical section
    x = 0;
    if (!(x <= 0)) ERROR: { reach_error(); abort(); }
    // end: critical section
    turn = 1;
    flag1 = 0;
    return 0;
}

void *thr2(void *_)
{
    flag2 = 1;
    while (flag1 >= 1) {
        if (turn != 1) {
            flag2 = 0;
            while (turn != 1) {};
            flag2 = 1;
        }
    }
    // begin: critical section
    x = 1;
    if (!(x >= 1)) ERROR: { reach_error(); abort(); }
    // end: critical section
    turn = 0;
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
