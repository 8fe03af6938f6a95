// Producer/consumer with redundant synchronization: it scores low, since some mutants
// change nothing observable (equivalent). argv[1] = number of items (default 3).
//
// The producer publishes `data` and notifies `ready`; the consumer waits for `ready`
// and prints what it got. Three things here synchronize nothing that anyone observes:
// a mutex only the producer ever takes, a second notify of the same event in the same
// delta cycle, and a wait(SC_ZERO_TIME) after the notify.
#include <systemc.h>
#include <cstdlib>

SC_MODULE(pipeline) {
  sc_event ready, taken;
  sc_mutex guard;
  int data = 0;
  int items;

  SC_HAS_PROCESS(pipeline);
  pipeline(sc_module_name name, int n) : sc_module(name), items(n) {
    SC_THREAD(producer);
    SC_THREAD(consumer);
  }

  void producer() {
    for (int i = 1; i <= items; i++) {
      guard.lock();  // redundant: no other process takes this mutex
      data = i * 10;
      guard.unlock();
      ready.notify(SC_ZERO_TIME);
      ready.notify(SC_ZERO_TIME);  // redundant: the same delta notification again
      wait(SC_ZERO_TIME);          // redundant: the consumer runs in the next delta anyway
      wait(taken);
    }
  }

  void consumer() {
    for (int i = 1; i <= items; i++) {
      wait(ready);
      std::printf("got %d at %s\n", data, sc_time_stamp().to_string().c_str());
      wait(5, SC_NS);
      taken.notify();
    }
  }
};

int sc_main(int argc, char *argv[]) {
  int n = argc > 1 ? std::atoi(argv[1]) : 3;
  pipeline p("p", n);
  sc_start();
  std::printf("done at %s\n", sc_time_stamp().to_string().c_str());
  return 0;
}
