//! JUnit XML: one test suite, one test case per mutant. Killed mutants pass, survivors
//! fail (the tests missed a fault), not-reached mutants are skipped, errors are errors.

use crate::outcome::Outcomes;
use crate::verdict::Verdict;

pub(crate) fn render(outcomes: &Outcomes) -> String {
    let s = &outcomes.score;
    let failures = s.survived;
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!(
        "<testsuites name=\"syncmut\" tests=\"{}\" failures=\"{failures}\" errors=\"{}\" skipped=\"{}\">\n",
        s.mutants,
        s.errors,
        s.not_reached + s.equivalent
    ));
    xml.push_str(&format!(
        "  <testsuite name=\"mutants\" tests=\"{}\" failures=\"{failures}\" errors=\"{}\" skipped=\"{}\">\n",
        s.mutants, s.errors, s.not_reached
    ));
    for m in &outcomes.mutants {
        let classname = escape(&format!("{}:{}", m.file, m.line));
        xml.push_str(&format!(
            "    <testcase name=\"{}\" classname=\"{classname}\">\n",
            escape(&m.mutant)
        ));
        let detail = escape(&format!("{}: {}", m.description, m.reason));
        match m.verdict {
            Verdict::Survived => xml.push_str(&format!(
                "      <failure message=\"survived\">{detail}</failure>\n"
            )),
            Verdict::NotReached => {
                xml.push_str(&format!("      <skipped message=\"{detail}\"/>\n"))
            }
            Verdict::EquivalentExhaustive => xml.push_str(&format!(
                "      <skipped message=\"equivalent (exhaustive): {detail}\"/>\n"
            )),
            Verdict::Error => xml.push_str(&format!(
                "      <error message=\"error\">{detail}</error>\n"
            )),
            killed => xml.push_str(&format!(
                "      <system-out>{} by test {}: {detail}</system-out>\n",
                killed.name(),
                escape(m.killed_by.as_deref().unwrap_or(""))
            )),
        }
        xml.push_str("    </testcase>\n");
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => {}
            c => out.push(c),
        }
    }
    out
}
