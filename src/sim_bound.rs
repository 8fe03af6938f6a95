//! A simulated-time bound for a SystemC design whose original never stops by itself (an
//! `sc_clock` keeps `sc_start()` busy forever) and whose tests give none: the original
//! is probed for how far it simulates in a little wall time, and the tests run to a
//! bound it reaches, chosen from a coarse ladder so that machines of different speeds
//! mostly choose the same one.

use std::time::Duration;
use syncmut_mutator::metamutant::Build;
use syncmut_runner::exec::Limits;
use syncmut_runner::invocation::Invocation;
use syncmut_runner::test_case::{SimTime, TestCase};
use syncmut_runtime::env;

/// Wall time the probe lets the original simulate, in ms, at most: the chosen bound is
/// reached in at most that.
const PROBE_MS: u64 = 2000;

/// The probe takes at most this share of the baseline's limit: the baseline runs the
/// traced metamutant, slower than the plain original the probe runs, and on a loaded
/// machine slower again, so the bound must be reached in a small part of the limit.
const PROBE_SHARE_OF_LIMIT: u32 = 10;

/// The probe's wall time under the baseline limit `limit`.
pub fn probe_time(limit: Duration) -> Duration {
    (limit / PROBE_SHARE_OF_LIMIT).min(Duration::from_millis(PROBE_MS))
}

/// The bounds to choose from, in ns: powers of ten from 1 us to 1 s.
const LADDER_NS: [u64; 7] = [
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// The largest ladder bound the uninstrumented original of `test` reaches within the
/// probe's wall time (`probe_time(limit)`, `limit` the baseline's); the error says why
/// none can be chosen.
pub fn choose(build: &Build, test: &TestCase, limit: Duration) -> Result<SimTime, String> {
    let probe_ms = probe_time(limit).as_millis().max(1) as u64;
    let probe = Invocation {
        sim_probe_ms: Some(probe_ms),
        limits: Limits {
            timeout: Duration::from_millis(probe_ms * 10),
            ..Limits::default()
        },
        ..Invocation::for_test(&build.original, test)
    };
    let execution = probe
        .run()
        .map_err(|e| format!("{}: {e}", build.original.display()))?;
    let stderr = String::from_utf8_lossy(execution.stderr.head());
    let reached: u64 = stderr
        .lines()
        .find_map(|line| line.strip_prefix(env::SIM_PROBE_REPORT))
        .and_then(|ns| ns.trim().parse().ok())
        .ok_or_else(|| {
            format!(
                "probed for {probe_ms} ms, it did not keep simulating (it ended with {})",
                execution.status
            )
        })?;
    ladder_bound(reached).ok_or_else(|| {
        format!(
            "probed for {probe_ms} ms, it simulated only {}, below the smallest bound tried ({})",
            SimTime { ns: reached },
            SimTime { ns: LADDER_NS[0] }
        )
    })
}

/// The largest ladder bound at or below `reached` ns.
fn ladder_bound(reached: u64) -> Option<SimTime> {
    LADDER_NS
        .iter()
        .rev()
        .find(|ns| **ns <= reached)
        .map(|ns| SimTime { ns: *ns })
}

#[cfg(test)]
mod tests {
    use super::ladder_bound;

    #[test]
    fn the_bound_is_the_largest_power_of_ten_reached() {
        assert_eq!(ladder_bound(999), None);
        assert_eq!(ladder_bound(1_000).unwrap().to_string(), "1 us");
        assert_eq!(ladder_bound(73_450_000).unwrap().to_string(), "10 ms");
        assert_eq!(ladder_bound(u64::MAX).unwrap().to_string(), "1 s");
    }
}
