//! The bad/correct twins (tests/corpus/twins and tests/corpus/busywait) and how one
#![allow(dead_code)]
//! `syncmut explore` of a twin ends, shared by `tests/twins.rs` and the `twins` bench.

use std::path::Path;
use std::process::Command;

/// What a search of a program must end with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A bad twin: a bug is found (exit 9).
    Bug,
    /// A correct twin: no bug (exit 0); anything else is a false alarm.
    Clean,
    /// Every run is cut at the thread bound and no bug is found below it (exit 0, "no bug
    /// found with at most N threads per run"); a bug is a false alarm.
    Bounded,
}

pub struct Twin {
    /// Under tests/corpus, without `.c`.
    pub path: &'static str,
    pub expect: Expect,
    /// Extra `explore` flags the pair needs (`--races` for a race-only bug).
    pub flags: &'static [&'static str],
}

const fn bad(path: &'static str) -> Twin {
    Twin {
        path,
        expect: Expect::Bug,
        flags: &[],
    }
}
const fn ok(path: &'static str) -> Twin {
    Twin {
        path,
        expect: Expect::Clean,
        flags: &[],
    }
}

/// Every twin, correct one first in each pair.
pub const TWINS: &[Twin] = &[
    ok("busywait/peterson"),
    bad("busywait/peterson_bad"),
    ok("busywait/dekker"),
    bad("busywait/dekker_bad"),
    ok("busywait/bakery"),
    bad("busywait/bakery_bad"),
    ok("busywait/szymanski"),
    bad("busywait/szymanski_bad"),
    ok("busywait/ticket_lock"),
    bad("busywait/ticket_lock_bad"),
    ok("busywait/flag_handoff"),
    bad("busywait/flag_handoff_bad"),
    ok("twins/atomic_acquire"),
    bad("twins/atomic_acquire_bad"),
    ok("twins/own_atomic_section"),
    bad("twins/own_atomic_section_bad"),
    ok("twins/reorder_20"),
    bad("twins/reorder_20_bad"),
    // 100 writers and a reader: above the default thread bound of 64.
    Twin {
        path: "twins/twostage_100",
        expect: Expect::Clean,
        flags: &["--threads", "128"],
    },
    Twin {
        path: "twins/twostage_100_bad",
        expect: Expect::Bug,
        flags: &["--threads", "128"],
    },
    ok("twins/fib_bench"),
    bad("twins/fib_bench_bad"),
    ok("twins/triangular"),
    bad("twins/triangular_bad"),
    ok("twins/unjoined_fib"),
    bad("twins/unjoined_fib_bad"),
    ok("twins/phases"),
    bad("twins/phases_bad"),
    ok("twins/lazy_sum"),
    bad("twins/lazy_sum_bad"),
    ok("twins/thread_ids"),
    bad("twins/thread_ids_bad"),
    ok("twins/bounded_buffer"),
    bad("twins/bounded_buffer_bad"),
    Twin {
        path: "twins/stats_race",
        expect: Expect::Clean,
        flags: &["--races"],
    },
    Twin {
        path: "twins/stats_race_bad",
        expect: Expect::Bug,
        flags: &["--races"],
    },
    ok("twins/magic_mode"),
    bad("twins/magic_mode_bad"),
    ok("twins/nondet_handles"),
    bad("twins/nondet_handles_bad"),
    ok("twins/gnu_inline"),
    bad("twins/gnu_inline_bad"),
    Twin {
        path: "twins/spawn_forever",
        expect: Expect::Bounded,
        flags: &[],
    },
    bad("twins/spawn_forever_bad"),
];

/// How one search ended.
#[derive(Debug, Clone)]
pub struct Search {
    pub code: i32,
    /// `found by run N`: the run that showed the bug.
    pub found_at: Option<usize>,
    /// Runs made and wall seconds, from the summary line.
    pub runs: usize,
    pub seconds: f64,
    pub text: String,
}

impl Search {
    /// Ended as `expect` says.
    pub fn as_expected(&self, expect: Expect) -> bool {
        match expect {
            Expect::Bug => self.code == 9,
            Expect::Clean => self.code == 0 && !self.cut_at_thread_bound(),
            Expect::Bounded => self.code == 0 && self.cut_at_thread_bound(),
        }
    }

    /// "No bug found with at most N threads per run": the runs were cut at the thread
    /// bound, so a clean end says nothing about the program beyond it.
    pub fn cut_at_thread_bound(&self) -> bool {
        self.text.contains("threads per run")
    }

    /// A correct twin reported as buggy.
    pub fn false_alarm(&self, expect: Expect) -> bool {
        expect != Expect::Bug && self.code == 9
    }
}

/// Runs `syncmut explore` (the executable `syncmut`) on a twin with a strategy (`None`:
/// explore's default), an interleave setting and a budget.
pub fn explore(
    syncmut: &Path,
    root: &Path,
    twin: &Twin,
    strategy: Option<&str>,
    interleave: &str,
    schedules: usize,
    out: &Path,
) -> Search {
    let mut cmd = Command::new(syncmut);
    cmd.arg("explore")
        .arg(root.join("tests/corpus").join(format!("{}.c", twin.path)))
        .arg("-o")
        .arg(out);
    cmd.args([
        "--interleave",
        interleave,
        "--schedules",
        &schedules.to_string(),
    ])
    .args(twin.flags);
    if let Some(s) = strategy {
        cmd.args(["--strategy", s]);
    }
    let output = cmd.output().expect("run syncmut");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let number_after = |prefix: &str| -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .and_then(|rest| {
                rest.split(|c: char| !(c.is_ascii_digit() || c == '.'))
                    .next()?
                    .parse()
                    .ok()
            })
    };
    let runs = number_after("explored ").unwrap_or(0.0) as usize;
    let seconds = text
        .lines()
        .find(|l| l.starts_with("explored "))
        .and_then(|l| {
            l.split(", ")
                .find(|p| p.ends_with(" s") || p.contains(" s ("))
        })
        .and_then(|p| p.split(' ').next()?.parse().ok())
        .unwrap_or(0.0);
    Search {
        code: output.status.code().unwrap_or(-1),
        found_at: number_after("found by run ").map(|n| n as usize),
        runs,
        seconds,
        text,
    }
}
