//! The project's own synchronization functions: declared in syncmut.toml (`[[sync]]`),
//! their calls are the sites, at the callers' lines and named after the callers; the
//! calls inside them are no longer mutated; `list --suggest` proposes them.

mod util;

use serde_json::Value;

fn catalogue(dir: &std::path::Path) -> Value {
    let out = util::syncmut()
        .arg("list")
        .arg(dir)
        .arg("--json")
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

#[test]
fn declared_wrappers_make_sites_at_their_callers() {
    let dir = util::fixture("user_sync");
    let catalogue = catalogue(&dir);
    let mutants = catalogue["mutants"].as_array().unwrap();
    let ids: Vec<&str> = mutants.iter().map(|m| m["id"].as_str().unwrap()).collect();
    // Every mutant is a call in main.c, named after its caller; the wrapper bodies in
    // threads.c hold none.
    assert_eq!(
        ids,
        [
            "worker#1:remove",
            "worker#2:remove",
            "worker#3:remove",
            "main#1:remove",
            "main#2:remove",
            "main#3:remove",
            "main#4:remove"
        ]
    );
    assert!(
        mutants
            .iter()
            .all(|m| m["file"].as_str().unwrap().ends_with("main.c")),
        "{mutants:?}"
    );
    let wait = mutants.iter().find(|m| m["id"] == "main#2:remove").unwrap();
    assert_eq!(
        (wait["line"].as_u64(), wait["call"].as_str()),
        (Some(23), Some("wait_for(&done, 1)"))
    );
    // The inner calls remain sites (scheduling points, trace events) without mutants.
    let sites = catalogue["sites"].as_array().unwrap();
    let inner: Vec<&Value> = sites
        .iter()
        .filter(|s| s["file"].as_str().unwrap().ends_with("threads.c"))
        .collect();
    assert_eq!(inner.len(), 4);
    assert!(inner
        .iter()
        .all(|s| s["operators"].as_array().unwrap().is_empty()));

    // Run: removing wait_for lets main read the result early; removing a possess is not
    // killed merely because the wrapper's inner lock no longer shows in the trace (under
    // the one default schedule, where nothing else about it differs; the default budget's
    // preemptive schedules, and real threads, do find its deadlock: they are off).
    let out = tempfile::tempdir().unwrap();
    util::syncmut()
        .arg("run")
        .arg(&dir)
        .args([
            "--gen",
            "none",
            "--strategy",
            "default",
            "--native",
            "0",
            "-o",
        ])
        .arg(out.path())
        .timeout(std::time::Duration::from_secs(300))
        .assert()
        .success();
    let outcomes = util::outcomes(out.path());
    let verdict = |id: &str| util::outcome(&outcomes, id)["verdict"].clone();
    assert_eq!(verdict("main#2:remove"), "killed-by-output");
    assert_eq!(verdict("main#1:remove"), "survived");
    // explain names the caller's line.
    let explained = util::syncmut()
        .arg("explain")
        .arg(out.path())
        .arg("main#2:remove")
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&explained.get_output().stdout).contains("main.c:23"));
}

#[test]
fn list_suggest_proposes_the_wrappers() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["main.c", "threads.c", "threads.h"] {
        std::fs::copy(util::fixture("user_sync").join(file), dir.path().join(file)).unwrap();
    }
    // Undeclared, the sites are inside the wrappers.
    let catalogue = catalogue(dir.path());
    assert!(catalogue["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["id"] == "possess#1:remove"));
    let out = util::syncmut()
        .arg("list")
        .arg(dir.path())
        .arg("--suggest")
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let toml_part = &text[text.find("# proposed").unwrap()..];
    #[derive(serde::Deserialize)]
    struct File {
        sync: Vec<syncmut_mutator::user_sync::UserSync>,
    }
    let proposed: File = toml::from_str(toml_part).unwrap();
    let names: Vec<(&str, &str)> = proposed
        .sync
        .iter()
        .map(|s| (s.function.as_str(), s.acts_as.name()))
        .collect();
    assert_eq!(
        names,
        [
            ("possess", "lock"),
            ("release", "unlock"),
            ("twist", "broadcast"),
            ("wait_for", "wait")
        ]
    );
    assert!(proposed.sync.iter().all(|s| s.argument == 0));
    // `main` and `worker` hold several synchronization calls: not proposed.
    assert!(!text.contains("function = \"main\"") && !text.contains("function = \"worker\""));
}

/// The events a declared call raises are left out of the comparison when it is removed,
/// wherever they come from: `hold` takes its lock in a helper it calls, and `hold_pair`
/// goes through `hold`. Main takes the gate after joining the worker, and the worker's
/// unit is read only after that join, so removing either call changes nothing but those
/// events: both survive. Removing the worker's `drop_pair` leaves the gate held: a real
/// deadlock, still killed.
#[test]
fn events_inside_a_removed_wrapper_are_left_out_wherever_they_are_raised() {
    let dir = util::fixture("user_sync_layers");
    let catalogue = catalogue(&dir);
    let sites = catalogue["sites"].as_array().unwrap();
    let site = |file: &str, line: u64| {
        sites
            .iter()
            .find(|s| s["file"].as_str().unwrap().ends_with(file) && s["line"] == line)
            .unwrap_or_else(|| panic!("no site at {file}:{line}: {sites:?}"))
    };
    // The helper's lock is among the sites a call of `hold` raises events at.
    let helper = site("layer.c", 6)["index"].clone();
    let hold = site("main.c", 23);
    assert!(
        hold["inner"].as_array().unwrap().contains(&helper),
        "{hold}"
    );
    let out = tempfile::tempdir().unwrap();
    util::syncmut()
        .arg("run")
        .arg(&dir)
        .args(["--gen", "none", "--strategy", "default", "-o"])
        .arg(out.path())
        .assert()
        .success();
    let outcomes = util::outcomes(out.path());
    let verdict = |id: &str| util::outcome(&outcomes, id)["verdict"].clone();
    assert_eq!(verdict("main#2:remove"), "survived");
    assert_eq!(verdict("worker#1:remove"), "survived");
    assert_eq!(verdict("worker#2:remove"), "killed-by-deadlock");
}
