/* CORRECT twin of order_violation.c: the configuration is published before the worker
 * starts. Expected: no bug. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

void reach_error(void) { assert(0); }

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int config; /* 0 until main publishes it */

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  if (config == 0)
    reach_error();
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t w;
  pthread_mutex_lock(&m);
  config = 42;
  pthread_mutex_unlock(&m);
  pthread_create(&w, NULL, worker, NULL);
  pthread_join(w, NULL);
  printf("config %d\n", config);
  return 0;
}
