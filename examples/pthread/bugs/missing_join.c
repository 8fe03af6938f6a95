/* BUG: missing join. main reads the worker's result without waiting for it to finish.
 * Expected: assertion failure. Twin: missing_join_ok.c. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int result;

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  result = 42;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t w;
  pthread_create(&w, NULL, worker, NULL);
  pthread_mutex_lock(&m);
  int seen = result;
  pthread_mutex_unlock(&m);
  assert(seen == 42);
  printf("result %d\n", seen);
  pthread_join(w, NULL);
  return 0;
}
