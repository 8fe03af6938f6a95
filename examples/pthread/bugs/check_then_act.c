/* BUG: atomicity violation (check then act). Each withdrawer checks the balance in one
 * critical section and withdraws in another; both may pass the check before either
 * withdraws. Expected: assertion failure. Twin: check_then_act_ok.c. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int balance = 10;

static void *withdraw(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  int enough = balance >= 10;
  pthread_mutex_unlock(&m);
  if (enough) {
    pthread_mutex_lock(&m);
    balance -= 10;
    pthread_mutex_unlock(&m);
  }
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
