//! `syncmut merge DIR… -o OUT`: the run directories of shards (`run --shard k/n`, one
//! per CI machine) combined into one, as if one run had tested all their mutants:
//! catalogue, outcomes and score, the reports, and the traces and diffs that explain
//! the kills. The shards must come from the same build of the design (same sites) and
//! must not share a mutant.

use crate::failure::{oracle_failure, Failure};
use crate::gates::score_gate;
use crate::run_dir::open_run_directory;
use crate::{exit, table};
use anyhow::Context as _;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use syncmut_mutator::{metamutant, Catalogue, Mutant};
use syncmut_oracle::outcome::{Baseline, Outcomes, Run};
use syncmut_oracle::outdir;
use syncmut_oracle::report;

#[derive(clap::Args)]
pub struct MergeArgs {
    /// The shards' run directories.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// The merged run directory.
    #[arg(short, long, default_value = "syncmut.out")]
    output: PathBuf,
    /// Exit with code 8 when the merged mutation score (percent) is below this.
    #[arg(long, value_name = "PCT")]
    fail_under: Option<f64>,
}

/// What one shard's run directory holds.
struct Shard {
    dir: PathBuf,
    catalogue: Catalogue,
    outcomes: Outcomes,
    baseline: Vec<Baseline>,
    tests: serde_json::Value,
}

fn read_json<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> anyhow::Result<T> {
    let path = dir.join(name);
    let bytes = std::fs::read(&path).with_context(|| {
        format!(
            "{}: cannot read (is {} a finished run directory?)",
            path.display(),
            dir.display()
        )
    })?;
    serde_json::from_slice(&bytes)
        .with_context(|| format!("{}: not a syncmut {name}", path.display()))
}

impl Shard {
    fn read(dir: &Path) -> anyhow::Result<Shard> {
        Ok(Shard {
            dir: dir.to_path_buf(),
            catalogue: read_json(dir, metamutant::layout::CATALOGUE)?,
            outcomes: read_json(dir, outdir::OUTCOMES)?,
            baseline: read_json(dir, outdir::BASELINE)?,
            tests: read_json(dir, outdir::TESTS)?,
        })
    }
}

pub fn merge_command(args: &MergeArgs) -> Result<i32, Failure> {
    let usage = |error: anyhow::Error| Failure {
        code: exit::USAGE,
        error,
    };
    let shards: Vec<Shard> = args
        .dirs
        .iter()
        .map(|d| Shard::read(d))
        .collect::<anyhow::Result<_>>()
        .map_err(usage)?;
    let (catalogue, outcomes) = combine(&shards).map_err(usage)?;
    let first = &shards[0];
    let out = open_run_directory(&args.output)?;
    let write = |name: &str, bytes: &[u8]| out.write(name, bytes).map_err(oracle_failure);
    // Explanations first: the HTML report reads diff/.
    for shard in &shards {
        for sub in [outdir::DIFF_DIR, outdir::TRACE_DIR, outdir::WORKDIRS] {
            copy_files(&shard.dir.join(sub), &out.path(sub)).map_err(|e| Failure {
                code: exit::INTERNAL,
                error: e,
            })?;
        }
    }
    // `replay` runs the metamutant: every shard built the same one.
    for exe in [
        metamutant::layout::METAMUTANT_EXE,
        metamutant::layout::ORIGINAL_EXE,
    ] {
        if let Ok(bytes) = std::fs::read(first.dir.join(exe)) {
            write(exe, &bytes)?;
            set_executable(&out.path(exe));
        }
    }
    let write_json = |name: &str, value: &dyn JsonValue| {
        out.write_json(name, &value.json()).map_err(oracle_failure)
    };
    write_json(metamutant::layout::CATALOGUE, &catalogue)?;
    write_json(outdir::TESTS, &first.tests)?;
    write_json(outdir::BASELINE, &first.baseline)?;
    write_json(outdir::OUTCOMES, &outcomes)?;
    write(
        outdir::REPORT_CSV,
        &report::render(report::Format::Csv, &catalogue, &outcomes),
    )?;
    for (name, format) in [
        ("report.html", report::Format::Html),
        ("mutation-report.json", report::Format::Mte),
    ] {
        write(
            name,
            &report::render_in(Some(out.root()), format, &catalogue, &outcomes),
        )?;
    }
    print!("{}", table::outcomes(&outcomes));
    println!(
        "merged {} shards into {}",
        shards.len(),
        out.root().display()
    );
    if !outcomes.complete {
        eprintln!("syncmut: warning: some shards did not finish: the merged results are incomplete (rerun them with --resume, then merge again)");
    }
    Ok(match args.fail_under {
        Some(threshold) => score_gate(outcomes.score.percent, threshold),
        None => exit::OK,
    })
}

/// The union of the shards' mutants in the order one unsharded run lists them, and
/// their outcomes summarised afresh.
fn combine(shards: &[Shard]) -> anyhow::Result<(Catalogue, Outcomes)> {
    let first = &shards[0];
    let mut owner: BTreeMap<&str, &Path> = BTreeMap::new();
    let mut mutants: Vec<Mutant> = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    let mut expected: BTreeMap<String, usize> = BTreeMap::new();
    for shard in shards {
        anyhow::ensure!(
            shard.catalogue.kind == first.catalogue.kind && shard.catalogue.sites == first.catalogue.sites,
            "{}: its design's sites differ from those of {}: merge shards of one build of the design (same sources and flags)",
            shard.dir.display(),
            first.dir.display()
        );
        let same_behaviour = |a: &Baseline, b: &Baseline| {
            Baseline {
                elapsed_ms: 0,
                ..a.clone()
            } == Baseline {
                elapsed_ms: 0,
                ..b.clone()
            }
        };
        if shard.baseline.len() != first.baseline.len()
            || !shard
                .baseline
                .iter()
                .zip(&first.baseline)
                .all(|(a, b)| same_behaviour(a, b))
        {
            eprintln!(
                "syncmut: warning: {}: the original behaved differently than in {} (other tests, or a nondeterministic design); the merged baseline is {}'s",
                shard.dir.display(),
                first.dir.display(),
                first.dir.display()
            );
        }
        for mutant in &shard.catalogue.mutants {
            if let Some(other) = owner.insert(&mutant.id, &shard.dir) {
                anyhow::bail!("mutant {} is in both {} and {}: merge the shards of one split (--shard k/n with the same n)", mutant.id, other.display(), shard.dir.display());
            }
            let mine: Vec<Run> = shard
                .outcomes
                .mutants
                .iter()
                .filter(|o| o.mutant == mutant.id)
                .flat_map(|o| o.runs.clone())
                .collect();
            // A shard that did not finish leaves its mutants incomplete.
            expected.insert(
                mutant.id.clone(),
                if shard.outcomes.complete {
                    mine.len()
                } else {
                    usize::MAX
                },
            );
            runs.extend(mine);
            mutants.push(mutant.clone());
        }
    }
    // Catalogue order, as the build lists them.
    let mut catalogue = Catalogue {
        mutants: Vec::new(),
        ..first.catalogue.clone()
    };
    catalogue.add_mutants(mutants);
    let outcomes = Outcomes::summarise(&catalogue, &runs, |id| {
        expected.get(id).copied().unwrap_or(0)
    });
    Ok((catalogue, outcomes))
}

/// Copies the regular files under `from` into `to` (missing `from`: nothing to copy).
fn copy_files(from: &Path, to: &Path) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_files(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::create_dir_all(to)
                .with_context(|| format!("{}: cannot create", to.display()))?;
            std::fs::copy(entry.path(), &target).with_context(|| {
                format!("copy {} to {}", entry.path().display(), target.display())
            })?;
        }
    }
    Ok(())
}

fn set_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755));
}

/// A saved value as JSON, so one closure writes values of several types.
trait JsonValue {
    fn json(&self) -> serde_json::Value;
}

impl<T: serde::Serialize> JsonValue for T {
    fn json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain data serialises")
    }
}
