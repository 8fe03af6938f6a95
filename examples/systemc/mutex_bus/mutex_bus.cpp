// Two initiators share a bus guarded by an sc_mutex. Each transfer takes the bus,
// marks it busy, holds it for `hold` ns and releases it; a transfer that finds the bus
// already busy is a collision. argv[1] = transfers per initiator (default 3),
// argv[2] = hold time in ns (default 4).
#include <systemc.h>
#include <cstdlib>

SC_MODULE(bus_system) {
  sc_mutex bus;
  bool busy = false;
  int collisions = 0, transfers, hold;

  SC_HAS_PROCESS(bus_system);
  bus_system(sc_module_name name, int n, int h) : sc_module(name), transfers(n), hold(h) {
    SC_THREAD(cpu);
    SC_THREAD(dma);
  }

  void transfer(const char *who, int i) {
    bus.lock();
    if (busy)
      collisions++;
    busy = true;
    wait(hold, SC_NS);
    busy = false;
    std::printf("%s transfer %d done at %s\n", who, i, sc_time_stamp().to_string().c_str());
    bus.unlock();
  }

  void cpu() {
    for (int i = 0; i < transfers; i++) {
      transfer("cpu", i);
      wait(1, SC_NS);
    }
  }

  void dma() {
    for (int i = 0; i < transfers; i++) {
      wait(2, SC_NS);
      transfer("dma", i);
    }
  }
};

int sc_main(int argc, char *argv[]) {
  bus_system s("s", argc > 1 ? std::atoi(argv[1]) : 3, argc > 2 ? std::atoi(argv[2]) : 4);
  sc_start();
  std::printf("collisions %d\n", s.collisions);
  return 0;
}
