//! JSON in the mutation-testing-elements report schema (`mutation-testing-report-schema`
//! on npm, schemaVersion 1), so Stryker's viewers (the `<mutation-test-report-app>`
//! element, the Stryker dashboard) can show a syncmut run.
//!
//! Files are keyed by their path relative to the project root (as the catalogue names
//! them; `projectRoot` is left out, as it would be a path of the machine that ran), with
//! the source read at render time; a file that cannot be read gets a one-line source
//! saying so. Each mutant's location spans
//! the call text on its line. Statuses: killed-by-timeout → `Timeout`, other kills →
//! `Killed`, survived → `Survived`, not-reached → `NoCoverage`, error → `RuntimeError`.
//! Tests are listed under `testFiles` (one entry, `tests.json`), ids = test names.

use crate::outcome::Outcomes;
use crate::verdict::Verdict;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::Path;
use syncmut_mutator::Catalogue;

/// Thresholds (percent) the viewers colour the score by.
const HIGH: u32 = 80;
const LOW: u32 = 60;

pub(crate) fn render(catalogue: &Catalogue, outcomes: &Outcomes) -> Vec<u8> {
    let value = report(catalogue, outcomes);
    let mut bytes = serde_json::to_vec_pretty(&value).expect("plain data serialises");
    bytes.push(b'\n');
    bytes
}

/// The schema status of a verdict.
pub(crate) fn status(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::KilledByTimeout => "Timeout",
        v if v.is_killed() => "Killed",
        Verdict::Survived => "Survived",
        Verdict::NotReached => "NoCoverage",
        Verdict::EquivalentExhaustive => "Ignored",
        _ => "RuntimeError",
    }
}

fn report(catalogue: &Catalogue, outcomes: &Outcomes) -> Value {
    let mut files: Map<String, Value> = Map::new();
    let mut tests: Vec<String> = Vec::new();
    let mut sources: BTreeMap<String, String> = BTreeMap::new();
    for m in &outcomes.mutants {
        let text = sources
            .entry(m.file.clone())
            .or_insert_with(|| source(&catalogue.source_path(&m.file)));
        let file = files.entry(m.file.clone()).or_insert_with(
            || json!({ "language": language(&m.file), "source": text.as_str(), "mutants": [] }),
        );
        let entry = catalogue.mutant(&m.mutant);
        let line = m.line.max(1);
        let (column, end) = span(
            text.lines().nth(line as usize - 1).unwrap_or(""),
            entry.map(|e| e.col).unwrap_or(1),
            entry.map(|e| e.call.as_str()).unwrap_or(""),
        );
        let covered: Vec<&str> = m.runs.iter().map(|r| r.test.as_str()).collect();
        for t in &covered {
            if !tests.iter().any(|x| x == t) {
                tests.push(t.to_string());
            }
        }
        let mut mutant = json!({
            "id": m.mutant,
            "mutatorName": m.operator,
            "description": m.description,
            "location": { "start": { "line": line, "column": column }, "end": { "line": line, "column": end } },
            "status": status(m.verdict),
            "coveredBy": covered,
            "testsCompleted": m.runs.len(),
        });
        if let Some(k) = &m.killed_by {
            mutant["killedBy"] = json!([k]);
        }
        if !m.reason.is_empty() {
            mutant["statusReason"] = json!(m.reason);
        }
        file["mutants"]
            .as_array_mut()
            .expect("an array")
            .push(mutant);
    }
    let mut value = json!({
        "schemaVersion": "1",
        "thresholds": { "high": HIGH, "low": LOW },
        "files": files,
        "framework": { "name": "syncmut", "version": env!("CARGO_PKG_VERSION") },
    });
    if !tests.is_empty() {
        let tests: Vec<Value> = tests
            .iter()
            .map(|t| json!({ "id": t, "name": t }))
            .collect();
        value["testFiles"] = json!({ "tests.json": { "tests": tests } });
    }
    value
}

/// The columns (1-based, in characters; end exclusive) of the call text on its source
/// line. Debug info puts a member call's column on the member name (`lock` in
/// `guard.lock()`), so the occurrence of the call text covering that column is taken;
/// without one, the call's length from the recorded column.
fn span(line: &str, col: u32, call: &str) -> (u32, u32) {
    let at = (col.max(1) - 1) as usize;
    let chars = |bytes: usize| {
        line.get(..bytes)
            .map(|p| p.chars().count())
            .unwrap_or(bytes) as u32
            + 1
    };
    if !call.is_empty() {
        if let Some((start, _)) = line
            .match_indices(call)
            .find(|(s, _)| *s <= at && at < s + call.len())
        {
            return (chars(start), chars(start + call.len()));
        }
    }
    let start = chars(at.min(line.len()));
    (start, start + call.chars().count().max(1) as u32)
}

fn language(path: &str) -> &'static str {
    match Path::new(path).extension().and_then(|e| e.to_str()) {
        Some("c") | Some("h") => "c",
        _ => "cpp",
    }
}

fn source(path: &Path) -> String {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => format!(
            "// syncmut: could not read {} when rendering this report: {e}\n",
            path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_verdicts() {
        assert_eq!(status(Verdict::KilledByTimeout), "Timeout");
        assert_eq!(status(Verdict::KilledByDeadlock), "Killed");
        assert_eq!(status(Verdict::Survived), "Survived");
        assert_eq!(status(Verdict::NotReached), "NoCoverage");
        assert_eq!(status(Verdict::Error), "RuntimeError");
    }

    #[test]
    fn a_span_covers_the_call_around_the_recorded_column() {
        assert_eq!(span("    guard.lock();  // x", 11, "guard.lock()"), (5, 17));
        assert_eq!(span("  wait(e);", 3, "wait(e)"), (3, 10));
        assert_eq!(span("  other();", 3, "wait(e)"), (3, 10));
    }
}
