//! The oracle: runs the original and each mutant, compares traces, gives verdicts (issue 3).
