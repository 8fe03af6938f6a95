//! syncmut-mutator: from a design's sources to a metamutant.
//!
//! Stages: [`design`] names the inputs, [`toolchain`] compiles them to one bitcode
//! module, `discover` finds the synchronization sites, `rewrite` turns each into a
//! runtime-wrapper call, and [`metamutant`] ties them together and links the result.
//! Only owned data ([`catalogue`]) leaves this crate.

// The CLI and tests read this crate's public items: each says what it is for.
#![warn(missing_docs)]

pub mod api;
mod atomic_functions;
pub mod build_cache;
pub mod catalogue;
pub mod compile_db;
mod cxx_names;
mod debug_types;
pub mod design;
mod devirtualize;
mod discover;
pub mod effect;
mod endless_loops;
mod equivalent;
mod error;
mod error_calls;
pub mod flags;
mod found_site;
pub mod globals;
mod gnu_inline;
mod hooks;
pub mod interleave;
mod ir;
mod link;
mod members;
pub mod metamutant;
mod nondet_constants;
mod old_c;
mod operator;
mod pause;
mod promote;
mod regions;
mod rewrite;
pub mod source;
mod state_globals;
mod state_table;
mod std_trampoline;
mod thread_reads;
pub mod toolchain;
mod trampoline;
mod user_gate;
pub mod user_sync;
mod vtables;
pub mod wrapped;

pub use catalogue::{Catalogue, Mutant, Site};
pub use design::Design;
pub use error::MutatorError;
pub use operator::Operator;
