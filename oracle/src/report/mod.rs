//! Reports, all rendered from the saved catalogue and outcomes alone (so
//! `syncmut report DIR --format …` can redo them without running anything). One file
//! per format.

mod csv;
mod github;
mod junit;
mod markdown;

use crate::outcome::Outcomes;
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
}

impl Format {
    /// Every format with its command-line name.
    pub const ALL: [(&'static str, Format); 5] = [
        ("csv", Format::Csv),
        ("json", Format::Json),
        ("junit", Format::Junit),
        ("markdown", Format::Markdown),
        ("github", Format::Github),
    ];
}

/// Renders `outcomes` in `format`.
pub fn render(format: Format, catalogue: &Catalogue, outcomes: &Outcomes) -> Vec<u8> {
    match format {
        Format::Csv => csv::render(catalogue, outcomes),
        Format::Json => serde_json::to_vec_pretty(outcomes).expect("plain data serialises"),
        Format::Junit => junit::render(outcomes).into_bytes(),
        Format::Markdown => markdown::render(outcomes).into_bytes(),
        Format::Github => github::render(outcomes).into_bytes(),
    }
}

/// The file name of a source path, for compact display.
fn short_file(path: &str) -> String {
    std::path::Path::new(path).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_else(|| path.to_string())
}
