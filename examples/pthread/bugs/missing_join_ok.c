/* CORRECT twin of missing_join.c: main joins the worker before reading its result.
 * Expected: no bug. */
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
  pthread_join(w, NULL);
  pthread_mutex_lock(&m);
  int seen = result;
  pthread_mutex_unlock(&m);
  assert(seen == 42);
  printf("result %d\n", seen);
  return 0;
}
