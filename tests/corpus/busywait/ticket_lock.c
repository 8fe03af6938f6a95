/* Ticket spinlock on C11 atomics: two threads take a ticket with fetch-and-add and spin
 * until it is served; each checks it is alone inside the lock. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define THREADS 2

static atomic_uint next_ticket;
static atomic_uint now_serving;
static int inside; /* threads in the critical section */

static void ticket_lock(void)
{
    unsigned me = atomic_fetch_add_explicit(&next_ticket, 1, memory_order_relaxed);
    while (atomic_load_explicit(&now_serving, memory_order_acquire) != me)
        ;
}

static void ticket_unlock(void)
{
    unsigned next = atomic_load_explicit(&now_serving, memory_order_relaxed) + 1;
    atomic_store_explicit(&now_serving, next, memory_order_release);
}

static void *worker(void *arg)
{
    (void)arg;
    ticket_lock();
    inside++;
    assert(inside == 1);
    inside--;
    ticket_unlock();
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    return 0;
}
