/* Twin of rw_starvation.c: a turnstile (the no-starvation readers-writers solution).
 * A waiting writer holds the turnstile, so arriving readers queue behind it; only
 * readers already past the turnstile, at most one entry each, overtake it. Bug-free. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>

#define READERS 2
#define ROUNDS 2

static sem_t room_empty, turnstile;
static pthread_mutex_t readers_lock = PTHREAD_MUTEX_INITIALIZER;
static int readers, data;
static atomic_int entries; /* reader entries into the room so far */

static void *reader(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    sem_wait(&turnstile);
    sem_post(&turnstile);
    pthread_mutex_lock(&readers_lock);
    if (++readers == 1)
      sem_wait(&room_empty);
    atomic_fetch_add(&entries, 1);
    pthread_mutex_unlock(&readers_lock);
    pthread_mutex_lock(&readers_lock);
    if (--readers == 0)
      sem_post(&room_empty);
    pthread_mutex_unlock(&readers_lock);
  }
  return NULL;
}

static void *writer(void *arg) {
  (void)arg;
  sem_wait(&turnstile);
  int before = atomic_load(&entries);
  sem_wait(&room_empty);
  int passed = atomic_load(&entries) - before;
  assert(passed <= READERS);
  sem_post(&turnstile);
  data++;
  sem_post(&room_empty);
  return NULL;
}

int main(void) {
  pthread_t r[READERS], w;
  sem_init(&room_empty, 0, 1);
  sem_init(&turnstile, 0, 1);
  for (int i = 0; i < READERS; i++)
    pthread_create(&r[i], NULL, reader, NULL);
  pthread_create(&w, NULL, writer, NULL);
  for (int i = 0; i < READERS; i++)
    pthread_join(r[i], NULL);
  pthread_join(w, NULL);
  printf("data %d, reader entries %d\n", data, atomic_load(&entries));
  return 0;
}
