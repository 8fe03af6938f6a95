//! The two output streams of one run (stdout and stderr), read from their pipes by one
//! `poll` loop instead of a thread each: a run costs no thread for its output when the
//! caller waits in the same loop (the fork server's runs wait for the server's status
//! message this way), and one thread when it must block elsewhere (exec's runs wait for
//! the supervisor in `waitpid`).
//!
//! Both pipes are read whenever they have data, so a design that fills one pipe while
//! the other is idle never blocks on it; each stream is kept whole ([`Output`]).

use crate::output::{Capture, Output};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::time::Instant;

/// stdout and stderr of a run being read.
pub(crate) struct Streams {
    /// The read ends still open (closed at their end of file).
    pipes: [Option<OwnedFd>; 2],
    captures: [Capture; 2],
    chunk: Vec<u8>,
}

impl Streams {
    /// Reads the two read ends (stdout's first), each kept up to `spool` bytes on disk.
    pub(crate) fn new(stdout: OwnedFd, stderr: OwnedFd, spool: u64) -> Streams {
        for fd in [&stdout, &stderr] {
            // SAFETY: fcntl on a descriptor we own. Non-blocking: a read after `poll`
            // takes what is there and never waits for more.
            unsafe {
                let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
                libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
            }
        }
        Streams {
            pipes: [Some(stdout), Some(stderr)],
            captures: [Capture::new(spool), Capture::new(spool)],
            chunk: vec![0; 64 * 1024],
        }
    }

    /// Reads both streams as data comes until `wake` is readable (true) or `deadline`
    /// passes (false). With no `wake`, until both streams ended (true) or the deadline.
    pub(crate) fn pump_until(
        &mut self,
        wake: Option<BorrowedFd>,
        deadline: Option<Instant>,
    ) -> bool {
        loop {
            let mut fds: Vec<libc::pollfd> = Vec::with_capacity(3);
            if let Some(w) = wake {
                fds.push(libc::pollfd {
                    fd: w.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
            let first_pipe = fds.len();
            let open: Vec<usize> = (0..2).filter(|i| self.pipes[*i].is_some()).collect();
            for i in &open {
                fds.push(libc::pollfd {
                    fd: self.pipes[*i].as_ref().expect("open").as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
            if fds.is_empty() {
                return true;
            }
            let millis = match deadline {
                None => -1,
                Some(d) => d
                    .saturating_duration_since(Instant::now())
                    .as_millis()
                    .min(i32::MAX as u128) as libc::c_int,
            };
            // SAFETY: poll on descriptors we own or borrow, with the array's length.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
            if ready < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return false;
            }
            if ready == 0 {
                return false;
            }
            for (slot, i) in open.iter().enumerate() {
                if fds[first_pipe + slot].revents != 0 {
                    self.drain(*i);
                }
            }
            if wake.is_some() && fds[0].revents != 0 {
                return true;
            }
        }
    }

    /// Reads what stream `i` has now; closes it at its end.
    fn drain(&mut self, i: usize) {
        let Some(pipe) = &self.pipes[i] else { return };
        loop {
            // SAFETY: reads into our buffer of the stated length from a descriptor we own.
            let n = unsafe {
                libc::read(
                    pipe.as_raw_fd(),
                    self.chunk.as_mut_ptr().cast(),
                    self.chunk.len(),
                )
            };
            if n > 0 {
                self.captures[i].add(&self.chunk[..n as usize]);
                continue;
            }
            if n < 0 {
                match std::io::Error::last_os_error().kind() {
                    std::io::ErrorKind::Interrupted => continue,
                    std::io::ErrorKind::WouldBlock => return,
                    _ => {}
                }
            }
            // End of file, or an error that ends the stream as well.
            self.pipes[i] = None;
            return;
        }
    }

    /// Reads both streams to their end (the run and everything it started are gone, or
    /// going): stdout and stderr, whole.
    pub(crate) fn finish(mut self) -> (Output, Output) {
        self.pump_until(None, None);
        let [out, err] = self.captures;
        (out.finish(), err.finish())
    }

    /// [`Streams::finish`] on a thread of its own, for a caller that blocks elsewhere.
    pub(crate) fn finish_on_thread(self) -> std::thread::JoinHandle<(Output, Output)> {
        std::thread::spawn(move || self.finish())
    }
}
