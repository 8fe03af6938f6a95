//! What a search is looking for: SV-COMP's properties (`unreach-call`, `no-data-race`,
//! `no-deadlock`, `termination`) and `assertions`, or, with none named, every kind of
//! bug. A finding that violates none of the properties checked is a note and the search
//! goes on: under `unreach-call` a deadlock ends its path without reaching the error
//! function, and an `abort()` (SV-COMP's way to discard a path, like
//! `__VERIFIER_assume(0)`) ends it as not possible.

use super::bug_kind::BugKind;
use syncmut_runner::exec::{Execution, Status};

/// A property a program is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Property {
    /// No call of `reach_error()` / `__VERIFIER_error()` is reachable.
    UnreachCall,
    /// No two accesses to one location, one a write, unordered by synchronization.
    NoDataRace,
    /// No state where threads wait forever.
    NoDeadlock,
    /// Every run ends.
    Termination,
    /// No `assert` fails (reach_error's included).
    Assertions,
}

impl Property {
    /// The names on the command line, in SV-COMP's words where SV-COMP has one.
    pub const NAMES: [&'static str; 5] = [
        "unreach-call",
        "no-data-race",
        "no-deadlock",
        "termination",
        "assertions",
    ];

    /// The property's name, as `--property` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Property::UnreachCall => "unreach-call",
            Property::NoDataRace => "no-data-race",
            Property::NoDeadlock => "no-deadlock",
            Property::Termination => "termination",
            Property::Assertions => "assertions",
        }
    }

    /// Whether a run showing `kind` (with `message`) violates this property.
    fn violated_by(self, kind: &BugKind, message: &str) -> bool {
        match self {
            Property::UnreachCall => *kind == BugKind::Assertion && reaches_error_function(message),
            Property::NoDataRace => *kind == BugKind::DataRace,
            Property::NoDeadlock => *kind == BugKind::Deadlock,
            Property::Termination => {
                matches!(
                    kind,
                    BugKind::Livelock | BugKind::EndlessLoop | BugKind::Hang
                )
            }
            Property::Assertions => *kind == BugKind::Assertion,
        }
    }
}

impl std::str::FromStr for Property {
    type Err = String;
    fn from_str(word: &str) -> Result<Property, String> {
        [
            Property::UnreachCall,
            Property::NoDataRace,
            Property::NoDeadlock,
            Property::Termination,
            Property::Assertions,
        ]
        .into_iter()
        .find(|p| p.name() == word)
        .ok_or_else(|| {
            format!(
                "{word:?} is not a property (one of {})",
                Property::NAMES.join(", ")
            )
        })
    }
}

impl std::fmt::Display for Property {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a search judges what a run shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// A bug against a property checked: the search stops here.
    Violation,
    /// A finding no property checked forbids: counted, and the search goes on.
    Note,
    /// The run ended on a path the program rules out (`abort()`): not a finding.
    Discarded,
}

/// The properties a search checks; none named means every kind of bug.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Properties {
    checked: Vec<Property>,
}

impl Properties {
    /// The properties, sorted and without repeats.
    pub fn new(mut checked: Vec<Property>) -> Properties {
        checked.sort();
        checked.dedup();
        Properties { checked }
    }

    /// Every kind of bug is a violation (no property named).
    pub fn is_default(&self) -> bool {
        self.checked.is_empty()
    }

    /// The properties named, sorted, without repeats.
    pub fn checked(&self) -> &[Property] {
        &self.checked
    }

    /// Whether `property` is among those named.
    pub fn contains(&self, property: Property) -> bool {
        self.checked.contains(&property)
    }

    /// The properties in words: `unreach-call, no-deadlock`.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.checked.iter().map(|p| p.name()).collect();
        names.join(", ")
    }

    /// The first property checked that `kind` violates.
    pub fn violated(&self, kind: &BugKind, message: &str) -> Option<Property> {
        self.checked
            .iter()
            .copied()
            .find(|p| p.violated_by(kind, message))
    }

    /// What a run showing `kind` means under these properties. With none named, every
    /// bug is a violation, `abort()` included (a crash). Under named properties a plain
    /// `abort()` (SIGABRT without an assertion message) is SV-COMP's discarded path.
    pub(crate) fn judge(&self, kind: &BugKind, message: &str, execution: &Execution) -> Judgement {
        if self.is_default() {
            return Judgement::Violation;
        }
        if self.violated(kind, message).is_some() {
            return Judgement::Violation;
        }
        if *kind == BugKind::Crash && execution.status == Status::Signaled(libc::SIGABRT) {
            return Judgement::Discarded;
        }
        Judgement::Note
    }
}

/// The runtime's line saying an error function was called (mutator/src/error_calls.rs):
/// `file:line:col in caller calls callee`, the last one of the run.
pub fn error_call(stderr: &str) -> Option<&str> {
    stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(ERROR_CALL_LINE))
        .map(str::trim)
}

/// How the runtime's error-call line starts.
pub(crate) const ERROR_CALL_LINE: &str = "syncmut runtime: error function called at ";

/// Whether an assertion failure's message is the error function's: glibc names the
/// function that failed (`prog: t.c:3: reach_error: Assertion `0' failed.`), the runtime
/// its `__VERIFIER_error`, and the error-call line the call itself.
fn reaches_error_function(message: &str) -> bool {
    message.contains(": reach_error: ")
        || message.starts_with("__VERIFIER_error:")
        || message.starts_with(ERROR_CALL_LINE)
        || message.starts_with("error function called at ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncmut_runner::exec::Execution;

    fn run(status: Status) -> Execution {
        Execution {
            status,
            stdout: Default::default(),
            stderr: Default::default(),
            elapsed: std::time::Duration::ZERO,
            outputs: Default::default(),
        }
    }

    #[test]
    fn unreach_call_is_violated_by_the_error_function_only() {
        let p = Properties::new(vec![Property::UnreachCall]);
        let abort = run(Status::Signaled(libc::SIGABRT));
        let reach = "prog: t.c:3: reach_error: Assertion `0' failed.";
        assert_eq!(
            p.judge(&BugKind::Assertion, reach, &abort),
            Judgement::Violation
        );
        let other = "prog: t.c:9: worker: Assertion `x > 0' failed.";
        assert_eq!(p.judge(&BugKind::Assertion, other, &abort), Judgement::Note);
        assert_eq!(
            p.judge(&BugKind::Crash, "killed by SIGABRT", &abort),
            Judgement::Discarded
        );
        let deadlock = run(Status::Exited(122));
        assert_eq!(p.judge(&BugKind::Deadlock, "", &deadlock), Judgement::Note);
        // No property named: every bug is one.
        assert_eq!(
            Properties::default().judge(&BugKind::Crash, "", &abort),
            Judgement::Violation
        );
    }

    #[test]
    fn error_call_lines_are_read_from_stderr() {
        let stderr = "x\nsyncmut runtime: error function called at t.c:12:5 in main calls reach_error\nprog: t.c:3: reach_error: Assertion `0' failed.\n";
        assert_eq!(
            error_call(stderr),
            Some("t.c:12:5 in main calls reach_error")
        );
        assert_eq!("no-deadlock".parse::<Property>(), Ok(Property::NoDeadlock));
        assert!("deadlock".parse::<Property>().is_err());
    }
}
