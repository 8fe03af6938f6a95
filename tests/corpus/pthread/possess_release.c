/* A small lock library in the style of compression tools: possess/release/twist/
 * wait_for wrap a mutex and a condition variable around a long value. The main
 * program hands a sequence number between threads with it; argv sets the count. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  long value;
} lock;

enum twist_op { TO, BY };
enum wait_op { TO_BE, NOT_TO_BE, TO_BE_MORE_THAN };

static void new_lock(lock *l, long v) {
  pthread_mutex_init(&l->mutex, NULL);
  pthread_cond_init(&l->cond, NULL);
  l->value = v;
}
static void possess(lock *l) { pthread_mutex_lock(&l->mutex); }
static void release(lock *l) { pthread_mutex_unlock(&l->mutex); }
static void twist(lock *l, enum twist_op op, long v) {
  l->value = op == TO ? v : l->value + v;
  pthread_cond_broadcast(&l->cond);
  pthread_mutex_unlock(&l->mutex);
}
static void wait_for(lock *l, enum wait_op op, long v) {
  switch (op) {
  case TO_BE: while (l->value != v) pthread_cond_wait(&l->cond, &l->mutex); break;
  case NOT_TO_BE: while (l->value == v) pthread_cond_wait(&l->cond, &l->mutex); break;
  case TO_BE_MORE_THAN: while (l->value <= v) pthread_cond_wait(&l->cond, &l->mutex); break;
  }
}

static lock seq;
static long rounds;

static void *writer(void *arg) {
  (void)arg;
  for (long i = 0; i < rounds; i++) {
    possess(&seq);
    wait_for(&seq, TO_BE, 2 * i);
    twist(&seq, BY, 1);
  }
  return NULL;
}

int main(int argc, char **argv) {
  rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
  if (rounds < 0 || rounds > 3) return 1;
  new_lock(&seq, 0);
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  for (long i = 0; i < rounds; i++) {
    possess(&seq);
    wait_for(&seq, TO_BE, 2 * i + 1);
    twist(&seq, BY, 1);
  }
  if (rounds > 2) {
    possess(&seq);
    wait_for(&seq, TO_BE_MORE_THAN, 5);
    release(&seq);
  }
  pthread_join(t, NULL);
  printf("value %ld\n", seq.value);
  return 0;
}
