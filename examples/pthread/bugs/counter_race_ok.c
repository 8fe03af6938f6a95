/* Twin of counter_race.c: each increment under a mutex. Bug-free, also with
 * `--interleave memory`. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 2

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *adder(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
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
