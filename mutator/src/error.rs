//! Errors of the mutator stage. Each names the file involved and says what to do.

use std::path::PathBuf;

/// Everything that can go wrong between a user's design and a linked metamutant.
#[derive(Debug, thiserror::Error)]
pub enum MutatorError {
    #[error("{}: no such file or directory", .0.display())]
    InputNotFound(PathBuf),

    #[error("{}: cannot read it: {source}", path.display())]
    InputUnreadable {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{}: not a C/C++ source (.c .cc .cpp .cxx .C), LLVM bitcode (.bc) or LLVM IR (.ll) file; pass the design's sources, a directory holding them, or an executable linked through `syncmut cc` (which leaves a `.syncmut` record beside it)", .0.display())]
    UnsupportedInput(PathBuf),

    #[error("{}: the name is not valid UTF-8; clang and LLVM take file names as text: rename it (or copy it to a name in UTF-8)", .0.display())]
    NonUtf8Path(PathBuf),

    #[error("{}: no C/C++ sources in this directory", .0.display())]
    EmptyDirectory(PathBuf),

    #[error("{}: compilation failed (clang-16 diagnostics below)\n{stderr}", file.display())]
    CompileFailed { file: PathBuf, stderr: String },

    #[error("{}: linking failed (linker diagnostics below); if a library is missing, pass it after `--` (e.g. `-- -lm`)\n{stderr}", output.display())]
    LinkFailed { output: PathBuf, stderr: String },

    #[error("{}: cannot read this LLVM module: {message}\nsyncmut reads LLVM 16 bitcode; if it came from a newer clang, rebuild it with clang-16 (or pass the sources instead)", file.display())]
    BadBitcode { file: PathBuf, message: String },

    #[error("{}: this module was already instrumented by syncmut; pass the original design instead", .0.display())]
    AlreadyInstrumented(PathBuf),

    #[error("{}: uses OpenMP (it calls `{entry}`): OpenMP's threads and locks live in the OpenMP runtime, which syncmut can neither rewrite nor schedule; syncmut takes pthread, C11 threads, std::thread and SystemC synchronization", file.display())]
    OpenMp { file: PathBuf, entry: String },

    #[error("`{tool}` was not found on PATH; run `scripts/setup.sh` (or `apt-get install -y {package}`)")]
    ToolMissing { tool: String, package: String },

    #[error("the rewritten module failed LLVM verification (a syncmut bug; please report it with the design): {0}")]
    Verify(String),

    #[error("the design's units define a symbol more than once, so they are not one program (a project with several programs?): name the units of one program, or, with a CMake build's compile database, pick it with --target\n{message}")]
    MultiplyDefined { message: String },

    #[error("{}: not a usable compile database: {message}", file.display())]
    CompileDatabase { file: PathBuf, message: String },

    #[error("{}: cannot write: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Shorthand for mutator results.
pub type Result<T, E = MutatorError> = std::result::Result<T, E>;
