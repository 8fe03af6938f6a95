//! The SystemC rows of the table: the overloads of `wait` and `next_trigger`, the member
//! functions of channels and events, and the `sc_fifo` templates, recognised by pattern
//! with the blocking/non-blocking twin they are swapped with.

use super::row::{FifoAccess, Rewrite, SyncApi};
use super::signature::{split_member, template_argument};
use crate::effect::{Access, Blocking, Effect, Family, Until, When};
use crate::operator::Operator;
use Operator::*;

/// Overloads shared by `wait` and `next_trigger`: (wrapper suffix, parameter list,
/// what it waits for, operators). Argument positions in `Until` count the listed
/// parameters; member forms shift them by one for the object. `static` sensitivity
/// overloads (`wait()`, `wait(int)`) exist only for `wait`.
pub(super) const WAIT_OVERLOADS: &[(&str, &str, Until, &[Operator])] = &[
    ("", "", Until::Static, &[Remove]),
    ("_n", "int", Until::Static, &[Remove]),
    (
        "_event",
        "sc_core::sc_event const&",
        Until::Event { event: 0 },
        &[Remove, EventToTimed, WaitToNotify],
    ),
    (
        "_or",
        "sc_core::sc_event_or_list const&",
        Until::Events {
            list: 0,
            all: false,
        },
        &[Remove, EventToTimed, OrToAnd, DropEvent],
    ),
    (
        "_and",
        "sc_core::sc_event_and_list const&",
        Until::Events { list: 0, all: true },
        &[Remove, EventToTimed, AndToOr, DropEvent],
    ),
    (
        "_time",
        "sc_core::sc_time const&",
        Until::Time,
        &[Remove, TimeDouble, TimeZero],
    ),
    (
        "_value",
        "double, sc_core::sc_time_unit",
        Until::Time,
        &[Remove, TimeDouble, TimeZero],
    ),
    (
        "_time_event",
        "sc_core::sc_time const&, sc_core::sc_event const&",
        Until::TimeOrEvents { events: 1 },
        &[Remove, TimeDouble],
    ),
    (
        "_value_event",
        "double, sc_core::sc_time_unit, sc_core::sc_event const&",
        Until::TimeOrEvents { events: 2 },
        &[Remove, TimeDouble],
    ),
    (
        "_time_or",
        "sc_core::sc_time const&, sc_core::sc_event_or_list const&",
        Until::TimeOrEvents { events: 1 },
        &[Remove, DropEvent, TimeDouble],
    ),
    (
        "_value_or",
        "double, sc_core::sc_time_unit, sc_core::sc_event_or_list const&",
        Until::TimeOrEvents { events: 2 },
        &[Remove, DropEvent, TimeDouble],
    ),
    (
        "_time_and",
        "sc_core::sc_time const&, sc_core::sc_event_and_list const&",
        Until::TimeOrEvents { events: 1 },
        &[Remove, DropEvent, TimeDouble],
    ),
    (
        "_value_and",
        "double, sc_core::sc_time_unit, sc_core::sc_event_and_list const&",
        Until::TimeOrEvents { events: 2 },
        &[Remove, DropEvent, TimeDouble],
    ),
];

/// SystemC member functions of channels and events: (signature, wrapper, effect,
/// operators). The object is argument 0.
pub(super) const SC_MEMBERS: &[(&str, &str, Effect, &[Operator])] = &[
    (
        "sc_core::sc_event::notify()",
        "syncmut_sc_event_notify",
        Effect::Notify {
            event: 0,
            when: When::Immediate,
        },
        &[Remove, NotifyDelta, NotifyTimed, NotifyCancel],
    ),
    (
        "sc_core::sc_event::notify(sc_core::sc_time const&)",
        "syncmut_sc_event_notify_time",
        Effect::Notify {
            event: 0,
            when: When::Timed,
        },
        &[Remove, NotifyImmediate, NotifyDelta, NotifyCancel],
    ),
    (
        "sc_core::sc_event::notify(double, sc_core::sc_time_unit)",
        "syncmut_sc_event_notify_value",
        Effect::Notify {
            event: 0,
            when: When::Timed,
        },
        &[Remove, NotifyImmediate, NotifyDelta, NotifyCancel],
    ),
    (
        "sc_core::sc_event::notify_delayed()",
        "syncmut_sc_event_notify_delayed",
        Effect::Notify {
            event: 0,
            when: When::Delta,
        },
        &[Remove, NotifyImmediate, NotifyCancel],
    ),
    (
        "sc_core::sc_event::notify_delayed(sc_core::sc_time const&)",
        "syncmut_sc_event_notify_delayed_time",
        Effect::Notify {
            event: 0,
            when: When::Timed,
        },
        &[Remove, NotifyImmediate, NotifyCancel],
    ),
    (
        "sc_core::sc_event::notify_delayed(double, sc_core::sc_time_unit)",
        "syncmut_sc_event_notify_delayed_value",
        Effect::Notify {
            event: 0,
            when: When::Timed,
        },
        &[Remove, NotifyImmediate, NotifyCancel],
    ),
    (
        "sc_core::sc_event::cancel()",
        "syncmut_sc_event_cancel",
        Effect::Cancel { event: 0 },
        &[Remove],
    ),
    (
        "sc_core::sc_mutex::lock()",
        "syncmut_sc_mutex_lock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Waits,
        },
        &[Remove, LockToTrylock],
    ),
    (
        "sc_core::sc_mutex::trylock()",
        "syncmut_sc_mutex_trylock",
        Effect::Lock {
            lock: 0,
            blocking: Blocking::Tries,
        },
        &[Remove],
    ),
    (
        "sc_core::sc_mutex::unlock()",
        "syncmut_sc_mutex_unlock",
        Effect::Unlock { lock: 0 },
        &[Remove],
    ),
    (
        "sc_core::sc_semaphore::wait()",
        "syncmut_sc_semaphore_wait",
        Effect::SemaphoreWait {
            semaphore: 0,
            blocking: Blocking::Waits,
        },
        &[Remove, WaitToTrywait],
    ),
    (
        "sc_core::sc_semaphore::trywait()",
        "syncmut_sc_semaphore_trywait",
        Effect::SemaphoreWait {
            semaphore: 0,
            blocking: Blocking::Tries,
        },
        &[Remove],
    ),
    (
        "sc_core::sc_semaphore::post()",
        "syncmut_sc_semaphore_post",
        Effect::SemaphorePost { semaphore: 0 },
        &[Remove],
    ),
    (
        "sc_core::sc_semaphore::sc_semaphore(int)",
        "syncmut_sc_semaphore_construct",
        Effect::Initialize {
            object: 0,
            count: 1,
        },
        &[SemaphoreCountUp, SemaphoreCountDown],
    ),
    (
        "sc_core::sc_semaphore::sc_semaphore(char const*, int)",
        "syncmut_sc_semaphore_construct_named",
        Effect::Initialize {
            object: 0,
            count: 2,
        },
        &[SemaphoreCountUp, SemaphoreCountDown],
    ),
];

/// Recognises `sc_core::sc_fifo<T>`, `sc_fifo_in<T>` and `sc_fifo_out<T>` accesses.
/// The counterpart is named by the caller's class and the twin's name; the mutator
/// checks that the module actually contains it.
pub(super) fn fifo_api(signature: &str) -> Option<SyncApi> {
    let (class, member) = split_member(signature)?;
    let is_fifo_class = [
        "sc_core::sc_fifo<",
        "sc_core::sc_fifo_in<",
        "sc_core::sc_fifo_out<",
    ]
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
    let counterpart_params = if access == FifoAccess::ReadValue {
        format!("{}&", template_argument(class)?)
    } else {
        params.to_string()
    };
    Some(SyncApi {
        signature: signature.to_string(),
        wrapper: format!("syncmut.fifo.{class}::{name}"),
        family: Family::Systemc,
        effect: Effect::Fifo {
            fifo: 0,
            access: if matches!(access, FifoAccess::Write | FifoAccess::NbWrite) {
                Access::Write
            } else {
                Access::Read
            },
            blocking: !matches!(access, FifoAccess::NbRead | FifoAccess::NbWrite),
        },
        operators: vec![Remove, swap],
        rewrite: Rewrite::FifoTrampoline {
            access,
            counterpart: format!(
                "{class}::{}({counterpart_params})",
                access.counterpart_name()
            ),
        },
    })
}
