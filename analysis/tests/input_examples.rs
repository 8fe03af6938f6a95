//! End-to-end on the input examples: tests generated from `__VERIFIER_nondet_*` calls
//! and named inputs reach their sites when the metamutant runs them (the runtime
//! supplies the values), and are written as JSON and as Test-Comp XML.

use std::path::{Path, PathBuf};
use syncmut_analysis::{generate, Options, Reachability};

fn example(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("examples")
        .join(rel)
}

fn gen(rel: &str) -> (tempfile::TempDir, syncmut_analysis::Generation) {
    let out = tempfile::tempdir().unwrap();
    let design = syncmut_mutator::Design::from_paths(&[example(rel)], &[]).unwrap();
    let g = generate(&design, out.path(), &Options::default()).unwrap();
    for s in &g.sites {
        eprintln!(
            "site {}: {} ({} ms) notes={:?}",
            s.index, s.verdict, s.millis, s.notes
        );
    }
    for t in &g.suite.tests {
        eprintln!(
            "test {:?} {:?} {:?} reaches {:?}; consumed {:?}",
            t.args, t.nondet, t.inputs, t.reached, t.consumed
        );
    }
    (out, g)
}

/// The site index of `function`'s `ordinal`-th call of `call`.
fn site(g: &syncmut_analysis::Generation, function: &str, call: &str) -> usize {
    g.catalogue
        .sites
        .iter()
        .position(|s| s.function == function && s.call.starts_with(call))
        .unwrap_or_else(|| panic!("no {call} in {function}"))
}

#[test]
fn nondet_guard_sites_reached_by_nondet_values() {
    let (out, g) = gen("pthread/nondet_guard");
    let worker = site(&g, "worker", "pthread_mutex_lock");
    let main = site(&g, "main", "pthread_mutex_lock");
    let Reachability::TestFound { nondet, .. } = &g.sites[worker].verdict else {
        panic!("{}", g.sites[worker].verdict)
    };
    assert_eq!(
        nondet.first().copied().unwrap_or(0) - nondet.get(1).copied().unwrap_or(0),
        42,
        "{nondet:?}"
    );
    let Reachability::TestFound { nondet, .. } = &g.sites[main].verdict else {
        panic!("{}", g.sites[main].verdict)
    };
    assert!(nondet[0] > 1000 && nondet[1] == 7, "{nondet:?}");
    // __VERIFIER_assume(a in ±10⁶) is a path condition: every generated test meets it.
    for s in &g.sites {
        if let Reachability::TestFound { nondet, .. } = &s.verdict {
            assert!(
                nondet
                    .iter()
                    .take(1)
                    .all(|a| (-1_000_000..=1_000_000).contains(a)),
                "{nondet:?}"
            );
        }
    }
    // Every site confirmed by running the metamutant with the values.
    assert_eq!(g.suite.confirmed.len(), g.sites.len());
    assert_eq!(g.suite.reach_rate(), 1.0);
    // The runtime logged what each kept test consumed, in call order, with the types.
    for t in &g.suite.tests {
        let kinds: Vec<&str> = t
            .consumed
            .iter()
            .map(|(k, ty, _)| if k == "nondet" { ty.as_str() } else { "?" })
            .collect();
        assert_eq!(kinds, ["int", "uchar"], "{t:?}");
    }
    // tests.json carries the values and loads as a test file.
    let tests = syncmut_runner::test_case::load(&g.tests_file).unwrap();
    assert!(
        tests
            .iter()
            .any(|t| t.nondet.len() == 2 && t.nondet[1] == 7),
        "{tests:?}"
    );
    test_comp_files_parse_back(out.path(), &tests);
}

/// tests/<name>.xml per test (Test-Comp testcase: DOCTYPE, `<input>`s in call order)
/// and tests/metadata.xml, read back with an independent XML parser.
fn test_comp_files_parse_back(out: &Path, tests: &[syncmut_runner::test_case::TestCase]) {
    let dir = out.join("tests");
    for t in tests {
        let text = std::fs::read_to_string(dir.join(format!("{}.xml", t.name))).unwrap();
        assert!(text.contains(r#"<!DOCTYPE testcase PUBLIC "+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN""#), "{text}");
        let doc = roxmltree::Document::parse_with_options(
            &text,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(doc.root_element().tag_name().name(), "testcase");
        let inputs: Vec<(String, i128)> = doc
            .root_element()
            .children()
            .filter(|n| n.has_tag_name("input"))
            .map(|n| {
                (
                    n.attribute("type").unwrap().to_string(),
                    n.text().unwrap().parse().unwrap(),
                )
            })
            .collect();
        // What the run consumed: the generated values, then 0 for calls past the list.
        let mut expected = t.nondet.clone();
        expected.resize(2, 0);
        assert_eq!(
            inputs,
            [
                ("int".to_string(), expected[0]),
                ("unsigned char".to_string(), expected[1])
            ],
            "{text}"
        );
    }
    let text = std::fs::read_to_string(dir.join("metadata.xml")).unwrap();
    let doc = roxmltree::Document::parse_with_options(
        &text,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap();
    let field = |name: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name(name))
            .and_then(|n| n.text())
            .unwrap_or_else(|| panic!("no {name}: {text}"))
            .to_string()
    };
    assert_eq!(doc.root_element().tag_name().name(), "test-metadata");
    assert_eq!(field("sourcecodelang"), "C");
    assert_eq!(field("entryfunction"), "main");
    assert_eq!(field("architecture"), "64bit");
    assert!(field("specification").starts_with("COVER( init(main())"));
    let source = std::fs::read(field("programfile")).unwrap();
    use sha2::Digest as _;
    let hash: String = sha2::Sha256::digest(&source)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(field("programhash"), hash);
    assert_eq!(field("creationtime").len(), "2025-11-26T01:45:30Z".len());
}

#[test]
fn named_depth_burst_reached_by_named_inputs() {
    let (_out, g) = gen("pthread/named_depth");
    let second_wait = g
        .catalogue
        .sites
        .iter()
        .filter(|s| s.function == "consumer" && s.call.starts_with("sem_wait"))
        .map(|s| s.index as usize)
        .max()
        .unwrap();
    let Reachability::TestFound { inputs, .. } = &g.sites[second_wait].verdict else {
        panic!("{}", g.sites[second_wait].verdict)
    };
    assert!(
        inputs["burst"] == 1 && (12..=16).contains(&inputs["depth"]),
        "{inputs:?}"
    );
    assert!(
        g.suite.confirmed.contains(&(second_wait as u32)),
        "not confirmed by execution"
    );
    assert_eq!(g.suite.reach_rate(), 1.0);
}

#[test]
fn random_baseline_draws_nondet_values_and_misses_the_guards() {
    // Same budget as `syncmut gen --compare`: random draws over the nondet positions the
    // formulas read reach only the unguarded join; WP reaches all five sites.
    let out = tempfile::tempdir().unwrap();
    let design =
        syncmut_mutator::Design::from_paths(&[example("pthread/nondet_guard")], &[]).unwrap();
    let build = syncmut_mutator::metamutant::build(&design, out.path()).unwrap();
    let options = Options::default();
    let wp = syncmut_analysis::generate_for(
        &build,
        out.path(),
        out.path(),
        &options,
        &syncmut_analysis::Quiet,
    )
    .unwrap();
    let random = syncmut_analysis::random_for(
        &build,
        out.path(),
        &out.path().join("random"),
        &options,
        100,
        1,
    )
    .unwrap();
    assert_eq!(wp.suite.confirmed.len(), 5);
    assert!(
        random
            .baseline
            .symbols
            .iter()
            .any(|s| s.starts_with("nondet[1]:uchar")),
        "{:?}",
        random.baseline.symbols
    );
    assert!(
        random
            .baseline
            .suite
            .tests
            .iter()
            .all(|t| t.nondet.len() == 2),
        "random tests carry their nondet values"
    );
    let worker_lock = site(&wp, "worker", "pthread_mutex_lock") as u32;
    assert!(
        !random.baseline.suite.confirmed.contains(&worker_lock),
        "{:?}",
        random.baseline.suite.confirmed
    );
    assert!(random.baseline.suite.confirmed.len() < wp.suite.confirmed.len());
}
