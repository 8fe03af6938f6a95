// Two producers and two consumers share a bounded queue (C++17: std::mutex,
// std::condition_variable, std::thread and the lock guards). Each producer puts N items,
// each consumer takes N and adds them up under a second mutex; main prints the totals.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

class BoundedQueue {
public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {}

  void put(int item) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [this] { return items_.size() < capacity_; });
    items_.push_back(item);
    lock.unlock();
    not_empty_.notify_one();
  }

  int take() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (items_.empty())
      not_empty_.wait(lock);
    int item = items_.front();
    items_.pop_front();
    lock.unlock();
    not_full_.notify_one();
    return item;
  }

  std::size_t size() {
    std::lock_guard<std::mutex> guard(mutex_);
    return items_.size();
  }

private:
  std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<int> items_;
  std::size_t capacity_;
};

struct Totals {
  std::mutex mutex;
  long sum = 0;
  int count = 0;
};

static void produce(BoundedQueue &queue, int first, int n) {
  for (int i = 0; i < n; i++)
    queue.put(first + i);
}

static void consume(BoundedQueue &queue, Totals &totals, int n) {
  for (int i = 0; i < n; i++) {
    int item = queue.take();
    std::lock_guard<std::mutex> guard(totals.mutex);
    totals.sum += item;
    totals.count++;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 3;
  BoundedQueue queue(2);
  Totals totals;
  std::thread producer1(produce, std::ref(queue), 1, n);
  std::thread producer2(produce, std::ref(queue), 101, n);
  std::thread consumer1(consume, std::ref(queue), std::ref(totals), n);
  std::thread consumer2(consume, std::ref(queue), std::ref(totals), n);
  producer1.join();
  producer2.join();
  consumer1.join();
  consumer2.join();
  std::printf("consumed %d items, sum %ld, %zu left\n", totals.count, totals.sum, queue.size());
  return 0;
}
