//! Runs design binaries from outside: everything syncmut does to start a design, bound
//! it, feed it and read what it printed. The protocol it speaks (statuses, `SYNCMUT_*`
//! names, the trace and schedule readers) is `syncmut_runtime`'s, beside the C code that
//! implements it; this crate sits on top of it, and nothing there depends on this crate.
//!
//! - [`invocation`]: one run of a design binary with its environment and limits, on top of
//!   [`exec`], the contained process runner, which keeps each output stream whole
//!   ([`output`]: length, SHA-256, a head in memory, the rest in a temporary file);
//!   [`fork_server`] makes many runs of one binary from one process.
//! - [`workdir`]: each run's fresh private working directory, built and read back through
//!   [`beneath`], which keeps every path inside it; [`kept`]: the files a run leaves for
//!   the user.
//! - [`mod@test_case`]: the tests whose input values the runtime hands out (`inputs.c`), with
//!   [`compare`], how a test's outputs are compared; [`input_log`]: the values a run was
//!   given, read back to replay it.

// The CLI, analysis and oracle read this crate's public items: each says what it is.
#![warn(missing_docs)]

pub mod beneath;
pub mod compare;
pub mod exec;
pub mod fork_server;
pub mod input_log;
pub mod invocation;
pub mod kept;
pub mod output;
mod streams;
pub mod test_case;
pub mod workdir;

pub use invocation::Invocation;
