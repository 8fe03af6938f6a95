//! Trace diffs for killed mutants: what a developer reads to see where the mutant's
//! behaviour left the original's. Each event is one line with its source location.

use crate::outcome::thousands;
use similar::{ChangeTag, TextDiff};
use std::time::Duration;
use syncmut_mutator::{Catalogue, Mutant};
use syncmut_runtime::trace::{state_text, Event, Omitted, Trace};

/// Renders a trace as lines: `thread  time  call @ file:line  [action]`.
pub fn lines(catalogue: &Catalogue, trace: &Trace) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(trace.events.len() + trace.omitted.len() + 4);
    let mut gaps = trace.omitted.iter().peekable();
    let gap_line = |g: &Omitted| {
        format!(
            "… {} events not kept (seq {}–{}): the trace is capped",
            thousands(g.events),
            g.first_seq,
            g.last_seq
        )
    };
    for event in &trace.events {
        while let Some(gap) = gaps.next_if(|g| g.last_seq < event.seq) {
            out.push(gap_line(gap));
        }
        out.push(event_line(catalogue, event));
    }
    out.extend(gaps.map(gap_line));
    if trace.truncated {
        out.push("… trace truncated by the runtime's cap".to_string());
    }
    match &trace.end {
        None => out.push("end: killed before the runtime could record how it ended".to_string()),
        Some(end) => {
            let mut text = format!("end: {}", end.kind);
            if end.deadlock {
                text.push_str(" (deadlock)");
            }
            if let Some(signal) = end.signal {
                text.push_str(&format!(" signal {signal}"));
            }
            out.push(text);
            for p in &end.pending {
                let at = p
                    .site
                    .map(|s| site_label(catalogue, s))
                    .unwrap_or_else(|| "outside a wrapped call".to_string());
                out.push(format!("still waiting: {} at {at}", p.thread));
            }
        }
    }
    out
}

fn event_line(catalogue: &Catalogue, e: &Event) -> String {
    let when = match (&e.time, e.delta) {
        (Some(t), Some(d)) => format!("{t} δ{d}"),
        (Some(t), None) => t.clone(),
        _ => String::new(),
    };
    let lost = if e.lost {
        "  (lost: nobody waited)"
    } else {
        ""
    };
    let state = state_text(&e.state);
    let state = if state.is_empty() {
        state
    } else {
        format!("  {state}")
    };
    format!(
        "{:<12} {:<10} {}  [{}]{lost}{state}",
        e.thread,
        when,
        site_label(catalogue, e.site),
        e.action
    )
}

/// `wait(e) @ guarded_event.cpp:18`.
pub fn site_label(catalogue: &Catalogue, site: u32) -> String {
    match catalogue.sites.get(site as usize) {
        Some(s) => format!("{} @ {}:{}", s.call, s.file, s.line),
        // A scheduling point in a library's inline code (a predicate wait's loop).
        None if site == syncmut_runtime::tables::SITE_INNER => {
            "a call inside the C++ standard library".to_string()
        }
        None => format!("site {site}"),
    }
}

/// The unified diff of original vs mutant traces with a header saying what was
/// mutated, why it was killed and where the traces first diverge.
pub(crate) fn render(
    catalogue: &Catalogue,
    mutant: &Mutant,
    test: &str,
    original: &Trace,
    mutated: &Trace,
    reason: &str,
) -> String {
    let (a, b) = (lines(catalogue, original), lines(catalogue, mutated));
    // Traces of spinning mutants reach a million events; diff a window from shortly
    // before the first differing line instead (a full Myers diff would take minutes).
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let start = common.saturating_sub(WINDOW_BEFORE);
    let window = |lines: &[String]| {
        let end = lines.len().min(start + WINDOW_BEFORE + WINDOW_AFTER);
        let mut text = lines[start.min(end)..end].join("\n") + "\n";
        if end < lines.len() {
            text.push_str(&format!("… {} more lines\n", lines.len() - end));
        }
        text
    };
    let (a, b) = (window(&a), window(&b));
    let diff = TextDiff::configure()
        .timeout(Duration::from_secs(2))
        .diff_lines(&a, &b);
    let first = diff
        .iter_all_changes()
        .find(|c| c.tag() != ChangeTag::Equal)
        .map(|c| {
            let side = if c.tag() == ChangeTag::Delete {
                "original"
            } else {
                "mutant"
            };
            let line = c
                .old_index()
                .or(c.new_index())
                .map(|i| start + i + 1)
                .unwrap_or(0);
            format!("{side} trace line {line}: {}", c.value().trim_end())
        })
        .unwrap_or_else(|| "the traces are equal; the difference is in the output".to_string());
    let mut out = format!(
        "# mutant {}: {}\n# at {}:{}\n# killed by test {test}: {reason}\n# first divergence: {first}\n",
        mutant.id, mutant.description, mutant.file, mutant.line
    );
    if start > 0 {
        out.push_str(&format!(
            "# (the first {start} trace lines are identical and not shown)\n"
        ));
    }
    out.push_str(
        &diff
            .unified_diff()
            .context_radius(3)
            .header("original", "mutant")
            .to_string(),
    );
    out
}

/// Lines of context kept before the first difference, and lines diffed after it.
const WINDOW_BEFORE: usize = 20;
/// (300 lines after the first difference say what went differently; a livelocked mutant's
/// thousands more would only make the diff, and the HTML report that embeds it, large.)
const WINDOW_AFTER: usize = 300;
