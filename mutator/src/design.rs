//! A design as the user names it: source files, a directory of sources, or an LLVM
//! module, plus extra compiler flags.

use crate::error::{MutatorError, Result};
pub use crate::flags::is_library_file;
use std::path::{Path, PathBuf};

/// Source-language of one input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// C (`.c`), compiled with clang-16.
    C,
    /// C++ (`.cc`, `.cpp`, `.cxx`, `.C`, `.c++`), compiled with clang++-16.
    Cxx,
    /// LLVM bitcode (`.bc`) or textual IR (`.ll`).
    Llvm,
}

/// One input file with its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The file, as the user named it.
    pub path: PathBuf,
    /// How it is turned into bitcode.
    pub kind: InputKind,
    /// Its own compile flags (a compile database's unit), before the design's.
    pub flags: Vec<String>,
    /// The directory to compile it in (a compile database's unit: its relative paths
    /// are relative to it); the working directory when `None`.
    pub directory: Option<PathBuf>,
}

impl Input {
    fn new(path: PathBuf, kind: InputKind) -> Input {
        Input {
            path,
            kind,
            flags: Vec::new(),
            directory: None,
        }
    }
}

/// The files that make up a design and the flags to build them with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Design {
    /// The sources or LLVM modules to compile and link.
    pub inputs: Vec<Input>,
    /// Flags after `--`: compile flags go to every compile; `-l`, `-L` and `-Wl,` flags
    /// go to the link only.
    pub flags: Vec<String>,
    /// The project's own synchronization functions (`[[sync]]` in syncmut.toml).
    pub sync: Vec<crate::user_sync::UserSync>,
    /// The project root, absolute: reports name the design's files relative to it. By
    /// default the deepest directory holding every path the user named (a directory
    /// itself, a file's parent); `--root` sets it.
    pub root: PathBuf,
    /// How many translation units are compiled at once (default: the number of cores).
    pub jobs: usize,
    /// What the user must know about how the design was put together (shown as
    /// warnings with the catalogue), e.g. libraries linked without being mutated.
    pub notes: Vec<String>,
}

impl Design {
    /// Classifies the named paths; a directory stands for the C/C++ sources in it and in
    /// its subdirectories, build output left out (see `is_build_output`), sorted by
    /// path so builds are reproducible.
    pub fn from_paths(paths: &[PathBuf], flags: &[String]) -> Result<Design> {
        let mut inputs = Vec::new();
        let mut flags = flags.to_vec();
        // Directories the root must hold besides the named paths: the sources of a
        // program linked through `syncmut cc`.
        let mut sources_dirs = Vec::new();
        let mut notes = Vec::new();
        for path in paths {
            utf8(path)?;
            let meta = std::fs::metadata(path).map_err(|source| match source.kind() {
                std::io::ErrorKind::NotFound => MutatorError::InputNotFound(path.clone()),
                _ => MutatorError::InputUnreadable {
                    path: path.clone(),
                    source,
                },
            })?;
            if meta.is_dir() {
                let mut found = Vec::new();
                sources_under(path, &mut found)?;
                if found.is_empty() {
                    return Err(MutatorError::EmptyDirectory(path.clone()));
                }
                found.sort_by(|a, b| a.path.cmp(&b.path));
                found
                    .iter()
                    .try_for_each(|input| utf8(&input.path).map(drop))?;
                inputs.extend(found);
            } else if let (None, Some(program)) = (kind_of(path), crate::wrapped::program_of(path)?)
            {
                for unit in program.units {
                    utf8(&unit.bitcode)?;
                    sources_dirs.extend(unit.source.parent().map(Path::to_path_buf));
                    inputs.push(Input::new(unit.bitcode, InputKind::Llvm));
                }
                for archive in program.link_flags.iter().filter(|f| f.ends_with(".a")) {
                    notes.push(format!("{}: {archive} is linked as it is, not mutated: `syncmut cc` cannot follow objects into a static archive (link the objects themselves, or use --compile-db)", path.display()));
                }
                // The record is an input file like any other: its flags go through the
                // allowlist.
                let record = crate::wrapped::beside(path, "");
                let (kept, dropped) =
                    crate::flags::allow(&program.link_flags, &record.display().to_string());
                flags.extend(kept);
                notes.extend(dropped);
            } else {
                // A preprocessed C file (`.i`, as SV-COMP publishes its tasks) is taken
                // when named, never from a directory, where it is usually build output.
                let preprocessed = path.extension().is_some_and(|e| e == "i");
                let kind = kind_of(path)
                    .or(preprocessed.then_some(InputKind::C))
                    .ok_or_else(|| MutatorError::UnsupportedInput(path.clone()))?;
                // Fail early on unreadable files, naming them, rather than in clang.
                std::fs::File::open(path).map_err(|source| MutatorError::InputUnreadable {
                    path: path.clone(),
                    source,
                })?;
                inputs.push(Input::new(path.clone(), kind));
            }
        }
        let named = paths.iter().map(|p| {
            if p.is_dir() {
                p.clone()
            } else {
                p.parent().map(Path::to_path_buf).unwrap_or_default()
            }
        });
        let root = common_root(named.chain(sources_dirs));
        Ok(Design {
            inputs,
            flags,
            root,
            jobs: default_jobs(),
            notes,
            sync: Vec::new(),
        })
    }

    /// Names the project root explicitly (`--root`); relative to the working directory.
    pub fn with_root(mut self, root: &Path) -> Design {
        self.root = absolute(root);
        self
    }

    /// Flags for compiling (everything but link-only flags).
    pub(crate) fn compile_flags(&self) -> impl Iterator<Item = &String> {
        self.flags.iter().filter(|f| !is_link_flag(f))
    }

    /// Flags for linking (`-l`, `-L`, `-Wl,`).
    pub(crate) fn link_flags(&self) -> impl Iterator<Item = &String> {
        self.flags.iter().filter(|f| is_link_flag(f))
    }
}

/// Directories a source tree holds that are not its sources: hidden ones (`.git`), the
/// output of common build systems, and syncmut's own run directories (marked by a
/// `.syncmut` file, or holding `mutants.json`), whose build copies would otherwise be
/// compiled into the design again.
fn is_build_output(dir: &Path) -> bool {
    const BUILD_DIRS: &[&str] = &[
        "build",
        "target",
        "CMakeFiles",
        "_build",
        "out",
        "syncmut.out",
        "syncmut.gen",
        "node_modules",
    ];
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.starts_with('.')
        || BUILD_DIRS.contains(&name)
        || name.starts_with("cmake-build-")
        || dir.join(".syncmut").exists()
        || dir.join("mutants.json").exists()
}

fn sources_under(dir: &Path, found: &mut Vec<Input>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|source| MutatorError::InputUnreadable {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !is_build_output(&path) {
                sources_under(&path, found)?;
            }
        } else if let Some(kind @ (InputKind::C | InputKind::Cxx)) = kind_of(&path) {
            if path.is_file() {
                found.push(Input::new(path, kind));
            }
        }
    }
    Ok(())
}

/// `path` made absolute against the working directory and normalised lexically (`..`
/// resolved, symbolic links kept), as clang records a source's path in debug info.
pub fn absolute(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    crate::source::normalize(&cwd.join(path))
}

/// The deepest directory that holds every one of `dirs` (each made absolute); `/` when
/// they share nothing else, the working directory when there are none.
pub(crate) fn common_root(dirs: impl IntoIterator<Item = PathBuf>) -> PathBuf {
    let mut root: Option<PathBuf> = None;
    for dir in dirs {
        let dir = absolute(&dir);
        root = Some(match root {
            None => dir,
            Some(r) => r
                .components()
                .zip(dir.components())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    root.unwrap_or_else(|| absolute(Path::new(".")))
}

/// Paths cross into clang, llvm-link and LLVM's C API as text: refuse, naming it, a
/// path that is not UTF-8 rather than fail later with a mangled name.
pub(crate) fn utf8(path: &Path) -> Result<&str> {
    path.to_str()
        .ok_or_else(|| MutatorError::NonUtf8Path(path.to_path_buf()))
}

fn is_link_flag(flag: &str) -> bool {
    flag.starts_with("-l")
        || flag.starts_with("-L")
        || flag.starts_with("-Wl,")
        || is_library_file(flag)
}

/// How many translation units are compiled at once.
pub(crate) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The kind of an input by its extension.
pub fn kind_of(path: &Path) -> Option<InputKind> {
    match path.extension()?.to_str()? {
        "c" => Some(InputKind::C),
        "cc" | "cpp" | "cxx" | "C" | "c++" => Some(InputKind::Cxx),
        "bc" | "ll" => Some(InputKind::Llvm),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_searched_recursively_without_build_output() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "main.c",
            "src/pool.c",
            "src/deep/queue.cpp",
            "README.md",
            "build/gen.c",
            ".git/hook.c",
            "cmake-build-debug/x.c",
            "run/mutants.json",
            "run/copy.c",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let design = Design::from_paths(&[root.to_path_buf()], &[]).unwrap();
        let found: Vec<_> = design
            .inputs
            .iter()
            .map(|i| {
                i.path
                    .strip_prefix(root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(found, ["main.c", "src/deep/queue.cpp", "src/pool.c"]);
        assert_eq!(design.inputs[1].kind, InputKind::Cxx);
    }

    #[test]
    fn the_root_is_the_deepest_directory_holding_every_named_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in ["app/src/a.c", "app/lib/b.c"] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let two_files =
            Design::from_paths(&[root.join("app/src/a.c"), root.join("app/lib/b.c")], &[]).unwrap();
        assert_eq!(two_files.root, root.join("app"));
        let one_file = Design::from_paths(&[root.join("app/src/a.c")], &[]).unwrap();
        assert_eq!(one_file.root, root.join("app/src"));
        let a_directory = Design::from_paths(&[root.join("app/lib/../src")], &[]).unwrap();
        assert_eq!(
            a_directory.root,
            root.join("app/src"),
            "named directories are normalised"
        );
        assert_eq!(a_directory.with_root(root).root, root);
    }

    #[test]
    fn a_directory_with_only_build_output_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("build")).unwrap();
        std::fs::write(dir.path().join("build/a.c"), "").unwrap();
        assert!(matches!(
            Design::from_paths(&[dir.path().to_path_buf()], &[]),
            Err(MutatorError::EmptyDirectory(_))
        ));
    }
}
