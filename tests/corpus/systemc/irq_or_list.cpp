// An interrupt controller that waits on an or-list of three interrupt events, and an
// and-list for a synchronised shutdown. Which sources fire is chosen on the command
// line ("t"/"r"/"e" letters in argv[1]).
#include <systemc.h>
#include <cstring>

SC_MODULE(intc) {
  sc_event timer_irq, rx_irq, err_irq, stop_a, stop_b;
  const char *sources;

  void sources_proc() {
    wait(3, SC_NS);
    if (std::strchr(sources, 't')) timer_irq.notify();
    if (std::strchr(sources, 'r')) rx_irq.notify(1, SC_NS);
    if (std::strchr(sources, 'e')) err_irq.notify(2, SC_NS);
    wait(10, SC_NS);
    stop_a.notify();
    stop_b.notify(1, SC_NS);
  }

  void handler() {
    wait(timer_irq | rx_irq | err_irq);
    std::printf("irq at %s\n", sc_time_stamp().to_string().c_str());
    if (err_irq.triggered()) {
      wait(stop_a & stop_b);
      std::printf("shutdown\n");
    }
  }

  SC_HAS_PROCESS(intc);
  intc(sc_module_name n, const char *s) : sc_module(n), sources(s) {
    SC_THREAD(sources_proc);
    SC_THREAD(handler);
  }
};

int sc_main(int argc, char *argv[]) {
  intc c("c", argc > 1 ? argv[1] : "");
  sc_start(50, SC_NS);
  return 0;
}
