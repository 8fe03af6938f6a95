/* The program defines __VERIFIER_atomic_begin/end itself, empty, for tools that know the
 * convention; the section between them still means "no other thread runs here". */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

void __VERIFIER_atomic_begin() { }
void __VERIFIER_atomic_end() { }

#define N 3
int balance = 100;
int withdrawn = 0;

void *withdraw(void *arg)
{
    __VERIFIER_atomic_begin();
    if (balance >= 40) {
        balance = balance - 40;
        withdrawn = withdrawn + 40;
    }
    __VERIFIER_atomic_end();
    return 0;
}

int main()
{
    pthread_t t[N];
    int i;
    for (i = 0; i < N; i++)
        pthread_create(&t[i], 0, withdraw, 0);
    for (i = 0; i < N; i++)
        pthread_join(t[i], 0);
    if (balance < 0 || balance + withdrawn != 100) ERROR: { reach_error(); abort(); }
    return 0;
}
