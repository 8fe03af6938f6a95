//! The synchronization APIs syncmut recognises, and the runtime wrapper each one is
//! rewritten to.
//!
//! Functions are recognised by their demangled signature, so every overload is listed
//! explicitly and a new overload in a later SystemC release cannot slip through as a
//! near match. The wrapper contract (see `runtime-lib/README.md`): the wrapper takes
//! `uint32_t site` followed by the original call's arguments (for member functions the
//! object pointer first) and returns what the original returns.
//!
//! Each row also states what the call does ([`Effect`]), which later stages read
//! instead of the function's name. Calls that are not mutated but whose effect the
//! analysis and the scheduler need (thread creation and exit, SystemC process
//! registration, `sc_start`) are in a second table, [`observed`].

use crate::effect::{Access, Blocking, Effect, Until, When};
use crate::operator::Operator;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Which threading model a primitive belongs to; decides how the design is linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Pthread,
    Systemc,
}

/// How a site's call is rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rewrite {
    /// Call a fixed runtime wrapper (`SyncApi::wrapper`).
    Wrapper,
    /// `sc_fifo<T>` and its ports are templates, so no precompiled wrapper can take
    /// every `T`: the mutator generates a trampoline per callee in the module itself,
    /// which asks the runtime's generic gate what to do and calls `counterpart` (the
    /// blocking/non-blocking twin of the same class) for the swap operator.
    FifoTrampoline { access: FifoAccess, counterpart: String },
    /// A project's own synchronization function (`[[sync]]`): a trampoline in the
    /// module asks the runtime's `gate` whether the call is removed
    /// (`crate::user_sync`).
    UserTrampoline { gate: &'static str },
}

/// The `sc_fifo` member functions syncmut mutates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FifoAccess {
    /// `T read()`.
    ReadValue,
    /// `void read(T&)`.
    Read,
    /// `bool nb_read(T&)`.
    NbRead,
    /// `void write(const T&)`.
    Write,
    /// `bool nb_write(const T&)`.
    NbWrite,
}

impl FifoAccess {
    /// The member function name of the blocking/non-blocking twin.
    pub fn counterpart_name(self) -> &'static str {
        match self {
            FifoAccess::ReadValue | FifoAccess::Read => "nb_read",
            FifoAccess::NbRead => "read",
            FifoAccess::Write => "nb_write",
            FifoAccess::NbWrite => "write",
        }
    }
}

/// One recognised function (one overload).
#[derive(Debug, Clone)]
pub struct SyncApi {
    /// Demangled signature as LLVM's demangler prints it, e.g.
    /// `sc_core::sc_module::wait(sc_core::sc_event const&)` or `pthread_mutex_lock`.
    pub signature: String,
    /// Symbol of the runtime wrapper that replaces the callee.
    pub wrapper: String,
    pub family: Family,
    /// What a call does.
    pub effect: Effect,
    /// Operators that apply to a call of this function.
    pub operators: Vec<Operator>,
    pub rewrite: Rewrite,
}

use Operator::*;

/// pthread, POSIX semaphore and C11 thread functions: (name, effect, operators).
const PTHREAD: &[(&str, Effect, &[Operator])] = &[
    ("pthread_mutex_lock", Effect::Lock { lock: 0, blocking: Blocking::Waits }, &[Remove, LockToTrylock]),
    ("pthread_mutex_trylock", Effect::Lock { lock: 0, blocking: Blocking::Tries }, &[Remove]),
    ("pthread_mutex_timedlock", Effect::Lock { lock: 0, blocking: Blocking::Timed }, &[Remove, TimedlockToLock]),
    ("pthread_mutex_unlock", Effect::Unlock { lock: 0 }, &[Remove]),
    ("pthread_cond_wait", Effect::CondWait { cond: 0, mutex: 1, timed: false }, &[Remove, WaitToTimedwait]),
    ("pthread_cond_timedwait", Effect::CondWait { cond: 0, mutex: 1, timed: true }, &[Remove, TimedwaitToWait]),
    ("pthread_cond_signal", Effect::CondSignal { cond: 0, all: false }, &[Remove, SignalToBroadcast]),
    ("pthread_cond_broadcast", Effect::CondSignal { cond: 0, all: true }, &[Remove, BroadcastToSignal]),
    ("pthread_rwlock_rdlock", Effect::Lock { lock: 0, blocking: Blocking::Waits }, &[Remove, LockToTrylock]),
    ("pthread_rwlock_wrlock", Effect::Lock { lock: 0, blocking: Blocking::Waits }, &[Remove, LockToTrylock]),
    ("pthread_rwlock_unlock", Effect::Unlock { lock: 0 }, &[Remove]),
    ("pthread_spin_lock", Effect::Lock { lock: 0, blocking: Blocking::Waits }, &[Remove, LockToTrylock]),
    ("pthread_spin_unlock", Effect::Unlock { lock: 0 }, &[Remove]),
    ("sem_wait", Effect::SemaphoreWait { semaphore: 0, blocking: Blocking::Waits }, &[Remove, WaitToTrywait]),
    ("sem_trywait", Effect::SemaphoreWait { semaphore: 0, blocking: Blocking::Tries }, &[Remove]),
    ("sem_post", Effect::SemaphorePost { semaphore: 0 }, &[Remove]),
    ("pthread_barrier_wait", Effect::Barrier { barrier: 0 }, &[Remove]),
    // Initialisation is not removable (the object would be unusable), only miscounted.
    ("pthread_barrier_init", Effect::Initialize { object: 0, count: 2 }, &[BarrierCountUp, BarrierCountDown]),
    ("sem_init", Effect::Initialize { object: 0, count: 2 }, &[SemaphoreCountUp, SemaphoreCountDown]),
    ("pthread_join", Effect::Join { thread: 0 }, &[Remove]),
    // C11 <threads.h>: glibc builds them on the pthread objects; the wrappers are the
    // pthread ones with C11's results (runtime-lib/src/c11_wrappers.c).
    ("mtx_lock", Effect::Lock { lock: 0, blocking: Blocking::Waits }, &[Remove, LockToTrylock]),
    ("mtx_trylock", Effect::Lock { lock: 0, blocking: Blocking::Tries }, &[Remove]),
    ("mtx_timedlock", Effect::Lock { lock: 0, blocking: Blocking::Timed }, &[Remove, TimedlockToLock]),
    ("mtx_unlock", Effect::Unlock { lock: 0 }, &[Remove]),
    ("cnd_wait", Effect::CondWait { cond: 0, mutex: 1, timed: false }, &[Remove, WaitToTimedwait]),
    ("cnd_timedwait", Effect::CondWait { cond: 0, mutex: 1, timed: true }, &[Remove, TimedwaitToWait]),
    ("cnd_signal", Effect::CondSignal { cond: 0, all: false }, &[Remove, SignalToBroadcast]),
    ("cnd_broadcast", Effect::CondSignal { cond: 0, all: true }, &[Remove, BroadcastToSignal]),
    ("thrd_join", Effect::Join { thread: 0 }, &[Remove]),
];

/// Overloads shared by `wait` and `next_trigger`: (wrapper suffix, parameter list,
/// what it waits for, operators). Argument positions in `Until` count the listed
/// parameters; member forms shift them by one for the object. `static` sensitivity
/// overloads (`wait()`, `wait(int)`) exist only for `wait`.
const WAIT_OVERLOADS: &[(&str, &str, Until, &[Operator])] = &[
    ("", "", Until::Static, &[Remove]),
    ("_n", "int", Until::Static, &[Remove]),
    ("_event", "sc_core::sc_event const&", Until::Event { event: 0 }, &[Remove, EventToTimed, WaitToNotify]),
    ("_or", "sc_core::sc_event_or_list const&", Until::Events { list: 0, all: false }, &[Remove, EventToTimed, OrToAnd, DropEvent]),
    ("_and", "sc_core::sc_event_and_list const&", Until::Events { list: 0, all: true }, &[Remove, EventToTimed, AndToOr, DropEvent]),
    ("_time", "sc_core::sc_time const&", Until::Time, &[Remove, TimeDouble, TimeZero]),
    ("_value", "double, sc_core::sc_time_unit", Until::Time, &[Remove, TimeDouble, TimeZero]),
    ("_time_event", "sc_core::sc_time const&, sc_core::sc_event const&", Until::TimeOrEvents { events: 1 }, &[Remove, TimeDouble]),
    ("_value_event", "double, sc_core::sc_time_unit, sc_core::sc_event const&", Until::TimeOrEvents { events: 2 }, &[Remove, TimeDouble]),
    ("_time_or", "sc_core::sc_time const&, sc_core::sc_event_or_list const&", Until::TimeOrEvents { events: 1 }, &[Remove, DropEvent, TimeDouble]),
    ("_value_or", "double, sc_core::sc_time_unit, sc_core::sc_event_or_list const&", Until::TimeOrEvents { events: 2 }, &[Remove, DropEvent, TimeDouble]),
    ("_time_and", "sc_core::sc_time const&, sc_core::sc_event_and_list const&", Until::TimeOrEvents { events: 1 }, &[Remove, DropEvent, TimeDouble]),
    ("_value_and", "double, sc_core::sc_time_unit, sc_core::sc_event_and_list const&", Until::TimeOrEvents { events: 2 }, &[Remove, DropEvent, TimeDouble]),
];

/// SystemC member functions of channels and events: (signature, wrapper, effect,
/// operators). The object is argument 0.
const SC_MEMBERS: &[(&str, &str, Effect, &[Operator])] = &[
    ("sc_core::sc_event::notify()", "syncmut_sc_event_notify", Effect::Notify { event: 0, when: When::Immediate }, &[Remove, NotifyDelta, NotifyTimed, NotifyCancel]),
    ("sc_core::sc_event::notify(sc_core::sc_time const&)", "syncmut_sc_event_notify_time", Effect::Notify { event: 0, when: When::Timed }, &[Remove, NotifyImmediate, NotifyDelta, NotifyCancel]),
    ("sc_core::sc_event::notify(double, sc_core::sc_time_unit)", "syncmut_sc_event_notify_value", Effect::Notify { event: 0, when: When::Timed }, &[Remove, NotifyImmediate, NotifyDelta, NotifyCancel]),
    ("sc_core::sc_event::notify_delayed()", "syncmut_sc_event_notify_delayed", Effect::Notify { event: 0, when: When::Delta }, &[Remove, NotifyImmediate, NotifyCancel]),
    ("sc_core::sc_event::notify_delayed(sc_core::sc_time const&)", "syncmut_sc_event_notify_delayed_time", Effect::Notify { event: 0, when: When::Timed }, &[Remove, NotifyImmediate, NotifyCancel]),
    ("sc_core::sc_event::notify_delayed(double, sc_core::sc_time_unit)", "syncmut_sc_event_notify_delayed_value", Effect::Notify { event: 0, when: When::Timed }, &[Remove, NotifyImmediate, NotifyCancel]),
    ("sc_core::sc_event::cancel()", "syncmut_sc_event_cancel", Effect::Cancel { event: 0 }, &[Remove]),
    ("sc_core::sc_mutex::lock()", "syncmut_sc_mutex_lock", Effect::Lock { lock: 0, blocking: Blocking::Waits }, &[Remove, LockToTrylock]),
    ("sc_core::sc_mutex::trylock()", "syncmut_sc_mutex_trylock", Effect::Lock { lock: 0, blocking: Blocking::Tries }, &[Remove]),
    ("sc_core::sc_mutex::unlock()", "syncmut_sc_mutex_unlock", Effect::Unlock { lock: 0 }, &[Remove]),
    ("sc_core::sc_semaphore::wait()", "syncmut_sc_semaphore_wait", Effect::SemaphoreWait { semaphore: 0, blocking: Blocking::Waits }, &[Remove, WaitToTrywait]),
    ("sc_core::sc_semaphore::trywait()", "syncmut_sc_semaphore_trywait", Effect::SemaphoreWait { semaphore: 0, blocking: Blocking::Tries }, &[Remove]),
    ("sc_core::sc_semaphore::post()", "syncmut_sc_semaphore_post", Effect::SemaphorePost { semaphore: 0 }, &[Remove]),
    ("sc_core::sc_semaphore::sc_semaphore(int)", "syncmut_sc_semaphore_construct", Effect::Initialize { object: 0, count: 1 }, &[SemaphoreCountUp, SemaphoreCountDown]),
    ("sc_core::sc_semaphore::sc_semaphore(char const*, int)", "syncmut_sc_semaphore_construct_named", Effect::Initialize { object: 0, count: 2 }, &[SemaphoreCountUp, SemaphoreCountDown]),
];

/// A function whose calls are never mutation sites but whose effect later stages
/// need. Every overload counts: their effect does not depend on the parameters.
#[derive(Debug, Clone, Copy)]
pub struct ObservedApi {
    /// The qualified name, without parameters (`sc_core::sc_start`, `pthread_create`).
    pub name: &'static str,
    pub family: Family,
    /// What a call does.
    pub effect: Effect,
    /// The runtime hook every call is rewritten to, wherever it is (a thread the
    /// runtime's scheduler does not know about would run uncontrolled); `None`: the
    /// call stays, tagged with its effect.
    pub hook: Option<&'static str>,
}

const OBSERVED: &[ObservedApi] = &[
    ObservedApi { name: "pthread_create", family: Family::Pthread, effect: Effect::CreateThread { routine: 2, data: 3 }, hook: Some("syncmut_hook_pthread_create") },
    ObservedApi { name: "pthread_exit", family: Family::Pthread, effect: Effect::ExitThread, hook: Some("syncmut_hook_pthread_exit") },
    ObservedApi { name: "thrd_create", family: Family::Pthread, effect: Effect::CreateThread { routine: 1, data: 2 }, hook: Some("syncmut_hook_thrd_create") },
    ObservedApi { name: "thrd_exit", family: Family::Pthread, effect: Effect::ExitThread, hook: Some("syncmut_hook_thrd_exit") },
    ObservedApi { name: "sc_core::sc_start", family: Family::Systemc, effect: Effect::StartSimulation, hook: None },
    ObservedApi { name: "sc_core::sc_simcontext::create_thread_process", family: Family::Systemc, effect: Effect::RegisterProcess, hook: None },
    ObservedApi { name: "sc_core::sc_simcontext::create_method_process", family: Family::Systemc, effect: Effect::RegisterProcess, hook: None },
    ObservedApi { name: "sc_core::sc_simcontext::create_cthread_process", family: Family::Systemc, effect: Effect::RegisterProcess, hook: None },
];

/// Looks up a demangled function signature in the table of observed functions.
pub fn observed(signature: &str) -> Option<&'static ObservedApi> {
    let name = signature.split('(').next().unwrap_or(signature);
    OBSERVED.iter().find(|api| api.name == name)
}

fn build_table() -> Vec<SyncApi> {
    let mut table = Vec::new();
    for (name, effect, ops) in PTHREAD {
        table.push(SyncApi {
            signature: (*name).to_string(),
            wrapper: format!("syncmut_{name}"),
            family: Family::Pthread,
            effect: *effect,
            operators: ops.to_vec(),
            rewrite: Rewrite::Wrapper,
        });
    }
    // `wait`/`next_trigger` exist as protected members of sc_module and sc_prim_channel
    // and as sc_core free functions that take the simulation context last.
    let owners = [
        ("sc_core::sc_module::", "sc_module_", ""),
        ("sc_core::sc_prim_channel::", "sc_prim_channel_", ""),
        ("sc_core::", "sc_", "sc_core::sc_simcontext*"),
    ];
    for (prefix, wrapper_owner, trailing) in owners {
        for function in ["wait", "next_trigger"] {
            for (suffix, params, until, ops) in WAIT_OVERLOADS {
                if function == "next_trigger" && matches!(*suffix, "" | "_n") {
                    continue; // next_trigger() has no static-sensitivity overloads
                }
                let params = match (params.is_empty(), trailing.is_empty()) {
                    (_, true) => params.to_string(),
                    (true, false) => trailing.to_string(),
                    (false, false) => format!("{params}, {trailing}"),
                };
                // next_trigger in an SC_METHOD cannot become a notify of the event.
                let ops = ops
                    .iter()
                    .copied()
                    .filter(|op| function == "wait" || *op != WaitToNotify)
                    .collect();
                // Member forms take the object first; the free ones take the context last.
                let until = if trailing.is_empty() { until.shifted(1) } else { *until };
                table.push(SyncApi {
                    signature: format!("{prefix}{function}({params})"),
                    wrapper: format!("syncmut_{wrapper_owner}{function}{suffix}"),
                    family: Family::Systemc,
                    effect: if function == "wait" { Effect::Wait { until } } else { Effect::NextTrigger { until } },
                    operators: ops,
                    rewrite: Rewrite::Wrapper,
                });
            }
        }
    }
    for (signature, wrapper, effect, ops) in SC_MEMBERS {
        table.push(SyncApi {
            signature: (*signature).to_string(),
            wrapper: (*wrapper).to_string(),
            family: Family::Systemc,
            effect: *effect,
            operators: ops.to_vec(),
            rewrite: Rewrite::Wrapper,
        });
    }
    table
}

/// Every recognised API, in a fixed order.
pub fn all() -> &'static [SyncApi] {
    static TABLE: OnceLock<Vec<SyncApi>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

/// Looks up a demangled function signature: first the fixed table, then the
/// `sc_fifo` family of templates.
pub fn lookup(signature: &str) -> Option<SyncApi> {
    static INDEX: OnceLock<HashMap<&'static str, &'static SyncApi>> = OnceLock::new();
    let index = INDEX.get_or_init(|| all().iter().map(|api| (api.signature.as_str(), api)).collect());
    index.get(signature).map(|api| (*api).clone()).or_else(|| fifo_api(signature))
}

/// Recognises `sc_core::sc_fifo<T>`, `sc_fifo_in<T>` and `sc_fifo_out<T>` accesses.
/// The counterpart is named by the caller's class and the twin's name; the mutator
/// checks that the module actually contains it.
fn fifo_api(signature: &str) -> Option<SyncApi> {
    let (class, member) = split_member(signature)?;
    let is_fifo_class = ["sc_core::sc_fifo<", "sc_core::sc_fifo_in<", "sc_core::sc_fifo_out<"]
        .iter()
        .any(|prefix| class.starts_with(prefix));
    if !is_fifo_class {
        return None;
    }
    let (name, params) = member.split_once('(')?;
    let params = params.strip_suffix(')')?;
    let access = match (name, params.is_empty()) {
        ("read", true) => FifoAccess::ReadValue,
        ("read", false) if params.ends_with('&') && !params.ends_with("const&") => FifoAccess::Read,
        ("nb_read", false) => FifoAccess::NbRead,
        ("write", false) => FifoAccess::Write,
        ("nb_write", false) => FifoAccess::NbWrite,
        _ => return None,
    };
    let swap = match access {
        FifoAccess::NbRead | FifoAccess::NbWrite => Operator::NonblockingToBlocking,
        _ => Operator::BlockingToNonblocking,
    };
    let counterpart_params = if access == FifoAccess::ReadValue { format!("{}&", template_argument(class)?) } else { params.to_string() };
    Some(SyncApi {
        signature: signature.to_string(),
        wrapper: format!("syncmut.fifo.{class}::{name}"),
        family: Family::Systemc,
        effect: Effect::Fifo {
            fifo: 0,
            access: if matches!(access, FifoAccess::Write | FifoAccess::NbWrite) { Access::Write } else { Access::Read },
            blocking: !matches!(access, FifoAccess::NbRead | FifoAccess::NbWrite),
        },
        operators: vec![Remove, swap],
        rewrite: Rewrite::FifoTrampoline {
            access,
            counterpart: format!("{class}::{}({counterpart_params})", access.counterpart_name()),
        },
    })
}

/// Splits `ns::cls<T>::member(params)` into the class and `member(params)`, honouring
/// `::` inside template arguments.
fn split_member(signature: &str) -> Option<(&str, &str)> {
    let open = signature.find('(')?;
    let head = &signature[..open];
    let mut depth = 0i32;
    let mut split = None;
    let bytes = head.as_bytes();
    for i in 0..bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && i + 1 < bytes.len() && bytes[i + 1] == b':' => split = Some(i),
            _ => {}
        }
    }
    let at = split?;
    Some((&signature[..at], &signature[at + 2..]))
}

/// `sc_core::sc_fifo<int>` → `int`.
fn template_argument(class: &str) -> Option<&str> {
    let open = class.find('<')?;
    class[open + 1..].strip_suffix('>').map(str::trim_end)
}

/// Demangles an Itanium C++ symbol the way `llvm-cxxfilt` prints it; C names pass
/// through unchanged.
pub fn demangle(symbol: &str) -> String {
    cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle(&cpp_demangle::DemangleOptions::default()).ok())
        .unwrap_or_else(|| symbol.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_and_wrappers_are_unique() {
        let mut sigs = std::collections::HashSet::new();
        let mut wrappers = std::collections::HashSet::new();
        for api in all() {
            assert!(sigs.insert(&api.signature), "{}", api.signature);
            assert!(wrappers.insert(&api.wrapper), "{}", api.wrapper);
            // Every call can be removed except an initialisation, which can only be miscounted.
            let initializes = matches!(api.effect, Effect::Initialize { .. });
            assert_eq!(api.operators.first() == Some(&Operator::Remove), !initializes, "{}", api.signature);
        }
    }

    #[test]
    fn demangled_names_match_the_table() {
        let cases = [
            ("_ZN7sc_core9sc_module4waitERKNS_8sc_eventE", "syncmut_sc_module_wait_event"),
            ("_ZN7sc_core9sc_module4waitEdNS_12sc_time_unitE", "syncmut_sc_module_wait_value"),
            ("_ZN7sc_core4waitERKNS_7sc_timeEPNS_13sc_simcontextE", "syncmut_sc_wait_time"),
            ("_ZN7sc_core4waitEPNS_13sc_simcontextE", "syncmut_sc_wait"),
            ("_ZN7sc_core8sc_event6notifyEv", "syncmut_sc_event_notify"),
            ("pthread_mutex_lock", "syncmut_pthread_mutex_lock"),
            ("_ZN7sc_core12sc_semaphoreC1Ei", "syncmut_sc_semaphore_construct"),
            ("_ZN7sc_core12sc_semaphoreC1EPKci", "syncmut_sc_semaphore_construct_named"),
        ];
        for (mangled, wrapper) in cases {
            let sig = demangle(mangled);
            let api = lookup(&sig).unwrap_or_else(|| panic!("{mangled} → {sig} not found"));
            assert_eq!(api.wrapper, wrapper);
        }
        assert!(lookup(&demangle("_ZN7sc_core8sc_eventC2Ev")).is_none());
    }

    #[test]
    fn effects_name_the_arguments_of_the_original_call() {
        let effect = |sig: &str| lookup(sig).unwrap_or_else(|| panic!("{sig} not found")).effect;
        // Member forms count the object as argument 0; the free forms do not.
        assert_eq!(effect("sc_core::sc_module::wait(sc_core::sc_event const&)"), Effect::Wait { until: Until::Event { event: 1 } });
        assert_eq!(effect("sc_core::wait(sc_core::sc_event const&, sc_core::sc_simcontext*)"), Effect::Wait { until: Until::Event { event: 0 } });
        assert_eq!(
            effect("sc_core::sc_prim_channel::next_trigger(double, sc_core::sc_time_unit, sc_core::sc_event_or_list const&)"),
            Effect::NextTrigger { until: Until::TimeOrEvents { events: 3 } }
        );
        assert_eq!(effect("sc_core::sc_event::notify_delayed()"), Effect::Notify { event: 0, when: When::Delta });
        assert_eq!(effect("pthread_cond_timedwait"), Effect::CondWait { cond: 0, mutex: 1, timed: true });
        assert_eq!(effect("sc_core::sc_fifo<int>::nb_write(int const&)"), Effect::Fifo { fifo: 0, access: Access::Write, blocking: false });
        assert_eq!(effect("sc_core::sc_fifo_in<int>::read()"), Effect::Fifo { fifo: 0, access: Access::Read, blocking: true });
    }

    #[test]
    fn observed_functions_match_every_overload_and_are_never_sites() {
        let effect = |sig: &str| observed(sig).map(|api| api.effect);
        assert_eq!(effect("pthread_create"), Some(Effect::CreateThread { routine: 2, data: 3 }));
        assert_eq!(effect("sc_core::sc_start()"), Some(Effect::StartSimulation));
        assert_eq!(effect("sc_core::sc_start(sc_core::sc_time const&, sc_core::sc_starvation_policy)"), Some(Effect::StartSimulation));
        assert_eq!(
            effect("sc_core::sc_simcontext::create_method_process(char const*, bool, void (sc_core::sc_process_host::*)(), sc_core::sc_process_host*, sc_core::sc_spawn_options const*)"),
            Some(Effect::RegisterProcess)
        );
        assert_eq!(
            effect("sc_core::sc_simcontext::create_cthread_process(char const*, bool, void (sc_core::sc_process_host::*)(), sc_core::sc_process_host*, sc_core::sc_spawn_options const*)"),
            Some(Effect::RegisterProcess)
        );
        assert_eq!(effect("sc_core::sc_start_of_simulation_invoked()"), None);
        for api in OBSERVED {
            assert!(lookup(api.name).is_none() && all().iter().all(|site| !site.signature.starts_with(api.name)), "{} is also a site", api.name);
        }
    }

    #[test]
    fn fifo_templates_are_recognised_with_their_counterparts() {
        let counterpart = |sig: &str| match lookup(sig).map(|a| a.rewrite) {
            Some(Rewrite::FifoTrampoline { counterpart, .. }) => counterpart,
            other => panic!("{sig}: {other:?}"),
        };
        assert_eq!(counterpart("sc_core::sc_fifo<int>::read()"), "sc_core::sc_fifo<int>::nb_read(int&)");
        assert_eq!(counterpart("sc_core::sc_fifo<int>::read(int&)"), "sc_core::sc_fifo<int>::nb_read(int&)");
        assert_eq!(counterpart("sc_core::sc_fifo<int>::nb_write(int const&)"), "sc_core::sc_fifo<int>::write(int const&)");
        assert_eq!(
            counterpart("sc_core::sc_fifo_in<std::pair<int, int> >::read()"),
            "sc_core::sc_fifo_in<std::pair<int, int> >::nb_read(std::pair<int, int>&)"
        );
        assert!(lookup("sc_core::sc_fifo<int>::num_free() const").is_none());
        assert!(lookup("sc_core::sc_fifo<int>::update()").is_none());
        assert!(lookup("my::sc_fifo<int>::read()").is_none());
    }
}
