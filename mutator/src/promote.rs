//! The implementations a virtual call through a port or a pointer may reach, for its
//! guarded devirtualization (`ir::promote`): when the channel bound to `out->write(v)`
//! is only known at run time, the call compares the function it loaded from the vtable
//! with each synchronization member the design has or links at that slot, and calls the
//! one it is directly, at the user's line, so that call is a site; any other callee (a
//! user's own channel) keeps the original indirect call.
//!
//! A candidate is the word at slot k after any address point of a vtable: the module's
//! own tables (every `sc_fifo<T>` the design instantiates, and its classes derived from
//! a channel) and libsystemc's `sc_mutex` and `sc_semaphore` (`vtables.rs`), each group
//! of them, since a port hands out a pointer to the interface's subobject, whose vtable
//! pointer points at that base's group. Through `sc_fifo_out_if<T>` that entry is a
//! non-virtual thunk (`_ZThn24_…5writeERKi`) moving `this` from the interface to the
//! `sc_fifo<T>` before calling its member. The promoted call compares with the thunk
//! and calls the thunk's target with `this` moved as the thunk would, by the offset its
//! mangled name states (the Itanium ABI's `Th [n] offset _`). Calling the thunk instead
//! would make the site's callee a name no API row or trampoline knows, while the target
//! is the very `sc_fifo<T>::write` a call on the channel itself reaches, with its
//! operators and trampoline. A virtual thunk (`_ZTv`) reads its adjustment from the
//! vtable at run time; such a member stays indirect and is warned about.

use crate::api;
use crate::cxx_names::{compact, member_of, template_arguments};
use crate::ir::promote::Candidate;
use crate::vtables::Libraries;

/// The library classes whose vtables hold synchronization members; the module's own
/// tables are read from the module.
const LIBRARY_SYNC_VTABLES: [&str; 2] = ["_ZTVN7sc_core8sc_mutexE", "_ZTVN7sc_core12sc_semaphoreE"];

/// The vtables the design has or links: (symbol, groups of words).
pub struct Tables {
    tables: Vec<(String, Vec<Vec<Option<String>>>)>,
}

/// What slot k may reach.
#[derive(Debug, Default)]
pub struct Reached {
    pub candidates: Vec<Candidate>,
    /// Synchronization members reached in a way that cannot be called directly.
    pub unsupported: Vec<String>,
}

impl Tables {
    pub fn of(module: &inkwell::module::Module<'_>, libraries: &mut Libraries) -> Tables {
        let mut tables = crate::ir::virtual_calls::defined_vtables(module);
        for symbol in LIBRARY_SYNC_VTABLES {
            if tables.iter().any(|(s, _)| s == symbol) {
                continue;
            }
            // A library's table is one run of words; its address points are found
            // alike, after each word naming the class's type information.
            if let Ok(words) = libraries.vtable(symbol) {
                tables.push((symbol.to_string(), vec![words]));
            }
        }
        Tables { tables }
    }

    /// The members named `member` in slot `slot` of any group of any table, the API
    /// table knows as synchronization; of a class with the template arguments
    /// `arguments` (the port's interface's, `int` for `sc_fifo_out_if<int>`) when given.
    pub fn at(&self, slot: u64, member: &str, arguments: Option<&str>) -> Reached {
        let mut reached = Reached::default();
        let Ok(slot) = usize::try_from(slot) else {
            return reached;
        };
        for (symbol, groups) in &self.tables {
            let rtti = format!("_ZTI{}", symbol.strip_prefix("_ZTV").unwrap_or(symbol));
            for words in groups {
                let points = words
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| w.as_deref() == Some(rtti.as_str()))
                    .map(|(i, _)| i + 1);
                for point in points {
                    let Some(Some(pointer)) = words.get(point + slot) else {
                        continue;
                    };
                    let (target, delta) = match thunk(pointer) {
                        Thunk::None => (pointer.clone(), 0),
                        Thunk::Fixed { target, delta } => (target, delta),
                        Thunk::Virtual { target } => {
                            if is_member(&target, member, arguments) {
                                reached.unsupported.push(format!(
                                    "{} reaches it through a virtual thunk, whose adjustment of this is read at run time",
                                    api::demangle(&target)
                                ));
                            }
                            continue;
                        }
                    };
                    if is_member(&target, member, arguments) {
                        reached.candidates.push(Candidate {
                            pointer: pointer.clone(),
                            target,
                            delta,
                        });
                    }
                }
            }
        }
        reached
            .candidates
            .sort_by(|a, b| (&a.target, &a.pointer).cmp(&(&b.target, &b.pointer)));
        reached.candidates.dedup_by(|a, b| a.pointer == b.pointer);
        reached.unsupported.sort();
        reached.unsupported.dedup();
        reached
    }
}

/// Whether the function `symbol` is a synchronization member of the API table named
/// `member`, of a class with the template arguments `arguments` when given.
fn is_member(symbol: &str, member: &str, arguments: Option<&str>) -> bool {
    let signature = api::demangle(symbol);
    if api::lookup(&signature).is_none() || member_of(&signature) != member {
        return false;
    }
    match arguments {
        None => true,
        Some(wanted) => {
            let class = signature.split('(').next().unwrap_or_default();
            let class = class.rsplit_once("::").map_or(class, |(c, _)| c);
            template_arguments(class) == Some(compact(wanted))
        }
    }
}

/// `n24_rest` → (-24, `rest`): a mangled call offset's number and what follows it.
fn number(text: &str) -> Option<(i64, &str)> {
    let (negative, digits) = match text.strip_prefix('n') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (value, rest) = digits.split_once('_')?;
    let value: i64 = value.parse().ok()?;
    Some((if negative { -value } else { value }, rest))
}

#[derive(Debug, PartialEq, Eq)]
enum Thunk {
    None,
    /// `_ZTh[n]<offset>_<encoding>`: `this` moves by the signed offset, then the
    /// function `_Z<encoding>` runs.
    Fixed {
        target: String,
        delta: i64,
    },
    /// `_ZTv<offset>_<vcall offset>_<encoding>`: the move is read from the vtable.
    Virtual {
        target: String,
    },
}

fn thunk(symbol: &str) -> Thunk {
    if let Some(rest) = symbol.strip_prefix("_ZTh") {
        if let Some((delta, encoding)) = number(rest) {
            return Thunk::Fixed {
                target: format!("_Z{encoding}"),
                delta,
            };
        }
    } else if let Some(rest) = symbol.strip_prefix("_ZTv") {
        if let Some((_, encoding)) = number(rest).and_then(|(_, r)| number(r)) {
            return Thunk::Virtual {
                target: format!("_Z{encoding}"),
            };
        }
    }
    Thunk::None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(names: &[Option<&str>]) -> Vec<Option<String>> {
        names.iter().map(|n| n.map(str::to_string)).collect()
    }

    #[test]
    fn thunks_name_their_target_and_adjustment() {
        assert_eq!(
            thunk("_ZThn24_N7sc_core7sc_fifoIiE5writeERKi"),
            Thunk::Fixed {
                target: "_ZN7sc_core7sc_fifoIiE5writeERKi".to_string(),
                delta: -24
            }
        );
        assert_eq!(
            thunk("_ZTh8_N1A1fEv"),
            Thunk::Fixed {
                target: "_ZN1A1fEv".to_string(),
                delta: 8
            }
        );
        assert_eq!(
            thunk("_ZTv0_n24_N1A1fEv"),
            Thunk::Virtual {
                target: "_ZN1A1fEv".to_string()
            }
        );
        assert_eq!(thunk("_ZN7sc_core8sc_mutex4lockEv"), Thunk::None);
    }

    /// `sc_fifo<int>`'s groups as clang lays them out: the primary (`sc_fifo_in_if`'s
    /// nonblocking base), the blocking in-interface, then the out-interfaces.
    #[test]
    fn each_group_of_each_table_is_searched_at_the_slot() {
        let rtti = Some("_ZTIN7sc_core7sc_fifoIiEE");
        let tables = Tables {
            tables: vec![(
                "_ZTVN7sc_core7sc_fifoIiEE".to_string(),
                vec![
                    words(&[None, rtti, Some("_ZN7sc_core7sc_fifoIiE5writeERKi")]),
                    words(&[None, rtti, None, Some("_ZThn8_N7sc_core7sc_fifoIiE4readEv")]),
                    words(&[
                        None,
                        rtti,
                        None,
                        Some("_ZThn24_N7sc_core7sc_fifoIiE5writeERKi"),
                    ]),
                ],
            )],
        };
        let write = |pointer: &str, delta| Candidate {
            pointer: pointer.to_string(),
            target: "_ZN7sc_core7sc_fifoIiE5writeERKi".to_string(),
            delta,
        };
        assert_eq!(
            tables.at(1, "write", Some("int")).candidates,
            [write("_ZThn24_N7sc_core7sc_fifoIiE5writeERKi", -24)]
        );
        assert_eq!(
            tables.at(0, "write", None).candidates,
            [write("_ZN7sc_core7sc_fifoIiE5writeERKi", 0)]
        );
        // Another instance's interface, another member: nothing.
        assert!(tables.at(1, "write", Some("double")).candidates.is_empty());
        assert!(tables.at(1, "nb_write", None).candidates.is_empty());
    }
}
