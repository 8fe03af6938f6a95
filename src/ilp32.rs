//! SV-COMP tasks for the ILP32 data model, built as LP64 (syncmut's runtime is 64-bit
//! only). Their preprocessed inputs carry the 32-bit glibc's pthread types: a
//! `pthread_mutex_t` of 24 bytes, where this machine's glibc initialises and locks 40.
//! Built as they are, `pthread_mutex_init` writes past a global mutex into the variable
//! after it (a task that sets a counter, then initialises its mutex, reads the counter
//! back as 0 and reports a bug it does not have). So the byte array that sizes each
//! such type (`char __size[N]`) is widened to at least this machine's size, in a copy
//! compiled in place of the input; a `#line` directive keeps every location, debug
//! name and witness waypoint on the original file. Nothing else of the program changes.

use std::path::{Path, PathBuf};

/// The pthread and semaphore types whose size the program's headers fix with a
/// `char __size[N]` member, and this machine's size of each.
const TYPES: [(&str, usize); 10] = [
    ("pthread_mutex_t", size_of::<libc::pthread_mutex_t>()),
    ("pthread_cond_t", size_of::<libc::pthread_cond_t>()),
    ("pthread_rwlock_t", size_of::<libc::pthread_rwlock_t>()),
    ("pthread_barrier_t", size_of::<libc::pthread_barrier_t>()),
    ("pthread_attr_t", size_of::<libc::pthread_attr_t>()),
    (
        "pthread_mutexattr_t",
        size_of::<libc::pthread_mutexattr_t>(),
    ),
    ("pthread_condattr_t", size_of::<libc::pthread_condattr_t>()),
    (
        "pthread_rwlockattr_t",
        size_of::<libc::pthread_rwlockattr_t>(),
    ),
    (
        "pthread_barrierattr_t",
        size_of::<libc::pthread_barrierattr_t>(),
    ),
    ("sem_t", size_of::<libc::sem_t>()),
];

/// `text` with every pthread type's `char __size[N]` member at least this machine's
/// size, and what was widened (`pthread_mutex_t: 24 → 40 bytes`). A member belongs to
/// the type named right after the `}` that closes its union (`typedef union { … } T;`),
/// or before its `{` (`union T { … };`).
pub fn widen(text: &str) -> (String, Vec<String>) {
    const MEMBER: &str = "char __size[";
    let mut out = String::with_capacity(text.len());
    let mut widened = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(MEMBER) {
        let (before, after) = rest.split_at(at + MEMBER.len());
        out.push_str(before);
        rest = after;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(n) = rest[..digits].parse::<usize>() else {
            continue;
        };
        let consumed = text.len() - rest.len();
        let owner = type_after(&text[consumed..]).or_else(|| type_before(&text[..consumed]));
        match owner.and_then(|name| TYPES.iter().find(|(t, _)| *t == name)) {
            Some((name, host)) if n < *host => {
                out.push_str(&host.to_string());
                widened.push(format!("{name}: {n} → {host} bytes"));
            }
            _ => out.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    (out, widened)
}

/// The name after the `}` that closes the union holding a member (`} pthread_mutex_t;`).
fn type_after(text: &str) -> Option<&str> {
    let close = text.find('}')?;
    let name = text[close + 1..].trim_start();
    let end = name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    Some(&name[..end]).filter(|n| !n.is_empty())
}

/// The name of `union NAME {` before a member, when no typedef name follows its union.
fn type_before(text: &str) -> Option<&str> {
    let open = text.rfind('{')?;
    let head = text[..open].trim_end();
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let keyword = head[..start].trim_end();
    keyword
        .ends_with("union")
        .then_some(&head[start..])
        .filter(|n| !n.is_empty())
}

/// The copies of `inputs` to compile in their place, in `dir`, for those whose pthread
/// types were widened; each starts with a `#line` directive naming the original. Returns
/// the inputs to build (a copy or the original, in order) and what was widened.
pub fn widen_inputs(inputs: &[PathBuf], dir: &Path) -> anyhow::Result<(Vec<PathBuf>, Vec<String>)> {
    let mut built = Vec::new();
    let mut widened = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let text = match std::fs::read_to_string(input) {
            Ok(text) => text,
            Err(_) => {
                // Not text syncmut can widen (clang names what is wrong with it).
                built.push(input.clone());
                continue;
            }
        };
        let (text, changed) = widen(&text);
        if changed.is_empty() {
            built.push(input.clone());
            continue;
        }
        let original = std::path::absolute(input)?;
        let name = input.file_name().unwrap_or_default();
        let copy = dir.join(format!("{i}")).join(name);
        std::fs::create_dir_all(copy.parent().expect("a directory"))?;
        let quoted = original
            .to_string_lossy()
            .replace('\\', "\\\\")
            .replace('"', "\\\"");
        std::fs::write(&copy, format!("#line 1 \"{quoted}\"\n{text}"))?;
        built.push(copy);
        widened.extend(changed);
    }
    widened.sort();
    widened.dedup();
    Ok((built, widened))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_32_bit_mutex_and_attr_are_widened_and_nothing_else() {
        let text = "typedef union\n{\n  struct __pthread_mutex_s __data;\n  char __size[24];\n  long int __align;\n} pthread_mutex_t;\n\
                    union pthread_attr_t\n{\n  char __size[36];\n  long int __align;\n};\n\
                    typedef union { char __size[4]; int __align; } pthread_mutexattr_t;\n\
                    struct mine { char __size[3]; } other_t;\n";
        let (out, widened) = widen(text);
        assert!(
            out.contains("char __size[40];\n  long int __align;\n} pthread_mutex_t;"),
            "{out}"
        );
        assert!(
            out.contains("union pthread_attr_t\n{\n  char __size[56];"),
            "{out}"
        );
        assert!(
            out.contains("{ char __size[4]; int __align; } pthread_mutexattr_t;"),
            "{out}"
        );
        assert!(out.contains("struct mine { char __size[3]; }"), "{out}");
        assert_eq!(out.lines().count(), text.lines().count());
        assert_eq!(
            widened,
            [
                "pthread_mutex_t: 24 → 40 bytes",
                "pthread_attr_t: 36 → 56 bytes"
            ]
        );
    }

    #[test]
    fn a_64_bit_header_is_left_as_it_is() {
        let text = "typedef union { struct __pthread_mutex_s __data; char __size[40]; long int __align; } pthread_mutex_t;";
        let (out, widened) = widen(text);
        assert_eq!(out, text);
        assert!(widened.is_empty());
    }
}
