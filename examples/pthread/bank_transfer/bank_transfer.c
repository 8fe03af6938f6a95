/* Two tellers move money between four accounts. A transfer locks both accounts,
 * always the lower-numbered first (a fixed order, so two tellers crossing the same
 * pair cannot deadlock), records the transfer in a journal (its own lock, taken
 * inside), then applies it. argv[1] = transfers per teller (default 4).
 * Prints the balances; asserts that the total is unchanged. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ACCOUNTS 4
#define OPENING 100

struct account {
  pthread_mutex_t lock;
  int balance;
};

static struct account accounts[ACCOUNTS];
static pthread_mutex_t journal_lock = PTHREAD_MUTEX_INITIALIZER;
static int journal_entries;
static int transfers_per_teller = 4;

static void journal(void) {
  pthread_mutex_lock(&journal_lock);
  journal_entries++;
  pthread_mutex_unlock(&journal_lock);
}

static void transfer(int from, int to, int amount) {
  struct account *first = &accounts[from < to ? from : to];
  struct account *second = &accounts[from < to ? to : from];
  pthread_mutex_lock(&first->lock);
  pthread_mutex_lock(&second->lock);
  int from_balance = accounts[from].balance, to_balance = accounts[to].balance;
  if (from_balance >= amount) {
    journal();
    accounts[from].balance = from_balance - amount;
    accounts[to].balance = to_balance + amount;
  }
  pthread_mutex_unlock(&second->lock);
  pthread_mutex_unlock(&first->lock);
}

static void *teller(void *arg) {
  int id = (int)(long)arg;
  for (int i = 0; i < transfers_per_teller; i++) {
    int from = (id + i) % ACCOUNTS, to = (from + 1 + 2 * id) % ACCOUNTS;
    transfer(from, to, 10 + 5 * id + i);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1)
    transfers_per_teller = atoi(argv[1]);
  for (int a = 0; a < ACCOUNTS; a++) {
    pthread_mutex_init(&accounts[a].lock, NULL);
    accounts[a].balance = OPENING;
  }
  pthread_t tellers[2];
  for (long id = 0; id < 2; id++)
    pthread_create(&tellers[id], NULL, teller, (void *)id);
  for (int id = 0; id < 2; id++)
    pthread_join(tellers[id], NULL);

  int total = 0;
  for (int a = 0; a < ACCOUNTS; a++) {
    printf("account %d: %d\n", a, accounts[a].balance);
    total += accounts[a].balance;
  }
  printf("%d transfers journalled, total %d\n", journal_entries, total);
  assert(total == ACCOUNTS * OPENING);
  return 0;
}
