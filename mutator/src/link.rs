//! Linking a bitcode module into an executable in two steps, code generation then the
//! link, so that every file the link reads is one the linker's trace names and still
//! exists afterwards: the build cache (`build_cache.rs`) can then key an executable by
//! its bitcode and command lines and check those files on every fetch. Linking is a
//! large part of building a design (the metamutant's runtime archives), and the same
//! design is built by every command.

use crate::build_cache::{self, Cache, Fetched, Kind};
use crate::error::{MutatorError, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where an executable came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Linked {
    Cached,
    ByLinker,
    /// By the linker, in place of a cache entry that failed its checks (why).
    Repaired(String),
}

/// Compiles `bitcode` with `codegen` flags into an object beside `out`, links it with
/// `link` flags into `out`, and removes the object; through `cache` when given.
pub(crate) fn link(
    linker: &Path,
    codegen: &[OsString],
    link: &[OsString],
    bitcode: &Path,
    out: &Path,
    cache: Option<&Cache>,
) -> Result<Linked> {
    let cwd = std::env::current_dir().map_err(|source| MutatorError::InputUnreadable {
        path: PathBuf::from("."),
        source,
    })?;
    let keyed = cache.and_then(|c| Some((c, key(linker, codegen, link, &cwd, bitcode)?)));
    let mut damaged = None;
    if let Some((cache, key)) = &keyed {
        match cache.fetch(Kind::Executable, key, out) {
            Fetched::Hit => {
                make_executable(out)?;
                return Ok(Linked::Cached);
            }
            Fetched::Miss => {}
            Fetched::Damaged(why) => {
                let _ = std::fs::remove_file(cache.entry(Kind::Executable, key));
                damaged = Some(why);
            }
        }
    }
    let name = out.file_name().unwrap_or_default().to_string_lossy();
    let object = out.with_file_name(format!("{name}.o"));
    let built = codegen_and_link(
        linker,
        codegen,
        link,
        bitcode,
        &object,
        out,
        keyed.is_some(),
    );
    let _ = std::fs::remove_file(&object);
    let trace = built?;
    if let Some((cache, key)) = &keyed {
        if let Some(inputs) = trace_inputs(&trace, &cwd, &cwd.join(&object)) {
            cache.store(Kind::Executable, key, &inputs, out);
        }
    }
    Ok(damaged.map_or(Linked::ByLinker, Linked::Repaired))
}

/// Runs both steps; returns what the linker printed on stdout (its trace when `traced`).
fn codegen_and_link(
    linker: &Path,
    codegen: &[OsString],
    link: &[OsString],
    bitcode: &Path,
    object: &Path,
    out: &Path,
    traced: bool,
) -> Result<String> {
    let step = |cmd: &mut Command| -> Result<String> {
        let output =
            crate::toolchain::run(cmd).map_err(|source| MutatorError::InputUnreadable {
                path: linker.to_path_buf(),
                source,
            })?;
        if !output.status.success() {
            return Err(MutatorError::LinkFailed {
                output: out.to_path_buf(),
                stderr: String::from_utf8_lossy(&output.stderr)
                    .trim_end()
                    .to_string(),
            });
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    };
    step(
        Command::new(linker)
            .args(codegen)
            .arg(bitcode)
            .arg("-o")
            .arg(object),
    )?;
    let mut cmd = Command::new(linker);
    cmd.arg(object).args(link).arg("-o").arg(out);
    if traced {
        cmd.arg("-Wl,--trace");
    }
    step(&mut cmd)
}

/// The executable's key: the linker's version text and path, both command lines (the
/// object and output named by the fixed placeholders the two steps imply), the working
/// directory and library search variable (relative names and `-l` resolve against
/// them) and the bitcode's bytes.
fn key(
    linker: &Path,
    codegen: &[OsString],
    link: &[OsString],
    cwd: &Path,
    bitcode: &Path,
) -> Option<String> {
    let version = build_cache::tool_version(linker)?;
    let bitcode = std::fs::read(bitcode).ok()?;
    let search = std::env::var_os("LIBRARY_PATH").unwrap_or_default();
    let mut fields: Vec<&[u8]> = vec![&version, linker.as_os_str().as_encoded_bytes()];
    fields.push(b"codegen");
    fields.extend(codegen.iter().map(|a| a.as_encoded_bytes()));
    fields.push(b"link");
    fields.extend(link.iter().map(|a| a.as_encoded_bytes()));
    fields.extend([
        cwd.as_os_str().as_encoded_bytes(),
        search.as_encoded_bytes(),
        &bitcode,
    ]);
    Some(build_cache::key(Kind::Executable, &fields))
}

/// The files a link read, from the linker's `--trace` (one per line: a file, an
/// archive's member as `(archive)member`, or a library as `-lname (file)`), less the
/// object made from the bitcode (the key holds the bitcode). None when a line names no
/// regular file: what the link read is then not known, and it is not cached.
fn trace_inputs(trace: &str, cwd: &Path, object: &Path) -> Option<Vec<PathBuf>> {
    let mut inputs = Vec::new();
    for line in trace.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let named = match line.strip_prefix('(') {
            Some(rest) => rest.split_once(')')?.0,
            None => match line.strip_suffix(')') {
                Some(rest) => rest.rsplit_once(" (")?.1,
                None => line,
            },
        };
        let path = cwd.join(named);
        if path == object {
            continue;
        }
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            return None;
        }
        inputs.push(path);
    }
    Some(inputs)
}

/// Gives a fetched executable execute permission wherever it has read permission (the
/// cache writes it as a plain file).
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let write_error = |source| MutatorError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mode = std::fs::metadata(path)
        .map_err(write_error)?
        .permissions()
        .mode();
    std::fs::set_permissions(
        path,
        std::fs::Permissions::from_mode(mode | (mode & 0o444) >> 2),
    )
    .map_err(write_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A C program linked against a static library of the test's own, by the same tools
    /// the designs are linked with.
    struct Scratch {
        dir: tempfile::TempDir,
        cache: Cache,
    }

    impl Scratch {
        fn new() -> Scratch {
            let dir = tempfile::tempdir().unwrap();
            let cache = Cache {
                dir: dir.path().join("cache"),
            };
            std::fs::create_dir_all(cache.dir.join("link")).unwrap();
            std::fs::write(
                dir.path().join("main.c"),
                "int answer(void);\nint main(void) { return answer(); }\n",
            )
            .unwrap();
            let scratch = Scratch { dir, cache };
            let clang = crate::toolchain::compiler(crate::design::InputKind::C).unwrap();
            let status = Command::new(&clang)
                .current_dir(scratch.dir.path())
                .args(["-c", "-emit-llvm", "-O0", "main.c", "-o", "main.bc"])
                .status()
                .unwrap();
            assert!(status.success());
            scratch.library(7);
            scratch
        }

        /// `libanswer.a`, whose `answer()` returns `value`.
        fn library(&self, value: i32) {
            let dir = self.dir.path();
            std::fs::write(
                dir.join("answer.c"),
                format!("int answer(void) {{ return {value}; }}\n"),
            )
            .unwrap();
            let clang = crate::toolchain::compiler(crate::design::InputKind::C).unwrap();
            let compiled = Command::new(clang)
                .current_dir(dir)
                .args(["-c", "answer.c", "-o", "answer.o"])
                .status()
                .unwrap();
            let _ = std::fs::remove_file(dir.join("libanswer.a"));
            let archived = Command::new("llvm-ar-16")
                .current_dir(dir)
                .args(["rcs", "libanswer.a", "answer.o"])
                .status()
                .unwrap();
            assert!(compiled.success() && archived.success());
        }

        /// Links into `name` and runs it: how it was linked, its exit status.
        fn link(&self, name: &str) -> (Linked, i32) {
            let dir = self.dir.path();
            let linker = crate::toolchain::compiler(crate::design::InputKind::Cxx).unwrap();
            let flags = |words: &[&str]| words.iter().map(OsString::from).collect::<Vec<_>>();
            let libdir = format!("-L{}", dir.display());
            let out = dir.join(name);
            let linked = link(
                &linker,
                &flags(&["-c", "-O0"]),
                &flags(&[&libdir, "-lanswer"]),
                &dir.join("main.bc"),
                &out,
                Some(&self.cache),
            )
            .unwrap();
            assert!(
                !dir.join(format!("{name}.o")).exists(),
                "the object is removed"
            );
            let status = Command::new(&out).status().unwrap();
            (linked, status.code().unwrap())
        }

        fn entries(&self) -> Vec<PathBuf> {
            std::fs::read_dir(self.cache.dir.join("link"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect()
        }
    }

    #[test]
    fn the_same_link_is_fetched_and_a_changed_library_links_again() {
        let scratch = Scratch::new();
        assert_eq!(scratch.link("first"), (Linked::ByLinker, 7));
        assert_eq!(scratch.entries().len(), 1);
        // Another output, the same bitcode and flags: from the cache, and it runs.
        assert_eq!(scratch.link("second"), (Linked::Cached, 7));
        // The library the trace named changed: linked again, with the new library.
        scratch.library(9);
        assert_eq!(scratch.link("third"), (Linked::ByLinker, 9));
        assert_eq!(scratch.link("fourth"), (Linked::Cached, 9));
    }

    #[test]
    fn a_damaged_entry_is_linked_again_and_replaced() {
        let scratch = Scratch::new();
        assert_eq!(scratch.link("first"), (Linked::ByLinker, 7));
        let entry = scratch.entries().remove(0);
        let mut bytes = std::fs::read(&entry).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&entry, &bytes).unwrap();
        let (linked, status) = scratch.link("second");
        assert!(
            matches!(&linked, Linked::Repaired(why) if why.contains("checksum")),
            "{linked:?}"
        );
        assert_eq!(status, 7);
        assert_eq!(scratch.link("third"), (Linked::Cached, 7));
    }

    #[test]
    fn trace_lines_name_files_archives_and_libraries() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.o", "libx.a", "liby.so"] {
            std::fs::write(dir.path().join(name), name).unwrap();
        }
        let object = dir.path().join("made.o");
        let trace = "a.o\n(libx.a)member.o\n-ly (liby.so)\nmade.o\n";
        assert_eq!(
            trace_inputs(trace, dir.path(), &object),
            Some(
                ["a.o", "libx.a", "liby.so"]
                    .iter()
                    .map(|n| dir.path().join(n))
                    .collect()
            )
        );
        // A line naming no file: what the link read is unknown, nothing is cached.
        assert_eq!(
            trace_inputs("ld: mode elf_x86_64\n", dir.path(), &object),
            None
        );
    }
}
