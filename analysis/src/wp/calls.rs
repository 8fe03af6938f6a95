//! What a call to an input or library function means to the analysis (a nondet input,
//! an integer parser), decided by the callee's name in one place. What a
//! synchronization call does is read from its tag instead (`crate::effects`).

use crate::ir::Func;

/// The `__VERIFIER_nondet_<type>` suffix of a function without a body.
pub(super) fn nondet_type(f: Func<'_>) -> Option<String> {
    if f.has_body() {
        return None;
    }
    f.name()
        .strip_prefix("__VERIFIER_nondet_")
        .map(str::to_string)
}

/// Names of library functions that parse an integer from a string.
pub(super) const INT_PARSERS: &[&str] = &[
    "atoi", "atol", "atoll", "strtol", "strtoul", "strtoll", "strtoull",
];

/// `operator new` and `operator new[]` (Itanium C++ ABI, 64-bit `size_t`): they never
/// return null, so the object they return is modelled (`call_results.rs::heap_object`).
pub(super) const ALLOCATORS: &[&str] = &["_Znwm", "_Znam"];

/// The C library globals `getopt` writes: a load of them after a call to it is any
/// value (the library is otherwise taken not to write program memory).
pub(super) const GETOPT_GLOBALS: &[&str] = &["optind", "optarg", "optopt", "opterr"];
