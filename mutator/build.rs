//! Generates the Rust side of the operator list from the runtime's X-macro file
//! `runtime-lib/include/syncmut_operators.def`, so the mutator and the C runtime are
//! built from one list and cannot disagree on which operators exist or on their slugs.
//!
//! The output, `$OUT_DIR/operators.rs`, is one `operators! { … }` invocation that
//! `src/operator.rs` includes; the macro there decides what the Rust type looks like.

use std::path::Path;

const LIST: &str = "../runtime-lib/include/syncmut_operators.def";

/// One `SYNCMUT_OPERATOR(...)` line.
struct Line {
    variant: String,
    c_name: String,
    slug: String,
    doc: String,
    description: String,
}

#[path = "../runtime-lib/xmacro.rs"]
mod xmacro;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={LIST}");
    println!("cargo:rerun-if-changed=../runtime-lib/xmacro.rs");
    let text = std::fs::read_to_string(LIST).unwrap_or_else(|e| panic!("{LIST}: {e}"));
    let mut lines = Vec::new();
    for (number, args) in xmacro::lines(LIST, &text, "SYNCMUT_OPERATOR") {
        let line = parse(args).unwrap_or_else(|why| panic!("{LIST}:{number}: {why}"));
        lines.push(line);
    }
    check(&lines).unwrap_or_else(|why| panic!("{LIST}: {why}"));
    let mut out = format!("operators! {{\n    count: {};\n", lines.len());
    for l in &lines {
        out.push_str(&format!(
            "    {}, {:?}, {:?}, {:?};\n",
            l.variant, l.slug, l.doc, l.description
        ));
    }
    out.push_str("}\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("operators.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}

/// The five arguments `Variant, C_NAME, "slug", "doc", "description"`.
fn parse(args: Vec<String>) -> Result<Line, String> {
    let [variant, c_name, slug, doc, description]: [String; 5] = args
        .try_into()
        .map_err(|args: Vec<String>| format!("expected 5 arguments, found {}", args.len()))?;
    Ok(Line {
        variant,
        c_name,
        slug,
        doc,
        description,
    })
}

/// Each line's names follow from its slug, and slugs are unique.
fn check(lines: &[Line]) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for l in lines {
        let (camel, upper) = xmacro::spellings(&l.slug).map_err(|why| format!("slug {why}"))?;
        if l.variant != camel || l.c_name != upper {
            return Err(format!(
                "slug {:?} must be named {camel} in Rust and {upper} in C, not {} and {}",
                l.slug, l.variant, l.c_name
            ));
        }
        if !seen.insert(&l.slug) {
            return Err(format!("slug {:?} appears twice", l.slug));
        }
        if !l.description.contains("{call}") {
            return Err(format!(
                "the description of {:?} does not show {{call}}",
                l.slug
            ));
        }
    }
    // Bit 0 of the runtime's 32-bit operator masks is "original".
    if lines.is_empty() || lines.len() > 31 {
        return Err(format!(
            "{} operators: the runtime's masks hold 1 to 31",
            lines.len()
        ));
    }
    Ok(())
}
