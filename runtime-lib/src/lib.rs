//! syncmut's C/C++ runtime library, embedded in the `syncmut` binary, and the Rust side
//! of its protocol: the constants the C code shares with syncmut and the readers of what
//! it writes.
//!
//! `build.rs` compiles the runtime (activation of the mutant, trace recording, the
//! wrappers every mutated synchronization call is redirected to) into two static
//! archives; this crate carries their bytes and the public header, so syncmut works from
//! any directory without an install step. [`install`] writes them where the design's link
//! step can find them. The environment and trace contract is in `runtime-lib/README.md`.
//!
//! The protocol lives here, next to the C code that implements it, so that every crate
//! above (mutator, analysis, oracle, CLI) speaks it the same way:
//! - [`status`] and [`mod@env`]: exit statuses and `SYNCMUT_*` variable names, defined once in
//!   `include/syncmut_protocol.h`; [`tables`]: the state-table layouts of
//!   `include/syncmut_tables.h`. Unit tests keep the Rust constants in step with the
//!   headers.
//! - [`trace`] reads the trace the runtime writes (`trace.c`), [`races`] the race detector's
//!   file (`races.c`), [`schedule`] the schedule files the scheduler records
//!   (`schedule_record.c`): analysis and oracle read them without running anything.
//! - [`atomic`]: the atomic file write every crate uses.
//!
//! Running a design from outside (invocation, process runner, fork-server client, test
//! cases, work directories) is the `syncmut-runner` crate in `runtime-lib/runner/`, which
//! depends on this one.

// Every crate above reads this crate's public items: each says what it is.
#![warn(missing_docs)]

use std::path::{Path, PathBuf};

pub mod atomic;
pub mod env;
pub mod races;
pub mod schedule;
pub mod status;
pub mod tables;
pub mod trace;

#[cfg(test)]
mod protocol_header;

/// `libsyncmut_rt.a`: activation, trace and pthread wrappers (C, needs only libc).
pub const C_ARCHIVE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libsyncmut_rt.a"));

/// `libsyncmut_rt_sc.a`: SystemC wrappers (C++17); link it before [`C_ARCHIVE`] and
/// `-lsystemc`.
pub const SYSTEMC_ARCHIVE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libsyncmut_rt_sc.a"));

/// [`C_ARCHIVE`] built with AddressSanitizer and UndefinedBehaviorSanitizer (empty
/// when clang-16 was missing at build time).
pub const C_ARCHIVE_SANITIZED: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/libsyncmut_rt_asan.a"));

/// [`SYSTEMC_ARCHIVE`] built with AddressSanitizer and UndefinedBehaviorSanitizer.
pub const SYSTEMC_ARCHIVE_SANITIZED: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/libsyncmut_rt_sc_asan.a"));

/// `syncmut.h`, the public header (C and C++).
pub const HEADER: &[u8] = include_bytes!("../include/syncmut.h");

/// Whether `SYNCMUT_SANITIZE=1` ([`env::SANITIZE`]) asks for a runtime built with
/// AddressSanitizer and UndefinedBehaviorSanitizer: `install` then writes the sanitized
/// archives and executables are linked with `-fsanitize=address,undefined` (see
/// docs/reliability.md).
pub fn sanitizers_requested() -> bool {
    std::env::var_os(env::SANITIZE).is_some_and(|v| v == "1")
}

/// Extra flags for linking executables when the sanitizers are requested: the
/// sanitizers' own runtime comes in with the driver flag. Empty otherwise.
pub fn sanitizer_link_flags() -> &'static [&'static str] {
    if sanitizers_requested() {
        &["-fsanitize=address,undefined"]
    } else {
        &[]
    }
}

/// Linker flag that brings the virtual clock (`src/virtual_clock.c`, with
/// `src/waiting.c`'s yields and polls) into an executable
/// linked with the C archive, whatever the design calls: libc's clock, random and timed
/// wait functions are then the runtime's also for shared libraries (libstdc++'s
/// `std::chrono` clocks, libsystemc), and `original` and the metamutant, whose wrappers
/// use these functions, always see the same virtual world (runtime-lib/README.md).
pub const VIRTUAL_CLOCK_LINK_FLAG: &str =
    "-Wl,--undefined=syncmut_virtual_clock,--undefined=syncmut_waiting";

/// Linker flag that brings `src/std_thread.c` into a pthread design's executable: its
/// `pthread_create` takes the place of libc's for libstdc++'s `std::thread`, whose
/// threads then start through the runtime's thread hook like the design's own.
pub const STD_THREAD_LINK_FLAG: &str = "-Wl,--undefined=syncmut_std_thread";

/// Linker flag that brings `src/sim_until.cpp` (the SystemC archive's interposed
/// `sc_core::sc_start`, which applies `SYNCMUT_SIM_UNTIL`) into both executables of a
/// SystemC design, so the uninstrumented original stops at the same simulated time as
/// the metamutant; the rest of the SystemC archive stays out of the original.
pub const SIM_UNTIL_LINK_FLAG: &str = "-Wl,--undefined=syncmut_sim_until";

/// File names used by [`install`].
pub const C_ARCHIVE_NAME: &str = "libsyncmut_rt.a";
/// File name of the SystemC archive.
pub const SYSTEMC_ARCHIVE_NAME: &str = "libsyncmut_rt_sc.a";
/// File name of the header.
pub const HEADER_NAME: &str = "syncmut.h";

/// Where [`install`] put the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The C archive (`libsyncmut_rt.a`): every design links it.
    pub c_archive: PathBuf,
    /// The SystemC archive (`libsyncmut_rt_sc.a`): SystemC designs link it first.
    pub systemc_archive: PathBuf,
    /// The header (`syncmut.h`); its directory is the include directory.
    pub header: PathBuf,
}

/// Writes both archives and the header into `dir` (created if missing) and returns their
/// paths. With `SYNCMUT_SANITIZE=1` the archives are the sanitized builds, under the
/// same names, so the link step is the same apart from `-fsanitize` (see
/// [`sanitizer_link_flags`]).
///
/// Each file is written under a unique temporary name and renamed into place, so a
/// concurrent or interrupted install never leaves a torn file behind: readers see either
/// the old complete file or the new one.
pub fn install(dir: &Path) -> std::io::Result<Installed> {
    std::fs::create_dir_all(dir)?;
    let (c, systemc) = if sanitizers_requested() {
        if C_ARCHIVE_SANITIZED.is_empty() {
            return Err(std::io::Error::other(format!(
                "{}=1: this syncmut was built without clang-16, so it has no sanitized runtime; install clang-16 and rebuild",
                env::SANITIZE
            )));
        }
        (C_ARCHIVE_SANITIZED, SYSTEMC_ARCHIVE_SANITIZED)
    } else {
        (C_ARCHIVE, SYSTEMC_ARCHIVE)
    };
    Ok(Installed {
        c_archive: write_atomically(dir, C_ARCHIVE_NAME, c)?,
        systemc_archive: write_atomically(dir, SYSTEMC_ARCHIVE_NAME, systemc)?,
        header: write_atomically(dir, HEADER_NAME, HEADER)?,
    })
}

/// Writes `name` in `dir` atomically, unless it already holds `bytes` (a shared
/// directory in the build cache is installed into by every build), and returns its path.
fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let target = dir.join(name);
    if std::fs::read(&target).ok().as_deref() == Some(bytes) {
        return Ok(target);
    }
    atomic::write(&target, bytes)?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_writes_every_file_and_overwrites_in_place() {
        let dir = std::env::temp_dir().join(format!("syncmut-runtime-test-{}", std::process::id()));
        let first = install(&dir).unwrap();
        let second = install(&dir).unwrap();
        assert_eq!(first, second);
        assert_eq!(std::fs::read(&first.c_archive).unwrap(), C_ARCHIVE);
        assert_eq!(
            std::fs::read(&first.systemc_archive).unwrap(),
            SYSTEMC_ARCHIVE
        );
        assert_eq!(std::fs::read(&first.header).unwrap(), HEADER);
        assert!(C_ARCHIVE.starts_with(b"!<arch>\n") && SYSTEMC_ARCHIVE.starts_with(b"!<arch>\n"));
        // Only the three files: no temporary left behind.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
