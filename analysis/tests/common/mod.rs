//! Shared by the fixture tests: compile a C fixture, prepare the analysis copy and
//! analyse its `syncmut_probe(k)` sites (a name the site finder treats like a rewritten
//! wrapper call: first argument = the site index).

use std::path::Path;
use syncmut_analysis::{analyse, prepare, smt, Options, SiteResult};

/// Compiles `prelude` + `src` as `name.c` and analyses `sites` sites.
pub fn run(name: &str, prelude: &str, src: &str, sites: u32) -> (tempfile::TempDir, Vec<SiteResult>) {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join(format!("{name}.c"));
    std::fs::write(&c, format!("{prelude}{src}")).unwrap();
    let bc = dir.path().join("design.bc");
    let ok = std::process::Command::new("clang-16")
        .args(["-c", "-emit-llvm", "-O0", "-Xclang", "-disable-O0-optnone", "-g", "-o"])
        .arg(&bc)
        .arg(&c)
        .status()
        .unwrap()
        .success();
    assert!(ok, "clang-16 failed on {name}");
    let an = dir.path().join("analysis.bc");
    prepare(&bc, &an, Options::default().bound).unwrap();
    let results = analyse(&an, sites, &dir.path().join("formulas"), &Options::default()).unwrap();
    for r in &results {
        eprintln!("{name} site {}: {} notes={:?}", r.index, r.verdict, r.notes);
    }
    (dir, results)
}

/// Whether site `site`'s saved formula is equivalent to `expected` (checked by z3).
#[allow(dead_code)] // not every test file checks formulas
pub fn equivalent(dir: &Path, site: u32, expected: &str) -> bool {
    smt::equivalent(&dir.join(format!("formulas/site{site}.smt2")), expected).unwrap()
}

/// argc ≥ 1 + highest argv index read, ≤ 64 (part of every formula).
#[allow(dead_code)]
pub fn argc(k: u32) -> String {
    format!("(bvuge argc (_ bv{} 32)) (bvule argc (_ bv64 32))", k + 1)
}
