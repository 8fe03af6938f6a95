//! Virtual calls on SystemC primitives whose object's class is known exactly (an array
//! element, a member, a global, a local) are made direct and become sites; those
//! through a port or a pointer are guarded by the callee they load and call each
//! channel member it may be directly, a site as well; a port no channel of the design
//! implements is named in the warnings (DESIGN.md, "Mutator";
//! `mutator/src/devirtualize.rs`, `mutator/src/promote.rs`). Designs in
//! tests/fixtures/sc_virtual/.

mod util;

use serde_json::Value;
use std::path::PathBuf;
use util::{fixture, syncmut};

fn design(name: &str) -> PathBuf {
    fixture("sc_virtual").join(name)
}

/// `syncmut list --json`: the catalogue and the warnings.
fn list(name: &str) -> (Value, String) {
    let out = syncmut()
        .arg("list")
        .arg(design(name))
        .arg("--json")
        .assert()
        .success();
    let output = out.get_output();
    (
        serde_json::from_slice(&output.stdout).unwrap(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The sites at `line`: (call, callee, operators).
fn sites_at(catalogue: &Value, line: u64) -> Vec<(String, String, Vec<String>)> {
    catalogue["sites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["line"] == line)
        .map(|s| {
            (
                s["call"].as_str().unwrap().to_string(),
                s["callee"].as_str().unwrap().to_string(),
                s["operators"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|o| o.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn locks_on_array_elements_are_sites_with_the_sc_mutex_operators() {
    let (c, stderr) = list("philosophers.cpp");
    let lock = strings(&["remove", "lock-to-trylock"]);
    let mutex_lock = "sc_core::sc_mutex::lock()".to_string();
    let mutex_unlock = "sc_core::sc_mutex::unlock()".to_string();
    for (line, call) in [
        (23, "forks[id].lock()"),
        (25, "forks[(id + 1) % N].lock()"),
        (27, "forks[(id + 1) % N].lock()"),
        (29, "forks[id].lock()"),
        (46, "forks[mode % N].lock()"),
    ] {
        assert_eq!(
            sites_at(&c, line),
            [(call.to_string(), mutex_lock.clone(), lock.clone())],
            "line {line}"
        );
    }
    for (line, call) in [
        (35, "forks[(id + 1) % N].unlock()"),
        (36, "forks[id].unlock()"),
    ] {
        assert_eq!(
            sites_at(&c, line),
            [(call.to_string(), mutex_unlock.clone(), strings(&["remove"]))],
            "line {line}"
        );
    }
    // Each lock pairs up with its unlock by the element's expression.
    let description = |id: &str| {
        c["mutants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no mutant {id}"))["description"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for (key, unlock) in [
        ("table::philosopher#2", "forks[id].unlock() (line 36)"),
        (
            "table::philosopher#4",
            "forks[(id + 1) % N].unlock() (line 35)",
        ),
        (
            "table::philosopher#5",
            "forks[(id + 1) % N].unlock() (line 35)",
        ),
        ("table::philosopher#7", "forks[id].unlock() (line 36)"),
        ("table::chef#2", "forks[mode % N].unlock() (line 52)"),
    ] {
        let text = description(&format!("{key}:remove-lock-pair"));
        assert!(text.ends_with(&format!("and {unlock}")), "{key}: {text}");
    }
    // The plate written through the port's operator-> is a site on the sc_fifo<int> the
    // port may be bound to, and no longer a warning.
    assert_eq!(
        sites_at(&c, 34),
        [(
            "served->write(id)".to_string(),
            "sc_core::sc_fifo<int>::write(int const&)".to_string(),
            strings(&["remove", "blocking-to-nonblocking"])
        )]
    );
    assert!(!stderr.contains("philosophers.cpp:34"), "{stderr}");
}

#[test]
fn each_kind_of_complete_object_resolves_to_its_own_class() {
    let (c, stderr) = list("objects.cpp");
    let callee = |line: u64| {
        let sites = sites_at(&c, line);
        assert_eq!(sites.len(), 1, "line {line}: {sites:?}");
        sites[0].1.clone()
    };
    // An array, a two-dimensional array, a member of an array element, a derived class
    // that does not override, a global array, and a local array in sc_main.
    for line in [25, 26, 27, 28, 32, 56] {
        assert_eq!(callee(line), "sc_core::sc_mutex::lock()", "line {line}");
    }
    assert_eq!(callee(29), "sc_core::sc_semaphore::wait()");
    assert_eq!(callee(41), "sc_core::sc_semaphore::post()");
    // Two instances of one template share a layout, and so one LLVM type: the debug
    // info tells them apart.
    assert_eq!(callee(30), "sc_core::sc_fifo<int>::write(int const&)");
    assert_eq!(callee(31), "sc_core::sc_fifo<double>::write(double const&)");
    assert_eq!(callee(36), "sc_core::sc_fifo<int>::read()");
    // An `invoke` (a destructor runs if the call throws) is made direct as well.
    assert_eq!(callee(39), "sc_core::sc_mutex::unlock()");
    // Through a pointer, through ports, and through std::array's operator[] (which
    // returns a reference): sites on the library's sc_mutex and sc_semaphore, which
    // the guard compares the loaded callee with.
    for line in [33, 34, 43] {
        assert_eq!(callee(line), "sc_core::sc_mutex::lock()", "line {line}");
    }
    assert_eq!(callee(35), "sc_core::sc_semaphore::post()");
    for line in [33, 34, 35] {
        assert!(!stderr.contains(&format!("objects.cpp:{line}")), "{stderr}");
    }
    // A port of an interface no fifo of the design implements (there is no
    // sc_fifo<long>): no site, and the warning says why.
    assert!(
        stderr.contains("syncmut: warning: objects.cpp:43: longs->read() goes through a port (sc_core::sc_fifo_in_if<long>) to whatever channel is bound: not a site, because no channel the design has or links implements that member at its slot"),
        "{stderr}"
    );
    // A signal's read and a fifo's num_available are no sites when called on the
    // channel either: no warning for them through a port.
    assert!(!stderr.contains("objects.cpp:42"), "{stderr}");
}

#[test]
fn a_removed_array_lock_or_unlock_is_killed() {
    let out = tempfile::tempdir().unwrap();
    let run = syncmut()
        .arg("run")
        .arg(design("philosophers.cpp"))
        .arg("-o")
        .arg(out.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    let outcomes = util::outcomes(out.path());
    let verdict = |id: &str| {
        util::outcome(&outcomes, id)["verdict"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    // The first philosopher without its left fork eats beside its neighbour.
    assert!(
        verdict("table::philosopher#2:remove").starts_with("killed"),
        "{stdout}"
    );
    // A fork never put down starves the others.
    assert_eq!(
        verdict("table::philosopher#10:remove"),
        "killed-by-deadlock"
    );
    assert_eq!(
        verdict("table::philosopher#11:remove"),
        "killed-by-deadlock"
    );
    // The chef's fork, taken only when argv[1] is 7, is reached by a generated test.
    assert_eq!(verdict("table::chef#4:remove"), "killed-by-deadlock");
}

#[test]
fn generation_reaches_the_lock_guarded_by_argv() {
    let out = tempfile::tempdir().unwrap();
    let gen = syncmut()
        .arg("gen")
        .arg(design("philosophers.cpp"))
        .arg("-o")
        .arg(out.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&gen.stdout);
    assert_eq!(gen.status.code(), Some(0), "{stdout}");
    let read = |file: &str| -> Value {
        serde_json::from_slice(&std::fs::read(out.path().join(file)).unwrap()).unwrap()
    };
    let catalogue = read("mutants.json");
    let index = catalogue["sites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["line"] == 46)
        .unwrap_or_else(|| panic!("no site at line 46: {catalogue}"))["index"]
        .clone();
    let sites = read("sites.json");
    let chef_lock = sites
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["index"] == index)
        .unwrap_or_else(|| panic!("no verdict for site {index}: {sites}"));
    assert_eq!(chef_lock["verdict"]["verdict"], "test-found", "{chef_lock}");
    assert_eq!(chef_lock["verdict"]["args"][0], "7", "{chef_lock}");
}

#[test]
fn fifo_and_mutex_calls_through_ports_are_sites_at_the_port_call() {
    let (c, stderr) = list("ports.cpp");
    let fifo = |member: &str| format!("sc_core::sc_fifo<int>::{member}");
    let blocking = strings(&["remove", "blocking-to-nonblocking"]);
    for (line, call, callee) in [
        // sc_port<sc_fifo_out_if<int>>
        (31, "jobs->write(job)", fifo("write(int const&)")),
        // The same kind of port bound to the design's own channel: a site on the
        // sc_fifo<int> it might have been, never reached.
        (32, "copies->write(job)", fifo("write(int const&)")),
        // sc_fifo_in<int>, in a call and in an invoke (a string is destroyed if it throws)
        (40, "receipts->read()", fifo("read()")),
        (59, "jobs->read()", fifo("read()")),
        // sc_fifo_out<int>
        (67, "receipts->write(job * job)", fifo("write(int const&)")),
    ] {
        assert_eq!(
            sites_at(&c, line),
            [(call.to_string(), callee, blocking.clone())],
            "line {line}"
        );
    }
    // sc_port<sc_mutex_if>: libsystemc's sc_mutex, paired up like a call on the mutex.
    for (line, unlock) in [(33, 37), (62, 66)] {
        assert_eq!(
            sites_at(&c, line),
            [(
                "guard->lock()".to_string(),
                "sc_core::sc_mutex::lock()".to_string(),
                strings(&["remove", "lock-to-trylock"])
            )],
            "line {line}"
        );
        assert_eq!(
            sites_at(&c, unlock),
            [(
                "guard->unlock()".to_string(),
                "sc_core::sc_mutex::unlock()".to_string(),
                strings(&["remove"])
            )],
            "line {unlock}"
        );
    }
    assert!(!stderr.contains("through a port"), "{stderr}");
}

#[test]
fn a_mutant_of_a_port_call_is_killed_and_the_own_channel_still_runs() {
    let out = tempfile::tempdir().unwrap();
    let run = syncmut()
        .arg("run")
        .arg(design("ports.cpp"))
        .arg("-o")
        .arg(out.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{stderr}");
    let outcomes = util::outcomes(out.path());
    let verdict = |id: &str| {
        util::outcome(&outcomes, id)["verdict"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    // No job sent: both processes wait on a fifo for ever.
    assert_eq!(verdict("sender::run#1:remove"), "killed-by-deadlock");
    // The ledger's lock not taken: the receiver no longer waits for the sender.
    assert!(
        verdict("sender::run#3:remove").starts_with("killed"),
        "{stdout}"
    );
    // The receipt never read back in an invoke's place: the sender starves.
    assert_eq!(verdict("receiver::run#1:remove"), "killed-by-deadlock");
    // The copy goes to the design's own channel through the original call, so the
    // promoted direct call is never reached...
    assert_eq!(verdict("sender::run#2:remove"), "not-reached");
    // ...and the metamutant, no mutant active, prints what the original does, the tally's
    // sum included.
    let print = |exe: &str| {
        let ran = std::process::Command::new(out.path().join(exe))
            .output()
            .unwrap();
        assert!(ran.status.success(), "{exe}");
        String::from_utf8_lossy(&ran.stdout).into_owned()
    };
    let original = print("original");
    assert!(
        original.contains("ledger 110, tally 10 at 14 ns"),
        "{original}"
    );
    assert_eq!(print("metamutant"), original);
}
