/* Benchmark design: 4 threads increment a shared counter under one mutex.
 * argv[1] = increments per thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int per_thread;

static void *work(void *arg) {
  (void)arg;
  for (int i = 0; i < per_thread; i++) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

int main(int argc, char **argv) {
  per_thread = argc > 1 ? atoi(argv[1]) : 25000;
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, work, NULL);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  printf("%ld\n", counter);
  return 0;
}
