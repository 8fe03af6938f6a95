// Timed notification and cancellation: a scheduler posts a timed notification whose
// delay is parsed with strtol, and cancels it when a second argument asks to.
#include <systemc>
#include <cstdio>
#include <cstdlib>
#include <cstring>
using namespace sc_core;

struct scheduler : sc_module {
  sc_event alarm, cancelled;
  long delay;
  bool cancel;

  void post() {
    alarm.notify(sc_time((double)delay, SC_NS));
    if (cancel) {
      wait(1, SC_NS);
      alarm.cancel();
      cancelled.notify();
    }
  }

  void sleeper() {
    wait(alarm | cancelled);
    if (cancelled.triggered()) std::printf("cancelled\n");
    else std::printf("alarm at %s\n", sc_time_stamp().to_string().c_str());
  }

  SC_HAS_PROCESS(scheduler);
  scheduler(sc_module_name n, long d, bool c) : sc_module(n), delay(d), cancel(c) {
    SC_THREAD(post);
    SC_THREAD(sleeper);
  }
};

int sc_main(int argc, char *argv[]) {
  if (argc < 2) return 2;
  char *end;
  long d = std::strtol(argv[1], &end, 10);
  if (*end != '\0' || d < 2 || d > 1000) return 1;
  bool c = argc > 2 && std::strcmp(argv[2], "cancel") == 0;
  scheduler s("s", d, c);
  sc_start();
  return 0;
}
