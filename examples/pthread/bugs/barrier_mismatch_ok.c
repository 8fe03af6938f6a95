/* CORRECT twin of barrier_mismatch.c: the count equals the number of threads that wait.
 * Expected: no bug. */
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
  pthread_barrier_init(&phase, NULL, WORKERS);
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < WORKERS; i++)
    pthread_join(t[i], NULL);
  printf("done %d\n", done);
  return 0;
}
