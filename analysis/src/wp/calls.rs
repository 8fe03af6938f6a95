//! What a call to a runtime or library function means to the analysis (a SystemC wait,
//! notify or yield, a thread start, a scheduling point, a nondet input, an integer
//! parser), decided by the callee's name in one place.

use crate::ir::Func;

/// The event argument's position of a wrapped SystemC `wait(e)`.
pub(super) fn event_wait_arg(wrapper: &str) -> Option<usize> {
    if !wrapper.starts_with("syncmut_sc_") || !wrapper.ends_with("wait_event") {
        return None;
    }
    // Member forms (`sc_module::wait`, `sc_prim_channel::wait`) pass the object first.
    Some(if wrapper.contains("_module_") || wrapper.contains("_prim_channel_") { 2 } else { 1 })
}

/// `Some(immediate?)` for a wrapped `sc_event::notify*`: only an immediate notify can
/// be lost (delta and timed ones wake whoever waits by the end of the delta cycle).
pub(super) fn notify_kind(wrapper: &str) -> Option<bool> {
    wrapper.starts_with("syncmut_sc_event_notify").then_some(wrapper == "syncmut_sc_event_notify")
}

/// A wrapped call where a SystemC process may yield to the kernel.
pub(super) fn may_yield(wrapper: &str) -> bool {
    wrapper.starts_with("syncmut.fifo.") || (wrapper.starts_with("syncmut_sc_") && (wrapper.contains("wait") || wrapper.ends_with("_lock")))
}

/// The `__VERIFIER_nondet_<type>` suffix of a function without a body.
pub(super) fn nondet_type(f: Func<'_>) -> Option<String> {
    if f.has_body() {
        return None;
    }
    f.name().strip_prefix("__VERIFIER_nondet_").map(str::to_string)
}

/// A call where another thread or process may run (wrapped synchronization calls,
/// thread creation, `sc_start`); the runtime's input functions are not.
pub(super) fn is_scheduling_call(name: &str) -> bool {
    (name.starts_with("syncmut_") && !name.starts_with("syncmut_input_")) || name.starts_with("syncmut.") || name.contains("sc_start") || name.starts_with("pthread_")
}

/// A call that starts other threads or processes (thread creation, `sc_start`).
pub(super) fn is_thread_start(name: &str) -> bool {
    name == "syncmut_hook_pthread_create" || name == "pthread_create" || name.contains("sc_start")
}

/// Names of library functions that parse an integer from a string.
pub(super) const INT_PARSERS: &[&str] = &["atoi", "atol", "atoll", "strtol", "strtoul", "strtoll", "strtoull"];
