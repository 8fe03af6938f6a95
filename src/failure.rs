//! A command's failure with the exit code it maps to (`exit.rs`), which every command
//! module returns: apart from `main.rs`, so that no module imports the crate root.

use crate::exit;
use syncmut_mutator::MutatorError;

/// A failure with the exit code it maps to.
pub struct Failure {
    pub code: i32,
    pub error: anyhow::Error,
}

impl From<MutatorError> for Failure {
    fn from(error: MutatorError) -> Self {
        Failure {
            code: exit::for_mutator_error(&error),
            error: error.into(),
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Self {
        Failure {
            code: exit::INTERNAL,
            error,
        }
    }
}

/// An oracle error with its exit code.
pub fn oracle_failure(error: syncmut_oracle::OracleError) -> Failure {
    Failure {
        code: exit::for_oracle_error(&error),
        error: error.into(),
    }
}
