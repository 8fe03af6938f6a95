/* Two movers shift units from `left` to `right`, one unit per step, in a critical section
 * of two statements; an auditor checks under the same lock that no unit is in flight
 * (left + right == TOTAL) and counts its audits outside the lock (only it touches that
 * counter). The movers report on a semaphore that starts empty; main waits for both
 * reports before printing. argv[1] = steps per mover (default 3).
 * Prints the counters and the failed audits; exits 1 if an audit failed. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define TOTAL 100
#define MOVERS 2
#define AUDITS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t reported;
static int left = TOTAL, right;
static int audits, failed_audits;
static int steps = 3;

static void *mover(void *arg) {
  (void)arg;
  for (int i = 0; i < steps; i++) {
    pthread_mutex_lock(&lock);
    left = left - 1;
    right = right + 1;
    pthread_mutex_unlock(&lock);
  }
  sem_post(&reported);
  return NULL;
}

static void *auditor(void *arg) {
  (void)arg;
  for (int i = 0; i < AUDITS; i++) {
    audits = audits + 1;
    pthread_mutex_lock(&lock);
    if (left + right != TOTAL)
      failed_audits = failed_audits + 1;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    steps = atoi(argv[1]);
  sem_init(&reported, 0, 0);
  pthread_t movers[MOVERS], audit;
  for (int i = 0; i < MOVERS; i++)
    pthread_create(&movers[i], NULL, mover, NULL);
  pthread_create(&audit, NULL, auditor, NULL);
  for (int i = 0; i < MOVERS; i++)
    sem_wait(&reported);
  printf("left %d, right %d\n", left, right);
  pthread_join(audit, NULL);
  for (int i = 0; i < MOVERS; i++)
    pthread_join(movers[i], NULL);
  printf("%d audits, %d failed\n", audits, failed_audits);
  return failed_audits ? 1 : 0;
}
