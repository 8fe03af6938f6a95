// A pool of 2 identical resources guarded by an sc_semaphore(2), used by 3 workers.
// Each worker takes a resource, uses it for 3 ns and gives it back; the peak number
// of resources in use is printed at the end. argv[1] = rounds per worker (default 2).
#include <systemc.h>
#include <cstdlib>

SC_MODULE(pool) {
  sc_semaphore slots{2};
  int in_use = 0, peak = 0, rounds;

  SC_HAS_PROCESS(pool);
  pool(sc_module_name name, int r) : sc_module(name), rounds(r) {
    SC_THREAD(worker_a);
    SC_THREAD(worker_b);
    SC_THREAD(worker_c);
  }

  void use(const char *who) {
    for (int i = 0; i < rounds; i++) {
      slots.wait();
      in_use++;
      if (in_use > peak)
        peak = in_use;
      wait(3, SC_NS);
      in_use--;
      std::printf("%s round %d done at %s\n", who, i, sc_time_stamp().to_string().c_str());
      slots.post();
    }
  }

  void worker_a() { use("a"); }
  void worker_b() { use("b"); }
  void worker_c() { use("c"); }
};

int sc_main(int argc, char *argv[]) {
  pool p("p", argc > 1 ? std::atoi(argv[1]) : 2);
  sc_start();
  std::printf("peak %d\n", p.peak);
  return 0;
}
