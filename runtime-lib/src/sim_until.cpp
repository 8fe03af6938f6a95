// The interposed SystemC kernel entry point and the simulated-time bound
// (SYNCMUT_SIM_UNTIL, a test's `sim_time`).
//
// The definition of sc_core::sc_start(const sc_time&, sc_starvation_policy) below, linked
// into the executable, takes precedence over libsystemc's (which the no-argument
// sc_start() also calls through the PLT); it calls the library's with dlsym(RTLD_NEXT).
// With SYNCMUT_SIM_UNTIL=<ns> set, no call runs the simulation past that absolute
// simulated time: the duration is clamped to what is left, and a call that starts at or
// after the bound returns at once. A clocked design whose sc_main calls sc_start() with
// no limit then continues after it and ends normally.
//
// With SYNCMUT_SIM_PROBE=<ms> set, the simulation runs in growing steps and is cut short
// once that much wall time has passed since the first sc_start (as if sc_start returned;
// later calls return at once), printing the simulated time reached on stderr. syncmut
// probes so a design that never stops by itself, to choose a simulated-time bound.
//
// Self-contained: both executables of a SystemC design link this member (the linker flag
// `syncmut_runtime::SIM_UNTIL_LINK_FLAG` brings it in), so the uninstrumented original
// stops at the same simulated time as the metamutant. The SystemC monitor
// (systemc_monitor.cpp), present only in the metamutant, is told when a simulation
// starts and ends through the weak hooks below; in the original they are absent.
#include "syncmut_protocol.h"

#include <systemc>

#include <dlfcn.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern "C" {
// Marker the linker flag names, so this member is linked whatever the design calls.
extern const char syncmut_sim_until = 0;
// The monitor's hooks (systemc_monitor.cpp); null when the monitor is not linked.
__attribute__((weak)) void syncmut_sc_simulation_starts(void);
__attribute__((weak)) void syncmut_sc_simulation_ends(int finished);
}

namespace {

bool bounded = false;
uint64_t until_ns = 0;
uint64_t probe_ms = 0;
bool probe_cut = false;

// A decimal count from the environment variable `name`, or exits with status 120.
bool read_count(const char *name, const char *unit, uint64_t *value)
{
    const char *text = std::getenv(name);
    if (text == nullptr || *text == '\0')
        return false;
    char *end = nullptr;
    errno = 0;
    unsigned long long parsed = std::strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || *text < '0' || *text > '9') {
        std::fprintf(stderr, "syncmut runtime: %s='%s' is not a decimal count of %s\n", name,
                     text, unit);
        std::fflush(stderr);
        _exit(SYNCMUT_STATUS_CONFIG_ERROR);
    }
    *value = parsed;
    return true;
}

// Wall milliseconds, from the kernel itself: the runtime's virtual clock answers the
// design's clock_gettime calls.
uint64_t wall_ms()
{
    struct timespec now;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &now);
    return static_cast<uint64_t>(now.tv_sec) * 1000 + static_cast<uint64_t>(now.tv_nsec) / 1000000;
}

// Runs `run_for` in steps doubling from 1 ns until the probe's wall time has passed,
// the simulation starves or stops, or `run_for` is done. Only the time reached matters
// in a probe, not what the design prints.
template <typename Start>
void probed(Start real, const sc_core::sc_time &run_for, sc_core::sc_starvation_policy policy)
{
    using namespace sc_core;
    static const uint64_t began = wall_ms();
    sc_time step(1, SC_NS);
    sc_time left = run_for;
    while (left > SC_ZERO_TIME) {
        // Each step runs to its end (an exit on starvation would stop at the last event
        // before it); starvation is checked between steps instead.
        if (policy == SC_EXIT_ON_STARVATION && !sc_pending_activity())
            return;
        const sc_time chunk = step < left ? step : left;
        const sc_time before = sc_time_stamp();
        real(chunk, SC_RUN_TO_TIME);
        const sc_time advanced = sc_time_stamp() - before;
        if (advanced < chunk || sc_get_status() == SC_STOPPED || sc_end_of_simulation_invoked())
            return;
        left = left - advanced;
        step = step * 2.0;
        if (wall_ms() - began >= probe_ms) {
            probe_cut = true;
            const double ns = sc_time_stamp().to_seconds() * 1e9;
            std::fprintf(stderr, "%s%llu\n", SYNCMUT_SIM_PROBE_REPORT,
                         static_cast<unsigned long long>(ns));
            std::fflush(stderr);
            return;
        }
    }
}

// Read before main, after the activation's constructor (101), so a malformed value
// stops the run before the design does anything (status 120, like a malformed bound).
__attribute__((constructor(102))) void read_sim_until()
{
    bounded = read_count(SYNCMUT_ENV_SIM_UNTIL, "ns", &until_ns);
    (void)read_count(SYNCMUT_ENV_SIM_PROBE, "ms", &probe_ms);
}

} // namespace

void sc_core::sc_start(const sc_time &duration, sc_starvation_policy policy)
{
    using start_fn = void (*)(const sc_time &, sc_starvation_policy);
    static start_fn real = reinterpret_cast<start_fn>(
        dlsym(RTLD_NEXT, "_ZN7sc_core8sc_startERKNS_7sc_timeENS_20sc_starvation_policyE"));
    if (real == nullptr) {
        std::fprintf(stderr, "syncmut runtime: cannot find sc_core::sc_start in libsystemc "
                             "(the SystemC kernel must be linked as a shared library)\n");
        std::fflush(stderr);
        _exit(SYNCMUT_STATUS_CONFIG_ERROR);
    }
    sc_time run_for = duration;
    if (bounded) {
        const sc_time until(static_cast<double>(until_ns), SC_NS);
        const sc_time now = sc_time_stamp();
        if (now >= until)
            return;
        if (run_for > until - now)
            run_for = until - now;
    }
    if (probe_cut)
        return;
    if (syncmut_sc_simulation_starts != nullptr)
        syncmut_sc_simulation_starts();
    try {
        if (probe_ms > 0)
            probed(real, run_for, policy);
        else
            real(run_for, policy);
    } catch (...) {
        if (syncmut_sc_simulation_ends != nullptr)
            syncmut_sc_simulation_ends(0);
        throw;
    }
    if (syncmut_sc_simulation_ends != nullptr)
        syncmut_sc_simulation_ends(1);
}
