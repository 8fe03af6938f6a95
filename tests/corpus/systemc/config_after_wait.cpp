// A configurable controller: the mode and the burst length are members set from argv
// in the constructor and only read after the first wait(); a second process changes
// the burst length later.
#include <systemc.h>
#include <cstdlib>
#include <cstring>

SC_MODULE(controller) {
  int mode;   // 0 idle, 1 burst, 2 single
  int burst;
  sc_event go, ack;

  void ctrl() {
    wait(10, SC_NS);
    if (mode == 1 && burst > 2) {
      for (int i = 0; i < burst; i++) {
        go.notify(SC_ZERO_TIME);
        wait(ack);
      }
    } else if (mode == 2) {
      go.notify(SC_ZERO_TIME);
      wait(ack);
    }
  }

  void device() {
    while (true) {
      wait(go);
      wait(1, SC_NS);
      ack.notify();
    }
  }

  void tuner() {
    wait(5, SC_NS);
    if (burst > 4) burst = 4;
  }

  SC_HAS_PROCESS(controller);
  controller(sc_module_name n, const char *m, int b) : sc_module(n), burst(b) {
    mode = std::strcmp(m, "burst") == 0 ? 1 : std::strcmp(m, "single") == 0 ? 2 : 0;
    SC_THREAD(ctrl);
    SC_THREAD(device);
    SC_THREAD(tuner);
  }
};

int sc_main(int argc, char *argv[]) {
  if (argc < 3) return 2;
  controller c("c", argv[1], std::atoi(argv[2]));
  sc_start(200, SC_NS);
  return 0;
}
