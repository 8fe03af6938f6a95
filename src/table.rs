//! Plain-text tables for the terminal.

use syncmut_mutator::api::Family;
use syncmut_mutator::Catalogue;
use syncmut_oracle::diff::site_label;
use syncmut_oracle::outcome::{Baseline, Outcomes};
use syncmut_oracle::Verdict;
use syncmut_runner::exec::Status;

/// The catalogue as one row per mutant, grouped by site.
pub fn catalogue(catalogue: &Catalogue) -> String {
    let rows: Vec<[String; 4]> = catalogue
        .mutants
        .iter()
        .map(|m| {
            [
                m.id.clone(),
                format!("{}:{}:{}", m.file, m.line, m.col),
                m.operator.slug().to_string(),
                m.description.clone(),
            ]
        })
        .collect();
    let mut out = render(["mutant", "location", "operator", "description"], &rows);
    out.push_str(&format!(
        "{} sites, {} mutants\n",
        catalogue.sites.len(),
        catalogue.mutants.len()
    ));
    out
}

/// What the original did on each test: usable or set aside, and everything worth knowing
/// before reading mutant verdicts. "ok" only when the original exits 0, reaches some site,
/// and ends with nothing blocked, lost or masked.
pub fn baseline(catalogue: &Catalogue, baselines: &[Baseline]) -> String {
    let rows: Vec<[String; 3]> = baselines
        .iter()
        .map(|b| {
            [
                b.test.clone(),
                format!("{} of {} sites", b.reached.len(), catalogue.sites.len()),
                baseline_notes(catalogue, b).join("; "),
            ]
        })
        .collect();
    render(["test", "reaches", "original behaviour"], &rows)
}

/// The notes of one test's row, most important first; `["ok"]` when there is nothing to say.
fn baseline_notes(catalogue: &Catalogue, b: &Baseline) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(why) = &b.set_aside_because {
        notes.push(format!("set aside: {why}"));
    }
    // A set-aside test's status is already in its reason; a usable one that fails is
    // still judged, but the user should know its verdicts compare failures.
    let deadlock_status =
        b.deadlock && b.status == Status::Exited(syncmut_runtime::status::DEADLOCK);
    if b.usable && b.status != Status::Exited(0) && !deadlock_status {
        notes.push(format!("original ends with {}", status_words(b.status)));
    }
    if let Some(head) = &b.stderr_head {
        notes.push(format!("its stderr: {}", head.replace('\n', " | ")));
    }
    if let (true, Some(hint)) = (b.usable, &b.hint) {
        notes.push(hint.clone());
    }
    if b.usable && b.reached.is_empty() {
        notes.push("reaches no synchronization call: no mutant runs on it".to_string());
    }
    let who = || -> Vec<String> {
        b.pending
            .iter()
            .map(|(t, s)| {
                format!(
                    "{t} at {}",
                    s.map(|s| site_label(catalogue, s))
                        .unwrap_or_else(|| "no synchronization call".into())
                )
            })
            .collect()
    };
    if b.deadlock {
        notes.push(format!("original deadlocks: {}", who().join(", ")));
    } else if !b.pending.is_empty() {
        let unit = match (catalogue.kind, b.pending.len()) {
            (Family::Systemc, 1) => "process",
            (Family::Systemc, _) => "processes",
            (_, 1) => "thread",
            _ => "threads",
        };
        notes.push(format!(
            "ends with {} {unit} blocked: {}",
            b.pending.len(),
            who().join(", ")
        ));
    }
    if !b.lost_notifications.is_empty() {
        notes.push(format!(
            "lost notifications: {}",
            b.lost_notifications.summary(&|s| site_label(catalogue, s))
        ));
    }
    if !b.nondeterministic.is_empty() {
        notes.push(format!(
            "nondeterministic, not compared: {}",
            b.nondeterministic.join(", ")
        ));
    }
    // The original's own races (`run --races`): listed here once, they kill no mutant.
    for race in &b.races {
        notes.push(format!(
            "data race of the original (kills no mutant): {race}"
        ));
    }
    if let Some(limits) = &b.races_unchecked {
        notes.push(format!(
            "race detection incomplete ({limits}): no mutant is killed by a race on this test"
        ));
    }
    if let Some(first) = b.flaky.first() {
        notes.push(format!(
            "flaky test: the original fails under {} schedule(s), first {} ({}; replay with SYNCMUT_SCHEDULE={}); mutants are judged under the others",
            b.flaky.len(),
            first.schedule,
            first.failure,
            first.schedule
        ));
    }
    if notes.is_empty() {
        notes.push("ok".to_string());
    }
    notes
}

/// An end status in words, with what syncmut's runtime statuses mean.
fn status_words(status: Status) -> String {
    match status {
        Status::Exited(syncmut_runtime::status::ASSUME) => {
            format!("{status} (a __VERIFIER_assume failed)")
        }
        _ => status.to_string(),
    }
}

/// One row per mutant, then counts per verdict and the score.
pub fn outcomes(outcomes: &Outcomes) -> String {
    let rows: Vec<[String; 5]> = outcomes
        .mutants
        .iter()
        .map(|m| {
            [
                m.mutant.clone(),
                format!("{}:{}", m.file, m.line),
                m.verdict.name().to_string(),
                m.killed_by.clone().unwrap_or_default(),
                m.reason.clone(),
            ]
        })
        .collect();
    let mut out = String::from("\n");
    out.push_str(&render(
        ["mutant", "location", "verdict", "test", "why"],
        &rows,
    ));
    let mut counts: std::collections::BTreeMap<Verdict, usize> = Default::default();
    for m in &outcomes.mutants {
        *counts.entry(m.verdict).or_default() += 1;
    }
    let counts: Vec<String> = counts.iter().map(|(v, n)| format!("{v} {n}")).collect();
    out.push_str(&format!("\n{}\n", counts.join(", ")));
    let s = &outcomes.score;
    if none_ran(outcomes) {
        out.push_str("no mutation score: no usable test reaches a synchronization call, so no mutant ran (the baseline above says what the original did)\n");
        return out;
    }
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

/// Every mutant is `not-reached`: no test ran any, and a score of 0% would blame the
/// tests for what the original did (it failed at once, say).
pub fn none_ran(outcomes: &Outcomes) -> bool {
    !outcomes.mutants.is_empty()
        && outcomes
            .mutants
            .iter()
            .all(|m| m.verdict == Verdict::NotReached)
}

/// Widest a column other than the last may be: a longer cell is cut and ends in `…`
/// (the last column is never padded, so it is printed whole).
const MAX_WIDTH: usize = 120;

/// `cell` cut to `MAX_WIDTH` characters.
fn cut(cell: &str) -> std::borrow::Cow<'_, str> {
    match cell.char_indices().nth(MAX_WIDTH) {
        None => cell.into(),
        Some(_) => {
            let end = cell.char_indices().nth(MAX_WIDTH - 1).map_or(0, |(i, _)| i);
            format!("{}…", &cell[..end]).into()
        }
    }
}

/// Left-aligned columns separated by two spaces; cells of a column other than the last
/// are cut to [`MAX_WIDTH`] characters, so no identifier length makes a table fail.
fn render<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let mut widths = header.map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cut(cell).chars().count());
        }
    }
    let line = |cells: [&str; N]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == N {
                s.push_str(cell);
            } else {
                let cell = cut(cell);
                s.push_str(&cell);
                s.extend(std::iter::repeat_n(' ', w - cell.chars().count() + 2));
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

#[cfg(test)]
mod tests {
    #[test]
    fn cells_of_any_length_are_cut_not_a_panic() {
        let long = "x".repeat(65_535);
        let table = super::render(["a", "b"], &[[long.clone(), long.clone()]]);
        let first = table.lines().nth(1).unwrap();
        assert!(
            first.starts_with(&format!("{}…  x", "x".repeat(119))),
            "{}",
            &first[..200]
        );
        assert!(first.ends_with(&long));
    }
}
