//! Many runs of one program from one process: the fork server (`fork_server.c`).
//!
//! A search runs the same binary with the same arguments under hundreds of schedules;
//! exec'ing it for each run pays the kernel's exec and the dynamic linking of libc, libm
//! and libstdc++ every time. A [`ForkServer`] starts the program once with
//! `SYNCMUT_FORK_SERVER` set; the runtime's first constructor then waits for requests
//! before anything reads a per-run setting, and forks one child per run, which applies
//! the run's `SYNCMUT_*` variables, working directory, stdin, stdout, stderr and memory
//! limit, and goes on to `main`.
//!
//! Each run keeps what [`exec`] guarantees: its own process group, killed whole at its
//! timeout (SIGTERM, then SIGKILL) and afterwards; the memory limit; both output
//! streams captured whole; the design's exact wait status; a parent (the server) that
//! takes no action on the signals a design may send it (it blocks them). Runs go by plain exec instead when
//! `SYNCMUT_NO_FORK_SERVER=1`, and for the rest of the search when the server cannot
//! start (the program ends before its runtime's first constructor, or has no runtime)
//! or dies: [`ForkServer::fallback`] says why.

use crate::exec::{self, Execution, Limits, Place, Status};
use crate::streams::Streams;
use crate::workdir::Workdir;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server's greeting once it waits for requests.
const HELLO: &[u8; 4] = b"SMFS";
/// The dynamic linker's variable for resolving every symbol at start-up.
const BIND_NOW: &str = "LD_BIND_NOW";
/// Largest request the server reads (its buffer, in `fork_server.c`).
const MAX_REQUEST: usize = (1 << 17) - 1;
/// How long a killed run's status may take to come back before the server is taken for
/// stuck (stopped by the design, say) and the search goes on by exec.
const KILLED_STATUS_WAIT: Duration = Duration::from_secs(5);

/// The setting: true unless `SYNCMUT_NO_FORK_SERVER=1`.
pub fn enabled() -> bool {
    std::env::var(syncmut_runtime::env::NO_FORK_SERVER).map_or(true, |v| v != "1")
}

/// The runs of one search: through a server while it works, else by exec.
#[derive(Default)]
pub struct ForkServer {
    server: Option<Server>,
    /// Why runs go by exec from now on; `Some` also when the setting turned servers off.
    fallback: Option<String>,
    /// The last run's working directory, for the next run if it left it as made
    /// ([`Workdir::reuse_or_create`]).
    spare_workdir: Option<Workdir>,
}

/// A running server and what it runs.
struct Server {
    program: PathBuf,
    args: Vec<String>,
    /// The variables other than `SYNCMUT_*` it was started with (a test's `env`).
    base_env: Vec<(String, String)>,
    process: Child,
    socket: OwnedFd,
}

impl ForkServer {
    /// A fork server for a search, started on its first run.
    pub fn new() -> ForkServer {
        ForkServer::default()
    }

    /// Every run by plain exec, as the setting asks ([`enabled`] false).
    pub fn exec_only() -> ForkServer {
        ForkServer {
            fallback: Some("fork servers are turned off".to_string()),
            ..ForkServer::default()
        }
    }

    /// Why the search's runs went by exec (the setting, or a server that could not
    /// start or died), if they did.
    pub fn fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    /// The working directory for a run of this search: the last run's when it can serve
    /// again, else a fresh one. Hand it back with [`ForkServer::return_workdir`].
    pub fn take_workdir(
        &mut self,
        parent: Option<&Path>,
        setting: &crate::test_case::Setting,
    ) -> std::io::Result<Workdir> {
        Workdir::reuse_or_create(self.spare_workdir.take(), parent, setting)
    }

    /// Keeps a run's working directory for the next run (the one kept before is removed).
    pub fn return_workdir(&mut self, workdir: Workdir) {
        self.spare_workdir = Some(workdir);
    }

    /// Makes sure a server for `program args` with `env`'s variables other than
    /// `SYNCMUT_*` runs, starting (or restarting) it on the calling thread, and says
    /// whether runs can go through it (false: by exec, [`ForkServer::fallback`] says why).
    /// The server ends with the thread that started it (PR_SET_PDEATHSIG), so a search
    /// whose runs execute on short-lived threads starts it first on the thread that
    /// searches.
    pub fn start(
        &mut self,
        program: &Path,
        args: &[String],
        env: &[(&str, String)],
        timeout: Duration,
    ) -> bool {
        if self.fallback.is_some() {
            return false;
        }
        let base_env: Vec<(String, String)> = env
            .iter()
            .filter(|(k, _)| !k.starts_with("SYNCMUT_"))
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        if self
            .server
            .as_ref()
            .is_some_and(|s| s.program != program || s.args != args || s.base_env != base_env)
        {
            self.server = None;
        }
        if self.server.is_none() {
            match Server::start(program, args, base_env, timeout) {
                Ok(server) => self.server = Some(server),
                Err(reason) => self.fallback = Some(reason),
            }
        }
        self.server.is_some()
    }

    /// Runs `program args` with `env` as [`exec::execute_in`] does, through the server
    /// when it can. The server is started on the first run and restarted when the
    /// program, its arguments or its variables other than `SYNCMUT_*` change.
    pub fn execute_in(
        &mut self,
        program: &Path,
        args: &[String],
        env: &[(&str, String)],
        limits: &Limits,
        place: Place,
    ) -> std::io::Result<Execution> {
        if !self.start(program, args, env, limits.timeout) {
            return exec::execute_in(program, args, env, limits, place);
        }
        let run_env: Vec<(String, String)> = env
            .iter()
            .filter(|(k, _)| k.starts_with("SYNCMUT_"))
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let server = self.server.as_mut().expect("started above");
        match server.run(&run_env, limits, place)? {
            Served::Ran(execution) => Ok(execution),
            Served::RanAndDied(execution, reason) => {
                self.server = None;
                self.fallback = Some(reason);
                Ok(execution)
            }
            Served::NotRun(reason) => {
                self.server = None;
                self.fallback = Some(reason);
                exec::execute_in(program, args, env, limits, place)
            }
        }
    }
}

/// What a request to the server came to.
enum Served {
    Ran(Execution),
    /// The run ended, and so did the server (killed with it, or stuck).
    RanAndDied(Execution, String),
    /// The server could not start the run; nothing ran.
    NotRun(String),
}

impl Server {
    /// Starts the program as a server and waits (at most `timeout`) for its greeting.
    fn start(
        program: &Path,
        args: &[String],
        base_env: Vec<(String, String)>,
        timeout: Duration,
    ) -> Result<Server, String> {
        let (ours, theirs) =
            socket_pair().map_err(|e| format!("no socket for a fork server: {e}"))?;
        let fd = theirs.as_raw_fd();
        let mut command = Command::new(program);
        // The server resolves every symbol once, at its start (LD_BIND_NOW), so no run
        // resolves them again lazily after its fork (perf: 2-3% of a served search). The
        // ` LD_BIND_NOW` suffix tells the runtime that syncmut added the variable and it is
        // unset before any run starts; a user's own LD_BIND_NOW is left as it is.
        let user_binding =
            base_env.iter().any(|(k, _)| k == BIND_NOW) || std::env::var_os(BIND_NOW).is_some();
        let server_value = if user_binding {
            fd.to_string()
        } else {
            format!("{fd} {BIND_NOW}")
        };
        // Each run's own SYNCMUT_* variables come with its request.
        for var in syncmut_runtime::env::PER_RUN {
            command.env_remove(var);
        }
        command
            .args(args)
            .envs(base_env.iter().map(|(k, v)| (k, v)))
            .env("SC_COPYRIGHT_MESSAGE", "DISABLE")
            .env(syncmut_runtime::env::FORK_SERVER, server_value);
        if !user_binding {
            command.env(BIND_NOW, "1");
        }
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // The server stays in syncmut's process group (so the sweep of escaped orphans
        // spares it); each run gets a group of its own. PR_SET_PDEATHSIG: the server
        // ends with the thread that searches, whatever ends it.
        // SAFETY: fcntl and prctl are async-signal-safe calls on this process only.
        unsafe {
            command.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        exec::become_subreaper();
        let mut process = command
            .spawn()
            .map_err(|e| format!("cannot start {} as a fork server: {e}", program.display()))?;
        drop(theirs);
        let mut hello = [0u8; 4];
        match receive(&ours, &mut hello, timeout) {
            Ok(4) if &hello == HELLO => Ok(Server {
                program: program.to_path_buf(),
                args: args.to_vec(),
                base_env,
                process,
                socket: ours,
            }),
            _ => {
                let _ = process.kill();
                let ended = process
                    .wait()
                    .map(|s| exec::status_of(s).to_string())
                    .unwrap_or_default();
                Err(format!("{} did not start its fork server (it ended before the runtime's first constructor, with {ended}, or has no runtime)", program.display()))
            }
        }
    }

    /// One run: the request, then the pid, then the status within the timeout.
    fn run(
        &mut self,
        run_env: &[(String, String)],
        limits: &Limits,
        place: Place,
    ) -> std::io::Result<Served> {
        let stdin_path = place.stdin.unwrap_or(Path::new("/dev/null"));
        let stdin = std::fs::File::open(stdin_path).map_err(|e| {
            std::io::Error::new(e.kind(), format!("stdin {}: {e}", stdin_path.display()))
        })?;
        let (out_read, out_write) = pipe()?;
        let (err_read, err_write) = pipe()?;
        let mut request = Vec::new();
        request.extend_from_slice(place.cwd.map(|p| p.as_os_str().as_bytes()).unwrap_or(b""));
        request.push(0);
        request.extend_from_slice(
            if limits.memory == u64::MAX {
                "-".to_string()
            } else {
                limits.memory.to_string()
            }
            .as_bytes(),
        );
        request.push(0);
        for (k, v) in run_env {
            request.extend_from_slice(format!("{k}={v}").as_bytes());
            request.push(0);
        }
        if request.len() > MAX_REQUEST {
            return Ok(Served::NotRun(format!(
                "a run's settings ({} bytes) exceed the fork server's request size",
                request.len()
            )));
        }
        let start = Instant::now();
        if let Err(e) = send_with_fds(
            &self.socket,
            &request,
            [
                stdin.as_raw_fd(),
                out_write.as_raw_fd(),
                err_write.as_raw_fd(),
            ],
        ) {
            return Ok(Served::NotRun(format!(
                "the fork server of {} ended ({e})",
                self.program.display()
            )));
        }
        // Only the run may hold the write ends, or the captures would never end.
        drop((stdin, out_write, err_write));
        // The output is read on this thread while it waits for the server's messages.
        let mut streams = Streams::new(out_read, err_read, limits.output_spool);
        let pid = match self.receive_i32(&mut streams, limits.timeout) {
            Some(pid) if pid > 0 => pid,
            other => {
                let why = match other {
                    Some(errno) => format!(
                        "the fork server of {} could not fork ({})",
                        self.program.display(),
                        std::io::Error::from_raw_os_error(-errno)
                    ),
                    None => format!("the fork server of {} ended", self.program.display()),
                };
                return Ok(Served::NotRun(why));
            }
        };
        let mut died = None;
        let status =
            match self.receive_i32(&mut streams, limits.timeout.saturating_sub(start.elapsed())) {
                Some(raw) => exec::status_of(std::process::ExitStatus::from_raw(raw)),
                None if self.alive() => {
                    exec::kill_group(pid, libc::SIGTERM);
                    if self.receive_i32(&mut streams, exec::TERM_GRACE).is_none() {
                        exec::kill_group(pid, libc::SIGKILL);
                        if self.receive_i32(&mut streams, KILLED_STATUS_WAIT).is_none() {
                            died = Some(format!(
                                "the fork server of {} did not report a killed run",
                                self.program.display()
                            ));
                        }
                    }
                    Status::TimedOut
                }
                // The run dies with its server (PR_SET_PDEATHSIG), as an exec'd design dies
                // with its supervisor.
                None => {
                    died = Some(format!(
                        "the fork server of {} was killed during run {pid}",
                        self.program.display()
                    ));
                    Status::Signaled(libc::SIGKILL)
                }
            };
        let elapsed = start.elapsed();
        // Children the design forked must not outlive the run (nor keep our pipes open).
        exec::kill_group(pid, libc::SIGKILL);
        exec::sweep_orphans();
        let (stdout, stderr) = streams.finish();
        let execution = Execution {
            status,
            stdout,
            stderr,
            elapsed,
            outputs: Default::default(),
        };
        Ok(match died {
            Some(reason) => Served::RanAndDied(execution, reason),
            None => Served::Ran(execution),
        })
    }

    /// One 4-byte message from the server (a pid or a wait status) within `timeout`,
    /// reading the run's output while it waits; `None` at the timeout or the server's end.
    fn receive_i32(&self, streams: &mut Streams, timeout: Duration) -> Option<i32> {
        if !streams.pump_until(Some(self.socket.as_fd()), Some(Instant::now() + timeout)) {
            return None;
        }
        let mut bytes = [0u8; 4];
        match receive(&self.socket, &mut bytes, Duration::ZERO) {
            Ok(4) => Some(i32::from_ne_bytes(bytes)),
            _ => None,
        }
    }

    fn alive(&mut self) -> bool {
        matches!(self.process.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    /// Closing the socket ends an idle server; the kill ends a stuck one.
    fn drop(&mut self) {
        // SAFETY: shutdown on a descriptor we own.
        unsafe {
            libc::shutdown(self.socket.as_raw_fd(), libc::SHUT_RDWR);
        }
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

fn socket_pair() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: socketpair fills two fresh descriptors, which we own from here on.
    unsafe {
        if libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

/// A pipe closed on exec, so no process syncmut starts meanwhile holds it.
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two fresh descriptors, which we own from here on.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

/// Sends one message with three descriptors attached (SCM_RIGHTS).
fn send_with_fds(socket: &OwnedFd, bytes: &[u8], fds: [libc::c_int; 3]) -> std::io::Result<()> {
    // SAFETY: the message header points at live buffers of the sizes it states; the
    // control buffer is sized by CMSG_SPACE for exactly the three descriptors copied in.
    unsafe {
        let payload = std::mem::size_of_val(&fds) as libc::c_uint;
        let mut control = vec![0u8; libc::CMSG_SPACE(payload) as usize];
        let mut iov = libc::iovec {
            iov_base: bytes.as_ptr() as *mut libc::c_void,
            iov_len: bytes.len(),
        };
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = control.len() as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(payload) as _;
        std::ptr::copy_nonoverlapping(
            fds.as_ptr().cast::<u8>(),
            libc::CMSG_DATA(cmsg),
            payload as usize,
        );
        loop {
            if libc::sendmsg(socket.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) >= 0 {
                return Ok(());
            }
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

/// Receives one message within `timeout`: its length, 0 at the server's end, or an
/// error (`TimedOut` when nothing came).
fn receive(socket: &OwnedFd, buffer: &mut [u8], timeout: Duration) -> std::io::Result<usize> {
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut poll = libc::pollfd {
            fd: socket.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let millis = left.as_millis().min(i32::MAX as u128) as libc::c_int;
        // SAFETY: poll and recv on a descriptor we own, into a buffer of the stated size.
        let ready = unsafe { libc::poll(&mut poll, 1, millis) };
        if ready < 0 {
            let error = std::io::Error::last_os_error();
            if error.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        if ready == 0 {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        let n = unsafe {
            libc::recv(
                socket.as_raw_fd(),
                buffer.as_mut_ptr().cast(),
                buffer.len(),
                0,
            )
        };
        if n >= 0 {
            return Ok(n as usize);
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}
