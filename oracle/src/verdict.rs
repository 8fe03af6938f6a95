//! Verdicts: how a mutant fared on a test, and on the whole suite.

use crate::observation::{Compared, Observation};
use serde::{Deserialize, Serialize};
use syncmut_runner::exec::Status;
use syncmut_runner::workdir::OutputFile;

/// The outcome of running a mutant (on one test, or summarised over all tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// stdout, the exit status or one of the test's `outputs` files differ from the original's.
    KilledByOutput,
    /// The mutant failed an assertion (abort with an assertion message).
    KilledByAssertion,
    /// The mutant ended with threads blocked forever; the original did not.
    KilledByDeadlock,
    /// The mutant died of a signal; the original did not.
    KilledByCrash,
    /// The mutant spun without progress (delta cycles or steps bound); the original did not.
    KilledByLivelock,
    /// The mutant ran past its timeout, and the runtime could not say why.
    KilledByTimeout,
    /// Output is the same, but the observable synchronization behaviour differs.
    KilledByTrace,
    /// Output and end are the original's, but it has a data race (two accesses to one
    /// location, at least one a write, no synchronization ordering them; by pair of
    /// source locations) that no run of the original had (`run --races`). Preferred to
    /// killed-by-trace when both apply.
    KilledByRace,
    /// No test told the mutant from the original.
    Survived,
    /// On every test that reaches it, an exhaustive dfs search showed the mutant behaving
    /// exactly as the original under every schedule within the bound: left out of the
    /// score's denominator.
    EquivalentExhaustive,
    /// No test reaches the mutated call, so it was not run.
    NotReached,
    /// The run could not be judged (reason given).
    Error,
}

impl Verdict {
    /// Whether some test detected the mutant.
    pub fn is_killed(self) -> bool {
        matches!(
            self,
            Verdict::KilledByOutput
                | Verdict::KilledByAssertion
                | Verdict::KilledByDeadlock
                | Verdict::KilledByCrash
                | Verdict::KilledByLivelock
                | Verdict::KilledByTimeout
                | Verdict::KilledByTrace
                | Verdict::KilledByRace
        )
    }

    /// The kebab-case name used in every report.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::KilledByOutput => "killed-by-output",
            Verdict::KilledByAssertion => "killed-by-assertion",
            Verdict::KilledByDeadlock => "killed-by-deadlock",
            Verdict::KilledByCrash => "killed-by-crash",
            Verdict::KilledByLivelock => "killed-by-livelock",
            Verdict::KilledByTimeout => "killed-by-timeout",
            Verdict::KilledByTrace => "killed-by-trace",
            Verdict::KilledByRace => "killed-by-race",
            Verdict::Survived => "survived",
            Verdict::EquivalentExhaustive => "equivalent-exhaustive",
            Verdict::NotReached => "not-reached",
            Verdict::Error => "error",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Compares a mutant's observation with the original's on the same test. The order of
/// the checks is the order of severity: the most specific explanation wins.
/// `label` names a site for the reason text (`wait(e) @ file.cpp:18`).
pub fn judge(
    original: &Observation,
    mutant: &Observation,
    label: &dyn Fn(u32) -> String,
) -> (Verdict, String) {
    let describe_pending = |pending: &[(String, Option<u32>)]| describe_pending(pending, label);
    let crashed = |o: &Observation| matches!(o.status, Status::Signaled(_));
    if crashed(mutant) && !crashed(original) {
        if let Some(line) = failed_assertion(mutant.status, &mutant.stderr.output.text()) {
            return (
                Verdict::KilledByAssertion,
                format!("assertion failed: {line}"),
            );
        }
        return (
            Verdict::KilledByCrash,
            format!(
                "the mutant was {} instead of ending with {}",
                mutant.status, original.status
            ),
        );
    }
    if mutant.deadlock && !original.deadlock {
        return (
            Verdict::KilledByDeadlock,
            format!("deadlock: {}", describe_pending(&mutant.pending)),
        );
    }
    if mutant.livelock && !original.livelock {
        let culprit = match (&mutant.livelock_thread, mutant.livelock_site) {
            (Some(thread), Some(site)) => format!(": {thread} at {}", label(site)),
            (Some(thread), None) => format!(": {thread}"),
            _ => String::new(),
        };
        return (
            Verdict::KilledByLivelock,
            format!("livelock{culprit}: kept running without making progress"),
        );
    }
    if mutant.status == Status::Exited(syncmut_runtime::status::THREAD_LIMIT)
        && original.status != mutant.status
    {
        return (Verdict::KilledByCrash, "resource limit: the mutant kept more than 1024 threads alive or unjoined at once (the runtime's thread limit)".to_string());
    }
    if mutant.status == Status::TimedOut && original.status != Status::TimedOut {
        return (
            Verdict::KilledByTimeout,
            "the mutant ran past its timeout".to_string(),
        );
    }
    if mutant.status != original.status {
        return (
            Verdict::KilledByOutput,
            format!("{} instead of {}", mutant.status, original.status),
        );
    }
    if mutant.stdout != original.stdout {
        return (
            Verdict::KilledByOutput,
            output_difference("stdout", &original.stdout, &mutant.stdout),
        );
    }
    if mutant.stderr != original.stderr {
        return (
            Verdict::KilledByOutput,
            output_difference("stderr", &original.stderr, &mutant.stderr),
        );
    }
    if let Some(difference) = output_file_difference(original, mutant) {
        return (Verdict::KilledByOutput, difference);
    }
    if mutant.deadlock != original.deadlock || mutant.pending != original.pending {
        let what = if original.deadlock && !mutant.deadlock {
            format!(
                "the original deadlocks ({}) but the mutant does not",
                describe_pending(&original.pending)
            )
        } else {
            format!(
                "blocked at the end: {} instead of {}",
                describe_pending(&mutant.pending),
                describe_pending(&original.pending)
            )
        };
        return (Verdict::KilledByTrace, what);
    }
    if let Some(difference) = original.first_step_difference(mutant, label) {
        return (
            Verdict::KilledByTrace,
            format!("synchronization behaviour differs: {difference}"),
        );
    }
    if mutant.lost_notifications != original.lost_notifications {
        let summary = |sites: &[u32]| match sites {
            [] => "none".to_string(),
            sites => crate::lost_notifications::LostNotifications::count(sites).summary(label),
        };
        return (
            Verdict::KilledByTrace,
            format!(
                "lost notifications differ: {} instead of {}",
                summary(&mutant.lost_notifications),
                summary(&original.lost_notifications)
            ),
        );
    }
    (Verdict::Survived, String::new())
}

/// The first of the test's `outputs` files the mutant left differently, in words.
pub fn output_file_difference(original: &Observation, mutant: &Observation) -> Option<String> {
    let names = original.outputs.keys().chain(mutant.outputs.keys());
    names.into_iter().find_map(|name| {
        let (a, b) = (
            original.outputs.get(name).cloned().flatten(),
            mutant.outputs.get(name).cloned().flatten(),
        );
        match (a, b) {
            (a, b) if a == b => None,
            (Some(_), None) => Some(format!(
                "output file {name} is missing (the original writes it)"
            )),
            (None, Some(_)) => Some(format!(
                "output file {name} is written (the original leaves none)"
            )),
            (Some(a), Some(b)) => Some(file_difference(name, &a, &b)),
            (None, None) => None,
        }
    })
}

/// How `mutant`'s copy of output file `name` differs from `original`'s, both present:
/// its size, and the first bytes that differ when they are among those kept.
pub fn file_difference(name: &str, original: &OutputFile, mutant: &OutputFile) -> String {
    if original.not_regular != mutant.not_regular {
        let what = |f: &OutputFile| f.not_regular.clone().unwrap_or("a regular file".into());
        return format!(
            "output file {name}: {} (the original's: {})",
            what(mutant),
            what(original)
        );
    }
    let size = if original.bytes != mutant.bytes {
        format!("has {} bytes instead of {}", mutant.bytes, original.bytes)
    } else {
        "has other contents (same size)".to_string()
    };
    let at = match original.first_difference(mutant) {
        Some((start, end)) if start == end => format!(", first at byte {start} (from 0)"),
        Some((start, end)) => format!(", first in bytes {start}–{end} (from 0)"),
        None => String::new(),
    };
    format!("output file {name} {size}{at}")
}

fn describe_pending(pending: &[(String, Option<u32>)], label: &dyn Fn(u32) -> String) -> String {
    if pending.is_empty() {
        return "no thread waiting".to_string();
    }
    pending
        .iter()
        .map(|(thread, site)| match site {
            Some(site) => format!("{thread} waits at {}", label(*site)),
            None => format!("{thread} waits"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The assertion a run failed, if it ended by failing one: SIGABRT with glibc's
/// `… Assertion `x' failed.` line (`assert`, and SV-COMP's `reach_error`, which is
/// `assert(0)` or `__assert_fail`) or the runtime's `__VERIFIER_error: assertion failure`
/// line. `run` and `explore` name a failure alike through this; an `abort()` without such a
/// line is a crash (SIGABRT).
pub fn failed_assertion(status: Status, stderr: &str) -> Option<String> {
    if status != Status::Signaled(libc::SIGABRT) {
        return None;
    }
    stderr
        .lines()
        .find(|l| {
            (l.contains("Assertion") && l.contains("failed")) || l.starts_with("__VERIFIER_error:")
        })
        .map(|l| l.trim().to_string())
}

/// Where two outputs (`stream`: stdout or stderr) first differ, for a reason: the line
/// number, its byte offset in the mutant's output and both lines (capped, invalid UTF-8
/// shown as `\xNN`). Masked lines and the runtime's own lines are skipped as in the
/// comparison. Streams both outputs; only the lines being compared are in memory.
pub fn output_difference(stream: &str, original: &Compared, mutant: &Compared) -> String {
    let mut a = original
        .output
        .lines()
        .enumerate()
        .filter(|(i, l)| original.keeps(*i, &l.bytes));
    let mut b = mutant
        .output
        .lines()
        .enumerate()
        .filter(|(i, l)| mutant.keeps(*i, &l.bytes));
    loop {
        match (a.next(), b.next()) {
            (Some((_, x)), Some((_, y))) if x.bytes == y.bytes => continue,
            (Some((_, x)), Some((i, y))) => {
                return format!(
                    "{stream} line {} (byte {}): {} instead of {}",
                    i + 1,
                    y.offset,
                    excerpt(&y.shown()),
                    excerpt(&x.shown())
                )
            }
            (Some((i, x)), None) => {
                return format!(
                    "{stream} ends after {} lines, where the original goes on with line {}: {}",
                    i,
                    i + 1,
                    excerpt(&x.shown())
                )
            }
            (None, Some((i, y))) => {
                return format!(
                    "{stream} goes on past the original's end: line {} (byte {}): {}",
                    i + 1,
                    y.offset,
                    excerpt(&y.shown())
                )
            }
            (None, None) => break,
        }
    }
    // The kept bytes agree: the difference lies past what was written to disk.
    format!(
        "{stream} differs after the first {} bytes, the part syncmut keeps to show ({} bytes instead of {})",
        original.output.kept().min(mutant.output.kept()),
        mutant.output.len,
        original.output.len
    )
}

/// Longest output line a reason quotes whole: reasons land in terminal tables and
/// `outcomes.json`, where a megabyte line helps nobody.
const EXCERPT_CHARS: usize = 200;

/// A line quoted for a reason, capped at [`EXCERPT_CHARS`] and saying so.
fn excerpt(line: &str) -> String {
    // Quoted as is: the line already spells invalid bytes and control characters `\xNN`.
    let total = line.chars().count();
    if total <= EXCERPT_CHARS {
        return format!("\"{line}\"");
    }
    let head: String = line.chars().take(EXCERPT_CHARS).collect();
    format!("\"{head}\"… ({total} characters, capped)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::Step;
    use std::collections::BTreeMap;
    use syncmut_runner::output::Output;

    /// A clean run: exit 0, two lines of output, `main` reaching site 0.
    fn clean() -> Observation {
        let main = vec![Step {
            site: 0,
            time: None,
            state: BTreeMap::new(),
        }];
        crate::observation::tests::observation_of(
            "start\nsum 6\n",
            &[("main", main)],
            &crate::mask::Mask::default(),
        )
    }

    fn out(text: &str) -> Compared {
        Compared::whole(&Output::from_bytes(text.as_bytes()))
    }

    /// Judges with `stderr` as the mutant's stderr.
    fn judged(original: &Observation, mutant: &Observation, stderr: &str) -> (Verdict, String) {
        let mut mutant = mutant.clone();
        mutant.stderr = Compared::design_stderr(&Output::from_bytes(stderr.as_bytes()));
        judge(original, &mutant, &|site| format!("lock @ a.c:{site}"))
    }

    fn verdict(v: Verdict, reason: &str) -> (Verdict, String) {
        (v, reason.to_string())
    }

    #[test]
    fn the_same_observation_survives() {
        assert_eq!(
            judged(&clean(), &clean(), ""),
            verdict(Verdict::Survived, "")
        );
        // Both crash, deadlock or time out alike: nothing tells them apart.
        for change in [
            |o: &mut Observation| o.status = Status::Signaled(libc::SIGSEGV),
            |o: &mut Observation| o.status = Status::TimedOut,
            |o: &mut Observation| {
                o.deadlock = true;
                o.pending = vec![("t1".to_string(), Some(3))];
            },
        ] {
            let (mut original, mut mutant) = (clean(), clean());
            change(&mut original);
            change(&mut mutant);
            assert_eq!(
                judged(&original, &mutant, ""),
                verdict(Verdict::Survived, "")
            );
        }
    }

    #[test]
    fn a_signal_is_a_crash_or_an_assertion() {
        let mut mutant = clean();
        mutant.status = Status::Signaled(libc::SIGSEGV);
        // A crash wins over everything else the mutant did.
        mutant.deadlock = true;
        mutant.stdout = out("other");
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(
                Verdict::KilledByCrash,
                "the mutant was killed by SIGSEGV (signal 11) instead of ending with exit 0"
            )
        );
        mutant.status = Status::Signaled(libc::SIGABRT);
        assert_eq!(
            judged(&clean(), &mutant, "free(): invalid pointer\n"),
            verdict(
                Verdict::KilledByCrash,
                "the mutant was killed by SIGABRT (signal 6) instead of ending with exit 0"
            )
        );
        let stderr = "log line\nbank: bank.c:40: main: Assertion `total == 200' failed.\n";
        assert_eq!(
            judged(&clean(), &mutant, stderr),
            verdict(
                Verdict::KilledByAssertion,
                "assertion failed: bank: bank.c:40: main: Assertion `total == 200' failed."
            )
        );
        mutant.status = Status::Signaled(64);
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(
                Verdict::KilledByCrash,
                "the mutant was killed by signal 64 instead of ending with exit 0"
            )
        );
    }

    #[test]
    fn an_assertion_is_sigabrt_with_an_assertion_message_from_any_source() {
        let abort = Status::Signaled(libc::SIGABRT);
        for (stderr, line) in [
            (
                "log\nbank: bank.c:40: main: Assertion `total == 200' failed.\n",
                Some("bank: bank.c:40: main: Assertion `total == 200' failed."),
            ),
            // SV-COMP's reach_error() is __assert_fail("0", …, "reach_error").
            (
                "prog: prog.c:3: reach_error: Assertion `0' failed.\n",
                Some("prog: prog.c:3: reach_error: Assertion `0' failed."),
            ),
            (
                "__VERIFIER_error: assertion failure (error location reached)\n",
                Some("__VERIFIER_error: assertion failure (error location reached)"),
            ),
            ("free(): invalid pointer\n", None),
            ("", None),
        ] {
            assert_eq!(failed_assertion(abort, stderr).as_deref(), line, "{stderr}");
        }
        let message = "a.c:1: main: Assertion `x' failed.";
        assert_eq!(
            failed_assertion(Status::Signaled(libc::SIGSEGV), message),
            None
        );
        assert_eq!(failed_assertion(Status::Exited(1), message), None);
    }

    #[test]
    fn stderr_differences_kill_by_output_but_the_runtime_lines_do_not() {
        let mut original = clean();
        original.stderr =
            Compared::design_stderr(&Output::from_bytes(b"warning: x\nsyncmut runtime: note\n"));
        let (v, reason) = judged(
            &original,
            &clean(),
            "warning: x\nsyncmut runtime: other note\n",
        );
        assert_eq!((v, reason.as_str()), (Verdict::Survived, ""));
        let (v, reason) = judged(&original, &clean(), "warning: y\n");
        assert_eq!(
            (v, reason.as_str()),
            (
                Verdict::KilledByOutput,
                "stderr line 1 (byte 0): \"warning: y\" instead of \"warning: x\""
            )
        );
    }

    #[test]
    fn a_new_deadlock_names_who_waits_where() {
        let mut mutant = clean();
        mutant.deadlock = true;
        mutant.livelock = true;
        mutant.pending = vec![("t1".to_string(), Some(3)), ("t2".to_string(), None)];
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(
                Verdict::KilledByDeadlock,
                "deadlock: t1 waits at lock @ a.c:3, t2 waits"
            )
        );
        mutant.pending.clear();
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(Verdict::KilledByDeadlock, "deadlock: no thread waiting")
        );
    }

    #[test]
    fn a_new_livelock_names_the_spinning_thread_if_known() {
        let mut mutant = clean();
        mutant.livelock = true;
        mutant.status = Status::TimedOut;
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(
                Verdict::KilledByLivelock,
                "livelock: kept running without making progress"
            )
        );
        mutant.livelock_thread = Some("m.t1".to_string());
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(
                Verdict::KilledByLivelock,
                "livelock: m.t1: kept running without making progress"
            )
        );
        mutant.livelock_site = Some(2);
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(
                Verdict::KilledByLivelock,
                "livelock: m.t1 at lock @ a.c:2: kept running without making progress"
            )
        );
    }

    #[test]
    fn the_thread_limit_is_a_crash_and_a_timeout_its_own_verdict() {
        let mut mutant = clean();
        mutant.status = Status::Exited(syncmut_runtime::status::THREAD_LIMIT);
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(Verdict::KilledByCrash, "resource limit: the mutant kept more than 1024 threads alive or unjoined at once (the runtime's thread limit)")
        );
        mutant.status = Status::TimedOut;
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(Verdict::KilledByTimeout, "the mutant ran past its timeout")
        );
    }

    #[test]
    fn output_differences_name_the_status_or_the_first_line() {
        let mut mutant = clean();
        mutant.status = Status::Exited(1);
        mutant.stdout = out("other");
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(Verdict::KilledByOutput, "exit 1 instead of exit 0")
        );
        // The original timed out but the mutant finished: a changed status, not a timeout.
        let mut original = clean();
        original.status = Status::TimedOut;
        assert_eq!(
            judged(&original, &clean(), ""),
            verdict(Verdict::KilledByOutput, "exit 0 instead of timed out")
        );
        let mut mutant = clean();
        mutant.stdout = out("start\nsum 5\n");
        mutant.lost_notifications = vec![1];
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(
                Verdict::KilledByOutput,
                "stdout line 2 (byte 6): \"sum 5\" instead of \"sum 6\""
            )
        );
        mutant.stdout = out("start\n");
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(
                Verdict::KilledByOutput,
                "stdout ends after 1 lines, where the original goes on with line 2: \"sum 6\""
            )
        );
    }

    #[test]
    fn output_files_that_differ_are_a_kill_naming_the_file() {
        let file = |bytes: u64, sha: &str| {
            Some(OutputFile {
                bytes,
                sha256: sha.to_string(),
                head: Vec::new(),
                not_regular: None,
            })
        };
        let mut original = clean();
        original.outputs = BTreeMap::from([("out.gz".to_string(), file(10, "a"))]);
        let mut mutant = original.clone();
        assert_eq!(
            judged(&original, &mutant, ""),
            verdict(Verdict::Survived, "")
        );
        mutant.outputs.insert("out.gz".to_string(), file(12, "b"));
        assert_eq!(
            judged(&original, &mutant, ""),
            verdict(
                Verdict::KilledByOutput,
                "output file out.gz has 12 bytes instead of 10"
            )
        );
        mutant.outputs.insert("out.gz".to_string(), file(10, "b"));
        assert_eq!(
            judged(&original, &mutant, ""),
            verdict(
                Verdict::KilledByOutput,
                "output file out.gz has other contents (same size)"
            )
        );
        mutant.outputs.insert("out.gz".to_string(), None);
        assert_eq!(
            judged(&original, &mutant, ""),
            verdict(
                Verdict::KilledByOutput,
                "output file out.gz is missing (the original writes it)"
            )
        );
    }

    #[test]
    fn a_file_difference_names_the_first_bytes_that_differ() {
        let file = |head: &[u8]| OutputFile {
            bytes: head.len() as u64,
            sha256: format!("{head:?}"),
            head: head.to_vec(),
            not_regular: None,
        };
        // A gzip header whose 4-byte time stamp (bytes 4 to 7) differs, one byte alike.
        let original = file(&[0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 0, 3, 9]);
        let mutant = file(&[0x1f, 0x8b, 8, 0, 9, 2, 7, 5, 0, 3, 9]);
        assert_eq!(
            file_difference("out.gz", &original, &mutant),
            "output file out.gz has other contents (same size), first in bytes 4–7 (from 0)"
        );
        let longer = file(&[0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 0, 3, 9, 9]);
        assert_eq!(
            file_difference("out.gz", &original, &longer),
            "output file out.gz has 12 bytes instead of 11"
        );
        let one = file(&[0x1f, 0x8b, 8, 1, 1, 2, 3, 4, 0, 3, 9]);
        assert_eq!(
            file_difference("out.gz", &original, &one),
            "output file out.gz has other contents (same size), first at byte 3 (from 0)"
        );
    }

    #[test]
    fn a_long_output_line_is_quoted_capped_and_says_so() {
        let long = "x".repeat(1_048_576);
        let reason = output_difference("stdout", &out("short\n"), &out(&format!("{long}\n")));
        assert!(reason.len() < 400, "{} characters", reason.len());
        assert!(
            reason.ends_with("instead of \"short\"")
                && reason.contains("(1048576 characters, capped)"),
            "{reason}"
        );
    }

    #[test]
    fn the_same_output_with_other_synchronization_is_killed_by_trace() {
        let mut original = clean();
        original.deadlock = true;
        original.pending = vec![("t1".to_string(), Some(0))];
        assert_eq!(
            judged(&original, &clean(), ""),
            verdict(
                Verdict::KilledByTrace,
                "the original deadlocks (t1 waits at lock @ a.c:0) but the mutant does not"
            )
        );
        let mut original = clean();
        original.pending = vec![("t1".to_string(), None)];
        assert_eq!(
            judged(&original, &clean(), ""),
            verdict(
                Verdict::KilledByTrace,
                "blocked at the end: no thread waiting instead of t1 waits"
            )
        );
        let mut mutant = clean();
        mutant.threads.get_mut("main").unwrap()[0].site = 1;
        mutant.lost_notifications = vec![1];
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(Verdict::KilledByTrace, "synchronization behaviour differs: main reaches lock @ a.c:1 instead of lock @ a.c:0")
        );
        let mut mutant = clean();
        mutant.lost_notifications = vec![1];
        mutant.lost_notifications = vec![1, 1];
        assert_eq!(
            judged(&clean(), &mutant, ""),
            verdict(Verdict::KilledByTrace, "lost notifications differ: 2 notifies with no waiter, 1 site: lock @ a.c:1 (2) instead of none")
        );
    }

    #[test]
    fn every_killed_verdict_and_only_those_count_as_killed() {
        let killed = [
            Verdict::KilledByOutput,
            Verdict::KilledByAssertion,
            Verdict::KilledByDeadlock,
            Verdict::KilledByCrash,
            Verdict::KilledByLivelock,
            Verdict::KilledByTimeout,
            Verdict::KilledByTrace,
            Verdict::KilledByRace,
        ];
        for v in killed {
            assert!(v.is_killed(), "{v}");
            assert!(v.name().starts_with("killed-by-"), "{v}");
        }
        for v in [Verdict::Survived, Verdict::NotReached, Verdict::Error] {
            assert!(!v.is_killed(), "{v}");
        }
    }
}
