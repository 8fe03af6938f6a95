/* BUG: reader/writer starvation. A readers-preference lock (the first readers-writers
 * solution): the first reader in locks the writer out of the room, the last one out
 * lets it in; a reader arriving while others are inside walks straight in, so readers
 * that keep overlapping overtake a waiting writer without bound. The program checks
 * bounded bypass: while the writer waits, at most READERS reader entries (one per
 * reader already on its way) may pass it. Expected: assertion failure.
 * Twin: rw_starvation_ok.c (arriving readers queue behind a waiting writer). */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>

#define READERS 2
#define ROUNDS 2

static sem_t room_empty;
static pthread_mutex_t readers_lock = PTHREAD_MUTEX_INITIALIZER;
static int readers, data;
static atomic_int entries; /* reader entries into the room so far */

static void *reader(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
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
  int before = atomic_load(&entries);
  sem_wait(&room_empty);
  int passed = atomic_load(&entries) - before;
  assert(passed <= READERS); /* the writer starved while readers kept coming */
  data++;
  sem_post(&room_empty);
  return NULL;
}

int main(void) {
  pthread_t r[READERS], w;
  sem_init(&room_empty, 0, 1);
  for (int i = 0; i < READERS; i++)
    pthread_create(&r[i], NULL, reader, NULL);
  pthread_create(&w, NULL, writer, NULL);
  for (int i = 0; i < READERS; i++)
    pthread_join(r[i], NULL);
  pthread_join(w, NULL);
  printf("data %d, reader entries %d\n", data, atomic_load(&entries));
  return 0;
}
