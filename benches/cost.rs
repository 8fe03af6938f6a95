//! Benchmark: what `syncmut run` costs per mutant on synthetic pthread designs
//! (`benches/synth`): 250 and 1,000 sites reached one test each, and a design where every
//! thread reaches many sites. Side by side in one process: an earlier build (when
//! `COST_BEFORE` names one), this build with pruning off (`SYNCMUT_NO_PRUNE=1`) and this
//! build; each prints wall time, program executions of the mutant phase and runs per
//! mutant (the summary line's; an earlier build that does not print it shows `—`), then
//! the ratios, and how many mutants' verdicts differ from this build's. No timed
//! assertion: the machine decides the times, the ratios are the point.
//!
//! Run: `COST_BEFORE=/path/to/earlier/syncmut cargo bench --bench cost`. Knobs:
//! `COST_ONLY` (designs whose name contains this), `COST_JOBS` (`-j`, default 2).

#[path = "synth/mod.rs"]
mod synth;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use synth::Shape;

/// One whole run: wall seconds, and the executions and runs per mutant it printed.
struct Measured {
    wall: f64,
    cost: Option<(u64, f64)>,
    score: String,
}

/// Every mutant's verdict, killing test and reason in a run directory's outcomes.json.
fn verdicts(out: &Path) -> Vec<(String, String, String, String)> {
    let text = std::fs::read_to_string(out.join("outcomes.json")).unwrap_or_default();
    let outcomes: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let field = |m: &serde_json::Value, k: &str| m[k].as_str().unwrap_or_default().to_string();
    outcomes["mutants"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .map(|m| {
                    let id = field(m, "mutant");
                    (
                        id,
                        field(m, "verdict"),
                        field(m, "killed_by"),
                        field(m, "reason"),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn run(syncmut: &Path, design: &Path, out: &Path, jobs: &str, unpruned: bool) -> Measured {
    let _ = std::fs::remove_dir_all(out);
    let mut cmd = Command::new(syncmut);
    cmd.arg("run").arg(design).args(["-j", jobs, "-o"]).arg(out);
    match unpruned {
        true => cmd.env("SYNCMUT_NO_PRUNE", "1"),
        false => cmd.env_remove("SYNCMUT_NO_PRUNE"),
    };
    let start = Instant::now();
    let output = cmd.output().expect("syncmut runs");
    let wall = start.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&output.stdout);
    let line = |prefix: &str| {
        text.lines()
            .find(|l| l.starts_with(prefix))
            .map(str::to_string)
    };
    // `runs per mutant: 8.0 (4,002 executions for 501 mutants; …)`
    let cost = line("runs per mutant: ").and_then(|l| {
        let per: f64 = l["runs per mutant: ".len()..]
            .split(' ')
            .next()?
            .parse()
            .ok()?;
        let executions = l.split('(').nth(1)?.split(' ').next()?.replace(',', "");
        Some((executions.parse().ok()?, per))
    });
    let score = line("mutation score: ")
        .unwrap_or_else(|| format!("exit {}", output.status.code().unwrap_or(-1)));
    Measured { wall, cost, score }
}

fn main() {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let before = env("COST_BEFORE").map(PathBuf::from);
    let after = PathBuf::from(env!("CARGO_BIN_EXE_syncmut"));
    let jobs = env("COST_JOBS").unwrap_or_else(|| "2".into());
    let only = env("COST_ONLY");
    let work = tempfile::tempdir().expect("a temporary directory");
    let designs = [
        ("one_per_test_250", Shape::OnePerTest, 125),
        ("one_per_test_1000", Shape::OnePerTest, 500),
        ("shared_4x32", Shape::Shared { threads: 4 }, 32),
    ];
    println!(
        "design                builds                   wall      executions  runs/mutant  score"
    );
    for (name, shape, pairs) in designs {
        if only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        let design = work.path().join(format!("{name}.c"));
        std::fs::write(&design, synth::design(shape, pairs)).expect("the design is written");
        let mut builds: Vec<(&str, &Path, bool)> = Vec::new();
        if let Some(before) = &before {
            builds.push(("before", before, false));
        }
        builds.push(("this, pruning off", &after, true));
        builds.push(("this", &after, false));
        let mut walls = Vec::new();
        let mut seen = Vec::new();
        for (label, syncmut, unpruned) in builds {
            let out = work.path().join("out");
            let m = run(syncmut, &design, &out, &jobs, unpruned);
            seen.push((label, verdicts(&out)));
            let (executions, per) = match m.cost {
                Some((e, p)) => (e.to_string(), format!("{p:.1}")),
                None => ("—".into(), "—".into()),
            };
            println!(
                "{name:20}  {label:20}  {:7.1} s  {executions:>10}  {per:>11}  {}",
                m.wall, m.score
            );
            walls.push((label, m.wall));
        }
        // The point of every build is the same verdicts at a lower cost.
        let (_, last) = seen.last().expect("this build ran");
        for (label, other) in &seen[..seen.len() - 1] {
            let differ = other.iter().zip(last).filter(|(a, b)| a != b).count()
                + other.len().abs_diff(last.len());
            println!("{name:20}  {label} vs this: {differ} mutant(s) with another verdict, killing test or reason");
        }
        let this = walls.last().map(|(_, w)| *w).unwrap_or(1.0);
        for (label, wall) in &walls[..walls.len() - 1] {
            println!("{name:20}  {label} / this: {:.2}× wall", wall / this);
        }
    }
}
