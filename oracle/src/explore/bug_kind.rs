//! The kinds of bug a run can show: what `explore` reports and properties forbid.

/// Kinds of bug a run can show.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BugKind {
    /// SIGABRT with an assertion message: a failed `assert`, `reach_error` (`assert(0)`),
    /// `__VERIFIER_error` (`verdict::failed_assertion`, shared with `run`).
    Assertion,
    /// Another fatal signal, or an `abort()` without an assertion message.
    Crash,
    /// The scheduler found no runnable thread while some had not finished.
    Deadlock,
    /// The scheduler's step budget ran out.
    Livelock,
    /// A thread went round a loop that changes nothing, so it never ends, and no other
    /// thread could go on (the runtime's message names the loop): the run is whole, and
    /// no schedule makes it end.
    EndlessLoop,
    /// The run did not end within the timeout (spinning outside scheduling points).
    Hang,
    /// Two accesses to one location, at least one a write, that no synchronization
    /// orders (`--races`): a bug in every schedule where both run.
    DataRace,
}

impl std::fmt::Display for BugKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BugKind::Assertion => "assertion failure",
            BugKind::Crash => "crash",
            BugKind::Deadlock => "deadlock",
            BugKind::Livelock => "livelock",
            BugKind::EndlessLoop => "endless loop",
            BugKind::Hang => "hang (timeout)",
            BugKind::DataRace => "data race",
        })
    }
}
