/* Lamport's bakery algorithm, two threads, each entering its critical section twice. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

#define N 2

volatile int choosing[N];
volatile int number[N];
int x;

void lock(int i)
{
    choosing[i] = 1;
    int max = 0;
    for (int j = 0; j < N; j++)
        if (number[j] > max)
            max = number[j];
    number[i] = max + 1;
    choosing[i] = 0;
    for (int j = 0; j < N; j++) {
        while (choosing[j]) {}
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
