// A four-phase request/acknowledge handshake over sc_signal<bool> between a client
// and a server thread; the server refuses addresses above a limit given in argv.
#include <systemc.h>
#include <cstdlib>

SC_MODULE(client) {
  sc_out<bool> req;
  sc_in<bool> ack;
  sc_out<int> addr;
  int count;
  void run() {
    for (int i = 0; i < count; i++) {
      addr.write(i * 16);
      req.write(true);
      wait(ack.posedge_event());
      req.write(false);
      wait(ack.negedge_event());
    }
  }
  SC_HAS_PROCESS(client);
  client(sc_module_name n, int c) : sc_module(n), count(c) { SC_THREAD(run); }
};

SC_MODULE(server) {
  sc_in<bool> req;
  sc_out<bool> ack;
  sc_in<int> addr;
  int limit;
  sc_event refused;
  void run() {
    while (true) {
      wait(req.posedge_event());
      if (addr.read() > limit) refused.notify(SC_ZERO_TIME);
      wait(2, SC_NS);
      ack.write(true);
      wait(req.negedge_event());
      ack.write(false);
    }
  }
  SC_HAS_PROCESS(server);
  server(sc_module_name n, int l) : sc_module(n), limit(l) { SC_THREAD(run); }
};

int sc_main(int argc, char *argv[]) {
  if (argc < 3) return 2;
  int count = std::atoi(argv[1]);
  int limit = std::atoi(argv[2]);
  if (count < 0 || count > 4) return 1;
  sc_signal<bool> req, ack;
  sc_signal<int> addr;
  client c("c", count);
  server s("s", limit);
  c.req(req); c.ack(ack); c.addr(addr);
  s.req(req); s.ack(ack); s.addr(addr);
  sc_start(200, SC_NS);
  return 0;
}
