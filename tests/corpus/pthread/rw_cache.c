/* A read-mostly configuration cache: readers take a read lock, a refresher thread
 * takes the write lock when the version it is given is newer. The mode string in
 * argv[1] ("ro", "rw") decides whether the refresher runs; argv[2] is the version. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_rwlock_t rw;
static int version = 1;
static int hits;
static pthread_mutex_t stats = PTHREAD_MUTEX_INITIALIZER;

static void *reader(void *arg) {
  int want = *(int *)arg;
  pthread_rwlock_rdlock(&rw);
  int ok = version >= want;
  pthread_rwlock_unlock(&rw);
  if (ok) {
    pthread_mutex_lock(&stats);
    hits++;
    pthread_mutex_unlock(&stats);
  }
  return NULL;
}

static void *refresher(void *arg) {
  int v = *(int *)arg;
  if (pthread_rwlock_trywrlock(&rw) != 0) pthread_rwlock_wrlock(&rw);
  if (v > version) version = v;
  pthread_rwlock_unlock(&rw);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  int rwmode = strcmp(argv[1], "rw") == 0;
  int v = atoi(argv[2]);
  pthread_rwlock_init(&rw, NULL);
  pthread_t r1, r2, w;
  int want = 2;
  if (rwmode) pthread_create(&w, NULL, refresher, &v);
  pthread_create(&r1, NULL, reader, &want);
  pthread_create(&r2, NULL, reader, &want);
  pthread_join(r1, NULL);
  pthread_join(r2, NULL);
  if (rwmode) pthread_join(w, NULL);
  pthread_rwlock_destroy(&rw);
  printf("hits %d version %d\n", hits, version);
  return 0;
}
