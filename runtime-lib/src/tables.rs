//! The layout of the state tables the mutator emits and the runtime's snapshots read,
//! defined once in `include/syncmut_tables.h`. The mutator builds the LLVM struct types
//! from the slot lists here; the test below compiles the header and checks that every
//! size and offset agrees, so neither side can change alone.

/// One member of a table entry, as the mutator emits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// A pointer (`const char *`, a pointer to another table).
    Pointer,
    /// `uint32_t`.
    U32,
    /// `uint64_t`.
    U64,
}

/// `struct syncmut_enumerator`: value, name.
pub const ENUMERATOR: &[Slot] = &[Slot::U64, Slot::Pointer];
/// `struct syncmut_field`: name, where, enums, size, kind, nenums.
pub const FIELD: &[Slot] = &[
    Slot::Pointer,
    Slot::U64,
    Slot::Pointer,
    Slot::U32,
    Slot::U32,
    Slot::U32,
];
/// `struct syncmut_class`: type_name, fields, nfields.
pub const CLASS: &[Slot] = &[Slot::Pointer, Slot::Pointer, Slot::U64];

/// `struct syncmut_thread_reads`: routine, reads.
pub const THREAD_READS: &[Slot] = &[Slot::Pointer, Slot::U64];

/// How the runtime prints a field (`kind` of `struct syncmut_field`, `SYNCMUT_FIELD_*`).
pub mod kind {
    /// A signed integer.
    pub const SIGNED: u8 = 0;
    /// An unsigned integer.
    pub const UNSIGNED: u8 = 1;
    /// `true`/`false`.
    pub const BOOL: u8 = 2;
    /// `"null"` / `"non-null"`.
    pub const POINTER: u8 = 3;
    /// The enumerator's name; a value without one prints as a signed number.
    pub const ENUM: u8 = 4;
    /// Likewise, for enums with an unsigned underlying type.
    pub const UENUM: u8 = 5;
    /// `"0x"` and the bytes in memory order.
    pub const RAW: u8 = 6;
}

/// At most this many globals are recorded.
pub const MAX_GLOBALS: usize = 64;

/// Set in the site argument of a placed copy of a site's call (`SYNCMUT_SITE_COPY`); the
/// other bits are the copy's entry in the copy table.
pub const SITE_COPY: u32 = 1 << 31;
/// The site argument of a call inside a library's inline code that is routed through a
/// wrapper only to be a scheduling point (`SYNCMUT_SITE_INNER`): never mutated, no event.
pub const SITE_INNER: u32 = u32::MAX;
/// The copy table `syncmut_copies` (count `syncmut_copy_count`): per copy, the number of
/// the mutant's operator (its 1-based position in the operator list) and the two sites
/// the mutant is activated at (the same twice for a one-site mutant).
pub const COPY_FIELDS: usize = 3;
/// At most this many data members of one class are recorded.
pub const MAX_MEMBERS: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    /// Size and offsets of a C struct made of `slots` on this (64-bit, LP64) host.
    fn layout(slots: &[Slot]) -> (usize, Vec<usize>) {
        let mut offsets = Vec::new();
        let (mut at, mut align) = (0usize, 1usize);
        for slot in slots {
            let size = match slot {
                Slot::Pointer => std::mem::size_of::<*const u8>(),
                Slot::U32 => 4,
                Slot::U64 => 8,
            };
            at = at.next_multiple_of(size);
            offsets.push(at);
            at += size;
            align = align.max(size);
        }
        (at.next_multiple_of(align), offsets)
    }

    /// Compiles a probe of the header with the host C compiler and compares each struct's
    /// size and member offsets with the slot lists the mutator emits.
    #[test]
    fn the_slot_lists_match_the_header() {
        let members = [
            ("syncmut_enumerator", ENUMERATOR, &["value", "name"][..]),
            (
                "syncmut_field",
                FIELD,
                &["name", "where", "enums", "size", "kind", "nenums"][..],
            ),
            (
                "syncmut_class",
                CLASS,
                &["type_name", "fields", "nfields"][..],
            ),
            (
                "syncmut_thread_reads",
                THREAD_READS,
                &["routine", "reads"][..],
            ),
        ];
        let mut probe = String::from("#include <stddef.h>\n#include <stdio.h>\n#include \"syncmut_tables.h\"\nint main(void) {\n");
        for (name, _, fields) in &members {
            probe += &format!("    printf(\"%zu\", sizeof(struct {name}));\n");
            for field in *fields {
                probe += &format!("    printf(\" %zu\", offsetof(struct {name}, {field}));\n");
            }
            probe += "    printf(\"\\n\");\n";
        }
        probe += "    return 0;\n}\n";
        let dir = tempfile::tempdir().unwrap();
        let (source, binary) = (dir.path().join("probe.c"), dir.path().join("probe"));
        std::fs::write(&source, probe).unwrap();
        let include = concat!(env!("CARGO_MANIFEST_DIR"), "/include");
        let compiled = std::process::Command::new("cc")
            .arg("-I")
            .arg(include)
            .arg(&source)
            .arg("-o")
            .arg(&binary)
            .status()
            .unwrap();
        assert!(
            compiled.success(),
            "the probe of syncmut_tables.h did not compile"
        );
        let output = std::process::Command::new(&binary).output().unwrap();
        let lines: Vec<Vec<usize>> = String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split(' ').map(|n| n.parse().unwrap()).collect())
            .collect();
        for ((name, slots, _), c) in members.iter().zip(&lines) {
            let (size, offsets) = layout(slots);
            assert_eq!(
                (c[0], &c[1..]),
                (size, &offsets[..]),
                "struct {name}: C (size, offsets) vs the Rust slot list"
            );
        }
    }
}
