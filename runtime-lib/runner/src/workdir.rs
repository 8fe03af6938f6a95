//! The private working directory of one run. Every execution of a design (baseline,
//! mutant, generation, exploration) starts in a fresh directory made from its test's
//! `files`, so relative paths in the design (`fopen("out.gz", "w")`, `unlink`, a
//! mutant that deletes "its" files) reach neither the user's directory nor the run
//! directory, and no run sees what an earlier one left behind. The directory is removed
//! when the [`Workdir`] is dropped, unless [`Workdir::keep`] moved it away first. A
//! search's runs may share one directory while each run leaves it exactly as it was
//! made ([`Workdir::reuse_or_create`]): the next run cannot tell it from a fresh one.
//!
//! Layout of one workdir (a temporary directory under the caller's root):
//! `cwd/` is the design's working directory; `stdin` holds a test's stdin text, outside
//! `cwd/` so the design does not see it as one of its files.

use crate::beneath::{self, Dir};
use crate::kept;
use crate::test_case::{Setting, Stdin};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

/// What a run left in one of its test's `outputs` files: enough to tell two runs apart
/// and say how. Two are the same file when size and digest agree; `head` only says
/// where they differ.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OutputFile {
    /// Its size.
    pub bytes: u64,
    /// The SHA-256 of its contents, in hex.
    pub sha256: String,
    /// The file's first [`OutputFile::HEAD`] bytes (not kept in saved results).
    #[serde(skip)]
    pub head: Vec<u8>,
    /// Set when what the run left under the name is not a regular file (a directory, a
    /// FIFO, a device, a symbolic link): what it is, in words. Its contents are not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_regular: Option<String>,
}

impl OutputFile {
    /// How much of a file is kept to locate a difference: a header's time stamp or
    /// process id is in its first bytes.
    pub const HEAD: usize = 4096;

    /// Where `other` first differs from this file, within the bytes both kept: the byte
    /// range (from 0) of the first run of differing bytes, runs closer than 4 bytes
    /// counted as one (a 4-byte time stamp whose middle byte agrees). `None` when the
    /// kept bytes agree (or none were kept).
    pub fn first_difference(&self, other: &OutputFile) -> Option<(usize, usize)> {
        let common = self.head.len().min(other.head.len());
        let differs = |i: usize| self.head[i] != other.head[i];
        let start = (0..common).find(|i| differs(*i))?;
        let mut end = start;
        let mut i = start + 1;
        while i < common && i <= end + 4 {
            if differs(i) {
                end = i;
            }
            i += 1;
        }
        Some((start, end))
    }
}

impl PartialEq for OutputFile {
    fn eq(&self, other: &OutputFile) -> bool {
        self.bytes == other.bytes
            && self.sha256 == other.sha256
            && self.not_regular == other.not_regular
    }
}

impl Eq for OutputFile {}

/// One run's private working directory.
#[derive(Debug)]
pub struct Workdir {
    root: tempfile::TempDir,
    stdin: Option<PathBuf>,
    /// Device, inode and mode of the root and of `cwd/` as made ([`Workdir::is_as_made`]).
    made: [(u64, u64, u32); 2],
    /// The `parent` it was made under.
    parent: Option<PathBuf>,
}

impl Workdir {
    /// A fresh directory under `parent` (the system's temporary directory when `None`)
    /// holding copies of the setting's files; `parent` is created if needed.
    pub fn create(parent: Option<&Path>, setting: &Setting) -> io::Result<Workdir> {
        let root = match parent {
            Some(parent) => {
                std::fs::create_dir_all(parent)?;
                tempfile::Builder::new().prefix("run-").tempdir_in(parent)?
            }
            None => tempfile::Builder::new().prefix("syncmut-run-").tempdir()?,
        };
        let cwd = root.path().join("cwd");
        std::fs::create_dir(&cwd)?;
        let inside = Dir::open(&cwd)?;
        for (i, copy) in setting.files.iter().enumerate() {
            let (dir, name) = inside.parent_of(Path::new(&copy.to), true).map_err(|e| {
                io::Error::new(e.kind(), format!("files[{i}].to {:?}: {e}", copy.to))
            })?;
            copy_tree(&copy.from, &dir, name).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!(
                        "files[{i}].from {}: cannot copy into the working directory: {e}",
                        copy.from.display()
                    ),
                )
            })?;
        }
        // A stdin file is copied beside cwd/ too: the run reads a regular file syncmut
        // made, never a FIFO or device that would block it or never end.
        let stdin = match &setting.stdin {
            None => None,
            Some(Stdin::File { file }) => {
                let mut source = beneath::open_regular(file, true).map_err(|e| {
                    io::Error::new(e.kind(), format!("stdin.file {}: {e}", file.display()))
                })?;
                let path = root.path().join("stdin");
                io::copy(&mut source, &mut std::fs::File::create_new(&path)?)?;
                Some(path)
            }
            Some(Stdin::Text(text)) => {
                let path = root.path().join("stdin");
                std::fs::write(&path, text)?;
                Some(path)
            }
        };
        let made = [identity(root.path())?, identity(&cwd)?];
        Ok(Workdir {
            root,
            stdin,
            made,
            parent: parent.map(Path::to_path_buf),
        })
    }

    /// A fresh directory for `setting`, or `spare` when a run left it exactly as
    /// [`Workdir::create`] made it under the same parent: the setting copies no files in
    /// and gives no stdin (so every such directory is alike), and the root holds only `cwd/`, which is empty and is still the same
    /// directory with the same permissions. Then no later run can tell it from a fresh
    /// one, and a search's runs skip a `mkdir` and a removal each.
    pub fn reuse_or_create(
        spare: Option<Workdir>,
        parent: Option<&Path>,
        setting: &Setting,
    ) -> io::Result<Workdir> {
        match spare {
            Some(workdir) if workdir.parent.as_deref() == parent && workdir.is_as_made(setting) => {
                Ok(workdir)
            }
            _ => Workdir::create(parent, setting),
        }
    }

    fn is_as_made(&self, setting: &Setting) -> bool {
        let cwd = self.cwd();
        let only = |dir: &Path, allowed: &[&str]| {
            std::fs::read_dir(dir).is_ok_and(|mut entries| {
                entries.all(|e| e.is_ok_and(|e| allowed.iter().any(|a| e.file_name() == *a)))
            })
        };
        setting.files.is_empty()
            && setting.stdin.is_none()
            && self.stdin.is_none()
            && [identity(self.root.path()).ok(), identity(&cwd).ok()]
                == [Some(self.made[0]), Some(self.made[1])]
            && only(self.root.path(), &["cwd"])
            && only(&cwd, &[])
    }

    /// The design's working directory.
    pub fn cwd(&self) -> PathBuf {
        self.root.path().join("cwd")
    }

    /// The file the design reads as stdin, if the test gives one.
    pub fn stdin(&self) -> Option<&Path> {
        self.stdin.as_deref()
    }

    /// Size and digest of each of `outputs` as the run left it (`None`: missing or not
    /// a readable file).
    pub fn read_outputs(&self, outputs: &[String]) -> BTreeMap<String, Option<OutputFile>> {
        let cwd = self.cwd();
        outputs
            .iter()
            .map(|name| (name.clone(), digest(&cwd, name)))
            .collect()
    }

    /// Moves the working directory to `dest` (replacing what is there) instead of
    /// removing it: the files a killed mutant left, for the user to look at, capped
    /// ([`kept::Caps::KEPT`], what was cut noted beside it).
    pub fn keep(self, dest: &Path) -> io::Result<()> {
        if dest.exists() {
            std::fs::remove_dir_all(dest)?;
        }
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        make_removable(&self.cwd());
        std::fs::rename(self.cwd(), dest)?;
        kept::cap(dest, kept::Caps::KEPT).map(|_| ())
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        // A design may have taken away its own permissions on what it wrote; the
        // directory must go all the same.
        make_removable(self.root.path());
    }
}

fn identity(path: &Path) -> io::Result<(u64, u64, u32)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path)?;
    Ok((meta.dev(), meta.ino(), meta.mode()))
}

/// Size and digest of output `name` under `cwd`, read in pieces (a 900 MB output costs
/// no more memory than a small one) up to the size it had when opened; `None` when it
/// is missing; a FIFO, device, directory or link in its place is recorded as what it is.
fn digest(cwd: &Path, name: &str) -> Option<OutputFile> {
    use io::Read;
    let other = |what: String| OutputFile {
        bytes: 0,
        sha256: String::new(),
        head: Vec::new(),
        not_regular: Some(what),
    };
    let file = match Dir::open(cwd).and_then(|dir| dir.open_regular(Path::new(name))) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => return Some(other(e.to_string())),
    };
    let size = file.metadata().ok()?.len();
    let mut reader = file.take(size);
    let mut hasher = Sha256::new();
    let mut head = Vec::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut bytes = 0u64;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Some(other(format!("cannot be read: {e}"))),
        };
        hasher.update(&buffer[..n]);
        let room = OutputFile::HEAD.saturating_sub(head.len()).min(n);
        head.extend_from_slice(&buffer[..room]);
        bytes += n as u64;
    }
    Some(OutputFile {
        bytes,
        sha256: format!("{:x}", hasher.finalize()),
        head,
        not_regular: None,
    })
}

/// Copies a file, a directory with everything in it, or a symbolic link as a link, to
/// `name` in `dest` (no link followed there). Files and directories keep their
/// permissions and their access and modification times, so a design that reads an
/// input's time stamp (or `make`-style freshness checks) sees the same in every run. A
/// FIFO, socket or device is refused, naming what it is: reading one would block or
/// never end.
fn copy_tree(from: &Path, dest: &Dir, name: &OsStr) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(from)?;
    if meta.file_type().is_symlink() {
        dest.symlink(&std::fs::read_link(from)?, name)
    } else if meta.is_dir() {
        let to = dest.subdir(name)?;
        let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for entry in &entries {
            copy_tree(&entry.path(), &to, &entry.file_name()).map_err(|e| {
                io::Error::new(e.kind(), format!("{}: {e}", entry.path().display()))
            })?;
        }
        // After its entries, whose creation changed its modification time.
        let handle = to.as_file()?;
        keep_times(&meta, &handle)?;
        handle.set_permissions(meta.permissions())
    } else {
        let mut source = beneath::open_regular(from, false)?;
        let mut copy = dest.create_file(name)?;
        io::copy(&mut source, &mut copy)?;
        copy.set_permissions(std::fs::Permissions::from_mode(meta.permissions().mode()))?;
        keep_times(&meta, &copy)
    }
}

/// Gives `to` the access and modification times `meta` has (through the handle it was
/// written or made by: a file without write permission for its owner keeps its times).
fn keep_times(meta: &std::fs::Metadata, to: &std::fs::File) -> io::Result<()> {
    let times = std::fs::FileTimes::new()
        .set_accessed(meta.accessed()?)
        .set_modified(meta.modified()?);
    to.set_times(times)
}

/// Gives the owner full access to every directory under `path`, so it can be removed.
fn make_removable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    if meta.permissions().mode() & 0o700 != 0o700 {
        let _ = std::fs::set_permissions(
            path,
            std::fs::Permissions::from_mode(meta.permissions().mode() | 0o700),
        );
    }
    if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            make_removable(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_case::FileCopy;

    #[test]
    fn files_are_copied_stdin_kept_aside_and_everything_removed_at_the_end() {
        let src = tempfile::tempdir().unwrap();
        std::fs::create_dir(src.path().join("data")).unwrap();
        std::fs::write(src.path().join("data/a.txt"), "a").unwrap();
        let setting = Setting {
            files: vec![FileCopy {
                from: src.path().join("data"),
                to: "in/data".into(),
            }],
            stdin: Some(Stdin::Text("hello\n".into())),
            outputs: vec!["in/data/a.txt".into(), "missing".into()],
            ..Setting::default()
        };
        let parent = tempfile::tempdir().unwrap();
        let workdir = Workdir::create(Some(parent.path()), &setting).unwrap();
        assert_eq!(
            std::fs::read_to_string(workdir.cwd().join("in/data/a.txt")).unwrap(),
            "a"
        );
        assert_eq!(
            std::fs::read_to_string(workdir.stdin().unwrap()).unwrap(),
            "hello\n"
        );
        assert!(!workdir.cwd().join("stdin").exists());
        let outputs = workdir.read_outputs(&setting.outputs);
        assert_eq!(outputs["in/data/a.txt"].as_ref().unwrap().bytes, 1);
        assert_eq!(outputs["missing"], None);
        // A directory the design made unwritable is removed all the same.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            workdir.cwd().join("in"),
            std::fs::Permissions::from_mode(0o500),
        )
        .unwrap();
        drop(workdir);
        assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 0);
    }

    #[test]
    fn copies_keep_the_modification_time_and_permissions_of_their_source() {
        use std::os::unix::fs::PermissionsExt;
        let src = tempfile::tempdir().unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
        std::fs::create_dir(src.path().join("dir")).unwrap();
        let set_old = |p: &Path| {
            std::fs::File::open(p)
                .unwrap()
                .set_times(std::fs::FileTimes::new().set_modified(old))
                .unwrap()
        };
        for (name, mode) in [("bios.img", 0o444), ("dir/in_real", 0o640)] {
            let path = src.path().join(name);
            std::fs::write(&path, name).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            set_old(&path);
        }
        set_old(&src.path().join("dir"));
        let setting = Setting {
            files: vec![
                FileCopy {
                    from: src.path().join("bios.img"),
                    to: "bios.img".into(),
                },
                FileCopy {
                    from: src.path().join("dir"),
                    to: "data".into(),
                },
            ],
            ..Setting::default()
        };
        let workdir = Workdir::create(None, &setting).unwrap();
        for (from, to) in [
            ("bios.img", "bios.img"),
            ("dir/in_real", "data/in_real"),
            ("dir", "data"),
        ] {
            let source = std::fs::metadata(src.path().join(from)).unwrap();
            let copy = std::fs::metadata(workdir.cwd().join(to)).unwrap();
            assert_eq!(copy.modified().unwrap(), source.modified().unwrap(), "{to}");
            assert_eq!(copy.modified().unwrap(), old, "{to}");
            assert_eq!(
                copy.permissions().mode() & 0o7777,
                source.permissions().mode() & 0o7777,
                "{to}"
            );
        }
    }

    #[test]
    fn a_directory_is_reused_only_as_it_was_made() {
        let parent = tempfile::tempdir().unwrap();
        let fresh = |spare| {
            Workdir::reuse_or_create(spare, Some(parent.path()), &Setting::default()).unwrap()
        };
        let first = fresh(None);
        let path = first.cwd();
        // Left empty: the same directory again.
        let second = fresh(Some(first));
        assert_eq!(second.cwd(), path);
        // A file left behind, a file beside cwd/, or changed permissions: a new one.
        std::fs::write(second.cwd().join("left"), "x").unwrap();
        let third = fresh(Some(second));
        assert_ne!(third.cwd(), path);
        assert!(!path.exists(), "the used directory is removed");
        let path = third.cwd();
        std::fs::write(path.parent().unwrap().join("beside"), "x").unwrap();
        let fourth = fresh(Some(third));
        assert_ne!(fourth.cwd(), path);
        use std::os::unix::fs::PermissionsExt;
        let path = fourth.cwd();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o500)).unwrap();
        let fifth = fresh(Some(fourth));
        assert_ne!(fifth.cwd(), path);
        // A setting that copies files in never reuses.
        let src = tempfile::tempdir().unwrap();
        std::fs::write(src.path().join("f"), "f").unwrap();
        let files = Setting {
            files: vec![FileCopy {
                from: src.path().join("f"),
                to: "f".into(),
            }],
            ..Setting::default()
        };
        let path = fifth.cwd();
        let sixth = Workdir::reuse_or_create(Some(fifth), Some(parent.path()), &files).unwrap();
        assert_ne!(sixth.cwd(), path);
    }

    #[test]
    fn a_kept_directory_moves_to_its_destination() {
        let parent = tempfile::tempdir().unwrap();
        let workdir =
            Workdir::create(Some(&parent.path().join("work")), &Setting::default()).unwrap();
        std::fs::write(workdir.cwd().join("left"), "x").unwrap();
        let dest = parent.path().join("kept/m1");
        workdir.keep(&dest).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join("left")).unwrap(), "x");
        assert_eq!(
            std::fs::read_dir(parent.path().join("work"))
                .unwrap()
                .count(),
            0
        );
    }
}
