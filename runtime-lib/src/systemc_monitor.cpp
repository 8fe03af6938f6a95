// The SystemC monitor (see systemc_monitor.h): per-process blocking sites, the end record
// (pending processes, deadlock), lost notifications and the livelock bounds.
//
// How the run's end is observed. The end record must describe the kernel as it was when
// the last sc_start returned: by the time atexit handlers run, sc_main has returned and
// destroyed its modules, and destroying an event cancels its pending notifications, so
// sc_pending_activity() would then claim "nothing left to do" for a run that a time limit
// stopped. SystemC 2.3.4 (as packaged) has no stage or phase callbacks, so the runtime
// interposes sc_core::sc_start(const sc_time&, sc_starvation_policy) (sim_until.cpp,
// which also applies the simulated-time bound): it calls the hooks at the end of this
// file when a simulation starts and when it returns or throws, and the monitor then
// snapshots the processes.
//
// Contexts: observe()/snapshots run in SystemC process or sc_main context (SystemC runs
// one process at a time). The end provider runs at exit or in a signal handler: it only
// copies the published snapshot or reads the slot table (atomics, no allocation).
#include "systemc_monitor.h"
#include "syncmut_protocol.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#include "trace.h"

using sc_core::sc_event;
using sc_core::sc_object;
using sc_core::sc_process_b;

namespace syncmut_monitor {
namespace {

// ---- configuration -------------------------------------------------------------------

constexpr uint64_t DEFAULT_DELTA_BOUND = 100000;
constexpr uint64_t DEFAULT_SPIN_BOUND = 100000;

uint64_t delta_bound = DEFAULT_DELTA_BOUND; // 0: no bound
uint64_t spin_bound = DEFAULT_SPIN_BOUND;   // 0: no bound

// A bound from the environment: unset or empty = default, else a decimal count (0 turns
// the check off). Anything else ends the run like a malformed SYNCMUT_ACTIVE (status 120).
uint64_t bound_from_env(const char *name, uint64_t fallback)
{
    const char *text = std::getenv(name);
    if (text == nullptr || *text == '\0')
        return fallback;
    char *end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || *text < '0' || *text > '9') {
        std::fprintf(stderr, "syncmut runtime: %s='%s' is not a decimal count\n", name, text);
        std::fflush(stderr);
        _exit(SYNCMUT_STATUS_CONFIG_ERROR);
    }
    return value;
}

// ---- the process table ----------------------------------------------------------------

constexpr uint32_t MAX_SLOTS = 16384;
slot table[MAX_SLOTS];
std::atomic<uint32_t> slots_used{0};

// Process object -> slot. A terminated dynamic process is deleted and its address may be
// reused, so an entry also keeps the name it was made for.
struct known {
    slot *where;
    std::string name;
};
std::unordered_map<const sc_process_b *, known> *by_process; // allocated once, never freed
// The last few processes seen, direct-mapped by address: two processes handing a token
// back and forth missed a one-entry cache on every call (perf: the map lookup was the
// monitor's largest cost). An entry also keeps the process's `proc_id`, which the kernel
// numbers afresh for every process it creates, so a process made where a deleted one was
// misses the cache; comparing names instead was still a third of the monitor's time.
struct recent {
    const sc_process_b *process;
    int id;
    slot *where;
};
constexpr size_t RECENT = 64;
recent recently[RECENT];

uint32_t elaboration_name;

// The module a process belongs to (spawned processes hang below a process, so walk up),
// with what a state snapshot of its members needs.
void find_module(sc_process_b *p, slot &s)
{
    sc_object *parent = p->get_parent_object();
    for (int depth = 0; parent != nullptr && depth < 64; depth++) {
        if (auto *m = dynamic_cast<sc_core::sc_module *>(parent)) {
            s.object = dynamic_cast<const void *>(m);
            s.module = syncmut_trace_intern(m->name());
            s.cls = syncmut_trace_class_of(typeid(*m).name());
            return;
        }
        parent = parent->get_parent_object();
    }
}

// slot_of when `p` is not among the recently seen: the table, or a new slot. Out of
// line, so that observe's common case keeps a small frame.
[[gnu::noinline, gnu::cold]] slot *slot_of_unseen(sc_process_b *p, recent &r)
{
    const char *name = p->name();
    auto it = by_process->find(p);
    if (it == by_process->end() || it->second.name != name) {
        if (it != by_process->end()) // a new process where a deleted one was
            it->second.where->site.store(-1, std::memory_order_relaxed);
        uint32_t i = slots_used.load(std::memory_order_relaxed);
        if (i >= MAX_SLOTS)
            return nullptr;
        slot &s = table[i];
        s.name = syncmut_trace_intern(name);
        s.thread = p->proc_kind() != sc_core::SC_METHOD_PROC_;
        s.site.store(-1, std::memory_order_relaxed);
        s.sticky = false;
        s.spins = 0;
        s.object = nullptr;
        s.module = 0;
        s.cls = 0;
        find_module(p, s);
        slots_used.store(i + 1, std::memory_order_release);
        it = by_process->insert_or_assign(p, known{&s, name}).first;
    }
    r = recent{p, p->proc_id, it->second.where};
    return it->second.where;
}

// The slot for process `p`, made on first sight; nullptr when the table is full.
inline slot *slot_of(sc_process_b *p)
{
    recent &r = recently[(reinterpret_cast<uintptr_t>(p) >> 4) % RECENT];
    if (r.process == p && r.id == p->proc_id)
        return r.where;
    return slot_of_unseen(p, r);
}

// The slot of `p` if it has one (no new slot: for snapshots).
const slot *existing_slot_of(const sc_process_b *p)
{
    auto it = by_process->find(p);
    if (it == by_process->end() || it->second.name != p->name())
        return nullptr;
    return it->second.where;
}

// ---- the end record -------------------------------------------------------------------

// Two buffers: a snapshot is written into the one not published, then published, so a
// signal handler never reads a half-written one.
syncmut_end snapshots[2];
std::atomic<syncmut_end *> published{nullptr};
int sim_depth; // nesting of sc_start calls in progress

void add_pending(syncmut_end &end, uint32_t name, int64_t site)
{
    if (end.npending < SYNCMUT_MAX_PENDING)
        end.pending[end.npending++] = syncmut_pending{name, site};
}

void collect(const std::vector<sc_object *> &objects, syncmut_end &end)
{
    for (sc_object *object : objects) {
        if (auto *p = dynamic_cast<sc_process_b *>(object)) {
            sc_core::sc_curr_proc_kind kind = p->proc_kind();
            bool thread = kind == sc_core::SC_THREAD_PROC_ || kind == sc_core::SC_CTHREAD_PROC_;
            if (thread && !sc_core::sc_process_handle(p).terminated()) {
                const slot *s = existing_slot_of(p);
                int64_t site = s != nullptr ? s->site.load(std::memory_order_relaxed) : -1;
                add_pending(end, syncmut_trace_intern(p->name()), site);
            }
        }
        // Processes spawned by a process are its children.
        collect(object->get_child_objects(), end);
    }
}

// Records the thread processes that have not terminated. `finished`: the simulation has
// returned normally, so "nobody can run any more" is meaningful.
void take_snapshot(bool finished)
{
    syncmut_end *current = published.load(std::memory_order_relaxed);
    syncmut_end &end = current == &snapshots[0] ? snapshots[1] : snapshots[0];
    end.deadlock = 0;
    end.npending = 0;
    collect(sc_core::sc_get_top_level_objects(), end);
    // Stopped by sc_stop(): the design ended the run on purpose.
    if (finished && end.npending > 0 && sc_core::sc_get_status() != sc_core::SC_STOPPED &&
        !sc_core::sc_pending_activity())
        end.deadlock = 1;
    published.store(&end, std::memory_order_release);
}

// The provider (async-signal-safe): the snapshot if the run is between or after
// simulations, else, during simulation (a signal), the processes blocked in a wrapper.
void provide(syncmut_end *end)
{
    const syncmut_end *snapshot = published.load(std::memory_order_acquire);
    if (snapshot != nullptr) {
        end->deadlock = snapshot->deadlock;
        end->npending = snapshot->npending;
        for (uint32_t i = 0; i < snapshot->npending; i++)
            end->pending[i] = snapshot->pending[i];
        return;
    }
    uint32_t n = slots_used.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < n && end->npending < SYNCMUT_MAX_PENDING; i++) {
        int64_t site = table[i].site.load(std::memory_order_relaxed);
        if (table[i].thread && site >= 0)
            end->pending[end->npending++] = syncmut_pending{table[i].name, site};
    }
}

// exit() called while a simulation runs (from a process, or a report handler): the
// modules still exist, so look at them now. Registered after the trace's own atexit
// handler, so it runs before the trace is written.
void at_exit()
{
    if (sim_depth > 0)
        take_snapshot(false);
}

// The bounds are read before main (after the activation's constructor, priority 101), so
// a malformed value stops the run before the design does anything.
__attribute__((constructor(102))) void read_bounds()
{
    delta_bound = bound_from_env(SYNCMUT_ENV_DELTA_BOUND, DEFAULT_DELTA_BOUND);
    spin_bound = bound_from_env(SYNCMUT_ENV_SPIN_BOUND, DEFAULT_SPIN_BOUND);
}

// On first use (a wrapper call or sc_start), not at start-up: the atexit handler must be
// registered after the design's static constructors so that it runs before their
// destructors.
void init_once()
{
    by_process = new std::unordered_map<const sc_process_b *, known>();
    elaboration_name = syncmut_trace_intern("<elaboration>");
    syncmut_trace_set_end_provider(provide);
    std::atexit(at_exit);
}

std::once_flag initialised;
// Set after init_once: every wrapper call passes here, and call_once's pthread_once
// through the PLT showed in a SystemC run's profile.
std::atomic<bool> ready{false};

void init()
{
    if (ready.load(std::memory_order_acquire))
        return;
    std::call_once(initialised, init_once);
    ready.store(true, std::memory_order_release);
}

// sc_start begins and returns (or throws).
void simulation_starts()
{
    init();
    if (sim_depth++ == 0)
        published.store(nullptr, std::memory_order_release);
}

void simulation_ends(bool finished)
{
    if (--sim_depth == 0)
        take_snapshot(finished);
}

// ---- livelock ----------------------------------------------------------------------------

// Delta bound: delta cycles since the first wrapper call seen at the current time stamp.
bool base_valid;
uint64_t base_time;
uint64_t base_delta;

[[noreturn]] void livelock(const here &h, uint32_t site)
{
    take_snapshot(false); // the culprit is pending too, at `site`
    syncmut_trace_finish("livelock", h.name, site, SYNCMUT_STATUS_LIVELOCK);
}

} // namespace

here observe(uint32_t site, call_kind kind)
{
    init();
    // The simulation context's inline accessors: sc_time_stamp() is a call into the
    // library on every wrapper call.
    sc_core::sc_simcontext *simc = sc_core::sc_get_curr_simcontext();
    here h{nullptr, elaboration_name, simc->time_stamp().value(), sc_core::sc_delta_count()};
    // Outside simulation sc_get_current_process_handle() is the last *created* process;
    // the current process is null whenever no process is running.
    sc_process_b *p = sc_core::sc_is_running(simc) ? simc->get_curr_proc_info()->process_handle : nullptr;
    if (p == nullptr)
        return h;
    slot *s = slot_of(p);
    h.process = s;
    h.name = s != nullptr ? s->name : syncmut_trace_intern(p->name());
    if (s != nullptr) {
        s->sticky = false;
        s->site.store(site, std::memory_order_relaxed);
    }

    // Delta bound: delta cycles at one time stamp, whoever runs them.
    if (delta_bound != 0) {
        if (!base_valid || base_time != h.time) {
            base_valid = true;
            base_time = h.time;
            base_delta = h.delta;
        } else if (h.delta - base_delta > delta_bound) {
            livelock(h, site);
        }
    }
    // Spin bound: this process's suspending calls without time or delta advancing.
    if (s != nullptr && spin_bound != 0 && kind == call_kind::suspends) {
        if (s->spins != 0 && s->last_time == h.time && s->last_delta == h.delta) {
            if (++s->spins > spin_bound)
                livelock(h, site);
        } else {
            s->last_time = h.time;
            s->last_delta = h.delta;
            s->spins = 1;
        }
    }
    return h;
}

void gate_leaves_site_marked(const here &h)
{
    if (h.process != nullptr)
        h.process->sticky = true;
}

// ---- lost notifications ----------------------------------------------------------------
// sc_event keeps the processes sensitive to it in private vectors and has no query for
// them. C++ lets an explicit template instantiation name a private member
// ([temp.explicit]: access checking does not apply to its arguments); `expose` uses that
// to hand out pointers to the four vectors, read-only.

namespace {
template <class Tag, typename Tag::type Member> struct expose {
    friend typename Tag::type member_of(Tag) { return Member; }
};

#define SYNCMUT_EXPOSE(tag, element, field)                                                  \
    struct tag {                                                                             \
        using type = std::vector<element> sc_event::*;                                       \
        friend type member_of(tag);                                                          \
    };                                                                                       \
    template struct expose<tag, &sc_event::field>;

SYNCMUT_EXPOSE(methods_static, sc_core::sc_method_handle, m_methods_static)
SYNCMUT_EXPOSE(methods_dynamic, sc_core::sc_method_handle, m_methods_dynamic)
SYNCMUT_EXPOSE(threads_static, sc_core::sc_thread_handle, m_threads_static)
SYNCMUT_EXPOSE(threads_dynamic, sc_core::sc_thread_handle, m_threads_dynamic)
#undef SYNCMUT_EXPOSE
} // namespace

bool no_waiters(const sc_event &e)
{
    // Static sensitivity counts as waiting even if the process is waiting on something
    // else at the moment: an over-approximation, so "lost" is never claimed wrongly.
    return (e.*member_of(methods_static{})).empty() && (e.*member_of(methods_dynamic{})).empty() &&
           (e.*member_of(threads_static{})).empty() && (e.*member_of(threads_dynamic{})).empty();
}

} // namespace syncmut_monitor

// The interposed kernel entry point (sim_until.cpp) reports each simulation here.
extern "C" void syncmut_sc_simulation_starts(void)
{
    syncmut_monitor::simulation_starts();
}

extern "C" void syncmut_sc_simulation_ends(int finished)
{
    syncmut_monitor::simulation_ends(finished != 0);
}
