/* Dining philosophers, the correct way: every philosopher takes the lower-numbered of
 * its two forks first, so no cycle of waiting philosophers can form. While eating, a
 * philosopher also takes a serving from the shared kitchen (its own lock).
 * argv[1] = philosophers (2..5, default 3), argv[2] = meals each (default 2).
 * Prints the meals and how often a fork was found in use by another philosopher
 * while held (must be 0); exits 1 if it was. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_PHILOSOPHERS 5

static pthread_mutex_t forks[MAX_PHILOSOPHERS];
static int fork_holder[MAX_PHILOSOPHERS];
static pthread_mutex_t kitchen = PTHREAD_MUTEX_INITIALIZER;
static int servings_left = 100;
static int philosophers = 3, meals = 2;
static int conflicts;

static void take(int fork, int who) {
  if (fork_holder[fork] != -1)
    conflicts++;
  fork_holder[fork] = who;
}

static void *philosopher(void *arg) {
  int me = (int)(long)arg;
  int left = me, right = (me + 1) % philosophers;
  int first = left < right ? left : right, second = left < right ? right : left;
  for (int meal = 0; meal < meals; meal++) {
    pthread_mutex_lock(&forks[first]);
    take(first, me);
    pthread_mutex_lock(&forks[second]);
    take(second, me);
    pthread_mutex_lock(&kitchen);
    servings_left--;
    pthread_mutex_unlock(&kitchen);
    fork_holder[second] = fork_holder[first] = -1;
    pthread_mutex_unlock(&forks[second]);
    pthread_mutex_unlock(&forks[first]);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    philosophers = atoi(argv[1]);
  if (argc > 2)
    meals = atoi(argv[2]);
  if (philosophers < 2 || philosophers > MAX_PHILOSOPHERS || meals < 0) {
    fprintf(stderr, "usage: %s [PHILOSOPHERS 2..%d] [MEALS]\n", argv[0], MAX_PHILOSOPHERS);
    return 2;
  }
  pthread_t threads[MAX_PHILOSOPHERS];
  for (int i = 0; i < philosophers; i++) {
    pthread_mutex_init(&forks[i], NULL);
    fork_holder[i] = -1;
  }
  for (long i = 0; i < philosophers; i++)
    pthread_create(&threads[i], NULL, philosopher, (void *)i);
  for (int i = 0; i < philosophers; i++)
    pthread_join(threads[i], NULL);
  printf("%d philosophers ate %d meals each; %d servings left, %d fork conflicts\n", philosophers, meals,
         servings_left, conflicts);
  return conflicts ? 1 : 0;
}
