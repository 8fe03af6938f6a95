//! What a call rewritten to a declared function's trampoline is given (`crate::user_sync`,
//! and the C++ primitives treated the same way in `crate::api`): the pthread runtime's
//! gate it asks and the operators it gets.

use crate::operator::Operator;

/// The pthread runtime's gate for declared functions (pthread_wrappers.c).
pub const PTHREAD_GATE: &str = "syncmut_user_gate";

/// The operators a declared function's call gets.
pub const OPERATORS: &[Operator] = &[Operator::Remove];
