//! clang-16 and llvm-link-16 invocations: sources → one bitcode module → executables.
//!
//! Designs are compiled at -O0 with full debug info (sites map to `file:line:col`, and
//! later stages read variable names), without `optnone` so the analysis may optimise a
//! copy. SystemC sources are C++17 because Debian's libsystemc exports only the C++17
//! API-version symbol.

use crate::api::Family;
use crate::design::{Design, InputKind};
use crate::error::{MutatorError, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

const LLVM_BIN: &str = "/usr/lib/llvm-16/bin";

/// Flags every design compile gets.
const COMPILE_FLAGS: &[&str] = &["-c", "-emit-llvm", "-O0", "-g", "-Xclang", "-disable-O0-optnone", "-fno-discard-value-names"];

/// Locates a tool: `name-16` on PATH, else LLVM 16's own bin directory.
fn tool(versioned: &str, plain: &str) -> Result<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join(versioned)).find(|c| c.is_file()))
        .unwrap_or(None);
    on_path
        .or_else(|| Some(Path::new(LLVM_BIN).join(plain)).filter(|c| c.is_file()))
        .ok_or_else(|| MutatorError::ToolMissing { tool: versioned.to_string(), package: "clang-16 llvm-16".to_string() })
}

/// Runs a compiler or linker to completion. It dies with syncmut (`PR_SET_PDEATHSIG`):
/// a syncmut killed mid-build must not leave clang writing into the run directory that
/// a `--resume` is about to rebuild. The signal follows the thread that started the
/// tool, which waits here until the tool ends, so it never fires early.
fn run(cmd: &mut Command) -> std::io::Result<std::process::Output> {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.env("LC_ALL", "C").output()
}

/// Compiles every source of the design and links all modules into `out` (one module,
/// so `linkonce_odr` bodies shared by several files are instrumented once).
pub fn build_bitcode(design: &Design, workdir: &Path, out: &Path) -> Result<()> {
    let objdir = workdir.join("obj");
    std::fs::create_dir_all(&objdir).map_err(|source| MutatorError::Write { path: objdir.clone(), source })?;
    // The runtime's public header (named inputs, __VERIFIER_nondet_*), so designs can
    // `#include <syncmut.h>` without installing anything.
    let include = workdir.join("include");
    std::fs::create_dir_all(&include).map_err(|source| MutatorError::Write { path: include.clone(), source })?;
    crate::atomic::write(&include.join(syncmut_runtime::HEADER_NAME), syncmut_runtime::HEADER)?;
    let mut modules = Vec::new();
    for (i, input) in design.inputs.iter().enumerate() {
        match input.kind {
            InputKind::Llvm => modules.push(input.path.clone()),
            InputKind::C | InputKind::Cxx => {
                let stem = input.path.file_stem().unwrap_or_default().to_string_lossy();
                let object = objdir.join(format!("{i:03}-{stem}.bc"));
                compile(design, &input.path, input.kind, &include, &object)?;
                modules.push(object);
            }
        }
    }
    let llvm_link = tool("llvm-link-16", "llvm-link")?;
    let output = run(Command::new(&llvm_link).args(&modules).arg("-o").arg(out))
        .map_err(|source| MutatorError::InputUnreadable { path: llvm_link.clone(), source })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let file = modules.first().cloned().unwrap_or_default();
        return Err(MutatorError::BadBitcode { file, message: stderr.trim().to_string() });
    }
    Ok(())
}

fn compile(design: &Design, source: &Path, kind: InputKind, include: &Path, object: &Path) -> Result<()> {
    let compiler = match kind {
        InputKind::Cxx => tool("clang++-16", "clang++")?,
        _ => tool("clang-16", "clang")?,
    };
    let mut cmd = Command::new(&compiler);
    cmd.args(COMPILE_FLAGS);
    let user_flags: Vec<&String> = design.compile_flags().collect();
    if kind == InputKind::Cxx && !user_flags.iter().any(|f| f.starts_with("-std=")) {
        cmd.arg("-std=c++17");
    }
    // The user's own -I directories come first, so a design's own syncmut.h would win.
    cmd.arg("-pthread").args(user_flags).arg("-I").arg(include).arg(source).arg("-o").arg(object);
    let output = run(&mut cmd).map_err(|source| MutatorError::InputUnreadable { path: compiler.clone(), source })?;
    if !output.status.success() {
        return Err(MutatorError::CompileFailed {
            file: source.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr).trim_end().to_string(),
        });
    }
    Ok(())
}

/// Links a bitcode module (plus runtime archives, if any) into an executable.
pub fn link_executable(design: &Design, kind: Family, bitcode: &Path, archives: &[PathBuf], out: &Path) -> Result<()> {
    let linker = tool("clang++-16", "clang++")?;
    let mut cmd = Command::new(&linker);
    cmd.arg("-O0").arg(bitcode);
    if !archives.is_empty() {
        // The deterministic environment (virtual clock) in every executable that gets
        // the runtime, so both executables of a design see the same virtual time.
        cmd.arg(syncmut_runtime::VIRTUAL_CLOCK_LINK_FLAG);
    }
    cmd.args(archives).args(design.link_flags());
    // SYNCMUT_SANITIZE=1: the runtime archives are the sanitized ones; the driver adds
    // the sanitizers' runtime. Both executables get it, so the baseline's comparison of
    // the metamutant with the original still compares like with like.
    cmd.args(syncmut_runtime::sanitizer_link_flags());
    if kind == Family::Systemc {
        cmd.arg("-lsystemc");
    }
    cmd.arg("-pthread").arg("-o").arg(out);
    let output = run(&mut cmd).map_err(|source| MutatorError::InputUnreadable { path: linker.clone(), source })?;
    if !output.status.success() {
        return Err(MutatorError::LinkFailed {
            output: out.to_path_buf(),
            stderr: String::from_utf8_lossy(&output.stderr).trim_end().to_string(),
        });
    }
    Ok(())
}
