/* A fixed pool of worker threads consuming jobs from a linked queue protected by a
 * mutex and two condition variables; the number of workers and jobs come from argv. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct job { int id; struct job *next; };

static struct job *head, *tail;
static int shutting_down;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static int done_count;

static void submit(int id) {
  struct job *j = malloc(sizeof *j);
  j->id = id;
  j->next = NULL;
  pthread_mutex_lock(&qlock);
  if (tail) tail->next = j; else head = j;
  tail = j;
  pthread_cond_signal(&nonempty);
  pthread_mutex_unlock(&qlock);
}

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&qlock);
    while (!head && !shutting_down) pthread_cond_wait(&nonempty, &qlock);
    if (!head) { pthread_mutex_unlock(&qlock); return NULL; }
    struct job *j = head;
    head = j->next;
    if (!head) tail = NULL;
    done_count++;
    pthread_mutex_unlock(&qlock);
    free(j);
  }
}

int main(int argc, char **argv) {
  int nworkers = argc > 1 ? atoi(argv[1]) : 2;
  int njobs = argc > 2 ? atoi(argv[2]) : 0;
  if (nworkers < 1 || nworkers > 4 || njobs < 0 || njobs > 8) return 1;
  pthread_t tids[4];
  for (int i = 0; i < nworkers; i++) pthread_create(&tids[i], NULL, worker, NULL);
  for (int i = 0; i < njobs; i++) submit(i);
  pthread_mutex_lock(&qlock);
  shutting_down = 1;
  pthread_cond_broadcast(&nonempty);
  pthread_mutex_unlock(&qlock);
  for (int i = 0; i < nworkers; i++) pthread_join(tids[i], NULL);
  printf("%d jobs done\n", done_count);
  return 0;
}
