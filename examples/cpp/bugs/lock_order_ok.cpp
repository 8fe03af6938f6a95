// The fix of lock_order.cpp: each transfer takes both mutexes with one std::scoped_lock,
// which acquires them with std::lock's deadlock avoidance (lock one, try the other, back
// off). Expected: no deadlock under any schedule.
#include <cstdio>
#include <mutex>
#include <thread>

static std::mutex a, b;
static int moved;

static void transfer_ab() {
  std::scoped_lock both(a, b);
  moved++;
}

static void transfer_ba() {
  std::scoped_lock both(b, a);
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
