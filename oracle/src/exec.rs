//! One execution of a design binary, contained: its own process group (killed whole on
//! timeout and afterwards, so no child outlives the run), a memory limit, no stdin, and
//! output capped so a flooding mutant cannot exhaust syncmut's memory.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// Resource bounds of one execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub timeout: Duration,
    /// Bytes kept of stdout and of stderr each; the rest is read and dropped.
    pub output_cap: usize,
    /// Address-space limit in bytes (RLIMIT_AS).
    pub memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { timeout: Duration::from_secs(10), output_cap: 1 << 20, memory: 4 << 30 }
    }
}

/// How an execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "value")]
pub enum Status {
    Exited(i32),
    Signaled(i32),
    TimedOut,
}

/// What an execution produced.
#[derive(Debug, Clone)]
pub struct Execution {
    pub status: Status,
    pub stdout: String,
    pub stderr: String,
    /// Output beyond `Limits::output_cap` was dropped.
    pub output_truncated: bool,
    pub elapsed: Duration,
}

/// Time given to a process between SIGTERM (the runtime flushes its trace) and SIGKILL.
const TERM_GRACE: Duration = Duration::from_millis(300);

/// Runs `program args` with `env` added, within `limits`.
pub fn execute(program: &Path, args: &[String], env: &[(&str, String)], limits: &Limits) -> std::io::Result<Execution> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        // The SystemC banner is noise in every output comparison.
        .env("SC_COPYRIGHT_MESSAGE", "DISABLE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let memory = limits.memory;
    // SAFETY: setrlimit and prctl are async-signal-safe and touch no state of this
    // process.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: memory, rlim_max: memory };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // If syncmut is killed (kill -9, CI cancel), its running design dies too
            // instead of hanging on as an orphan nobody times out.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    become_subreaper();
    let start = Instant::now();
    // Registered before anyone can sweep, so a concurrent sweep never takes it for an
    // orphan.
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let mut child = cmd.spawn()?;
    let pgid = child.id() as libc::pid_t;
    live.insert(pgid);
    drop(live);
    let cap = limits.output_cap;
    let stdout = capture(child.stdout.take().expect("piped stdout"), cap);
    let stderr = capture(child.stderr.take().expect("piped stderr"), cap);

    let status = match child.wait_timeout(limits.timeout)? {
        Some(status) => status_of(status),
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
    let (stdout, out_cut) = stdout.join().unwrap_or_default();
    let (stderr, err_cut) = stderr.join().unwrap_or_default();
    Ok(Execution { status, stdout, stderr, output_truncated: out_cut || err_cut, elapsed })
}

/// Pids of the design processes being run right now (by any worker thread).
static LIVE: std::sync::Mutex<std::collections::BTreeSet<libc::pid_t>> = std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Makes syncmut the reaper of its descendants' orphans: a design that forks a child
/// into a new session (out of reach of the process-group kill) and exits leaves that
/// child to us instead of to init, so `sweep_orphans` can end it.
fn become_subreaper() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: prctl on the calling process only.
    ONCE.call_once(|| unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
    });
}

/// Kills and reaps every child of syncmut that is not a design being run: orphans
/// that escaped their run's process group.
fn sweep_orphans() {
    let me = std::process::id() as libc::pid_t;
    let Ok(entries) = std::fs::read_dir("/proc") else { return };
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<libc::pid_t>().ok()) else { continue };
        if live.contains(&pid) || parent_of(pid) != Some(me) || !is_orphan_candidate(pid) {
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

/// Children syncmut starts for other purposes (clang, z3) stay in syncmut's own
/// process group; an adopted orphan of a design is in its run's group or a new session.
fn is_orphan_candidate(pid: libc::pid_t) -> bool {
    // SAFETY: getpgid/getpgrp are plain queries.
    let (theirs, ours) = unsafe { (libc::getpgid(pid), libc::getpgrp()) };
    theirs > 0 && theirs != ours
}

fn parent_of(pid: libc::pid_t) -> Option<libc::pid_t> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command name: state, ppid, …
    stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse().ok()
}

fn status_of(status: std::process::ExitStatus) -> Status {
    match (status.code(), status.signal()) {
        (Some(code), _) => Status::Exited(code),
        (None, Some(signal)) => Status::Signaled(signal),
        (None, None) => Status::Exited(-1),
    }
}

fn kill_group(pgid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: plain syscall; an already empty group yields ESRCH, which is fine.
    unsafe {
        libc::killpg(pgid, signal);
    }
}

/// Reads a pipe to its end on a thread, keeping the first `cap` bytes.
fn capture(mut pipe: impl Read + Send + 'static, cap: usize) -> std::thread::JoinHandle<(String, bool)> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut truncated = false;
        let mut chunk = [0u8; 8192];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len());
                    kept.extend_from_slice(&chunk[..n.min(room)]);
                    truncated |= n > room;
                }
            }
        }
        (String::from_utf8_lossy(&kept).into_owned(), truncated)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, limits: Limits) -> Execution {
        execute(Path::new("/bin/sh"), &["-c".to_string(), script.to_string()], &[], &limits).unwrap()
    }

    #[test]
    fn exit_codes_signals_and_output_are_reported() {
        let run = sh("echo out; echo err >&2; exit 3", Limits::default());
        assert_eq!(run.status, Status::Exited(3));
        assert_eq!(run.stdout, "out\n");
        assert_eq!(run.stderr, "err\n");
        assert_eq!(sh("kill -SEGV $$", Limits::default()).status, Status::Signaled(libc::SIGSEGV));
    }

    #[test]
    fn hangs_time_out_and_leave_no_process_behind() {
        let limits = Limits { timeout: Duration::from_millis(300), ..Limits::default() };
        let run = sh("sleep 30 & echo $! ; sleep 30", limits);
        assert_eq!(run.status, Status::TimedOut);
        let child: i32 = run.stdout.trim().parse().unwrap();
        std::thread::sleep(Duration::from_millis(100));
        // A killed child may linger as a zombie until init reaps it; that is not alive.
        let alive = std::fs::read_to_string(format!("/proc/{child}/stat"))
            .map(|stat| !stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
            .unwrap_or(false);
        assert!(!alive, "background child {child} survived the timeout");
    }

    #[test]
    fn a_child_escaping_into_a_new_session_is_swept() {
        // The child leaves the run's process group (setsid) and outlives its parent.
        let run = sh("setsid sleep 30 & echo $!", Limits::default());
        assert_eq!(run.status, Status::Exited(0));
        let child: i32 = run.stdout.trim().parse().unwrap();
        std::thread::sleep(Duration::from_millis(100));
        execute(Path::new("/bin/true"), &[], &[], &Limits::default()).unwrap(); // sweeps again
        let alive = std::fs::read_to_string(format!("/proc/{child}/stat"))
            .map(|stat| !stat.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
            .unwrap_or(false);
        assert!(!alive, "escaped child {child} survived");
    }

    #[test]
    fn output_floods_are_capped() {
        let limits = Limits { output_cap: 1000, ..Limits::default() };
        let run = sh("yes | head -c 100000", limits);
        assert_eq!(run.stdout.len(), 1000);
        assert!(run.output_truncated);
    }
}
