#include "uart_tx.h"

uart_tx::uart_tx(sc_module_name name, int baud_div, bool parity)
    : sc_module(name), bits_sent(0), div_(baud_div), parity_(parity) {
  SC_THREAD(shifter);
  SC_THREAD(kick);
}

void uart_tx::kick() {
  wait(1, SC_NS);
  start.notify();
}

void uart_tx::shifter() {
  wait(start);
  int nbits = parity_ ? 9 : 8;
  for (int i = 0; i < nbits; i++) {
    wait(div_, SC_NS);
    bits_sent++;
  }
  if (div_ > 16)
    byte_done.notify(SC_ZERO_TIME);
  else
    byte_done.notify(div_, SC_NS);
}
