//! A design as the user names it: source files, a directory of sources, or an LLVM
//! module, plus extra compiler flags.

use crate::error::{MutatorError, Result};
use std::path::{Path, PathBuf};

/// Source-language of one input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    C,
    Cxx,
    /// LLVM bitcode (`.bc`) or textual IR (`.ll`).
    Llvm,
}

/// One input file with its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub path: PathBuf,
    pub kind: InputKind,
}

/// The files that make up a design and the flags to build them with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Design {
    pub inputs: Vec<Input>,
    /// Flags after `--`: compile flags go to every compile; `-l`, `-L` and `-Wl,` flags
    /// go to the link only.
    pub flags: Vec<String>,
}

impl Design {
    /// Classifies the named paths; a directory stands for the C/C++ sources directly in it
    /// (sorted by name, so builds are reproducible).
    pub fn from_paths(paths: &[PathBuf], flags: &[String]) -> Result<Design> {
        let mut inputs = Vec::new();
        for path in paths {
            utf8(path)?;
            let meta = std::fs::metadata(path).map_err(|source| match source.kind() {
                std::io::ErrorKind::NotFound => MutatorError::InputNotFound(path.clone()),
                _ => MutatorError::InputUnreadable { path: path.clone(), source },
            })?;
            if meta.is_dir() {
                let mut found: Vec<Input> = std::fs::read_dir(path)
                    .map_err(|source| MutatorError::InputUnreadable { path: path.clone(), source })?
                    .filter_map(|entry| entry.ok().map(|e| e.path()))
                    .filter_map(|p| match kind_of(&p) {
                        Some(kind @ (InputKind::C | InputKind::Cxx)) if p.is_file() => Some(Input { path: p, kind }),
                        _ => None,
                    })
                    .collect();
                if found.is_empty() {
                    return Err(MutatorError::EmptyDirectory(path.clone()));
                }
                found.sort_by(|a, b| a.path.cmp(&b.path));
                found.iter().try_for_each(|input| utf8(&input.path).map(drop))?;
                inputs.extend(found);
            } else {
                let kind = kind_of(path).ok_or_else(|| MutatorError::UnsupportedInput(path.clone()))?;
                // Fail early on unreadable files, naming them, rather than in clang.
                std::fs::File::open(path).map_err(|source| MutatorError::InputUnreadable { path: path.clone(), source })?;
                inputs.push(Input { path: path.clone(), kind });
            }
        }
        Ok(Design { inputs, flags: flags.to_vec() })
    }

    /// A short name for the design: the directory or first file's stem.
    pub fn name(&self) -> String {
        self.inputs
            .first()
            .and_then(|i| i.path.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "design".to_string())
    }

    /// Flags for compiling (everything but link-only flags).
    pub fn compile_flags(&self) -> impl Iterator<Item = &String> {
        self.flags.iter().filter(|f| !is_link_flag(f))
    }

    /// Flags for linking (`-l`, `-L`, `-Wl,`).
    pub fn link_flags(&self) -> impl Iterator<Item = &String> {
        self.flags.iter().filter(|f| is_link_flag(f))
    }
}

/// Paths cross into clang, llvm-link and LLVM's C API as text: refuse, naming it, a
/// path that is not UTF-8 rather than fail later with a mangled name.
pub fn utf8(path: &Path) -> Result<&str> {
    path.to_str().ok_or_else(|| MutatorError::NonUtf8Path(path.to_path_buf()))
}

fn is_link_flag(flag: &str) -> bool {
    flag.starts_with("-l") || flag.starts_with("-L") || flag.starts_with("-Wl,")
}

fn kind_of(path: &Path) -> Option<InputKind> {
    match path.extension()?.to_str()? {
        "c" => Some(InputKind::C),
        "cc" | "cpp" | "cxx" | "C" | "c++" => Some(InputKind::Cxx),
        "bc" | "ll" => Some(InputKind::Llvm),
        _ => None,
    }
}
