// An interrupt dispatcher: a handler process sleeps on three interrupt lines at once and
// serves whichever fires; in burst mode it then waits until both halves of the bus have
// drained. argv[1] picks the line the device raises (0 timer, 1 uart, otherwise dma),
// argv[2] is the transfer code: only 4242 starts a burst.
#include <systemc.h>
#include <cstdio>
#include <cstdlib>

SC_MODULE(dispatcher) {
  sc_event timer_irq, uart_irq, dma_irq, drain_a, drain_b;
  int line, code;

  SC_HAS_PROCESS(dispatcher);
  dispatcher(sc_module_name name, int l, int c) : sc_module(name), line(l), code(c) {
    SC_THREAD(handler);
    SC_THREAD(device);
    SC_THREAD(bus);
  }

  // Each process reads its input before its first wait, when no other process can have
  // changed it.
  void handler() {
    const bool burst = code == 4242;
    wait(timer_irq | uart_irq | dma_irq);
    std::printf("irq served at %s\n", sc_time_stamp().to_string().c_str());
    if (burst) {
      wait(drain_a & drain_b);
      std::printf("burst drained at %s\n", sc_time_stamp().to_string().c_str());
    }
  }

  void device() {
    const int raised = line;
    wait(2, SC_NS);
    if (raised == 0)
      timer_irq.notify();
    else if (raised == 1)
      uart_irq.notify();
    else
      dma_irq.notify();
  }

  // Half b drains first, half a later: the burst is over when both have.
  void bus() {
    wait(4, SC_NS);
    drain_b.notify();
    wait(3, SC_NS);
    drain_a.notify();
  }
};

int sc_main(int argc, char *argv[]) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s LINE CODE\n", argv[0]);
    return 2;
  }
  dispatcher d("d", std::atoi(argv[1]), std::atoi(argv[2]));
  sc_start();
  std::printf("end at %s\n", sc_time_stamp().to_string().c_str());
  return 0;
}
