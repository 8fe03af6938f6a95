/* C89/GNU-era source: `inline` on a non-static function with no external definition
 * anywhere. Under GNU89 inline semantics (gcc's default before C99) that definition is
 * the external one; under C99 it is inline-only and an -O0 build does not link. */
extern void abort(void);
#include <assert.h>
void reach_error() { assert(0); }

#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int tickets = 0;

inline int take_ticket(void)
{
    int t;
    pthread_mutex_lock(&m);
    t = tickets;
    tickets = t + 1;
    pthread_mutex_unlock(&m);
    return t;
}

void *customer(void *arg)
{
    take_ticket();
    return 0;
}

int main()
{
    pthread_t a, b;
    pthread_create(&a, 0, customer, 0);
    pthread_create(&b, 0, customer, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    if (tickets != 2) ERROR: { reach_error(); abort(); }
    return 0;
}
