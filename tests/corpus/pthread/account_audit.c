/* Bank accounts with per-account locks taken in address order; an auditor checks the
 * sum under all locks. An overdraft branch is dead: the amount is checked to be
 * non-negative and at most the balance before it can be reached. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct account { pthread_mutex_t lock; long balance; };
static struct account acc[3];
static long amount;
static int from, to;

static void lock_pair(struct account *a, struct account *b) {
  if (a < b) { pthread_mutex_lock(&a->lock); pthread_mutex_lock(&b->lock); }
  else { pthread_mutex_lock(&b->lock); pthread_mutex_lock(&a->lock); }
}

static void *transfer(void *arg) {
  (void)arg;
  struct account *a = &acc[from], *b = &acc[to];
  lock_pair(a, b);
  if (amount <= 100) {
    a->balance -= amount;
    b->balance += amount;
    if (amount > 100) {
      pthread_mutex_lock(&acc[2].lock);   /* overdraft: unreachable */
      pthread_mutex_unlock(&acc[2].lock);
    }
  }
  pthread_mutex_unlock(&a->lock);
  pthread_mutex_unlock(&b->lock);
  return NULL;
}

static void *audit(void *arg) {
  (void)arg;
  long sum = 0;
  for (int i = 0; i < 3; i++) pthread_mutex_lock(&acc[i].lock);
  for (int i = 0; i < 3; i++) sum += acc[i].balance;
  for (int i = 2; i >= 0; i--) pthread_mutex_unlock(&acc[i].lock);
  if (sum != 300) printf("audit failed: %ld\n", sum);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  from = atoi(argv[1]);
  to = atoi(argv[2]);
  amount = strtol(argv[3], NULL, 0);
  if (from < 0 || from > 1 || to < 0 || to > 1 || from == to || amount < 0) return 1;
  for (int i = 0; i < 3; i++) { pthread_mutex_init(&acc[i].lock, NULL); acc[i].balance = 100; }
  pthread_t t, u;
  pthread_create(&t, NULL, transfer, NULL);
  pthread_create(&u, NULL, audit, NULL);
  pthread_join(t, NULL);
  pthread_join(u, NULL);
  return 0;
}
