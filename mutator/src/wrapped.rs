//! What `syncmut cc`/`syncmut c++` (the compiler wrapper) leave in a project's build so
//! that a built executable can be named as the design:
//!
//! - beside each object `X` it compiles: `X.syncmut.bc`, the unit's design bitcode, and
//!   `X.syncmut`, a record naming the source and the bitcode;
//! - beside each executable `E` it links: `E.syncmut`, the program's record: every
//!   unit's source and bitcode and the link's libraries.
//!
//! Records are JSON, written atomically. An object newer than its record was rebuilt
//! without the wrapper, so its bitcode is stale and not used.

use crate::error::{MutatorError, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Suffix of every record (and, before `.bc`, of the kept bitcode).
pub(crate) const SUFFIX: &str = ".syncmut";

/// One compiled unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// The source, absolute.
    pub source: PathBuf,
    /// Its design bitcode, absolute.
    pub bitcode: PathBuf,
}

/// One linked program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// Version of the record's format; a reader refuses another.
    pub format_version: u32,
    /// The program's translation units, in link order.
    pub units: Vec<Unit>,
    /// `-l`, `-L`, `-Wl,` flags and library files of the link.
    pub link_flags: Vec<String>,
}

/// Format version of a program record.
pub const PROGRAM_VERSION: u32 = 1;

/// `path` + `.syncmut` (+ `extra`).
pub fn beside(path: &Path, extra: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(SUFFIX);
    name.push(extra);
    PathBuf::from(name)
}

/// Writes the record of `object`, compiled from `unit.source` into `unit.bitcode`.
pub fn record_unit(object: &Path, unit: &Unit) -> Result<()> {
    write(
        &beside(object, ""),
        &serde_json::to_vec_pretty(unit).expect("plain data serialises"),
    )
}

/// The record of `object`, if the wrapper compiled it and it was not rebuilt since.
pub fn unit_of(object: &Path) -> Option<Unit> {
    let record = beside(object, "");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if modified(object)? > modified(&record)? {
        return None;
    }
    serde_json::from_slice(&std::fs::read(record).ok()?).ok()
}

/// Writes the program record beside `executable`.
pub fn record_program(executable: &Path, program: &Program) -> Result<()> {
    write(
        &beside(executable, ""),
        &serde_json::to_vec_pretty(program).expect("plain data serialises"),
    )
}

/// The program record beside `executable`, if there is one; an unreadable one is an
/// error naming it.
pub fn program_of(executable: &Path) -> Result<Option<Program>> {
    let record = beside(executable, "");
    let Ok(bytes) = std::fs::read(&record) else {
        return Ok(None);
    };
    let program: Program =
        serde_json::from_slice(&bytes).map_err(|e| MutatorError::CompileDatabase {
            file: record.clone(),
            message: format!("{e}; link the program again through `syncmut cc`"),
        })?;
    if program.format_version != PROGRAM_VERSION {
        return Err(MutatorError::CompileDatabase {
            file: record,
            message: format!(
                "written by another syncmut (format {}); link the program again",
                program.format_version
            ),
        });
    }
    Ok(Some(program))
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    syncmut_runtime::atomic::write(path, bytes).map_err(|source| MutatorError::Write {
        path: path.to_path_buf(),
        source,
    })
}
