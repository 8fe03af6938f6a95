// A watchdog with a mode string parsed by strcmp. Some branches are dead by
// construction: the "reset" event is only notified when the timeout is both below 5
// and above 10, and the debug path needs a mode that was mapped away before.
#include <systemc.h>
#include <cstring>
#include <cstdlib>

SC_MODULE(watchdog) {
  sc_event kick, bite, reset_ev;
  int timeout;
  int mode;  // 0 off, 1 normal, 2 strict

  void counter() {
    if (mode == 0) return;
    while (true) {
      sc_time t(timeout, SC_NS);
      wait(t, kick);
      if (sc_time_stamp() >= sc_time(100, SC_NS)) return;
      if (!kick.triggered()) {
        bite.notify();
        if (timeout < 5 && timeout > 10) reset_ev.notify();
        return;
      }
    }
  }

  void kicker() {
    int period = mode == 2 ? timeout + 1 : timeout - 1;
    for (int i = 0; i < 3; i++) {
      wait(period, SC_NS);
      kick.notify();
    }
    if (mode == 3) kick.notify(SC_ZERO_TIME);
  }

  SC_HAS_PROCESS(watchdog);
  watchdog(sc_module_name n, const char *m, int t) : sc_module(n), timeout(t) {
    mode = !std::strcmp(m, "normal") ? 1 : !std::strcmp(m, "strict") ? 2 : 0;
    SC_THREAD(counter);
    SC_THREAD(kicker);
  }
};

int sc_main(int argc, char *argv[]) {
  if (argc < 3) return 2;
  int t = std::atoi(argv[2]);
  if (t < 2 || t > 50) return 1;
  watchdog w("w", argv[1], t);
  sc_start(200, SC_NS);
  return 0;
}
