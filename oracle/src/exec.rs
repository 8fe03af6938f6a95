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
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let pgid = child.id() as libc::pid_t;
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
    let (stdout, out_cut) = stdout.join().unwrap_or_default();
    let (stderr, err_cut) = stderr.join().unwrap_or_default();
    Ok(Execution { status, stdout, stderr, output_truncated: out_cut || err_cut, elapsed })
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
    fn output_floods_are_capped() {
        let limits = Limits { output_cap: 1000, ..Limits::default() };
        let run = sh("yes | head -c 100000", limits);
        assert_eq!(run.stdout.len(), 1000);
        assert!(run.output_truncated);
    }
}
