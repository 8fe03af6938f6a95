//! Test generation on SystemC designs: which functions are process entries (threads,
//! clocked threads, methods, spawned processes, constructors defined in or out of their
//! class), calls through ports to the channel bound at elaboration, and what a member
//! holds after a wait or a notify when other processes may write it. Designs live in
//! tests/fixtures/gen/.

mod util;

use util::generation::{site_verdicts, syncmut};

#[test]
fn an_sc_cthread_is_a_process_entry() {
    // The design's only process is an SC_CTHREAD.
    let (_out, code, stdout, stderr) = syncmut("gen", "cthread.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("reach rate: 3 of 3 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn a_constructor_defined_outside_its_class_registers_process_entries() {
    let (_out, code, stdout, stderr) = syncmut("gen", "out_of_class.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(!stdout.contains("no path from main"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 3 of 3 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn a_member_no_other_process_writes_keeps_its_value_after_wait() {
    let (out, code, stdout, stderr) = syncmut("gen", "interference.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    // Site 1 is behind `limit == 42`, limit set from argv[1] in the constructor.
    assert_eq!(sites[1]["verdict"]["args"][0], "42", "{}", sites[1]);
    assert!(
        sites[1]["notes"].as_array().unwrap().is_empty(),
        "{}",
        sites[1]
    );
    // Site 3 is behind `turn == 1`, which the writer process sets.
    assert!(
        sites[3]["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("interference.cpp:27 after the synchronization point")),
        "{}",
        sites[3]
    );
    assert!(stdout.contains("reach rate: 6 of 6 sites"), "{stdout}");
}

#[test]
fn a_member_read_after_an_event_list_wait_keeps_its_value_unless_another_process_writes_it() {
    // `wait(a | b)` builds an event list in library code; `mode` (argv[1]) is only
    // read, `level` (argv[2]) is lowered by another process.
    let (out, code, stdout, stderr) = syncmut("gen", "member_after_wait.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    // Site 1 is behind strchr(mode, 'x'): the search sees argv[1].
    assert!(
        sites[1]["verdict"]["args"][0]
            .as_str()
            .unwrap()
            .contains('x'),
        "{}",
        sites[1]
    );
    assert!(
        !sites[1]["notes"]
            .to_string()
            .contains("after the synchronization point"),
        "{}",
        sites[1]
    );
    // Site 2 is behind `level > 2`: the tuner may write it, so the formula says so,
    // and the test found keeps the constructor's value (no write needed).
    assert!(
        sites[2]["notes"].to_string().contains(
            "member_after_wait.cpp:19 after the synchronization point at member_after_wait.cpp:16"
        ),
        "{}",
        sites[2]
    );
    let level: i64 = sites[2]["verdict"]["args"][1]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(level > 2, "{}", sites[2]);
    assert!(stdout.contains("reach rate: 6 of 6 sites"), "{stdout}");
}

#[test]
fn a_channel_method_called_through_an_sc_port_is_analysed() {
    let (out, code, stdout, stderr) = syncmut("gen", "port_channel.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(!stdout.contains("no path from main"), "{stdout}");
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    assert_ne!(sites[0]["verdict"]["verdict"], "unknown", "{}", sites[0]);
    assert!(
        sites[0]["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("indirect call at port_channel.cpp:32 is assumed to reach")),
        "{}",
        sites[0]
    );
}

#[test]
fn a_process_started_by_sc_spawn_is_an_entry() {
    let (out, code, stdout, stderr) = syncmut("gen", "spawned.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(!stdout.contains("no path from main"), "{stdout}");
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    assert_eq!(sites[0]["verdict"]["verdict"], "test-found", "{}", sites[0]);
    assert!(
        sites[0]["schedule"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("SystemC process spawned at spawned.cpp:19")),
        "{}",
        sites[0]
    );
}

#[test]
fn an_sc_method_is_not_analysed_as_if_it_ran_once_at_sc_start() {
    // detect() runs on every change of `level`; `prev` and the signal's value at its
    // activation are what earlier activations and the kernel's updates left, not their
    // values at sc_start. `edge_detector 10` reaches the notify. (A corpus design.)
    let (out, code, stdout, stderr) = syncmut("gen", "../../corpus/systemc/edge_detector.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    assert_ne!(
        sites[1]["verdict"]["verdict"], "unreachable",
        "{}",
        sites[1]
    );
    assert!(
        sites[1]["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("when the SC_METHOD edge_detector::detect starts")),
        "{}",
        sites[1]
    );
    // `prev` is written by detect() alone: its first activation sees the constructor's
    // 0, which the solver tries first, so the test found reaches the notify when run.
    assert!(stdout.contains("reach rate: 2 of 2 sites"), "{stdout}");
}

#[test]
fn a_port_call_reaches_the_channel_bound_during_elaboration() {
    // The filter's `regs` port is bound to the register file in the top module's
    // constructor; `regs->capacity()` returns the register file's argv-set limit and
    // `regs->store()` is the only way to its mutex. Each virtual call resolves to the
    // bound object's own method (not every method of that vtable slot).
    let (out, code, stdout, stderr) = syncmut("gen", "bound_ports.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let sites: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("sites.json")).unwrap()).unwrap();
    for site in sites.as_array().unwrap() {
        assert_ne!(site["verdict"]["verdict"], "unknown", "{site}");
    }
    for k in [0, 1] {
        let limit: i64 = sites[k]["verdict"]["args"][1]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(limit > 6, "{}", sites[k]["verdict"]);
        let notes = sites[k]["notes"].as_array().unwrap();
        assert!(
            notes
                .iter()
                .any(|n| n.as_str().unwrap().contains(
                    "the port bound at bound_ports.cpp:91 calls the interface given there"
                )),
            "{notes:?}"
        );
        assert!(
            !notes
                .iter()
                .any(|n| n.as_str().unwrap().contains("may reach")),
            "{notes:?}"
        );
    }
    // The value read through the sc_in after `wait` is the kernel's to update: left
    // free, so the notify's candidate is a guess its run does not confirm.
    assert!(
        stdout.contains("overflow.notify") && stdout.contains("NOT confirmed by execution"),
        "{stdout}"
    );
    assert!(
        stdout.contains("reach rate: 4 of 5 sites not proven unreachable (80%)"),
        "{stdout}"
    );
}

#[test]
fn a_member_read_after_a_notify_keeps_its_value() {
    // `post()` notifies, then reads `cancel`: a SystemC process keeps running until it
    // waits, so the value is the constructor's, set from `strcmp(argv[2], "cancel")`.
    // (A corpus design.)
    let (out, code, stdout, stderr) =
        syncmut("gen", "../../corpus/systemc/delayed_notify.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    assert_eq!(verdicts[2]["args"][1], "cancel", "{}", verdicts[2]);
    assert!(
        stdout.contains("reach rate: 5 of 5 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn a_value_the_constructor_stores_in_a_member_is_what_the_clocked_thread_reads() {
    // argv[1] → atoi → the constructor's `limit` → `this->threshold`, read by the
    // SC_CTHREAD after its first wait; sc_main binds the clock port in between, which
    // changes only the port.
    let (out, code, stdout, stderr) = syncmut("gen", "ctor_member.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    assert_eq!(verdicts[1]["verdict"], "test-found", "{stdout}");
    assert_eq!(verdicts[1]["args"][0], "4242", "{}", verdicts[1]);
    assert!(!stdout.contains("NOT confirmed"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 2 of 2 sites not proven unreachable (100%)"),
        "{stdout}"
    );
    // With no tests file, run generates that input and removing the write is seen.
    let (_out, code, stdout, stderr) = syncmut("run", "ctor_member.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let remove = stdout
        .lines()
        .find(|l| l.starts_with("gate::watch#2:remove "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        remove.contains("ctor_member.cpp:19")
            && remove.contains("killed-by-output")
            && remove.contains("wp0_4242"),
        "{remove}"
    );
}

#[test]
fn members_an_in_class_constructor_sets_reach_a_thread_and_a_method() {
    // The thread needs mode + bias == 80 where sc_main sets bias to 3 after the
    // constructor's 0 (mode is 77, not 80); the method needs budget == 9.
    let (out, code, stdout, stderr) = syncmut("gen", "ctor_member_inline.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    for k in [1, 2] {
        assert_eq!(verdicts[k]["args"][0], "77", "{}", verdicts[k]);
    }
    assert_eq!(verdicts[3]["args"][1], "9", "{}", verdicts[3]);
    assert!(!stdout.contains("NOT confirmed"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 4 of 4 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}

#[test]
fn a_member_another_process_stores_before_the_reader_starts_is_not_the_constructors() {
    // The constructor's 0 would make the lock dead; the writer runs first and stores 5.
    let (out, code, stdout, stderr) = syncmut("gen", "ctor_member_race.cpp", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let verdicts = site_verdicts(&out);
    for k in [1, 2] {
        assert_eq!(verdicts[k]["verdict"], "test-found", "{stdout}");
    }
    assert!(!stdout.contains("NOT confirmed"), "{stdout}");
    assert!(
        stdout.contains("reach rate: 3 of 3 sites not proven unreachable (100%)"),
        "{stdout}"
    );
}
