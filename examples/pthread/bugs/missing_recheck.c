/* BUG: no predicate re-check after a wake-up. Two consumers wait with `if`, the
 * producer broadcasts for each token: both consumers may wake for one token and the
 * second takes a token that is not there. Expected: assertion failure.
 * Twin: missing_recheck_ok.c (while instead of if). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int tokens;

static void *consumer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  if (tokens == 0)
    pthread_cond_wait(&c, &m);
  assert(tokens > 0);
  tokens--;
  pthread_mutex_unlock(&m);
  return NULL;
}

static void *producer(void *arg) {
  (void)arg;
  for (int i = 0; i < 2; i++) {
    pthread_mutex_lock(&m);
    tokens++;
    pthread_cond_broadcast(&c);
    pthread_mutex_unlock(&m);
  }
  return NULL;
}

int main(void) {
  pthread_t a, b, p;
  pthread_create(&a, NULL, consumer, NULL);
  pthread_create(&b, NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  pthread_join(p, NULL);
  printf("tokens %d\n", tokens);
  return 0;
}
