//! Benchmark: schedules per second of `syncmut explore` against an earlier build of
//! syncmut, on every bad/correct twin (tests/corpus/twins and tests/corpus/busywait),
//! side by side in one process: the earlier build, this one one run at a time (`-j 1`)
//! and this one with its default lanes alternate per program (`ROUNDS` rounds, median).
//! Each search is `explore --strategy random` with the same budget, at the twin's
//! interleave setting `memory` (where every twin has choices), and the rate is the one
//! the summary line prints (runs over the search's own time: the build is not counted).
//! A bad twin's search stops at its bug, so its rate rests on few runs: the median ratio
//! is over the correct twins, whose searches make the whole budget.
//!
//! Run: `VERSUS_BEFORE=/path/to/earlier/syncmut cargo bench --bench versus` (e.g. a
//! release build of an earlier commit in a second worktree). Knobs: `VERSUS_SCHEDULES`
//! (default 300), `ROUNDS` (default 2), `TWINS_ONLY` (twins whose path contains this).

#[path = "../tests/util/twins.rs"]
mod twins;

use std::path::{Path, PathBuf};
use std::process::Command;
use twins::TWINS;

/// The rate a search's summary printed (`… s (N runs/s)`), or why there is none.
fn rate(syncmut: &Path, args: &[String], source: &Path, out: &Path) -> Result<f64, String> {
    let output = Command::new(syncmut)
        .arg("explore")
        .arg(source)
        .arg("-o")
        .arg(out)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&output.stdout);
    let summary = text
        .lines()
        .find(|l| l.starts_with("explored "))
        .ok_or_else(|| format!("exit {}", output.status.code().unwrap_or(-1)))?;
    let before = summary.find(" runs/s)").ok_or("no rate")?;
    let number = summary[..before].rsplit('(').next().ok_or("no rate")?;
    number
        .trim()
        .parse()
        .map_err(|_| format!("rate {number:?}"))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let Some(before) = env("VERSUS_BEFORE").map(PathBuf::from) else {
        println!("set VERSUS_BEFORE to an earlier syncmut executable to compare with (e.g. a release build of an earlier commit)");
        return;
    };
    let after = PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let schedules = env("VERSUS_SCHEDULES").unwrap_or_else(|| "300".into());
    let rounds: usize = env("ROUNDS").and_then(|v| v.parse().ok()).unwrap_or(2);
    let only = env("TWINS_ONLY");
    let lanes = std::thread::available_parallelism().map_or(1, |n| n.get());
    let work = tempfile::tempdir().expect("temporary directory");
    let common: Vec<String> = [
        "--strategy",
        "random",
        "--interleave",
        "memory",
        "--schedules",
        &schedules,
    ]
    .map(str::to_string)
    .to_vec();
    println!("explore --strategy random --interleave memory --schedules {schedules}: runs per second, median of {rounds} rounds; before: {}", before.display());
    println!("| program | before | after, -j 1 | ratio | after, {lanes} lanes | ratio |");
    println!("|---|---|---|---|---|---|");
    let (mut ratios_one, mut ratios_lanes) = (Vec::new(), Vec::new());
    for twin in TWINS
        .iter()
        .filter(|t| only.as_ref().is_none_or(|o| t.path.contains(o.as_str())))
    {
        let source = root.join("tests/corpus").join(format!("{}.c", twin.path));
        let out = |tag: &str| {
            work.path()
                .join(format!("{}-{tag}", twin.path.replace('/', "-")))
        };
        let (mut b, mut one, mut many) = (Vec::new(), Vec::new(), Vec::new());
        let mut failed = None;
        let flags: Vec<String> = common
            .iter()
            .cloned()
            .chain(twin.flags.iter().map(|f| f.to_string()))
            .collect();
        let with = |j: usize| {
            flags
                .iter()
                .cloned()
                .chain(["-j".to_string(), j.to_string()])
                .collect::<Vec<_>>()
        };
        for _ in 0..rounds {
            match rate(&before, &flags, &source, &out("before")) {
                Ok(r) => b.push(r),
                Err(why) => failed = Some(why),
            }
            one.push(
                rate(&after, &with(1), &source, &out("one"))
                    .unwrap_or_else(|e| panic!("{}: {e}", twin.path)),
            );
            many.push(
                rate(&after, &with(lanes), &source, &out("lanes"))
                    .unwrap_or_else(|e| panic!("{}: {e}", twin.path)),
            );
        }
        let (one, many) = (median(one), median(many));
        match failed {
            Some(why) if b.len() < rounds => println!(
                "| {} | none ({why}) | {one:.0} | - | {many:.0} | - |",
                twin.path
            ),
            _ => {
                let b = median(b);
                if twin.expect == twins::Expect::Clean {
                    ratios_one.push(one / b);
                    ratios_lanes.push(many / b);
                }
                // A rate the summary rounds to 0 (runs of seconds each) has no ratio.
                let ratio = |after: f64| {
                    if b > 0.0 {
                        format!("{:.1}x", after / b)
                    } else {
                        "-".to_string()
                    }
                };
                println!(
                    "| {} | {b:.0} | {one:.0} | {} | {many:.0} | {} |",
                    twin.path,
                    ratio(one),
                    ratio(many)
                );
            }
        }
    }
    if !ratios_one.is_empty() {
        println!("| median ratio ({} correct twins, whose searches run the whole budget) | | | {:.1}x | | {:.1}x |", ratios_one.len(), median(ratios_one), median(ratios_lanes));
    }
}
