//! GitHub workflow annotations: one `::warning` line per surviving mutant, so the
//! survivor shows up on the source line in the pull request.

use crate::outcome::Outcomes;
use crate::verdict::Verdict;

pub fn render(outcomes: &Outcomes) -> String {
    outcomes
        .mutants
        .iter()
        .filter(|m| m.verdict == Verdict::Survived)
        .map(|m| {
            // Annotation messages are single-line; '%', CR and LF must be escaped.
            let message = format!("mutant {} survived: {}", m.mutant, m.description)
                .replace('%', "%25")
                .replace('\r', "%0D")
                .replace('\n', "%0A");
            format!("::warning file={},line={},title=syncmut survivor::{message}\n", m.file, m.line)
        })
        .collect()
}
