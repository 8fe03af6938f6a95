// The SystemC monitor: what the wrappers tell it about each process, and what it tells
// the trace at the end of the run. Internal to the C++ archive.
//
// - Every wrapper call is first reported with observe(): it identifies the running process
//   (interning its name once) and applies the livelock bounds (SYNCMUT_DELTA_BOUND,
//   SYNCMUT_SPIN_BOUND; exit status 121).
// - A blocking wrapper holds a blocking_scope while it performs its action: the process's
//   slot then names the site it is blocked in, until the call returns or is unwound by
//   the kernel's kill/reset exception.
// - The monitor registers the trace's end provider: pending = the thread processes that
//   have not terminated when the run ends, with the site they are blocked in; deadlock =
//   some are pending and the kernel has no activity left.
#ifndef SYNCMUT_SYSTEMC_MONITOR_H
#define SYNCMUT_SYSTEMC_MONITOR_H

#include <systemc>

#include <atomic>
#include <cstdint>

namespace syncmut_monitor {

// One SystemC process the wrappers have seen. Slots live in a preallocated table that the
// end provider reads from a signal handler; they are never freed or reused.
struct slot {
    std::atomic<int64_t> site{-1}; // wrapped call the process is inside, -1 if none
    uint32_t name = 0;             // interned full name (syncmut_trace_intern)
    bool thread = false;           // SC_THREAD / SC_CTHREAD (methods are never pending)
    bool sticky = false;           // `site` set by a fifo gate: cleared at the next call
    // Spin bound: this process's wrapper calls at the same time stamp and delta cycle.
    uint64_t last_time = 0;
    uint64_t last_delta = 0;
    uint64_t spins = 0;
};

// What observe() found out about the current wrapper call.
struct here {
    slot *process;   // nullptr outside a process (elaboration, sc_main, update phase)
    uint32_t name;   // interned process name, or of "<elaboration>"
    uint64_t time;   // sc_time_stamp().value()
    uint64_t delta;  // sc_delta_count()
};

// Called first by every wrapper; may end the run (livelock, exit status 121).
here observe(uint32_t site);

// Marks `h.process` as blocked at `site` for the scope's lifetime (also on unwinding).
class blocking_scope {
public:
    blocking_scope(const here &h, uint32_t site);
    ~blocking_scope();
    blocking_scope(const blocking_scope &) = delete;
    blocking_scope &operator=(const blocking_scope &) = delete;

private:
    slot *process_;
    int64_t previous_;
};

// A fifo gate: the trampoline performs the access after the gate returns, so there is no
// scope to hold; a possibly blocking access marks the site until the process's next
// wrapper call.
void gate_site(const here &h, uint32_t site);

// True when an immediate notification of `e` now would wake nobody: no process is
// statically or dynamically sensitive to it (read from the kernel's own lists).
bool no_waiters(const sc_core::sc_event &e);

} // namespace syncmut_monitor

#endif
