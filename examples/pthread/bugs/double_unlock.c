/* BUG: double unlock. The error path unlocks, then falls through to the common unlock.
 * With an error-checking mutex the second unlock fails (EPERM) and the program's own
 * check aborts. Expected: assertion failure. Twin: double_unlock_ok.c. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m;
static int slots = 1;

static void *take(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  if (slots == 0) {
    int rc = pthread_mutex_unlock(&m); /* error path */
    assert(rc == 0);
  } else {
    slots--;
  }
  int rc = pthread_mutex_unlock(&m);
  assert(rc == 0 && "unlock of a mutex this thread does not hold");
  return NULL;
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&m, &attr);
  pthread_t x, y;
  pthread_create(&x, NULL, take, NULL);
  pthread_create(&y, NULL, take, NULL);
  pthread_join(x, NULL);
  pthread_join(y, NULL);
  printf("slots %d\n", slots);
  return 0;
}
