//! Reports rendered from saved outcomes alone.

use crate::outcome::Outcomes;
use syncmut_mutator::Catalogue;

/// `report.csv`: one row per (mutant, test) run, plus one row per mutant that was not
/// run (test empty), so every mutant appears.
pub(crate) fn render(catalogue: &Catalogue, outcomes: &Outcomes) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = [
        "mutant",
        "operator",
        "file",
        "line",
        "test",
        "verdict",
        "mutant_verdict",
        "reason",
    ];
    writer.write_record(header).expect("in-memory write");
    for m in &outcomes.mutants {
        let file = catalogue
            .mutant(&m.mutant)
            .map(|c| c.file.as_str())
            .unwrap_or(&m.file);
        if m.runs.is_empty() {
            let row = [
                &m.mutant,
                &m.operator,
                file,
                &m.line.to_string(),
                "",
                m.verdict.name(),
                m.verdict.name(),
                &m.reason,
            ];
            writer.write_record(row).expect("in-memory write");
        }
        for r in &m.runs {
            let row = [
                &m.mutant,
                &m.operator,
                file,
                &m.line.to_string(),
                &r.test,
                r.verdict.name(),
                m.verdict.name(),
                &r.reason,
            ];
            writer.write_record(row).expect("in-memory write");
        }
    }
    writer.into_inner().expect("in-memory write")
}
