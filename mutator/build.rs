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

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={LIST}");
    let text = std::fs::read_to_string(LIST).unwrap_or_else(|e| panic!("{LIST}: {e}"));
    let mut lines = Vec::new();
    for (number, raw) in text.lines().enumerate() {
        let Some(body) = raw.trim().strip_prefix("SYNCMUT_OPERATOR(") else {
            continue;
        };
        let line = parse(body).unwrap_or_else(|why| panic!("{LIST}:{}: {why}", number + 1));
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

/// Parses `Variant, C_NAME, "slug", "doc", "description")`.
fn parse(body: &str) -> Result<Line, String> {
    let body = body.strip_suffix(')').ok_or("the line must end with ')'")?;
    let mut args = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        let (arg, after) = if let Some(quoted) = rest.strip_prefix('"') {
            string_literal(quoted)?
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            (rest[..end].trim().to_string(), &rest[end..])
        };
        args.push(arg);
        rest = after.trim_start();
        if let Some(next) = rest.strip_prefix(',') {
            rest = next.trim_start();
        } else if !rest.is_empty() {
            return Err(format!("expected ',' before {rest:?}"));
        }
    }
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

/// The contents of a C string literal whose opening quote is already consumed, and the
/// text after its closing quote. Only `\"` and `\\` are accepted, so the C compiler and
/// this parser cannot read different strings.
fn string_literal(text: &str) -> Result<(String, &str), String> {
    let mut out = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, &text[i + 1..])),
            '\\' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => out.push(e),
                other => {
                    return Err(format!(
                        "unsupported escape \\{}",
                        other.map(|(_, e)| e).unwrap_or(' ')
                    ))
                }
            },
            c => out.push(c),
        }
    }
    Err("unterminated string".into())
}

/// Each line's names follow from its slug, and slugs are unique.
fn check(lines: &[Line]) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for l in lines {
        if !l.slug.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
            || l.slug.split('-').any(str::is_empty)
        {
            return Err(format!("slug {:?}: lower-case words joined by '-'", l.slug));
        }
        let camel: String = l
            .slug
            .split('-')
            .map(|w| w[..1].to_uppercase() + &w[1..])
            .collect();
        let upper = l.slug.to_uppercase().replace('-', "_");
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
