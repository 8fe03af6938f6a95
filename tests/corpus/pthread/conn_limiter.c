/* A connection limiter: a counting semaphore sized from argv bounds how many client
 * threads are inside at once; clients that cannot get in with sem_trywait count a
 * rejection. An "unlimited" size of 0 bypasses the semaphore. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

static sem_t slots;
static int limited;
static int rejected, served;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

static void *client(void *arg) {
  (void)arg;
  if (limited) {
    if (sem_trywait(&slots) != 0) {
      pthread_mutex_lock(&count_lock);
      rejected++;
      pthread_mutex_unlock(&count_lock);
      return NULL;
    }
  }
  pthread_mutex_lock(&count_lock);
  served++;
  pthread_mutex_unlock(&count_lock);
  if (limited) sem_post(&slots);
  return NULL;
}

int main(int argc, char **argv) {
  int size = argc > 1 ? atoi(argv[1]) : 0;
  int clients = argc > 2 ? atoi(argv[2]) : 2;
  if (size < 0 || size > 8 || clients < 1 || clients > 4) return 1;
  limited = size > 0;
  if (limited) sem_init(&slots, 0, (unsigned)size);
  pthread_t t[4];
  for (int i = 0; i < clients; i++) pthread_create(&t[i], NULL, client, NULL);
  for (int i = 0; i < clients; i++) pthread_join(t[i], NULL);
  if (limited) sem_destroy(&slots);
  printf("served %d rejected %d\n", served, rejected);
  return 0;
}
