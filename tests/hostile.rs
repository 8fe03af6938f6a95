//! Mutants that misbehave (fork into a new session, flood stdout, eat memory, close
//! stdout, crash, signal their parent, leave their process group, spawn thousands of
//! threads) get a verdict; syncmut finishes normally and leaves no process behind.

mod util;

use std::path::PathBuf;

fn fixture() -> PathBuf {
    util::fixture("hostile/hostile.c")
}

/// The verdict and reason of the mutant that removes the join, which makes `main`
/// misbehave as `act` says (see the fixture), and the run's output directory.
fn verdict_with(act: u32) -> (String, String, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let tests = fixture().with_file_name("tests.json");
    util::syncmut()
        .arg("run")
        .arg(fixture())
        .arg("--tests")
        .arg(&tests)
        .args(["--gen", "none", "-o"])
        .arg(out.path())
        .arg("--")
        .arg(format!("-DACT={act}"))
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .success();
    let outcomes = util::outcomes(out.path());
    let m = outcomes["mutants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mutant"] == "main#1:remove")
        .unwrap();
    (
        m["verdict"].as_str().unwrap().to_string(),
        m["reason"].as_str().unwrap_or_default().to_string(),
        out,
    )
}

/// Processes of these runs still alive: the designs (`<out>/metamutant`, `<out>/original`)
/// and their supervisors (forks of syncmut, whose command line holds `-o <out>`).
/// Zombies are dead and not counted.
fn leftovers(outs: &[tempfile::TempDir]) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let zombie = std::fs::read_to_string(entry.path().join("stat"))
            .map(|stat| {
                stat.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(true);
        if !zombie
            && outs
                .iter()
                .any(|out| text.contains(out.path().to_str().unwrap()))
        {
            found.push(text);
        }
    }
    found
}

#[test]
fn misbehaving_mutants_get_verdicts_and_leave_nothing_behind() {
    let mut outs = Vec::new();
    let mut verdict = |act| {
        let (verdict, reason, out) = verdict_with(act);
        outs.push(out);
        (verdict, reason)
    };
    assert_eq!(verdict(1).0, "killed-by-output"); // forks a sleeper into a new session
    assert_eq!(verdict(2).0, "killed-by-timeout"); // flood: capped, then timed out
    assert_eq!(verdict(3).0, "killed-by-crash"); // malloc fails under the memory limit
    assert_eq!(verdict(4).0, "killed-by-output"); // closed stdout
    assert_eq!(verdict(5).0, "killed-by-crash");
    // SIGTERM/SIGINT/SIGHUP to the parent reach the supervisor, which ignores them; the
    // mutant goes on and prints what it prints. syncmut was not hit (it exited 0).
    assert_eq!(verdict(6).0, "killed-by-output");
    // SIGKILL to the parent kills the supervisor, and the mutant dies with it.
    let (verdict7, reason) = verdict(7);
    assert_eq!(verdict7, "killed-by-crash");
    assert!(reason.contains("signal 9"), "{reason}");
    // A new session of its own takes the mutant out of the run's process group; the
    // supervisor's death still takes it down at the timeout.
    assert_eq!(verdict(8).0, "killed-by-timeout");
    // Thousands of threads: the scheduler ends the run at the 1025th (runtime status 124).
    let (verdict9, reason) = verdict(9);
    assert_eq!(verdict9, "killed-by-crash");
    assert!(reason.contains("more than 1024 threads"), "{reason}");
    // Thousands of threads through a function pointer (the runtime's pthread_create
    // still schedules them): the memory limit refuses one first (EAGAIN), and the
    // scheduler ends the run at its thread limit there too, rather than handing EAGAIN
    // back to a program that might retry forever.
    assert_eq!(verdict(10).0, "killed-by-crash");
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(leftovers(&outs), Vec::<String>::new());
}
