//! Output that cannot be written: a full disk (simulated with RLIMIT_FSIZE, which holds
//! for root too), a read-only output directory (a read-only bind mount in a private
//! mount namespace when running as root, file permissions otherwise) and an output path
//! under a regular file. Each gives exit 1 (docs/exit-codes.md) with a message naming
//! the file, and leaves every earlier file of the run directory as it was.

mod util;

use assert_cmd::cargo::cargo_bin;
use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture() -> PathBuf {
    util::fixture("verdicts/crash")
}

fn run_args(out: &Path) -> Command {
    let mut cmd = Command::new(cargo_bin("syncmut"));
    cmd.arg("run")
        .arg(fixture().join("crash.c"))
        .arg("--tests")
        .arg(fixture().join("tests.json"))
        .args(["--gen", "none", "-o"])
        .arg(out);
    cmd
}

/// A finished run directory to spoil.
fn finished_run() -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    let done = run_args(out.path()).output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let report = Command::new(cargo_bin("syncmut"))
        .arg("report")
        .arg(out.path())
        .args(["--format", "html", "-o"])
        .arg(out.path().join("report.html"))
        .output()
        .unwrap();
    assert!(report.status.success());
    out
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                files.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

fn check_failure(what: &str, output: &Output, names: &Path, because: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{what}: {stderr}");
    assert!(
        stderr.contains(&names.display().to_string()) && stderr.contains(because),
        "{what}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
}

#[test]
fn a_full_disk_fails_the_write_naming_the_file_and_keeps_the_earlier_report() {
    let out = finished_run();
    let before = snapshot(out.path());
    let target = out.path().join("report.html");
    let mut cmd = Command::new(cargo_bin("syncmut"));
    cmd.arg("report")
        .arg(out.path())
        .args(["--format", "html", "-o"])
        .arg(&target);
    // SAFETY: setrlimit and signal are async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            // Writes beyond 4 KiB fail with EFBIG, as they would with ENOSPC on a full
            // disk; SIGXFSZ would kill the process instead of failing the write.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 4096,
                rlim_max: 4096,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    assert!(
        before[&target].len() > 4096,
        "the report must be larger than the simulated disk"
    );
    check_failure(
        "full disk",
        &cmd.output().unwrap(),
        &target,
        "File too large",
    );
    assert!(
        snapshot(out.path()) == before,
        "a failed write changed the run directory (or left a temporary file)"
    );
}

#[test]
fn an_output_path_under_a_regular_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "not a directory").unwrap();
    let out = file.join("out");
    check_failure(
        "output under a file",
        &run_args(&out).output().unwrap(),
        &out,
        "Not a directory",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
}

/// Read-only for root too: a read-only bind mount of `dir` over itself, in a mount
/// namespace of the child's own. None when this process may not create one.
fn read_only_mount(cmd: &mut Command, dir: &Path) -> Option<()> {
    let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
    // Probe first, in a throwaway child, so the real command does not fail for a
    // reason other than the one tested.
    let probe = Command::new("/bin/true")
        .pre_exec_mount(path.clone())
        .status()
        .ok()?;
    if !probe.success() {
        return None;
    }
    cmd.pre_exec_mount(path);
    Some(())
}

trait PreExecMount {
    fn pre_exec_mount(&mut self, path: std::ffi::CString) -> &mut Self;
}

impl PreExecMount for Command {
    fn pre_exec_mount(&mut self, path: std::ffi::CString) -> &mut Self {
        // SAFETY: unshare and mount are plain system calls.
        unsafe {
            self.pre_exec(move || {
                let p = path.as_ptr();
                let (none, no_data) = (std::ptr::null(), std::ptr::null());
                let ok = libc::unshare(libc::CLONE_NEWNS) == 0
                    && libc::mount(
                        none,
                        c"/".as_ptr(),
                        none,
                        libc::MS_REC | libc::MS_PRIVATE,
                        no_data,
                    ) == 0
                    && libc::mount(p, p, none, libc::MS_BIND, no_data) == 0
                    && libc::mount(
                        none,
                        p,
                        none,
                        libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY,
                        no_data,
                    ) == 0;
                if ok {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            })
        }
    }
}

#[test]
fn a_read_only_output_directory_is_refused_naming_the_file_and_left_intact() {
    let out = finished_run();
    let before = snapshot(out.path());
    let root = unsafe { libc::geteuid() } == 0;
    let make_read_only = |cmd: &mut Command| -> bool {
        if root {
            read_only_mount(cmd, out.path()).is_some()
        } else {
            std::fs::set_permissions(
                out.path(),
                std::os::unix::fs::PermissionsExt::from_mode(0o555),
            )
            .unwrap();
            true
        }
    };
    let because = if root {
        "Read-only file system"
    } else {
        "Permission denied"
    };

    let mut resume = run_args(out.path());
    resume.arg("--resume");
    if !make_read_only(&mut resume) {
        eprintln!("skipped: running as root without the right to create a mount namespace, so no read-only directory can be made (chmod does not stop root)");
        return;
    }
    check_failure(
        "run --resume",
        &resume.output().unwrap(),
        &out.path().join("syncmut.lock"),
        because,
    );

    let target = out.path().join("report.html");
    let mut report = Command::new(cargo_bin("syncmut"));
    report
        .arg("report")
        .arg(out.path())
        .args(["--format", "html", "-o"])
        .arg(&target);
    assert!(make_read_only(&mut report));
    check_failure("report -o", &report.output().unwrap(), &target, because);

    if !root {
        std::fs::set_permissions(
            out.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
    }
    assert!(snapshot(out.path()) == before, "the run directory changed");
}

/// A copy of the fixture's design in a directory of its own.
fn design_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["crash.c", "tests.json"] {
        std::fs::copy(fixture().join(name), dir.path().join(name)).unwrap();
    }
    dir
}

fn run_on(design: &Path, out: &Path, extra: &[&str]) -> Output {
    Command::new(cargo_bin("syncmut"))
        .arg("run")
        .arg(design)
        .args(["--gen", "none", "-o"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn check_refused(what: &str, output: &Output, names: &str, because: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{what}: {stderr}");
    assert!(
        stderr.contains(names) && stderr.contains(because),
        "{what}: {stderr}"
    );
}

#[test]
fn a_directory_of_the_users_files_is_refused_as_output_and_left_untouched() {
    let design = design_copy();
    let before = snapshot(design.path());
    check_refused(
        "run DIR -o DIR",
        &run_on(design.path(), design.path(), &[]),
        &design.path().display().to_string(),
        "holds files syncmut did not write",
    );
    assert!(
        snapshot(design.path()) == before,
        "the design directory changed"
    );
}

#[test]
fn symbolic_links_in_the_run_directory_are_refused_and_their_targets_untouched() {
    let out = finished_run();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "the user's file").unwrap();
    std::fs::remove_file(out.path().join("design.bc")).unwrap();
    std::os::unix::fs::symlink(&victim, out.path().join("design.bc")).unwrap();
    check_refused(
        "symlinked file",
        &run_args(out.path()).output().unwrap(),
        "design.bc",
        "symbolic link",
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the user's file");

    std::fs::remove_file(out.path().join("design.bc")).unwrap();
    std::fs::rename(out.path().join("traces"), outside.path().join("traces")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("traces"), out.path().join("traces")).unwrap();
    let traces_before = snapshot(&outside.path().join("traces"));
    check_refused(
        "symlinked directory",
        &run_args(out.path()).output().unwrap(),
        "traces",
        "symbolic link",
    );
    assert!(
        snapshot(&outside.path().join("traces")) == traces_before,
        "files behind the link changed"
    );
}

#[test]
fn a_refused_resume_changes_nothing_in_the_run_directory() {
    let design = design_copy();
    let out = tempfile::tempdir().unwrap();
    assert!(run_on(design.path(), out.path(), &[]).status.success());
    let before = snapshot(out.path());
    // One more synchronization call: the catalogue differs.
    let source = design.path().join("crash.c");
    let text = std::fs::read_to_string(&source).unwrap().replace(
        "  pthread_join(t, NULL);\n",
        "  pthread_join(t, NULL);\n  pthread_mutex_lock(&m);\n  pthread_mutex_unlock(&m);\n",
    );
    std::fs::write(&source, text).unwrap();
    check_refused(
        "resume after a change",
        &run_on(design.path(), out.path(), &["--resume"]),
        "cannot resume",
        "differ",
    );
    assert!(
        snapshot(out.path()) == before,
        "a refused resume rebuilt files of the run directory"
    );
}

#[test]
fn result_files_get_the_permissions_of_created_files_not_private_ones() {
    use std::os::unix::fs::PermissionsExt;
    let out = finished_run();
    for name in ["outcomes.json", "mutants.json", "report.csv"] {
        let mode = std::fs::metadata(out.path().join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        // The test harness runs with a umask that lets others read (022 or 002).
        assert!(mode & 0o044 == 0o044, "{name}: mode {mode:o}");
    }
}

#[test]
fn a_resume_under_other_schedules_redoes_the_runs_instead_of_reusing_them() {
    let out = finished_run();
    let mut resume = run_args(out.path());
    // Without runs with real threads, each run's count is the seeded schedules alone.
    resume.args(["--resume", "--schedules", "3", "--native", "0"]);
    let output = resume.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("its runs are redone"));
    let outcomes = util::outcomes(out.path());
    for mutant in outcomes["mutants"].as_array().unwrap() {
        for run in mutant["runs"].as_array().unwrap() {
            assert_eq!(run["schedules"], 3, "{run}");
        }
    }
}

/// A tmpfs of `bytes` mounted over `dir` in a mount namespace of the child's own (so it
/// needs no cleanup). None when this process may not create one.
fn small_disk(cmd: &mut Command, dir: &Path, bytes: u64) -> Option<()> {
    let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
    let options = std::ffi::CString::new(format!("size={bytes}")).unwrap();
    let mount_tmpfs =
        move |path: &std::ffi::CString, options: &std::ffi::CString| -> std::io::Result<()> {
            let none = std::ptr::null();
            // SAFETY: unshare and mount are plain system calls on valid C strings.
            let ok = unsafe {
                libc::unshare(libc::CLONE_NEWNS) == 0
                    && libc::mount(
                        none,
                        c"/".as_ptr(),
                        none,
                        libc::MS_REC | libc::MS_PRIVATE,
                        std::ptr::null(),
                    ) == 0
                    && libc::mount(
                        c"tmpfs".as_ptr(),
                        path.as_ptr(),
                        c"tmpfs".as_ptr(),
                        0,
                        options.as_ptr().cast(),
                    ) == 0
            };
            if ok {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        };
    let (probe_path, probe_options) = (path.clone(), options.clone());
    // SAFETY: the closure makes only system calls.
    let probe = unsafe {
        Command::new("/bin/true")
            .pre_exec(move || mount_tmpfs(&probe_path, &probe_options))
            .status()
            .ok()?
    };
    if !probe.success() {
        return None;
    }
    // SAFETY: as above.
    unsafe {
        cmd.pre_exec(move || mount_tmpfs(&path, &options));
    }
    Some(())
}

#[test]
fn a_disk_that_fills_up_during_the_runs_stops_the_run_instead_of_giving_error_verdicts() {
    // The livelocking mutants' traces (while they run and are kept) do not fit in 2 MB:
    // on this fixture the run stops with up to 2.5 MB and not with 3 MB. The build and
    // the baseline (the runtime archives are linked from the build cache, not copied into
    // the run directory) do: they fit in 1.5 MB.
    let out = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(cargo_bin("syncmut"));
    cmd.arg("run")
        .arg(util::fixture("verdicts/sc_livelock"))
        .args(["--gen", "none", "-j", "1", "-o"])
        .arg(out.path());
    if small_disk(&mut cmd, out.path(), 2048 << 10).is_none() {
        eprintln!("skipped: no right to create a mount namespace, so no small disk can be made");
        return;
    }
    let output = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("baseline: 1 tests done"),
        "the disk filled up before the mutants ran: {stderr}"
    );
    assert!(
        stderr.contains("the machine failed the run, not the design")
            && stderr.contains("--resume"),
        "{stderr}"
    );
}

/// `report -o` never replaces the results it reads: a path naming one of the run
/// directory's result files, or anything below it (through `..` too), is refused with
/// exit 2 and the directory is left as it was; a new report beside the results is fine.
#[test]
fn a_report_is_never_written_over_the_results_it_reads() {
    let out = finished_run();
    let before = snapshot(out.path());
    for target in [
        out.path().join("outcomes.json"),
        out.path().join("mutants.json"),
        out.path().join("traces").join("r.csv"),
        out.path().join("traces/../baseline.json"),
    ] {
        let report = Command::new(cargo_bin("syncmut"))
            .arg("report")
            .arg(out.path())
            .args(["--format", "csv", "-o"])
            .arg(&target)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&report.stderr);
        assert_eq!(
            report.status.code(),
            Some(2),
            "{}: {stderr}",
            target.display()
        );
        assert!(stderr.contains("inside the run directory"), "{stderr}");
    }
    assert_eq!(snapshot(out.path()), before);
    let beside = Command::new(cargo_bin("syncmut"))
        .arg("report")
        .arg(out.path())
        .args(["--format", "junit", "-o"])
        .arg(out.path().join("junit.xml"))
        .output()
        .unwrap();
    assert!(beside.status.success());
}
