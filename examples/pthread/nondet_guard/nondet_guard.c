/* SV-COMP style inputs: the program reads its inputs through __VERIFIER_nondet_*()
 * calls, declared here as the SV-COMP benchmarks declare them (no syncmut header); the
 * runtime defines them and returns the test's "nondet" values in call order.
 *
 * The worker takes the mutex only when its argument, a - b, is 42; main takes it
 * only when a > 1000 and b == 7: no single input reaches both, and random inputs
 * practically never reach either. `__VERIFIER_assume` bounds a (generated tests
 * respect it); it and `__VERIFIER_atomic_begin/end` come from the runtime too. Prints the
 * counter; exits 0. */
#include <pthread.h>
#include <stdio.h>

extern int __VERIFIER_nondet_int(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern void __VERIFIER_assume(int cond);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *worker(void *arg) {
  long k = (long)arg;
  if (k == 42) {
    pthread_mutex_lock(&lock);
    counter += 2;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  int a = __VERIFIER_nondet_int();
  unsigned char b = __VERIFIER_nondet_uchar();
  __VERIFIER_assume(a >= -1000000 && a <= 1000000);
  pthread_t t;
  pthread_create(&t, NULL, worker, (void *)(long)(a - b));
  if (a > 1000 && b == 7) {
    pthread_mutex_lock(&lock);
    counter += 1;
    pthread_mutex_unlock(&lock);
  }
  pthread_join(t, NULL);
  __VERIFIER_atomic_begin();
  printf("counter=%d\n", counter);
  __VERIFIER_atomic_end();
  return 0;
}
