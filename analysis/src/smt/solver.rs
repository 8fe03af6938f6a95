//! Which SMT-LIB 2 solver answers the queries (z3 or cvc5), how it is started and
//! limited, the per-query time limit, and where its program is found.

use std::path::PathBuf;
use std::time::Duration;

/// Default per-query timeout in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u32 = 5000;

/// Environment variable naming a program run in place of the solver (same arguments).
/// For tests, which drive fake solvers from `tests/fixtures/solver/`.
pub const PROGRAM_ENV: &str = syncmut_runtime::env::SOLVER_PROGRAM;

/// Which SMT-LIB 2 solver answers the queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SolverKind {
    /// Z3 (`z3`).
    #[default]
    Z3,
    /// cvc5 (`cvc5`).
    Cvc5,
}

impl std::str::FromStr for SolverKind {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "z3" => Ok(SolverKind::Z3),
            "cvc5" => Ok(SolverKind::Cvc5),
            other => Err(format!(
                "unknown solver \"{other}\": use \"z3\" or \"cvc5\""
            )),
        }
    }
}

impl std::fmt::Display for SolverKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.program())
    }
}

impl SolverKind {
    /// The program name (also the Debian package name).
    pub fn program(self) -> &'static str {
        match self {
            SolverKind::Z3 => "z3",
            SolverKind::Cvc5 => "cvc5",
        }
    }

    /// Command-line arguments for an interactive SMT-LIB 2 session. cvc5 1.0 refuses
    /// `push` unless incremental, and takes its per-query limit on the command line
    /// (it answers `unsupported` to z3's `:timeout` option). z3 also gets the
    /// generation's memory budget (its own allocations; a query past it answers an
    /// error, and the solver is restarted); cvc5 1.0 has no such option.
    pub(super) fn args(self, timeout_ms: u32, memory_mb: u64) -> Vec<String> {
        match self {
            SolverKind::Z3 => vec!["-smt2".into(), "-in".into(), format!("-memory:{memory_mb}")],
            SolverKind::Cvc5 => vec![
                "--lang=smt2".into(),
                "--incremental".into(),
                format!("--tlimit-per={timeout_ms}"),
            ],
        }
    }

    /// The option that sets the per-query time limit in a script.
    pub(super) fn timeout_option(self) -> &'static str {
        match self {
            SolverKind::Z3 => ":timeout",
            SolverKind::Cvc5 => ":tlimit-per",
        }
    }

    /// How to run a saved formula file.
    pub(super) fn run_hint(self) -> &'static str {
        match self {
            SolverKind::Z3 => "z3 -smt2 FILE",
            SolverKind::Cvc5 => "cvc5 --lang=smt2 FILE",
        }
    }
}

/// The solver and its per-query time limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SolverConfig {
    /// Which solver runs.
    pub kind: SolverKind,
    /// Time limit of one query, in milliseconds.
    pub timeout_ms: u32,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            kind: SolverKind::Z3,
            timeout_ms: DEFAULT_TIMEOUT_MS,
        }
    }
}

impl SolverConfig {
    /// Wall-clock limit for one solver command: the solver's own limit plus a grace
    /// period, after which the process is presumed hung and killed.
    pub(super) fn wall(&self) -> Duration {
        let t = u64::from(self.timeout_ms);
        Duration::from_millis(t + t.max(1000))
    }
}

pub(super) fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    })
}
