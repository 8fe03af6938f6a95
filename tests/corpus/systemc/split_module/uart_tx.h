// A UART-like transmitter whose constructor and processes are defined out of class
// in uart_tx.cpp.
#ifndef UART_TX_H
#define UART_TX_H
#include <systemc.h>

class uart_tx : public sc_module {
public:
  SC_HAS_PROCESS(uart_tx);
  uart_tx(sc_module_name name, int baud_div, bool parity);

  sc_event byte_done;
  sc_event start;
  int bits_sent;

private:
  void shifter();
  void kick();
  int div_;
  bool parity_;
};

#endif
