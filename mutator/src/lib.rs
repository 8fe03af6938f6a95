//! syncmut-mutator: from a design's sources to a metamutant.
//!
//! Stages: [`design`] names the inputs, [`toolchain`] compiles them to one bitcode
//! module, [`discover`] finds the synchronization sites, [`rewrite`] turns each into a
//! runtime-wrapper call, and [`metamutant`] ties them together and links the result.
//! Only owned data ([`catalogue`]) leaves this crate.

pub mod api;
mod atomic_functions;
pub mod catalogue;
pub mod compile_db;
mod cxx_names;
pub mod debug_types;
pub mod design;
mod devirtualize;
pub mod discover;
pub mod effect;
mod equivalent;
pub mod error;
pub mod error_calls;
pub mod flags;
mod found_site;
pub mod globals;
mod gnu_inline;
mod hooks;
pub mod interleave;
mod ir;
pub mod members;
pub mod metamutant;
pub mod nondet_constants;
mod old_c;
pub mod operator;
mod pause;
mod promote;
mod regions;
pub mod rewrite;
pub mod source;
pub mod state_globals;
mod state_table;
mod std_trampoline;
pub mod toolchain;
mod trampoline;
mod user_gate;
pub mod user_sync;
mod vtables;
pub mod wrapped;

pub use catalogue::{Catalogue, Mutant, Site};
pub use design::Design;
pub use effect::Effect;
pub use error::MutatorError;
pub use operator::Operator;
