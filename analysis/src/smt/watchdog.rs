//! The watchdog over a solver process: it kills the solver's process group when a command
//! outlives its wall-clock limit (a hung solver would block easy-smt's read forever), and
//! tells a solver that died from one that answered garbage.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Kills the solver's process group when a command takes longer than its wall-clock
/// limit: a hung solver would otherwise block easy-smt's read forever.
pub(super) struct Watchdog {
    pub(super) pidfile: PathBuf,
    shared: Arc<(Mutex<Watch>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct Watch {
    deadline: Option<Instant>,
    fired: bool,
    stop: bool,
}

impl Watchdog {
    pub(super) fn new(pidfile: PathBuf) -> Watchdog {
        let shared = Arc::new((Mutex::new(Watch::default()), Condvar::new()));
        let (s, p) = (shared.clone(), pidfile.clone());
        let thread = std::thread::spawn(move || {
            let (lock, cv) = &*s;
            let mut w = lock.lock().expect("watchdog lock");
            while !w.stop {
                match w.deadline {
                    None => w = cv.wait(w).expect("watchdog lock"),
                    Some(d) if Instant::now() >= d => {
                        kill_group(&p);
                        w.fired = true;
                        w.deadline = None;
                    }
                    Some(d) => {
                        w = cv
                            .wait_timeout(w, d.saturating_duration_since(Instant::now()))
                            .expect("watchdog lock")
                            .0
                    }
                }
            }
        });
        Watchdog {
            pidfile,
            shared,
            thread: Some(thread),
        }
    }

    pub(super) fn arm(&self, wall: Duration) {
        let (lock, cv) = &*self.shared;
        let mut w = lock.lock().expect("watchdog lock");
        w.deadline = Some(Instant::now() + wall);
        w.fired = false;
        cv.notify_all();
    }

    /// Stops watching; whether the watchdog killed the solver meanwhile.
    pub(super) fn disarm(&self) -> bool {
        let (lock, _) = &*self.shared;
        let mut w = lock.lock().expect("watchdog lock");
        w.deadline = None;
        w.fired
    }

    /// Whether the solver process has exited (it stays a zombie until easy-smt reaps
    /// it, so its pid cannot be reused meanwhile). Waits briefly: a process that has
    /// just closed its output may still be exiting.
    pub(super) fn exited(&self) -> bool {
        let Some(pid) = read_pid(&self.pidfile) else {
            return true;
        };
        for _ in 0..50 {
            match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                Err(_) => return true,
                Ok(stat)
                    if stat
                        .rsplit_once(')')
                        .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])) =>
                {
                    return true
                }
                Ok(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        false
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        {
            let (lock, cv) = &*self.shared;
            lock.lock().expect("watchdog lock").stop = true;
            cv.notify_all();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn read_pid(pidfile: &Path) -> Option<i32> {
    std::fs::read_to_string(pidfile)
        .ok()?
        .trim()
        .parse()
        .ok()
        .filter(|p| *p > 1)
}

/// SIGKILL to the solver's process group and the solver. Safe against pid reuse: the
/// solver is our child and is not reaped before this runs.
pub(super) fn kill_group(pidfile: &Path) {
    if let Some(pid) = read_pid(pidfile) {
        // SAFETY: kill(2) with a pid we own; no memory is involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
            libc::kill(pid, libc::SIGKILL);
        }
    }
}
