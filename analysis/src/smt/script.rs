//! Queries as files: a query written as a stand-alone, commented SMT-LIB script the
//! chosen solver accepts, and the check that a saved formula file is equivalent to an
//! expected condition.

use super::session::import;
use super::solver::SolverConfig;
use crate::error::{AnalysisError, Result};
use crate::wp::Query;
use easy_smt::{Context, ContextBuilder, SExpr};
use std::fmt::Write as _;
use std::path::Path;

/// The query as a stand-alone SMT-LIB script with comments, for the chosen solver.
pub fn script(ctx: &Context, q: &Query, title: &str, solver: SolverConfig) -> String {
    // Printed through a scratch context, so the `let` forms do not stay in the builder.
    let scratch = ContextBuilder::new()
        .build()
        .expect("a context without a solver cannot fail to build");
    let shown = |e: SExpr| scratch.display(import(ctx, &scratch, e)).to_string();
    let mut s = String::new();
    let _ = writeln!(s, "; {title}");
    let _ = writeln!(
        s,
        "; Reachability condition by backward weakest precondition (syncmut gen)."
    );
    let _ = writeln!(s, "; Run: {}", solver.kind.run_hint());
    for a in &q.schedule {
        let _ = writeln!(s, "; schedule: {a}");
    }
    for n in &q.notes {
        let _ = writeln!(s, "; note: {n}");
    }
    for c in &q.cut {
        let _ = writeln!(s, "; cut: {c}");
    }
    let _ = writeln!(s, "(set-option :produce-models true)");
    let _ = writeln!(
        s,
        "(set-option {} {})",
        solver.kind.timeout_option(),
        solver.timeout_ms
    );
    let _ = writeln!(s, "(set-logic ALL)");
    let _ = writeln!(s, "; inputs");
    for (name, sort) in q.inputs.declarations() {
        let _ = writeln!(s, "(declare-const {name} {sort})");
    }
    if !q.fresh.is_empty() {
        let _ = writeln!(s, "; unconstrained values (over-approximation)");
        for (name, sort) in &q.fresh {
            let _ = writeln!(s, "(declare-const {name} {sort})");
        }
    }
    for d in &q.definitions {
        let _ = writeln!(s, "; {}", d.comment);
        let _ = writeln!(s, "(define-fun {} () {} {})", d.name, d.sort, shown(d.expr));
    }
    for c in &q.conjuncts {
        let _ = writeln!(s, "; {}", c.comment);
        let _ = writeln!(s, "(assert {})", shown(c.expr));
    }
    for e in &q.known_writes {
        let _ = writeln!(
            s,
            "; preferred, tried first (the reader or a traced store wrote the value): {}",
            shown(*e)
        );
    }
    for e in &q.quiet {
        let _ = writeln!(
            s,
            "; preferred, tried next (nobody else wrote the value): {}",
            shown(*e)
        );
    }
    let _ = writeln!(s, "(check-sat)");
    let names: Vec<String> = q
        .inputs
        .declarations()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let _ = writeln!(s, "(get-value ({}))", names.join(" "));
    s
}

/// Checks with a separate z3 process that the conjunction of the assertions in a saved
/// formula file is equivalent to `expected` (an SMT-LIB Bool term over the same
/// symbols): `formula ⇔ expected` is valid iff its negation is unsat.
pub fn equivalent(formula: &Path, expected: &str) -> Result<bool> {
    use std::io::Write as _;
    let text = std::fs::read_to_string(formula).map_err(|source| AnalysisError::Io {
        what: format!("read {}", formula.display()),
        source,
    })?;
    let mut head = Vec::new();
    let mut conj = Vec::new();
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("(assert ") {
            conj.push(t[..t.len() - 1].to_string());
        } else if !line.starts_with("(check-sat")
            && !line.starts_with("(get-value")
            && !line.starts_with("(set-option :tlimit-per")
        {
            head.push(line);
        }
    }
    let script = format!(
        "{}\n(assert (not (= (and true {}) {expected})))\n(check-sat)\n",
        head.join("\n"),
        conj.join(" ")
    );
    let mut child = std::process::Command::new("z3")
        .args(["-smt2", "-in"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| AnalysisError::Solver(format!("cannot start z3 (apt-get install z3): {e}")))?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(script.as_bytes())
        .map_err(|e| AnalysisError::Solver(e.to_string()))?;
    let out = child
        .wait_with_output()
        .map_err(|e| AnalysisError::Solver(e.to_string()))?;
    let answer = String::from_utf8_lossy(&out.stdout);
    match answer.trim() {
        "unsat" => Ok(true),
        "sat" => Ok(false),
        other => Err(AnalysisError::Solver(format!(
            "equivalence check answered \"{other}\""
        ))),
    }
}
