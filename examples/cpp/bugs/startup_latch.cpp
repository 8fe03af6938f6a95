// BUG: a start-up latch waited on while holding a semaphore token. loader takes the token,
// then waits at the latch for checker; checker needs the token before it arrives. When
// loader takes the token first, each waits for the other forever. Expected: deadlock
// (syncmut explore -- -std=c++20). startup_latch_ok.cpp gives the token back before
// waiting at the latch.
#include <cstdio>
#include <latch>
#include <semaphore>
#include <thread>

static int table;

static void loader(std::latch &start, std::binary_semaphore &token) {
  token.acquire();
  table = 42;
  start.arrive_and_wait();
  token.release();
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
