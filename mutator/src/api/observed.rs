//! The second table: calls that are never mutation sites but whose effect later stages
//! need (thread creation and exit, SystemC process registration, `sc_start`), with the
//! runtime hook a call is rewritten to where there is one.

use crate::effect::{Effect, Family};

/// A function whose calls are never mutation sites but whose effect later stages
/// need. Every overload counts: their effect does not depend on the parameters.
#[derive(Debug, Clone, Copy)]
pub struct ObservedApi {
    /// The qualified name, without parameters (`sc_core::sc_start`, `pthread_create`).
    pub(crate) name: &'static str,
    /// The threading model the function belongs to.
    pub family: Family,
    /// What a call does.
    pub effect: Effect,
    /// The runtime hook every call is rewritten to, wherever it is (a thread the
    /// runtime's scheduler does not know about would run uncontrolled); `None`: the
    /// call stays, tagged with its effect.
    pub(crate) hook: Option<&'static str>,
}

pub(super) const OBSERVED: &[ObservedApi] = &[
    ObservedApi {
        name: "pthread_create",
        family: Family::Pthread,
        effect: Effect::CreateThread {
            routine: 2,
            data: 3,
        },
        hook: Some("syncmut_hook_pthread_create"),
    },
    ObservedApi {
        name: "pthread_exit",
        family: Family::Pthread,
        effect: Effect::ExitThread,
        hook: Some("syncmut_hook_pthread_exit"),
    },
    ObservedApi {
        name: "thrd_create",
        family: Family::Pthread,
        effect: Effect::CreateThread {
            routine: 1,
            data: 2,
        },
        hook: Some("syncmut_hook_thrd_create"),
    },
    ObservedApi {
        name: "thrd_exit",
        family: Family::Pthread,
        effect: Effect::ExitThread,
        hook: Some("syncmut_hook_thrd_exit"),
    },
    ObservedApi {
        name: "sc_core::sc_start",
        family: Family::Systemc,
        effect: Effect::StartSimulation,
        hook: None,
    },
    ObservedApi {
        name: "sc_core::sc_simcontext::create_thread_process",
        family: Family::Systemc,
        effect: Effect::RegisterProcess,
        hook: None,
    },
    ObservedApi {
        name: "sc_core::sc_simcontext::create_method_process",
        family: Family::Systemc,
        effect: Effect::RegisterProcess,
        hook: None,
    },
    ObservedApi {
        name: "sc_core::sc_simcontext::create_cthread_process",
        family: Family::Systemc,
        effect: Effect::RegisterProcess,
        hook: None,
    },
];

/// Looks up a demangled function signature in the table of observed functions.
pub fn observed(signature: &str) -> Option<&'static ObservedApi> {
    let name = signature.split('(').next().unwrap_or(signature);
    OBSERVED.iter().find(|api| api.name == name)
}
