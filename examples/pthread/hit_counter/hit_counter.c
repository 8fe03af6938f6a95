/* Two workers each handle their own items; for every item they count a hit in `hits`
 * under `stats_lock`, then add the item's value to `sum` under `sum_lock`. Main prints
 * both. Each update is one statement between two synchronization calls, so at the
 * scheduler's granularity no interleaving splits it: a removed lock changes no output
 * and no synchronization behaviour, and only the race detector (`races = true` in
 * syncmut.toml) tells, in the one `default` schedule. */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 2
#define ITEMS 3

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;
static long hits;
static long sum;

static void *worker(void *arg) {
  int id = *(int *)arg;
  for (int i = 0; i < ITEMS; i++) {
    pthread_mutex_lock(&stats_lock);
    hits = hits + 1;
    pthread_mutex_unlock(&stats_lock);
    pthread_mutex_lock(&sum_lock);
    sum = sum + 10 * id + i;
    pthread_mutex_unlock(&sum_lock);
  }
  return NULL;
}

int main(void) {
  pthread_t t[WORKERS];
  int ids[WORKERS];
  for (int i = 0; i < WORKERS; i++) {
    ids[i] = i;
    pthread_create(&t[i], NULL, worker, &ids[i]);
  }
  for (int i = 0; i < WORKERS; i++)
    pthread_join(t[i], NULL);
  printf("%ld hits, sum %ld\n", hits, sum);
  return 0;
}
