// A three-stage pipeline connected by sc_fifo channels through sc_fifo_in/sc_fifo_out
// ports. The filter stage drops odd values unless the command line says "all".
#include <systemc.h>
#include <cstring>
#include <cstdlib>

SC_MODULE(source) {
  sc_fifo_out<int> out;
  int n;
  void gen() {
    for (int i = 1; i <= n; i++) out.write(i);
    out.write(-1);
  }
  SC_HAS_PROCESS(source);
  source(sc_module_name nm, int count) : sc_module(nm), n(count) { SC_THREAD(gen); }
};

SC_MODULE(filter) {
  sc_fifo_in<int> in;
  sc_fifo_out<int> out;
  bool pass_all;
  void step() {
    int v;
    do {
      v = in.read();
      if (v < 0 || pass_all || v % 2 == 0) out.write(v);
    } while (v >= 0);
  }
  SC_HAS_PROCESS(filter);
  filter(sc_module_name nm, bool all) : sc_module(nm), pass_all(all) { SC_THREAD(step); }
};

SC_MODULE(sink) {
  sc_fifo_in<int> in;
  void drain() {
    int total = 0, v;
    while ((v = in.read()) >= 0) total += v;
    if (in.num_available() > 0) std::printf("leftover\n");
    std::printf("total %d\n", total);
  }
  SC_CTOR(sink) { SC_THREAD(drain); }
};

int sc_main(int argc, char *argv[]) {
  int n = argc > 1 ? std::atoi(argv[1]) : 3;
  bool all = argc > 2 && std::strcmp(argv[2], "all") == 0;
  if (n < 0 || n > 10) return 1;
  sc_fifo<int> a(2), b(2);
  source src("src", n);
  filter flt("flt", all);
  sink snk("snk");
  src.out(a);
  flt.in(a);
  flt.out(b);
  snk.in(b);
  sc_start();
  return 0;
}
