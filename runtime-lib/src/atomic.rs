//! Atomic file writes, for every crate of syncmut: readers (and a crash) see the old file
//! or the new one, never a torn one.

use std::io::Write;
use std::path::Path;
use std::sync::RwLock;

/// Writes hold it shared; [`stop_writes`] takes it for good, so an interrupted syncmut
/// can sweep temporary files knowing none is half-written or about to appear.
static GATE: RwLock<()> = RwLock::new(());

/// Writes `bytes` to a temporary file beside `path`, syncs it, then renames it over
/// `path`. The file gets the permissions a plain `create` would give it (0666 less the
/// umask), not the temporary file's private 0600. After [`stop_writes`] it blocks
/// forever (the process is about to exit).
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let _writing = GATE.read().unwrap_or_else(|e| e.into_inner());
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o666 & !umask()))?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Appends `bytes` to `path` (created when missing) in one `write` call, so a reader
/// sees whole records but for, after a crash, a cut last one. Not synced: a record
/// outlives the process, not the machine. Blocks forever after [`stop_writes`], as
/// [`write()`] does.
pub fn append(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let _writing = GATE.read().unwrap_or_else(|e| e.into_inner());
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(bytes)
}

/// Waits for the writes in flight to finish and lets no other start: the last thing a
/// process does before it removes its temporaries and exits.
pub fn stop_writes() {
    std::mem::forget(GATE.write().unwrap_or_else(|e| e.into_inner()));
}

/// The process's umask, read once from `/proc/self/status` (setting and restoring it
/// with `umask(2)` would race with other threads creating files; syncmut never changes
/// it); 022 when unknown.
fn umask() -> u32 {
    static UMASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *UMASK.get_or_init(|| {
        std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|status| {
                status.lines().find_map(|l| {
                    l.strip_prefix("Umask:")
                        .and_then(|m| u32::from_str_radix(m.trim(), 8).ok())
                })
            })
            .unwrap_or(0o022)
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_written_file_has_the_permissions_of_a_created_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        super::write(&path, b"x").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !super::umask());
        assert_ne!(
            mode, 0o600,
            "a umask of 066 is unlikely in a test environment"
        );
    }
}
