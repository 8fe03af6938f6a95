//! Synchronization mutation operators.
//!
//! An operator is named by a stable slug; the slug is what crosses into the runtime
//! library (`SYNCMUT_ACTIVE=<site>:<slug>`) and what the runtime writes back into the
//! trace as the action it performed, so the two sides agree on text, not on numbers.
//!
//! The operators themselves are listed once, in `runtime-lib/include/syncmut_operators.def`,
//! which the C runtime expands into its enum and slug table and `build.rs` turns into an
//! `operators!` invocation for the macro below.

use serde::{Deserialize, Serialize};

/// Defines `Operator` from the list: one variant per line, documented by the line's
/// doc text and serialised as its slug.
macro_rules! operators {
    (count: $count:literal; $($variant:ident, $slug:literal, $doc:literal, $description:literal;)*) => {
        /// One way of injecting a fault into a synchronization call.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum Operator {
            $(#[doc = $doc] #[serde(rename = $slug)] $variant,)*
        }

        impl Operator {
            /// Every operator, in catalogue order.
            pub const ALL: [Operator; $count] = [$(Operator::$variant),*];

            /// The stable slug used in mutant ids, the runtime's environment and traces.
            pub fn slug(self) -> &'static str {
                match self {
                    $(Operator::$variant => $slug,)*
                }
            }

            /// The mutant's description, with `{call}` standing for the call's source text.
            fn description(self) -> &'static str {
                match self {
                    $(Operator::$variant => $description,)*
                }
            }
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/operators.rs"));

impl Operator {
    /// The runtime's number for the operator: its 1-based position in the operator list
    /// (0 is "original"). Only the copy table of placed copies carries it; the test below
    /// keeps the runtime's enum in the same order.
    pub(crate) fn number(self) -> u32 {
        Operator::ALL
            .iter()
            .position(|op| *op == self)
            .expect("every operator is listed") as u32
            + 1
    }

    /// A human description of the mutation applied to `call` (the call's source text).
    pub(crate) fn describe(self, call: &str) -> String {
        self.description().replace("{call}", call)
    }

    /// Whether the mutant places a synchronization call where the original has none (a
    /// moved region boundary, a split, swapped acquisitions): its runs have scheduling
    /// points the original's lack, so the original following such a run cannot preempt
    /// where it did.
    pub fn places_calls(self) -> bool {
        matches!(
            self,
            Operator::ShrinkCriticalSection
                | Operator::WidenCriticalSection
                | Operator::SplitCriticalSection
                | Operator::SwapLockOrder
        )
    }
}

impl std::fmt::Display for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.slug())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for op in Operator::ALL {
            assert!(seen.insert(op.slug()), "duplicate slug {}", op.slug());
            // serde and slug must agree: the catalogue and the runtime use both.
            let json = serde_json::to_string(&op).unwrap();
            assert_eq!(json, format!("\"{}\"", op.slug()));
        }
    }
}

/// The runtime's side of the operator list, read the way the C compiler reads it.
#[cfg(test)]
mod runtime_agreement {
    use super::Operator;

    const RUNTIME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../runtime-lib");

    fn read(path: &str) -> String {
        let path = format!("{RUNTIME}/{path}");
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The lines of `text` from the one starting with `from` up to the one starting
    /// with `to` (both excluded), with the X-macro include replaced by what each
    /// `SYNCMUT_OPERATOR` line expands to under `expand(c_name, slug)`.
    fn expanded(
        text: &str,
        from: &str,
        to: &str,
        expand: impl Fn(&str, &str) -> String,
    ) -> Vec<String> {
        let start = text.find(from).unwrap_or_else(|| panic!("no `{from}`"));
        let body = &text[start + from.len()..];
        let body = &body[..body
            .find(to)
            .unwrap_or_else(|| panic!("no `{to}` after `{from}`"))];
        let mut out = Vec::new();
        for line in body.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if line == "#include \"syncmut_operators.def\"" {
                for def in read("include/syncmut_operators.def").lines() {
                    let Some(args) = def.strip_prefix("SYNCMUT_OPERATOR(") else {
                        continue;
                    };
                    let args: Vec<&str> = args.splitn(4, ',').map(str::trim).collect();
                    out.push(expand(args[1], args[2].trim_matches('"')));
                }
            } else if !line.starts_with("#define SYNCMUT_OPERATOR")
                && !line.starts_with("#undef SYNCMUT_OPERATOR")
            {
                out.push(line.to_string());
            }
        }
        out
    }

    #[test]
    fn the_c_enum_and_slug_table_are_the_rust_operators_in_order() {
        let c_name = |op: Operator| op.slug().to_uppercase().replace('-', "_");
        let enumerators = expanded(
            &read("src/activation.h"),
            "typedef enum syncmut_op {",
            "SYNCMUT_OP_COUNT",
            |c, _| format!("SYNCMUT_{c},"),
        );
        let mut expected =
            vec!["SYNCMUT_ORIGINAL = 0, /* no mutation: perform the original call */".to_string()];
        expected.extend(
            Operator::ALL
                .iter()
                .map(|op| format!("SYNCMUT_{},", c_name(*op))),
        );
        assert_eq!(
            enumerators, expected,
            "activation.h's syncmut_op must be ORIGINAL then the .def's operators"
        );

        let slugs = expanded(
            &read("src/activation.c"),
            "slugs[SYNCMUT_OP_COUNT] = {",
            "};",
            |c, slug| format!("[SYNCMUT_{c}] = \"{slug}\","),
        );
        let mut expected = vec!["[SYNCMUT_ORIGINAL] = \"original\",".to_string()];
        expected.extend(
            Operator::ALL
                .iter()
                .map(|op| format!("[SYNCMUT_{}] = \"{}\",", c_name(*op), op.slug())),
        );
        assert_eq!(
            slugs, expected,
            "activation.c's slug table must be \"original\" then the .def's slugs"
        );
    }
}
