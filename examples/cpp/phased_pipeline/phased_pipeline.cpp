// A phased pipeline in C++20: main produces items into a bounded ring guarded by two
// std::counting_semaphores (free slots, filled items) and a std::mutex; two workers
// take them. A std::latch holds main back until both workers have started, a
// std::barrier of three (main and the workers) closes each phase, after which main
// prints the phase's sums, and std::atomic wait/notify_all hands the final report from
// worker 0 to main and worker 1. Run as `phased_pipeline PHASES PER_WORKER` (the tests
// use `2 2` and `1 3`).
#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <mutex>
#include <semaphore>
#include <thread>

constexpr int SLOTS = 2;

class Ring {
public:
  void put(int value) {
    free_.acquire();
    {
      std::lock_guard<std::mutex> guard(m_);
      slot_[tail_] = value;
      tail_ = (tail_ + 1) % SLOTS;
    }
    filled_.release();
  }

  int take() {
    filled_.acquire();
    int value;
    {
      std::lock_guard<std::mutex> guard(m_);
      value = slot_[head_];
      slot_[head_] = -1; // taken: a second take of this slot sees -1
      head_ = (head_ + 1) % SLOTS;
    }
    free_.release();
    return value;
  }

private:
  std::counting_semaphore<SLOTS> free_{SLOTS};
  std::counting_semaphore<SLOTS> filled_{0};
  std::mutex m_;
  int slot_[SLOTS] = {-1, -1};
  int head_ = 0, tail_ = 0;
};

struct Shared {
  Ring ring;
  std::latch started{2};
  std::barrier<> phase_end{3};
  long sum[2] = {0, 0};
  long report = 0;
  std::atomic<int> published{0};
};

static void worker(Shared &s, int id, int phases, int per) {
  s.started.count_down();
  for (int p = 0; p < phases; p++) {
    for (int i = 0; i < per; i++)
      s.sum[id] += s.ring.take();
    s.phase_end.arrive_and_wait();
  }
  if (id == 0) {
    s.report = s.sum[0] + s.sum[1];
    s.published.store(1);
    s.published.notify_all(); // main and worker 1 wait for it
  } else {
    s.published.wait(0);
  }
}

int main(int argc, char **argv) {
  int phases = argc > 1 ? std::atoi(argv[1]) : 2;
  int per = argc > 2 ? std::atoi(argv[2]) : 2;
  Shared s;
  std::thread a(worker, std::ref(s), 0, phases, per);
  std::thread b(worker, std::ref(s), 1, phases, per);
  s.started.wait();
  int next = 1;
  for (int p = 0; p < phases; p++) {
    for (int i = 0; i < 2 * per; i++)
      s.ring.put(next++);
    s.phase_end.arrive_and_wait();
    std::printf("phase %d: %ld\n", p, s.sum[0] + s.sum[1]);
  }
  s.published.wait(0);
  std::printf("report %ld\n", s.report);
  a.join();
  b.join();
  return 0;
}
