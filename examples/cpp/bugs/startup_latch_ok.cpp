// The fixed twin of startup_latch.cpp: loader gives the semaphore token back before it
// waits at the start-up latch, so checker can always take it and arrive. Expected: no
// bug under any schedule.
#include <cstdio>
#include <latch>
#include <semaphore>
#include <thread>

static int table;

static void loader(std::latch &start, std::binary_semaphore &token) {
  token.acquire();
  table = 42;
  token.release();
  start.arrive_and_wait();
}

static void checker(std::latch &start, std::binary_semaphore &token) {
  token.acquire();
  int seen = table;
  token.release();
  start.arrive_and_wait();
  std::printf("checker saw %d\n", seen);
}

int main() {
  std::latch start(2);
  std::binary_semaphore token(1);
  std::thread a(loader, std::ref(start), std::ref(token));
  std::thread b(checker, std::ref(start), std::ref(token));
  a.join();
  b.join();
  std::printf("table %d\n", table);
  return 0;
}
