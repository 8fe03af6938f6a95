//! Plain-text tables for the terminal.

use syncmut_mutator::Catalogue;
use syncmut_oracle::diff::site_label;
use syncmut_oracle::outcome::{Baseline, Outcomes};
use syncmut_oracle::Verdict;

/// The catalogue as one row per mutant, grouped by site.
pub fn catalogue(catalogue: &Catalogue) -> String {
    let rows: Vec<[String; 4]> = catalogue
        .mutants
        .iter()
        .map(|m| {
            let file = std::path::Path::new(&m.file).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            [m.id.clone(), format!("{file}:{}:{}", m.line, m.col), m.operator.slug().to_string(), m.description.clone()]
        })
        .collect();
    let mut out = render(["mutant", "location", "operator", "description"], &rows);
    out.push_str(&format!("{} sites, {} mutants\n", catalogue.sites.len(), catalogue.mutants.len()));
    out
}

/// What the original did on each test: usable or set aside, and the behaviour worth
/// knowing before reading mutant verdicts (deadlocks, lost notifications).
pub fn baseline(catalogue: &Catalogue, baselines: &[Baseline]) -> String {
    let rows: Vec<[String; 3]> = baselines
        .iter()
        .map(|b| {
            let mut notes = Vec::new();
            if let Some(why) = &b.set_aside_because {
                notes.push(format!("set aside: {why}"));
            }
            if b.deadlock {
                let who: Vec<String> = b
                    .pending
                    .iter()
                    .map(|(t, s)| format!("{t} at {}", s.map(|s| site_label(catalogue, s)).unwrap_or_else(|| "?".into())))
                    .collect();
                notes.push(format!("original deadlocks: {}", who.join(", ")));
            }
            if !b.lost_notifications.is_empty() {
                notes.push(format!("lost notifications: {}", b.lost_notifications.summary(&|s| site_label(catalogue, s))));
            }
            if notes.is_empty() {
                notes.push("ok".to_string());
            }
            [b.test.clone(), format!("{} of {} sites", b.reached.len(), catalogue.sites.len()), notes.join("; ")]
        })
        .collect();
    render(["test", "reaches", "original behaviour"], &rows)
}

/// One row per mutant, then counts per verdict and the score.
pub fn outcomes(outcomes: &Outcomes) -> String {
    let rows: Vec<[String; 5]> = outcomes
        .mutants
        .iter()
        .map(|m| {
            let file = std::path::Path::new(&m.file).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            [
                m.mutant.clone(),
                format!("{file}:{}", m.line),
                m.verdict.name().to_string(),
                m.killed_by.clone().unwrap_or_default(),
                m.reason.clone(),
            ]
        })
        .collect();
    let mut out = String::from("\n");
    out.push_str(&render(["mutant", "location", "verdict", "test", "why"], &rows));
    let mut counts: std::collections::BTreeMap<Verdict, usize> = Default::default();
    for m in &outcomes.mutants {
        *counts.entry(m.verdict).or_default() += 1;
    }
    let counts: Vec<String> = counts.iter().map(|(v, n)| format!("{v} {n}")).collect();
    out.push_str(&format!("\n{}\n", counts.join(", ")));
    let s = &outcomes.score;
    match s.equivalent {
        0 => out.push_str(&format!("mutation score: {:.1}% ({} of {} mutants killed)\n", s.percent, s.killed, s.mutants)),
        n => out.push_str(&format!(
            "mutation score: {:.1}% ({} of {} mutants killed; {n} equivalent (exhaustive), left out of the score)\n",
            s.percent,
            s.killed,
            s.mutants - n
        )),
    }
    out
}

/// Left-aligned columns separated by two spaces.
fn render<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let mut widths = header.map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; N]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == N {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  "));
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(header);
    for row in rows {
        out.push_str(&line(std::array::from_fn(|i| row[i].as_str())));
    }
    out
}
