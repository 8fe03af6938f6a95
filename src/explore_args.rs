//! `syncmut explore`'s command line: the design, the search's strategy and budgets, the
//! properties checked, and the arguments an SV-COMP task stands for.

use crate::strategy_help;
use crate::svcomp::Task;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use std::path::{Path, PathBuf};
use syncmut_oracle::explore::Property;
use syncmut_oracle::schedules::{Por, UNBOUNDED};
use syncmut_oracle::strategies;

#[derive(Args, Clone)]
pub struct ExploreArgs {
    /// C/C++ sources, a directory of sources, an LLVM module (.bc/.ll), or an executable
    /// linked through `syncmut cc`; pthread only.
    #[arg(required_unless_present = "compile_db")]
    pub design: Vec<PathBuf>,
    #[command(flatten)]
    pub project: crate::build_input::ProjectArgs,
    /// How the schedules are chosen: one budget shared by strategies in phases, or one
    /// strategy.
    #[arg(
        long,
        default_value = strategies::EXPLORE_DEFAULT,
        value_parser = strategy_help::parser(strategies::Command::Explore)
    )]
    pub strategy: String,
    #[arg(long, value_name = "N", help = strategy_help::explore_schedules())]
    pub schedules: Option<usize>,
    #[arg(
        long,
        value_name = "K",
        value_parser = preemption_bound,
        help = strategy_help::explore_preemptions()
    )]
    pub preemptions: Option<u32>,
    /// dfs and phased's dfs phase: how schedules that only reorder independent steps are
    /// skipped: `dpor` (dynamic partial-order reduction), `sleep` (sleep sets only) or
    /// `none`.
    #[arg(long, default_value = strategies::EXPLORE_POR.name(), value_parser = por_name())]
    pub por: Por,
    #[arg(long, value_name = "D", help = strategy_help::explore_depth())]
    pub depth: Option<u32>,
    /// Scheduling points: `sync` (synchronization calls, thread start/end) or `memory`
    /// (also every load/store of possibly shared memory: globals, memory reached
    /// through pointers), which makes data races and spin-waits explorable.
    #[arg(long, default_value = "sync", value_parser = syncmut_mutator::interleave::Interleave::parse)]
    pub interleave: syncmut_mutator::interleave::Interleave,
    /// Also report data races: shared loads and stores are instrumented (without
    /// becoming scheduling points unless `--interleave memory`) and a happens-before
    /// detector checks each run; two accesses no synchronization orders are a bug.
    #[arg(long)]
    pub races: bool,
    /// A compiler flag for the design (repeatable), e.g. `--cflag=-DN=4`.
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
    /// Output directory (build, counterexample files).
    #[arg(short, long, default_value = "syncmut.explore")]
    pub output: PathBuf,
    /// The livelock bound: a run that passes this many scheduling points without ending
    /// is a livelock (the scheduler is fair, so a correct spin-wait ends long before).
    #[arg(long, value_name = "N", default_value_t = strategies::EXPLORE_MAX_STEPS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: u64,
    /// The thread bound: a run that creates more threads than this (main not counted) is
    /// cut there, and "no bug found" holds up to the bound only.
    #[arg(long, value_name = "N", default_value_t = strategies::EXPLORE_THREAD_BOUND, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: u32,
    /// Timeout of one execution, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub timeout: u64,
    /// Wall-clock limit of the whole command, build included: no run starts or goes on
    /// after it (one under way is cut there and not judged), and the search ends with
    /// what it covered (under a property, verdict `unknown`) instead of being killed by an
    /// outer limit with nothing said. Without --schedules, dfs (alone, or phased's last
    /// phase) goes on past the run budget until the limit.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub time_limit: Option<u64>,
    /// Runs executed at the same time by the seeded strategies (random, pct, holdback,
    /// rr and the mix's phases before dfs; dfs runs one at a time); the result is the
    /// same for every value (default: `jobs` in syncmut.toml, else the number of cores).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// An argument passed to the design (repeatable, in order), e.g. `--arg=-v --arg 4`.
    #[arg(long = "arg", value_name = "WORD", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// Flags for clang, as after `--` in every other command (`-- -DN=4 -Iinclude`).
    #[arg(last = true)]
    pub flags: Vec<String>,
    /// A property to check (repeatable): unreach-call (no call of reach_error() or
    /// __VERIFIER_error()), no-data-race, no-deadlock, termination or assertions. A
    /// finding no property named forbids is a note and the search goes on; `abort()`
    /// discards its path. Default: every kind of bug, each a violation.
    #[arg(long = "property", value_name = "PROPERTY", value_parser = property_name())]
    pub properties: Vec<Property>,
    /// Print one summary line in SV-COMP's words: `true`, `false(PROPERTY)` or `unknown`
    /// (with a task's expected verdict beside it).
    #[arg(long)]
    pub svcomp: bool,
    /// The SV-COMP task when the design named is a task definition (`TASK.yml`).
    #[arg(skip)]
    pub task: Option<Task>,
}

/// `--por`: clap checks the name against the reductions' (and lists them in its errors).
pub fn por_name() -> impl TypedValueParser<Value = Por> {
    PossibleValuesParser::new(Por::NAMES).map(|name| name.parse().expect("a listed reduction"))
}

/// A preemption bound: a number, or `unbounded`.
pub fn preemption_bound(word: &str) -> Result<u32, String> {
    match word {
        "unbounded" => Ok(UNBOUNDED),
        k => k
            .parse::<u32>()
            .ok()
            .filter(|k| *k != UNBOUNDED)
            .ok_or_else(|| format!("{k:?} is not a preemption bound (a number, or `unbounded`)")),
    }
}

/// `--property`: clap checks the name against the list.
fn property_name() -> impl TypedValueParser<Value = Property> {
    PossibleValuesParser::new(Property::NAMES).map(|name| name.parse().expect("a listed property"))
}

/// The arguments that explore a task: its input files as the design, its properties
/// and expected verdicts kept with it. What cannot be honoured is said on stderr:
/// properties syncmut does not check, and ILP32, which syncmut's 64-bit runtime cannot
/// run (the program is built as LP64). A task that cannot be read is a usage error.
pub fn args_of_task(a: &ExploreArgs, file: &Path) -> Result<ExploreArgs, (i32, anyhow::Error)> {
    let task = Task::read(file).map_err(|e| (crate::exit::USAGE, e))?;
    for property in &task.unsupported {
        eprintln!(
            "syncmut: warning: {}: property {property} is not one syncmut checks: left out",
            file.display()
        );
    }
    if task.data_model.as_deref() == Some("ILP32") {
        eprintln!(
            "syncmut: warning: {}: data model ILP32 asked, but syncmut's runtime is built for 64-bit programs only (no -m32 build of it): the program is built and explored as LP64, where `long` and pointers are 64 bits wide",
            file.display()
        );
    }
    Ok(ExploreArgs {
        design: task.input_files.clone(),
        task: Some(task),
        ..a.clone()
    })
}

/// An ILP32 task's inputs carry the 32-bit glibc's pthread types, smaller than the objects
/// this machine's glibc writes (`ilp32.rs`): the design becomes copies in `dir` with those
/// types widened, said in one line, and reports keep naming the originals (the root is
/// theirs unless given).
pub fn widen_ilp32(a: &mut ExploreArgs, dir: &Path) -> anyhow::Result<()> {
    let Some(task) = &a.task else { return Ok(()) };
    if task.data_model.as_deref() != Some("ILP32") {
        return Ok(());
    }
    let (built, widened) = crate::ilp32::widen_inputs(&a.design, dir)?;
    if widened.is_empty() {
        return Ok(());
    }
    eprintln!(
        "syncmut: note: the 32-bit pthread types of the task's inputs are smaller than this machine's glibc writes ({}): built with them widened, so no call writes past them; nothing else changes",
        widened.join(", ")
    );
    if a.project.root.is_none() {
        // The deepest directory holding every original, as it would be without copies.
        let mut parents = a
            .design
            .iter()
            .filter_map(|p| Some(std::path::absolute(p).ok()?.parent()?.to_path_buf()));
        let first = parents.next();
        a.project.root = first.map(|first| {
            parents.fold(first, |root, dir| {
                root.components()
                    .zip(dir.components())
                    .take_while(|(x, y)| x == y)
                    .map(|(x, _)| x)
                    .collect()
            })
        });
    }
    a.design = built;
    Ok(())
}
