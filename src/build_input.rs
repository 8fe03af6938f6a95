//! How a design is named on the command line besides its sources: a project's compile
//! database (`--compile-db`, `--target`), the project root reports name files against
//! (`--root`), and the settings file (`--config`). `syncmut cc`/`c++` (the compiler
//! wrapper) leave a manifest beside each executable they link, so the executable itself
//! can be named as the design.

use clap::Args;
use std::path::{Path, PathBuf};
use syncmut_mutator::{Design, MutatorError};

#[derive(Args, Clone, Debug, Default)]
pub struct ProjectArgs {
    /// Build the design from a compile database (compile_commands.json): each unit with
    /// its own flags, in its own directory (docs/usage.md, "Your project's build").
    #[arg(long, value_name = "FILE")]
    pub compile_db: Option<PathBuf>,
    /// With --compile-db of a CMake build directory: the executable target whose units
    /// make up the design (needed when it describes several programs).
    #[arg(long, value_name = "NAME", requires = "compile_db")]
    pub target: Option<String>,
    /// The project root: reports name files relative to it (default: the deepest
    /// directory holding every named path and the compile database).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The settings file (default: syncmut.toml beside the design).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

impl ProjectArgs {
    /// The design named by `paths` (sources, directories, modules, or an executable
    /// linked through `syncmut cc`) or by the compile database, with `flags` for every
    /// compile (and `-l`/`-L`/`-Wl,` for the link).
    pub fn design(&self, paths: &[PathBuf], flags: &[String]) -> Result<Design, MutatorError> {
        let design = match &self.compile_db {
            Some(db) => Design::from_compile_db(db, self.target.as_deref(), flags)?,
            None => Design::from_paths(paths, flags)?,
        };
        Ok(match &self.root {
            Some(root) => design.with_root(root),
            None => design,
        })
    }

    /// The directories a design's own files (syncmut.toml, tests.json) are looked for
    /// in, first match winning: the named directories, the named files' directories, the
    /// compile database's directory, the root.
    pub fn beside(&self, paths: &[PathBuf]) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = paths.iter().filter(|p| p.is_dir()).cloned().collect();
        dirs.extend(
            paths
                .iter()
                .filter(|p| p.is_file())
                .map(|p| p.parent().map(Path::to_path_buf).unwrap_or_default()),
        );
        dirs.extend(
            self.compile_db
                .iter()
                .map(|db| db.parent().map(Path::to_path_buf).unwrap_or_default()),
        );
        dirs.extend(self.root.iter().cloned());
        dirs.into_iter()
            .map(|d| {
                if d.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    d
                }
            })
            .collect()
    }

    /// `--config FILE`, else the first `syncmut.toml` found [`beside`](Self::beside) the
    /// design.
    pub fn config_file(&self, paths: &[PathBuf]) -> anyhow::Result<Option<PathBuf>> {
        if let Some(file) = &self.config {
            anyhow::ensure!(
                file.is_file(),
                "{}: no such settings file (--config)",
                file.display()
            );
            return Ok(Some(file.clone()));
        }
        Ok(self
            .beside(paths)
            .into_iter()
            .map(|d| d.join(crate::config::FILE))
            .find(|p| p.is_file()))
    }

    /// The `tests.json` found beside the design, if any.
    pub fn tests_file(&self, paths: &[PathBuf]) -> Option<PathBuf> {
        self.beside(paths)
            .into_iter()
            .map(|d| d.join("tests.json"))
            .find(|p| p.is_file())
    }
}
