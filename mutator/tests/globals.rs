//! The globals recorded in trace state snapshots: the user's integer, bool and pointer
//! globals with their source names and kinds; constants, non-integers and globals
//! declared in system headers are left out.

use std::path::Path;
use syncmut_mutator::globals::GlobalKind;
use syncmut_mutator::metamutant::scan;
use syncmut_mutator::Design;

#[test]
fn user_globals_are_found_with_their_kinds() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/globals.c");
    let design = Design::from_paths(&[source], &[]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let scan = scan(&design, dir.path()).unwrap();
    let got: Vec<(String, u32, GlobalKind)> = scan
        .globals
        .iter()
        .map(|g| (g.name.clone(), g.size, g.kind))
        .collect();
    let want: Vec<(String, u32, GlobalKind)> = vec![
        ("buffer".into(), 8, GlobalKind::Pointer),
        ("counter".into(), 4, GlobalKind::Signed),
        ("done".into(), 1, GlobalKind::Bool),
        ("flags".into(), 4, GlobalKind::Unsigned),
        ("hits".into(), 8, GlobalKind::Unsigned),
        ("level".into(), 2, GlobalKind::Signed),
    ];
    assert_eq!(got, want);
}
