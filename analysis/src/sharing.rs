//! Shared subterms named once.
//!
//! easy-smt hash-conses terms, so a formula in the builder is a DAG whose size is
//! linear in the IR it encodes: a value used by two branches is one node. Printed as a
//! tree (what `Context::display` does, for the solver's pipe and for a file alike), a
//! chain of such reuses doubles at each step: one site of a floating-point FFT design
//! wrote a 3.5 GB formula. [`let_form`] rewrites a term so that every subterm used
//! twice or more is bound once by a `let` (standard SMT-LIB, no sorts needed), and the
//! printed size stays linear in the DAG.
//!
//! Every walk here is iterative: the depth of a term is the analysed program's to
//! choose, not ours.

use easy_smt::{Context, SExpr, SExprData};
use std::collections::HashMap;

/// Distinct list nodes reachable from `roots`: the size of a formula as the builder
/// holds it, which is what a size budget compares.
pub fn dag_size(ctx: &Context, roots: &[SExpr]) -> usize {
    topological(ctx, roots).len()
}

/// `root` from `from`, rebuilt in `to` with every subterm used at least twice bound
/// once by a `let`. Bindings are grouped by nesting level, so a binding only refers to
/// names bound further out.
pub fn let_form(from: &Context, to: &Context, root: SExpr) -> SExpr {
    let order = topological(from, &[root]);
    let mut uses: HashMap<SExpr, u32> = HashMap::new();
    for &n in &order {
        for &c in term_children(from, n) {
            *uses.entry(c).or_default() += 1;
        }
    }
    let shared = |n: SExpr| n != root && uses.get(&n).is_some_and(|&k| k >= 2);
    let mut rebuilt: HashMap<SExpr, SExpr> = HashMap::new();
    // For a node: the deepest level of a shared node its own printing refers to.
    let mut below: HashMap<SExpr, u32> = HashMap::new();
    let mut names: HashMap<SExpr, (String, u32)> = HashMap::new();
    let mut levels: Vec<Vec<(String, SExpr)>> = Vec::new();
    for &n in &order {
        let SExprData::List(items) = from.get(n) else {
            continue;
        };
        let mut deepest = 0;
        let mut copy = Vec::with_capacity(items.len());
        for (i, &c) in items.iter().enumerate() {
            if i > 0 {
                if let Some((name, level)) = names.get(&c) {
                    deepest = deepest.max(*level);
                    copy.push(to.atom(name.as_str()));
                    continue;
                }
                if let Some(&r) = rebuilt.get(&c) {
                    deepest = deepest.max(below[&c]);
                    copy.push(r);
                    continue;
                }
            }
            copy.push(leaf(from, to, c));
        }
        let r = to.list(copy);
        if shared(n) {
            let level = deepest + 1;
            let name = format!("t!{}", names.len());
            if levels.len() < level as usize {
                levels.resize_with(level as usize, Vec::new);
            }
            levels[level as usize - 1].push((name.clone(), r));
            names.insert(n, (name, level));
        } else {
            rebuilt.insert(n, r);
            below.insert(n, deepest);
        }
    }
    let mut expr = rebuilt
        .get(&root)
        .copied()
        .unwrap_or_else(|| leaf(from, to, root));
    for bindings in levels.into_iter().rev() {
        let bindings = bindings
            .into_iter()
            .map(|(name, e)| to.list(vec![to.atom(name), e]))
            .collect();
        expr = to.list(vec![to.atom("let"), to.list(bindings), expr]);
    }
    expr
}

/// The list nodes under `roots` that are terms of their own (see [`term_children`]),
/// each once, children before parents.
fn topological(ctx: &Context, roots: &[SExpr]) -> Vec<SExpr> {
    let mut done: HashMap<SExpr, bool> = HashMap::new();
    let mut order = Vec::new();
    let mut stack: Vec<(SExpr, bool)> = roots.iter().rev().map(|&r| (r, false)).collect();
    while let Some((n, exit)) = stack.pop() {
        if exit {
            done.insert(n, true);
            order.push(n);
            continue;
        }
        if done.contains_key(&n) || !is_term_list(ctx, n) {
            continue;
        }
        done.insert(n, false);
        stack.push((n, true));
        for &c in term_children(ctx, n).iter().rev() {
            if !done.contains_key(&c) {
                stack.push((c, false));
            }
        }
    }
    order
}

/// The arguments of an application: every item but the head. An indexed identifier
/// such as `(_ extract 7 0)` or `(_ bv5 32)` and a qualified `(as …)` are not terms to
/// bind, so nothing under them is either.
fn term_children(ctx: &Context, n: SExpr) -> &[SExpr] {
    match ctx.get(n) {
        SExprData::List(items) if is_term_list(ctx, n) => &items[1..],
        _ => &[],
    }
}

fn is_term_list(ctx: &Context, n: SExpr) -> bool {
    match ctx.get(n) {
        SExprData::List([head, ..]) => !matches!(ctx.get(*head), SExprData::Atom("_" | "as")),
        _ => false,
    }
}

/// A node copied as it is: atoms, strings, indexed identifiers (all small).
fn leaf(from: &Context, to: &Context, e: SExpr) -> SExpr {
    match from.get(e) {
        SExprData::Atom(a) => to.atom(a),
        SExprData::String(s) => to.atom(format!("\"{}\"", s.replace('"', "\"\""))),
        SExprData::List(items) => {
            let items = items.iter().map(|&i| leaf(from, to, i)).collect();
            to.list(items)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        easy_smt::ContextBuilder::new().build().unwrap()
    }

    #[test]
    fn a_doubling_chain_prints_linearly() {
        let from = ctx();
        let to = ctx();
        let x = from.atom("x");
        let mut e = from.bvadd(x, x);
        for _ in 0..60 {
            e = from.bvadd(e, e);
        }
        let text = to.display(let_form(&from, &to, e)).to_string();
        assert!(text.len() < 5_000, "{} bytes", text.len());
        assert_eq!(dag_size(&from, &[e]), 61);
        assert!(text.starts_with("(let ((t!0 (bvadd x x)))"), "{text}");
    }

    #[test]
    fn a_term_used_once_stays_in_place() {
        let from = ctx();
        let to = ctx();
        let (a, b) = (from.atom("a"), from.atom("b"));
        let e = from.and(from.eq(a, b), from.not(a));
        let text = to.display(let_form(&from, &to, e)).to_string();
        assert_eq!(text, "(and (= a b) (not a))");
    }

    #[test]
    fn indexed_identifiers_are_never_bound() {
        let from = ctx();
        let to = ctx();
        let x = from.atom("x");
        let lo = from.extract(7, 0, x);
        let e = from.and(from.eq(lo, from.binary(8, 1)), from.eq(lo, lo));
        let text = to.display(let_form(&from, &to, e)).to_string();
        assert_eq!(
            text,
            "(let ((t!0 ((_ extract 7 0) x))) (and (= t!0 #b00000001) (= t!0 t!0)))"
        );
    }

    #[test]
    fn a_binding_refers_only_to_names_bound_further_out() {
        let from = ctx();
        let to = ctx();
        let (a, b) = (from.atom("a"), from.atom("b"));
        let inner = from.bvadd(a, b);
        let outer = from.bvmul(inner, inner);
        let e = from.eq(from.bvsub(outer, inner), outer);
        let text = to.display(let_form(&from, &to, e)).to_string();
        assert_eq!(
            text,
            "(let ((t!0 (bvadd a b))) (let ((t!1 (bvmul t!0 t!0))) (= (bvsub t!1 t!0) t!1)))"
        );
    }
}
