// Four bus masters built in a loop share one sc_mutex; a master with priority above
// the command-line cutoff uses trylock and backs off, the others block in lock.
#include <systemc.h>
#include <cstdlib>

SC_MODULE(bus_master) {
  sc_mutex *bus;
  int id, prio, cutoff;
  void run() {
    wait(id, SC_NS);
    if (prio > cutoff) {
      while (bus->trylock() != 0) wait(3, SC_NS);
    } else {
      bus->lock();
    }
    wait(5, SC_NS);
    bus->unlock();
  }
  SC_HAS_PROCESS(bus_master);
  bus_master(sc_module_name n, sc_mutex *b, int i, int p, int c)
      : sc_module(n), bus(b), id(i), prio(p), cutoff(c) {
    SC_THREAD(run);
  }
};

int sc_main(int argc, char *argv[]) {
  int cutoff = argc > 1 ? std::atoi(argv[1]) : 10;
  sc_mutex bus("bus");
  bus_master *m[4];
  for (int i = 0; i < 4; i++) {
    char name[16];
    std::snprintf(name, sizeof name, "m%d", i);
    m[i] = new bus_master(name, &bus, i, i * 3, cutoff);
  }
  sc_start();
  std::printf("done at %s\n", sc_time_stamp().to_string().c_str());
  for (int i = 0; i < 4; i++) delete m[i];
  return 0;
}
