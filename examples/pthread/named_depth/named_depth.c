/* Named inputs: the design asks the runtime for "depth" in [0, 16] and for the flag
 * "burst" (syncmut.h; syncmut puts the header on the include path). Each test gives
 * them by name ("inputs": {"depth": 12, "burst": 1}); test generation treats each name
 * as one symbol within its range.
 *
 * main posts `depth` tokens; the consumer takes one token when depth > 0, and a second
 * one only in burst mode with depth >= 12. Prints what was consumed; exits 0. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <syncmut.h>

static sem_t tokens;
static int depth, burst, consumed;

static void *consumer(void *arg) {
  (void)arg;
  if (depth > 0) {
    sem_wait(&tokens);
    consumed++;
    if (burst && depth >= 12) {
      sem_wait(&tokens);
      consumed++;
    }
  }
  return NULL;
}

int main(void) {
  depth = syncmut_input_int("depth", 0, 16);
  burst = syncmut_input_bool("burst");
  sem_init(&tokens, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, consumer, NULL);
  for (int i = 0; i < depth; i++)
    sem_post(&tokens);
  pthread_join(t, NULL);
  printf("consumed=%d of %d\n", consumed, depth);
  return 0;
}
