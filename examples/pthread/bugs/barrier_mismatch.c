/* BUG: barrier count mismatch. The barrier expects 3 threads but only 2 workers use it.
 * Expected: deadlock. Twin: barrier_mismatch_ok.c. */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 2
static pthread_barrier_t phase;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int done;

static void *worker(void *arg) {
  (void)arg;
  pthread_barrier_wait(&phase);
  pthread_mutex_lock(&m);
  done++;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_barrier_init(&phase, NULL, WORKERS + 1);
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < WORKERS; i++)
    pthread_join(t[i], NULL);
  printf("done %d\n", done);
  return 0;
}
