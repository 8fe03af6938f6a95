//! What the oracle's benches share: where the repository is, their knobs, the median,
//! CPU time.

// Each bench compiles this module on its own and uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root (the programs the benches run are named relative to it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A number from the environment, else `default`.
pub fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// CPU seconds (user + system) of this process and of its reaped descendants: on a
/// loaded machine a run's CPU time says what it costs better than its wall time.
pub fn cpu() -> f64 {
    let seconds = |who| {
        // SAFETY: getrusage fills the struct it is given.
        let usage = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            libc::getrusage(who, &mut usage);
            usage
        };
        let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
        t(usage.ru_utime) + t(usage.ru_stime)
    };
    seconds(libc::RUSAGE_SELF) + seconds(libc::RUSAGE_CHILDREN)
}
