//! The arguments that name a design (`list`, `run`, `gen`, `mutate`): its sources or
//! module, the project's build settings and extra compiler flags, and how they become a
//! [`Design`] with the settings file's `flags` and `[[sync]]` declarations. `run.rs`
//! reads them too, so they live apart from `main.rs`, which no module imports.

use crate::failure::Failure;
use crate::{build_input, config, exit};
use clap::Args;
use std::path::PathBuf;
use syncmut_mutator::{Design, MutatorError};

#[derive(Args)]
pub struct DesignArgs {
    /// C/C++ sources, a directory of sources, an LLVM module (.bc/.ll), or an
    /// executable linked through `syncmut cc`.
    #[arg(required_unless_present = "compile_db")]
    pub design: Vec<PathBuf>,
    #[command(flatten)]
    pub project: build_input::ProjectArgs,
    /// Extra compiler flags (e.g. `-Iinclude -DN=4`); `-l`/`-L`/`-Wl,` go to the link.
    #[arg(last = true)]
    pub flags: Vec<String>,
    /// The project's own synchronization functions, from syncmut.toml.
    #[arg(skip)]
    pub sync: Vec<syncmut_mutator::user_sync::UserSync>,
    /// The settings file `flags` were taken from (none: the command line), named by the
    /// warnings of the flags the allowlist drops.
    #[arg(skip)]
    pub flags_from: Option<PathBuf>,
}

/// `flags` through the allowlist ([`syncmut_mutator::flags`]), with a warning for each
/// dropped one naming `from` (the settings file) or the command line.
pub fn allowed_flags(
    flags: &[String],
    from: Option<&std::path::Path>,
) -> (Vec<String>, Vec<String>) {
    let origin = from.map_or_else(
        || "the command line".to_string(),
        |f| f.display().to_string(),
    );
    syncmut_mutator::flags::allow(flags, &origin)
}

impl DesignArgs {
    pub fn design(&self) -> Result<Design, MutatorError> {
        let (flags, dropped) = allowed_flags(&self.flags, self.flags_from.as_deref());
        let mut design = self.project.design(&self.design, &flags)?;
        design.notes.extend(dropped);
        design.sync = self.sync.clone();
        Ok(design)
    }

    /// The design, with the settings file's `flags` when none follow `--`, and its
    /// `[[sync]]` declarations.
    pub fn design_with(&self, file: &config::Config) -> Result<Design, MutatorError> {
        let (flags, from) = if self.flags.is_empty() {
            (file.flags.clone().unwrap_or_default(), file.path.as_deref())
        } else {
            (self.flags.clone(), self.flags_from.as_deref())
        };
        let (flags, dropped) = allowed_flags(&flags, from);
        let mut design = self.project.design(&self.design, &flags)?;
        design.notes.extend(dropped);
        design.sync = file.sync.clone();
        Ok(design)
    }

    /// The settings file beside the design (or `--config`).
    pub fn config(&self) -> Result<config::Config, Failure> {
        self.project
            .config_file(&self.design)
            .and_then(|file| config::load(file.as_deref()))
            .map_err(|error| Failure {
                code: exit::USAGE,
                error,
            })
    }
}
