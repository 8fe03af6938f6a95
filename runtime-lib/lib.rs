//! syncmut's C/C++ runtime library, embedded in the `syncmut` binary.
//!
//! `build.rs` compiles the runtime (activation of the mutant, trace recording, the
//! wrappers every mutated synchronization call is redirected to) into two static
//! archives; this crate carries their bytes and the public header, so syncmut works from
//! any directory without an install step. [`install`] writes them where the design's link
//! step can find them. The environment and trace contract is in `runtime-lib/README.md`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// `libsyncmut_rt.a`: activation, trace and pthread wrappers (C, needs only libc).
pub const C_ARCHIVE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libsyncmut_rt.a"));

/// `libsyncmut_rt_sc.a`: SystemC wrappers (C++17); link it before [`C_ARCHIVE`] and
/// `-lsystemc`.
pub const SYSTEMC_ARCHIVE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libsyncmut_rt_sc.a"));

/// [`C_ARCHIVE`] built with AddressSanitizer and UndefinedBehaviorSanitizer (empty
/// when clang-16 was missing at build time).
pub const C_ARCHIVE_SANITIZED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libsyncmut_rt_asan.a"));

/// [`SYSTEMC_ARCHIVE`] built with AddressSanitizer and UndefinedBehaviorSanitizer.
pub const SYSTEMC_ARCHIVE_SANITIZED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libsyncmut_rt_sc_asan.a"));

/// `syncmut.h`, the public header (C and C++).
pub const HEADER: &[u8] = include_bytes!("include/syncmut.h");

/// The environment variable that asks for a runtime built with AddressSanitizer and
/// UndefinedBehaviorSanitizer: set to `1`, `install` writes the sanitized archives and
/// executables are linked with `-fsanitize=address,undefined` (see docs/reliability.md).
pub const SANITIZE_ENV: &str = "SYNCMUT_SANITIZE";

/// Whether `SYNCMUT_SANITIZE=1` is set.
pub fn sanitizers_requested() -> bool {
    std::env::var_os(SANITIZE_ENV).is_some_and(|v| v == "1")
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

/// Linker flag that brings the virtual clock (`src/virtual_clock.c`) into an executable
/// linked with the C archive, whatever the design calls: libc's clock, random and timed
/// wait functions are then the runtime's also for shared libraries (libstdc++'s
/// `std::chrono` clocks, libsystemc), and `original` and the metamutant, whose wrappers
/// use these functions, always see the same virtual world (runtime-lib/README.md).
pub const VIRTUAL_CLOCK_LINK_FLAG: &str = "-Wl,--undefined=syncmut_virtual_clock";

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
                "{SANITIZE_ENV}=1: this syncmut was built without clang-16, so it has no sanitized runtime; install clang-16 and rebuild"
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

fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let target = dir.join(name);
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.{}.{unique}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map(|()| target)
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
