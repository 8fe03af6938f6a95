//! GitHub workflow annotations: one `::warning` line per surviving mutant and one
//! `::error` line per mutant the oracle could not judge, so each shows up on its source
//! line in the pull request with the reason the reports give.

use crate::outcome::{MutantOutcome, Outcomes};
use crate::verdict::Verdict;

pub(crate) fn render(outcomes: &Outcomes) -> String {
    outcomes
        .mutants
        .iter()
        .filter_map(|m| match m.verdict {
            Verdict::Survived => Some(annotation("warning", "syncmut survivor", m, "survived")),
            // A limit of the tool, not a claim about the design: never left silent.
            Verdict::Error => Some(annotation(
                "error",
                "syncmut could not judge",
                m,
                "could not be judged",
            )),
            _ => None,
        })
        .collect()
}

fn annotation(level: &str, title: &str, m: &MutantOutcome, what: &str) -> String {
    let mut message = format!("mutant {} {what}: {}", m.mutant, m.description);
    if !m.reason.is_empty() {
        message.push_str(&format!(" ({})", m.reason));
    }
    format!(
        "::{level} file={},line={},title={title}::{}\n",
        m.file,
        m.line,
        escape(&message)
    )
}

/// Annotation messages are single-line; '%', CR and LF must be escaped.
fn escape(message: &str) -> String {
    message
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}
