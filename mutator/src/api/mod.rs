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
//!
//! One file per family of the table: `pthread` (pthread, POSIX semaphores, C11 threads),
//! `systemc` (waits, channel and event members, `sc_fifo` templates), `std_cpp` (the C++
//! standard library's mutexes, guards, condition variables and futures), `std_cpp20`
//! (its C++20 primitives) and `observed` (calls that are no sites); `row` is what a row
//! says and `signature` reads demangled signatures. This file assembles the table and
//! looks signatures up in it.

mod observed;
mod pthread;
mod row;
mod signature;
mod std_cpp;
mod std_cpp20;
mod systemc;
#[cfg(test)]
mod tests;

pub use crate::effect::Family;
pub use observed::{observed, ObservedApi};
pub(crate) use row::{Change, FifoAccess, Rewrite, SyncApi};
pub(crate) use signature::demangle;
pub(crate) use std_cpp::{guard_call, library_call, std_unmodelled, GuardCall};
pub(crate) use std_cpp20::cpp20_inlined;

use crate::effect::Effect;
use crate::operator::Operator::WaitToNotify;
use pthread::PTHREAD;
use std::collections::HashMap;
use std::sync::OnceLock;
use std_cpp::{std_rows, std_template_wait};
use std_cpp20::cpp20_member;
use systemc::{fifo_api, SC_MEMBERS, WAIT_OVERLOADS};

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
                let until = if trailing.is_empty() {
                    until.shifted(1)
                } else {
                    *until
                };
                table.push(SyncApi {
                    signature: format!("{prefix}{function}({params})"),
                    wrapper: format!("syncmut_{wrapper_owner}{function}{suffix}"),
                    family: Family::Systemc,
                    effect: if function == "wait" {
                        Effect::Wait { until }
                    } else {
                        Effect::NextTrigger { until }
                    },
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
    table.extend(std_rows());
    table
}

/// Every recognised API, in a fixed order.
pub(crate) fn all() -> &'static [SyncApi] {
    static TABLE: OnceLock<Vec<SyncApi>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

/// Looks up a demangled function signature: first the fixed table, then the
/// `sc_fifo` family of templates and `std::condition_variable`'s predicate wait.
pub(crate) fn lookup(signature: &str) -> Option<SyncApi> {
    static INDEX: OnceLock<HashMap<&'static str, &'static SyncApi>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        all()
            .iter()
            .map(|api| (api.signature.as_str(), api))
            .collect()
    });
    index
        .get(signature)
        .map(|api| (*api).clone())
        .or_else(|| fifo_api(signature))
        .or_else(|| std_template_wait(signature))
        .or_else(|| cpp20_member(signature))
}
