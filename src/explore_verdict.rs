//! What `explore` concludes under the properties it checked (`--property`, or a
//! task's): the notes (findings no property forbids, with the first run of each kind),
//! the verdict with the task's expected one beside it, SV-COMP's one-line summary
//! (`--svcomp`), and the violation witness of a call of the error function.

use crate::explore_args::ExploreArgs;
use crate::svcomp::{self, Task, Verdict};
use crate::witness::{self, TaskInfo};
use std::path::Path;
use syncmut_mutator::catalogue::Catalogue;
use syncmut_oracle::explore::{Properties, Property, Report};

/// An exploration's conclusion, computed before its report is taken apart.
pub struct Conclusion {
    /// Asked for: properties named, a task, or `--svcomp`.
    shown: bool,
    svcomp: bool,
    verdict: Verdict,
    expected: Option<bool>,
    /// The violation witness (YAML), when the bug is a call of the error function.
    witness: Option<String>,
}

/// The properties checked: those named with `--property`, and a task's.
pub fn properties(a: &ExploreArgs) -> Properties {
    let mut checked = a.properties.clone();
    if let Some(task) = &a.task {
        checked.extend(task.properties.iter().map(|(p, _)| *p));
    }
    Properties::new(checked)
}

/// SV-COMP's specification text for the witness.
fn specification(properties: &Properties) -> &'static str {
    match properties.checked().first() {
        Some(Property::NoDataRace) => "G ! data-race",
        Some(Property::Termination) => "F end",
        _ => "G ! call(reach_error())",
    }
}

impl Conclusion {
    /// The conclusion of `report`, explored at memory level or not; the witness names the
    /// input files relative to `root`, as the build names sites.
    pub fn new(
        a: &ExploreArgs,
        catalogue: &Catalogue,
        root: &Path,
        report: &Report,
        memory_level: bool,
    ) -> Result<Conclusion, anyhow::Error> {
        let properties = properties(a);
        let violated = report.found.as_ref().map(|f| {
            properties
                .violated(&f.kind, &f.message)
                .map_or_else(|| kind_word(&f.kind), |p| p.name().to_string())
        });
        let witness = match &report.found {
            Some(found) => {
                let files: Vec<&Path> = match &a.task {
                    Some(task) => task.input_files.iter().map(|p| p.as_path()).collect(),
                    None => a
                        .design
                        .iter()
                        .map(|p| p.as_path())
                        .filter(|p| p.is_file())
                        .collect(),
                };
                let info = TaskInfo {
                    input_files: files.into_iter().map(|p| (relative(root, p), p)).collect(),
                    specification: specification(&properties),
                    data_model: "LP64",
                };
                witness::violation_witness(catalogue, found, &info)?
            }
            None => None,
        };
        Ok(Conclusion {
            shown: !properties.is_default() || a.svcomp,
            svcomp: a.svcomp,
            verdict: Verdict::of(report, violated, memory_level),
            expected: a.task.as_ref().and_then(Task::expected),
            witness,
        })
    }

    /// Prints the notes of `report`: findings no property checked forbids.
    pub fn print_notes(a: &ExploreArgs, report: &Report) {
        let properties = properties(a);
        for note in &report.notes {
            let kind = note.kind.to_string();
            let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            println!(
                "note: {} run(s) showed {article} {kind}, which {} does not forbid (first: run {}: {})",
                note.runs,
                properties.names(),
                note.first_run,
                note.message
            );
        }
        if report.step_budget > 0 {
            println!(
                "note: {} run(s) passed the step budget (--max-steps) without repeating a state: long runs, not livelocks; \
                 what they did past it was not explored",
                report.step_budget
            );
        }
        if report.discarded > 0 {
            println!(
                "note: {} run(s) ended by abort(): paths the program discards, as SV-COMP reads it (not bugs)",
                report.discarded
            );
        }
    }

    /// Writes the witness into `out` and prints the verdict, as asked.
    pub fn finish(&self, out: &Path) -> anyhow::Result<()> {
        if let Some(text) = &self.witness {
            let file = out.join(witness::WITNESS_FILE);
            syncmut_runtime::atomic::write(&file, text.as_bytes())
                .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", file.display()))?;
            println!("violation witness (format 2.0) saved to {}", file.display());
        }
        if !self.shown {
            return Ok(());
        }
        let expected = self
            .expected
            .map(|e| format!(" (expected verdict: {e})"))
            .unwrap_or_default();
        if self.svcomp {
            if let Verdict::Unknown(reason) = &self.verdict {
                eprintln!("syncmut: unknown: {reason}");
            }
            println!("{}", svcomp::summary_line(&self.verdict, self.expected));
        } else {
            match &self.verdict {
                Verdict::Unknown(reason) => println!("verdict: unknown ({reason}){expected}"),
                other => println!("verdict: {other}{expected}"),
            }
        }
        Ok(())
    }
}

/// A bug kind in one word, for a verdict on no named property (`false(deadlock)`).
fn kind_word(kind: &syncmut_oracle::explore::BugKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_else(|| kind.to_string())
}

fn relative(root: &Path, file: &Path) -> String {
    let absolute = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    syncmut_mutator::source::relative_to(root, &absolute.to_string_lossy())
}
