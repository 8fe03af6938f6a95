// Wrappers for the SystemC calls listed in mutator/src/api.rs.
//
// Contract: extern "C" syncmut_<owner>_<function><suffix>(site, original arguments...),
// member functions taking the object pointer first; same return type as the original.
//
// sc_module::wait and sc_prim_channel::wait (and next_trigger) are protected inline
// members whose bodies call the sc_core free functions with the object's simcontext(); a
// wrapper outside the class does exactly that. So each overload is implemented once,
// taking the simcontext, and three entry points (module member, channel member, free
// function) are generated around it.
//
// Exceptions: the kernel kills and resets thread processes by throwing through wait().
// Nothing here catches or is noexcept, so they propagate through the wrappers unchanged.
//
// Event lists: `wait(a | b)` passes a heap list that the kernel frees after the wait (it
// is marked auto-delete). When a mutation does not hand the list to the kernel it must
// free it the same way, and or-to-and / and-to-or must read its events, which SystemC
// keeps private. Both go through the public base assignment sc_event_list::operator=,
// which copies the event pointers from a named list and takes them over from (and
// deletes) a temporary one. Like SystemC's own `list | e` operators, it also decrements
// the busy count of a named list another process is currently waiting on; that count only
// guards diagnostics (modification/destruction of a list in use). drop-event must also see
// which events a list holds, which no public member tells: see `events_of`.
#include <systemc>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "activation.h"
#include "systemc_monitor.h"
#include "trace.h"

using sc_core::sc_event;
using sc_core::sc_event_and_list;
using sc_core::sc_event_list;
using sc_core::sc_event_or_list;
using sc_core::sc_module;
using sc_core::sc_prim_channel;
using sc_core::sc_simcontext;
using sc_core::sc_time;
using sc_core::sc_time_unit;

namespace {

// ---- recording -------------------------------------------------------------------

using syncmut_monitor::here;

constexpr uint32_t op_bit(syncmut_op op) { return UINT32_C(1) << op; }

// Process full name (or "<elaboration>" outside simulation), time, delta; `lost` for an
// immediate notification that wakes nobody. Inlined into begin(): one call less per
// traced event (with the trace's own parts inlined, 3.5% of a traced ping-pong).
[[gnu::always_inline]] inline void record(const here &h, uint32_t site, syncmut_op op,
                                          bool lost = false)
{
    if (!syncmut_trace_on())
        return;
    // sc_time::to_string() allocates: format each distinct time stamp once.
    struct cached_time {
        bool valid;
        sc_time::value_type value;
        uint32_t id;
    };
    thread_local cached_time cache = {false, 0, 0};
    if (!cache.valid || cache.value != h.time)
        cache = {true, h.time, syncmut_trace_intern(sc_core::sc_time_stamp().to_string().c_str())};
    const syncmut_monitor::slot *p = h.process;
    syncmut_trace_systemc(site, op, h.name, cache.id, h.delta, lost ? SYNCMUT_EVENT_LOST : 0,
                          p != nullptr ? p->object : nullptr, p != nullptr ? p->module : 0,
                          p != nullptr ? p->cls : 0);
}

// The process counts as inside the wrapped call at `site` (where it blocks, if it does)
// until the wrapper's `call` goes out of scope.
struct call {
    syncmut_op op;
    syncmut_monitor::inside guard;
};

// Chooses the site's operator, tells the monitor (which may end a livelocked run) and
// records the event. `kind`: whether the wrapped call can suspend the process (only
// those count towards the spin bound). `notified`: the event that the operators in
// `immediate_ops` notify immediately, so the record can say whether that is lost.
call begin(uint32_t site, syncmut_monitor::call_kind kind, uint32_t allowed,
           const char *wrapper, const sc_event *notified = nullptr, uint32_t immediate_ops = 0)
{
    syncmut_op op = syncmut_op_for(site, allowed, wrapper);
    here h = syncmut_monitor::observe(site, kind);
    bool lost = notified != nullptr && (immediate_ops & op_bit(op)) != 0 &&
                syncmut_trace_on() && syncmut_monitor::no_waiters(*notified);
    record(h, site, op, lost);
    // remove-lock-pair: the trace names the operator, the wrapper removes the call.
    syncmut_op acts = op == SYNCMUT_REMOVE_LOCK_PAIR ? SYNCMUT_REMOVE : op;
    return {acts, syncmut_monitor::inside(h)};
}

constexpr auto SUSPENDS = syncmut_monitor::call_kind::suspends;
constexpr auto RETURNS = syncmut_monitor::call_kind::returns;

// ---- helpers for mutated actions -----------------------------------------------------

// event-to-timed / notify-timed: "1 ns" in the same simulation context as the call.
sc_time one_ns(sc_simcontext *simc) { return sc_time(1, sc_core::SC_NS, simc); }

// A list the wait would have consumed: free it if it is a temporary `a | b` list.
template <class List> void drop(const List &list)
{
    List sink;
    sink = list;
}

// The same events as `list`, as a heap list of the other kind that the kernel frees after
// the wait, exactly as it frees the list built by `wait(a & b)` / `wait(a | b)`: the only
// public way to make such a list is the & / | operator, applied here to the copied events
// and an empty list.
const sc_event_and_list &to_and_list(const sc_event_or_list &list)
{
    sc_event_and_list events, none;
    static_cast<sc_event_list &>(events) = list;
    return (events & none).release();
}
const sc_event_or_list &to_or_list(const sc_event_and_list &list)
{
    sc_event_or_list events, none;
    static_cast<sc_event_list &>(events) = list;
    return (events | none).release();
}

// The events of a list, in the order they were added (SystemC drops a repeated event).
// sc_event_list keeps them in the private member m_events and offers no accessor. The
// access rules do not apply to the names in an explicit template instantiation, so
// instantiating `events_access` with &sc_event_list::m_events hands out a typed pointer to
// that member through the friend function `events_member`: no layout is assumed, and a
// change of the member's name or type fails the build instead of reading garbage.
using event_vector = std::vector<const sc_event *>;
template <event_vector sc_event_list::*Member> struct events_access {
    friend event_vector sc_event_list::*events_member() { return Member; }
};
event_vector sc_event_list::*events_member();
template struct events_access<&sc_event_list::m_events>;

const event_vector &events_of(const sc_event_list &list) { return list.*events_member(); }

// drop-event: the same kind of list without its first event, as a heap list the kernel
// frees after the wait (as to_and_list does); frees `list` if it is a temporary. With one
// event (`e | e` is one) nothing would be left to wait on, which SystemC rejects: the
// runtime refuses the mutant rather than run something that is not the design's.
template <class List> const List &without_first(uint32_t site, const List &list)
{
    List all, rest, none;
    static_cast<sc_event_list &>(all) = list;
    const event_vector &events = events_of(all);
    if (events.size() < 2)
        syncmut_fatal("drop-event at site %u: the event list holds %zu event(s) when the call "
                      "is reached; dropping one leaves no event to wait on, so this mutant "
                      "cannot be run here",
                      site, events.size());
    for (size_t i = 1; i < events.size(); ++i) {
        if constexpr (std::is_same_v<List, sc_event_or_list>)
            rest |= *events[i];
        else
            rest &= *events[i];
    }
    if constexpr (std::is_same_v<List, sc_event_or_list>)
        return (rest | none).release();
    else
        return (rest & none).release();
}

// ---- the kernel functions a wrapper may end up calling ------------------------------

// `wait` in an SC_THREAD, `next_trigger` in an SC_METHOD; the same overload set.
struct Wait {
    static constexpr uint32_t extra_event_ops = op_bit(SYNCMUT_WAIT_TO_NOTIFY);
    template <class... A> static void call(const A &...a) { sc_core::wait(a...); }
};
struct NextTrigger {
    // A method cannot turn its next_trigger(e) into e.notify() (see api.rs).
    static constexpr uint32_t extra_event_ops = 0;
    template <class... A> static void call(const A &...a) { sc_core::next_trigger(a...); }
};

constexpr uint32_t REMOVE = op_bit(SYNCMUT_REMOVE);
constexpr uint32_t TIMED_OPS = REMOVE | op_bit(SYNCMUT_TIME_DOUBLE) | op_bit(SYNCMUT_TIME_ZERO);
constexpr uint32_t TIMED_LIST_OPS = REMOVE | op_bit(SYNCMUT_TIME_DOUBLE);

// ---- one implementation per overload ---------------------------------------------------

// wait(): static sensitivity (threads only).
void wait_static(uint32_t site, const char *w, sc_simcontext *simc)
{
    call c = begin(site, SUSPENDS, REMOVE, w);
    if (c.op == SYNCMUT_REMOVE)
        return;
    sc_core::wait(simc);
}

// wait(n): n times the static sensitivity (threads only).
void wait_n(uint32_t site, const char *w, sc_simcontext *simc, int n)
{
    call c = begin(site, SUSPENDS, REMOVE, w);
    if (c.op == SYNCMUT_REMOVE)
        return;
    sc_core::wait(n, simc);
}

template <class K>
void on_event(uint32_t site, const char *w, sc_simcontext *simc, const sc_event &e)
{
    // wait-to-notify notifies `e` immediately: the record says whether that is lost.
    call c = begin(site, SUSPENDS, REMOVE | op_bit(SYNCMUT_EVENT_TO_TIMED) | K::extra_event_ops,
                   w, &e, op_bit(SYNCMUT_WAIT_TO_NOTIFY));
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return;
    case SYNCMUT_EVENT_TO_TIMED:
        return K::call(one_ns(simc), simc);
    case SYNCMUT_WAIT_TO_NOTIFY:
        // The waiter becomes the notifier of what it waited for (immediate notification).
        const_cast<sc_event &>(e).notify();
        return;
    default:
        return K::call(e, simc);
    }
}

template <class K>
void on_or(uint32_t site, const char *w, sc_simcontext *simc, const sc_event_or_list &el)
{
    call c = begin(site, SUSPENDS,
                   REMOVE | op_bit(SYNCMUT_EVENT_TO_TIMED) | op_bit(SYNCMUT_OR_TO_AND) |
                       op_bit(SYNCMUT_DROP_EVENT),
                   w);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return drop(el);
    case SYNCMUT_EVENT_TO_TIMED:
        drop(el);
        return K::call(one_ns(simc), simc);
    case SYNCMUT_OR_TO_AND:
        return K::call(to_and_list(el), simc);
    case SYNCMUT_DROP_EVENT:
        return K::call(without_first(site, el), simc);
    default:
        return K::call(el, simc);
    }
}

template <class K>
void on_and(uint32_t site, const char *w, sc_simcontext *simc, const sc_event_and_list &el)
{
    call c = begin(site, SUSPENDS,
                   REMOVE | op_bit(SYNCMUT_EVENT_TO_TIMED) | op_bit(SYNCMUT_AND_TO_OR) |
                       op_bit(SYNCMUT_DROP_EVENT),
                   w);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return drop(el);
    case SYNCMUT_EVENT_TO_TIMED:
        drop(el);
        return K::call(one_ns(simc), simc);
    case SYNCMUT_AND_TO_OR:
        return K::call(to_or_list(el), simc);
    case SYNCMUT_DROP_EVENT:
        return K::call(without_first(site, el), simc);
    default:
        return K::call(el, simc);
    }
}

template <class K>
void on_time(uint32_t site, const char *w, sc_simcontext *simc, const sc_time &t)
{
    call c = begin(site, SUSPENDS, TIMED_OPS, w);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return;
    case SYNCMUT_TIME_DOUBLE:
        return K::call(t + t, simc);
    case SYNCMUT_TIME_ZERO:
        return K::call(sc_core::SC_ZERO_TIME, simc);
    default:
        return K::call(t, simc);
    }
}

// (double, unit) overloads: the original builds sc_time(v, tu, simc) and calls the
// sc_time overload; so do we, doubling v for time-double.
template <class K>
void on_value(uint32_t site, const char *w, sc_simcontext *simc, double v, sc_time_unit tu)
{
    call c = begin(site, SUSPENDS, TIMED_OPS, w);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return;
    case SYNCMUT_TIME_DOUBLE:
        return K::call(sc_time(2 * v, tu, simc), simc);
    case SYNCMUT_TIME_ZERO:
        return K::call(sc_core::SC_ZERO_TIME, simc);
    default:
        return K::call(sc_time(v, tu, simc), simc);
    }
}

// Timeout plus event or list: remove, double the timeout, or (a list) drop its first event.
template <class Events> constexpr uint32_t timed_events_ops()
{
    return std::is_same_v<Events, sc_event> ? TIMED_LIST_OPS
                                            : TIMED_LIST_OPS | op_bit(SYNCMUT_DROP_EVENT);
}

template <class K, class Events>
void on_time_events(uint32_t site, const char *w, sc_simcontext *simc, const sc_time &t,
                    const Events &events)
{
    call c = begin(site, SUSPENDS, timed_events_ops<Events>(), w);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        if constexpr (!std::is_same_v<Events, sc_event>)
            drop(events);
        return;
    case SYNCMUT_TIME_DOUBLE:
        return K::call(t + t, events, simc);
    case SYNCMUT_DROP_EVENT:
        if constexpr (!std::is_same_v<Events, sc_event>)
            return K::call(t, without_first(site, events), simc);
        return K::call(t, events, simc);
    default:
        return K::call(t, events, simc);
    }
}

template <class K, class Events>
void on_value_events(uint32_t site, const char *w, sc_simcontext *simc, double v,
                     sc_time_unit tu, const Events &events)
{
    call c = begin(site, SUSPENDS, timed_events_ops<Events>(), w);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        if constexpr (!std::is_same_v<Events, sc_event>)
            drop(events);
        return;
    case SYNCMUT_TIME_DOUBLE:
        return K::call(sc_time(2 * v, tu, simc), events, simc);
    case SYNCMUT_DROP_EVENT:
        if constexpr (!std::is_same_v<Events, sc_event>)
            return K::call(sc_time(v, tu, simc), without_first(site, events), simc);
        return K::call(sc_time(v, tu, simc), events, simc);
    default:
        return K::call(sc_time(v, tu, simc), events, simc);
    }
}

} // namespace

// ---- entry points ------------------------------------------------------------------------
//
// ENTRY3(fn, suffix, impl, (params), (args)) defines
//   syncmut_sc_module_<fn><suffix>(site, sc_module *self, params)
//   syncmut_sc_prim_channel_<fn><suffix>(site, sc_prim_channel *self, params)
//   syncmut_sc_<fn><suffix>(site, params, sc_simcontext *simc)
// each calling impl(site, "<wrapper name>", simcontext, args).

#define SYNCMUT_UNPAREN(...) __VA_ARGS__

#define ENTRY3(fn, suffix, impl, params, args)                                               \
    extern "C" void syncmut_sc_module_##fn##suffix(uint32_t site, sc_module *self,            \
                                                   SYNCMUT_UNPAREN params)                    \
    {                                                                                         \
        impl(site, "syncmut_sc_module_" #fn #suffix, self->simcontext(),                      \
             SYNCMUT_UNPAREN args);                                                           \
    }                                                                                         \
    extern "C" void syncmut_sc_prim_channel_##fn##suffix(uint32_t site, sc_prim_channel *self, \
                                                         SYNCMUT_UNPAREN params)              \
    {                                                                                         \
        impl(site, "syncmut_sc_prim_channel_" #fn #suffix, self->simcontext(),                \
             SYNCMUT_UNPAREN args);                                                           \
    }                                                                                         \
    extern "C" void syncmut_sc_##fn##suffix(uint32_t site, SYNCMUT_UNPAREN params,            \
                                            sc_simcontext *simc)                              \
    {                                                                                         \
        impl(site, "syncmut_sc_" #fn #suffix, simc, SYNCMUT_UNPAREN args);                    \
    }

// The dynamic-sensitivity overloads, shared by wait (K = Wait) and next_trigger.
#define DYNAMIC_OVERLOADS(fn, K)                                                              \
    ENTRY3(fn, _event, on_event<K>, (const sc_event &e), (e))                                 \
    ENTRY3(fn, _or, on_or<K>, (const sc_event_or_list &el), (el))                             \
    ENTRY3(fn, _and, on_and<K>, (const sc_event_and_list &el), (el))                          \
    ENTRY3(fn, _time, on_time<K>, (const sc_time &t), (t))                                    \
    ENTRY3(fn, _value, on_value<K>, (double v, sc_time_unit tu), (v, tu))                     \
    ENTRY3(fn, _time_event, (on_time_events<K, sc_event>), (const sc_time &t, const sc_event &e), \
           (t, e))                                                                            \
    ENTRY3(fn, _value_event, (on_value_events<K, sc_event>),                                  \
           (double v, sc_time_unit tu, const sc_event &e), (v, tu, e))                        \
    ENTRY3(fn, _time_or, (on_time_events<K, sc_event_or_list>),                               \
           (const sc_time &t, const sc_event_or_list &el), (t, el))                           \
    ENTRY3(fn, _value_or, (on_value_events<K, sc_event_or_list>),                             \
           (double v, sc_time_unit tu, const sc_event_or_list &el), (v, tu, el))              \
    ENTRY3(fn, _time_and, (on_time_events<K, sc_event_and_list>),                             \
           (const sc_time &t, const sc_event_and_list &el), (t, el))                          \
    ENTRY3(fn, _value_and, (on_value_events<K, sc_event_and_list>),                           \
           (double v, sc_time_unit tu, const sc_event_and_list &el), (v, tu, el))

DYNAMIC_OVERLOADS(wait, Wait)
DYNAMIC_OVERLOADS(next_trigger, NextTrigger)
ENTRY3(wait, _n, wait_n, (int n), (n))

// wait() has no parameters besides the owner, so it does not fit ENTRY3.
extern "C" void syncmut_sc_module_wait(uint32_t site, sc_module *self)
{
    wait_static(site, "syncmut_sc_module_wait", self->simcontext());
}
extern "C" void syncmut_sc_prim_channel_wait(uint32_t site, sc_prim_channel *self)
{
    wait_static(site, "syncmut_sc_prim_channel_wait", self->simcontext());
}
extern "C" void syncmut_sc_wait(uint32_t site, sc_simcontext *simc)
{
    wait_static(site, "syncmut_sc_wait", simc);
}

// ---- sc_event ------------------------------------------------------------------------------

namespace {
constexpr uint32_t NOTIFY_OPS = REMOVE | op_bit(SYNCMUT_NOTIFY_DELTA) |
                                op_bit(SYNCMUT_NOTIFY_TIMED) | op_bit(SYNCMUT_NOTIFY_CANCEL);
constexpr uint32_t TIMED_NOTIFY_OPS = REMOVE | op_bit(SYNCMUT_NOTIFY_IMMEDIATE) |
                                      op_bit(SYNCMUT_NOTIFY_DELTA) |
                                      op_bit(SYNCMUT_NOTIFY_CANCEL);
constexpr uint32_t DELAYED_OPS =
    REMOVE | op_bit(SYNCMUT_NOTIFY_IMMEDIATE) | op_bit(SYNCMUT_NOTIFY_CANCEL);

// The operators (and "original", for notify()) that notify immediately: only those can
// be lost. Delta and timed notifications never are: a waiter may still arrive in time.
constexpr uint32_t IMMEDIATE = op_bit(SYNCMUT_NOTIFY_IMMEDIATE);
constexpr uint32_t ORIGINAL_IMMEDIATE = op_bit(SYNCMUT_ORIGINAL) | IMMEDIATE;

// Applies a notify mutation to `e`; false when `op` is not one (perform the original).
bool mutated_notify(syncmut_op op, sc_event *e)
{
    switch (op) {
    case SYNCMUT_REMOVE:
        return true;
    case SYNCMUT_NOTIFY_IMMEDIATE:
        e->notify();
        return true;
    case SYNCMUT_NOTIFY_DELTA:
        e->notify(sc_core::SC_ZERO_TIME);
        return true;
    case SYNCMUT_NOTIFY_TIMED:
        e->notify(1, sc_core::SC_NS);
        return true;
    case SYNCMUT_NOTIFY_CANCEL:
        e->cancel();
        return true;
    default:
        return false;
    }
}
} // namespace

extern "C" void syncmut_sc_event_notify(uint32_t site, sc_event *self)
{
    call c = begin(site, RETURNS, NOTIFY_OPS, __func__, self, ORIGINAL_IMMEDIATE);
    if (!mutated_notify(c.op, self))
        self->notify();
}

extern "C" void syncmut_sc_event_notify_time(uint32_t site, sc_event *self, const sc_time &t)
{
    call c = begin(site, RETURNS, TIMED_NOTIFY_OPS, __func__, self, IMMEDIATE);
    if (!mutated_notify(c.op, self))
        self->notify(t);
}

extern "C" void syncmut_sc_event_notify_value(uint32_t site, sc_event *self, double v,
                                              sc_time_unit tu)
{
    call c = begin(site, RETURNS, TIMED_NOTIFY_OPS, __func__, self, IMMEDIATE);
    if (!mutated_notify(c.op, self))
        self->notify(v, tu);
}

extern "C" void syncmut_sc_event_notify_delayed(uint32_t site, sc_event *self)
{
    call c = begin(site, RETURNS, DELAYED_OPS, __func__, self, IMMEDIATE);
    if (!mutated_notify(c.op, self))
        self->notify_delayed();
}

extern "C" void syncmut_sc_event_notify_delayed_time(uint32_t site, sc_event *self,
                                                     const sc_time &t)
{
    call c = begin(site, RETURNS, DELAYED_OPS, __func__, self, IMMEDIATE);
    if (!mutated_notify(c.op, self))
        self->notify_delayed(t);
}

extern "C" void syncmut_sc_event_notify_delayed_value(uint32_t site, sc_event *self, double v,
                                                      sc_time_unit tu)
{
    call c = begin(site, RETURNS, DELAYED_OPS, __func__, self, IMMEDIATE);
    if (!mutated_notify(c.op, self))
        self->notify_delayed(v, tu);
}

extern "C" void syncmut_sc_event_cancel(uint32_t site, sc_event *self)
{
    call c = begin(site, RETURNS, REMOVE, __func__);
    if (c.op != SYNCMUT_REMOVE)
        self->cancel();
}

// ---- sc_mutex and sc_semaphore ----------------------------------------------------------
// The mutator sees direct (devirtualised) calls of these members, so the wrappers call the
// same functions non-virtually: `self->sc_mutex::lock()`, not `self->lock()`.

extern "C" int syncmut_sc_mutex_lock(uint32_t site, sc_core::sc_mutex *self)
{
    call c = begin(site, SUSPENDS, REMOVE | op_bit(SYNCMUT_LOCK_TO_TRYLOCK) | op_bit(SYNCMUT_REMOVE_LOCK_PAIR), __func__);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_LOCK_TO_TRYLOCK:
        (void)self->sc_core::sc_mutex::trylock(); // failure ignored
        return 0;
    default:
        return self->sc_core::sc_mutex::lock();
    }
}

extern "C" int syncmut_sc_mutex_trylock(uint32_t site, sc_core::sc_mutex *self)
{
    call c = begin(site, RETURNS, REMOVE, __func__);
    if (c.op == SYNCMUT_REMOVE)
        return 0;
    return self->sc_core::sc_mutex::trylock();
}

extern "C" int syncmut_sc_mutex_unlock(uint32_t site, sc_core::sc_mutex *self)
{
    call c = begin(site, RETURNS, REMOVE | op_bit(SYNCMUT_REMOVE_LOCK_PAIR), __func__);
    if (c.op == SYNCMUT_REMOVE)
        return 0;
    return self->sc_core::sc_mutex::unlock();
}

extern "C" int syncmut_sc_semaphore_wait(uint32_t site, sc_core::sc_semaphore *self)
{
    call c = begin(site, SUSPENDS, REMOVE | op_bit(SYNCMUT_WAIT_TO_TRYWAIT), __func__);
    switch (c.op) {
    case SYNCMUT_REMOVE:
        return 0;
    case SYNCMUT_WAIT_TO_TRYWAIT:
        (void)self->sc_core::sc_semaphore::trywait(); // failure ignored
        return 0;
    default:
        return self->sc_core::sc_semaphore::wait();
    }
}

extern "C" int syncmut_sc_semaphore_trywait(uint32_t site, sc_core::sc_semaphore *self)
{
    call c = begin(site, RETURNS, REMOVE, __func__);
    if (c.op == SYNCMUT_REMOVE)
        return 0;
    return self->sc_core::sc_semaphore::trywait();
}

extern "C" int syncmut_sc_semaphore_post(uint32_t site, sc_core::sc_semaphore *self)
{
    call c = begin(site, RETURNS, REMOVE, __func__);
    if (c.op == SYNCMUT_REMOVE)
        return 0;
    return self->sc_core::sc_semaphore::post();
}

// ---- generic gate for generated trampolines ---------------------------------------------
// sc_fifo<T> and its ports are templates, so the mutator generates one trampoline per
// instance inside the design; the trampoline asks here what to do and performs it itself.
// `ops` is the site's comma-separated operator list; the answer is the active operator's
// 1-based position in it, or 0 for the original call.

namespace {
// Whether `ops` (comma-separated slugs) contains `slug`.
bool has_slug(const char *ops, const char *slug)
{
    size_t len = std::strlen(slug);
    for (const char *p = ops; *p != '\0';) {
        const char *comma = std::strchr(p, ',');
        size_t n = comma != nullptr ? static_cast<size_t>(comma - p) : std::strlen(p);
        if (n == len && std::strncmp(p, slug, len) == 0)
            return true;
        if (comma == nullptr)
            break;
        p = comma + 1;
    }
    return false;
}
} // namespace

extern "C" int32_t syncmut_gate(uint32_t site, const char *ops)
{
    syncmut_op op;
    int position = syncmut_op_position(site, ops, &op);
    // A blocking access (its site offers blocking-to-nonblocking) is a suspending call.
    bool blocking_original = has_slug(ops, "blocking-to-nonblocking");
    here h = syncmut_monitor::observe(site, blocking_original ? SUSPENDS : RETURNS);
    syncmut_monitor::inside guard(h);
    record(h, site, op);
    // The access the trampoline performs next may block: a blocking original run as is,
    // or a non-blocking one made blocking.
    bool may_block = (op == SYNCMUT_ORIGINAL && blocking_original) ||
                     op == SYNCMUT_NONBLOCKING_TO_BLOCKING;
    if (may_block)
        syncmut_monitor::gate_leaves_site_marked(h);
    return position;
}

// ---- sc_semaphore's initial count ----------------------------------------------------------
// The constructor call becomes the wrapper, which constructs the semaphore in place, with
// the count the active operator gives.

namespace {
int initial_count(syncmut_op op, int count)
{
    if (op == SYNCMUT_SEMAPHORE_COUNT_UP)
        return count + 1;
    if (op == SYNCMUT_SEMAPHORE_COUNT_DOWN)
        return count - 1;
    return count;
}
constexpr uint32_t COUNT_OPS = op_bit(SYNCMUT_SEMAPHORE_COUNT_UP) | op_bit(SYNCMUT_SEMAPHORE_COUNT_DOWN);
} // namespace

extern "C" void syncmut_sc_semaphore_construct(uint32_t site, sc_core::sc_semaphore *self, int count)
{
    call c = begin(site, RETURNS, COUNT_OPS, __func__);
    new (self) sc_core::sc_semaphore(initial_count(c.op, count));
}

extern "C" void syncmut_sc_semaphore_construct_named(uint32_t site, sc_core::sc_semaphore *self,
                                                     const char *name, int count)
{
    call c = begin(site, RETURNS, COUNT_OPS, __func__);
    new (self) sc_core::sc_semaphore(name, initial_count(c.op, count));
}
