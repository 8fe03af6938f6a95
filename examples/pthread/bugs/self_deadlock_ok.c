/* CORRECT twin of self_deadlock.c: the helper is called with the lock held and does not
 * take it again. Expected: no bug. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void log_total_locked(void) { printf("total %d\n", total); }

static void *adder(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  total += 1;
  if (total == 2)
    log_total_locked();
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t x, y;
  pthread_create(&x, NULL, adder, NULL);
  pthread_create(&y, NULL, adder, NULL);
  pthread_join(x, NULL);
  pthread_join(y, NULL);
  return 0;
}
