/* A stencil computation in phases: N threads (argv[1]) meet at a barrier after every
 * phase; the thread that gets PTHREAD_BARRIER_SERIAL_THREAD swaps the buffers under a
 * mutex. The number of phases is argv[2]. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 4
static pthread_barrier_t bar;
static pthread_mutex_t swap_lock = PTHREAD_MUTEX_INITIALIZER;
static int nthreads, phases, swaps;
static double a[MAXT], b[MAXT];
static double *cur = a, *nxt = b;

static void *stencil(void *arg) {
  long id = (long)arg;
  for (int p = 0; p < phases; p++) {
    nxt[id] = (cur[id] + cur[(id + 1) % nthreads]) / 2;
    int r = pthread_barrier_wait(&bar);
    if (r == PTHREAD_BARRIER_SERIAL_THREAD) {
      pthread_mutex_lock(&swap_lock);
      double *t = cur; cur = nxt; nxt = t;
      swaps++;
      pthread_mutex_unlock(&swap_lock);
    }
    pthread_barrier_wait(&bar);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  nthreads = atoi(argv[1]);
  phases = atoi(argv[2]);
  if (nthreads < 1 || nthreads > MAXT || phases < 0 || phases > 3) return 1;
  for (int i = 0; i < MAXT; i++) a[i] = i;
  pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
  pthread_t t[MAXT];
  for (long i = 0; i < nthreads; i++) pthread_create(&t[i], NULL, stencil, (void *)i);
  for (int i = 0; i < nthreads; i++) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&bar);
  printf("swaps %d\n", swaps);
  return 0;
}
