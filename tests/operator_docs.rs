//! docs/operators.md is the operator catalogue users read: every operator the mutator
//! knows must have its row there (with an example), and the page must not describe an
//! operator that does not exist, e.g. after a rename.

mod util;

use std::collections::BTreeSet;
use syncmut_mutator::Operator;

/// The slugs named in the first column of the catalogue table (`| \`slug\` | …`).
fn documented_slugs(page: &str) -> BTreeSet<String> {
    let catalogue = page
        .split("## Catalogue")
        .nth(1)
        .expect("docs/operators.md: no `## Catalogue` section");
    let table = catalogue.split("\n## ").next().unwrap();
    table
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once("` |").map(|(slug, _)| slug.to_string()))
        .collect()
}

#[test]
fn every_operator_is_documented_with_an_example_and_no_other() {
    let path = util::root().join("docs/operators.md");
    let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let documented = documented_slugs(&page);
    let known: BTreeSet<String> = Operator::ALL
        .iter()
        .map(|op| op.slug().to_string())
        .collect();
    let missing: Vec<_> = known.difference(&documented).collect();
    let unknown: Vec<_> = documented.difference(&known).collect();
    assert!(
        missing.is_empty(),
        "operators missing from docs/operators.md: {missing:?}"
    );
    assert!(
        unknown.is_empty(),
        "docs/operators.md documents operators that do not exist: {unknown:?}"
    );
    // Each row shows the call before and after the mutation.
    for line in page.lines().filter(|l| {
        l.starts_with("| `") && known.iter().any(|s| l.starts_with(&format!("| `{s}` |")))
    }) {
        assert!(line.contains('→'), "no before → after example in: {line}");
    }
}

#[test]
fn the_table_parser_sees_a_missing_row() {
    // Guards the test above against a parser that finds nothing and so never fails.
    let page = "# x\n## Catalogue\n| operator | a | b |\n|---|---|---|\n| `remove` | all | `f();` → nothing |\n## Per primitive\n| `lock-to-trylock` | x |\n";
    assert_eq!(
        documented_slugs(page),
        BTreeSet::from(["remove".to_string()])
    );
}
