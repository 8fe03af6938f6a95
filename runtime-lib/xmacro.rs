//! Reads the X-macro lists of `include/` (`syncmut_operators.def`, `syncmut_schedules.def`)
//! for the build scripts that generate their Rust side (the mutator's and the runtime's),
//! so both read the C the same way.

/// The arguments of each `MACRO(...)` line of `text` (other lines are comments), with
/// its line number from 1. Panics naming `path` and the line when one cannot be read.
pub fn lines(path: &str, text: &str, macro_name: &str) -> Vec<(usize, Vec<String>)> {
    let open = format!("{macro_name}(");
    let mut found = Vec::new();
    for (number, raw) in text.lines().enumerate() {
        let Some(body) = raw.trim().strip_prefix(open.as_str()) else {
            continue;
        };
        let args = arguments(body).unwrap_or_else(|why| panic!("{path}:{}: {why}", number + 1));
        found.push((number + 1, args));
    }
    found
}

/// Parses `A, B, "c", "d")`: bare words and C string literals.
fn arguments(body: &str) -> Result<Vec<String>, String> {
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
    Ok(args)
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

/// The names a lower-case, `-`-joined name must have in Rust (CamelCase) and C (upper
/// case, `_` for `-`), so a line cannot name two different things.
pub fn spellings(name: &str) -> Result<(String, String), String> {
    if !name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
        || name.split('-').any(str::is_empty)
    {
        return Err(format!("{name:?}: lower-case words joined by '-'"));
    }
    let camel = name
        .split('-')
        .map(|w| w[..1].to_uppercase() + &w[1..])
        .collect();
    Ok((camel, name.to_uppercase().replace('-', "_")))
}
