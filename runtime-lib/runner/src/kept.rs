//! Bounds on a kept working directory: a killed mutant's run may leave gigabytes behind
//! (a spinning writer, a dump in a loop), and every killed mutant keeps its directory,
//! so each file keeps at most its head and each directory a total, as traces are capped.
//! What was cut is listed in a note beside the directory, with every file's full size.

use std::io;
use std::path::{Path, PathBuf};

/// How much one kept directory may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Bytes kept of one file: its first ones.
    pub file: u64,
    /// Bytes kept over the whole directory; files past it (in name order) are removed.
    pub total: u64,
}

impl Caps {
    /// Every kept working directory's: 1 MiB per file, 8 MiB in all.
    pub const KEPT: Caps = Caps {
        file: 1 << 20,
        total: 8 << 20,
    };
}

/// The note listing what [`cap`] cut from `dir`: `<dir>.capped.txt` beside it, so the
/// directory holds only what the run wrote.
pub fn note_path(dir: &Path) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(".capped.txt");
    dir.with_file_name(name)
}

/// Cuts `dir` down to `caps`, walking it in name order: a file over `caps.file` keeps
/// its head, a file past `caps.total` is removed (symbolic links are left as they are).
/// Writes the note ([`note_path`]) when something was cut and removes a stale one
/// otherwise; returns its lines.
pub fn cap(dir: &Path, caps: Caps) -> io::Result<Vec<String>> {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    let mut used = 0u64;
    let mut notes = Vec::new();
    for (path, bytes) in files {
        let name = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        let room = caps.total.saturating_sub(used).min(caps.file);
        if bytes <= room {
            used += bytes;
            continue;
        }
        let shortened = room > 0
            && std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_len(room))
                .is_ok();
        if shortened {
            used += room;
            notes.push(format!("{name}: {bytes} bytes, the first {room} kept"));
        } else {
            std::fs::remove_file(&path)?;
            notes.push(format!("{name}: {bytes} bytes, not kept"));
        }
    }
    let note = note_path(dir);
    if notes.is_empty() {
        let _ = std::fs::remove_file(&note);
    } else {
        let header = format!(
            "kept working directory capped at {} bytes per file and {} in all; cut:",
            caps.file, caps.total
        );
        let text = std::iter::once(header)
            .chain(notes.iter().cloned())
            .collect::<Vec<_>>()
            .join("\n");
        syncmut_runtime::atomic::write(&note, format!("{text}\n").as_bytes())?;
    }
    Ok(notes)
}

/// The regular files under `dir` with their sizes, in name order, depth first.
fn walk(dir: &Path, files: &mut Vec<(PathBuf, u64)>) -> io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let meta = std::fs::symlink_metadata(entry.path())?;
        if meta.is_dir() {
            walk(&entry.path(), files)?;
        } else if meta.is_file() {
            files.push((entry.path(), meta.len()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_files_keep_their_head_and_the_total_is_bounded() {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("m1");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a.log"), vec![b'a'; 30]).unwrap();
        std::fs::write(dir.join("b.txt"), "small").unwrap();
        std::fs::write(dir.join("sub/c.bin"), vec![b'c'; 12]).unwrap();
        std::fs::write(dir.join("z.bin"), vec![b'z'; 4]).unwrap();
        let notes = cap(
            &dir,
            Caps {
                file: 10,
                total: 18,
            },
        )
        .unwrap();
        assert_eq!(
            notes,
            [
                "a.log: 30 bytes, the first 10 kept",
                "sub/c.bin: 12 bytes, the first 3 kept",
                "z.bin: 4 bytes, not kept"
            ]
        );
        assert_eq!(std::fs::read(dir.join("a.log")).unwrap(), vec![b'a'; 10]);
        assert_eq!(std::fs::read_to_string(dir.join("b.txt")).unwrap(), "small");
        assert_eq!(std::fs::read(dir.join("sub/c.bin")).unwrap(), b"ccc");
        assert!(!dir.join("z.bin").exists());
        let note = std::fs::read_to_string(note_path(&dir)).unwrap();
        assert!(
            note.contains("a.log: 30 bytes, the first 10 kept"),
            "{note}"
        );
        // Nothing over the caps: no note, and a stale one goes.
        let notes = cap(
            &dir,
            Caps {
                file: 100,
                total: 100,
            },
        )
        .unwrap();
        assert!(notes.is_empty());
        assert!(!note_path(&dir).exists());
    }
}
