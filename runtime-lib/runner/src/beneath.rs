//! Files under a directory syncmut made, reached without following symbolic links.
//!
//! A test file decides the names syncmut writes in a run's working directory (`files`
//! entries' `to`) and reads back from it (`outputs`); the directory's contents come from
//! the test's `files` and from the design. A name like `d/pwn` where `d` is a symbolic
//! link to a directory elsewhere would make a path-based `create` write outside. So every
//! such path is walked one component at a time from an open directory descriptor
//! (`openat` with `O_NOFOLLOW`): a link anywhere on the way is refused, by construction,
//! not by a check that a later change of the directory could outrun.
//!
//! Files are opened with `O_NONBLOCK | O_NOCTTY` and then checked with `fstat`: a FIFO
//! opens at once instead of waiting for a writer, a terminal is not made the controlling
//! one, and anything that is not a regular file is refused by what it is ([`kind`]).

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

/// An open directory: the start of every walk.
#[derive(Debug)]
pub struct Dir(OwnedFd);

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "a file name with a NUL character",
        )
    })
}

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    match ret {
        -1 => Err(io::Error::last_os_error()),
        fd => Ok(fd),
    }
}

/// The plain names of a relative path: `a/./b` → `a`, `b`; an absolute path, `..` or an
/// empty path is refused.
fn names(rel: &Path) -> io::Result<Vec<&OsStr>> {
    let mut names = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(name) => names.push(name),
            Component::CurDir => {}
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{}: not a relative path without \"..\"", rel.display()),
                ))
            }
        }
    }
    match names.is_empty() {
        true => Err(io::Error::new(io::ErrorKind::InvalidInput, "an empty path")),
        false => Ok(names),
    }
}

/// What a file type is, in words, for a refusal: `a directory`, `a FIFO`, …
pub fn kind(mode: libc::mode_t) -> &'static str {
    match mode & libc::S_IFMT {
        libc::S_IFREG => "a regular file",
        libc::S_IFDIR => "a directory",
        libc::S_IFIFO => "a FIFO",
        libc::S_IFSOCK => "a socket",
        libc::S_IFCHR => "a character device",
        libc::S_IFBLK => "a block device",
        libc::S_IFLNK => "a symbolic link",
        _ => "not a file",
    }
}

fn fstat(fd: &impl AsRawFd) -> io::Result<libc::stat> {
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `stat` is a valid buffer for the call to fill.
    check(unsafe { libc::fstat(fd.as_raw_fd(), &mut stat) })?;
    Ok(stat)
}

/// A file that is not a regular file, refused: `what` names it.
fn not_regular(mode: libc::mode_t) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{}, not a regular file (syncmut reads regular files only)",
            kind(mode)
        ),
    )
}

/// `open` or `openat` with the flags every open here shares.
fn open_at(dir: Option<&Dir>, name: &OsStr, flags: libc::c_int, mode: u32) -> io::Result<OwnedFd> {
    let name = c_name(name)?;
    let flags = flags | libc::O_CLOEXEC | libc::O_NOCTTY;
    let at = dir.map_or(libc::AT_FDCWD, |d| d.0.as_raw_fd());
    // SAFETY: `name` is NUL-terminated; the returned descriptor is owned from here on.
    let fd = check(unsafe { libc::openat(at, name.as_ptr(), flags, mode as libc::c_uint) })
        .map_err(|e| link_in_the_way(e, &name))?;
    // SAFETY: `fd` was just opened and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `O_NOFOLLOW` on a link fails with `ELOOP` (or `ENOTDIR` with `O_DIRECTORY`): says
/// that in words.
fn link_in_the_way(e: io::Error, name: &CString) -> io::Error {
    match e.raw_os_error() {
        Some(libc::ELOOP) => io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is a symbolic link, which syncmut does not follow here",
                name.to_string_lossy()
            ),
        ),
        _ => e,
    }
}

/// Opens a regular file to read, wherever it is (an input the test file names): a link
/// as the last component is refused when `follow` is false; a FIFO, device, socket or
/// directory is refused without blocking.
pub fn open_regular(path: &Path, follow: bool) -> io::Result<File> {
    let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
    let fd = open_at(
        None,
        path.as_os_str(),
        libc::O_RDONLY | libc::O_NONBLOCK | nofollow,
        0,
    )?;
    regular(fd)
}

/// `fd` as a blocking [`File`] when it is a regular file.
fn regular(fd: OwnedFd) -> io::Result<File> {
    let stat = fstat(&fd)?;
    if stat.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(not_regular(stat.st_mode));
    }
    // Reads of a regular file never block; clearing O_NONBLOCK keeps it that way for
    // whoever reads it (a design's stdin).
    // SAFETY: plain fcntl calls on a descriptor this function owns.
    unsafe {
        let flags = check(libc::fcntl(fd.as_raw_fd(), libc::F_GETFL))?;
        check(libc::fcntl(
            fd.as_raw_fd(),
            libc::F_SETFL,
            flags & !libc::O_NONBLOCK,
        ))?;
    }
    Ok(File::from(fd))
}

impl Dir {
    /// Opens a directory syncmut made (not through a link).
    pub fn open(path: &Path) -> io::Result<Dir> {
        open_at(
            None,
            path.as_os_str(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW,
            0,
        )
        .map(Dir)
    }

    /// The directory `name` in this one, made if missing (mode 0777 less the umask); an
    /// existing link or other file there is refused.
    pub fn subdir(&self, name: &OsStr) -> io::Result<Dir> {
        let c = c_name(name)?;
        // SAFETY: `c` is NUL-terminated.
        match check(unsafe { libc::mkdirat(self.0.as_raw_fd(), c.as_ptr(), 0o777) }) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::EEXIST) => {}
            Err(e) => return Err(e),
        }
        self.existing_subdir(name)
    }

    fn existing_subdir(&self, name: &OsStr) -> io::Result<Dir> {
        open_at(
            Some(self),
            name,
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW,
            0,
        )
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ENOTDIR) => io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is not a directory (a symbolic link is not followed)",
                    name.to_string_lossy()
                ),
            ),
            _ => e,
        })
        .map(Dir)
    }

    /// The directory holding the last name of `rel` (made as needed) and that name.
    pub fn parent_of<'p>(&self, rel: &'p Path, make: bool) -> io::Result<(Dir, &'p OsStr)> {
        let names = names(rel)?;
        let (last, dirs) = names.split_last().expect("names is not empty");
        let mut dir = self.existing_subdir(OsStr::new("."))?;
        for name in dirs {
            dir = match make {
                true => dir.subdir(name)?,
                false => dir.existing_subdir(name)?,
            };
        }
        Ok((dir, last))
    }

    /// Creates (or truncates) the regular file `name` here to write, private until its
    /// permissions are set; a link or another kind of file there is refused.
    pub fn create_file(&self, name: &OsStr) -> io::Result<File> {
        let fd = open_at(
            Some(self),
            name,
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_NOFOLLOW | libc::O_NONBLOCK,
            0o600,
        )?;
        regular(fd)
    }

    /// Makes the symbolic link `name` → `target` here.
    pub fn symlink(&self, target: &Path, name: &OsStr) -> io::Result<()> {
        let (target, name) = (c_name(target.as_os_str())?, c_name(name)?);
        // SAFETY: both are NUL-terminated.
        check(unsafe { libc::symlinkat(target.as_ptr(), self.0.as_raw_fd(), name.as_ptr()) })
            .map(|_| ())
    }

    /// Opens the regular file at `rel` under this directory to read, no link followed
    /// on the way or at the end; anything but a regular file is refused without blocking.
    pub fn open_regular(&self, rel: &Path) -> io::Result<File> {
        let (dir, name) = self.parent_of(rel, false)?;
        let fd = open_at(
            Some(&dir),
            name,
            libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOFOLLOW,
            0,
        )?;
        regular(fd)
    }

    /// The directory as a [`File`], to set its permissions and times.
    pub fn as_file(&self) -> io::Result<File> {
        Ok(File::from(self.0.try_clone()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_on_the_way_are_refused_and_nothing_is_written_through_them() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("d")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("f"), root.path().join("f")).unwrap();
        let dir = Dir::open(root.path()).unwrap();
        let err = dir.parent_of(Path::new("d/pwn"), true).unwrap_err();
        assert!(err.to_string().contains("d is not a directory"), "{err}");
        let err = dir.create_file(OsStr::new("f")).unwrap_err();
        assert!(err.to_string().contains("f is a symbolic link"), "{err}");
        let err = dir.open_regular(Path::new("d/x")).unwrap_err();
        assert!(err.to_string().contains("not a directory"), "{err}");
        assert!(dir.parent_of(Path::new("../x"), true).is_err());
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
        // Directories made on the way are real ones.
        let (sub, name) = dir.parent_of(Path::new("a/b/c.txt"), true).unwrap();
        std::io::Write::write_all(&mut sub.create_file(name).unwrap(), b"c").unwrap();
        assert_eq!(
            std::fs::read_to_string(root.path().join("a/b/c.txt")).unwrap(),
            "c"
        );
    }

    #[test]
    fn fifos_devices_and_directories_are_refused_at_once() {
        let root = tempfile::tempdir().unwrap();
        let fifo = root.path().join("fifo");
        let c = CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: `c` is NUL-terminated.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let dir = Dir::open(root.path()).unwrap();
        // Without O_NONBLOCK these opens would wait for a writer forever.
        let err = dir.open_regular(Path::new("fifo")).unwrap_err();
        assert!(
            err.to_string().contains("a FIFO, not a regular file"),
            "{err}"
        );
        let err = open_regular(&fifo, true).unwrap_err();
        assert!(err.to_string().contains("a FIFO"), "{err}");
        let err = open_regular(Path::new("/dev/zero"), true).unwrap_err();
        assert!(err.to_string().contains("a character device"), "{err}");
        let err = open_regular(root.path(), true).unwrap_err();
        assert!(err.to_string().contains("a directory"), "{err}");
    }
}
