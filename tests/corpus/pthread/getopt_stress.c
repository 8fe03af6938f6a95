/* A stress tool with getopt options: -t N threads, -n N iterations, -r use a recursive
 * mutex, -s use a spinlock. Options are parsed the usual way into a settings struct. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static struct { int threads, iters, recursive, spin; } opt = {1, 1, 0, 0};
static pthread_mutex_t m;
static pthread_spinlock_t s;
static long total;

static void *hammer(void *arg) {
  (void)arg;
  for (int i = 0; i < opt.iters; i++) {
    if (opt.spin) {
      pthread_spin_lock(&s);
      total++;
      pthread_spin_unlock(&s);
    } else {
      pthread_mutex_lock(&m);
      if (opt.recursive) { pthread_mutex_lock(&m); total++; pthread_mutex_unlock(&m); }
      total++;
      pthread_mutex_unlock(&m);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  int c;
  while ((c = getopt(argc, argv, "t:n:rs")) != -1) {
    switch (c) {
    case 't': opt.threads = atoi(optarg); break;
    case 'n': opt.iters = atoi(optarg); break;
    case 'r': opt.recursive = 1; break;
    case 's': opt.spin = 1; break;
    default: return 2;
    }
  }
  if (opt.threads < 1 || opt.threads > 4 || opt.iters < 0 || opt.iters > 3) return 1;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  if (opt.recursive) pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&m, &a);
  pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE);
  pthread_t t[4];
  for (int i = 0; i < opt.threads; i++) pthread_create(&t[i], NULL, hammer, NULL);
  for (int i = 0; i < opt.threads; i++) pthread_join(t[i], NULL);
  printf("total %ld\n", total);
  return 0;
}
