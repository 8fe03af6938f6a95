/* After SV-COMP's stack benchmarks: a producer pushes two items onto a stack, two
 * consumers pop one each, all under one mutex. A consumer checks for an item in one critical
 * section and pops it in the next: two consumers can both see the one item pushed so far
 * and the second pops an empty stack. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

#define SIZE 2
#define OVERFLOW (-1)
#define UNDERFLOW (-2)

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int top = 0;
int arr[SIZE];

int push(int x)
{
    if (top == SIZE)
        return OVERFLOW;
    arr[top++] = x;
    return 0;
}

int pop(void)
{
    if (top == 0)
        return UNDERFLOW;
    return arr[--top];
}

void *producer(void *arg)
{
    int i;
    for (i = 0; i < SIZE; i++) {
        pthread_mutex_lock(&m);
        if (push(i) == OVERFLOW) ERROR: { reach_error(); abort(); }
        pthread_mutex_unlock(&m);
    }
    return 0;
}

void *consumer(void *arg)
{
    int done = 0;
    while (!done) {
        int empty;
        pthread_mutex_lock(&m);
        empty = top == 0;
        pthread_mutex_unlock(&m);
        if (!empty) {
            pthread_mutex_lock(&m);
            if (pop() == UNDERFLOW) { reach_error(); abort(); }
            pthread_mutex_unlock(&m);
            done = 1;
        }
    }
    return 0;
}

int main()
{
    pthread_t p, c1, c2;
    pthread_create(&p, 0, producer, 0);
    pthread_create(&c1, 0, consumer, 0);
    pthread_create(&c2, 0, consumer, 0);
    pthread_join(p, 0);
    pthread_join(c1, 0);
    pthread_join(c2, 0);
    return 0;
}
