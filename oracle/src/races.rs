//! Data races in source terms: the runtime's detector names accesses by number and locks
//! by the site that took them (`syncmut_runtime::races`); here they become
//! `file:line:col`, the function, read/write and the locks each thread held, plus a key
//! made of the two source locations only, so the races of two runs (the original's and
//! a mutant's, whose addresses and thread timing differ) can be compared.

use serde::{Deserialize, Serialize};
use syncmut_mutator::Catalogue;
use syncmut_runtime::races::{Race, RaceAccess};

/// One race as reports show it: plain data.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SourceRace {
    /// The two accesses' locations and kinds, sorted (`f.c:17:12 write / f.c:17:12 read`):
    /// what makes two races the same.
    pub key: String,
    /// The earlier access, e.g. `T1 writes in adder @ f.c:17:12 holding no lock`.
    pub first: String,
    /// The later access, unordered with the first.
    pub second: String,
    /// What synchronization would have ordered them and why it did not.
    pub unordered: String,
}

impl std::fmt::Display for SourceRace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}; {} ({})", self.first, self.second, self.unordered)
    }
}

fn location(catalogue: &Catalogue, access: &RaceAccess) -> String {
    let kind = if access.write { "write" } else { "read" };
    match catalogue.accesses.get(access.access as usize) {
        Some(a) if !a.file.is_empty() => format!("{}:{}:{} {kind}", a.file, a.line, a.col),
        Some(a) => format!("{} (no debug location) {kind}", a.function),
        None => format!("access {} {kind}", access.access),
    }
}

fn lock_site(catalogue: &Catalogue, site: Option<u32>) -> String {
    match site.and_then(|s| catalogue.sites.get(s as usize)) {
        Some(s) => format!("{} @ {}:{}", s.call, s.file, s.line),
        None => "an atomic section".to_string(),
    }
}

fn held(catalogue: &Catalogue, access: &RaceAccess) -> String {
    if access.locks.is_empty() {
        return "holding no lock".to_string();
    }
    let locks: Vec<String> = access
        .locks
        .iter()
        .map(|l| lock_site(catalogue, l.site))
        .collect();
    match locks.len() {
        1 => format!("holding the lock taken by {}", locks[0]),
        _ => format!("holding the locks taken by {}", locks.join(" and ")),
    }
}

fn side(catalogue: &Catalogue, access: &RaceAccess) -> String {
    let verb = if access.write { "writes" } else { "reads" };
    let (function, place) = match catalogue.accesses.get(access.access as usize) {
        Some(a) => (
            a.function.as_str(),
            format!("{}:{}:{}", a.file, a.line, a.col),
        ),
        None => ("?", format!("access {}", access.access)),
    };
    format!(
        "T{} {verb} in {function} @ {place} {}",
        access.thread,
        held(catalogue, access)
    )
}

/// The race in source terms.
pub fn in_source(catalogue: &Catalogue, race: &Race) -> SourceRace {
    let mut pair = [
        location(catalogue, &race.earlier),
        location(catalogue, &race.later),
    ];
    pair.sort();
    let (a, b) = (&race.earlier, &race.later);
    let unordered = match (a.locks.is_empty(), b.locks.is_empty()) {
        (true, true) => "no lock, and no other synchronization orders them".to_string(),
        _ => "no common lock, and no other synchronization orders them".to_string(),
    };
    SourceRace {
        key: pair.join(" / "),
        first: side(catalogue, a),
        second: side(catalogue, b),
        unordered,
    }
}

/// The races of one run in source terms, one per key, sorted by key.
pub fn all_in_source(catalogue: &Catalogue, races: &[Race]) -> Vec<SourceRace> {
    let mut out: Vec<SourceRace> = races.iter().map(|r| in_source(catalogue, r)).collect();
    out.sort();
    out.dedup_by(|a, b| a.key == b.key);
    out
}
