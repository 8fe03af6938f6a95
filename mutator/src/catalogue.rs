//! The mutant catalogue: every site and mutant of one design, as plain data.
//!
//! This is what crosses crate boundaries and what `mutants.json` holds. Site numbers
//! are per build (they are the runtime's `SYNCMUT_ACTIVE` currency); mutant ids are
//! stable: `<function>#<ordinal>:<operator>`, where the ordinal counts sync calls in
//! instruction order within that function, so editing an unrelated function never
//! renames a mutant.

use crate::effect::{Effect, Family};
use crate::interleave::{Interleave, MemoryAccess};
use crate::operator::Operator;
use serde::{Deserialize, Serialize};

/// Format version of `mutants.json`; bumped on incompatible changes.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// One rewritten synchronization call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    /// Number passed to the runtime wrapper in this build (0-based, in source order).
    pub index: u32,
    /// Stable key: `<function>#<ordinal>`.
    pub key: String,
    /// Demangled name of the function that contains the call.
    pub function: String,
    /// Demangled signature of the original callee.
    pub callee: String,
    /// Runtime wrapper the call was rewritten to.
    pub wrapper: String,
    /// The threading model of the call's API.
    pub family: Family,
    /// Source file: relative to the catalogue's `root` when under it (debug info's
    /// absolute path otherwise).
    pub file: String,
    /// Source line of the call.
    pub line: u32,
    /// Source column of the call.
    pub col: u32,
    /// The call as written in the source, e.g. `wait(e)`.
    pub call: String,
    /// Operators that apply here (the API's operators, less any this module cannot
    /// support, e.g. a fifo swap whose twin function is not in the module).
    pub operators: Vec<Operator>,
    /// Operators of the API left out here because their mutant would be the original
    /// by construction (`notify-delta` of a zero-time notify, `time-double`/`time-zero`
    /// of a zero-time wait): no mutant is generated for them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub equivalent: Vec<Operator>,
    /// What the call does, from the API table. Absent in catalogues written before
    /// effects were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    /// A call of a declared synchronization function (`[[sync]]`): the sites inside
    /// that function's body, whose events a removed call also takes away.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inner: Vec<u32>,
    /// A C++ lock guard's construction: the other calls on the same guard object (its
    /// destruction, its `lock()`/`unlock()`), which `remove` takes away with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scope: Vec<u32>,
}

/// One fault: an operator applied to one or more sites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    /// Stable id, e.g. `top::t1#1:remove`.
    pub id: String,
    /// The mutation applied to the sites.
    pub operator: Operator,
    /// Human description, e.g. `remove wait(e)`.
    pub description: String,
    /// Site indices the operator applies to (one for single-site operators).
    pub sites: Vec<u32>,
    /// Location of the first site, repeated for readers of the JSON.
    pub function: String,
    /// Source file of the first site.
    pub file: String,
    /// Source line of the first site.
    pub line: u32,
    /// Source column of the first site.
    pub col: u32,
    /// Original call text of the first site.
    pub call: String,
    /// A run of several programs (`syncmut run prog1 prog2`): the programs whose build
    /// holds the mutant, by file name, sorted. Empty for one program.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<String>,
}

impl Mutant {
    /// The runtime activation string for this mutant (`SYNCMUT_ACTIVE`).
    pub fn activation(&self) -> String {
        self.sites
            .iter()
            .map(|site| format!("{site}:{}", self.operator.slug()))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Every site and mutant of a design.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Catalogue {
    /// Version of the `mutants.json` format it was written in.
    pub format_version: u32,
    /// The design's threading model: `systemc` when it defines `sc_main` (then the
    /// metamutant links the SystemC kernel), `pthread` otherwise.
    pub kind: Family,
    /// Every rewritten call of the design.
    pub sites: Vec<Site>,
    /// Every mutant of those calls.
    pub mutants: Vec<Mutant>,
    /// Which operations the metamutant was built to interleave (`--interleave`); kept
    /// so `--resume` rebuilds the same metamutant. Omitted when `sync` (the default).
    #[serde(default, skip_serializing_if = "Interleave::is_sync")]
    pub interleave: Interleave,
    /// Built for race detection (`run --races`): `accesses` reach the race detector.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub races: bool,
    /// `--interleave memory`: the loads/stores that are scheduling points, by the
    /// number the runtime reports (`m<k>` in schedule files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accesses: Vec<MemoryAccess>,
    /// The project root (absolute) the files of sites, mutants and accesses are named
    /// relative to, so reports attach to a repository's paths on any machine. Empty in
    /// catalogues written before it existed, whose files are absolute.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub root: String,
    /// The integer constants the design compares with, which the metamutant's runtime
    /// draws nondet values among (crate::nondet_constants).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nondet_constants: Vec<i64>,
}

impl Catalogue {
    /// Builds the catalogue from discovered sites: one mutant per (site, operator that
    /// applies to the site's API), ordered by site then operator.
    pub fn from_sites(kind: Family, sites: Vec<Site>) -> Catalogue {
        let mutants = sites
            .iter()
            .flat_map(|site| {
                site.operators.iter().copied().map(move |op| Mutant {
                    id: format!("{}:{}", site.key, op.slug()),
                    operator: op,
                    description: op.describe(&site.call),
                    sites: if op == Operator::Remove {
                        std::iter::once(site.index)
                            .chain(site.scope.iter().copied())
                            .collect()
                    } else {
                        vec![site.index]
                    },
                    function: site.function.clone(),
                    file: site.file.clone(),
                    line: site.line,
                    col: site.col,
                    call: site.call.clone(),
                    programs: Vec::new(),
                })
            })
            .collect();
        Catalogue {
            format_version: FORMAT_VERSION,
            kind,
            sites,
            mutants,
            interleave: Interleave::Sync,
            races: false,
            accesses: Vec::new(),
            root: String::new(),
            nondet_constants: Vec::new(),
        }
    }

    /// Where a file named by this catalogue is on this machine (for reading sources).
    pub fn source_path(&self, file: &str) -> std::path::PathBuf {
        std::path::Path::new(&self.root).join(file)
    }

    /// The sites whose events a mutant takes away by construction, so that their
    /// absence is no kill: its own sites and, for a declared synchronization function,
    /// the sites inside it.
    pub fn hidden_sites(&self, mutant: &Mutant) -> Vec<u32> {
        let mut hidden = mutant.sites.clone();
        for site in self
            .sites
            .iter()
            .filter(|s| mutant.sites.contains(&s.index))
        {
            hidden.extend(&site.inner);
        }
        hidden.sort_unstable();
        hidden.dedup();
        hidden
    }

    /// Adds mutants that span several sites or act elsewhere than at their site (see
    /// `regions`), keeping the order by first site, then operator.
    pub fn add_mutants(&mut self, extra: Vec<Mutant>) {
        self.mutants.extend(extra);
        let position: std::collections::HashMap<u32, usize> = self
            .sites
            .iter()
            .enumerate()
            .map(|(n, s)| (s.index, n))
            .collect();
        self.mutants
            .sort_by_key(|m| (m.sites.first().map(|s| position[s]), m.operator));
    }

    /// Finds a mutant by its stable id.
    pub fn mutant(&self, id: &str) -> Option<&Mutant> {
        self.mutants.iter().find(|m| m.id == id)
    }
}
