// Clocked accumulator: an SC_CTHREAD with a synchronous reset adds a step every
// cycle and raises an overflow event once the sum passes a limit.
// usage: clocked_accumulator STEP LIMIT
#include <systemc.h>
#include <cstdlib>

SC_MODULE(accumulator) {
  sc_in<bool> clk;
  sc_in<bool> rst;
  sc_event overflow;
  int step, limit, sum;

  void run() {
    sum = 0;
    wait();
    while (true) {
      sum += step;
      if (sum > limit) {
        overflow.notify(SC_ZERO_TIME);
        sum = 0;
      }
      wait();
    }
  }

  void watch() {
    wait(overflow);
    std::printf("overflow at %s\n", sc_time_stamp().to_string().c_str());
  }

  SC_HAS_PROCESS(accumulator);
  accumulator(sc_module_name n, int s, int l) : sc_module(n), step(s), limit(l), sum(0) {
    SC_CTHREAD(run, clk.pos());
    reset_signal_is(rst, true);
    SC_THREAD(watch);
  }
};

int sc_main(int argc, char *argv[]) {
  int step = argc > 1 ? std::atoi(argv[1]) : 1;
  int limit = argc > 2 ? std::atoi(argv[2]) : 100;
  if (step <= 0 || limit <= 0) return 1;
  sc_clock clk("clk", 10, SC_NS);
  sc_signal<bool> rst;
  accumulator acc("acc", step, limit);
  acc.clk(clk);
  acc.rst(rst);
  rst.write(false);
  sc_start(200, SC_NS);
  std::printf("sum=%d\n", acc.sum);
  return 0;
}
