//! One execution of a design binary, contained: its own process group (killed whole on
//! timeout and afterwards, so no child outlives the run), a memory limit, stdin from
//! `/dev/null` or a file, a working directory ([`Place`]), and both output streams kept
//! whole ([`Output`]: counted and hashed to the last byte, only a head in memory, so a
//! flooding mutant cannot exhaust syncmut's memory).
//!
//! The design never runs as syncmut's direct child: a supervisor process (a fork of
//! syncmut that never execs, see `supervise`) sits in between. A mutant that signals
//! its parent (`kill(getppid(), SIGTERM)`) hits the supervisor, which ignores every
//! signal it can; syncmut itself is out of reach of `getppid()`. The supervisor reports
//! the design's exact wait status to syncmut through a pipe.

use crate::output::Output;
use crate::streams::Streams;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// Resource bounds of one execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall time before the run's process group is killed.
    pub timeout: Duration,
    /// Bytes of stdout and of stderr each written to disk for locating a difference; the
    /// rest is still counted and hashed ([`Output::SPOOL_LIMIT`] by default).
    pub output_spool: u64,
    /// Address-space limit in bytes (RLIMIT_AS); `u64::MAX` for none.
    pub memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        // AddressSanitizer reserves terabytes of shadow memory up front: a build linked
        // with the sanitizers (SYNCMUT_SANITIZE) cannot start under an address-space
        // limit, so it runs without one.
        let memory = if syncmut_runtime::sanitizers_requested() {
            u64::MAX
        } else {
            4 << 30
        };
        Limits {
            timeout: Duration::from_secs(10),
            output_spool: Output::SPOOL_LIMIT,
            memory,
        }
    }
}

/// How an execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "value")]
pub enum Status {
    /// Ended by `exit` with this status.
    Exited(i32),
    /// Killed by this signal.
    Signaled(i32),
    /// Still running at the timeout, and killed.
    TimedOut,
}

impl std::fmt::Display for Status {
    /// In words, as reasons and tables show it: `exit 3`, `killed by SIGABRT (signal 6)`,
    /// `timed out`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Exited(code) => write!(f, "exit {code}"),
            Status::Signaled(signal) => match signal_name(*signal) {
                "signal" => write!(f, "killed by signal {signal}"),
                name => write!(f, "killed by {name} (signal {signal})"),
            },
            Status::TimedOut => f.write_str("timed out"),
        }
    }
}

/// The conventional name of a signal (`SIGSEGV`), or `signal` for a rare one.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGINT => "SIGINT",
        libc::SIGHUP => "SIGHUP",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        _ => "signal",
    }
}

/// What an execution produced.
#[derive(Debug, Clone)]
pub struct Execution {
    /// How the run ended.
    pub status: Status,
    /// Its standard output, counted, hashed and kept up to the limit.
    pub stdout: Output,
    /// Its standard error, as stdout.
    pub stderr: Output,
    /// Wall time from start to end.
    pub elapsed: Duration,
    /// The test's `outputs` files as the run left them (filled in by
    /// [`crate::Invocation::run`]; empty for a bare execution).
    pub outputs: std::collections::BTreeMap<String, Option<crate::workdir::OutputFile>>,
}

/// Where an execution runs: its working directory and the file its stdin reads
/// (`None`: syncmut's own working directory, and `/dev/null`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Place<'a> {
    /// The working directory.
    pub cwd: Option<&'a Path>,
    /// The file standard input reads.
    pub stdin: Option<&'a Path>,
}

/// Time given to a process between SIGTERM (the runtime flushes its trace) and SIGKILL.
pub(crate) const TERM_GRACE: Duration = Duration::from_millis(300);

/// Runs `program args` with `env` added, within `limits`.
pub fn execute(
    program: &Path,
    args: &[String],
    env: &[(&str, String)],
    limits: &Limits,
) -> std::io::Result<Execution> {
    execute_in(program, args, env, limits, Place::default())
}

/// [`execute`] in a working directory, with stdin read from a file.
pub fn execute_in(
    program: &Path,
    args: &[String],
    env: &[(&str, String)],
    limits: &Limits,
    place: Place,
) -> std::io::Result<Execution> {
    // A start that fails for lack of processes or memory is retried with a growing pause
    // (50 ms … 1.6 s, about 3 s in all): another execution running beside this one,
    // such as a mutant that forks without end, may hold them only for its few seconds,
    // and a verdict must not depend on what ran beside it.
    let mut pause = Duration::from_millis(50);
    loop {
        match execute_once(program, args, env, limits, place) {
            Err(e) if is_transient(&e) && pause <= Duration::from_millis(1600) => {
                std::thread::sleep(pause);
                pause *= 2;
            }
            result => return result,
        }
    }
}

/// Failures to start that another execution's end may cure.
fn is_transient(error: &std::io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EAGAIN | libc::ENOMEM))
}

fn execute_once(
    program: &Path,
    args: &[String],
    env: &[(&str, String)],
    limits: &Limits,
    place: Place,
) -> std::io::Result<Execution> {
    let stdin = match place.stdin {
        Some(path) => Stdio::from(std::fs::File::open(path).map_err(|e| {
            std::io::Error::new(e.kind(), format!("stdin {}: {e}", path.display()))
        })?),
        None => Stdio::null(),
    };
    let mut cmd = Command::new(program);
    if let Some(cwd) = place.cwd {
        cmd.current_dir(cwd);
    }
    for var in syncmut_runtime::env::PER_RUN {
        cmd.env_remove(var);
    }
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        // The SystemC banner is noise in every output comparison.
        .env("SC_COPYRIGHT_MESSAGE", "DISABLE")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let (report_read, report_write) = report_pipe()?;
    let report_fd = report_write.as_raw_fd();
    let memory = limits.memory;
    // SAFETY: `supervise` makes only async-signal-safe system calls and never returns
    // in the supervisor; see its comment.
    unsafe {
        cmd.pre_exec(move || supervise(memory, report_fd));
    }
    become_subreaper();
    let start = Instant::now();
    // Registered before anyone can sweep, so a concurrent sweep never takes it for an
    // orphan.
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let spawned = cmd.spawn();
    // Only the supervisor may hold the write end, or a dead supervisor's report would
    // look unfinished forever.
    drop(report_write);
    let mut child = spawned?;
    let pgid = child.id() as libc::pid_t;
    live.insert(pgid);
    drop(live);
    let spool = limits.output_spool;
    let streams = Streams::new(
        child.stdout.take().expect("piped stdout").into(),
        child.stderr.take().expect("piped stderr").into(),
        spool,
    )
    .finish_on_thread();

    let status = match child.wait_timeout(limits.timeout)? {
        Some(supervisor) => design_status(&report_read, supervisor),
        None => {
            kill_group(pgid, libc::SIGTERM);
            if child.wait_timeout(TERM_GRACE)?.is_none() {
                kill_group(pgid, libc::SIGKILL);
                child.wait()?;
            }
            Status::TimedOut
        }
    };
    let elapsed = start.elapsed();
    // Children the design forked must not outlive the run (nor keep our pipes open).
    kill_group(pgid, libc::SIGKILL);
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).remove(&pgid);
    sweep_orphans();
    let (stdout, stderr) = streams.join().unwrap_or_default();
    Ok(Execution {
        status,
        stdout,
        stderr,
        elapsed,
        outputs: Default::default(),
    })
}

/// The pipe the supervisor reports on: the design's pid (4 bytes), then its wait status
/// (4 bytes) once it has ended. Both ends close on exec; the read end is non-blocking
/// because it is read only after the supervisor has ended.
fn report_pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two fresh descriptors, which we own from here on.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let pipe = (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]));
        libc::fcntl(fds[0], libc::F_SETFL, libc::O_NONBLOCK);
        Ok(pipe)
    }
}

/// Runs in the child `Command::spawn` forked, before exec. It forks again: the new
/// process (the design) returns and goes on to exec; this one (the supervisor) stays
/// here for good, waits for the design and reports how it ended.
///
/// The supervisor is the design's parent, so a design that signals `getppid()` signals
/// the supervisor, which ignores everything but SIGKILL and SIGSTOP. A SIGKILL ends the
/// supervisor, and `PR_SET_PDEATHSIG` then ends the design with SIGKILL, which is what
/// syncmut reports. The supervisor closes every descriptor it inherited except the
/// report pipe, which is also how `spawn` learns that "exec" happened.
///
/// Only raw system calls run here: the parent is multithreaded, so any lock (malloc's,
/// stdio's) may be held by a thread that does not exist in this copy. That is also why
/// the second fork is the raw `clone` system call and not glibc's `fork`, whose atfork
/// handlers take locks.
fn supervise(memory: u64, report: libc::c_int) -> std::io::Result<()> {
    // SAFETY: async-signal-safe system calls on this process only.
    unsafe {
        let supervisor = libc::getpid();
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut before: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        // Blocked until the dispositions are set, so no signal lands in between.
        libc::sigprocmask(libc::SIG_SETMASK, &all, &mut before);
        // The design waits on this pipe until the supervisor has closed its write end
        // (with every other inherited descriptor, below): see `close_all_but`'s call.
        let mut started = [0; 2];
        if libc::pipe2(started.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            let error = std::io::Error::last_os_error();
            libc::sigprocmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
            return Err(error);
        }
        let pid = libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_long, 0, 0, 0, 0)
            as libc::pid_t;
        if pid < 0 {
            let error = std::io::Error::last_os_error();
            libc::sigprocmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
            return Err(error);
        }
        if pid == 0 {
            // The design. If syncmut or the supervisor dies (kill -9, CI cancel), the
            // design dies too instead of hanging on as an orphan nobody times out.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != supervisor {
                libc::_exit(127);
            }
            // End of file once the supervisor closed its copy of the write end (or died).
            libc::close(started[1]);
            let mut byte = 0u8;
            while libc::read(started[0], (&mut byte as *mut u8).cast(), 1) < 0
                && *libc::__errno_location() == libc::EINTR
            {}
            libc::close(started[0]);
            libc::sigprocmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
            let limit = libc::rlimit {
                rlim_cur: memory,
                rlim_max: memory,
            };
            if memory != u64::MAX && libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            return Ok(());
        }
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        // First, so `spawn` returns (and the run's timeout starts) at once: a design that
        // stops its parent (SIGSTOP cannot be ignored) before the supervisor closed its
        // copy of `spawn`'s exec pipe would leave syncmut waiting in `spawn`, with no
        // timeout to end the run. The design does not start before this close (it
        // waits for the end of `started`), whatever the machine's load.
        close_all_but(report);
        write_all(report, &pid.to_ne_bytes());
        for signal in 1..=libc::SIGRTMAX() {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                // SIGCHLD keeps its default (ignoring it would auto-reap the design),
                // but not a handler inherited from syncmut.
                libc::signal(
                    signal,
                    if signal == libc::SIGCHLD {
                        libc::SIG_DFL
                    } else {
                        libc::SIG_IGN
                    },
                );
            }
        }
        libc::sigprocmask(libc::SIG_SETMASK, &before, std::ptr::null_mut());
        let mut status = 0;
        loop {
            let r = libc::waitpid(pid, &mut status, 0);
            if r == pid {
                break;
            }
            if r < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(1);
            }
        }
        write_all(report, &status.to_ne_bytes());
        libc::_exit(0);
    }
}

/// Writes a few bytes to a pipe (atomic below PIPE_BUF) from the supervisor.
unsafe fn write_all(fd: libc::c_int, bytes: &[u8]) {
    // SAFETY: `bytes` is a live slice; errno is this thread's own.
    unsafe {
        while libc::write(fd, bytes.as_ptr().cast(), bytes.len()) < 0
            && *libc::__errno_location() == libc::EINTR
        {}
    }
}

/// Closes every descriptor but `keep` in the supervisor.
unsafe fn close_all_but(keep: libc::c_int) {
    let keep = keep as libc::c_uint;
    // SAFETY: the supervisor is single-threaded after fork and owns every descriptor
    // it closes; `limit` is plain data that getrlimit fills.
    unsafe {
        if libc::close_range(0, keep - 1, 0) == 0
            && libc::close_range(keep + 1, libc::c_uint::MAX, 0) == 0
        {
            return;
        }
        // Kernels before 5.9 lack close_range.
        let mut limit: libc::rlimit = std::mem::zeroed();
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        for fd in 0..limit.rlim_cur.min(1 << 16) as libc::c_uint {
            if fd != keep {
                libc::close(fd as libc::c_int);
            }
        }
    }
}

/// The design's status from the supervisor's report. Without a final status the
/// supervisor was killed (a SIGKILL from the design, or the OOM killer), and the design
/// died with it of SIGKILL (`PR_SET_PDEATHSIG`). Without even a pid, the supervisor
/// failed before starting the design: its own status is all there is.
fn design_status(report: &OwnedFd, supervisor: std::process::ExitStatus) -> Status {
    let mut bytes = [0u8; 8];
    let mut got = 0;
    while got < bytes.len() {
        // SAFETY: reads into the unfilled rest of `bytes` from a descriptor we own.
        let n = unsafe {
            libc::read(
                report.as_raw_fd(),
                bytes[got..].as_mut_ptr().cast(),
                bytes.len() - got,
            )
        };
        if n <= 0 {
            break;
        }
        got += n as usize;
    }
    match got {
        8 => {
            let raw = i32::from_ne_bytes(bytes[4..].try_into().expect("4 bytes"));
            status_of(std::process::ExitStatus::from_raw(raw))
        }
        4 => Status::Signaled(libc::SIGKILL),
        _ => status_of(supervisor),
    }
}

/// Pids of the design processes being run right now (by any worker thread).
static LIVE: std::sync::Mutex<std::collections::BTreeSet<libc::pid_t>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Makes syncmut the reaper of its descendants' orphans: a design that forks a child
/// into a new session (out of reach of the process-group kill) and exits leaves that
/// child to us instead of to init, so `sweep_orphans` can end it.
pub(crate) fn become_subreaper() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: prctl on the calling process only.
    ONCE.call_once(|| unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
    });
}

/// Kills and reaps every child of syncmut that is not a design being run: orphans
/// that escaped their run's process group.
pub(crate) fn sweep_orphans() {
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    for pid in children() {
        if live.contains(&pid) || !is_orphan_candidate(pid) {
            continue;
        }
        // SAFETY: plain syscalls on a pid that is our child, so it cannot be reused
        // before we reap it.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
    }
}

/// syncmut's children: listed per thread by the kernel (`/proc/<pid>/task/<tid>/children`,
/// a few reads, as a sweep runs after every run), or else found by reading the parent of
/// every process on the machine.
fn children() -> Vec<libc::pid_t> {
    let me = std::process::id() as libc::pid_t;
    let parse = |text: &str| {
        text.split_whitespace()
            .filter_map(|n| n.parse().ok())
            .collect::<Vec<libc::pid_t>>()
    };
    let task = format!("/proc/{me}/task");
    if std::path::Path::new(&format!("{task}/{me}/children")).exists() {
        let Ok(threads) = std::fs::read_dir(&task) else {
            return Vec::new();
        };
        return threads
            .flatten()
            .flat_map(|thread| {
                parse(&std::fs::read_to_string(thread.path().join("children")).unwrap_or_default())
            })
            .collect();
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<libc::pid_t>().ok())
        })
        .filter(|pid| parent_of(*pid) == Some(me))
        .collect()
}

/// Kills every process syncmut started and still has (clang, the SMT solver, the
/// supervisors of running executions and the designs under them), each with its process
/// group when that group is not syncmut's own: what an interrupted syncmut does before
/// it exits, so nothing it started goes on writing into the run directory.
pub fn kill_children() {
    let me = std::process::id() as libc::pid_t;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    // SAFETY: getpgrp is a plain query.
    let ours = unsafe { libc::getpgrp() };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        if parent_of(pid) != Some(me) {
            continue;
        }
        // SAFETY: plain syscalls on our own child, which cannot be reused before it is
        // reaped (it is not: syncmut exits next).
        unsafe {
            let group = libc::getpgid(pid);
            if group > 0 && group != ours {
                libc::kill(-group, libc::SIGKILL);
            }
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

/// `NAME=1` in the environment of a helper process syncmut starts in a session of its
/// own (the SMT solver, so its watchdog can kill the solver's whole group): the sweep
/// leaves it alone. Without it, a run ending while a solver works would kill the solver.
pub const HELPER_MARKER: (&str, &str) = (syncmut_runtime::env::HELPER_PROCESS, "1");

/// Children syncmut starts for other purposes stay in syncmut's own process group (clang)
/// or carry `HELPER_MARKER` (the solver); an adopted orphan of a design is in its run's
/// group or a new session.
fn is_orphan_candidate(pid: libc::pid_t) -> bool {
    // SAFETY: getpgid/getpgrp are plain queries.
    let (theirs, ours) = unsafe { (libc::getpgid(pid), libc::getpgrp()) };
    theirs > 0 && theirs != ours && !is_helper(pid)
}

fn is_helper(pid: libc::pid_t) -> bool {
    let marker = format!("{}={}", HELPER_MARKER.0, HELPER_MARKER.1);
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|env| env.split(|b| *b == 0).any(|var| var == marker.as_bytes()))
}

fn parent_of(pid: libc::pid_t) -> Option<libc::pid_t> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command name: state, ppid, …
    stat.rsplit(')')
        .next()?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

pub(crate) fn status_of(status: std::process::ExitStatus) -> Status {
    match (status.code(), status.signal()) {
        (Some(code), _) => Status::Exited(code),
        (None, Some(signal)) => Status::Signaled(signal),
        (None, None) => Status::Exited(-1),
    }
}

pub(crate) fn kill_group(pgid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: plain syscall; an already empty group yields ESRCH, which is fine.
    unsafe {
        libc::killpg(pgid, signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, limits: Limits) -> Execution {
        execute(
            Path::new("/bin/sh"),
            &["-c".to_string(), script.to_string()],
            &[],
            &limits,
        )
        .unwrap()
    }

    /// The orphan sweep after a run ends escaped design processes (children of syncmut
    /// in another session), but not a helper syncmut started in its own session (the
    /// solver) while designs run.
    #[test]
    fn the_orphan_sweep_spares_marked_helpers() {
        let start = |marked: bool| {
            let mut command = std::process::Command::new("setsid");
            command.args(["sleep", "30"]);
            if marked {
                command.env(HELPER_MARKER.0, HELPER_MARKER.1);
            }
            command.spawn().unwrap()
        };
        let (mut helper, mut stray) = (start(true), start(false));
        // setsid runs in the child's own session only once it has exec'd: wait for it.
        let in_own_session =
            |pid: u32| unsafe { libc::getsid(pid as libc::pid_t) } == pid as libc::pid_t;
        while !(in_own_session(helper.id()) && in_own_session(stray.id())) {
            std::thread::sleep(Duration::from_millis(5));
        }
        sh("true", Limits::default());
        assert!(
            matches!(helper.try_wait(), Ok(None)),
            "the marked helper was killed by the sweep"
        );
        // Killed and reaped by the sweep: no longer our child to wait for.
        assert!(
            !matches!(stray.try_wait(), Ok(None)),
            "the unmarked process in another session survived the sweep"
        );
        helper.kill().unwrap();
        helper.wait().unwrap();
    }

    #[test]
    fn exit_codes_signals_and_output_are_reported() {
        let run = sh("echo out; echo err >&2; exit 3", Limits::default());
        assert_eq!(run.status, Status::Exited(3));
        assert_eq!(run.stdout.text(), "out\n");
        assert_eq!(run.stderr.text(), "err\n");
        assert_eq!(
            sh("kill -SEGV $$", Limits::default()).status,
            Status::Signaled(libc::SIGSEGV)
        );
    }

    #[test]
    fn hangs_time_out_and_leave_no_process_behind() {
        let limits = Limits {
            timeout: Duration::from_millis(300),
            ..Limits::default()
        };
        let run = sh("sleep 30 & echo $! ; sleep 30", limits);
        assert_eq!(run.status, Status::TimedOut);
        let child: i32 = run.stdout.text().trim().parse().unwrap();
        std::thread::sleep(Duration::from_millis(100));
        // A killed child may linger as a zombie until init reaps it; that is not alive.
        let alive = std::fs::read_to_string(format!("/proc/{child}/stat"))
            .map(|stat| {
                !stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false);
        assert!(!alive, "background child {child} survived the timeout");
    }

    #[test]
    fn a_child_escaping_into_a_new_session_is_swept() {
        // The child leaves the run's process group (setsid) and outlives its parent.
        let run = sh("setsid sleep 30 & echo $!", Limits::default());
        assert_eq!(run.status, Status::Exited(0));
        let child: i32 = run.stdout.text().trim().parse().unwrap();
        std::thread::sleep(Duration::from_millis(100));
        execute(Path::new("/bin/true"), &[], &[], &Limits::default()).unwrap(); // sweeps again
        let alive = std::fs::read_to_string(format!("/proc/{child}/stat"))
            .map(|stat| {
                !stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false);
        assert!(!alive, "escaped child {child} survived");
    }

    #[test]
    fn signals_to_the_parent_reach_the_supervisor_not_syncmut() {
        // SIGTERM/SIGINT/SIGHUP to the parent are ignored by the supervisor: the
        // design goes on and its own exit status is reported.
        let run = sh(
            "kill -TERM $PPID; kill -INT $PPID; kill -HUP $PPID; sleep 0.1; echo alive; exit 4",
            Limits::default(),
        );
        assert_eq!(run.status, Status::Exited(4));
        assert_eq!(run.stdout.text(), "alive\n");
        // SIGKILL to the parent ends the supervisor, and the design with it.
        let run = sh(
            "kill -KILL $PPID; sleep 5; echo survived",
            Limits::default(),
        );
        assert_eq!(run.status, Status::Signaled(libc::SIGKILL));
        assert_eq!(run.stdout.text(), "");
        // SIGSTOP of the parent: the run still ends, at its timeout.
        let limits = Limits {
            timeout: Duration::from_millis(300),
            ..Limits::default()
        };
        assert_eq!(
            sh("kill -STOP $PPID; exit 0", limits).status,
            Status::TimedOut
        );
    }

    #[test]
    fn exact_statuses_pass_through_the_supervisor() {
        for (script, status) in [
            ("exit 0", Status::Exited(0)),
            ("exit 255", Status::Exited(255)),
            ("kill -ABRT $$", Status::Signaled(libc::SIGABRT)),
            ("kill -TERM $$", Status::Signaled(libc::SIGTERM)),
            ("kill -KILL $$", Status::Signaled(libc::SIGKILL)),
        ] {
            assert_eq!(sh(script, Limits::default()).status, status, "{script}");
        }
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let err = execute(
            Path::new("/nonexistent/design"),
            &[],
            &[],
            &Limits::default(),
        )
        .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn output_floods_are_counted_and_hashed_whole_past_the_spool_limit() {
        let limits = Limits {
            output_spool: 100_000,
            ..Limits::default()
        };
        let run = sh("yes | head -c 3000000", limits);
        assert_eq!(run.stdout.len, 3_000_000);
        assert_eq!(run.stdout.kept(), 100_000);
        assert_eq!(run.stdout.head().len(), crate::output::HEAD_BYTES);
        assert_eq!(run.stdout, Output::from_bytes(&b"y\n".repeat(1_500_000)));
        // One byte changed after 2 MB is a different output.
        let other = sh(
            "{ yes | head -c 2000001; printf x; yes | head -c 999998; }",
            limits,
        );
        assert_eq!(other.stdout.len, 3_000_000);
        assert_ne!(other.stdout, run.stdout);
    }

    #[test]
    fn stdout_and_stderr_are_kept_byte_exact() {
        let run = sh(
            "printf 'v \\200\\n'; printf 'e \\201' >&2",
            Limits::default(),
        );
        assert_eq!(run.stdout, Output::from_bytes(b"v \x80\n"));
        assert_eq!(run.stderr, Output::from_bytes(b"e \x81"));
    }
}
