/* A one-slot queue with C11 threads: a producer hands tickets 1..N to a consumer through
 * one slot guarded by an mtx_t; both wait on one cnd_t for the slot to change. The
 * consumer adds up what it took and returns how many it took, which main reads back
 * with thrd_join. argv[1] = tickets (default 4). Prints the count and the sum. */
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>

static mtx_t lock;
static cnd_t changed;
static int slot, full;
static long sum;
static int tickets = 4;

static int producer(void *arg) {
  (void)arg;
  for (int t = 1; t <= tickets; t++) {
    mtx_lock(&lock);
    while (full)
      cnd_wait(&changed, &lock);
    slot = t;
    full = 1;
    cnd_signal(&changed);
    mtx_unlock(&lock);
  }
  return 0;
}

static int consumer(void *arg) {
  (void)arg;
  int taken = 0;
  for (int t = 1; t <= tickets; t++) {
    mtx_lock(&lock);
    while (!full)
      cnd_wait(&changed, &lock);
    sum += slot;
    full = 0;
    taken++;
    cnd_signal(&changed);
    mtx_unlock(&lock);
  }
  return taken;
}

int main(int argc, char **argv) {
  if (argc > 1)
    tickets = atoi(argv[1]);
  mtx_init(&lock, mtx_plain);
  cnd_init(&changed);
  thrd_t p, c;
  thrd_create(&p, producer, NULL);
  thrd_create(&c, consumer, NULL);
  int taken = -1;
  thrd_join(p, NULL);
  thrd_join(c, &taken);
  printf("consumer took %d tickets, sum %ld\n", taken, sum);
  return 0;
}
