//! Virtual-function tables of classes a library defines (`sc_core::sc_mutex`'s is in
//! libsystemc, not in the design's module), read from the library the design links:
//! the vtable's words are relocations naming the functions (`R_X86_64_64` against a
//! symbol, or `R_X86_64_RELATIVE` to an address), found with the `object` crate in a
//! shared object, a relocatable object or a static archive's members.

use crate::design::{Design, InputKind};
use object::read::archive::ArchiveFile;
use object::{Object, ObjectSection, ObjectSymbol, ObjectSymbolTable, RelocationTarget};
use object::{SectionIndex, SymbolKind};
use std::collections::HashMap;
use std::path::PathBuf;

/// The function in slot `slot` of a class's primary vtable, given the table's words from
/// its start (`None` for offsets and null entries). The primary table's address point,
/// where the object's vtable pointer points, follows its offset-to-top and type-info
/// words; a class with virtual bases has vcall and vbase offsets before those, so the
/// address point is found after the first word naming the class's type information
/// (`_ZTI…` for the vtable `_ZTV…`), not at a fixed 16 bytes.
pub fn slot_function(
    words: &[Option<String>],
    vtable: &str,
    slot: u64,
) -> std::result::Result<String, String> {
    let rtti = format!("_ZTI{}", vtable.strip_prefix("_ZTV").unwrap_or(vtable));
    let at = words
        .iter()
        .position(|w| w.as_deref() == Some(rtti.as_str()))
        .ok_or_else(|| {
            format!("{vtable} names no type information ({rtti}), so its entries cannot be located")
        })?;
    let index = usize::try_from(slot)
        .ok()
        .and_then(|s| (at + 1).checked_add(s))
        .unwrap_or(usize::MAX);
    match words.get(index) {
        Some(Some(function)) => Ok(function.clone()),
        _ => Err(format!("{vtable} has no function in slot {slot}")),
    }
}

/// The libraries a design links, searched for vtables on first use.
pub struct Libraries {
    /// `-l` names and explicit library paths, in link order.
    wanted: Vec<Wanted>,
    /// `-L` directories.
    dirs: Vec<PathBuf>,
    found: Option<Vec<PathBuf>>,
    contents: HashMap<PathBuf, Option<Vec<u8>>>,
    tables: HashMap<String, std::result::Result<Vec<Option<String>>, String>>,
}

enum Wanted {
    Name(String),
    Path(PathBuf),
}

impl Libraries {
    /// The libraries of `design`'s link line; a SystemC design also links `systemc`.
    pub fn of(design: &Design, systemc: bool) -> Libraries {
        let mut wanted = Vec::new();
        let mut dirs = Vec::new();
        for flag in design.link_flags() {
            if let Some(dir) = flag.strip_prefix("-L").filter(|d| !d.is_empty()) {
                dirs.push(PathBuf::from(dir));
            } else if let Some(name) = flag.strip_prefix("-l").filter(|n| !n.is_empty()) {
                wanted.push(Wanted::Name(name.to_string()));
            } else if crate::flags::is_library_file(flag) {
                wanted.push(Wanted::Path(PathBuf::from(flag)));
            }
        }
        if systemc {
            wanted.push(Wanted::Name("systemc".to_string()));
        }
        Libraries {
            wanted,
            dirs,
            found: None,
            contents: HashMap::new(),
            tables: HashMap::new(),
        }
    }

    /// The words of the vtable `symbol` from the first linked library defining it.
    pub fn vtable(&mut self, symbol: &str) -> std::result::Result<Vec<Option<String>>, String> {
        if let Some(known) = self.tables.get(symbol) {
            return known.clone();
        }
        let libraries = self.libraries();
        let mut result = Err(if libraries.is_empty() {
            "no linked library was found to read it from".to_string()
        } else {
            format!(
                "no linked library defines it (searched {})",
                libraries
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
        for library in libraries {
            let data = self
                .contents
                .entry(library.clone())
                .or_insert_with(|| std::fs::read(&library).ok());
            let Some(data) = data.as_deref() else {
                continue;
            };
            if let Some(words) = read_vtable(data, symbol) {
                result = words.map_err(|why| format!("{}: {why}", library.display()));
                break;
            }
        }
        self.tables.insert(symbol.to_string(), result.clone());
        result
    }

    fn libraries(&mut self) -> Vec<PathBuf> {
        if self.found.is_none() {
            let found = self
                .wanted
                .iter()
                .filter_map(|w| match w {
                    Wanted::Path(p) => Some(p.clone()),
                    Wanted::Name(n) => find_library(n, &self.dirs),
                })
                .collect();
            self.found = Some(found);
        }
        self.found.clone().unwrap_or_default()
    }
}

/// `-lNAME` as the linker finds it: the `-L` directories, then the compiler driver's own
/// search path (`clang++ -print-file-name`); a shared library before a static one.
fn find_library(name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let files = [format!("lib{name}.so"), format!("lib{name}.a")];
    for dir in dirs {
        for file in &files {
            if dir.join(file).is_file() {
                return Some(dir.join(file));
            }
        }
    }
    let driver = crate::toolchain::compiler(InputKind::Cxx).ok()?;
    for file in &files {
        let output = std::process::Command::new(&driver)
            .arg(format!("-print-file-name={file}"))
            .output()
            .ok()?;
        let printed = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        // The driver prints the bare name back when it finds nothing.
        if printed.is_absolute() && printed.is_file() {
            return Some(printed);
        }
    }
    None
}

/// The words of the vtable `symbol` if this file (or one of an archive's members)
/// defines it.
fn read_vtable(
    data: &[u8],
    symbol: &str,
) -> Option<std::result::Result<Vec<Option<String>>, String>> {
    if let Ok(archive) = ArchiveFile::parse(data) {
        for member in archive.members().flatten() {
            let Ok(bytes) = member.data(data) else {
                continue;
            };
            if let Some(words) = read_vtable(bytes, symbol) {
                return Some(words);
            }
        }
        return None;
    }
    let file = object::File::parse(data).ok()?;
    let defined = file
        .dynamic_symbols()
        .chain(file.symbols())
        .find(|s| s.is_definition() && s.name() == Ok(symbol))?;
    Some(words_of(&file, &defined))
}

fn words_of<'data>(
    file: &object::File<'data>,
    vtable: &object::Symbol<'data, '_>,
) -> std::result::Result<Vec<Option<String>>, String> {
    let section_index = vtable
        .section_index()
        .ok_or_else(|| "the vtable is in no section".to_string())?;
    let section = file
        .section_by_index(section_index)
        .map_err(|e| e.to_string())?;
    let start = vtable.address();
    let words = (vtable.size() / 8) as usize;
    let mut names: Vec<Option<String>> = vec![None; words];
    let mut place = |offset: u64, name: Option<String>| {
        if offset >= start
            && (offset - start).is_multiple_of(8)
            && ((offset - start) / 8) < words as u64
        {
            names[((offset - start) / 8) as usize] = name;
        }
    };
    let dynamic_relocations = match file.kind() {
        object::ObjectKind::Relocatable => None,
        _ => file.dynamic_relocations(),
    };
    match dynamic_relocations {
        // A shared object or executable: the loader's relocations, at addresses.
        Some(relocations) => {
            let dynamic = file.dynamic_symbol_table();
            for (offset, relocation) in relocations {
                if offset < start || offset >= start + vtable.size() {
                    continue;
                }
                let name = match relocation.target() {
                    RelocationTarget::Symbol(index) => dynamic
                        .as_ref()
                        .and_then(|t| t.symbol_by_index(index).ok())
                        .and_then(|s| s.name().ok().map(str::to_string))
                        .filter(|_| relocation.addend() == 0),
                    RelocationTarget::Absolute => symbol_at(file, None, relocation.addend() as u64),
                    _ => None,
                };
                place(offset, name);
            }
        }
        // A relocatable object: the section's relocations, at offsets within it.
        None => {
            let base = section.address();
            for (offset, relocation) in object::ObjectSection::relocations(&section) {
                let name = match relocation.target() {
                    RelocationTarget::Symbol(index) => match file.symbol_by_index(index) {
                        Ok(s) if s.kind() == SymbolKind::Section => s
                            .section_index()
                            .and_then(|sec| symbol_at(file, Some(sec), relocation.addend() as u64)),
                        Ok(s) => s
                            .name()
                            .ok()
                            .map(str::to_string)
                            .filter(|_| relocation.addend() == 0),
                        Err(_) => None,
                    },
                    _ => None,
                };
                place(base + offset, name);
            }
        }
    }
    Ok(names)
}

/// The name of the function or object (a type's information) defined at `address` (in
/// `section`, for a relocatable object), a global name preferred.
fn symbol_at(
    file: &object::File<'_>,
    section: Option<SectionIndex>,
    address: u64,
) -> Option<String> {
    file.symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| {
            s.is_definition()
                && matches!(s.kind(), SymbolKind::Text | SymbolKind::Data)
                && s.address() == address
        })
        .filter(|s| section.is_none() || s.section_index() == section)
        .max_by_key(|s| s.is_global())
        .and_then(|s| s.name().ok().map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(names: &[Option<&str>]) -> Vec<Option<String>> {
        names.iter().map(|n| n.map(str::to_string)).collect()
    }

    #[test]
    fn the_address_point_follows_the_type_information() {
        // sc_mutex's vtable: vbase and vcall offsets, offset-to-top, type info, then
        // the virtual functions.
        let table = words(&[
            None,
            None,
            None,
            None,
            None,
            Some("_ZTIN7sc_core8sc_mutexE"),
            Some("_ZN7sc_core12sc_interface13register_portERNS_12sc_port_baseEPKc"),
            Some("_ZNK7sc_core12sc_interface13default_eventEv"),
            Some("_ZN7sc_core8sc_mutexD1Ev"),
            Some("_ZN7sc_core8sc_mutexD0Ev"),
            Some("_ZN7sc_core8sc_mutex4lockEv"),
        ]);
        assert_eq!(
            slot_function(&table, "_ZTVN7sc_core8sc_mutexE", 4).unwrap(),
            "_ZN7sc_core8sc_mutex4lockEv"
        );
        assert!(slot_function(&table, "_ZTVN7sc_core8sc_mutexE", 5).is_err());
        assert!(slot_function(&table, "_ZTV5other", 0).is_err());
    }

    /// A class with virtual bases compiled into a shared object, a relocatable object
    /// and a static archive: each gives the same words.
    #[test]
    fn vtables_are_read_from_shared_and_relocatable_objects() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("lib.cpp");
        std::fs::write(
            &source,
            "struct I { virtual ~I(); virtual int get() = 0; };\n\
             struct B : virtual I { int get() override; virtual void put(int); int v; };\n\
             I::~I() {}\n int B::get() { return v; }\n void B::put(int x) { v = x; }\n\
             static int hidden() { return 1; }\n\
             struct C : B { int get() override { return hidden(); } C(); };\n C::C() {}\n\
             namespace { struct D : B { int get() override { return 2; } }; }\n\
             B *make() { return new D; }\n",
        )
        .unwrap();
        let compiler = crate::toolchain::compiler(InputKind::Cxx).unwrap();
        let so = dir.path().join("libv.so");
        let o = dir.path().join("v.o");
        for (out, extra) in [(&so, &["-shared", "-fPIC"][..]), (&o, &["-c", "-fPIC"][..])] {
            let status = std::process::Command::new(&compiler)
                .args(extra)
                .arg(&source)
                .arg("-o")
                .arg(out)
                .status()
                .unwrap();
            assert!(status.success());
        }
        // A static archive holding the object.
        let a = dir.path().join("libv.a");
        let archived = std::process::Command::new("llvm-ar-16")
            .arg("rcs")
            .arg(&a)
            .arg(&o)
            .status()
            .is_ok_and(|s| s.success());
        let files: Vec<&PathBuf> = if archived {
            vec![&so, &o, &a]
        } else {
            vec![&so, &o]
        };
        for file in files {
            let data = std::fs::read(file).unwrap();
            let table = read_vtable(&data, "_ZTV1B").unwrap().unwrap();
            assert_eq!(slot_function(&table, "_ZTV1B", 2).unwrap(), "_ZN1B3getEv");
            assert_eq!(slot_function(&table, "_ZTV1B", 3).unwrap(), "_ZN1B3putEi");
            assert!(read_vtable(&data, "_ZTV7missing").is_none());
            // A function local to the file: a relative relocation, or one against its
            // section.
            let local = read_vtable(&data, "_ZTVN12_GLOBAL__N_11DE")
                .unwrap()
                .unwrap();
            assert_eq!(
                slot_function(&local, "_ZTVN12_GLOBAL__N_11DE", 2).unwrap(),
                "_ZN12_GLOBAL__N_11D3getEv"
            );
        }
    }
}
