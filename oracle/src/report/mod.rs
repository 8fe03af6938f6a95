//! Reports, all rendered from the saved catalogue and outcomes alone (so
//! `syncmut report DIR --format …` can redo them without running anything). One file
//! per format. The HTML report also embeds the trace diffs (`diff/*.diff`) when it is
//! given the run directory ([`render_in`]).

mod csv;
mod github;
mod html;
mod junit;
mod markdown;
mod mte;

use crate::outcome::Outcomes;
use std::path::Path;
use syncmut_mutator::Catalogue;

/// Output formats of `syncmut report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One row per (mutant, test) run.
    Csv,
    /// `outcomes.json` as saved.
    Json,
    /// JUnit XML: one test case per mutant, survivors are failures.
    Junit,
    /// A Markdown summary for pull-request comments.
    Markdown,
    /// GitHub workflow annotation lines (`::warning file=…`) for survivors.
    Github,
    /// JSON in the mutation-testing-elements report schema (Stryker's viewers).
    Mte,
    /// One self-contained HTML page: score, marked source, per-mutant trace diffs.
    Html,
}

impl Format {
    /// Every format with its command-line name.
    pub const ALL: [(&'static str, Format); 7] = [
        ("csv", Format::Csv),
        ("json", Format::Json),
        ("junit", Format::Junit),
        ("markdown", Format::Markdown),
        ("github", Format::Github),
        ("mte", Format::Mte),
        ("html", Format::Html),
    ];
}

/// Renders `outcomes` in `format`, from the catalogue and outcomes alone (the HTML
/// report then has no trace diffs; see [`render_in`]).
pub fn render(format: Format, catalogue: &Catalogue, outcomes: &Outcomes) -> Vec<u8> {
    render_in(None, format, catalogue, outcomes)
}

/// Renders `outcomes` in `format`; `run_dir`, when given, is the run directory the
/// results come from, whose `diff/<mutant>.diff` files the HTML report embeds. Every
/// other format ignores it.
pub fn render_in(
    run_dir: Option<&Path>,
    format: Format,
    catalogue: &Catalogue,
    outcomes: &Outcomes,
) -> Vec<u8> {
    match format {
        Format::Csv => csv::render(catalogue, outcomes),
        Format::Json => serde_json::to_vec_pretty(outcomes).expect("plain data serialises"),
        Format::Junit => junit::render(outcomes).into_bytes(),
        Format::Markdown => markdown::render(outcomes).into_bytes(),
        Format::Github => github::render(outcomes).into_bytes(),
        Format::Mte => mte::render(catalogue, outcomes),
        Format::Html => html::render(run_dir, catalogue, outcomes).into_bytes(),
    }
}

/// `3 of 5 synchronization mutants killed; 2 survived, 0 not reached, 0 errors.`, and
/// ` N equivalent (exhaustive), left out of the score.` when there are any: the summary
/// line the HTML and markdown reports share.
fn summary_sentence(s: &crate::outcome::Score) -> String {
    let equivalent = match s.equivalent {
        0 => String::new(),
        n => format!(" {n} equivalent (exhaustive), left out of the score."),
    };
    format!("{} of {} synchronization mutants killed; {} survived, {} not reached, {} errors.{equivalent}", s.killed, s.mutants, s.survived, s.not_reached, s.errors)
}
