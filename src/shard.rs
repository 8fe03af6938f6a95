//! What a shard's run directory records of the split it belongs to (`shard.json`), so
//! `merge` can tell a whole set of shards of one build from anything less: which shard
//! it is (`k` of `n`), a digest of the catalogue that was split (the build's mutants
//! after the other filters, before the cut; the project root left out, so shards run on
//! machines with other checkout paths agree) and how many mutants it held, and a digest
//! of what the original showed on every test (two versions of a design can have the
//! same sites and different outputs).

use crate::selection::SelectArgs;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use syncmut_mutator::Catalogue;
use syncmut_oracle::outcome::Baseline;

/// The record's file name in a shard's run directory.
pub const FILE: &str = syncmut_oracle::outdir::SHARD;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardRecord {
    pub format_version: u32,
    pub k: usize,
    pub n: usize,
    /// SHA-256 of the catalogue that was split.
    pub catalogue: String,
    /// How many mutants the split catalogue held (all shards together).
    pub mutants: usize,
    /// SHA-256 of the original's observations on every test.
    pub observations: String,
}

/// The split a sharded selection cut: the digest of the catalogue before the cut and
/// its number of mutants (`None` without `--shard`).
pub fn split_of(select: &SelectArgs, built: &Catalogue) -> anyhow::Result<Option<(String, usize)>> {
    if select.shard.is_none() {
        return Ok(None);
    }
    let whole = SelectArgs {
        shard: None,
        ..select.clone()
    };
    let (split, _) = whole.apply(built)?;
    let anywhere = Catalogue {
        root: String::new(),
        ..split
    };
    let bytes = serde_json::to_vec(&anywhere).expect("plain data serialises");
    Ok(Some((hex(&Sha256::digest(bytes)), anywhere.mutants.len())))
}

/// The digest of the original's observations: each test's name, whether it was usable,
/// and the digest of what it showed.
pub fn observations(baseline: &[Baseline]) -> String {
    let mut hash = Sha256::new();
    for b in baseline {
        let line = format!("{:?} {} {:?}\n", b.test, b.usable, b.observed);
        hash.update(line.as_bytes());
    }
    hex(&hash.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
