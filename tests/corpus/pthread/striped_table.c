/* A hash table with 16 lock stripes initialised in a loop; two threads update keys
 * given on the command line, each taking the stripe of its key. When both keys fall
 * in the same stripe a global lock is taken too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define STRIPES 16
static pthread_mutex_t stripe[STRIPES];
static pthread_mutex_t global = PTHREAD_MUTEX_INITIALIZER;
static int table[64];
static int k1, k2;

static void bump(int key) {
  pthread_mutex_t *m = &stripe[key % STRIPES];
  pthread_mutex_lock(m);
  table[key]++;
  pthread_mutex_unlock(m);
}

static void *t1(void *arg) { (void)arg; bump(k1); return NULL; }
static void *t2(void *arg) { (void)arg; bump(k2); return NULL; }

int main(int argc, char **argv) {
  int i;
  if (argc < 3) return 2;
  k1 = atoi(argv[1]);
  k2 = atoi(argv[2]);
  if (k1 < 0 || k1 >= 64 || k2 < 0 || k2 >= 64) return 1;
  for (i = 0; i < STRIPES; i++) pthread_mutex_init(&stripe[i], 0);
  if (k1 % STRIPES == k2 % STRIPES) {
    pthread_mutex_lock(&global);
    printf("same stripe\n");
    pthread_mutex_unlock(&global);
  }
  pthread_t a, b;
  pthread_create(&a, NULL, t1, NULL);
  pthread_create(&b, NULL, t2, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  for (i = 0; i < STRIPES; i++) pthread_mutex_destroy(&stripe[i]);
  printf("%d %d\n", table[k1], table[k2]);
  return 0;
}
