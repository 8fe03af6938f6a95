//! SystemC port binding as the analysis sees it: `port(channel)` or
//! `port.bind(channel)` during elaboration makes the channel the port's interface, so
//! `port->read()` and the `sc_in::read()`-style helpers reach that channel's methods.
//!
//! The kernel itself stores the interface into the port's `m_interface` member when
//! elaboration completes (library code the analysis has no body for); the binding
//! call in the design is where that value is decided, so a binding call counts as the
//! store of its interface argument into `m_interface`. Binding a port to another port
//! is not modelled: the interface is then left free, as any library-set pointer.
//!
//! A binding call (to an interface or to another port) changes the port it binds and
//! nothing else of the design: a module's other members keep the values its
//! constructor stored through the `g.clk(clk)` calls `sc_main` makes before
//! `sc_start`, although the kernel's `bind` they end in has no body here.

use super::domain::{Loc, Sym};
use super::entries::demangled;
use super::{FrameId, Wp};
use crate::error::Result;
use crate::ir::{Func, Module, Opcode, Value};
use std::collections::HashMap;

/// Port classes whose `bind`/`operator()` bind a port to an interface.
const PORT_CLASSES: &[&str] = &[
    "sc_core::sc_port_b<",
    "sc_core::sc_port<",
    "sc_core::sc_in<",
    "sc_core::sc_inout<",
    "sc_core::sc_out<",
    "sc_core::sc_fifo_in<",
    "sc_core::sc_fifo_out<",
];

/// The functions with a body that bind a port: `sc_core::sc_port_b<IF>::bind(IF&)`,
/// `sc_core::sc_in<T>::operator()(sc_signal_in_if<T> const&)` and the like, each with
/// whether it binds to an interface (`true`) or to another port.
pub(super) fn port_binders(m: &Module) -> HashMap<Func<'_>, bool> {
    let mut out = HashMap::new();
    for f in m
        .functions()
        .into_iter()
        .filter(|f| f.has_body() && f.param_count() == 2)
    {
        let Some(name) = demangled(&f.name()) else {
            continue;
        };
        if !PORT_CLASSES.iter().any(|c| name.starts_with(c)) {
            continue;
        }
        let Some(params) = [">::bind(", ">::operator()("]
            .iter()
            .find_map(|m| name.find(m).map(|i| &name[i + m.len()..]))
        else {
            continue;
        };
        let to_port = PORT_CLASSES
            .iter()
            .any(|c| params.contains(c.trim_end_matches('<')))
            || params.contains("sc_core::sc_port_base");
        out.insert(f, !to_port);
    }
    out
}

impl<'m> Wp<'m> {
    /// The value `loc` holds after binding call `j` (to `callee`) when `loc` is the
    /// `m_interface` member, read by `load`, of the port the call binds: the interface
    /// argument. `None` when the call binds another port or `loc` is another member.
    pub(super) fn bound_interface(
        &mut self,
        f: FrameId,
        j: Value<'m>,
        callee: Func<'m>,
        loc: Loc<'m>,
        load: Value<'m>,
    ) -> Result<Option<Sym<'m>>> {
        if self.facts.port_binders.get(&callee) != Some(&true) {
            return Ok(None);
        }
        let Some(member) = interface_member_offset(self.m, load) else {
            return Ok(None);
        };
        let args = j.call_args();
        match self.value(f, args[0]) {
            Ok(Sym::Ptr(port)) if port.base == loc.base && port.off + member == loc.off => {}
            _ => return Ok(None),
        }
        self.note(format!(
            "the port bound at {} calls the interface given there (elaboration binding)",
            j.where_()
        ));
        Ok(Some(self.value(f, args[1])?))
    }

    /// Whether call `j` (to `callee`) binds a port and `loc` lies outside that port:
    /// the call then leaves `loc` as it was. The port's extent is the size its `this`
    /// parameter is declared to point to.
    pub(super) fn binds_another_object(
        &mut self,
        f: FrameId,
        j: Value<'m>,
        callee: Func<'m>,
        loc: Loc<'m>,
    ) -> bool {
        if !self.facts.port_binders.contains_key(&callee) {
            return false;
        }
        let Some(size) = callee.param_dereferenceable(0) else {
            return false;
        };
        let Some(port) = j.call_args().first().copied() else {
            return false;
        };
        match self.value(f, port) {
            Ok(Sym::Ptr(p)) => {
                p.base != loc.base || loc.off < p.off || loc.off >= p.off + size as i64
            }
            _ => false,
        }
    }
}

/// The byte offset of `m_interface` in `sc_port_b` when `load` reads that member
/// (`getelementptr %"class.sc_core::sc_port_b…", p, 0, 1`).
fn interface_member_offset(m: &Module, load: Value<'_>) -> Option<i64> {
    if load.opcode()? != Opcode::LLVMLoad || !is_interface_member(load.operand(0)) {
        return None;
    }
    Some(m.offset_of_element(load.operand(0).gep_source_type(), 1) as i64)
}

/// Whether `address` is a port's `m_interface` member
/// (`getelementptr %"class.sc_core::sc_port_b…", p, 0, 1`): set once, when
/// elaboration completes, so no process changes it.
pub(super) fn is_interface_member(address: Value<'_>) -> bool {
    interface_member(address).is_some()
}

fn interface_member(address: Value<'_>) -> Option<()> {
    if address.opcode()? != Opcode::LLVMGetElementPtr || address.operand_count() != 3 {
        return None;
    }
    let ty = address.gep_source_type();
    if !ty.struct_name()?.starts_with("class.sc_core::sc_port_b") {
        return None;
    }
    (address.operand(1).const_int()? == 0 && address.operand(2).const_int()? == 1).then_some(())
}
