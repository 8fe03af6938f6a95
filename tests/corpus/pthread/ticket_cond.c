/* Ticket ordering with a condition variable and a predicate: each thread waits until
 * the "now serving" counter equals its ticket. The number of threads comes from argv;
 * a timed wait is used when the second argument is "timed". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
static int serving;
static int timed;

static void *customer(void *arg) {
  int ticket = (int)(long)arg;
  pthread_mutex_lock(&m);
  while (serving != ticket) {
    if (timed) {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_sec += 1;
      pthread_cond_timedwait(&turn, &m, &ts);
    } else {
      pthread_cond_wait(&turn, &m);
    }
  }
  serving++;
  pthread_cond_broadcast(&turn);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1;
  timed = argc > 2 && strcmp(argv[2], "timed") == 0;
  if (n < 1 || n > 4) return 1;
  pthread_t t[4];
  for (long i = n - 1; i >= 0; i--) pthread_create(&t[i], NULL, customer, (void *)i);
  for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
  printf("served %d\n", serving);
  return 0;
}
