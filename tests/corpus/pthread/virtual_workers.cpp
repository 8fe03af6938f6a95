// Worker classes with a virtual run(): a base Worker owns the thread, derived classes
// synchronise in their own way. The kinds of workers started come from argv.
#include <pthread.h>
#include <cstdio>
#include <cstring>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t cfg = PTHREAD_RWLOCK_INITIALIZER;
static int config_value = 1;

class Worker {
public:
  virtual ~Worker() {}
  virtual void run() = 0;
  void start() { pthread_create(&tid_, nullptr, &Worker::trampoline, this); }
  void join() { pthread_join(tid_, nullptr); }
private:
  static void *trampoline(void *self) { static_cast<Worker *>(self)->run(); return nullptr; }
  pthread_t tid_;
};

class Logger : public Worker {
public:
  void run() override {
    pthread_mutex_lock(&log_lock);
    std::printf("log\n");
    pthread_mutex_unlock(&log_lock);
  }
};

class Reader : public Worker {
public:
  void run() override {
    pthread_rwlock_rdlock(&cfg);
    int v = config_value;
    pthread_rwlock_unlock(&cfg);
    std::printf("read %d\n", v);
  }
};

class Updater : public Worker {
  int v_;
public:
  explicit Updater(int v) : v_(v) {}
  void run() override {
    pthread_rwlock_wrlock(&cfg);
    config_value = v_;
    pthread_rwlock_unlock(&cfg);
  }
};

int main(int argc, char **argv) {
  Worker *ws[4];
  int n = 0;
  for (int i = 1; i < argc && n < 4; i++) {
    if (!std::strcmp(argv[i], "log")) ws[n++] = new Logger;
    else if (!std::strcmp(argv[i], "read")) ws[n++] = new Reader;
    else if (!std::strcmp(argv[i], "update")) ws[n++] = new Updater(i);
  }
  for (int i = 0; i < n; i++) ws[i]->start();
  for (int i = 0; i < n; i++) { ws[i]->join(); delete ws[i]; }
  return 0;
}
