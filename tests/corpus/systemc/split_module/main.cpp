// Test harness for uart_tx: argv[1] is the baud divider, argv[2] "even"/"none".
#include "uart_tx.h"
#include <cstring>
#include <cstdlib>

SC_MODULE(monitor) {
  uart_tx *tx;
  void watch() {
    wait(tx->byte_done);
    std::printf("byte sent, %d bits\n", tx->bits_sent);
  }
  SC_HAS_PROCESS(monitor);
  monitor(sc_module_name n, uart_tx *t) : sc_module(n), tx(t) { SC_THREAD(watch); }
};

int sc_main(int argc, char *argv[]) {
  if (argc < 3) return 2;
  int div = std::atoi(argv[1]);
  if (div < 1 || div > 64) return 1;
  bool parity = std::strcmp(argv[2], "even") == 0;
  uart_tx tx("tx", div, parity);
  monitor mon("mon", &tx);
  sc_start(2, SC_US);
  return 0;
}
