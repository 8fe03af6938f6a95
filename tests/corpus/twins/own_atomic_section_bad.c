/* The program defines __VERIFIER_atomic_begin/end itself, empty, but the check of the
 * balance is outside the section: two withdrawals can both pass it. */
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
    if (balance >= 40) {
        __VERIFIER_atomic_begin();
        balance = balance - 40;
        withdrawn = withdrawn + 40;
        __VERIFIER_atomic_end();
    }
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
