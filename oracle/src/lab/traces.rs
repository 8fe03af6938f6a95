//! Running a program on a test and what it leaves behind: its trace observed through a
//! [`Lens`] (read event by event, never held whole), kept for users capped around where
//! it diverged, its stderr and data races; and why a run could not be judged
//! ([`Unjudged`]), telling a machine out of disk or processes from a fault of the design.
//! Shared by the baseline, the mutants' runs and the original following them.

use super::Lab;
use crate::mask::Mask;
use crate::observation::{Observation, Recorder};
use crate::outdir;
use crate::races::SourceRace;
use std::path::Path;
use syncmut_mutator::api::Family;
use syncmut_mutator::metamutant::Build;
use syncmut_runner::exec::Execution;
use syncmut_runner::invocation::Invocation;
use syncmut_runner::workdir::Workdir;
use syncmut_runtime::trace::{self, Keep};

/// How a run is observed: which sites' events are left out (a mutant's own) and what the
/// baseline masks.
#[derive(Clone, Copy)]
pub(super) struct Lens<'a> {
    pub(super) hidden: &'a [u32],
    pub(super) mask: &'a Mask,
}

/// Runs the metamutant with `lab.active` (empty: no mutant) on `lab.test` under
/// `schedule` in a private working directory under the run directory's work directory
/// and observes its trace through `lens`; the working directory is handed back (removed
/// when dropped). The runtime's trace file stays at `trace_file` for the caller to keep
/// ([`keep_trace`]) or delete.
pub(super) fn traced(
    lab: &Lab,
    schedule: &str,
    trace_file: &Path,
    lens: Lens,
) -> Result<(Execution, Observation, Workdir), Unjudged> {
    traced_in(lab, schedule, trace_file, None, None, lens)
}

/// [`traced`], recording the scheduler's choices in `schedule_out` (pthread; each option
/// by its thread alone, `SYNCMUT_RECORD_DETAIL=0`), in the
/// virtual world `entropy` (`SYNCMUT_ENTROPY`; `None`: syncmut's own).
pub(super) fn traced_in(
    lab: &Lab,
    schedule: &str,
    trace_file: &Path,
    schedule_out: Option<&Path>,
    entropy: Option<u32>,
    lens: Lens,
) -> Result<(Execution, Observation, Workdir), Unjudged> {
    let Lab {
        build,
        test,
        out,
        limits,
        active,
        max_steps,
        ..
    } = *lab;
    let work = &out.path(outdir::WORK_DIR);
    if let Some(parent) = trace_file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Unjudged::from_io(parent, e))?;
    }
    let _ = std::fs::remove_file(trace_file);
    let invocation = Invocation {
        active: Some(active.to_string()),
        trace: Some(trace_file.to_path_buf()),
        schedule: (build.catalogue.kind == Family::Pthread).then(|| schedule.to_string()),
        schedule_out: schedule_out
            .filter(|_| build.catalogue.kind == Family::Pthread)
            .map(Path::to_path_buf),
        // The file is read only to follow the run and to compare its choices with the
        // original's: each option's thread is enough.
        record_detail: schedule_out.and(Some(false)),
        races_out: build.catalogue.races.then(|| races_file(trace_file)),
        max_steps,
        entropy,
        limits: *limits,
        work_root: Some(work.to_path_buf()),
        ..Invocation::for_test(&build.metamutant, test)
    };
    let mut server = lab.server.map(|s| s.borrow_mut());
    let (execution, workdir) = invocation
        .run_keeping_with(server.as_deref_mut())
        .map_err(|e| Unjudged::from_io(&build.metamutant, e))?;
    drop(server);
    let observation = observe(&execution, trace_file, lens)?;
    Ok((execution, observation, workdir))
}

/// The observation of `execution` through `lens`, its trace read from `trace_file` event
/// by event and never held whole (a spinning mutant writes a million events).
pub(super) fn observe(
    execution: &Execution,
    trace_file: &Path,
    lens: Lens,
) -> Result<Observation, Unjudged> {
    let mut recorder = Recorder::new(lens.hidden, lens.mask);
    let trace = trace::visit(trace_file, &mut |event| recorder.event(event))
        .map_err(|e| trace_error(trace_file, e))?;
    Ok(recorder.finish(execution, trace.end.as_ref()))
}

/// Where a run's data races are written (`run --races`): beside its trace, `.races`.
fn races_file(trace_file: &Path) -> std::path::PathBuf {
    trace_file.with_extension("races")
}

/// The data races of the run whose trace is `trace_file`, in source terms, and what the
/// detector's bounds left unchecked; nothing when the metamutant was not built for race
/// detection or the run wrote no race file (it was killed before it could).
pub(super) fn run_races(build: &Build, trace_file: &Path) -> Result<RunRaces, Unjudged> {
    if !build.catalogue.races {
        return Ok(RunRaces::default());
    }
    let path = races_file(trace_file);
    let file = syncmut_runtime::races::read(&path).map_err(Unjudged::Run)?;
    let _ = std::fs::remove_file(&path);
    Ok(file.map(|f| RunRaces::of(build, &f)).unwrap_or_default())
}

/// One run's data races in source terms, and what the detector left unchecked.
#[derive(Debug, Clone, Default)]
pub(super) struct RunRaces {
    pub(super) races: Vec<SourceRace>,
    pub(super) limits: Option<String>,
}

impl RunRaces {
    pub(super) fn of(build: &Build, file: &syncmut_runtime::races::RaceFile) -> RunRaces {
        RunRaces {
            races: crate::races::all_in_source(&build.catalogue, &file.races),
            limits: file.limits(),
        }
    }

    /// Adds another run's races (one per key) and limits.
    pub(super) fn merge(&mut self, other: RunRaces) {
        self.races.extend(other.races);
        self.races.sort();
        self.races.dedup_by(|a, b| a.key == b.key);
        if let Some(limits) = other.limits {
            self.limits.get_or_insert(limits);
        }
    }

    pub(super) fn has(&self, key: &str) -> bool {
        self.races.iter().any(|r| r.key == key)
    }
}

/// Keeps a run's trace in the run directory for users: rendered as JSON Lines in place of
/// the runtime's binary file, capped ([`Keep::DEFAULT`]: the head, the tail, and the
/// events around `divergence`, where the run first left the original's; the file says
/// what was left out), so a livelocked mutant's million events cost half a megabyte, not
/// hundreds. The JSON is formatted here rather than in the design's process.
pub(super) fn keep_trace(path: &Path, divergence: Option<u64>) -> Result<(), Unjudged> {
    trace::write_capped(
        path,
        path,
        &Keep {
            around: divergence,
            ..Keep::DEFAULT
        },
    )
    .map(|_| ())
    .map_err(|e| trace_error(path, e))
}

/// Why a trace at `path` could not be read or kept: a trace the runtime could not write
/// for lack of space is the disk's fault, not the design's.
pub(super) fn trace_error(path: &Path, error: String) -> Unjudged {
    match disk_full(path) {
        true => Unjudged::Environment(format!("{error} (the disk is full)")),
        false => Unjudged::Run(error),
    }
}

/// The seq of the `index`-th event of `thread` outside the `hidden` sites in the trace at
/// `path` (its last event when it has fewer): where a kill's divergence sits in the file.
pub(super) fn divergence_seq(
    path: &Path,
    hidden: &[u32],
    (thread, index): &(String, usize),
) -> Option<u64> {
    let (mut seen, mut found, mut last) = (0usize, None, None);
    trace::visit(path, &mut |event| {
        if found.is_none() && event.thread == *thread && !hidden.contains(&event.site) {
            if seen == *index {
                found = Some(event.seq);
            }
            last = Some(event.seq);
            seen += 1;
        }
    })
    .ok()?;
    found.or(last)
}

/// Bytes of a kept run's stderr saved beside its trace (for `explain`).
const KEPT_STDERR: u64 = 1 << 20;

/// Saves the stderr of a kept run beside its trace (nothing when it is empty), at most
/// [`KEPT_STDERR`] bytes and saying how much more there was. A failure to save it costs
/// the explanation, not the verdict.
pub(super) fn keep_stderr(trace_file: &Path, stderr: &syncmut_runner::output::Output) {
    let path = outdir::stderr_file(trace_file);
    if stderr.len == 0 {
        let _ = std::fs::remove_file(&path);
        return;
    }
    let mut bytes = Vec::new();
    let _ = std::io::Read::read_to_end(
        &mut std::io::Read::take(stderr.reader(), KEPT_STDERR),
        &mut bytes,
    );
    if stderr.len > bytes.len() as u64 {
        bytes.extend_from_slice(
            format!(
                "\n… ({} more bytes not kept)\n",
                stderr.len - bytes.len() as u64
            )
            .as_bytes(),
        );
    }
    let _ = syncmut_runtime::atomic::write(&path, &bytes);
}

/// Why a run could not be judged.
#[derive(Debug)]
pub(super) enum Unjudged {
    /// The machine, not the design: a full disk, no process, memory or file descriptor
    /// left. The whole run stops with this message (finished results are kept), so a
    /// `--resume` retries once it is fixed, instead of an `error` verdict that depends on
    /// what else the machine was doing.
    Environment(String),
    /// Something about this design or run: an `error` verdict with the reason.
    Run(String),
}

impl Unjudged {
    pub(super) fn from_io(path: &Path, error: std::io::Error) -> Unjudged {
        let message = format!("{}: {error}", path.display());
        match error.raw_os_error() {
            Some(
                libc::ENOSPC
                | libc::EDQUOT
                | libc::EAGAIN
                | libc::ENOMEM
                | libc::EMFILE
                | libc::ENFILE,
            ) => Unjudged::Environment(message),
            _ => Unjudged::Run(message),
        }
    }
}

impl From<String> for Unjudged {
    fn from(reason: String) -> Self {
        Unjudged::Run(reason)
    }
}

impl std::fmt::Display for Unjudged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unjudged::Environment(m) | Unjudged::Run(m) => f.write_str(m),
        }
    }
}

/// Whether the filesystem holding `path` has (almost) no space left for syncmut.
fn disk_full(path: &Path) -> bool {
    let dir = path.parent().unwrap_or(path);
    let Ok(c_path) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    // SAFETY: statvfs writes only into the struct we pass, and reads a valid C string.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut stats) } != 0 {
        return false;
    }
    (stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64) < 1024 * 1024
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_or_no_process_left_is_the_machine_and_anything_else_the_run() {
        let path = Path::new("/x");
        for errno in [
            libc::ENOSPC,
            libc::EDQUOT,
            libc::EAGAIN,
            libc::ENOMEM,
            libc::EMFILE,
            libc::ENFILE,
        ] {
            assert!(
                matches!(
                    Unjudged::from_io(path, std::io::Error::from_raw_os_error(errno)),
                    Unjudged::Environment(_)
                ),
                "{errno}"
            );
        }
        for errno in [libc::ENOENT, libc::EACCES, libc::ENOEXEC] {
            assert!(
                matches!(
                    Unjudged::from_io(path, std::io::Error::from_raw_os_error(errno)),
                    Unjudged::Run(_)
                ),
                "{errno}"
            );
        }
        assert!(
            !disk_full(&std::env::temp_dir().join("file")),
            "the test machine's temporary directory is not full"
        );
    }
}
