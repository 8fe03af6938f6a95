/* A lock guarded by a narrow condition on the inputs: the worker takes the mutex only
 * when x == 123457 and y > x, with x = atoi(argv[1]) and y = atoi(argv[2]).
 * Random inputs practically never reach that lock; a weakest-precondition analysis
 * of the branch does (syncmut gen). Prints the counter; exits 0. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct params {
  int x, y;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *worker(void *arg) {
  struct params *p = arg;
  if (p->x == 123457 && p->y > p->x) {
    pthread_mutex_lock(&lock);
    counter += 2;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s X Y\n", argv[0]);
    return 2;
  }
  static struct params p;
  p.x = atoi(argv[1]);
  p.y = atoi(argv[2]);
  pthread_t t;
  pthread_create(&t, NULL, worker, &p);
  pthread_mutex_lock(&lock);
  counter += 1;
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  printf("counter=%d\n", counter);
  return 0;
}
