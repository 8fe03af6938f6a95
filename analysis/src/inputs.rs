//! Program inputs (argv, nondet calls, named inputs) as SMT symbols, and models turned back into argv.
//!
//! `argv[k]` read through `atoi`/`atol`/`strtol`/`strtoul` is a bounded integer symbol
//! `argv<k>` of the call's result width; `strcmp(argv[k], "lit")` is a boolean choice
//! `argv<k>=="lit"` (at most one literal per argument is chosen; otherwise a string
//! distinct from every compared literal is used); `strchr(argv[k], 'c')` is a boolean
//! "`argv[k]` contains 'c'" per character, and the argument is the characters chosen.
//! `argc` is a symbol too.
//!
//! `__VERIFIER_nondet_<type>()` calls (docs/inputs.md): the runtime hands out one list
//! of values in call order, so the formula models a *call counter*: the i-th call the
//! formula evaluates reads position `ndi<i>` (the counter just before it, a term over
//! the path) of that list and returns the low bits of `nd<i>` (64 bits). Two calls at
//! the same position read the same value (Ackermann constraints instead of an SMT
//! array, so every solver and the model reading stay plain bit-vectors).
//!
//! Named inputs, `syncmut_input_int("depth", lo, hi)`: one 32-bit symbol `|input:depth|`
//! per name, constrained to each range it is read with.

use crate::error::{AnalysisError, Result};
use std::collections::BTreeMap;

/// Longest nondet value list a generated test may have (bounds the call counter when
/// it is unknown, e.g. after another thread may have consumed values).
pub const MAX_NONDET: u32 = 4096;

/// One `__VERIFIER_nondet_<type>()` call evaluated by a formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NondetCall {
    /// The type suffix (`int`, `uchar`, `bool`…).
    pub(crate) ty: String,
    /// Width of the call's result in the IR.
    pub(crate) width: u32,
}

impl NondetCall {
    /// Whether the C type is signed (the value is written in the test as such).
    pub(crate) fn signed(&self) -> bool {
        matches!(
            self.ty.as_str(),
            "char" | "short" | "int" | "long" | "longlong" | "loff_t"
        )
    }
}

/// SMT name of the value read by the i-th nondet call of a formula (64 bits).
pub(crate) fn nondet_value_symbol(i: usize) -> String {
    format!("nd{i}")
}

/// SMT name of the list position the i-th nondet call reads (32 bits).
pub(crate) fn nondet_index_symbol(i: usize) -> String {
    format!("ndi{i}")
}

/// SMT name of the named input `name` (32 bits).
pub(crate) fn named_symbol(name: &str) -> String {
    format!("|input:{name}|")
}

/// The values of one test, from a model.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct TestValues {
    /// argv[1..].
    pub args: Vec<String>,
    /// `__VERIFIER_nondet_*` values in call order.
    pub nondet: Vec<i128>,
    /// Named inputs.
    pub inputs: BTreeMap<String, i64>,
}

/// How the program reads one `argv[k]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgUse {
    /// Parsed as an integer of this width (`atoi` → 32, `atol`/`strtol` → 64).
    Int(u32),
    /// Compared with these literals.
    Choice(Vec<String>),
    /// Searched for these characters (`strchr`): one boolean per character, "the
    /// string contains it".
    Letters(Vec<char>),
}

impl std::fmt::Display for ArgUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgUse::Int(w) => write!(f, "an integer of width {w}"),
            ArgUse::Choice(literals) => {
                write!(f, "a string compared with \"{}\"", literals.join("\", \""))
            }
            ArgUse::Letters(cs) => write!(
                f,
                "a string searched for '{}'",
                cs.iter()
                    .map(char::to_string)
                    .collect::<Vec<_>>()
                    .join("', '")
            ),
        }
    }
}

/// The inputs one formula mentions.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// The `argv[k]` the formula reads, by `k`, and how each is read.
    pub args: BTreeMap<u32, ArgUse>,
    /// Nondet calls, in the order the formula met them (symbol index).
    pub nondet: Vec<NondetCall>,
    /// Named inputs read (all 32-bit), with the range they are read with when it is
    /// constant (the intersection, if read with several).
    pub(crate) named: BTreeMap<String, Option<(i64, i64)>>,
    /// `getopt(argc, argv, optstring)`: the option string, when the formula evaluates
    /// a call (argv is then the option words the model chooses).
    pub(crate) getopt: Option<String>,
    /// Calls to `getopt` the formula evaluates (symbols `goi<i>`, `go<i>`).
    pub(crate) getopt_calls: usize,
}

/// SMT name of the integer input `argv[k]`.
pub(crate) fn int_symbol(k: u32) -> String {
    format!("argv{k}")
}

/// SMT name of the choice `argv[k] == lit` (quoted symbol).
pub(crate) fn choice_symbol(k: u32, lit: &str) -> String {
    let lit: String = lit
        .chars()
        .map(|c| {
            if c == '|' || c == '\\' || c == '"' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    format!("|argv{k}==\"{lit}\"|")
}

/// SMT name of "`argv[k]` contains the character `c`" (quoted symbol; a character
/// that cannot appear in one is named by its code).
pub(crate) fn letter_symbol(k: u32, c: char) -> String {
    if c.is_ascii_alphanumeric() {
        format!("|argv{k} contains '{c}'|")
    } else {
        format!("|argv{k} contains character {}|", c as u32)
    }
}

/// SMT name of the option-list position the i-th `getopt` call reads (32 bits).
pub(crate) fn getopt_position_symbol(i: usize) -> String {
    format!("goi{i}")
}

/// SMT name of the value the i-th `getopt` call returns (32 bits).
pub(crate) fn getopt_value_symbol(i: usize) -> String {
    format!("go{i}")
}

/// An option string's letters, each with whether it takes an argument (`c:`); the
/// GNU mode prefixes (`+`, `-`) and the leading `:` are not letters.
pub(crate) fn option_letters(optstring: &str) -> Vec<(char, bool)> {
    let body = optstring
        .trim_start_matches(['+', '-'])
        .trim_start_matches(':');
    let chars: Vec<char> = body.chars().collect();
    let mut out = Vec::new();
    for (i, c) in chars.iter().enumerate() {
        if *c != ':' {
            out.push((
                *c,
                chars.get(i + 1) == Some(&':') && chars.get(i + 2) != Some(&':'),
            ));
        }
    }
    out
}

/// Every value `getopt` may return for `optstring`: a letter, `'?'` (an unknown
/// option), `':'` (a missing argument, with a leading `:`), 1 (a non-option word, GNU
/// `-` mode) or -1 (no more options).
pub(crate) fn getopt_returns(optstring: &str) -> Vec<i64> {
    let mut out: Vec<i64> = option_letters(optstring)
        .iter()
        .map(|(c, _)| *c as i64)
        .collect();
    out.extend([-1, '?' as i64]);
    let body = optstring.trim_start_matches(['+', '-']);
    if body.starts_with(':') {
        out.push(':' as i64);
    }
    if optstring.starts_with('-') {
        out.push(1);
    }
    out.sort();
    out.dedup();
    out
}

impl Inputs {
    /// Registers one more `getopt` call with `optstring`; returns its index.
    pub(crate) fn getopt_call(&mut self, optstring: &str) -> Result<usize> {
        if !self.args.is_empty() {
            return Err(AnalysisError::Unsupported(
                "argv read both by getopt and directly: not supported yet".into(),
            ));
        }
        match &self.getopt {
            Some(known) if known != optstring => {
                return Err(AnalysisError::Unsupported(format!("getopt called with two option strings (\"{known}\", \"{optstring}\"): not supported yet")))
            }
            _ => self.getopt = Some(optstring.to_string()),
        }
        self.getopt_calls += 1;
        Ok(self.getopt_calls - 1)
    }

    /// The error when argv[k] is read directly after getopt read it.
    fn no_getopt(&self, k: u32) -> Result<()> {
        match self.getopt {
            Some(_) => Err(AnalysisError::Unsupported(format!(
                "argv[{k}] read both by getopt and directly: not supported yet"
            ))),
            None => Ok(()),
        }
    }

    /// Registers an integer use of `argv[k]`.
    pub(crate) fn int(&mut self, k: u32, width: u32) -> Result<String> {
        self.no_getopt(k)?;
        match self.args.entry(k).or_insert(ArgUse::Int(width)) {
            ArgUse::Int(w) if *w == width => Ok(int_symbol(k)),
            other => Err(AnalysisError::Unsupported(format!("argv[{k}] read both as {other} and as an integer of width {width}: not supported yet"))),
        }
    }

    /// Registers a comparison of `argv[k]` with `lit`.
    pub(crate) fn choice(&mut self, k: u32, lit: &str) -> Result<String> {
        self.no_getopt(k)?;
        match self.args.entry(k).or_insert(ArgUse::Choice(Vec::new())) {
            ArgUse::Choice(lits) => {
                if !lits.iter().any(|l| l == lit) {
                    lits.push(lit.to_string());
                }
                Ok(choice_symbol(k, lit))
            }
            other => Err(AnalysisError::Unsupported(format!(
                "argv[{k}] both compared as a string and read as {other}: not supported yet"
            ))),
        }
    }

    /// Registers a search of `argv[k]` for the character `c`.
    pub(crate) fn letter(&mut self, k: u32, c: char) -> Result<String> {
        self.no_getopt(k)?;
        match self.args.entry(k).or_insert(ArgUse::Letters(Vec::new())) {
            ArgUse::Letters(cs) => {
                if !cs.contains(&c) {
                    cs.push(c);
                }
                Ok(letter_symbol(k, c))
            }
            other => Err(AnalysisError::Unsupported(format!(
                "argv[{k}] both searched for a character and read as {other}: not supported yet"
            ))),
        }
    }

    /// Registers one more nondet call; returns its index (symbols `nd<i>`, `ndi<i>`).
    pub(crate) fn nondet_call(&mut self, ty: &str, width: u32) -> usize {
        self.nondet.push(NondetCall {
            ty: ty.to_string(),
            width,
        });
        self.nondet.len() - 1
    }

    /// Registers a named input read with `range` (when constant); returns its symbol.
    pub(crate) fn named_input(&mut self, name: &str, range: Option<(i64, i64)>) -> Result<String> {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        {
            return Err(AnalysisError::Unsupported(format!(
                "named input \"{name}\": a name must be letters, digits, '_', '-' or '.' (test files carry it as a key)"
            )));
        }
        let known = self.named.entry(name.to_string()).or_insert(range);
        *known = match (*known, range) {
            (Some((a, b)), Some((c, d))) => Some((a.max(c), b.min(d))),
            (k, r) => k.or(r),
        };
        Ok(named_symbol(name))
    }

    /// Adds every input `other` reads (the random baseline's input vector is the union
    /// over all sites). A conflicting use of one argument keeps the first.
    pub(crate) fn merge(&mut self, other: &Inputs) {
        // The longest list of nondet calls any formula evaluates (by position).
        if other.nondet.len() > self.nondet.len() {
            self.nondet
                .extend(other.nondet[self.nondet.len()..].iter().cloned());
        }
        for (name, range) in &other.named {
            let _ = self.named_input(name, *range);
        }
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
                ArgUse::Letters(cs) => {
                    for c in cs {
                        let _ = self.letter(*k, *c);
                    }
                }
            }
        }
    }

    /// Highest argv index read.
    pub(crate) fn max_index(&self) -> u32 {
        self.args.keys().copied().max().unwrap_or(0)
    }

    /// Every symbol with its SMT sort text, `argc` first.
    /// The integer input values (argv integers, nondet values, named inputs) with
    /// their bit widths: what a user reads in a test, so what the solver is first asked
    /// to keep small.
    pub(crate) fn integer_values(&self) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        for (k, u) in &self.args {
            if let ArgUse::Int(w) = u {
                out.push((int_symbol(*k), *w));
            }
        }
        out.extend((0..self.nondet.len()).map(|i| (nondet_value_symbol(i), 64)));
        out.extend(self.named.keys().map(|name| (named_symbol(name), 32)));
        out
    }

    pub(crate) fn declarations(&self) -> Vec<(String, String)> {
        let mut out = vec![("argc".to_string(), "(_ BitVec 32)".to_string())];
        for (k, u) in &self.args {
            match u {
                ArgUse::Int(w) => out.push((int_symbol(*k), format!("(_ BitVec {w})"))),
                ArgUse::Choice(lits) => out.extend(
                    lits.iter()
                        .map(|l| (choice_symbol(*k, l), "Bool".to_string())),
                ),
                ArgUse::Letters(cs) => out.extend(
                    cs.iter()
                        .map(|c| (letter_symbol(*k, *c), "Bool".to_string())),
                ),
            }
        }
        for i in 0..self.nondet.len() {
            out.push((nondet_index_symbol(i), "(_ BitVec 32)".to_string()));
            out.push((nondet_value_symbol(i), "(_ BitVec 64)".to_string()));
        }
        for name in self.named.keys() {
            out.push((named_symbol(name), "(_ BitVec 32)".to_string()));
        }
        for i in 0..self.getopt_calls {
            out.push((getopt_position_symbol(i), "(_ BitVec 32)".to_string()));
            out.push((getopt_value_symbol(i), "(_ BitVec 32)".to_string()));
        }
        out
    }

    /// A model as a test: argv, the nondet list (positions no formula call reads are
    /// 0, as the runtime returns past the end; trailing zeros dropped) and named inputs.
    pub(crate) fn to_test(&self, values: &BTreeMap<String, String>) -> TestValues {
        let bv = |name: &str| values.get(name).and_then(|v| parse_bv(v)).map(|(v, _)| v);
        let mut nondet: BTreeMap<u64, i128> = BTreeMap::new();
        for (i, call) in self.nondet.iter().enumerate() {
            let (Some(k), Some(v)) = (bv(&nondet_index_symbol(i)), bv(&nondet_value_symbol(i)))
            else {
                continue;
            };
            let w = call.width.min(64);
            let low = if w >= 64 { v } else { v & ((1u64 << w) - 1) };
            let typed = if call.signed() {
                signed(low, w) as i128
            } else {
                low as i128
            };
            nondet.insert(k, typed);
        }
        let len = nondet
            .iter()
            .filter(|(_, v)| **v != 0)
            .map(|(k, _)| *k + 1)
            .max()
            .unwrap_or(0);
        let nondet = (0..len)
            .map(|k| nondet.get(&k).copied().unwrap_or(0))
            .collect();
        let inputs = self
            .named
            .keys()
            .map(|n| {
                (
                    n.clone(),
                    bv(&named_symbol(n)).map(|v| signed(v, 32)).unwrap_or(0),
                )
            })
            .collect();
        TestValues {
            args: self.to_args(values),
            nondet,
            inputs,
        }
    }

    /// Turns solver values (symbol → SMT literal text) into the argument vector
    /// `argv[1..argc-1]`.
    pub(crate) fn to_args(&self, values: &BTreeMap<String, String>) -> Vec<String> {
        if let Some(optstring) = &self.getopt {
            return self.option_words(optstring, values);
        }
        let argc = values
            .get("argc")
            .and_then(|v| parse_bv(v))
            .map(|(v, _)| v as i64)
            .unwrap_or(1);
        let n = (argc - 1).max(self.max_index() as i64).max(0) as u32;
        (1..=n)
            .map(|k| match self.args.get(&k) {
                Some(ArgUse::Int(w)) => {
                    let (v, _) = values
                        .get(&int_symbol(k))
                        .and_then(|v| parse_bv(v))
                        .unwrap_or((0, *w));
                    signed(v, *w).to_string()
                }
                Some(ArgUse::Choice(lits)) => lits
                    .iter()
                    .find(|l| {
                        values
                            .get(&choice_symbol(k, l))
                            .map(|v| v == "true")
                            .unwrap_or(false)
                    })
                    .cloned()
                    .unwrap_or_else(|| distinct_string(lits)),
                Some(ArgUse::Letters(cs)) => {
                    let word: String = cs
                        .iter()
                        .filter(|c| {
                            values
                                .get(&letter_symbol(k, **c))
                                .is_some_and(|v| v == "true")
                        })
                        .collect();
                    if word.is_empty() {
                        // None of the searched characters: any other one.
                        ['x', 'y', 'z', '_']
                            .into_iter()
                            .find(|c| !cs.contains(c))
                            .map(String::from)
                            .unwrap_or_default()
                    } else {
                        word
                    }
                }
                None => "0".to_string(),
            })
            .collect()
    }
}

impl Inputs {
    /// The words of the options the `getopt` calls return in the model, in list
    /// order up to the first -1 or the first position no call reads: `-c` per letter,
    /// followed by the word `1` when the letter takes an argument (its value is not
    /// modelled), and an unknown letter for `'?'`.
    fn option_words(&self, optstring: &str, values: &BTreeMap<String, String>) -> Vec<String> {
        let bv = |name: &str| {
            values
                .get(name)
                .and_then(|v| parse_bv(v))
                .map(|(v, _)| signed(v, 32))
        };
        let mut at: BTreeMap<i64, i64> = BTreeMap::new();
        for i in 0..self.getopt_calls {
            if let (Some(p), Some(v)) =
                (bv(&getopt_position_symbol(i)), bv(&getopt_value_symbol(i)))
            {
                at.insert(p, v);
            }
        }
        let letters = option_letters(optstring);
        let mut words = Vec::new();
        for p in 0.. {
            let Some(v) = at.get(&p).copied() else { break };
            let c = u32::try_from(v).ok().and_then(char::from_u32);
            match letters.iter().find(|(l, _)| Some(*l) == c) {
                Some((l, takes)) => {
                    words.push(format!("-{l}"));
                    if *takes {
                        words.push("1".to_string());
                    }
                }
                None if c == Some('?') => {
                    let unknown = ('a'..='z')
                        .chain('A'..='Z')
                        .find(|x| *x != 'W' && !letters.iter().any(|(l, _)| l == x))
                        .unwrap_or('?');
                    words.push(format!("-{unknown}"));
                }
                // -1, or a return the words cannot be built for (':', 1).
                None => break,
            }
        }
        words
    }
}

/// A string different from every literal.
pub(crate) fn distinct_string(lits: &[String]) -> String {
    let mut s = "x".to_string();
    while lits.contains(&s) {
        s.push('x');
    }
    s
}

/// Parses `#x…` / `#b…` / `(_ bvN W)` into (value, width).
pub(crate) fn parse_bv(text: &str) -> Option<(u64, u32)> {
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
pub(crate) fn signed(v: u64, w: u32) -> i64 {
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
        let vals: BTreeMap<String, String> = [
            ("argc".into(), "#x00000003".into()),
            (choice_symbol(1, "t"), "false".into()),
            ("argv2".into(), "#xffffffff".into()),
        ]
        .into();
        assert_eq!(i.to_args(&vals), vec!["x".to_string(), "-1".to_string()]);
        assert!(i.int(1, 32).is_err());
    }

    #[test]
    fn searched_letters_to_an_argument() {
        let mut i = Inputs::default();
        i.letter(1, 'x').unwrap();
        i.letter(1, 'r').unwrap();
        i.letter(1, 'w').unwrap();
        assert!(i.choice(1, "rw").is_err());
        let vals = |x: &str, r: &str, w: &str| -> BTreeMap<String, String> {
            [
                ("argc".into(), "#x00000002".into()),
                (letter_symbol(1, 'x'), x.into()),
                (letter_symbol(1, 'r'), r.into()),
                (letter_symbol(1, 'w'), w.into()),
            ]
            .into()
        };
        assert_eq!(
            i.to_args(&vals("false", "true", "true")),
            vec!["rw".to_string()]
        );
        // None chosen: a character not searched for.
        assert_eq!(
            i.to_args(&vals("false", "false", "false")),
            vec!["y".to_string()]
        );
    }

    #[test]
    fn getopt_returns_to_option_words() {
        assert_eq!(
            option_letters("t:n:rs"),
            vec![('t', true), ('n', true), ('r', false), ('s', false)]
        );
        assert_eq!(option_letters("+:a::b"), vec![('a', false), ('b', false)]);
        assert_eq!(
            getopt_returns(":x"),
            vec![-1, ':' as i64, '?' as i64, 'x' as i64]
        );
        let mut i = Inputs::default();
        for _ in 0..3 {
            i.getopt_call("t:n:rs").unwrap();
        }
        assert!(i.getopt_call("ab").is_err());
        assert!(i.int(1, 32).is_err());
        // Calls read positions 1, 0, 2: `-s`, then `-t 1`, then the end.
        let vals: BTreeMap<String, String> = [
            ("goi0".into(), "#x00000001".into()),
            ("go0".into(), format!("#x{:08x}", 't' as u32)),
            ("goi1".into(), "#x00000000".into()),
            ("go1".into(), format!("#x{:08x}", 's' as u32)),
            ("goi2".into(), "#x00000002".into()),
            ("go2".into(), "#xffffffff".into()),
        ]
        .into();
        assert_eq!(i.to_args(&vals), vec!["-s", "-t", "1"]);
    }

    #[test]
    fn model_to_nondet_list_and_named_inputs() {
        let mut i = Inputs::default();
        // Call 0 reads position 2 as a char, call 1 position 0 as an unsigned int.
        i.nondet_call("char", 8);
        i.nondet_call("uint", 32);
        i.named_input("depth", Some((-5, 10))).unwrap();
        i.named_input("depth", Some((-3, 20))).unwrap();
        assert_eq!(i.named["depth"], Some((-3, 10)));
        assert!(i.named_input("a b", None).is_err());
        let vals: BTreeMap<String, String> = [
            ("argc".into(), "#x00000001".into()),
            ("ndi0".into(), "#x00000002".into()),
            ("nd0".into(), "#x00000000000001fd".into()),
            ("ndi1".into(), "#x00000000".into()),
            ("nd1".into(), "#xffffffffffffffff".into()),
            (named_symbol("depth"), "#xfffffffe".into()),
        ]
        .into();
        let t = i.to_test(&vals);
        assert_eq!(t.nondet, vec![4294967295, 0, -3]);
        assert_eq!(t.inputs["depth"], -2);
        assert!(t.args.is_empty());
    }
}
