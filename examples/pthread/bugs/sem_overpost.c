/* BUG: semaphore over-post. The producer posts twice for its first item, so a second
 * consumer may pass sem_wait before the second item exists. Expected: assertion
 * failure. Twin: sem_overpost_ok.c. */
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
    if (i == 0)
      sem_post(&full); /* the extra post */
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
