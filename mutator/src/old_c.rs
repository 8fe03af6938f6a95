//! C sources written before C99, as many benchmark programs are: a function called
//! before any declaration, an implicit `int`, an integer used as a pointer, a
//! value-less `return` in an `int` function, a function pointer of another type. gcc and
//! older clangs warn about these; clang 16 makes them errors by default. When a C
//! compile fails on such errors only as errors, the design is built again with them
//! demoted to warnings (`-Wno-error=...`), and the build says so.

use crate::design::{Design, InputKind};

/// The diagnostics clang 16 turned into errors for pre-C99 code.
const DEMOTED: [&str; 5] = [
    "implicit-function-declaration",
    "implicit-int",
    "int-conversion",
    "return-type",
    "incompatible-function-pointer-types",
];

/// The design to build again, and the note saying why, when a failed C compile's errors
/// include the diagnostics above and the design does not yet demote them; `None`
/// otherwise (the failure then stands, with clang's message).
pub fn retry(
    design: &Design,
    file: &std::path::Path,
    compiler_stderr: &str,
) -> Option<(Design, String)> {
    if !design
        .inputs
        .iter()
        .any(|i| i.kind == InputKind::C && i.path == file)
    {
        return None;
    }
    let flag = |w: &str| format!("-Wno-error={w}");
    let found: Vec<&str> = DEMOTED
        .into_iter()
        .filter(|w| {
            compiler_stderr
                .lines()
                .any(|l| l.contains(" error: ") && l.trim_end().ends_with(&format!("[-W{w}]")))
        })
        .filter(|w| !design.flags.contains(&flag(w)))
        .collect();
    if found.is_empty() {
        return None;
    }
    let mut again = design.clone();
    again.flags.extend(found.iter().map(|w| flag(w)));
    let flags: Vec<String> = found.iter().map(|w| flag(w)).collect();
    let note = format!(
        "{}: clang 16 rejects this pre-C99 code by default ({}); built again with {}, so these are warnings, as older compilers made them",
        file.display(),
        found.join(", "),
        flags.join(" ")
    );
    Some((again, note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_listed_errors_are_demoted_and_only_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("old.c");
        std::fs::write(&file, "int main(){return 0;}").unwrap();
        let design = Design::from_paths(std::slice::from_ref(&file), &[]).unwrap();
        let stderr = "old.c:3:5: error: call to undeclared function 'f'; ISO C99 and later do not support implicit function declarations [-Wimplicit-function-declaration]\nold.c:9:1: error: expected ';' after expression\n";
        let (again, note) = retry(&design, &file, stderr).unwrap();
        assert!(again
            .flags
            .contains(&"-Wno-error=implicit-function-declaration".to_string()));
        assert!(note.contains("implicit-function-declaration"), "{note}");
        assert!(retry(&again, &file, stderr).is_none());
        assert!(retry(
            &design,
            &file,
            "old.c:9:1: error: expected ';' after expression"
        )
        .is_none());
        // A warning of the same name is no reason to build again.
        assert!(retry(
            &design,
            &file,
            "old.c:2:1: warning: type specifier missing [-Wimplicit-int]"
        )
        .is_none());
    }
}
