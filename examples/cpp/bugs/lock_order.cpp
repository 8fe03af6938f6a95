// BUG: lock-order deadlock written with two separate std::lock_guard objects. transfer_ab
// takes a then b, transfer_ba takes b then a; when each holds its first lock, both wait
// forever. Expected: deadlock (syncmut explore). lock_order_ok.cpp takes both with one
// std::scoped_lock, which locks them without a fixed order and cannot deadlock.
#include <cstdio>
#include <mutex>
#include <thread>

static std::mutex a, b;
static int moved;

static void transfer_ab() {
  std::lock_guard<std::mutex> first(a);
  std::lock_guard<std::mutex> second(b);
  moved++;
}

static void transfer_ba() {
  std::lock_guard<std::mutex> first(b);
  std::lock_guard<std::mutex> second(a);
  moved++;
}

int main() {
  std::thread x(transfer_ab);
  std::thread y(transfer_ba);
  x.join();
  y.join();
  std::printf("moved %d\n", moved);
  return 0;
}
