//! The random-testing baseline: inputs drawn at random over the same
//! input vector the WP analysis found (every input symbol some site's formula reads),
//! with a fixed seed and a budget of draws, each run confirmed by its trace exactly
//! like a generated test, then the same greedy set cover.
//!
//! Draws assign a value to every input symbol and go through `Inputs::to_args`, the
//! path solver models take, so any input kind the analysis models is drawn too.
//! Integers are log-uniform: a bit length uniform in `0..=16` (capped by the width),
//! a magnitude uniform below `2^length`, and a random sign. Small values (counts,
//! sizes, indices) are then as likely as large ones, and no run loops for 2^31
//! iterations; values beyond 16 bits are never drawn, which is stated in the output.
//! Booleans (string choices such as `argv[1] == "t"`) are fair coins.

use crate::inputs::{Inputs, TestValues};
use crate::suite::{self, Confirmed, Suite};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Default number of random draws.
pub const DEFAULT_BUDGET: usize = 100;
/// Default seed: runs are reproducible unless asked otherwise.
pub const DEFAULT_SEED: u64 = 1;
/// Largest bit length of a drawn integer's magnitude.
pub const MAX_BITS: u32 = 16;

/// The baseline's suite and what was drawn.
#[derive(Debug, Clone)]
pub struct RandomSuite {
    /// The confirmed tests kept.
    pub suite: Suite,
    /// Draws made (the budget); identical draws run once.
    pub draws: usize,
    /// The seed the draws came from.
    pub seed: u64,
    /// The input symbols drawn over (SMT names, e.g. `argv1`).
    pub symbols: Vec<String>,
}

/// One random input vector, as argv[1..].
pub(crate) fn draw(inputs: &Inputs, rng: &mut fastrand::Rng) -> Vec<String> {
    let mut model = BTreeMap::new();
    for (name, sort) in inputs.declarations() {
        let value = if name == "argc" {
            // Exactly the arguments the design reads.
            bv_literal(u64::from(inputs.max_index()) + 1, 32)
        } else if let Some(w) = sort
            .strip_prefix("(_ BitVec ")
            .and_then(|r| r.strip_suffix(')'))
            .and_then(|w| w.parse::<u32>().ok())
        {
            bv_literal(int(rng, w) as u64, w)
        } else {
            rng.bool().to_string()
        };
        model.insert(name, value);
    }
    inputs.to_args(&model)
}

/// One random test: argv as [`draw`], a value for each nondet call position the
/// formulas read (typed like the call), and each named input within its constant
/// range (log-uniform without one).
pub(crate) fn draw_values(inputs: &Inputs, rng: &mut fastrand::Rng) -> TestValues {
    let args = draw(inputs, rng);
    let nondet = inputs
        .nondet
        .iter()
        .map(|call| {
            let v = int(rng, call.width.min(64));
            let w = call.width.min(64);
            match (call.signed(), w) {
                (true, _) | (false, 64) => i128::from(v),
                (false, w) => i128::from((v as u64) & ((1u64 << w) - 1)),
            }
        })
        .collect();
    let mut named = BTreeMap::new();
    for (name, range) in &inputs.named {
        let v = match range {
            Some((lo, hi)) => rng.i64(*lo..=(*hi).max(*lo)),
            None => int(rng, 32),
        };
        named.insert(name.clone(), v);
    }
    TestValues {
        args,
        nondet,
        inputs: named,
    }
}

/// A log-uniform integer that fits a signed `width`-bit value.
fn int(rng: &mut fastrand::Rng, width: u32) -> i64 {
    let bits = rng.u32(0..=MAX_BITS.min(width.saturating_sub(1)));
    let magnitude = if bits == 0 {
        0
    } else {
        rng.i64(0..1i64 << bits)
    };
    if rng.bool() {
        -magnitude
    } else {
        magnitude
    }
}

fn bv_literal(v: u64, width: u32) -> String {
    let masked = if width >= 64 {
        v
    } else {
        v & ((1u64 << width) - 1)
    };
    format!("(_ bv{masked} {width})")
}

/// Draws `budget` input vectors with `seed`, runs each distinct one on the metamutant
/// with tracing and keeps a greedy cover of every site reached.
pub(crate) fn run(
    inputs: &Inputs,
    metamutant: &Path,
    pthread: bool,
    scratch: &Path,
    budget: usize,
    seed: u64,
) -> std::io::Result<RandomSuite> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut seen = BTreeSet::new();
    let mut runs = Vec::new();
    let mut unusable = Vec::new();
    for _ in 0..budget {
        let values = draw_values(inputs, &mut rng);
        if !seen.insert(values.clone()) {
            continue;
        }
        let run = suite::run_candidate(
            metamutant,
            &values,
            pthread,
            &scratch.join(syncmut_runtime::trace::binary_name(&format!(
                "random{}",
                runs.len() + unusable.len()
            ))),
            None,
        )?;
        if let Some(why) = run.unusable {
            unusable.push((values, why));
            continue;
        }
        let TestValues {
            args,
            nondet,
            inputs,
        } = values;
        runs.push(Confirmed {
            args,
            nondet,
            inputs,
            reached: run.reached,
            ..Confirmed::default()
        });
    }
    let executions = runs.len() + unusable.len();
    let reachable: BTreeSet<u32> = runs
        .iter()
        .flat_map(|r| r.reached.iter().copied())
        .collect();
    let (tests, confirmed) = suite::cover(runs, &reachable);
    let argv_only = Inputs {
        args: inputs.args.clone(),
        ..Inputs::default()
    };
    let mut symbols: Vec<String> = argv_only
        .declarations()
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n != "argc")
        .collect();
    symbols.extend(
        inputs
            .nondet
            .iter()
            .enumerate()
            .map(|(i, c)| format!("nondet[{i}]:{}", c.ty)),
    );
    symbols.extend(inputs.named.keys().map(|n| format!("input:{n}")));
    // Without an analysis verdict per site, the sites some run reached are the
    // denominator.
    let open = reachable.clone();
    Ok(RandomSuite {
        suite: Suite {
            tests,
            reachable,
            open,
            confirmed,
            executions,
            unusable,
        },
        draws: budget,
        seed,
        symbols,
    })
}

/// The input vector in words, for messages.
pub fn describe(symbols: &[String]) -> String {
    if symbols.is_empty() {
        "no inputs (every draw is the same run)".to_string()
    } else {
        symbols.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_reproducible_and_cover_the_input_vector() {
        let mut i = Inputs::default();
        i.int(1, 32).unwrap();
        i.choice(2, "t").unwrap();
        let a: Vec<_> = (0..20)
            .map({
                let mut rng = fastrand::Rng::with_seed(7);
                move |_| draw(&i, &mut rng)
            })
            .collect();
        let mut j = Inputs::default();
        j.int(1, 32).unwrap();
        j.choice(2, "t").unwrap();
        let mut rng = fastrand::Rng::with_seed(7);
        let b: Vec<_> = (0..20).map(|_| draw(&j, &mut rng)).collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|v| v.len() == 2));
        assert!(a.iter().any(|v| v[1] == "t") && a.iter().any(|v| v[1] != "t"));
        let ints: Vec<i64> = a.iter().map(|v| v[0].parse().unwrap()).collect();
        assert!(ints.iter().all(|x| x.abs() < 1 << MAX_BITS));
        assert!(ints.iter().any(|x| *x < 0) && ints.iter().any(|x| *x > 0));
    }

    #[test]
    fn nondet_values_are_typed_and_named_inputs_stay_in_range() {
        let mut i = Inputs::default();
        i.nondet_call("uchar", 8);
        i.nondet_call("int", 32);
        i.named_input("depth", Some((3, 9))).unwrap();
        let mut rng = fastrand::Rng::with_seed(3);
        let draws: Vec<TestValues> = (0..50).map(|_| draw_values(&i, &mut rng)).collect();
        assert!(draws
            .iter()
            .all(|t| t.nondet.len() == 2 && (0..=255).contains(&t.nondet[0])));
        assert!(draws.iter().any(|t| t.nondet[1] < 0));
        assert!(draws.iter().all(|t| (3..=9).contains(&t.inputs["depth"])));
    }

    #[test]
    fn literals_are_twos_complement() {
        assert_eq!(bv_literal((-1i64) as u64, 8), "(_ bv255 8)");
        assert_eq!(crate::inputs::parse_bv(&bv_literal(5, 32)), Some((5, 32)));
    }
}
