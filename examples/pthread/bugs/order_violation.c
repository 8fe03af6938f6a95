/* BUG: order violation (use before init). main starts the worker and only then
 * publishes the configuration; the worker may read it first. SV-COMP style check:
 * reach_error(). Expected: assertion failure. Twin: order_violation_ok.c. */
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
  pthread_create(&w, NULL, worker, NULL);
  pthread_mutex_lock(&m);
  config = 42;
  pthread_mutex_unlock(&m);
  pthread_join(w, NULL);
  printf("config %d\n", config);
  return 0;
}
