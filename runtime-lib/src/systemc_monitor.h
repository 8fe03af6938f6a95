// The SystemC monitor: what the wrappers tell it about each process, and what it tells
// the trace at the end of the run. Internal to the C++ archive.
//
// - Every wrapper call is first reported with observe(): it identifies the running process
//   (interning its name once) and applies the livelock bounds (SYNCMUT_DELTA_BOUND,
//   SYNCMUT_SPIN_BOUND; exit status 121).
// - From observe() until the wrapper returns (or is unwound by the kernel's kill/reset
//   exception) the process's slot names the site: where a process blocked in a wait,
//   lock or fifo access stopped.
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
    // The module the process belongs to, for state snapshots of its data members: the
    // start of its most-derived object, its interned full name, its class
    // (syncmut_trace_class_of; 0: no recorded members).
    const void *object = nullptr;
    uint32_t module = 0;
    uint32_t cls = 0;
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

// Whether the wrapped call (the original, whatever the mutation) can suspend the process:
// wait, next_trigger, sc_mutex::lock, sc_semaphore::wait, blocking fifo accesses. Only
// these count towards the spin bound, so a burst of notify/post/nb_write calls in one
// activation is not mistaken for a spin.
enum class call_kind { suspends, returns };

// Called first by every wrapper: marks the process as inside the wrapped call at `site`
// and applies the livelock bounds (may end the run, exit status 121).
here observe(uint32_t site, call_kind kind);

// Held by a wrapper for the rest of the call: leaving it (return, or unwinding by the
// kernel's kill/reset exception) marks the process as no longer inside a wrapped call.
class inside {
public:
    explicit inside(const here &h) : process_(h.process) {}
    ~inside()
    {
        if (process_ != nullptr && !process_->sticky)
            process_->site.store(-1, std::memory_order_relaxed);
    }
    inside(const inside &) = delete;
    inside &operator=(const inside &) = delete;

private:
    slot *process_;
};

// A fifo gate: the trampoline performs the access after the gate returns. If that access
// may block, the site stays marked until the process's next wrapper call.
void gate_leaves_site_marked(const here &h);

// True when an immediate notification of `e` now would wake nobody: no process is
// statically or dynamically sensitive to it (read from the kernel's own lists).
bool no_waiters(const sc_core::sc_event &e);

} // namespace syncmut_monitor

#endif
