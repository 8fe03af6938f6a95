// A small SoC: the top module allocates a CPU and two peripherals in its constructor
// and wires them with signals; the CPU polls the peripheral selected on the command
// line and waits for its interrupt.
#include <systemc.h>
#include <cstdlib>

SC_MODULE(peripheral) {
  sc_out<bool> irq;
  sc_in<bool> go;
  int latency;
  void serve() {
    while (true) {
      wait(go.posedge_event());
      wait(latency, SC_NS);
      irq.write(true);
      wait(1, SC_NS);
      irq.write(false);
    }
  }
  SC_HAS_PROCESS(peripheral);
  peripheral(sc_module_name n, int lat) : sc_module(n), latency(lat) { SC_THREAD(serve); }
};

SC_MODULE(cpu) {
  sc_out<bool> go[2];
  sc_in<bool> irq[2];
  int target;
  void program() {
    wait(2, SC_NS);
    go[target].write(true);
    wait(irq[target].posedge_event());
    std::printf("irq from %d at %s\n", target, sc_time_stamp().to_string().c_str());
    if (target == 1) {
      go[0].write(true);
      wait(irq[0].posedge_event() | irq[1].posedge_event());
    }
  }
  SC_HAS_PROCESS(cpu);
  cpu(sc_module_name n, int t) : sc_module(n), target(t) { SC_THREAD(program); }
};

SC_MODULE(soc) {
  cpu *core;
  peripheral *timer;
  peripheral *dma;
  sc_signal<bool> go_sig[2], irq_sig[2];
  SC_HAS_PROCESS(soc);
  soc(sc_module_name n, int target) : sc_module(n) {
    core = new cpu("core", target);
    timer = new peripheral("timer", 5);
    dma = new peripheral("dma", 12);
    for (int i = 0; i < 2; i++) {
      core->go[i](go_sig[i]);
      core->irq[i](irq_sig[i]);
    }
    timer->go(go_sig[0]);
    timer->irq(irq_sig[0]);
    dma->go(go_sig[1]);
    dma->irq(irq_sig[1]);
  }
};

int sc_main(int argc, char *argv[]) {
  int t = argc > 1 ? std::atoi(argv[1]) : 0;
  if (t < 0 || t > 1) return 1;
  soc top("top", t);
  sc_start(100, SC_NS);
  return 0;
}
