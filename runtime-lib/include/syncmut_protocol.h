/* The contract between the runtime and syncmut: the exit statuses the runtime ends a run
 * with, the environment variables it reads and the binary trace's constants. This header is the one definition: every
 * C and C++ file of the runtime includes it, and the Rust side (`status`, `env` and the trace reader in
 * this crate) is checked against it by a unit test that parses these #defines, so the two
 * cannot drift apart. Internal to syncmut: not installed with `syncmut.h`. */
#ifndef SYNCMUT_PROTOCOL_H
#define SYNCMUT_PROTOCOL_H

/* ---- exit statuses (docs/exit-codes.md) ---------------------------------------------- */

/* The runtime cannot start as asked: a malformed or unfitting SYNCMUT_ACTIVE, schedule,
 * bound or input value, or a buffer that cannot be allocated. */
#define SYNCMUT_STATUS_CONFIG_ERROR 120
/* A livelock bound ended the run (SystemC delta/spin bounds, the scheduler's step budget). */
#define SYNCMUT_STATUS_LIVELOCK 121
/* The pthread scheduler found no runnable thread while some had not finished. */
#define SYNCMUT_STATUS_DEADLOCK 122
/* __VERIFIER_assume(0): the run took a path the program assumes impossible (not a bug). */
#define SYNCMUT_STATUS_ASSUME 123
/* The pthread scheduler's thread limit: too many threads alive or unjoined at once. */
#define SYNCMUT_STATUS_THREAD_LIMIT 124
/* The run asked for one thread more than SYNCMUT_THREAD_BOUND allows: its path is cut
 * there (a bound of the search, not a bug). */
#define SYNCMUT_STATUS_THREAD_BOUND 125
/* With SYNCMUT_REPEAT_WINDOW: the step budget ran out and no state repeated (a long run,
 * not shown to be a livelock; repeat_state.c). */
#define SYNCMUT_STATUS_STEP_BUDGET 126

/* ---- site numbers ------------------------------------------------------------------- */

/* Set in the site argument of a copy of a site's call that a moving operator
 * (swap-lock-order, shrink/widen/split-critical-section) placed elsewhere; the other bits
 * index the copy table (syncmut_tables.h), which names the copy's mutant. The copy acts
 * only while that mutant is active, and is otherwise absent: no event, no scheduling
 * point. */
#define SYNCMUT_SITE_COPY 2147483648
/* The site argument of a call inside a library's own code that the mutator routes through
 * a wrapper only so that it is a scheduling point (the pthread calls in the bodies of the
 * C++ standard library's inline functions): it performs the original call, is never
 * mutated and records no event. Checked before SYNCMUT_SITE_COPY, whose bit it has. */
#define SYNCMUT_SITE_INNER 4294967295

/* ---- environment variables (runtime-lib/README.md) ----------------------------------- */

/* The active mutant: `<site>:<operator-slug>,…`; empty or unset runs no mutant. */
#define SYNCMUT_ENV_ACTIVE "SYNCMUT_ACTIVE"
/* Where the trace is written; unset: no trace. */
#define SYNCMUT_ENV_TRACE "SYNCMUT_TRACE"
/* The pthread scheduler's strategy: default, random:<seed>, pct:…, replay:<file>, follow:<file>. */
#define SYNCMUT_ENV_SCHEDULE "SYNCMUT_SCHEDULE"
/* Where the scheduler records its choice points. */
#define SYNCMUT_ENV_SCHEDULE_OUT "SYNCMUT_SCHEDULE_OUT"
/* 0: the schedule file leaves out the run points with one option (`# step` lines);
 * 1 or unset: it has them. Choices are recorded alike. */
#define SYNCMUT_ENV_RECORD_STEPS "SYNCMUT_RECORD_STEPS"
/* 0: the schedule file names each option by its thread alone (`<id>:-:-`); 1 or unset:
 * with its site, objects and flags. */
#define SYNCMUT_ENV_RECORD_DETAIL "SYNCMUT_RECORD_DETAIL"
/* Where the scheduler's race detector writes the data races it found; unset: no detection. */
#define SYNCMUT_ENV_RACES_OUT "SYNCMUT_RACES_OUT"
/* The scheduler's step budget (livelock bound). */
#define SYNCMUT_ENV_MAX_STEPS "SYNCMUT_MAX_STEPS"
/* Threads a run may create (main not counted); unset: no bound but the thread limit. */
#define SYNCMUT_ENV_THREAD_BOUND "SYNCMUT_THREAD_BOUND"
/* Scheduling points past the step budget in which a repeated state is looked for; unset:
 * the budget's end is a livelock. */
#define SYNCMUT_ENV_REPEAT_WINDOW "SYNCMUT_REPEAT_WINDOW"
/* PCT's run-length estimate when the schedule value does not carry one. */
#define SYNCMUT_ENV_PCT_STEPS "SYNCMUT_PCT_STEPS"
/* Values of __VERIFIER_nondet_*() calls in call order. */
#define SYNCMUT_ENV_NONDET "SYNCMUT_NONDET"
/* Seed of the values drawn past SYNCMUT_NONDET and for named inputs it does not give. */
#define SYNCMUT_ENV_NONDET_SEED "SYNCMUT_NONDET_SEED"
/* Values of named inputs, name=value,… */
#define SYNCMUT_ENV_INPUTS "SYNCMUT_INPUTS"
/* Where the values handed out are logged. */
#define SYNCMUT_ENV_INPUT_LOG "SYNCMUT_INPUT_LOG"
/* SystemC livelock bounds. */
#define SYNCMUT_ENV_DELTA_BOUND "SYNCMUT_DELTA_BOUND"
#define SYNCMUT_ENV_SPIN_BOUND "SYNCMUT_SPIN_BOUND"
/* SystemC: the simulated time (in ns, decimal) no sc_start runs past; unset: no bound. */
#define SYNCMUT_ENV_SIM_UNTIL "SYNCMUT_SIM_UNTIL"
/* SystemC: wall ms after which the simulation is cut short and the simulated time reached
 * is printed on stderr after SYNCMUT_SIM_PROBE_REPORT, in ns (a probe of how far a design
 * that never stops by itself gets). */
#define SYNCMUT_ENV_SIM_PROBE "SYNCMUT_SIM_PROBE"
#define SYNCMUT_SIM_PROBE_REPORT "syncmut runtime: simulated time reached: "
/* The deterministic environment: 1 passes clocks and random bytes through to libc. */
#define SYNCMUT_ENV_REAL_TIME "SYNCMUT_REAL_TIME"
/* The deterministic environment: shifts the virtual clocks' start and the random stream. */
#define SYNCMUT_ENV_ENTROPY "SYNCMUT_ENTROPY"

/* The fork server's socket descriptor (fork_server.c); unset: an ordinary run. */
#define SYNCMUT_ENV_FORK_SERVER "SYNCMUT_FORK_SERVER"

/* ---- the binary trace (format in runtime-lib/README.md) ------------------------------ */

/* The file's first 8 bytes; not '{', so never taken for JSON Lines. */
#define SYNCMUT_TRACE_MAGIC "\x89syncmut"
#define SYNCMUT_TRACE_VERSION 5
/* Record tags: the kinds of event (a pthread event whose thread reads only some globals
 * carries the mask of those it reads and only their values; a join's event, the globals
 * its thread loads after it; a SystemC event in the context of its chunk's last one;
 * an event that repeats the chunk's last one at its site but for its values),
 * a jump in seq, a chunk of one thread's events, the cap marker, the end record. */
#define SYNCMUT_TRACE_TAG_PTHREAD 'P'
#define SYNCMUT_TRACE_TAG_SYSTEMC 'S'
#define SYNCMUT_TRACE_TAG_SYSTEMC_SAME 'C'
#define SYNCMUT_TRACE_TAG_PTHREAD_READS 'R'
#define SYNCMUT_TRACE_TAG_JOIN 'J'
#define SYNCMUT_TRACE_TAG_AGAIN 'A'
#define SYNCMUT_TRACE_TAG_SEQ 'Q'
#define SYNCMUT_TRACE_TAG_CHUNK 'K'
#define SYNCMUT_TRACE_TAG_TRUNCATED 'T'
#define SYNCMUT_TRACE_TAG_END 'Z'
/* Flag of a SystemC event: an immediate notify that woke nobody ("lost":true). */
#define SYNCMUT_EVENT_LOST 1

#endif
