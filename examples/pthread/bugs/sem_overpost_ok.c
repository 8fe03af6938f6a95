/* CORRECT twin of sem_overpost.c: one post per item. Expected: no bug. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static sem_t full;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int items;

static void *producer(void *arg) {
  (void)arg;
  for (int i = 0; i < 2; i++) {
    pthread_mutex_lock(&m);
    items++;
    pthread_mutex_unlock(&m);
    sem_post(&full);
  }
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  sem_wait(&full);
  pthread_mutex_lock(&m);
  assert(items > 0);
  items--;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  sem_init(&full, 0, 0);
  pthread_t p, a, b;
  pthread_create(&a, NULL, consumer, NULL);
  pthread_create(&b, NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  pthread_join(p, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("items %d\n", items);
  return 0;
}
