//! `syncmut explain`: original and mutant traces side by side, per thread/process,
//! with the first divergence marked and, for runs that end blocked, the wait-for
//! picture (who waits where, since when).

use crate::diff::site_label;
use std::collections::BTreeMap;
use syncmut_mutator::{Catalogue, Mutant};
use syncmut_runtime::trace::{state_text, EndKind, Event, Trace};

const COLUMN: usize = 52;

/// The design's stderr of both runs, as saved beside their traces (empty when there was none).
#[derive(Debug, Clone, Default)]
pub struct Stderr {
    /// The original's stderr.
    pub original: String,
    /// The mutant's stderr.
    pub mutant: String,
}

/// Lines of a saved stderr shown; the file holds the rest.
const STDERR_LINES: usize = 40;

/// Renders the explanation of a mutant's kill on one test.
pub fn render(
    catalogue: &Catalogue,
    mutant: &Mutant,
    test: &str,
    verdict_line: &str,
    original: &Trace,
    mutated: &Trace,
    stderr: &Stderr,
) -> String {
    let mut out = format!(
        "mutant {}: {}\n  at {}:{} in {}\n  {verdict_line} (test {test})\n",
        mutant.id, mutant.description, mutant.file, mutant.line, mutant.function
    );
    let (a, b) = (per_thread(original), per_thread(mutated));
    let mut threads: Vec<&String> = a.keys().chain(b.keys()).collect();
    threads.sort();
    threads.dedup();
    for thread in threads {
        let (left, right) = (
            a.get(thread).map(Vec::as_slice).unwrap_or(&[]),
            b.get(thread).map(Vec::as_slice).unwrap_or(&[]),
        );
        let diverge = (0..left.len().max(right.len()))
            .find(|&i| left.get(i).map(|e| key(e)) != right.get(i).map(|e| key(e)));
        out.push_str(&format!("\n{thread}\n  {:<COLUMN$} | mutant\n", "original"));
        let rows = left.len().max(right.len());
        for i in 0..rows.min(MAX_ROWS) {
            let cell = |events: &[&Event]| {
                events
                    .get(i)
                    .map(|e| event_cell(catalogue, e))
                    .unwrap_or_default()
            };
            let mark = if Some(i) == diverge { ">" } else { " " };
            out.push_str(&format!(
                "{mark} {:<COLUMN$} | {}\n",
                cell(left),
                cell(right)
            ));
            // The observed values (globals, module members) only where they differ, and
            // only those that differ, on a line of their own.
            if let (Some(l), Some(r)) = (left.get(i), right.get(i)) {
                if l.state != r.state {
                    let (l, r) = only_differing(&l.state, &r.state);
                    let left_state = format!("  {}", state_text(&l));
                    out.push_str(&format!("  {left_state:<COLUMN$} | {}\n", state_text(&r)));
                }
            }
        }
        if rows > MAX_ROWS {
            out.push_str(&format!("  … {} more events\n", rows - MAX_ROWS));
        }
        if let Some(i) = diverge {
            out.push_str(&format!(
                "  first divergence at event {} of {thread}\n",
                i + 1
            ));
        }
    }
    out.push_str(&format!(
        "\nend of the original: {}\n",
        ending(catalogue, original)
    ));
    out.push_str(&format!(
        "end of the mutant:   {}\n",
        ending(catalogue, mutated)
    ));
    for (who, text) in [("original", &stderr.original), ("mutant", &stderr.mutant)] {
        if text.is_empty() {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        out.push_str(&format!("\nstderr of the {who}:\n"));
        for line in lines.iter().take(STDERR_LINES) {
            out.push_str(&format!("  {line}\n"));
        }
        if lines.len() > STDERR_LINES {
            out.push_str(&format!("  … {} more lines\n", lines.len() - STDERR_LINES));
        }
    }
    out
}

type State = BTreeMap<String, serde_json::Value>;

/// The entries of two snapshots whose values differ (a key missing on one side shows
/// only on the other).
fn only_differing(a: &State, b: &State) -> (State, State) {
    let keep = |x: &State, y: &State| {
        x.iter()
            .filter(|(k, v)| y.get(*k) != Some(*v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    (keep(a, b), keep(b, a))
}

/// Events beyond this many per thread are summarised (spinning mutants).
const MAX_ROWS: usize = 200;

fn per_thread(trace: &Trace) -> BTreeMap<String, Vec<&Event>> {
    let mut map: BTreeMap<String, Vec<&Event>> = BTreeMap::new();
    for e in &trace.events {
        map.entry(e.thread.clone()).or_default().push(e);
    }
    map
}

/// What counts as "the same event" for the divergence mark: the place, the time and
/// the globals' values, not the action (the mutated site's action differs by
/// construction).
fn key(e: &Event) -> (u32, Option<&str>, &BTreeMap<String, serde_json::Value>) {
    (e.site, e.time.as_deref(), &e.state)
}

fn event_cell(catalogue: &Catalogue, e: &Event) -> String {
    let time = e
        .time
        .as_deref()
        .map(|t| format!("{t} "))
        .unwrap_or_default();
    let action = if e.action == "original" {
        String::new()
    } else {
        format!(" [{}]", e.action)
    };
    let lost = if e.lost { " (lost)" } else { "" };
    let text = format!("{time}{}{action}{lost}", site_label(catalogue, e.site));
    if text.chars().count() > COLUMN {
        text.chars().take(COLUMN - 1).collect::<String>() + "…"
    } else {
        text
    }
}

/// How a run ended, with the wait-for picture for blocked threads.
fn ending(catalogue: &Catalogue, trace: &Trace) -> String {
    let Some(end) = &trace.end else {
        return "killed before the runtime could say".to_string();
    };
    let mut text = match &end.kind {
        EndKind::Exit if end.deadlock => {
            "deadlock (the simulation ran out of activity)".to_string()
        }
        EndKind::Exit => "normal exit".to_string(),
        EndKind::Signal => format!("signal {}", end.signal.unwrap_or(0)),
        EndKind::Livelock => format!(
            "livelock in {} at {}",
            end.thread.as_deref().unwrap_or("?"),
            end.site
                .map(|s| site_label(catalogue, s))
                .unwrap_or_else(|| "?".to_string())
        ),
        other => other.to_string(),
    };
    for p in &end.pending {
        let since = trace
            .events
            .iter()
            .rev()
            .find(|e| e.thread == p.thread)
            .and_then(|e| {
                e.time
                    .clone()
                    .map(|t| format!(" since {t}"))
                    .or(Some(format!(" since event {}", e.seq)))
            })
            .unwrap_or_default();
        let at = p
            .site
            .map(|s| site_label(catalogue, s))
            .unwrap_or_else(|| "outside a wrapped call".to_string());
        text.push_str(&format!("\n    {} waits at {at}{since}", p.thread));
    }
    text
}
