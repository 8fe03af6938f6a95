//! Errors of the mutator stage. Each names the file involved and says what to do.

use std::path::PathBuf;

/// Everything that can go wrong between a user's design and a linked metamutant.
#[derive(Debug, thiserror::Error)]
pub enum MutatorError {
    /// An input path does not exist.
    #[error("{}: no such file or directory", .0.display())]
    InputNotFound(PathBuf),

    /// An input exists but cannot be read.
    #[error("{}: cannot read it: {source}", path.display())]
    InputUnreadable {
        /// The input.
        path: PathBuf,
        /// Why reading failed.
        source: std::io::Error,
    },

    /// An input is neither a source, an LLVM module nor a wrapped executable.
    #[error("{}: not a C/C++ source (.c .cc .cpp .cxx .C), LLVM bitcode (.bc) or LLVM IR (.ll) file; pass the design's sources, a directory holding them, or an executable linked through `syncmut cc` (which leaves a `.syncmut` record beside it)", .0.display())]
    UnsupportedInput(PathBuf),

    /// An input's path is not UTF-8, which clang and LLVM need.
    #[error("{}: the name is not valid UTF-8; clang and LLVM take file names as text: rename it (or copy it to a name in UTF-8)", .0.display())]
    NonUtf8Path(PathBuf),

    /// A directory given as the design holds no sources.
    #[error("{}: no C/C++ sources in this directory", .0.display())]
    EmptyDirectory(PathBuf),

    /// clang-16 rejected a source.
    #[error("{}: compilation failed (clang-16 diagnostics below)\n{stderr}", file.display())]
    CompileFailed {
        /// The source that failed.
        file: PathBuf,
        /// clang's diagnostics.
        stderr: String,
    },

    /// Linking the original or the metamutant failed.
    #[error("{}: linking failed (linker diagnostics below); if a library is missing, pass it after `--` (e.g. `-- -lm`)\n{stderr}", output.display())]
    LinkFailed {
        /// The executable being linked.
        output: PathBuf,
        /// The linker's diagnostics.
        stderr: String,
    },

    /// LLVM cannot parse a module (often one from a newer clang).
    #[error("{}: cannot read this LLVM module: {message}\nsyncmut reads LLVM 16 bitcode; if it came from a newer clang, rebuild it with clang-16 (or pass the sources instead)", file.display())]
    BadBitcode {
        /// The module.
        file: PathBuf,
        /// LLVM's reason.
        message: String,
    },

    /// The input is a metamutant already.
    #[error("{}: this module was already instrumented by syncmut; pass the original design instead", .0.display())]
    AlreadyInstrumented(PathBuf),

    /// The design uses OpenMP, whose threads syncmut cannot schedule.
    #[error("{}: uses OpenMP (it calls `{entry}`): OpenMP's threads and locks live in the OpenMP runtime, which syncmut can neither rewrite nor schedule; syncmut takes pthread, C11 threads, std::thread and SystemC synchronization", file.display())]
    OpenMp {
        /// The module that uses OpenMP.
        file: PathBuf,
        /// The OpenMP runtime function it calls.
        entry: String,
    },

    /// A program of the toolchain is not on PATH.
    #[error("`{tool}` was not found on PATH; run `scripts/setup.sh` (or `apt-get install -y {package}`)")]
    ToolMissing {
        /// The missing program.
        tool: String,
        /// The package that installs it.
        package: String,
    },

    /// The rewritten module is not valid IR: a syncmut bug.
    #[error("the rewritten module failed LLVM verification (a syncmut bug; please report it with the design): {0}")]
    Verify(String),

    /// The units define a symbol twice, so they are not one program.
    #[error("the design's units define a symbol more than once, so they are not one program (a project with several programs?): name the units of one program, or, with a CMake build's compile database, pick it with --target\n{message}")]
    MultiplyDefined {
        /// llvm-link's report of the symbols.
        message: String,
    },

    /// A compile database cannot be used.
    #[error("{}: not a usable compile database: {message}", file.display())]
    CompileDatabase {
        /// The compile database.
        file: PathBuf,
        /// What is wrong with it.
        message: String,
    },

    /// An output file cannot be written.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why writing failed.
        source: std::io::Error,
    },
}

/// Shorthand for mutator results.
pub type Result<T, E = MutatorError> = std::result::Result<T, E>;
