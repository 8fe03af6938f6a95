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

// Read before main, after the activation's constructor (101), so a malformed value
// stops the run before the design does anything (status 120, like a malformed bound).
__attribute__((constructor(102))) void read_sim_until()
{
    const char *text = std::getenv(SYNCMUT_ENV_SIM_UNTIL);
    if (text == nullptr || *text == '\0')
        return;
    char *end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || *text < '0' || *text > '9') {
        std::fprintf(stderr, "syncmut runtime: %s='%s' is not a decimal count of ns\n",
                     SYNCMUT_ENV_SIM_UNTIL, text);
        std::fflush(stderr);
        _exit(SYNCMUT_STATUS_CONFIG_ERROR);
    }
    bounded = true;
    until_ns = value;
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
    if (syncmut_sc_simulation_starts != nullptr)
        syncmut_sc_simulation_starts();
    try {
        real(run_for, policy);
    } catch (...) {
        if (syncmut_sc_simulation_ends != nullptr)
            syncmut_sc_simulation_ends(0);
        throw;
    }
    if (syncmut_sc_simulation_ends != nullptr)
        syncmut_sc_simulation_ends(1);
}
