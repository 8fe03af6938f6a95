/* Lamport's bakery without the `choosing` flags: a thread may compare its number with one
 * that another thread has computed but not yet published, and both enter. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

#define N 2

volatile int number[N];
int x;

void lock(int i)
{
    int max = 0;
    for (int j = 0; j < N; j++)
        if (number[j] > max)
            max = number[j];
    number[i] = max + 1;
    for (int j = 0; j < N; j++) {
        while (number[j] != 0 && (number[j] < number[i] || (number[j] == number[i] && j < i))) {}
    }
}

void unlock(int i)
{
    number[i] = 0;
}

void *thr(void *arg)
{
    int i = (int)(long)arg;
    for (int round = 0; round < 2; round++) {
        lock(i);
        x = i;
        if (x != i) ERROR: { reach_error(); abort(); }
        unlock(i);
    }
    return 0;
}

int main()
{
    pthread_t t[N];
    for (long i = 0; i < N; i++)
        pthread_create(&t[i], 0, thr, (void *)i);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], 0);
    return 0;
}
