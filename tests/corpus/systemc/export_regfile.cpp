// A register file offers a user-defined bus interface through an sc_export; a master
// binds its sc_port to the export and issues reads and writes chosen on the command
// line. The register file serialises accesses with an sc_mutex.
#include <systemc.h>
#include <cstring>
#include <cstdlib>

struct bus_if : virtual sc_interface {
  virtual void write(unsigned addr, int data) = 0;
  virtual int read(unsigned addr) = 0;
};

class regfile : public sc_module, public bus_if {
  int regs[4];
  sc_mutex lock_;
public:
  sc_export<bus_if> target;
  regfile(sc_module_name n) : sc_module(n), target("target") {
    target.bind(*this);
    for (int i = 0; i < 4; i++) regs[i] = 0;
  }
  void write(unsigned addr, int data) override {
    if (addr >= 4) return;
    lock_.lock();
    wait(2, SC_NS);
    regs[addr] = data;
    lock_.unlock();
  }
  int read(unsigned addr) override {
    if (addr >= 4) return -1;
    lock_.lock();
    wait(1, SC_NS);
    int v = regs[addr];
    lock_.unlock();
    return v;
  }
};

SC_MODULE(master) {
  sc_port<bus_if> bus;
  bool do_write;
  unsigned addr;
  void run() {
    if (do_write) bus->write(addr, 42);
    std::printf("r%u = %d\n", addr, bus->read(addr));
  }
  SC_HAS_PROCESS(master);
  master(sc_module_name n, bool w, unsigned a) : sc_module(n), do_write(w), addr(a) { SC_THREAD(run); }
};

int sc_main(int argc, char *argv[]) {
  if (argc != 3) return 2;
  bool w = std::strcmp(argv[1], "w") == 0;
  unsigned a = (unsigned)std::strtoul(argv[2], nullptr, 10);
  regfile rf("rf");
  master m("m", w, a);
  m.bus(rf.target);
  sc_start();
  return 0;
}
