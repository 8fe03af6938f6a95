//! The original's nondeterminism as the baseline finds it: what differs between two runs
//! of the original on one test, as a [`Mask`] (`Mask::between`), or, when the difference
//! cannot be masked, what it was in words. Apart from `mask.rs` so that the mask stays a
//! leaf that `observation` can apply while recording: this file reads observations.

use crate::mask::{Mask, EVERY_VALUE};
use crate::observation::{Compared, Observation};
use std::collections::{BTreeMap, BTreeSet};

impl Mask {
    /// What differs between two runs of the original on one test, as a mask; or, when the
    /// difference cannot be masked, what it was in words. `label` names a site.
    pub fn between(
        a: &Observation,
        b: &Observation,
        label: &dyn Fn(u32) -> String,
    ) -> Result<Mask, String> {
        if a.status != b.status {
            return Err(format!(
                "it ended with {} in one run and {} in the other",
                a.status, b.status
            ));
        }
        let mut mask = Mask {
            stdout_lines: differing_lines("stdout", &a.stdout, &b.stdout)?,
            stderr_lines: differing_lines("stderr", &a.stderr, &b.stderr)?,
            ..Mask::default()
        };
        // Same threads, same sites in the same order: only times and values may differ.
        let (sites_a, sites_b) = (a.sites_only(), b.sites_only());
        if sites_a.threads != sites_b.threads {
            let what = sites_a
                .first_step_difference(&sites_b, label)
                .unwrap_or_else(|| "the threads differ".to_string());
            return Err(format!("its synchronization differed: {what}"));
        }
        for (thread, steps) in &a.threads {
            let mut seen: BTreeMap<u32, usize> = BTreeMap::new();
            for (x, y) in steps.iter().zip(&b.threads[thread]) {
                let occurrence = seen.entry(x.site).or_default();
                let key = (thread.clone(), x.site, *occurrence);
                *occurrence += 1;
                if x == y {
                    continue;
                }
                let (Some(x), Some(y)) = (a.step(x), b.step(y)) else {
                    // Past the steps kept in full: which part differed is not known, so
                    // the whole event is masked.
                    mask.times.insert(key.clone());
                    mask.values
                        .insert(key, BTreeSet::from([EVERY_VALUE.to_string()]));
                    continue;
                };
                if x.time != y.time {
                    mask.times.insert(key.clone());
                }
                let keys: BTreeSet<String> = x
                    .state
                    .keys()
                    .chain(y.state.keys())
                    .filter(|k| x.state.get(*k) != y.state.get(*k))
                    .cloned()
                    .collect();
                if !keys.is_empty() {
                    mask.values.insert(key, keys);
                }
            }
        }
        if a.deadlock != b.deadlock || a.livelock != b.livelock || a.pending != b.pending {
            return Err(
                "it ended differently (deadlock, livelock or who is blocked where)".to_string(),
            );
        }
        if a.lost_notifications != b.lost_notifications {
            return Err("it lost different notifications".to_string());
        }
        Ok(mask)
    }
}

/// Line numbers at which two outputs differ, when they have the same number of lines;
/// otherwise what differed.
fn differing_lines(stream: &str, a: &Compared, b: &Compared) -> Result<BTreeSet<usize>, String> {
    if a == b {
        return Ok(BTreeSet::new());
    }
    if !a.output.is_whole() || !b.output.is_whole() {
        return Err(format!(
            "its {stream} differed beyond the part syncmut keeps ({} and {} bytes)",
            a.output.len, b.output.len
        ));
    }
    let (mut x, mut y) = (a.output.lines(), b.output.lines());
    let mut lines = BTreeSet::new();
    for i in 0.. {
        match (x.next(), y.next()) {
            (None, None) => break,
            (Some(l), Some(m)) => {
                if l.bytes != m.bytes && (a.keeps(i, &l.bytes) || b.keeps(i, &m.bytes)) {
                    lines.insert(i);
                }
            }
            (l, m) => {
                let count = |o: &Compared| o.output.lines().count();
                let shown = l.or(m).map(|l| l.shown()).unwrap_or_default();
                return Err(format!(
                    "its {stream} had {} lines in one run and {} in the other (line {}: \"{shown}\")",
                    count(a),
                    count(b),
                    i + 1
                ));
            }
        }
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::tests::observation_of;
    use crate::observation::Step;
    use serde_json::Value;
    use syncmut_runner::exec::Status;

    fn steps(time: &str, seed: i64, n: i64) -> Vec<Step> {
        let step = |site: u32, time: &str, seed: i64| Step {
            site,
            time: Some(time.to_string()),
            state: BTreeMap::from([
                ("seed".to_string(), Value::from(seed)),
                ("n".to_string(), Value::from(n)),
            ]),
        };
        vec![step(1, "0 s", 0), step(2, time, seed), step(1, "9 ns", 0)]
    }

    fn observation(stdout: &str, time: &str, seed: i64) -> Observation {
        observation_of(stdout, &[("t", steps(time, seed, 1))], &Mask::default())
    }

    #[test]
    fn differing_lines_times_and_values_are_masked_and_described() {
        let label = |s: u32| format!("site {s}");
        let a = observation("seed 17\nsum 6\n", "3 ns", 17);
        let b = observation("seed 99\nsum 6\n", "5 ns", 99);
        let mask = Mask::between(&a, &b, &label).unwrap();
        assert_eq!(mask.stdout_lines, BTreeSet::from([0]));
        assert_eq!(
            mask.describe(&label),
            [
                "stdout line 1",
                "time of t at site 2",
                "seed seen by t at site 2"
            ]
        );
        let masked = |stdout: &str, time: &str, seed: i64, n: i64| {
            observation_of(stdout, &[("t", steps(time, seed, n))], &mask)
        };
        assert_eq!(
            masked("seed 17\nsum 6\n", "3 ns", 17, 1),
            masked("seed 99\nsum 6\n", "5 ns", 99, 1)
        );
        // What is not masked still counts: another sum, or n seen at the masked event.
        assert_ne!(
            masked("seed 17\nsum 6\n", "3 ns", 17, 1),
            masked("seed 5\nsum 7\n", "4 ns", 5, 1)
        );
        assert_ne!(
            masked("seed 17\nsum 6\n", "3 ns", 17, 1),
            masked("seed 5\nsum 6\n", "4 ns", 5, 2)
        );
        // Hiding another site's events (a mutant's own) does not move the mask.
        let hidden = |time: &str, seed: i64| masked("seed 1\nsum 6\n", time, seed, 1).hiding(&[1]);
        assert_eq!(hidden("3 ns", 17), hidden("5 ns", 99));
    }

    #[test]
    fn differences_that_cannot_be_masked_say_what_differed() {
        let label = |s: u32| format!("site {s}");
        let a = observation("one\n", "3 ns", 1);
        let b = observation("one\ntwo\n", "3 ns", 1);
        assert_eq!(
            Mask::between(&a, &b, &label).unwrap_err(),
            "its stdout had 1 lines in one run and 2 in the other (line 2: \"two\")"
        );
        let mut c = a.clone();
        c.status = Status::Exited(3);
        assert_eq!(
            Mask::between(&a, &c, &label).unwrap_err(),
            "it ended with exit 0 in one run and exit 3 in the other"
        );
        let mut moved = steps("3 ns", 1, 1);
        moved[1].site = 4;
        let d = observation_of("one\n", &[("t", moved)], &Mask::default());
        assert_eq!(
            Mask::between(&a, &d, &label).unwrap_err(),
            "its synchronization differed: t reaches site 4 instead of site 2"
        );
    }
}
