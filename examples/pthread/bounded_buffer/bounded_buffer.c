/* Producer/consumer over a bounded buffer: one mutex, two condition variables.
 * argv[1] = buffer capacity (1..16), argv[2] = number of items to transfer.
 * Prints the sum of the consumed items; exits 1 if the consumer saw a wrong item. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_CAPACITY 16

struct buffer {
  int items[MAX_CAPACITY];
  int capacity, head, count;
  pthread_mutex_t lock;
  pthread_cond_t not_full, not_empty;
};

static struct buffer buf;
static int total_items;
static long consumed_sum;
static int errors;

static void put(int item) {
  pthread_mutex_lock(&buf.lock);
  while (buf.count == buf.capacity)
    pthread_cond_wait(&buf.not_full, &buf.lock);
  buf.items[(buf.head + buf.count) % buf.capacity] = item;
  buf.count++;
  pthread_cond_signal(&buf.not_empty);
  pthread_mutex_unlock(&buf.lock);
}

static int get(void) {
  pthread_mutex_lock(&buf.lock);
  while (buf.count == 0)
    pthread_cond_wait(&buf.not_empty, &buf.lock);
  int item = buf.items[buf.head];
  buf.head = (buf.head + 1) % buf.capacity;
  buf.count--;
  pthread_cond_signal(&buf.not_full);
  pthread_mutex_unlock(&buf.lock);
  return item;
}

static void *producer(void *arg) {
  (void)arg;
  for (int i = 1; i <= total_items; i++)
    put(i);
  return NULL;
}

static void *consumer(void *arg) {
  (void)arg;
  for (int i = 1; i <= total_items; i++) {
    int item = get();
    if (item != i)
      errors++;
    consumed_sum += item;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CAPACITY ITEMS\n", argv[0]);
    return 2;
  }
  buf.capacity = atoi(argv[1]);
  total_items = atoi(argv[2]);
  if (buf.capacity < 1 || buf.capacity > MAX_CAPACITY || total_items < 0) {
    fprintf(stderr, "capacity must be 1..%d and items >= 0\n", MAX_CAPACITY);
    return 2;
  }
  pthread_mutex_init(&buf.lock, NULL);
  pthread_cond_init(&buf.not_full, NULL);
  pthread_cond_init(&buf.not_empty, NULL);

  pthread_t p, c;
  pthread_create(&p, NULL, producer, NULL);
  pthread_create(&c, NULL, consumer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);

  printf("consumed %d items, sum %ld, errors %d\n", total_items, consumed_sum, errors);
  return errors ? 1 : 0;
}
