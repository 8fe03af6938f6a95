//! Names of the `SYNCMUT_*` environment variables. Those the runtime reads are defined once
//! in `include/syncmut_protocol.h` (the test in `protocol_header` keeps them in step);
//! the last ones are read by syncmut itself, never by the design's process.

/// The active mutant, `<site>:<operator>,…` (`Mutant::activation`); empty: none.
pub const ACTIVE: &str = "SYNCMUT_ACTIVE";
/// Where the runtime writes the trace; unset: no trace.
pub const TRACE: &str = "SYNCMUT_TRACE";
/// The pthread scheduler's strategy (`default`, `random:<seed>`, `pct:…`, `replay:<file>`).
pub const SCHEDULE: &str = "SYNCMUT_SCHEDULE";
/// Where the scheduler records its choice points (the schedule file, [`crate::schedule`]).
pub const SCHEDULE_OUT: &str = "SYNCMUT_SCHEDULE_OUT";
/// `0`: the schedule file leaves out the run points with one option (`# step` lines),
/// which only the partial-order reduction reads; `1` or unset: it has them.
pub const RECORD_STEPS: &str = "SYNCMUT_RECORD_STEPS";
/// `0`: the schedule file names each option by its thread alone (`<id>`, consecutive ids
/// as `<first>-<last>`), which is
/// all that following a run and comparing two runs' choices read; `1` or unset: each
/// option's site, objects and flags too, which the partial-order reduction reads.
pub const RECORD_DETAIL: &str = "SYNCMUT_RECORD_DETAIL";
/// Where the scheduler's happens-before race detector writes the races it found
/// ([`crate::races`]); unset: no detection.
pub const RACES_OUT: &str = "SYNCMUT_RACES_OUT";
/// The scheduler's step budget: more scheduling points end the run as a livelock.
pub const MAX_STEPS: &str = "SYNCMUT_MAX_STEPS";
/// Threads a run may create, main not counted; one more ends the run with status
/// [`crate::status::THREAD_BOUND`]. Unset: only the scheduler's thread limit.
pub const THREAD_BOUND: &str = "SYNCMUT_THREAD_BOUND";
/// Scheduling points past the step budget in which the scheduler looks for a repeated
/// state: a repeat is a livelock, none ends the run with
/// [`crate::status::STEP_BUDGET`]. Unset: the budget's end is a livelock.
pub const REPEAT_WINDOW: &str = "SYNCMUT_REPEAT_WINDOW";
/// PCT's run-length estimate when the schedule value does not carry one.
pub const PCT_STEPS: &str = "SYNCMUT_PCT_STEPS";
/// Values of `__VERIFIER_nondet_*()` calls, in call order.
pub const NONDET: &str = "SYNCMUT_NONDET";
/// Seed of the values drawn for `__VERIFIER_nondet_*()` calls past `SYNCMUT_NONDET` and
/// for named inputs `SYNCMUT_INPUTS` does not give (unset: 0 for both).
pub const NONDET_SEED: &str = "SYNCMUT_NONDET_SEED";
/// Values of named inputs, `name=value,…`.
pub const INPUTS: &str = "SYNCMUT_INPUTS";
/// Where the runtime logs the input values it hands out.
pub const INPUT_LOG: &str = "SYNCMUT_INPUT_LOG";
/// SystemC: delta cycles at one time stamp before the run is a livelock.
pub const DELTA_BOUND: &str = "SYNCMUT_DELTA_BOUND";
/// SystemC: suspending calls of one process without progress before the run is a livelock.
pub const SPIN_BOUND: &str = "SYNCMUT_SPIN_BOUND";
/// SystemC: the simulated time, in ns, no `sc_start` runs past (a test's `sim_time`);
/// unset: no bound.
pub const SIM_UNTIL: &str = "SYNCMUT_SIM_UNTIL";
/// SystemC: wall milliseconds after which the simulation is cut short as if `sc_start`
/// returned, and the simulated time reached is printed on stderr
/// ([`SIM_PROBE_REPORT`]): how far a design that never stops by itself gets.
pub const SIM_PROBE: &str = "SYNCMUT_SIM_PROBE";
/// The start of the line a probed run prints, followed by the ns reached.
pub const SIM_PROBE_REPORT: &str = "syncmut runtime: simulated time reached: ";
/// `1`: the design sees the real clocks and random bytes instead of the virtual ones.
pub const REAL_TIME: &str = "SYNCMUT_REAL_TIME";
/// Shifts the virtual clocks' start and the random-byte stream (`0`, the default, is
/// the world every run sees unless asked otherwise).
pub const ENTROPY: &str = "SYNCMUT_ENTROPY";
/// The fork server's socket (a descriptor number): the runtime serves runs by forking
/// before `main` (`syncmut_runner::fork_server`); unset: an ordinary run.
pub const FORK_SERVER: &str = "SYNCMUT_FORK_SERVER";

/// The variables syncmut sets for each run itself: a run never takes them from
/// syncmut's own environment, where a value left in the user's shell (say a
/// `SYNCMUT_SCHEDULE` from replaying a counterexample by hand) would put every run,
/// the original's and the uninstrumented build's among them, under the wrong schedule,
/// mutant or step budget (or a test without `sim_time` under a simulated-time bound). The rest (`SYNCMUT_REAL_TIME`, `SYNCMUT_ENTROPY`, the SystemC
/// bounds) are settings a user may give every run through syncmut's environment.
pub const PER_RUN: [&str; 18] = [
    ACTIVE,
    TRACE,
    SCHEDULE,
    SCHEDULE_OUT,
    RECORD_STEPS,
    RECORD_DETAIL,
    RACES_OUT,
    MAX_STEPS,
    THREAD_BOUND,
    REPEAT_WINDOW,
    PCT_STEPS,
    NONDET,
    NONDET_SEED,
    INPUTS,
    INPUT_LOG,
    SIM_UNTIL,
    SIM_PROBE,
    FORK_SERVER,
];

/// syncmut itself: `1` links designs with the sanitizers and the sanitized runtime.
pub const SANITIZE: &str = "SYNCMUT_SANITIZE";
/// syncmut itself: set to `1` in helper processes (the SMT solver) that the orphan sweep
/// after each run must spare (`syncmut_runner::exec::HELPER_MARKER`).
pub const HELPER_PROCESS: &str = "SYNCMUT_HELPER_PROCESS";
/// syncmut itself: runs another program in place of the SMT solver (tests use fakes).
pub const SOLVER_PROGRAM: &str = "SYNCMUT_SOLVER_PROGRAM";
/// syncmut itself: `1` starts every schedule of a search by exec instead of through a
/// fork server (`syncmut_runner::fork_server`).
pub const NO_FORK_SERVER: &str = "SYNCMUT_NO_FORK_SERVER";
