//! A Markdown summary for pull-request comments: the score, counts per verdict, and
//! the survivors (what a reviewer should look at).

use crate::outcome::Outcomes;
use crate::verdict::Verdict;

pub fn render(outcomes: &Outcomes) -> String {
    let s = &outcomes.score;
    let mut md = format!(
        "## syncmut: mutation score {:.1}%\n\n{} of {} synchronization mutants killed; {} survived, {} not reached, {} errors.{}\n",
        s.percent,
        s.killed,
        s.mutants,
        s.survived,
        s.not_reached,
        s.errors,
        super::equivalent_note(s)
    );
    let survivors: Vec<_> = outcomes.mutants.iter().filter(|m| m.verdict == Verdict::Survived).collect();
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
    }
    md
}
