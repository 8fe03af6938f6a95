//! The C++20 primitives' rows (`std::counting_semaphore`, `std::latch`, `std::barrier`,
//! waits and notifies on atomics): header templates rewritten through trampolines, the
//! members that stay calls recognised by pattern and those libstdc++ inlines by what
//! the user's call became.

use super::row::{Change, Rewrite, SyncApi};
use super::signature::split_member;
use crate::effect::{Blocking, Effect, Family};
use crate::operator::Operator;
use Operator::*;

/// The trampoline changes for a semaphore's or barrier's initial count.
fn count_changes(up: Operator, down: Operator) -> Vec<(Operator, Change)> {
    vec![
        (up, Change::Add { argument: 1, by: 1 }),
        (
            down,
            Change::Add {
                argument: 1,
                by: -1,
            },
        ),
    ]
}

fn cpp20_row(
    signature: &str,
    effect: Effect,
    operators: &[Operator],
    changes: Vec<(Operator, Change)>,
) -> SyncApi {
    SyncApi {
        signature: signature.to_string(),
        wrapper: String::new(), // set per callee by discovery, as for sc_fifo
        family: Family::Pthread,
        effect,
        operators: operators.to_vec(),
        rewrite: Rewrite::StdTrampoline { changes },
    }
}

/// The members of the C++20 primitives that stay calls in the user's code at -O0:
/// `std::counting_semaphore<N>` (and `binary_semaphore`, its `<1>`) and `std::barrier<F>`,
/// and the constructors of both and of `std::latch`. Class templates, so recognised by
/// pattern. (The members libstdc++ marks `always_inline` are [`cpp20_inlined`].)
pub(super) fn cpp20_member(signature: &str) -> Option<SyncApi> {
    let skip = || vec![(Remove, Change::Skip)];
    if signature == "std::latch::latch(long)" {
        return Some(cpp20_row(
            signature,
            Effect::Initialize {
                object: 0,
                count: 1,
            },
            &[BarrierCountUp, BarrierCountDown],
            count_changes(BarrierCountUp, BarrierCountDown),
        ));
    }
    // The demangler prints the count as `<(long)4>`, which `split_member` would take
    // for a parameter list.
    if let Some(rest) = signature.strip_prefix("std::counting_semaphore<") {
        let (_, member) = rest.split_once(">::")?;
        return Some(match member {
            "acquire()" => cpp20_row(
                signature,
                Effect::SemaphoreWait {
                    semaphore: 0,
                    blocking: Blocking::Waits,
                },
                &[Remove],
                skip(),
            ),
            "try_acquire()" => cpp20_row(
                signature,
                Effect::SemaphoreWait {
                    semaphore: 0,
                    blocking: Blocking::Tries,
                },
                &[Remove],
                skip(),
            ),
            "release(long)" => cpp20_row(
                signature,
                Effect::SemaphorePost { semaphore: 0 },
                &[Remove],
                skip(),
            ),
            "counting_semaphore(long)" => cpp20_row(
                signature,
                Effect::Initialize {
                    object: 0,
                    count: 1,
                },
                &[SemaphoreCountUp, SemaphoreCountDown],
                count_changes(SemaphoreCountUp, SemaphoreCountDown),
            ),
            _ => return None,
        });
    }
    // `std::jthread`: its thread starts through the thread hook like a `std::thread`'s,
    // and the `std::thread::join` inside its members is a library call; the user's
    // `join()` and `request_stop()` are sites. Its destruction (request_stop, then join)
    // is not: clang emits one destructor call per way out of the scope (the exception
    // paths too), which would be one mutant each, most never reached.
    match signature {
        "std::jthread::join()" => {
            return Some(cpp20_row(
                signature,
                Effect::Join { thread: 0 },
                &[Remove],
                skip(),
            ))
        }
        "std::jthread::request_stop()" => {
            return Some(cpp20_row(
                signature,
                Effect::AtomicNotify { object: 0 },
                &[Remove],
                skip(),
            ))
        }
        _ => {}
    }
    // `std::lock(a, b, …)`: libstdc++'s deadlock-avoiding algorithm (lock one, try the
    // others, back off) is inner calls; the call is a site with `remove` only (there is
    // no order of the mutexes to swap).
    if signature.starts_with("void std::lock<") {
        return Some(cpp20_row(
            signature,
            Effect::Lock {
                lock: 0,
                blocking: Blocking::Waits,
            },
            &[Remove],
            skip(),
        ));
    }
    // Timed locks: their inner `pthread_mutex_clocklock` is a library call.
    let timed_lock = [
        "bool std::timed_mutex::try_lock_for<",
        "bool std::timed_mutex::try_lock_until<",
        "bool std::recursive_timed_mutex::try_lock_for<",
        "bool std::recursive_timed_mutex::try_lock_until<",
    ];
    if timed_lock.iter().any(|p| signature.starts_with(p)) {
        return Some(cpp20_row(
            signature,
            Effect::Lock {
                lock: 0,
                blocking: Blocking::Timed,
            },
            &[Remove],
            skip(),
        ));
    }
    let (class, member) = split_member(signature)?;
    // A `std::scoped_lock` of several mutexes (one mutex is a table row): as for the
    // one-mutex guards, `remove` on the construction also takes its destruction away
    // (`guard_call`), so the scope runs without the locks.
    if let Some(mutexes) = class
        .strip_prefix("std::scoped_lock<")
        .and_then(|r| r.strip_suffix('>'))
    {
        if mutexes.contains(", ") {
            return Some(if member.starts_with("~scoped_lock(") {
                cpp20_row(signature, Effect::Unlock { lock: 0 }, &[], skip())
            } else if member.starts_with("scoped_lock(") && !member.contains("std::adopt_lock_t") {
                cpp20_row(
                    signature,
                    Effect::Lock {
                        lock: 1,
                        blocking: Blocking::Waits,
                    },
                    &[Remove],
                    skip(),
                )
            } else {
                return None;
            });
        }
    }
    if class.starts_with("std::barrier<") && !class.contains("::arrival_token") {
        let (name, params) = member.split_once('(')?;
        return Some(match name {
            "arrive_and_wait" => {
                cpp20_row(signature, Effect::Barrier { barrier: 0 }, &[Remove], skip())
            }
            "wait" => cpp20_row(signature, Effect::Barrier { barrier: 0 }, &[Remove], skip()),
            "arrive" | "arrive_and_drop" => {
                cpp20_row(signature, Effect::Arrive { barrier: 0 }, &[Remove], skip())
            }
            "barrier" if params.starts_with("long") => cpp20_row(
                signature,
                Effect::Initialize {
                    object: 0,
                    count: 1,
                },
                &[BarrierCountUp, BarrierCountDown],
                count_changes(BarrierCountUp, BarrierCountDown),
            ),
            _ => return None,
        });
    }
    None
}

/// What the user called, for the C++20 members libstdc++ marks `always_inline` (clang
/// inlines them even at -O0): their call is gone, and what stays at the user's line is
/// the library's wait or notify template they called. `header` is the library header
/// the user's call entered (the file of the outermost inlined frame), which tells a
/// latch's `count_down` from an atomic's `notify_all`; `constant_all` is a notify's
/// `bool all` argument when it is a constant. The site is named by the user's call.
pub(crate) fn cpp20_inlined(
    callee: &str,
    header: &str,
    constant_all: Option<bool>,
) -> Option<SyncApi> {
    let skip = vec![(Remove, Change::Skip)];
    let latch = header.ends_with("/latch") || header == "latch";
    if callee.starts_with("void std::__atomic_wait_address<")
        && callee.contains("std::latch::wait() const")
    {
        return Some(cpp20_row(
            "std::latch::wait()",
            Effect::Barrier { barrier: 0 },
            &[Remove],
            skip,
        ));
    }
    if callee.starts_with("void std::__atomic_wait_address_v<") && !latch {
        return Some(cpp20_row(
            "std::atomic::wait()",
            Effect::AtomicWait { object: 0 },
            &[Remove],
            skip,
        ));
    }
    if callee.starts_with("void std::__atomic_notify_address<") {
        // One trampoline serves every call of the instance, a latch's and an atomic's
        // notify alike: it knows every operator any of them may carry.
        let changes = vec![
            (Remove, Change::Skip),
            (
                SignalToBroadcast,
                Change::SetFlag {
                    argument: 1,
                    value: true,
                },
            ),
            (
                BroadcastToSignal,
                Change::SetFlag {
                    argument: 1,
                    value: false,
                },
            ),
        ];
        if latch {
            // Only the wake-up is a call; the count's decrement is an inlined atomic
            // instruction, which stays.
            return Some(cpp20_row(
                "std::latch::count_down()",
                Effect::AtomicNotify { object: 0 },
                &[Remove],
                changes,
            ));
        }
        return Some(match constant_all {
            Some(false) => cpp20_row(
                "std::atomic::notify_one()",
                Effect::AtomicNotify { object: 0 },
                &[Remove, SignalToBroadcast],
                changes,
            ),
            Some(true) => cpp20_row(
                "std::atomic::notify_all()",
                Effect::AtomicNotify { object: 0 },
                &[Remove, BroadcastToSignal],
                changes,
            ),
            None => cpp20_row(
                "std::atomic::notify",
                Effect::AtomicNotify { object: 0 },
                &[Remove],
                changes,
            ),
        });
    }
    None
}
