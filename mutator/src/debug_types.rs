//! The debug-info types of a design, read from the module's printed metadata.
//!
//! State snapshots decode values by type: member offsets, enumerator names and values,
//! base-type encodings. LLVM 16's C API reaches none of these (no accessors for a
//! composite's elements, a DIEnumerator's value or a DIBasicType's encoding), so the
//! module is printed once (inkwell's `print_to_string`) and its metadata lines, one node
//! a line (`!12 = distinct !DICompositeType(tag: …, elements: !13, …)`), are parsed here
//! into owned data. Function bodies in the text are skipped; only `!N = …` lines and the
//! `!dbg` attachments of `@global = …` lines are read.

use std::collections::HashMap;
use syncmut_runtime::tables::kind;

/// One metadata node, with the fields state snapshots need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// `!DICompositeType`: struct, class, union, enumeration, array.
    Composite {
        tag: String,
        name: String,
        scope: Option<u32>,
        file: Option<u32>,
        size_bits: u64,
        elements: Option<u32>,
        base: Option<u32>,
        identifier: String,
        flags: String,
    },
    /// `!DIDerivedType`: member, inheritance, typedef, pointer, const, …
    Derived {
        tag: String,
        name: String,
        base: Option<u32>,
        size_bits: u64,
        offset_bits: u64,
        flags: String,
    },
    /// `!DIBasicType`: `int`, `bool`, …
    Basic {
        name: String,
        size_bits: u64,
        encoding: String,
    },
    /// `!DIEnumerator`: its value as written (signed unless `isUnsigned`).
    Enumerator { name: String, value: i128 },
    /// `!DINamespace`.
    Namespace { name: String, scope: Option<u32> },
    /// `!DIFile`.
    File { filename: String, directory: String },
    /// `!DIGlobalVariableExpression(var: …)`.
    GlobalExpression { var: Option<u32> },
    /// `!DIGlobalVariable`.
    GlobalVariable { name: String, ty: Option<u32> },
    /// `!{!1, !2, null}`.
    Tuple(Vec<Option<u32>>),
    /// Anything else.
    Other,
}

/// All metadata nodes of a module by number, and each global's `!dbg` node.
#[derive(Debug, Default)]
pub struct DebugTypes {
    nodes: HashMap<u32, Node>,
    global_dbg: HashMap<String, u32>,
}

impl DebugTypes {
    /// Parses the printed module (`Module::print_to_string`).
    pub fn parse(text: &str) -> DebugTypes {
        let mut types = DebugTypes::default();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix('!') {
                if let Some((id, node)) = parse_node(rest) {
                    types.nodes.insert(id, node);
                }
            } else if let Some(rest) = line.strip_prefix('@') {
                if let Some((symbol, dbg)) = parse_global(rest) {
                    types.global_dbg.insert(symbol, dbg);
                }
            }
        }
        types
    }

    /// The node numbered `id`.
    pub fn node(&self, id: u32) -> Option<&Node> {
        self.nodes.get(&id)
    }

    /// All composite type nodes, by number (sorted, for deterministic output).
    pub fn composites(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self
            .nodes
            .iter()
            .filter(|(_, n)| matches!(n, Node::Composite { .. }))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The declared type of the global variable with this symbol, from its `!dbg`.
    pub fn global_type(&self, symbol: &str) -> Option<u32> {
        let Node::GlobalExpression { var: Some(var) } = self.node(*self.global_dbg.get(symbol)?)?
        else {
            return None;
        };
        let Node::GlobalVariable { ty, .. } = self.node(*var)? else {
            return None;
        };
        *ty
    }

    /// The elements of a tuple node (null entries dropped).
    pub fn tuple(&self, id: Option<u32>) -> Vec<u32> {
        match id.and_then(|id| self.node(id)) {
            Some(Node::Tuple(items)) => items.iter().flatten().copied().collect(),
            _ => Vec::new(),
        }
    }

    /// Through typedefs and cv-qualifiers to the type they name (bounded: cycles cannot
    /// occur in valid IR, but the bound costs nothing).
    pub fn strip(&self, mut id: u32) -> u32 {
        for _ in 0..32 {
            match self.node(id) {
                Some(Node::Derived {
                    tag,
                    base: Some(base),
                    ..
                }) if matches!(
                    tag.as_str(),
                    "DW_TAG_typedef"
                        | "DW_TAG_const_type"
                        | "DW_TAG_volatile_type"
                        | "DW_TAG_atomic_type"
                ) =>
                {
                    id = *base
                }
                _ => break,
            }
        }
        id
    }

    /// The `::`-joined namespace path of a scope (`sc_core`, `a::b`), empty at file scope.
    pub fn namespace_of(&self, mut scope: Option<u32>) -> String {
        let mut parts = Vec::new();
        for _ in 0..32 {
            match scope.and_then(|s| self.node(s)) {
                Some(Node::Namespace { name, scope: outer }) => {
                    parts.push(name.clone());
                    scope = *outer;
                }
                Some(Node::Composite {
                    name, scope: outer, ..
                }) => {
                    parts.push(name.clone());
                    scope = *outer;
                }
                _ => break,
            }
        }
        parts.reverse();
        parts.join("::")
    }

    /// The path of a `!DIFile` node (directory joined when the name is relative).
    pub fn file_path(&self, file: Option<u32>) -> Option<std::path::PathBuf> {
        let Some(Node::File {
            filename,
            directory,
        }) = file.and_then(|f| self.node(f))
        else {
            return None;
        };
        let name = std::path::PathBuf::from(filename);
        Some(if name.is_absolute() || directory.is_empty() {
            name
        } else {
            std::path::Path::new(directory).join(name)
        })
    }
}

/// How the runtime prints a recorded value (the `kind` field of its tables, numbered as
/// in `syncmut_runtime::tables::kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// A signed integer.
    Signed = kind::SIGNED as isize,
    /// An unsigned integer.
    Unsigned = kind::UNSIGNED as isize,
    /// A boolean.
    Bool = kind::BOOL as isize,
    /// `"null"` / `"non-null"`.
    Pointer = kind::POINTER as isize,
    /// An enumerator's name; a value without one prints as a signed number.
    Enum = kind::ENUM as isize,
    /// Likewise, for enums with an unsigned underlying type.
    UnsignedEnum = kind::UENUM as isize,
    /// Raw bytes (`"0x…"`, memory order): values of at most 8 bytes with no better reading.
    Raw = kind::RAW as isize,
}

/// How to read a value of some type: its size in bytes, kind and, for enums, the
/// enumerators (value as the type's raw bits, zero-extended, and name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoding {
    pub size: u32,
    pub kind: ValueKind,
    pub enumerators: Vec<(u64, String)>,
}

/// Namespaces whose types are the kernel's or the library's, never design state (ports,
/// events, signals, channels, strings, containers).
const LIBRARY_NAMESPACES: &[&str] = &[
    "sc_core",
    "sc_dt",
    "sc_boost",
    "sc_unnamed",
    "tlm",
    "tlm_utils",
    "std",
    "__gnu_cxx",
];

impl DebugTypes {
    /// Whether a scope lies in a library namespace (see [`LIBRARY_NAMESPACES`]).
    pub fn in_library_namespace(&self, scope: Option<u32>) -> bool {
        let path = self.namespace_of(scope);
        let outer = path.split("::").next().unwrap_or("");
        LIBRARY_NAMESPACES.contains(&outer)
    }

    /// How to decode a value of type `ty`, or `None` when it is not recorded: arrays,
    /// references, large or library aggregates, bit widths other than 8/16/32/64.
    pub fn decoding(&self, ty: u32) -> Option<Decoding> {
        let plain = |size_bits: u64, kind: ValueKind| {
            matches!(size_bits, 8 | 16 | 32 | 64).then(|| Decoding {
                size: (size_bits / 8) as u32,
                kind,
                enumerators: Vec::new(),
            })
        };
        match self.node(self.strip(ty))? {
            Node::Basic {
                size_bits,
                encoding,
                name,
            } => {
                let kind = match encoding.as_str() {
                    "DW_ATE_boolean" => ValueKind::Bool,
                    "DW_ATE_signed" | "DW_ATE_signed_char" => ValueKind::Signed,
                    "DW_ATE_unsigned" | "DW_ATE_unsigned_char" | "DW_ATE_UTF" => {
                        ValueKind::Unsigned
                    }
                    _ if name == "bool" || name == "_Bool" => ValueKind::Bool,
                    _ => ValueKind::Raw,
                };
                plain(*size_bits, kind)
            }
            Node::Derived { tag, size_bits, .. }
                if tag == "DW_TAG_pointer_type" || tag == "DW_TAG_ptr_to_member_type" =>
            {
                plain(
                    if *size_bits == 0 { 64 } else { *size_bits },
                    ValueKind::Pointer,
                )
            }
            Node::Composite {
                tag,
                size_bits,
                elements,
                base,
                scope,
                flags,
                ..
            } => {
                if flags.contains("DIFlagFwdDecl") {
                    return None;
                }
                if tag == "DW_TAG_enumeration_type" {
                    let unsigned = base
                        .and_then(|b| self.decoding(b))
                        .is_some_and(|d| d.kind == ValueKind::Unsigned);
                    let mask = if *size_bits >= 64 {
                        u64::MAX
                    } else {
                        (1u64 << size_bits) - 1
                    };
                    let enumerators = self
                        .tuple(*elements)
                        .into_iter()
                        .filter_map(|e| match self.node(e) {
                            Some(Node::Enumerator { name, value }) => {
                                Some(((*value as u64) & mask, name.clone()))
                            }
                            _ => None,
                        })
                        .collect();
                    let kind = if unsigned {
                        ValueKind::UnsignedEnum
                    } else {
                        ValueKind::Enum
                    };
                    return plain(*size_bits, kind).map(|d| Decoding { enumerators, ..d });
                }
                if matches!(
                    tag.as_str(),
                    "DW_TAG_structure_type" | "DW_TAG_class_type" | "DW_TAG_union_type"
                ) && !self.in_library_namespace(*scope)
                    && (1..=64).contains(size_bits)
                    && size_bits % 8 == 0
                {
                    return Some(Decoding {
                        size: (size_bits / 8) as u32,
                        kind: ValueKind::Raw,
                        enumerators: Vec::new(),
                    });
                }
                None
            }
            _ => None,
        }
    }
}

/// `123 = distinct !DIKind(fields)` (after the leading `!`).
fn parse_node(rest: &str) -> Option<(u32, Node)> {
    let (id, body) = rest.split_once(" = ")?;
    let id: u32 = id.parse().ok()?;
    let body = body.strip_prefix("distinct ").unwrap_or(body);
    if let Some(items) = body.strip_prefix("!{").and_then(|b| b.strip_suffix('}')) {
        let items = split_top(items)
            .into_iter()
            .filter(|s| !s.is_empty())
            .map(node_ref)
            .collect();
        return Some((id, Node::Tuple(items)));
    }
    let body = body.strip_prefix('!')?;
    let open = body.find('(')?;
    let kind = &body[..open];
    let fields = body[open + 1..].strip_suffix(')')?;
    let fields: HashMap<&str, &str> = split_top(fields)
        .into_iter()
        .filter_map(|f| f.split_once(": "))
        .collect();
    let text = |key: &str| fields.get(key).map(|v| string_value(v)).unwrap_or_default();
    let reference = |key: &str| fields.get(key).and_then(|v| node_ref(v));
    let number = |key: &str| {
        fields
            .get(key)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let raw = |key: &str| fields.get(key).map(|v| v.to_string()).unwrap_or_default();
    let node = match kind {
        "DICompositeType" => Node::Composite {
            tag: raw("tag"),
            name: text("name"),
            scope: reference("scope"),
            file: reference("file"),
            size_bits: number("size"),
            elements: reference("elements"),
            base: reference("baseType"),
            identifier: text("identifier"),
            flags: raw("flags"),
        },
        "DIDerivedType" => Node::Derived {
            tag: raw("tag"),
            name: text("name"),
            base: reference("baseType"),
            size_bits: number("size"),
            offset_bits: number("offset"),
            flags: raw("flags"),
        },
        "DIBasicType" => Node::Basic {
            name: text("name"),
            size_bits: number("size"),
            encoding: raw("encoding"),
        },
        "DIEnumerator" => Node::Enumerator {
            name: text("name"),
            value: fields
                .get("value")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
        },
        "DINamespace" => Node::Namespace {
            name: text("name"),
            scope: reference("scope"),
        },
        "DIFile" => Node::File {
            filename: text("filename"),
            directory: text("directory"),
        },
        "DIGlobalVariableExpression" => Node::GlobalExpression {
            var: reference("var"),
        },
        "DIGlobalVariable" => Node::GlobalVariable {
            name: text("name"),
            ty: reference("type"),
        },
        _ => Node::Other,
    };
    Some((id, node))
}

/// `name = … global …, !dbg !12` (after the leading `@`): the symbol and its `!dbg` node.
fn parse_global(rest: &str) -> Option<(String, u32)> {
    let (symbol, body) = if let Some(quoted) = rest.strip_prefix('"') {
        let end = quoted.find('"')?;
        (string_value(&rest[..end + 2]), &quoted[end + 1..])
    } else {
        let end = rest.find(' ')?;
        (rest[..end].to_string(), &rest[end..])
    };
    let at = body.rfind("!dbg !")?;
    let digits: String = body[at + 6..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((symbol, digits.parse().ok()?))
}

/// Splits on commas outside strings and parentheses/braces.
fn split_top(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut in_string, mut start) = (0i32, false, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '(' | '{' if !in_string => depth += 1,
            ')' | '}' if !in_string => depth -= 1,
            ',' if !in_string && depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim());
    parts
}

/// `!12` → 12; `null` and anything else → None.
fn node_ref(value: &str) -> Option<u32> {
    value.strip_prefix('!')?.parse().ok()
}

/// A printed string `"a\22b"` → `a"b` (LLVM escapes `"`, `\` and non-printable bytes as
/// `\XX`).
fn string_value(value: &str) -> String {
    let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) else {
        return String::new();
    };
    let bytes = inner.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 3 <= bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"@counter = dso_local global i32 0, align 4, !dbg !0
@"odd name" = internal global i8 0, !dbg !3
define void @f() !dbg !40 {
  ret void, !dbg !41
}
!0 = !DIGlobalVariableExpression(var: !1, expr: !DIExpression())
!1 = distinct !DIGlobalVariable(name: "counter", scope: !2, file: !5, line: 8, type: !6, isLocal: false, isDefinition: true)
!5 = !DIFile(filename: "top.cpp", directory: "/work/d")
!6 = !DIDerivedType(tag: DW_TAG_typedef, name: "count_t", file: !5, line: 3, baseType: !7)
!7 = !DICompositeType(tag: DW_TAG_enumeration_type, name: "color", file: !5, line: 2, baseType: !8, size: 32, elements: !9, identifier: "_ZTS5color")
!8 = !DIBasicType(name: "unsigned int", size: 32, encoding: DW_ATE_unsigned)
!9 = !{!10, !11}
!10 = !DIEnumerator(name: "RED", value: 0, isUnsigned: true)
!11 = !DIEnumerator(name: "a\22b, c", value: -4)
!12 = !DINamespace(name: "sc_core", scope: null)
!13 = !DICompositeType(tag: DW_TAG_class_type, name: "sc_module", scope: !12, file: !5, line: 79, size: 1856, flags: DIFlagFwdDecl | DIFlagNonTrivial)
!14 = !DIDerivedType(tag: DW_TAG_member, name: "n", scope: !7, file: !5, line: 8, baseType: !8, size: 32, offset: 4544, flags: DIFlagPublic)
"#;

    #[test]
    fn parses_nodes_tuples_and_global_attachments() {
        let t = DebugTypes::parse(SAMPLE);
        assert_eq!(t.global_type("counter"), Some(6));
        assert_eq!(t.global_dbg.get("odd name"), Some(&3));
        assert_eq!(t.strip(6), 7);
        assert_eq!(t.tuple(Some(9)), vec![10, 11]);
        assert_eq!(
            t.node(11),
            Some(&Node::Enumerator {
                name: "a\"b, c".into(),
                value: -4
            })
        );
        assert_eq!(
            t.node(8),
            Some(&Node::Basic {
                name: "unsigned int".into(),
                size_bits: 32,
                encoding: "DW_ATE_unsigned".into()
            })
        );
        let Some(Node::Derived {
            offset_bits, flags, ..
        }) = t.node(14)
        else {
            panic!()
        };
        assert_eq!((*offset_bits, flags.as_str()), (4544, "DIFlagPublic"));
        assert_eq!(t.namespace_of(Some(12)), "sc_core");
        let Some(Node::Composite { scope, .. }) = t.node(13) else {
            panic!()
        };
        assert_eq!(t.namespace_of(*scope), "sc_core");
        assert_eq!(
            t.file_path(Some(5)),
            Some(std::path::PathBuf::from("/work/d/top.cpp"))
        );
        assert_eq!(t.composites(), vec![7, 13]);
    }

    #[test]
    fn decodes_enums_by_name_and_skips_library_types() {
        let t = DebugTypes::parse(SAMPLE);
        let d = t.decoding(6).unwrap();
        assert_eq!(d.kind, ValueKind::UnsignedEnum);
        assert_eq!(d.size, 4);
        assert_eq!(
            d.enumerators,
            vec![(0, "RED".to_string()), (0xffff_fffc, "a\"b, c".to_string())]
        );
        assert_eq!(t.decoding(8).unwrap().kind, ValueKind::Unsigned);
        assert_eq!(
            t.decoding(13),
            None,
            "a forward declaration (sc_core::sc_module) has no layout"
        );
    }
}
