// Edge detector written with SC_METHODs and static sensitivity: a stimulus method
// drives a signal, a detector method fires on every change and notifies an event
// when the level crosses a threshold taken from the command line.
#include <systemc.h>
#include <cstdlib>

SC_MODULE(edge_detector) {
  sc_signal<int> level;
  sc_event crossed;
  sc_event tick;
  int threshold;
  int samples;
  int prev;

  void stimulus() {
    if (samples >= 8) return;
    level.write(samples * 10);
    samples++;
    next_trigger(5, SC_NS);
  }

  void detect() {
    int v = level.read();
    if (prev < threshold && v >= threshold)
      crossed.notify();
    prev = v;
  }

  void report() {
    std::printf("crossed %d at %s\n", threshold, sc_time_stamp().to_string().c_str());
  }

  SC_HAS_PROCESS(edge_detector);
  edge_detector(sc_module_name n, int t) : sc_module(n), threshold(t), samples(0), prev(0) {
    SC_METHOD(stimulus);
    SC_METHOD(detect);
    sensitive << level;
    dont_initialize();
    SC_METHOD(report);
    sensitive << crossed;
    dont_initialize();
  }
};

int sc_main(int argc, char *argv[]) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s THRESHOLD\n", argv[0]);
    return 2;
  }
  edge_detector d("d", std::atoi(argv[1]));
  sc_start(100, SC_NS);
  return 0;
}
