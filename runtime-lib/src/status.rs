//! The exit statuses the runtime ends a run with, and what each means. Defined once in
//! `include/syncmut_protocol.h`; the test in `protocol_header` keeps these in step.

/// The runtime cannot start as asked: `SYNCMUT_ACTIVE` does not fit the binary, or a
/// schedule, bound or input value is malformed, or a buffer cannot be allocated. One
/// `syncmut runtime:` line on stderr says which. Not a verdict on the design.
pub const CONFIG_ERROR: i32 = 120;
/// A livelock bound ended the run: SystemC's delta-cycle or spin bound, or the pthread
/// scheduler's step budget (`SYNCMUT_MAX_STEPS`).
pub const LIVELOCK: i32 = 121;
/// The pthread scheduler found no runnable thread while some had not finished.
pub const DEADLOCK: i32 = 122;
/// `__VERIFIER_assume(0)`: the run took a path the program assumes impossible (not a bug).
pub const ASSUME: i32 = 123;
/// The pthread scheduler's thread limit: too many threads alive or unjoined at once; the
/// run ends with its trace.
pub const THREAD_LIMIT: i32 = 124;
/// The run asked for one thread more than `SYNCMUT_THREAD_BOUND` allows: the scheduler
/// cut its path there, with its trace. A bound of the search, not a bug.
pub const THREAD_BOUND: i32 = 125;
/// With `SYNCMUT_REPEAT_WINDOW`: the step budget ran out and no state came back in the
/// window after it. A long run, not shown to be a livelock.
pub const STEP_BUDGET: i32 = 126;
