//! The SMT solver session: one z3 process for all sites, one push/pop per query, a
//! per-query timeout, and each query written as a readable `.smt2` file.

use crate::error::{AnalysisError, Result};
use crate::inputs::Inputs;
use crate::wp::Query;
use easy_smt::{Context, ContextBuilder, Response};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Per-query timeout in milliseconds.
pub const TIMEOUT_MS: u32 = 5000;

/// The answer for one query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A model: every declared input symbol → its SMT literal.
    Sat(BTreeMap<String, String>),
    Unsat,
    Unknown,
}

/// Starts `z3 -smt2 -in` (one process, reused), with the session replayed to `replay`.
pub fn start(replay: Option<&Path>) -> Result<Context> {
    if which("z3").is_none() {
        return Err(AnalysisError::Solver("z3 not found on PATH: install it with `apt-get install z3` (or run scripts/setup.sh)".into()));
    }
    let mut b = ContextBuilder::new();
    b.solver("z3", ["-smt2", "-in"]);
    if let Some(p) = replay {
        let f = std::fs::File::create(p).map_err(|source| AnalysisError::Io { what: format!("create {}", p.display()), source })?;
        b.replay_file(Some(f));
    }
    let mut ctx = b.build().map_err(|e| AnalysisError::Solver(format!("cannot start z3: {e}")))?;
    let t = ctx.numeral(TIMEOUT_MS);
    ctx.set_option(":timeout", t).map_err(solver)?;
    Ok(ctx)
}

fn which(program: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| std::env::split_paths(&paths).map(|d| d.join(program)).find(|p| p.is_file()))
}

fn solver(e: std::io::Error) -> AnalysisError {
    AnalysisError::Solver(e.to_string())
}

fn declarations(q: &Query) -> Vec<(String, String)> {
    let mut d = q.inputs.declarations();
    d.extend(q.fresh.iter().cloned());
    d
}

/// Solves a query in its own push/pop scope.
pub fn solve(ctx: &mut Context, q: &Query) -> Result<Answer> {
    ctx.push().map_err(solver)?;
    let r = solve_inner(ctx, q, &[]);
    ctx.pop().map_err(solver)?;
    r
}

/// Solves `query ∧ extra` (extra: further assertions, e.g. for validity checks).
pub fn solve_with(ctx: &mut Context, q: &Query, extra: &[easy_smt::SExpr]) -> Result<Answer> {
    ctx.push().map_err(solver)?;
    let r = solve_inner(ctx, q, extra);
    ctx.pop().map_err(solver)?;
    r
}

fn sort(ctx: &Context, text: &str) -> easy_smt::SExpr {
    match text.strip_prefix("(_ BitVec ").and_then(|r| r.strip_suffix(')')) {
        Some(w) => ctx.bit_vec_sort(ctx.numeral(w.parse::<u32>().unwrap_or(1))),
        None => ctx.bool_sort(),
    }
}

fn solve_inner(ctx: &mut Context, q: &Query, extra: &[easy_smt::SExpr]) -> Result<Answer> {
    let decls = declarations(q);
    for (name, s) in &decls {
        let s = sort(ctx, s);
        ctx.declare_const(name.clone(), s).map_err(solver)?;
    }
    for d in &q.definitions {
        let s = sort(ctx, &d.sort);
        ctx.define_const(d.name.clone(), s, d.expr).map_err(solver)?;
    }
    for c in &q.conjuncts {
        ctx.assert(c.expr).map_err(solver)?;
    }
    for e in extra {
        ctx.assert(*e).map_err(solver)?;
    }
    // Prefer the fewest arguments: first try argc = 1 + the highest argv index read.
    let lo = q.inputs.max_index() + 1;
    let mut response = Response::Unknown;
    for n in lo..lo + 4 {
        let argc_eq = ctx.eq(ctx.atom("argc"), ctx.list(vec![ctx.atom("_"), ctx.atom(format!("bv{n}")), ctx.numeral(32)]));
        response = ctx.check_assuming([argc_eq]).map_err(solver)?;
        if response == Response::Sat {
            break;
        }
    }
    if response != Response::Sat {
        response = ctx.check().map_err(solver)?;
    }
    match response {
        Response::Unsat => Ok(Answer::Unsat),
        Response::Unknown => Ok(Answer::Unknown),
        Response::Sat => {
            let names: Vec<String> = q.inputs.declarations().into_iter().map(|(n, _)| n).collect();
            let atoms: Vec<_> = names.iter().map(|n| ctx.atom(n.clone())).collect();
            let vals = ctx.get_value(atoms).map_err(solver)?;
            let mut out = BTreeMap::new();
            for (n, (_, v)) in names.iter().zip(vals) {
                out.insert(n.clone(), ctx.display(v).to_string());
            }
            Ok(Answer::Sat(out))
        }
    }
}

/// The query as a stand-alone SMT-LIB script with comments.
pub fn script(ctx: &Context, q: &Query, title: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "; {title}");
    let _ = writeln!(s, "; Reachability condition by backward weakest precondition (syncmut gen).");
    for a in &q.schedule {
        let _ = writeln!(s, "; schedule: {a}");
    }
    for n in &q.notes {
        let _ = writeln!(s, "; note: {n}");
    }
    for c in &q.cut {
        let _ = writeln!(s, "; cut: {c}");
    }
    let _ = writeln!(s, "(set-option :timeout {TIMEOUT_MS})");
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
        let _ = writeln!(s, "(define-fun {} () {} {})", d.name, d.sort, ctx.display(d.expr));
    }
    for c in &q.conjuncts {
        let _ = writeln!(s, "; {}", c.comment);
        let _ = writeln!(s, "(assert {})", ctx.display(c.expr));
    }
    let _ = writeln!(s, "(check-sat)");
    let names: Vec<String> = q.inputs.declarations().into_iter().map(|(n, _)| n).collect();
    let _ = writeln!(s, "(get-value ({}))", names.join(" "));
    s
}

/// Symbols of the inputs (for callers building extra assertions).
pub fn input_names(i: &Inputs) -> Vec<String> {
    i.declarations().into_iter().map(|(n, _)| n).collect()
}

/// Checks with a separate z3 process that the conjunction of the assertions in a saved
/// formula file is equivalent to `expected` (an SMT-LIB Bool term over the same
/// symbols): `formula ⇔ expected` is valid iff its negation is unsat.
pub fn equivalent(formula: &Path, expected: &str) -> Result<bool> {
    use std::io::Write as _;
    let text = std::fs::read_to_string(formula).map_err(|source| AnalysisError::Io { what: format!("read {}", formula.display()), source })?;
    let mut head = Vec::new();
    let mut conj = Vec::new();
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("(assert ") {
            conj.push(t[..t.len() - 1].to_string());
        } else if !line.starts_with("(check-sat") && !line.starts_with("(get-value") {
            head.push(line);
        }
    }
    let script = format!("{}\n(assert (not (= (and true {}) {expected})))\n(check-sat)\n", head.join("\n"), conj.join(" "));
    let mut child = std::process::Command::new("z3")
        .args(["-smt2", "-in"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| AnalysisError::Solver(format!("cannot start z3 (apt-get install z3): {e}")))?;
    child.stdin.take().expect("piped").write_all(script.as_bytes()).map_err(solver)?;
    let out = child.wait_with_output().map_err(solver)?;
    let answer = String::from_utf8_lossy(&out.stdout);
    match answer.trim() {
        "unsat" => Ok(true),
        "sat" => Ok(false),
        other => Err(AnalysisError::Solver(format!("equivalence check answered {other:?}"))),
    }
}
