//! Atomic file writes: readers (and a crash) see the old file or the new one, never a
//! torn one.

use crate::error::{MutatorError, Result};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to a temporary file beside `path`, syncs it, then renames it over
/// `path`.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let err = |source| MutatorError::Write { path: path.to_path_buf(), source };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(err)?;
    tmp.write_all(bytes).map_err(err)?;
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}
