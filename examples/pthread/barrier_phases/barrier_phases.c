/* A barrier-phased computation: WORKERS threads repeatedly smooth a ring of values.
 * In each phase, worker i reads its two neighbours' values into next[i]; a barrier;
 * then it publishes next[i] into value[i]; a barrier. Reading a neighbour before it
 * published (or publishing before the neighbour read) gives a different result.
 * argv[1] = phases (default 3). Prints the values, exits 1 if they differ from a
 * sequential computation of the same phases. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 3

static pthread_barrier_t barrier;
static int value[WORKERS], next[WORKERS];
static int phases = 3;

static void *worker(void *arg) {
  int i = (int)(long)arg;
  for (int phase = 0; phase < phases; phase++) {
    next[i] = value[(i + WORKERS - 1) % WORKERS] + 2 * value[i] + value[(i + 1) % WORKERS];
    pthread_barrier_wait(&barrier); /* everybody has read the old values */
    value[i] = next[i];
    pthread_barrier_wait(&barrier); /* everybody has published the new values */
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    phases = atoi(argv[1]);
  int expected[WORKERS], scratch[WORKERS];
  for (int i = 0; i < WORKERS; i++)
    value[i] = expected[i] = i * i + 1;
  for (int phase = 0; phase < phases; phase++) {
    for (int i = 0; i < WORKERS; i++)
      scratch[i] = expected[(i + WORKERS - 1) % WORKERS] + 2 * expected[i] + expected[(i + 1) % WORKERS];
    for (int i = 0; i < WORKERS; i++)
      expected[i] = scratch[i];
  }

  pthread_barrier_init(&barrier, NULL, WORKERS);
  pthread_t threads[WORKERS];
  for (long i = 0; i < WORKERS; i++)
    pthread_create(&threads[i], NULL, worker, (void *)i);
  for (int i = 0; i < WORKERS; i++)
    pthread_join(threads[i], NULL);

  int wrong = 0;
  for (int i = 0; i < WORKERS; i++) {
    printf("value[%d] = %d\n", i, value[i]);
    wrong += value[i] != expected[i];
  }
  printf("%d of %d values differ from the sequential result\n", wrong, WORKERS);
  return wrong ? 1 : 0;
}
