// A DMA engine with a number of channels given on the command line, modelled by an
// sc_semaphore; requesters that find no free slot either give up or queue.
#include <systemc>
#include <cstdio>
#include <cstdlib>
using namespace sc_core;

class dma_engine : public sc_module {
public:
  sc_semaphore slots;
  int requests, patient;
  SC_HAS_PROCESS(dma_engine);
  dma_engine(sc_module_name n, int channels, int reqs, int pat)
      : sc_module(n), slots("slots", channels), requests(reqs), patient(pat) {
    SC_THREAD(requester);
    SC_THREAD(requester);
  }
  void requester() {
    for (int i = 0; i < requests; i++) {
      if (slots.get_value() == 0 && !patient) {
        std::printf("busy, giving up\n");
        continue;
      }
      if (slots.trywait() == -1) slots.wait();
      wait(4, SC_NS);
      slots.post();
    }
  }
};

int sc_main(int argc, char *argv[]) {
  if (argc < 4) return 2;
  int ch = std::atoi(argv[1]);
  int reqs = std::atoi(argv[2]);
  int pat = std::atoi(argv[3]);
  if (ch < 1 || reqs < 0 || reqs > 4) return 1;
  dma_engine dma("dma", ch, reqs, pat);
  sc_start();
  return 0;
}
