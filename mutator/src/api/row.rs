//! What one row of the API table says: the recognised function and its runtime wrapper
//! ([`SyncApi`]), and how a call of it is rewritten ([`Rewrite`], with the trampolines'
//! [`Change`]s and the `sc_fifo` member it is ([`FifoAccess`])).

use crate::effect::{Effect, Family};
use crate::operator::Operator;

/// How a site's call is rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rewrite {
    /// Call a fixed runtime wrapper (`SyncApi::wrapper`).
    Wrapper,
    /// `sc_fifo<T>` and its ports are templates, so no precompiled wrapper can take
    /// every `T`: the mutator generates a trampoline per callee in the module itself,
    /// which asks the runtime's generic gate what to do and calls `counterpart` (the
    /// blocking/non-blocking twin of the same class) for the swap operator.
    FifoTrampoline {
        access: FifoAccess,
        counterpart: String,
    },
    /// A project's own synchronization function (`[[sync]]`): a trampoline in the
    /// module asks the runtime's `gate` whether the call is removed
    /// (`crate::user_sync`).
    UserTrampoline { gate: &'static str },
    /// The C++20 primitives (`std::counting_semaphore`, `std::latch`, `std::barrier`,
    /// `std::atomic<T>::wait`/`notify_*`) are header templates with no precompiled home,
    /// so, as for `[[sync]]`, a trampoline in the module asks the pthread gate and calls
    /// the library's own function, changed as `changes` says for each operator the
    /// callee's sites may carry (`crate::std_trampoline`).
    StdTrampoline { changes: Vec<(Operator, Change)> },
}

/// What a [`Rewrite::StdTrampoline`] does for one operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// No call; the result is "done" (`true` for a `bool`, else zero).
    Skip,
    /// The call with its `bool` argument `argument` set to `value` (`notify_one` ↔ `notify_all`).
    SetFlag { argument: u32, value: bool },
    /// The call with its integer argument `argument` moved by `by` (an initial count).
    Add { argument: u32, by: i64 },
}

/// The `sc_fifo` member functions syncmut mutates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FifoAccess {
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
    pub(crate) fn counterpart_name(self) -> &'static str {
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
pub(crate) struct SyncApi {
    /// Demangled signature as LLVM's demangler prints it, e.g.
    /// `sc_core::sc_module::wait(sc_core::sc_event const&)` or `pthread_mutex_lock`.
    pub(crate) signature: String,
    /// Symbol of the runtime wrapper that replaces the callee.
    pub(crate) wrapper: String,
    pub(crate) family: Family,
    /// What a call does.
    pub(crate) effect: Effect,
    /// Operators that apply to a call of this function.
    pub(crate) operators: Vec<Operator>,
    pub(crate) rewrite: Rewrite,
}
