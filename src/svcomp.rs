//! SV-COMP verification tasks as published: a task definition (`TASK.yml`, format
//! version 2.0, or 1.0 and 1.1, which many published tasks still carry) names the program's input files, the properties with their expected
//! verdicts and the options (language, data model). `syncmut explore TASK.yml` reads it
//! ([`Task::read`]), explores the program against the properties syncmut can check, and
//! states its answer in SV-COMP's words ([`Verdict`]).
//!
//! The file is untrusted input: anything malformed is refused with the file named (exit
//! 2), and the input files it names, relative to its own directory, must be regular
//! files. Property files are known by their names alone (`unreach-call.prp`) and never
//! read.

use anyhow::{anyhow, bail, Context as _};
use std::path::{Path, PathBuf};
use syncmut_oracle::explore::{Property, Report};
use syncmut_oracle::schedules::{Strategy, UNBOUNDED};

/// A task definition, as far as `explore` uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// The task file, as named.
    pub file: PathBuf,
    /// The program's files, resolved against the task file's directory.
    pub input_files: Vec<PathBuf>,
    /// The properties syncmut checks, with their expected verdicts when given.
    pub properties: Vec<(Property, Option<bool>)>,
    /// Property files named that syncmut cannot check (`valid-memsafety.prp`).
    pub unsupported: Vec<String>,
    /// `ILP32` or `LP64` (`options: data_model`), when given.
    pub data_model: Option<String>,
}

/// The parts of a task definition read, each checked by [`Task::read`].
#[derive(serde::Deserialize)]
struct Raw {
    format_version: Option<serde_yaml::Value>,
    input_files: Option<serde_yaml::Value>,
    properties: Option<Vec<RawProperty>>,
    options: Option<RawOptions>,
}

#[derive(serde::Deserialize)]
struct RawProperty {
    property_file: String,
    expected_verdict: Option<bool>,
}

#[derive(serde::Deserialize)]
struct RawOptions {
    language: Option<String>,
    data_model: Option<String>,
}

/// Whether a design argument names a task definition.
pub fn is_task(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "yml" || e == "yaml")
}

/// Task files larger than this are refused unread: a definition is a few hundred bytes.
const MAX_TASK_BYTES: u64 = 1 << 20;

impl Task {
    /// Reads and checks a task definition; every error names the file.
    pub fn read(file: &Path) -> anyhow::Result<Task> {
        read(file)
            .with_context(|| format!("{}: not a usable SV-COMP task definition", file.display()))
    }

    /// The expected verdict of the task for the properties explored: `false` when one
    /// of them is expected violated, `true` when every one is expected to hold, `None`
    /// when some is not given.
    pub fn expected(&self) -> Option<bool> {
        let verdicts: Vec<Option<bool>> = self.properties.iter().map(|(_, v)| *v).collect();
        if verdicts.contains(&Some(false)) {
            Some(false)
        } else if verdicts.iter().all(|v| *v == Some(true)) {
            Some(true)
        } else {
            None
        }
    }
}

fn read(file: &Path) -> anyhow::Result<Task> {
    let meta = std::fs::metadata(file).context("cannot read it")?;
    if !meta.is_file() {
        bail!("not a regular file");
    }
    if meta.len() > MAX_TASK_BYTES {
        bail!("{} bytes: too large for a task definition", meta.len());
    }
    let text = std::fs::read_to_string(file).context("cannot read it as UTF-8 text")?;
    let value: serde_yaml::Value =
        serde_yaml::from_str(&text).map_err(|e| anyhow!("malformed YAML: {e}"))?;
    if !value.is_mapping() {
        bail!("a task definition is a mapping of keys (format_version, input_files, properties, options)");
    }
    let raw: Raw = serde_yaml::from_value(value).map_err(|e| anyhow!("{e}"))?;
    match raw.format_version.as_ref().and_then(|v| v.as_str()) {
        // 1.x differs from 2.0 only in what 2.0 made mandatory (options: language),
        // and a 1.x task is C by definition.
        Some("1.0" | "1.1" | "2.0") => {}
        Some(other) => bail!("format_version {other:?}: syncmut reads versions 1.0, 1.1 and 2.0"),
        None => bail!("no format_version (a task definition says `format_version: '2.0'`)"),
    }
    let dir = file.parent().unwrap_or(Path::new("."));
    let names: Vec<String> = match raw.input_files {
        Some(serde_yaml::Value::String(one)) => vec![one],
        Some(serde_yaml::Value::Sequence(many)) => many
            .into_iter()
            .map(|v| match v {
                serde_yaml::Value::String(s) => Ok(s),
                _ => Err(anyhow!("input_files: every entry must be a file name")),
            })
            .collect::<anyhow::Result<_>>()?,
        Some(_) => bail!("input_files must be a file name or a list of them"),
        None => bail!("no input_files"),
    };
    if names.is_empty() {
        bail!("input_files is empty");
    }
    let input_files = names
        .iter()
        .map(|name| input_file(dir, name))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let options = raw.options.unwrap_or(RawOptions {
        language: None,
        data_model: None,
    });
    if let Some(language) = &options.language {
        if language != "C" {
            bail!("options: language {language:?}: syncmut explores C tasks only");
        }
    }
    if let Some(model) = &options.data_model {
        if model != "ILP32" && model != "LP64" {
            bail!("options: data_model {model:?} is neither ILP32 nor LP64");
        }
    }
    let mut properties = Vec::new();
    let mut unsupported = Vec::new();
    for p in raw.properties.unwrap_or_default() {
        let name = Path::new(&p.property_file)
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| anyhow!("property_file {:?} has no file name", p.property_file))?;
        match name.parse::<Property>() {
            Ok(property) if property != Property::Assertions => {
                if !properties.iter().any(|(q, _)| *q == property) {
                    properties.push((property, p.expected_verdict));
                }
            }
            _ => unsupported.push(p.property_file.clone()),
        }
    }
    properties.sort();
    if properties.is_empty() {
        let named = if unsupported.is_empty() {
            "names no property".to_string()
        } else {
            format!(
                "names only properties syncmut does not check ({})",
                unsupported.join(", ")
            )
        };
        bail!("{named}: syncmut checks unreach-call, no-data-race, no-deadlock and termination");
    }
    Ok(Task {
        file: file.to_path_buf(),
        input_files,
        properties,
        unsupported,
        data_model: options.data_model,
    })
}

/// An input file named in a task: relative to the task's directory, and a regular file
/// (not a directory, a device or a pipe, whatever a link in the way points to).
fn input_file(dir: &Path, name: &str) -> anyhow::Result<PathBuf> {
    if name.is_empty() || name.contains('\0') {
        bail!("input_files: {name:?} is not a file name");
    }
    let path = dir.join(name);
    let meta = std::fs::metadata(&path)
        .with_context(|| format!("input file {name} ({}) cannot be read", path.display()))?;
    if !meta.is_file() {
        bail!(
            "input file {name} ({}) is not a regular file",
            path.display()
        );
    }
    Ok(path)
}

/// What an exploration answers for a task, in SV-COMP's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every schedule and input was covered without a violation.
    True,
    /// A run violated the property named (`false(unreach-call)`).
    False(String),
    /// Neither: the reason in words.
    Unknown(String),
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::True => f.write_str("true"),
            Verdict::False(property) => write!(f, "false({property})"),
            Verdict::Unknown(_) => f.write_str("unknown"),
        }
    }
}

impl Verdict {
    /// The answer for a finished exploration. `true` needs the search to have covered
    /// every schedule (a dfs under a preemption bound covers only those within it) with
    /// every load and store a scheduling point (`memory_level`), for
    /// a program that drew no input value, and no run cut short by a note; anything
    /// less is `unknown`, with why.
    pub fn of(report: &Report, violated: Option<String>, memory_level: bool) -> Verdict {
        if report.found.is_some() {
            return Verdict::False(violated.unwrap_or_else(|| "unknown property".to_string()));
        }
        // Every bound the search met, so that a time limit does not hide the thread bound.
        let mut bounds = Vec::new();
        if report.out_of_time {
            bounds.push(format!(
                "the time limit (--time-limit) ran out after {} run(s){}",
                report.runs,
                report.cut_run_note()
            ));
        }
        if let (n @ 1.., Some(bound)) = (report.thread_bounded, report.thread_bound) {
            bounds.push(format!(
                "{n} run(s) asked for more than {bound} threads (--threads {bound}); \
                 the program was explored up to that many threads only"
            ));
        }
        if !bounds.is_empty() {
            return Verdict::Unknown(format!("bound: {}", bounds.join("; and ")));
        }
        if let Strategy::Dfs {
            preemptions: bound, ..
        } = report.strategy
        {
            if report.exhausted && bound != UNBOUNDED {
                return Verdict::Unknown(format!(
                    "bound: every schedule with at most {bound} preemption(s) was covered \
                     (--preemptions {bound}), not every schedule"
                ));
            }
        }
        let reason = if !report.exhausted {
            if report.drew_inputs {
                "the program reads nondet inputs, and not every value can be run"
            } else {
                "the search did not cover every schedule within its budget"
            }
        } else if !memory_level {
            "every schedule of the synchronization calls was covered, but not every order of the memory accesses between them (--interleave memory)"
        } else if report.thread_limited > 0 {
            "runs ended at the scheduler's thread limit"
        } else if report.step_budget > 0 {
            "some runs passed the step budget (--max-steps) without a repeated state, so their paths were not run to the end"
        } else if report.notes.iter().any(|n| n.cuts_paths_short()) {
            "some runs ended before the program did (a livelock, a hang or a crash), so their paths were not run to the end"
        } else {
            return Verdict::True;
        };
        Verdict::Unknown(reason.to_string())
    }
}

/// The line `--svcomp` prints: the verdict in SV-COMP's words, then the expected one
/// when the task gives it.
pub fn summary_line(verdict: &Verdict, expected: Option<bool>) -> String {
    let mut line = format!("SV-COMP verdict: {verdict}");
    if let Some(expected) = expected {
        line.push_str(&format!(" (expected {expected})"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_names_its_files_properties_and_data_model() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("prog.c"), "int main(void){return 0;}").unwrap();
        let task = dir.path().join("prog.yml");
        std::fs::write(
            &task,
            "format_version: '2.0'\ninput_files: 'prog.c'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: false\n  - property_file: ../properties/valid-memsafety.prp\n    expected_verdict: true\noptions:\n  language: C\n  data_model: ILP32\n",
        )
        .unwrap();
        let t = Task::read(&task).unwrap();
        assert_eq!(t.input_files, vec![dir.path().join("prog.c")]);
        assert_eq!(t.properties, vec![(Property::UnreachCall, Some(false))]);
        assert_eq!(t.unsupported, vec!["../properties/valid-memsafety.prp"]);
        assert_eq!(t.data_model.as_deref(), Some("ILP32"));
        assert_eq!(t.expected(), Some(false));
        // Format 1.0 has no options: its tasks are C, with no data model named.
        std::fs::write(
            &task,
            "format_version: '1.0'\ninput_files: 'prog.c'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: true\n",
        )
        .unwrap();
        let old = Task::read(&task).unwrap();
        assert_eq!(old.properties, vec![(Property::UnreachCall, Some(true))]);
        assert_eq!(old.data_model, None);
    }

    #[test]
    fn malformed_tasks_are_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let task = dir.path().join("t.yml");
        let refused = |text: &str| {
            std::fs::write(&task, text).unwrap();
            format!("{:#}", Task::read(&task).unwrap_err())
        };
        assert!(refused("input_files: [").contains("malformed YAML"));
        assert!(refused("format_version: '3.0'\ninput_files: a.c\n").contains("1.1 and 2.0"));
        // A directory is no input file, however it is reached.
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let no_file = refused("format_version: '2.0'\ninput_files: sub\nproperties:\n  - property_file: unreach-call.prp\n");
        assert!(no_file.contains("not a regular file"), "{no_file}");
        let missing = refused("format_version: '2.0'\ninput_files: ../../../etc/nothing-here.c\nproperties:\n  - property_file: unreach-call.prp\n");
        assert!(missing.contains("cannot be read"), "{missing}");
    }
}
