// A user-defined mailbox channel behind a user-defined interface, reached through
// sc_port by a sender and a receiver. The channel blocks on its own events.
#include <systemc.h>
#include <cstdlib>

class mailbox_if : virtual public sc_interface {
public:
  virtual void put(int v) = 0;
  virtual int get() = 0;
};

class mailbox : public sc_channel, public mailbox_if {
  int slot;
  bool full;
  sc_event written, read_done;
public:
  explicit mailbox(sc_module_name n) : sc_channel(n), slot(0), full(false) {}
  void put(int v) override {
    while (full) wait(read_done);
    slot = v;
    full = true;
    written.notify(SC_ZERO_TIME);
  }
  int get() override {
    while (!full) wait(written);
    full = false;
    read_done.notify(SC_ZERO_TIME);
    return slot;
  }
};

SC_MODULE(sender) {
  sc_port<mailbox_if> out;
  int count;
  void main() {
    for (int i = 0; i < count; i++) out->put(i * 7);
  }
  SC_HAS_PROCESS(sender);
  sender(sc_module_name n, int c) : sc_module(n), count(c) { SC_THREAD(main); }
};

SC_MODULE(receiver) {
  sc_port<mailbox_if> in;
  int expect;
  void main() {
    for (int i = 0; i < expect; i++) {
      int v = in->get();
      std::printf("got %d\n", v);
    }
  }
  SC_HAS_PROCESS(receiver);
  receiver(sc_module_name n, int e) : sc_module(n), expect(e) { SC_THREAD(main); }
};

int sc_main(int argc, char *argv[]) {
  int n = argc > 1 ? std::atoi(argv[1]) : 0;
  if (n > 5) n = 5;
  mailbox box("box");
  sender s("s", n);
  receiver r("r", n);
  s.out(box);
  r.in(box);
  sc_start();
  return 0;
}
