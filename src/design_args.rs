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
}

impl DesignArgs {
    pub fn design(&self) -> Result<Design, MutatorError> {
        let mut design = self.project.design(&self.design, &self.flags)?;
        design.sync = self.sync.clone();
        Ok(design)
    }

    /// The design, with the settings file's `flags` when none follow `--`, and its
    /// `[[sync]]` declarations.
    pub fn design_with(&self, file: &config::Config) -> Result<Design, MutatorError> {
        let flags = if self.flags.is_empty() {
            file.flags.clone().unwrap_or_default()
        } else {
            self.flags.clone()
        };
        let mut design = self.project.design(&self.design, &flags)?;
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
