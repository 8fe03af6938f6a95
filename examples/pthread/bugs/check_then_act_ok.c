/* CORRECT twin of check_then_act.c: check and withdrawal in one critical section.
 * Expected: no bug. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int balance = 10;

static void *withdraw(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  if (balance >= 10)
    balance -= 10;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t x, y;
  pthread_create(&x, NULL, withdraw, NULL);
  pthread_create(&y, NULL, withdraw, NULL);
  pthread_join(x, NULL);
  pthread_join(y, NULL);
  assert(balance >= 0);
  printf("balance %d\n", balance);
  return 0;
}
