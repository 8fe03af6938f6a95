//! The data members of the design's SystemC module classes, recorded in the state
//! snapshot of every event of a process of that module.
//!
//! A module class is a C++ class defined in a user file, outside the kernel's and
//! library namespaces, that derives (directly or through user base classes) from
//! `sc_core::sc_module`. Its members are read from debug info (`debug_types.rs`): data
//! members of the class and of its non-virtual user base classes, at their byte offsets
//! from the start of the most-derived object; static members, the vtable pointer, bit
//! fields, references, arrays and library types (ports, events, signals, fifos) are left
//! out. The runtime finds a process's module at run time and its class by the
//! `typeid(...).name()` of the object, which is the debug-info `identifier` without its
//! `_ZTS` prefix, so the metamutant gets:
//!
//! ```c
//! const uint32_t syncmut_class_count;
//! const struct syncmut_class syncmut_classes[]; /* runtime-lib/include/syncmut_tables.h */
//! ```

use crate::debug_types::{DebugTypes, Decoding, Node};
use crate::source;
use crate::state_table;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::AddressSpace;
use std::collections::{BTreeMap, HashMap};

pub const CLASS_COUNT_SYMBOL: &str = "syncmut_class_count";
pub const CLASS_TABLE_SYMBOL: &str = "syncmut_classes";

/// At most this many members of one class are recorded (the runtime's snapshot has
/// room for this many beside the globals).
pub const MAX_MEMBERS: usize = syncmut_runtime::tables::MAX_MEMBERS;

/// One recorded data member: its name (`count`; `base::count` when a derived class
/// has a member of the same name), byte offset in the most-derived object, and reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub offset: u64,
    pub decoding: Decoding,
}

/// A module class and the members recorded for its objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleClass {
    /// The C++ name, for messages (`producer`).
    pub name: String,
    /// What `typeid(object).name()` returns for it (`8producer`).
    pub type_name: String,
    pub members: Vec<Member>,
}

/// The module classes with at least one recorded member, sorted by type name, with a
/// warning for each class whose members were capped.
pub fn collect(types: &DebugTypes) -> (Vec<ModuleClass>, Vec<String>) {
    // Class definitions by identifier: a base class may be referenced through a
    // forward declaration that carries the same identifier.
    let mut definitions: HashMap<&str, u32> = HashMap::new();
    for id in types.composites() {
        if let Some(Node::Composite {
            identifier, flags, ..
        }) = types.node(id)
        {
            if !identifier.is_empty() && !flags.contains("DIFlagFwdDecl") {
                definitions.entry(identifier.as_str()).or_insert(id);
            }
        }
    }
    let lookup = Lookup { types, definitions };
    let mut classes = BTreeMap::new();
    let mut warnings = Vec::new();
    for id in lookup.definitions.values().copied() {
        let Some(Node::Composite {
            tag,
            name,
            identifier,
            file,
            ..
        }) = types.node(id)
        else {
            continue;
        };
        let Some(type_name) = identifier.strip_prefix("_ZTS") else {
            continue;
        };
        if !matches!(tag.as_str(), "DW_TAG_structure_type" | "DW_TAG_class_type")
            || !lookup.is_user_class(id)
        {
            continue;
        }
        if types
            .file_path(*file)
            .is_some_and(|p| source::is_system_path(&p))
            || !lookup.derives_from_sc_module(id, 0)
        {
            continue;
        }
        let mut members = Vec::new();
        lookup.members_of(id, 0, &mut members, 0);
        if members.len() > MAX_MEMBERS {
            warnings.push(format!(
                "SystemC module class {name} has {} data members; trace state snapshots record only the first {MAX_MEMBERS}",
                members.len()
            ));
            members.truncate(MAX_MEMBERS);
        }
        if !members.is_empty() {
            classes.insert(
                type_name.to_string(),
                ModuleClass {
                    name: name.clone(),
                    type_name: type_name.to_string(),
                    members,
                },
            );
        }
    }
    (classes.into_values().collect(), warnings)
}

struct Lookup<'a> {
    types: &'a DebugTypes,
    definitions: HashMap<&'a str, u32>,
}

impl Lookup<'_> {
    /// The definition of a class type (through typedefs and forward declarations).
    fn definition(&self, ty: u32) -> Option<u32> {
        let id = self.types.strip(ty);
        match self.types.node(id)? {
            Node::Composite {
                flags, identifier, ..
            } if flags.contains("DIFlagFwdDecl") => {
                self.definitions.get(identifier.as_str()).copied()
            }
            Node::Composite { .. } => Some(id),
            _ => None,
        }
    }

    fn is_user_class(&self, id: u32) -> bool {
        matches!(self.types.node(id), Some(Node::Composite { scope, .. }) if !self.types.in_library_namespace(*scope))
    }

    /// Whether `class` derives from `sc_core::sc_module` (which the design's debug info
    /// only declares: recognised by name and namespace).
    fn derives_from_sc_module(&self, class: u32, depth: u32) -> bool {
        let Some(Node::Composite { elements, .. }) = self.types.node(class) else {
            return false;
        };
        depth < 16
            && self
                .types
                .tuple(*elements)
                .into_iter()
                .any(|e| match self.types.node(e) {
                    Some(Node::Derived {
                        tag,
                        base: Some(base),
                        ..
                    }) if tag == "DW_TAG_inheritance" => {
                        let stripped = self.types.strip(*base);
                        match self.types.node(stripped) {
                            Some(Node::Composite { name, scope, .. })
                                if name == "sc_module"
                                    && self.types.namespace_of(*scope) == "sc_core" =>
                            {
                                true
                            }
                            _ => self
                                .definition(*base)
                                .is_some_and(|b| self.derives_from_sc_module(b, depth + 1)),
                        }
                    }
                    _ => false,
                })
    }

    /// Appends the members of `class` (bases first, as laid out) at `offset`.
    fn members_of(&self, class: u32, offset: u64, out: &mut Vec<Member>, depth: u32) {
        let Some(Node::Composite {
            elements,
            name: class_name,
            ..
        }) = self.types.node(class)
        else {
            return;
        };
        if depth >= 16 {
            return;
        }
        for e in self.types.tuple(*elements) {
            let Some(Node::Derived {
                tag,
                name,
                base: Some(base),
                offset_bits,
                flags,
                ..
            }) = self.types.node(e)
            else {
                continue;
            };
            match tag.as_str() {
                "DW_TAG_inheritance" if !flags.contains("DIFlagVirtual") => {
                    if let Some(b) = self.definition(*base).filter(|b| self.is_user_class(*b)) {
                        self.members_of(b, offset + offset_bits / 8, out, depth + 1);
                    }
                }
                "DW_TAG_member" => {
                    if flags.contains("DIFlagStaticMember")
                        || flags.contains("DIFlagArtificial")
                        || flags.contains("DIFlagBitField")
                    {
                        continue;
                    }
                    if offset_bits % 8 != 0 {
                        continue;
                    }
                    let Some(decoding) = self.types.decoding(*base) else {
                        continue;
                    };
                    // A derived class's member hides a base's of the same name: the base's
                    // (already listed) keeps the plain name, this one is qualified.
                    let name = if out.iter().any(|m| &m.name == name) {
                        format!("{class_name}::{name}")
                    } else {
                        name.clone()
                    };
                    out.push(Member {
                        name,
                        offset: offset + offset_bits / 8,
                        decoding,
                    });
                }
                _ => {}
            }
        }
    }
}

/// Emits the class table (always, possibly empty; the runtime declares it weak).
pub(crate) fn add_table<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    classes: &[ModuleClass],
) {
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let count = module.add_global(i32_type, Some(AddressSpace::default()), CLASS_COUNT_SYMBOL);
    count.set_initializer(&i32_type.const_int(classes.len() as u64, false));
    count.set_constant(true);

    let class_type = state_table::struct_type(context, syncmut_runtime::tables::CLASS);
    let entries: Vec<_> = classes
        .iter()
        .map(|class| {
            let fields: Vec<_> = class
                .members
                .iter()
                .map(|m| {
                    state_table::field_entry(
                        context,
                        module,
                        &m.name,
                        i64_type.const_int(m.offset, false),
                        &m.decoding,
                    )
                })
                .collect();
            let array = state_table::field_type(context).const_array(&fields);
            let table = module.add_global(
                array.get_type(),
                Some(AddressSpace::default()),
                "syncmut.members",
            );
            table.set_initializer(&array);
            table.set_constant(true);
            table.set_linkage(Linkage::Private);
            class_type.const_named_struct(&[
                state_table::c_string(context, module, &class.type_name, "syncmut.class_name")
                    .into(),
                table.as_pointer_value().into(),
                i64_type.const_int(class.members.len() as u64, false).into(),
            ])
        })
        .collect();
    let table_value = class_type.const_array(&entries);
    let table = module.add_global(
        table_value.get_type(),
        Some(AddressSpace::default()),
        CLASS_TABLE_SYMBOL,
    );
    table.set_initializer(&table_value);
    table.set_constant(true);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debug_types::ValueKind;

    /// A user module `top` deriving from a user base `base_mod`, itself an sc_module,
    /// plus a plain struct that is not a module.
    const SAMPLE: &str = r#"!1 = !DIFile(filename: "top.cpp", directory: "/work/d")
!2 = !DINamespace(name: "sc_core", scope: null)
!3 = !DICompositeType(tag: DW_TAG_class_type, name: "sc_module", scope: !2, file: !1, line: 79, size: 1856, flags: DIFlagFwdDecl | DIFlagNonTrivial)
!4 = !DICompositeType(tag: DW_TAG_class_type, name: "sc_event", scope: !2, file: !1, line: 79, size: 1344, flags: DIFlagFwdDecl, identifier: "_ZTSN7sc_core8sc_eventE")
!5 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!6 = !DIBasicType(name: "bool", size: 8, encoding: DW_ATE_boolean)
!10 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "base_mod", file: !1, line: 3, size: 1920, elements: !11, identifier: "_ZTS8base_mod")
!11 = !{!12, !13}
!12 = !DIDerivedType(tag: DW_TAG_inheritance, scope: !10, baseType: !3, extraData: i32 0)
!13 = !DIDerivedType(tag: DW_TAG_member, name: "count", scope: !10, file: !1, line: 4, baseType: !5, size: 32, offset: 1856)
!20 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "top", file: !1, line: 6, size: 3400, elements: !21, identifier: "_ZTS3top")
!21 = !{!22, !23, !24, !25, !26, !27}
!22 = !DIDerivedType(tag: DW_TAG_inheritance, scope: !20, baseType: !30, extraData: i32 0)
!23 = !DIDerivedType(tag: DW_TAG_member, name: "e", scope: !20, file: !1, line: 7, baseType: !4, size: 1344, offset: 1920)
!24 = !DIDerivedType(tag: DW_TAG_member, name: "count", scope: !20, file: !1, line: 8, baseType: !5, size: 32, offset: 3264)
!25 = !DIDerivedType(tag: DW_TAG_member, name: "ready", scope: !20, file: !1, line: 9, baseType: !6, size: 8, offset: 3296)
!26 = !DIDerivedType(tag: DW_TAG_member, name: "instances", scope: !20, file: !1, line: 10, baseType: !5, flags: DIFlagStaticMember)
!27 = !DIDerivedType(tag: DW_TAG_member, name: "_vptr$top", scope: !20, file: !1, baseType: !5, size: 64, flags: DIFlagArtificial)
!30 = !DICompositeType(tag: DW_TAG_structure_type, name: "base_mod", file: !1, line: 3, flags: DIFlagFwdDecl, identifier: "_ZTS8base_mod")
!40 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "plain", file: !1, line: 12, size: 32, elements: !41, identifier: "_ZTS5plain")
!41 = !{!42}
!42 = !DIDerivedType(tag: DW_TAG_member, name: "x", scope: !40, file: !1, line: 12, baseType: !5, size: 32)
"#;

    #[test]
    fn module_classes_list_own_and_inherited_members_at_object_offsets() {
        let (classes, warnings) = collect(&DebugTypes::parse(SAMPLE));
        assert!(warnings.is_empty());
        type Row<'a> = (&'a str, Vec<(&'a str, u64, ValueKind)>);
        let got: Vec<Row> = classes
            .iter()
            .map(|c| {
                (
                    c.type_name.as_str(),
                    c.members
                        .iter()
                        .map(|m| (m.name.as_str(), m.offset, m.decoding.kind))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "3top",
                    vec![
                        ("count", 232, ValueKind::Signed),
                        ("top::count", 408, ValueKind::Signed),
                        ("ready", 412, ValueKind::Bool)
                    ]
                ),
                ("8base_mod", vec![("count", 232, ValueKind::Signed)]),
            ]
        );
    }
}
