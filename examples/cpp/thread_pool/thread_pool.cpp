// A fixed-size thread pool (C++17): workers take tasks from a queue under one mutex,
// sleep on a condition variable while there is nothing to do, and report when the pool
// is idle; the destructor stops and joins them. main submits tasks that add squares to
// a total under a mutex of its own, waits for the pool to be idle, and prints the total.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

class ThreadPool {
public:
  explicit ThreadPool(int workers) {
    for (int i = 0; i < workers; i++)
      workers_.emplace_back([this] { run(); });
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread &worker : workers_)
      worker.join();
  }

  void submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      tasks_.push(std::move(task));
    }
    wake_.notify_one();
  }

  void wait_idle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return tasks_.empty() && busy_ == 0; });
  }

private:
  void run() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty())
          return; // stopping, and nothing left to do
        task = std::move(tasks_.front());
        tasks_.pop();
        busy_++;
      }
      task();
      std::lock_guard<std::mutex> guard(mutex_);
      busy_--;
      if (tasks_.empty() && busy_ == 0)
        idle_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::queue<std::function<void()>> tasks_;
  std::vector<std::thread> workers_;
  int busy_ = 0;
  bool stopping_ = false;
};

int main(int argc, char **argv) {
  int tasks = argc > 1 ? std::atoi(argv[1]) : 4;
  std::mutex total_mutex;
  long total = 0;
  {
    ThreadPool pool(2);
    for (int i = 1; i <= tasks; i++)
      pool.submit([&total_mutex, &total, i] {
        std::lock_guard<std::mutex> guard(total_mutex);
        total += i * i;
      });
    pool.wait_idle();
    std::lock_guard<std::mutex> guard(total_mutex);
    std::printf("idle after %d tasks: total %ld\n", tasks, total);
  }
  std::printf("pool stopped: total %ld\n", total);
  return 0;
}
