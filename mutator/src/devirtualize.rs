//! Virtual calls whose object's dynamic type is known exactly become direct calls, so
//! discovery sees them. clang devirtualizes `m.lock()` on a named `sc_mutex` itself,
//! but not `fork[i].lock()` on an element of an array of them, nor a call on a
//! struct's member reached through an element: those stay loads from the vtable. An
//! array element, a data member, a global or a local of class type is a complete
//! object, so its dynamic type is its class C and the callee is slot k of C's vtable,
//! read from the module when it defines the table (template instances, the design's
//! own classes) or else from the library the design links (`vtables.rs`). Only a call
//! that thus reaches a function of the API table is rewritten; every other virtual call
//! stays as it was. Virtual calls that look like synchronization but cannot be resolved
//! (through a port, through a pointer, a table that cannot be read) are named in the
//! build's warnings with the reason.

use crate::api;
use crate::cxx_names::{member_of, template_arguments, without_template_arguments};
use crate::debug_types::{DebugTypes, Node};
use crate::design::Design;
use crate::ir::promote::{self, Candidate};
use crate::ir::virtual_calls::{self, ModuleVtable, Object, PathRoot, Step};
use crate::ir::{self, DebugLoc};
use crate::promote::Tables;
use crate::source::{self, SourceCache};
use crate::vtables::{self, Libraries};
use inkwell::module::Module;
use std::collections::{BTreeSet, HashMap};

/// The SystemC interfaces whose members, called on the channel itself, are sites, and
/// those members: the same call through a port is a site lost. Signals are not sites
/// either way, so calls through their ports are not warned about.
const SYNC_INTERFACES: [(&str, &[&str]); 8] = [
    ("sc_core::sc_fifo_in_if", &FIFO_MEMBERS),
    ("sc_core::sc_fifo_out_if", &FIFO_MEMBERS),
    ("sc_core::sc_fifo_blocking_in_if", &FIFO_MEMBERS),
    ("sc_core::sc_fifo_nonblocking_in_if", &FIFO_MEMBERS),
    ("sc_core::sc_fifo_blocking_out_if", &FIFO_MEMBERS),
    ("sc_core::sc_fifo_nonblocking_out_if", &FIFO_MEMBERS),
    ("sc_core::sc_mutex_if", &["lock", "trylock", "unlock"]),
    ("sc_core::sc_semaphore_if", &["wait", "trywait", "post"]),
];

const FIFO_MEMBERS: [&str; 4] = ["read", "write", "nb_read", "nb_write"];

/// Classes with virtual members in the API table: a call of one of those members on an
/// object of theirs whose table cannot be read is warned about.
const SYNC_CLASSES: [&str; 3] = [
    "sc_core::sc_mutex",
    "sc_core::sc_semaphore",
    "sc_core::sc_fifo",
];

/// The names of those members.
const SYNC_MEMBERS: [&str; 10] = [
    "lock", "trylock", "unlock", "wait", "trywait", "post", "read", "write", "nb_read", "nb_write",
];

/// Makes direct every virtual call in user code on a complete object whose slot holds a
/// function of the API table; run before discovery. Returns the warnings: the virtual
/// calls that look like synchronization and stay indirect, with why.
pub fn devirtualize(module: &Module<'_>, design: &Design) -> Vec<String> {
    let systemc = module
        .get_function("sc_main")
        .is_some_and(|f| f.count_basic_blocks() > 0);
    let mut pass = Pass {
        module,
        design,
        systemc,
        libraries: Libraries::of(design, systemc),
        by_class: HashMap::new(),
        resolved: HashMap::new(),
        confirmed: HashMap::new(),
        sources: SourceCache::default(),
        tables: None,
        types: None,
    };
    for global in module.get_globals() {
        let symbol = global.get_name().to_string_lossy().into_owned();
        if !symbol.starts_with("_ZTV") {
            continue;
        }
        if let Some(class) = vtable_class(&api::demangle(&symbol)) {
            pass.by_class
                .entry(without_template_arguments(class))
                .or_default()
                .push((symbol.clone(), class.to_string()));
        }
    }
    let mut calls = Vec::new();
    for function in module.get_functions() {
        for block in function.get_basic_blocks() {
            let mut inst = block.get_first_instruction();
            while let Some(i) = inst {
                inst = i.get_next_instruction();
                if ir::is_call_like(i) && ir::called_function(i).is_none() {
                    calls.push(i);
                }
            }
        }
    }
    let mut warnings = BTreeSet::new();
    for inst in calls {
        let Some(loc) = ir::debug_location(inst).filter(|l| !source::is_system_path(&l.path))
        else {
            continue;
        };
        let Some(call) = virtual_calls::virtual_call(inst) else {
            continue;
        };
        match pass.examine(&call, &loc) {
            Verdict::Direct(function) => {
                virtual_calls::call_directly(module, call, &function);
            }
            Verdict::Promote(candidates) => promote::promote(module, &call, &candidates),
            Verdict::Warn(text) => {
                warnings.insert((source::normalize(&loc.path), loc.line, loc.col, text));
            }
            Verdict::Leave => {}
        }
    }
    warnings.into_iter().map(|(_, _, _, text)| text).collect()
}

enum Verdict {
    Direct(String),
    /// Compared with each implementation the design has or links (`crate::promote`).
    Promote(Vec<Candidate>),
    Warn(String),
    Leave,
}

struct Pass<'a, 'ctx> {
    module: &'a Module<'ctx>,
    design: &'a Design,
    systemc: bool,
    libraries: Libraries,
    /// The module's vtables by class name without template arguments: (symbol, class).
    by_class: HashMap<String, Vec<(String, String)>>,
    /// LLVM struct type → (class, vtable symbol).
    resolved: HashMap<String, Result<(String, String), String>>,
    /// (class, LLVM struct type) → whether the class's members index that type.
    confirmed: HashMap<(String, String), bool>,
    sources: SourceCache,
    tables: Option<Tables>,
    /// The module's debug-info types, parsed on first need.
    types: Option<DebugTypes>,
}

impl Pass<'_, '_> {
    fn examine(&mut self, call: &virtual_calls::VirtualCall<'_>, loc: &DebugLoc) -> Verdict {
        match call.object() {
            Object::Complete(ty) => {
                let resolved = self.vtable_of(&ty, call).and_then(|(class, symbol)| {
                    let words = match virtual_calls::module_vtable(self.module, &symbol) {
                        ModuleVtable::Defined(words) => Ok(words),
                        ModuleVtable::Declared | ModuleVtable::Absent => self
                            .libraries
                            .vtable(&symbol)
                            .map_err(|why| format!("its vtable {symbol}: {why}")),
                    }?;
                    vtables::slot_function(&words, &symbol, call.slot)
                        .map(|function| (class, function))
                });
                match resolved {
                    Ok((_, function)) if api::lookup(&api::demangle(&function)).is_some() => {
                        Verdict::Direct(function)
                    }
                    Ok(_) => Verdict::Leave,
                    Err(why) => {
                        let class = without_template_arguments(class_name(&ty));
                        let text = self.call_text(loc);
                        if SYNC_CLASSES.contains(&class.as_str())
                            && SYNC_MEMBERS.contains(&member_of(&text))
                        {
                            Verdict::Warn(format!(
                                "{}: {text} is a virtual call on an {class} that could not be resolved ({why}): not a site, its synchronization is not mutated",
                                self.place(loc)
                            ))
                        } else {
                            Verdict::Leave
                        }
                    }
                }
            }
            Object::Returned(function) => {
                let Some((through, interface, members)) = port_interface(&api::demangle(&function))
                else {
                    // Any other function's result (`std::array::operator[]`) is a
                    // reference like any other.
                    return self.through_pointer(call, loc);
                };
                let text = self.call_text(loc);
                let member = member_of(&text);
                if !members.contains(&member) {
                    return Verdict::Leave;
                }
                let arguments = template_arguments(&interface);
                let reached = self.tables().at(call.slot, member, arguments.as_deref());
                if !reached.candidates.is_empty() {
                    return Verdict::Promote(reached.candidates);
                }
                let why = if reached.unsupported.is_empty() {
                    "no channel the design has or links implements that member at its slot"
                        .to_string()
                } else {
                    reached.unsupported.join("; ")
                };
                Verdict::Warn(format!(
                    "{}: {text} goes through {through} ({interface}) to whatever channel is bound: not a site, because {why}; its synchronization is not mutated",
                    self.place(loc)
                ))
            }
            Object::Unknown => self.through_pointer(call, loc),
        }
    }

    /// A call on an object reached through a pointer or a reference (in a SystemC
    /// design): promoted when slot k of a synchronization class's vtable is the member
    /// it names (`promote`), warned about when such a member cannot be called directly.
    fn through_pointer(
        &mut self,
        call: &virtual_calls::VirtualCall<'_>,
        loc: &DebugLoc,
    ) -> Verdict {
        if !self.systemc {
            return Verdict::Leave;
        }
        let text = self.call_text(loc);
        let member = member_of(&text).to_string();
        if !SYNC_MEMBERS.contains(&member.as_str()) {
            return Verdict::Leave;
        }
        let reached = self.tables().at(call.slot, &member, None);
        if !reached.candidates.is_empty() {
            return Verdict::Promote(reached.candidates);
        }
        if reached.unsupported.is_empty() {
            return Verdict::Leave;
        }
        Verdict::Warn(format!(
            "{}: {text} is a virtual call on an object reached through a pointer or reference: not a site, because {}",
            self.place(loc),
            reached.unsupported.join("; ")
        ))
    }

    /// The vtables the design has or links, read on first need.
    fn tables(&mut self) -> &Tables {
        let (module, libraries) = (self.module, &mut self.libraries);
        self.tables
            .get_or_insert_with(|| Tables::of(module, libraries))
    }

    fn place(&self, loc: &DebugLoc) -> String {
        let file = source::normalize(&loc.path);
        format!(
            "{}:{}",
            source::relative_to(&self.design.root, &file.to_string_lossy()),
            loc.line
        )
    }

    fn call_text(&mut self, loc: &DebugLoc) -> String {
        self.sources
            .call_text(&loc.path, loc.line, loc.col, "virtual call")
    }

    /// The class of the call's object, a complete object of the LLVM struct type `ty`,
    /// and its vtable's symbol.
    fn vtable_of(
        &mut self,
        ty: &str,
        call: &virtual_calls::VirtualCall<'_>,
    ) -> Result<(String, String), String> {
        // LLVM gives a class template's instances of one layout one struct type after
        // linking (`sc_fifo<int>` and `sc_fifo<double>` both hold a `T*`), so an
        // instance is told by the declared type of the member, element or global the
        // object is, from the debug info.
        let key = without_template_arguments(class_name(ty));
        let templated = self
            .by_class
            .get(&key)
            .is_some_and(|c| c.iter().any(|(_, class)| class.contains('<')));
        if templated {
            if let Some(symbol) = self.declared_vtable(call) {
                let class = vtable_class(&api::demangle(&symbol))
                    .unwrap_or(&symbol)
                    .to_string();
                return Ok((class, symbol));
            }
        }
        if let Some(known) = self.resolved.get(ty) {
            return known.clone();
        }
        let result = self.find_vtable(ty);
        self.resolved.insert(ty.to_string(), result.clone());
        result
    }

    /// The vtable of the class the debug info declares the call's object to be.
    fn declared_vtable(&mut self, call: &virtual_calls::VirtualCall<'_>) -> Option<String> {
        let (root, steps) = call.access_path(self.module)?;
        let module = self.module;
        let types = self
            .types
            .get_or_insert_with(|| DebugTypes::parse(&module.print_to_string().to_string()));
        let mut ty = match root {
            PathRoot::Global(name) => types.global_type(&name)?,
            PathRoot::Struct(name) => composite_named(types, class_name(&name))?,
        };
        // Subranges of a multi-dimensional array still to step through.
        let mut pending: Option<usize> = None;
        for step in steps {
            let node = types.strip(ty);
            match (step, types.node(node)?) {
                (
                    Step::Element,
                    Node::Composite {
                        tag,
                        base: Some(base),
                        elements,
                        ..
                    },
                ) if tag == "DW_TAG_array_type" => {
                    let dims = pending.unwrap_or_else(|| types.tuple(*elements).len());
                    if dims > 1 {
                        pending = Some(dims - 1);
                    } else {
                        pending = None;
                        ty = *base;
                    }
                }
                (Step::Field(offset), Node::Composite { elements, .. }) if pending.is_none() => {
                    let members: Vec<u32> = types
                        .tuple(*elements)
                        .into_iter()
                        .filter_map(|m| match types.node(m) {
                            Some(Node::Derived {
                                tag,
                                base: Some(base),
                                offset_bits,
                                flags,
                                ..
                            }) if tag == "DW_TAG_member"
                                && *offset_bits == offset * 8
                                && !flags.contains("DIFlagStaticMember") =>
                            {
                                Some(*base)
                            }
                            _ => None,
                        })
                        .collect();
                    let [member] = members.as_slice() else {
                        return None;
                    };
                    ty = *member;
                }
                _ => return None,
            }
        }
        if pending.is_some() {
            return None;
        }
        match types.node(types.strip(ty))? {
            Node::Composite { identifier, .. } => identifier
                .strip_prefix("_ZTS")
                .map(|mangled| format!("_ZTV{mangled}")),
            _ => None,
        }
    }

    fn find_vtable(&mut self, ty: &str) -> Result<(String, String), String> {
        let name = class_name(ty);
        if name.ends_with(".base") {
            return Err("a base-class subobject".to_string());
        }
        let key = without_template_arguments(name);
        let candidates = self.by_class.get(&key).cloned().unwrap_or_default();
        // LLVM names a class template's instances alike (`sc_fifo`, `sc_fifo.53`): an
        // instance is the one whose own members index this type.
        let matching: Vec<(String, String)> = candidates
            .iter()
            .filter(|(_, class)| {
                if class.contains('<') {
                    self.members_index(class, ty)
                } else {
                    *class == name
                }
            })
            .cloned()
            .collect();
        match matching.as_slice() {
            [(symbol, class)] => Ok((class.clone(), symbol.clone())),
            [] if !candidates.is_empty() => Err(format!(
                "which instance of {key} it is cannot be told from the module"
            )),
            [] => {
                let symbol = mangled_vtable(name).ok_or_else(|| {
                    format!("{name}'s vtable is not in the module and its name cannot be mangled")
                })?;
                Ok((name.to_string(), symbol))
            }
            _ => Err(format!("several instances of {key} match")),
        }
    }

    /// Whether a member function of `class` defined in the module indexes the struct
    /// type `ty`.
    fn members_index(&mut self, class: &str, ty: &str) -> bool {
        let key = (class.to_string(), ty.to_string());
        if let Some(known) = self.confirmed.get(&key) {
            return *known;
        }
        let prefix = format!("{class}::");
        let found = self
            .module
            .get_functions()
            .filter(|f| f.count_basic_blocks() > 0)
            .filter(|f| api::demangle(&f.get_name().to_string_lossy()).starts_with(&prefix))
            .any(|f| virtual_calls::indexed_struct_types(f).contains(ty));
        self.confirmed.insert(key, found);
        found
    }
}

/// The one class definition the debug info names `name` (qualified, template
/// arguments compared when the name has them).
fn composite_named(types: &DebugTypes, name: &str) -> Option<u32> {
    let plain = !name.contains('<');
    let mut found: Vec<(u32, String)> = types
        .composites()
        .into_iter()
        .filter_map(|id| match types.node(id) {
            Some(Node::Composite {
                tag,
                name: own,
                scope,
                flags,
                identifier,
                ..
            }) if matches!(
                tag.as_str(),
                "DW_TAG_class_type" | "DW_TAG_structure_type" | "DW_TAG_union_type"
            ) && !flags.contains("DIFlagFwdDecl") =>
            {
                let outer = types.namespace_of(*scope);
                let qualified = if outer.is_empty() {
                    own.clone()
                } else {
                    format!("{outer}::{own}")
                };
                let compared = if plain {
                    without_template_arguments(&qualified)
                } else {
                    qualified
                };
                (compared == name).then(|| (id, identifier.clone()))
            }
            _ => None,
        })
        .collect();
    // One definition per type: llvm-link keeps one node per identifier, but a type
    // without one may be repeated.
    found.dedup_by(|a, b| !a.1.is_empty() && a.1 == b.1);
    match found.as_slice() {
        [(id, _)] => Some(*id),
        _ => None,
    }
}

/// `class.sc_core::sc_mutex.12` → `sc_core::sc_mutex`.
fn class_name(ty: &str) -> &str {
    let mut name = ["class.", "struct.", "union."]
        .iter()
        .find_map(|p| ty.strip_prefix(p))
        .unwrap_or(ty);
    while let Some((head, tail)) = name.rsplit_once('.') {
        if tail.is_empty() || !tail.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        name = head;
    }
    name
}

/// The Itanium vtable symbol of a class named without template arguments:
/// `sc_core::sc_mutex` → `_ZTVN7sc_core8sc_mutexE`; `None` for names this cannot
/// spell (anonymous namespaces, `std`).
fn mangled_vtable(name: &str) -> Option<String> {
    let parts: Vec<&str> = name.split("::").collect();
    let identifier = |p: &&str| {
        !p.is_empty()
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !p.starts_with(|c: char| c.is_ascii_digit())
    };
    if !parts.iter().all(identifier) || parts[0] == "std" {
        return None;
    }
    let encoded: String = parts.iter().map(|p| format!("{}{p}", p.len())).collect();
    let symbol = if parts.len() == 1 {
        format!("_ZTV{encoded}")
    } else {
        format!("_ZTVN{encoded}E")
    };
    (vtable_class(&api::demangle(&symbol)) == Some(name)).then_some(symbol)
}

/// The class a demangled vtable symbol names: `{vtable(sc_core::sc_mutex)}` as
/// `cpp_demangle` prints it, or `vtable for sc_core::sc_mutex`.
fn vtable_class(demangled: &str) -> Option<&str> {
    demangled
        .strip_prefix("{vtable(")
        .and_then(|c| c.strip_suffix(")}"))
        .or_else(|| demangled.strip_prefix("vtable for "))
}

/// `sc_core::sc_port_b<sc_core::sc_fifo_out_if<int> >::operator->()` → ("a port",
/// "sc_core::sc_fifo_out_if<int>", its members that are sites: none unless the
/// interface is a synchronization interface); `None` for a function that is no port's
/// or export's accessor.
fn port_interface(function: &str) -> Option<(&'static str, String, &'static [&'static str])> {
    let (through, rest) = if let Some(rest) = function.strip_prefix("sc_core::sc_port_b<") {
        ("a port", rest)
    } else if let Some(rest) = function.strip_prefix("sc_core::sc_export<") {
        ("an export", rest)
    } else {
        return None;
    };
    let member = ["::operator->()", "::operator[](int)", "::get_interface()"]
        .iter()
        .find_map(|m| {
            rest.strip_suffix(m)
                .or_else(|| rest.strip_suffix(&format!("{m} const")))
        })?;
    let interface = member.strip_suffix('>')?.trim_end().to_string();
    let plain = without_template_arguments(&interface);
    let members = SYNC_INTERFACES
        .iter()
        .find(|(name, _)| *name == plain)
        .map_or(&[][..], |(_, members)| *members);
    Some((through, interface, members))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_lose_llvm_suffixes_and_template_arguments() {
        assert_eq!(class_name("class.sc_core::sc_mutex"), "sc_core::sc_mutex");
        assert_eq!(class_name("class.sc_core::sc_fifo.53"), "sc_core::sc_fifo");
        assert_eq!(class_name("struct.my_mutex"), "my_mutex");
        assert_eq!(
            without_template_arguments("sc_core::sc_fifo<std::pair<int, int> >"),
            "sc_core::sc_fifo"
        );
    }

    #[test]
    fn vtable_symbols_are_mangled_from_class_names() {
        assert_eq!(
            mangled_vtable("sc_core::sc_mutex").as_deref(),
            Some("_ZTVN7sc_core8sc_mutexE")
        );
        assert_eq!(mangled_vtable("table").as_deref(), Some("_ZTV5table"));
        assert_eq!(mangled_vtable("(anonymous namespace)::x"), None);
        assert_eq!(mangled_vtable("std::mutex"), None);
    }

    #[test]
    fn port_operators_name_their_interface() {
        assert_eq!(
            port_interface("sc_core::sc_port_b<sc_core::sc_fifo_out_if<int> >::operator->()"),
            Some((
                "a port",
                "sc_core::sc_fifo_out_if<int>".to_string(),
                &FIFO_MEMBERS[..]
            ))
        );
        assert_eq!(
            port_interface("sc_core::sc_port_b<sc_core::sc_mutex_if>::operator[](int)")
                .map(|(_, interface, members)| (interface, members.len())),
            Some(("sc_core::sc_mutex_if".to_string(), 3))
        );
        for no_sites in [
            "sc_core::sc_port_b<sc_core::sc_signal_in_if<bool> >::operator->()",
            "sc_core::sc_port_b<bus_if>::operator->()",
        ] {
            assert_eq!(
                port_interface(no_sites).map(|(_, _, members)| members.len()),
                Some(0)
            );
        }
        assert_eq!(
            port_interface("std::array<sc_core::sc_mutex, 2ul>::operator[](unsigned long)"),
            None
        );
        assert_eq!(member_of("bus->lock()"), "lock");
        assert_eq!(member_of("forks[(i + 1) % N].unlock()"), "unlock");
    }
}
