//! The results of several programs' runs (`programs/<name>/`) as one run's: one
//! catalogue of the union of their sites and mutants, one set of outcomes, baseline and
//! tests, and the reports, at the top of the run directory.
//!
//! A site is known by its key (`<function>#<ordinal>`), so a library function's site is
//! one site however many programs link it. A key that names different calls in
//! different programs (each test program's own `main`) is told apart by the program:
//! `test_pool/main#1`. Tests and runs are named `<program>/<test>`, so every verdict
//! says which program's test gave it.

use crate::failure::{oracle_failure, Failure};
use anyhow::Context as _;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syncmut_mutator::{metamutant, Catalogue, Mutant, Site};
use syncmut_oracle::outcome::{Baseline, Outcomes, Run};
use syncmut_oracle::outdir::{self, OutDir};
use syncmut_oracle::report;

/// What one program's run directory holds.
pub struct ProgramRun {
    pub name: String,
    dir: PathBuf,
    catalogue: Catalogue,
    outcomes: Outcomes,
    baseline: Vec<Baseline>,
    tests: serde_json::Value,
}

fn read_json<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> anyhow::Result<T> {
    let path = dir.join(name);
    let bytes = std::fs::read(&path).with_context(|| format!("{}: cannot read", path.display()))?;
    serde_json::from_slice(&bytes)
        .with_context(|| format!("{}: not a syncmut {name}", path.display()))
}

impl ProgramRun {
    pub fn read(name: &str, dir: &Path) -> anyhow::Result<ProgramRun> {
        Ok(ProgramRun {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            catalogue: read_json(dir, metamutant::layout::CATALOGUE)?,
            outcomes: read_json(dir, outdir::OUTCOMES)?,
            baseline: read_json(dir, outdir::BASELINE)?,
            tests: read_json(dir, outdir::TESTS)?,
        })
    }
}

/// Where each program's sites and mutants are in the union.
struct Union {
    catalogue: Catalogue,
    /// Per program: its site index → the union's.
    sites: Vec<BTreeMap<u32, u32>>,
    /// Per program: its mutant id → the union's.
    mutants: Vec<BTreeMap<String, String>>,
}

/// Where a site is in the code: two programs' sites under one key are one site when
/// they are the same call.
fn place(site: &Site) -> (&str, &str, u32, u32, &str) {
    (&site.function, &site.file, site.line, site.col, &site.call)
}

/// The union of the programs' catalogues (see the module's comment).
fn union(runs: &[ProgramRun]) -> anyhow::Result<Union> {
    let first = &runs[0];
    let mut places: BTreeMap<&str, BTreeSet<_>> = BTreeMap::new();
    for run in runs {
        anyhow::ensure!(
            run.catalogue.kind == first.catalogue.kind,
            "{} is a {:?} design and {} a {:?} one: test programs of one threading model together",
            run.name,
            run.catalogue.kind,
            first.name,
            first.catalogue.kind
        );
        for site in &run.catalogue.sites {
            places.entry(&site.key).or_default().insert(place(site));
        }
    }
    let key_in = |run: &ProgramRun, key: &str| match places[key].len() {
        1 => key.to_string(),
        _ => format!("{}/{key}", run.name),
    };
    let mut sites: Vec<Site> = Vec::new();
    let mut position: BTreeMap<String, u32> = BTreeMap::new();
    let mut site_maps = Vec::new();
    // Indices first (program order, then each program's own), references after.
    let mut own: Vec<(usize, usize)> = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        let mut map = BTreeMap::new();
        for (s, site) in run.catalogue.sites.iter().enumerate() {
            let key = key_in(run, &site.key);
            let index = *position.entry(key.clone()).or_insert_with(|| {
                own.push((r, s));
                sites.push(Site {
                    index: sites.len() as u32,
                    key,
                    ..site.clone()
                });
                sites.len() as u32 - 1
            });
            map.insert(site.index, index);
        }
        site_maps.push(map);
    }
    for (site, (r, s)) in sites.iter_mut().zip(own) {
        let original = &runs[r].catalogue.sites[s];
        let remap = |list: &[u32]| {
            list.iter()
                .filter_map(|i| site_maps[r].get(i).copied())
                .collect()
        };
        site.inner = remap(&original.inner);
        site.scope = remap(&original.scope);
    }
    let mut mutants: BTreeMap<String, Mutant> = BTreeMap::new();
    let mut mutant_maps = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        let mut map = BTreeMap::new();
        for mutant in &run.catalogue.mutants {
            let qualified = mutant
                .sites
                .first()
                .and_then(|s| run.catalogue.sites.iter().find(|site| site.index == *s))
                .is_some_and(|site| places[site.key.as_str()].len() > 1);
            let id = match qualified {
                true => format!("{}/{}", run.name, mutant.id),
                false => mutant.id.clone(),
            };
            let entry = mutants.entry(id.clone()).or_insert_with(|| Mutant {
                id: id.clone(),
                sites: mutant
                    .sites
                    .iter()
                    .filter_map(|s| site_maps[r].get(s).copied())
                    .collect(),
                programs: Vec::new(),
                ..mutant.clone()
            });
            entry.programs.push(run.name.clone());
            map.insert(mutant.id.clone(), id);
        }
        mutant_maps.push(map);
    }
    let mut nondet: Vec<i64> = runs
        .iter()
        .flat_map(|r| r.catalogue.nondet_constants.iter().copied())
        .collect();
    nondet.sort_unstable();
    nondet.dedup();
    let mut catalogue = Catalogue {
        sites,
        mutants: Vec::new(),
        races: runs.iter().any(|r| r.catalogue.races),
        // Numbered per program's metamutant: `explain` and `replay` read them there.
        accesses: Vec::new(),
        nondet_constants: nondet,
        ..first.catalogue.clone()
    };
    catalogue.add_mutants(mutants.into_values().collect());
    Ok(Union {
        catalogue,
        sites: site_maps,
        mutants: mutant_maps,
    })
}

/// A program's test in the union's results: `<program>/<test>`.
fn test_name(program: &str, test: &str) -> String {
    format!("{program}/{test}")
}

/// The union's runs, baseline and tests; `all_run`: every program has run, so a mutant
/// is complete once each program holding it finished it.
fn combine(
    runs: &[ProgramRun],
    union: &Union,
    all_run: bool,
) -> (Outcomes, Vec<Baseline>, serde_json::Value) {
    let mut all: Vec<Run> = Vec::new();
    let mut expected: BTreeMap<&str, usize> = BTreeMap::new();
    for (r, run) in runs.iter().enumerate() {
        for outcome in &run.outcomes.mutants {
            let Some(id) = union.mutants[r].get(&outcome.mutant) else {
                continue;
            };
            let count = expected.entry(id).or_default();
            *count = match run.outcomes.complete {
                true => count.saturating_add(outcome.runs.len()),
                false => usize::MAX,
            };
            all.extend(outcome.runs.iter().map(|one| Run {
                mutant: id.clone(),
                test: test_name(&run.name, &one.test),
                ..one.clone()
            }));
        }
    }
    let mut outcomes = Outcomes::summarise(&union.catalogue, &all, |id| {
        expected.get(id).copied().unwrap_or(0)
    });
    outcomes.complete &= all_run;
    let mut baseline = Vec::new();
    let mut tests = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        let site = |s: &u32| union.sites[r].get(s).copied();
        for b in &run.baseline {
            let mut reached: Vec<u32> = b.reached.iter().filter_map(site).collect();
            reached.sort_unstable();
            let mut lost = b.lost_notifications.clone();
            lost.sites = lost
                .sites
                .iter()
                .filter_map(|(s, n)| Some((site(s)?, *n)))
                .collect();
            lost.sites.sort_unstable();
            baseline.push(Baseline {
                test: test_name(&run.name, &b.test),
                reached,
                pending: b
                    .pending
                    .iter()
                    .map(|(t, s)| (t.clone(), s.as_ref().and_then(site)))
                    .collect(),
                lost_notifications: lost,
                ..b.clone()
            });
        }
        for test in run.tests["tests"].as_array().into_iter().flatten() {
            let mut test = test.clone();
            test["program"] = serde_json::Value::String(run.name.clone());
            tests.push(test);
        }
    }
    (outcomes, baseline, serde_json::json!({ "tests": tests }))
}

/// Writes the union of `runs` at the top of the run directory: catalogue, tests,
/// baseline, outcomes, the killed mutants' diffs, the reports.
pub fn write(out: &OutDir, runs: &[ProgramRun], all_run: bool) -> Result<Outcomes, Failure> {
    let union = union(runs).map_err(|error| Failure {
        code: crate::exit::USAGE,
        error,
    })?;
    let (outcomes, baseline, tests) = combine(runs, &union, all_run);
    let catalogue = &union.catalogue;
    out.write_json(metamutant::layout::CATALOGUE, catalogue)
        .map_err(oracle_failure)?;
    out.write_json(outdir::TESTS, &tests)
        .map_err(oracle_failure)?;
    out.write_json(outdir::BASELINE, &baseline)
        .map_err(oracle_failure)?;
    if let Ok(settings) = std::fs::read(runs[0].dir.join(outdir::SETTINGS)) {
        out.write(outdir::SETTINGS, &settings)
            .map_err(oracle_failure)?;
    }
    // The diff of each kill, from the program whose test killed: the HTML report shows it.
    // Copies only, made afresh: an id may have changed since the last write (a key
    // shared with a program that finished since is told apart now).
    let _ = std::fs::remove_dir_all(out.path(outdir::DIFF_DIR));
    for outcome in outcomes.mutants.iter().filter(|m| m.verdict.is_killed()) {
        let Some((r, run)) = outcome.killed_by.as_deref().and_then(|test| {
            runs.iter()
                .enumerate()
                .find(|(_, run)| test.starts_with(&format!("{}/", run.name)))
        }) else {
            continue;
        };
        let Some((own, _)) = union.mutants[r]
            .iter()
            .find(|(_, id)| **id == outcome.mutant)
        else {
            continue;
        };
        let diff = |id: &str| {
            PathBuf::from(outdir::DIFF_DIR).join(format!("{}.diff", outdir::file_name(id)))
        };
        if let Ok(bytes) = std::fs::read(run.dir.join(diff(own))) {
            out.write(diff(&outcome.mutant), &bytes)
                .map_err(oracle_failure)?;
        }
    }
    out.write_json(outdir::OUTCOMES, &outcomes)
        .map_err(oracle_failure)?;
    out.write(
        outdir::REPORT_CSV,
        &report::render(report::Format::Csv, catalogue, &outcomes),
    )
    .map_err(oracle_failure)?;
    for (name, format) in [
        ("report.html", report::Format::Html),
        ("mutation-report.json", report::Format::Mte),
    ] {
        out.write(
            name,
            &report::render_in(Some(out.root()), format, catalogue, &outcomes),
        )
        .map_err(oracle_failure)?;
    }
    Ok(outcomes)
}

/// In the run directory of several programs, where a mutant's run on a test
/// (`<program>/<test>`) was made: the program's run directory, the mutant's id and the
/// test's name there. `None` in any other run directory.
pub fn locate(dir: &Path, mutant: &Mutant, test: &str) -> Option<(PathBuf, String, String)> {
    let (program, test) = test.split_once('/')?;
    if !mutant.programs.iter().any(|p| p == program) {
        return None;
    }
    let id = mutant
        .id
        .strip_prefix(&format!("{program}/"))
        .unwrap_or(&mutant.id);
    Some((
        dir.join(outdir::PROGRAMS).join(program),
        id.to_string(),
        test.to_string(),
    ))
}
