/* A command interpreter: argv[1] names an operation looked up in a table of function
 * pointers; each operation synchronises differently. One table entry is never
 * selectable because the lookup stops before it. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spin;
static sem_t sem;
static int counter;

static void op_lock(void) { pthread_mutex_lock(&m); counter++; pthread_mutex_unlock(&m); }
static void op_spin(void) { pthread_spin_lock(&spin); counter += 2; pthread_spin_unlock(&spin); }
static void op_sem(void) { sem_post(&sem); sem_wait(&sem); counter += 3; }
static void op_hidden(void) { pthread_mutex_lock(&m); counter = -1; pthread_mutex_unlock(&m); }

struct cmd { const char *name; void (*fn)(void); };
static const struct cmd cmds[] = {
  {"lock", op_lock}, {"spin", op_spin}, {"sem", op_sem}, {"hidden", op_hidden},
};
#define NVISIBLE 3

static void *run(void *arg) {
  void (*fn)(void) = (void (*)(void))arg;
  fn();
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s lock|spin|sem\n", argv[0]); return 2; }
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  sem_init(&sem, 0, 0);
  void (*fn)(void) = NULL;
  for (int i = 0; i < NVISIBLE; i++)
    if (strcmp(argv[1], cmds[i].name) == 0) fn = cmds[i].fn;
  if (!fn) return 1;
  pthread_t t;
  pthread_create(&t, NULL, run, (void *)fn);
  pthread_join(t, NULL);
  printf("counter %d\n", counter);
  return 0;
}
