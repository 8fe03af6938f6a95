/* A direct-mapped cache in front of a slow backend, protected by a reader/writer
 * lock. Lookups that hit share the read lock; a miss takes the write lock, checks
 * again, claims the slot (evicting its key) and fills it from the backend, whose own
 * lock makes the fill a point where other threads run. Two reader threads look up
 * interleaved key sequences. argv[1] = lookups per reader (default 6).
 * Prints the number of wrong values seen (must be 0) and their sum; exits 1 if any. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 2
#define KEYS 4
#define READERS 2

struct slot {
  int key, value;
};

static pthread_rwlock_t cache_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct slot slots[SLOTS] = {{-1, 0}, {-1, 0}};
static pthread_mutex_t backend_lock = PTHREAD_MUTEX_INITIALIZER;
static int backend_loads;
static int lookups = 6;

static int backend_load(int key) {
  pthread_mutex_lock(&backend_lock);
  backend_loads++;
  pthread_mutex_unlock(&backend_lock);
  return key * key + 1;
}

static int lookup(int key) {
  struct slot *slot = &slots[key % SLOTS];
  int value = 0, hit = 0;
  pthread_rwlock_rdlock(&cache_lock);
  if (slot->key == key) {
    value = slot->value;
    hit = 1;
  }
  pthread_rwlock_unlock(&cache_lock);
  if (hit)
    return value;
  pthread_rwlock_wrlock(&cache_lock);
  if (slot->key != key) { /* another reader may have filled it meanwhile */
    slot->key = key;
    slot->value = backend_load(key);
  }
  value = slot->value;
  pthread_rwlock_unlock(&cache_lock);
  return value;
}

static long sums[READERS];
static int wrong[READERS];

static void *reader(void *arg) {
  int id = (int)(long)arg;
  for (int i = 0; i < lookups; i++) {
    int key = (i / 2 + id) % KEYS, value = lookup(key);
    wrong[id] += value != key * key + 1;
    sums[id] += value;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    lookups = atoi(argv[1]);
  pthread_t threads[READERS];
  for (long id = 0; id < READERS; id++)
    pthread_create(&threads[id], NULL, reader, (void *)id);
  for (int id = 0; id < READERS; id++)
    pthread_join(threads[id], NULL);
  printf("%d lookups per reader: %d wrong values, sum %ld\n", lookups, wrong[0] + wrong[1], sums[0] + sums[1]);
  return wrong[0] + wrong[1] ? 1 : 0;
}
