// Eight lanes, each with its own event, built and notified in loops; lanes whose index
// is set in the command-line mask are started, and a collector waits on the lanes'
// events in turn.
#include <systemc.h>
#include <cstdlib>

#define LANES 8

SC_MODULE(lane) {
  sc_event *ready;
  int delay;
  bool enabled;
  void run() {
    if (!enabled) return;
    wait(delay, SC_NS);
    ready->notify(SC_ZERO_TIME);
  }
  SC_HAS_PROCESS(lane);
  lane(sc_module_name n, sc_event *r, int d, bool en) : sc_module(n), ready(r), delay(d), enabled(en) {
    SC_THREAD(run);
  }
};

SC_MODULE(collector) {
  sc_event ready[LANES];
  lane *lanes[LANES];
  unsigned mask;
  void collect() {
    for (int i = 0; i < LANES; i++) {
      if (mask & (1u << i)) {
        wait(ready[i]);
        std::printf("lane %d ready\n", i);
      }
    }
  }
  SC_HAS_PROCESS(collector);
  collector(sc_module_name n, unsigned m) : sc_module(n), mask(m) {
    for (int i = 0; i < LANES; i++) {
      char nm[12];
      std::snprintf(nm, sizeof nm, "lane%d", i);
      lanes[i] = new lane(nm, &ready[i], 2 + i, (m >> i) & 1);
    }
    SC_THREAD(collect);
  }
};

int sc_main(int argc, char *argv[]) {
  unsigned mask = argc > 1 ? (unsigned)std::strtoul(argv[1], nullptr, 0) : 0;
  collector c("c", mask & 0xff);
  sc_start();
  return 0;
}
