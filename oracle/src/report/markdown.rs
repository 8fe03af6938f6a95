//! A Markdown summary for pull-request comments: the score, counts per verdict, and
//! the survivors (what a reviewer should look at).

use crate::outcome::Outcomes;
use crate::verdict::Verdict;

pub(crate) fn render(outcomes: &Outcomes) -> String {
    let s = &outcomes.score;
    let mut md = format!(
        "## syncmut: mutation score {:.1}%\n\n{}\n",
        s.percent,
        super::summary_sentence(s)
    );
    // Kills per verdict, in the verdicts' order (what found the faults).
    let mut kills: std::collections::BTreeMap<Verdict, usize> = Default::default();
    for m in outcomes.mutants.iter().filter(|m| m.verdict.is_killed()) {
        *kills.entry(m.verdict).or_default() += 1;
    }
    if !kills.is_empty() {
        let counts: Vec<String> = kills.iter().map(|(v, n)| format!("{v} {n}")).collect();
        md.push_str(&format!("\nKilled by: {}.\n", counts.join(", ")));
    }
    let survivors: Vec<_> = outcomes
        .mutants
        .iter()
        .filter(|m| m.verdict == Verdict::Survived)
        .collect();
    if !survivors.is_empty() {
        md.push_str("\n### Survived (no test noticed these faults)\n\n| mutant | location | change |\n|---|---|---|\n");
        for m in survivors {
            md.push_str(&format!(
                "| `{}` | {}:{} | {} |\n",
                m.mutant,
                m.file,
                m.line,
                m.description.replace('|', "\\|")
            ));
        }
        // Survivors the tests may well tell apart, where the oracle could not prove it.
        for m in outcomes
            .mutants
            .iter()
            .filter(|m| m.verdict == Verdict::Survived && m.unclaimed > 0)
        {
            md.push_str(&format!(
                "\n`{}`: {} run(s) differed from every run of the original tried, but only past the point where the original could no longer follow the mutant's interleaving; not claimed as kills.\n",
                m.mutant, m.unclaimed
            ));
        }
    }
    md
}
