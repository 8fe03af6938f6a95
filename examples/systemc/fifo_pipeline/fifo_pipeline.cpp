// Producer/consumer over an sc_fifo<int> of depth 2. argv[1] = items (default 5).
// The producer writes 1..N with a 1 ns pause; the consumer reads N items and prints
// their sum.
#include <systemc.h>
#include <cstdlib>

SC_MODULE(pipeline) {
  sc_fifo<int> queue{2};
  int items;
  long sum = 0;

  SC_HAS_PROCESS(pipeline);
  pipeline(sc_module_name name, int n) : sc_module(name), items(n) {
    SC_THREAD(producer);
    SC_THREAD(consumer);
  }

  void producer() {
    for (int i = 1; i <= items; i++) {
      queue.write(i);
      wait(1, SC_NS);
    }
  }

  void consumer() {
    for (int i = 0; i < items; i++) {
      int v = queue.read();
      sum += v;
    }
    std::printf("sum %ld at %s\n", sum, sc_time_stamp().to_string().c_str());
  }
};

int sc_main(int argc, char *argv[]) {
  pipeline p("p", argc > 1 ? std::atoi(argv[1]) : 5);
  sc_start();
  return 0;
}
