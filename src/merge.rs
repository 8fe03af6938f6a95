//! `syncmut merge DIR… -o OUT`: the run directories of shards (`run --shard k/n`, one
//! per CI machine) combined into one, as if one run had tested all their mutants:
//! catalogue, outcomes and score, the reports, and the traces and diffs that explain
//! the kills. The shards must be exactly shards 1 to n of one split of one build: each
//! records its place (`shard.json`, crate::shard), and a set with a shard missing or
//! twice, or shards of two builds (another catalogue, or an original that showed
//! something else), is refused; `--allow-partial` merges an incomplete set, marked
//! `complete: false`, naming the missing shards. The merged directory is never one of
//! the shards nor inside or around one.

use crate::failure::{oracle_failure, Failure};
use crate::gates::score_gate;
use crate::run_dir::open_run_directory;
use crate::shard::ShardRecord;
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
    /// Merge even when some shards of the split are missing: the result says
    /// `complete: false` and names them.
    #[arg(long)]
    allow_partial: bool,
}

/// What one shard's run directory holds.
struct Shard {
    dir: PathBuf,
    catalogue: Catalogue,
    outcomes: Outcomes,
    baseline: Vec<Baseline>,
    tests: serde_json::Value,
    record: ShardRecord,
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
            record: read_json(dir, crate::shard::FILE).with_context(|| {
                format!(
                    "{}: not a finished shard (run with --shard K/N)",
                    dir.display()
                )
            })?,
        })
    }
}

/// `path` made absolute with its existing ancestors resolved (links, `..`), so two
/// names of one directory compare equal even when the last parts do not exist yet.
fn resolved(path: &Path) -> PathBuf {
    let absolute = syncmut_mutator::design::absolute(path);
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Refuses an output directory that is a shard, lies inside one, or holds one: the
/// merge would write over the results it reads.
fn refuse_output_among_shards(output: &Path, dirs: &[PathBuf]) -> anyhow::Result<()> {
    let out = resolved(output);
    for dir in dirs {
        let shard = resolved(dir);
        anyhow::ensure!(
            !out.starts_with(&shard) && !shard.starts_with(&out),
            "-o {}: {} the shard {}, whose results the merge reads; write the merged run elsewhere",
            output.display(),
            if out == shard {
                "is"
            } else if out.starts_with(&shard) {
                "is inside"
            } else {
                "holds"
            },
            dir.display()
        );
    }
    Ok(())
}

/// Checks the shards are shards 1..n of one split of one build; returns the missing
/// ones (refused unless `allow_partial`).
fn check_split(shards: &[Shard], allow_partial: bool) -> anyhow::Result<Vec<usize>> {
    let first = &shards[0];
    let mut seen: BTreeMap<usize, &Path> = BTreeMap::new();
    for shard in shards {
        let (a, b) = (&shard.record, &first.record);
        anyhow::ensure!(
            a.n == b.n,
            "{}: shard {}/{}, but {} is shard {}/{}: merge the shards of one split (the same N)",
            shard.dir.display(),
            a.k,
            a.n,
            first.dir.display(),
            b.k,
            b.n
        );
        anyhow::ensure!(
            a.catalogue == b.catalogue && a.mutants == b.mutants,
            "{}: its split's mutants differ from those of {}: merge shards of one build of the design (same sources, flags and filters)",
            shard.dir.display(),
            first.dir.display()
        );
        anyhow::ensure!(
            a.observations == b.observations,
            "{}: the original showed something else than in {} (other outputs, exit statuses or tests: another version of the design, or one that is not deterministic); merge shards of one build",
            shard.dir.display(),
            first.dir.display()
        );
        anyhow::ensure!(
            (1..=a.n).contains(&a.k),
            "{}: shard {}/{} is not a shard of {}",
            shard.dir.display(),
            a.k,
            a.n,
            a.n
        );
        if let Some(other) = seen.insert(a.k, &shard.dir) {
            anyhow::bail!(
                "shard {}/{} given twice: {} and {}",
                a.k,
                a.n,
                other.display(),
                shard.dir.display()
            );
        }
    }
    let missing: Vec<usize> = (1..=first.record.n)
        .filter(|k| !seen.contains_key(k))
        .collect();
    let merged: usize = shards.iter().map(|s| s.catalogue.mutants.len()).sum();
    if missing.is_empty() {
        anyhow::ensure!(
            merged == first.record.mutants,
            "the shards hold {merged} mutants, but their split had {}: a shard's mutants were changed",
            first.record.mutants
        );
    } else {
        let named: Vec<String> = missing
            .iter()
            .map(|k| format!("{k}/{}", first.record.n))
            .collect();
        anyhow::ensure!(
            allow_partial,
            "shard{} {} missing: the merged score would be computed on {merged} of the split's {} mutants; give every shard, or pass --allow-partial to merge these marked incomplete",
            if missing.len() == 1 { " is" } else { "s are" },
            named.join(", "),
            first.record.mutants
        );
    }
    Ok(missing)
}

pub fn merge_command(args: &MergeArgs) -> Result<i32, Failure> {
    let usage = |error: anyhow::Error| Failure {
        code: exit::USAGE,
        error,
    };
    refuse_output_among_shards(&args.output, &args.dirs).map_err(usage)?;
    let shards: Vec<Shard> = args
        .dirs
        .iter()
        .map(|d| Shard::read(d))
        .collect::<anyhow::Result<_>>()
        .map_err(usage)?;
    let missing = check_split(&shards, args.allow_partial).map_err(usage)?;
    let (catalogue, mut outcomes) = combine(&shards).map_err(usage)?;
    if !missing.is_empty() {
        outcomes.complete = false;
    }
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
    if !missing.is_empty() {
        let named: Vec<String> = missing
            .iter()
            .map(|k| format!("{k}/{}", first.record.n))
            .collect();
        eprintln!(
            "syncmut: warning: shard{} {} missing (--allow-partial): the merged results are incomplete, their score counts {} of the split's {} mutants",
            if missing.len() == 1 { "" } else { "s" },
            named.join(", "),
            catalogue.mutants.len(),
            first.record.mutants
        );
    } else if !outcomes.complete {
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
