// A job launcher that starts one dynamic process per job with sc_spawn; the number of
// jobs and their duration come from the command line; the launcher waits for all of
// them on an event each job notifies.
#ifndef SC_INCLUDE_DYNAMIC_PROCESSES
#define SC_INCLUDE_DYNAMIC_PROCESSES
#endif
#include <systemc>
#include <cstdio>
#include <cstdlib>
using namespace sc_core;

SC_MODULE(launcher) {
  sc_event finished;
  int jobs, duration, done;

  void job(int id) {
    wait(duration + id, SC_NS);
    done++;
    if (done == jobs) finished.notify();
  }

  void main_thread() {
    if (jobs == 0) return;
    for (int i = 0; i < jobs; i++) {
      sc_spawn(sc_bind(&launcher::job, this, i));
    }
    wait(finished);
    std::printf("all %d jobs done at %s\n", jobs, sc_time_stamp().to_string().c_str());
  }

  SC_HAS_PROCESS(launcher);
  launcher(sc_module_name n, int j, int d) : sc_module(n), jobs(j), duration(d), done(0) {
    SC_THREAD(main_thread);
  }
};

int sc_main(int argc, char *argv[]) {
  int j = argc > 1 ? std::atoi(argv[1]) : 0;
  int d = argc > 2 ? std::atoi(argv[2]) : 1;
  if (j < 0 || j > 4 || d < 0) return 1;
  launcher l("l", j, d);
  sc_start();
  return 0;
}
