// Benchmark design: two SystemC threads hand a token back and forth N times through
// two events (2 waits + 2 notifies per round). argv[1] = rounds.
#include <systemc.h>
#include <cstdlib>

SC_MODULE(pingpong) {
  sc_event ping, pong;
  int rounds;
  long sum = 0;
  SC_HAS_PROCESS(pingpong);
  pingpong(sc_module_name n, int r) : sc_module(n), rounds(r) {
    SC_THREAD(a);
    SC_THREAD(b);
  }
  void a() {
    for (int i = 0; i < rounds; i++) {
      ping.notify(SC_ZERO_TIME);
      wait(pong);
      sum += i;
    }
  }
  void b() {
    for (int i = 0; i < rounds; i++) {
      wait(ping);
      pong.notify(SC_ZERO_TIME);
    }
  }
};

int sc_main(int argc, char *argv[]) {
  pingpong p("p", argc > 1 ? std::atoi(argv[1]) : 50000);
  sc_start();
  std::printf("%ld\n", p.sum);
  return 0;
}
