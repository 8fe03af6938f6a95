/* SV-COMP's other nondet types: a handle from __VERIFIER_nondet_pointer (compared, never
 * dereferenced), a load factor from __VERIFIER_nondet_float, a limit from
 * __VERIFIER_nondet_double, a byte from __VERIFIER_nondet_uchar and a flag from
 * __VERIFIER_nondet_bool. Every path updates the shared table under its lock. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }
extern void *__VERIFIER_nondet_pointer(void);
extern float __VERIFIER_nondet_float(void);
extern double __VERIFIER_nondet_double(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern _Bool __VERIFIER_nondet_bool(void);

#include <pthread.h>

pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
int entries = 0;
void *handle;

void insert(void)
{
    pthread_mutex_lock(&table_lock);
    entries = entries + 1;
    pthread_mutex_unlock(&table_lock);
}

void *client(void *arg)
{
    float load = __VERIFIER_nondet_float();
    double limit = __VERIFIER_nondet_double();
    unsigned char tag = __VERIFIER_nondet_uchar();
    if (__VERIFIER_nondet_bool() && load > limit)
        tag = 0;
    if (handle == 0 || tag == 0)
        insert(); /* the fast path: still locked */
    else
        insert();
    return 0;
}

int main()
{
    pthread_t t1, t2;
    handle = __VERIFIER_nondet_pointer();
    pthread_create(&t1, 0, client, 0);
    pthread_create(&t2, 0, client, 0);
    pthread_join(t1, 0);
    pthread_join(t2, 0);
    if (entries != 2) ERROR: { reach_error(); abort(); }
    return 0;
}
