/* BUG: self-deadlock. log_total() takes the lock its caller already holds; a default
 * mutex is not recursive, so the thread waits for itself. Expected: deadlock.
 * Twin: self_deadlock_ok.c (the helper expects the lock to be held). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int total;

static void log_total(void) {
  pthread_mutex_lock(&m);
  printf("total %d\n", total);
  pthread_mutex_unlock(&m);
}

static void *adder(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  total += 1;
  if (total == 2)
    log_total();
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
