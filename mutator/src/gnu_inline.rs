//! C sources written for GNU89 `inline` semantics (gcc's default before C99): there a
//! non-static `inline` definition is the function's external definition; under C99 it
//! is an inline definition only, and a build at -O0 (which inlines nothing) leaves the
//! function undefined at link time. Many older benchmark programs rely on the GNU89
//! meaning. When linking fails on such a function, the design is built again with
//! `-fgnu89-inline`, and the build says so.

use crate::design::{Design, InputKind};

/// The flag that gives C `inline` its GNU89 meaning.
pub const FLAG: &str = "-fgnu89-inline";

/// The design to build again, and the note saying why, when a failed link's undefined
/// references are functions a C source of the design defines `inline`; `None` when the
/// failure has another cause or the design already chose its inline semantics.
pub fn retry(design: &Design, linker_stderr: &str) -> Option<(Design, String)> {
    let chose = |f: &String| {
        f == FLAG
            || f == "-fno-gnu89-inline"
            || f.starts_with("-std=gnu89")
            || f.starts_with("-std=c89")
            || f.starts_with("-std=gnu90")
            || f.starts_with("-std=c90")
            || f == "-ansi"
    };
    if design.flags.iter().any(chose) {
        return None;
    }
    let sources: Vec<String> = design
        .inputs
        .iter()
        .filter(|i| i.kind == InputKind::C && !i.flags.iter().any(chose))
        .filter_map(|i| std::fs::read_to_string(&i.path).ok())
        .collect();
    let mut inline: Vec<&str> = undefined_references(linker_stderr)
        .into_iter()
        .filter(|name| sources.iter().any(|s| defines_inline(s, name)))
        .collect();
    if inline.is_empty() {
        return None;
    }
    inline.sort_unstable();
    inline.dedup();
    let mut again = design.clone();
    again.flags.push(FLAG.to_string());
    let names = inline
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let note = format!(
        "linking failed on {names}: a non-static `inline` function with no external definition, which C99 leaves undefined; \
         built again with {FLAG} (GNU89 inline semantics, where that definition is the external one, as the source expects)"
    );
    Some((again, note))
}

/// The symbols a linker's messages call undefined (`undefined reference to `f'`).
fn undefined_references(stderr: &str) -> Vec<&str> {
    stderr
        .split("undefined reference to `")
        .skip(1)
        .filter_map(|rest| rest.split_once('\'').map(|(name, _)| name))
        .collect()
}

/// Whether `source` has a line declaring `name` with the `inline` keyword before it
/// (`inline int f(void)`, `extern __inline__ void f(...)`).
fn defines_inline(source: &str, name: &str) -> bool {
    source.lines().any(|line| {
        let Some(at) = line
            .find(&format!("{name}("))
            .or_else(|| line.find(&format!("{name} (")))
        else {
            return false;
        };
        let before = &line[..at];
        let word_start =
            at == 0 || !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        word_start
            && before
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == "inline" || w == "__inline__" || w == "__inline")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undefined_names_are_read_from_the_linker() {
        let text = "/usr/bin/ld: /tmp/x.o: in function `customer':\nx.c:(.text+0x5): undefined reference to `take_ticket'\nclang: error: linker command failed";
        assert_eq!(undefined_references(text), ["take_ticket"]);
    }

    #[test]
    fn only_an_inline_declaration_counts() {
        assert!(defines_inline(
            "inline int take_ticket(void)\n{",
            "take_ticket"
        ));
        assert!(defines_inline("extern __inline__ void f (int x);", "f"));
        assert!(!defines_inline(
            "int take_ticket(void);\ninline int other(void)",
            "take_ticket"
        ));
        assert!(!defines_inline(
            "inline int my_take_ticket(void)",
            "take_ticket"
        ));
    }
}
