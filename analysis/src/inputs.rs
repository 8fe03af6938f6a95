//! Program inputs (METHOD.md §6) as SMT symbols, and models turned back into argv.
//!
//! `argv[k]` read through `atoi`/`atol`/`strtol`/`strtoul` is a bounded integer symbol
//! `argv<k>` of the call's result width; `strcmp(argv[k], "lit")` is a boolean choice
//! `argv<k>=="lit"` (at most one literal per argument is chosen; otherwise a string
//! distinct from every compared literal is used). `argc` is a symbol too.

use crate::error::{AnalysisError, Result};
use std::collections::BTreeMap;

/// How the program reads one `argv[k]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgUse {
    /// Parsed as an integer of this width (`atoi` → 32, `atol`/`strtol` → 64).
    Int(u32),
    /// Compared with these literals.
    Choice(Vec<String>),
}

/// The inputs one formula mentions.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub args: BTreeMap<u32, ArgUse>,
}

/// SMT name of the integer input `argv[k]`.
pub fn int_symbol(k: u32) -> String {
    format!("argv{k}")
}

/// SMT name of the choice `argv[k] == lit` (quoted symbol).
pub fn choice_symbol(k: u32, lit: &str) -> String {
    let lit: String = lit.chars().map(|c| if c == '|' || c == '\\' || c == '"' || c.is_control() { '_' } else { c }).collect();
    format!("|argv{k}==\"{lit}\"|")
}

impl Inputs {
    /// Registers an integer use of `argv[k]`.
    pub fn int(&mut self, k: u32, width: u32) -> Result<String> {
        match self.args.entry(k).or_insert(ArgUse::Int(width)) {
            ArgUse::Int(w) if *w == width => Ok(int_symbol(k)),
            other => Err(AnalysisError::Unsupported(format!("argv[{k}] read both as {other:?} and as an integer of width {width}: not supported yet"))),
        }
    }

    /// Registers a comparison of `argv[k]` with `lit`.
    pub fn choice(&mut self, k: u32, lit: &str) -> Result<String> {
        match self.args.entry(k).or_insert(ArgUse::Choice(Vec::new())) {
            ArgUse::Choice(lits) => {
                if !lits.iter().any(|l| l == lit) {
                    lits.push(lit.to_string());
                }
                Ok(choice_symbol(k, lit))
            }
            ArgUse::Int(_) => Err(AnalysisError::Unsupported(format!("argv[{k}] both parsed as an integer and compared as a string: not supported yet"))),
        }
    }

    /// Adds every input `other` reads (the random baseline's input vector is the union
    /// over all sites). A conflicting use of one argument keeps the first.
    pub fn merge(&mut self, other: &Inputs) {
        for (k, u) in &other.args {
            match u {
                ArgUse::Int(w) => {
                    let _ = self.int(*k, *w);
                }
                ArgUse::Choice(lits) => {
                    for l in lits {
                        let _ = self.choice(*k, l);
                    }
                }
            }
        }
    }

    /// Highest argv index read.
    pub fn max_index(&self) -> u32 {
        self.args.keys().copied().max().unwrap_or(0)
    }

    /// Every symbol with its SMT sort text, `argc` first.
    pub fn declarations(&self) -> Vec<(String, String)> {
        let mut out = vec![("argc".to_string(), "(_ BitVec 32)".to_string())];
        for (k, u) in &self.args {
            match u {
                ArgUse::Int(w) => out.push((int_symbol(*k), format!("(_ BitVec {w})"))),
                ArgUse::Choice(lits) => out.extend(lits.iter().map(|l| (choice_symbol(*k, l), "Bool".to_string()))),
            }
        }
        out
    }

    /// Turns solver values (symbol → SMT literal text) into the argument vector
    /// `argv[1..argc-1]`.
    pub fn to_args(&self, values: &BTreeMap<String, String>) -> Vec<String> {
        let argc = values.get("argc").and_then(|v| parse_bv(v)).map(|(v, _)| v as i64).unwrap_or(1);
        let n = (argc - 1).max(self.max_index() as i64).max(0) as u32;
        (1..=n)
            .map(|k| match self.args.get(&k) {
                Some(ArgUse::Int(w)) => {
                    let (v, _) = values.get(&int_symbol(k)).and_then(|v| parse_bv(v)).unwrap_or((0, *w));
                    signed(v, *w).to_string()
                }
                Some(ArgUse::Choice(lits)) => lits
                    .iter()
                    .find(|l| values.get(&choice_symbol(k, l)).map(|v| v == "true").unwrap_or(false))
                    .cloned()
                    .unwrap_or_else(|| distinct_string(lits)),
                None => "0".to_string(),
            })
            .collect()
    }
}

/// A string different from every literal.
pub fn distinct_string(lits: &[String]) -> String {
    let mut s = "x".to_string();
    while lits.contains(&s) {
        s.push('x');
    }
    s
}

/// Parses `#x…` / `#b…` / `(_ bvN W)` into (value, width).
pub fn parse_bv(text: &str) -> Option<(u64, u32)> {
    let t = text.trim();
    if let Some(h) = t.strip_prefix("#x") {
        return Some((u64::from_str_radix(h, 16).ok()?, 4 * h.len() as u32));
    }
    if let Some(b) = t.strip_prefix("#b") {
        return Some((u64::from_str_radix(b, 2).ok()?, b.len() as u32));
    }
    let inner = t.strip_prefix("(_ bv")?.strip_suffix(')')?;
    let mut it = inner.split_whitespace();
    let v = it.next()?.parse().ok()?;
    let w = it.next()?.parse().ok()?;
    Some((v, w))
}

/// Two's-complement interpretation of the low `w` bits.
pub fn signed(v: u64, w: u32) -> i64 {
    if w == 0 || w >= 64 {
        return v as i64;
    }
    let shift = 64 - w;
    ((v << shift) as i64) >> shift
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_to_args() {
        let mut i = Inputs::default();
        i.choice(1, "t").unwrap();
        i.int(2, 32).unwrap();
        let vals: BTreeMap<String, String> =
            [("argc".into(), "#x00000003".into()), (choice_symbol(1, "t"), "false".into()), ("argv2".into(), "#xffffffff".into())].into();
        assert_eq!(i.to_args(&vals), vec!["x".to_string(), "-1".to_string()]);
        assert!(i.int(1, 32).is_err());
    }
}
