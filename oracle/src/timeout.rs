//! How long a timed-out run is given when it runs again to confirm the timeout,
//! shared by the lab's mutant runs and `explore`.

/// A run that timed out runs again under this many times its limit before the timeout
/// counts (a mutant's timeout kill, a hang in `explore`): a run slowed by the machine's
/// load finishes then, a hang does not.
pub const TIMEOUT_CONFIRM_FACTOR: u32 = 2;
