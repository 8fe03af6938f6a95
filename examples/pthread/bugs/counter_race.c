/* BUG: unprotected counter (data race, lost update). Two threads increment a shared
 * counter without a lock; `counter++` is a load and a store, and the other thread may
 * store in between. Only explorable with `--interleave memory`: at the default
 * granularity the loop runs as one step. Expected: assertion failure.
 * Twin: counter_race_ok.c. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 2

static int counter;

static void *adder(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++)
    counter++;
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, adder, NULL);
  pthread_create(&b, NULL, adder, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(counter == 2 * ROUNDS);
  printf("counter %d\n", counter);
  return 0;
}
