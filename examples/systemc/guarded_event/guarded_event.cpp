// The running example of syncmut: two threads, one event, two flags.
// argv[1] sets cs1 and argv[2] sets cs2 ("t" or "f").
#include <systemc.h>
#include <cstring>

SC_MODULE(top) {
  sc_event e;
  bool cs1, cs2;

  SC_HAS_PROCESS(top);
  top(sc_module_name name, bool c1, bool c2) : sc_module(name), cs1(c1), cs2(c2) {
    SC_THREAD(t1);
    SC_THREAD(t2);
  }

  void t1() {
    if (cs1) {
      wait(e);
      cs2 = false;
    }
    wait(10, SC_NS);
    cs2 = true;
    std::printf("t1 done at %s\n", sc_time_stamp().to_string().c_str());
  }

  void t2() {
    if (cs2) {
      cs1 = false;
      e.notify();
    }
    wait(10, SC_NS);
    cs1 = true;
    std::printf("t2 done at %s\n", sc_time_stamp().to_string().c_str());
  }
};

static bool flag(const char *arg) { return std::strcmp(arg, "t") == 0; }

int sc_main(int argc, char *argv[]) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s t|f t|f\n", argv[0]);
    return 2;
  }
  top m("m", flag(argv[1]), flag(argv[2]));
  sc_start();
  std::printf("end at %s cs1=%d cs2=%d\n", sc_time_stamp().to_string().c_str(), m.cs1, m.cs2);
  return 0;
}
