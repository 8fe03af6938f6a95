/* BUG: lock-order deadlock with C11 threads. t1 takes a then b, t2 takes b then a; when
 * each holds its first lock, both wait forever. Expected: deadlock (syncmut explore). */
#include <stdio.h>
#include <threads.h>

static mtx_t a, b;
static int moved;

static int t1(void *arg) {
  (void)arg;
  mtx_lock(&a);
  mtx_lock(&b);
  moved++;
  mtx_unlock(&b);
  mtx_unlock(&a);
  return 0;
}

static int t2(void *arg) {
  (void)arg;
  mtx_lock(&b);
  mtx_lock(&a);
  moved++;
  mtx_unlock(&a);
  mtx_unlock(&b);
  return 0;
}

int main(void) {
  mtx_init(&a, mtx_plain);
  mtx_init(&b, mtx_plain);
  thrd_t x, y;
  thrd_create(&x, t1, NULL);
  thrd_create(&y, t2, NULL);
  thrd_join(x, NULL);
  thrd_join(y, NULL);
  printf("moved %d\n", moved);
  return 0;
}
