/* BUG: lost signal. The waiter waits without checking a predicate; if the signaller
 * runs first, its signal wakes nobody and the waiter waits forever. Expected: deadlock.
 * Twin: lost_signal_ok.c (while (!ready) wait). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready;

static void *waiter(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  pthread_cond_wait(&c, &m);
  pthread_mutex_unlock(&m);
  return NULL;
}

static void *signaller(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t w, s;
  pthread_create(&w, NULL, waiter, NULL);
  pthread_create(&s, NULL, signaller, NULL);
  pthread_join(w, NULL);
  pthread_join(s, NULL);
  printf("ready %d\n", ready);
  return 0;
}
