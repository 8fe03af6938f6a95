//! What the backward walk computes and where: a value's symbolic form ([`Sym`]), a
//! memory location ([`Base`] plus offset, [`Loc`]) and a calling context ([`FrameId`],
//! [`FrameKind`], [`Frame`]). The files that compute them (`values`, `pointers`,
//! `call_results`, `memory`, `frames`) import them from here, not from each other.

use super::demangle_hint;
use crate::ir::{Func, Value};
use easy_smt::SExpr;

/// Frame index.
pub type FrameId = usize;

/// How a frame was entered, which is where the backward walk goes at its entry.
#[derive(Debug, Clone)]
pub(super) enum FrameKind<'m> {
    Root,
    Call {
        parent: FrameId,
        call: Value<'m>,
    },
    /// A thread/process entry; memory at entry is the creator's at `point`.
    Thread {
        creator: FrameId,
        point: Value<'m>,
        args: Vec<Sym<'m>>,
        also: Option<FrameId>,
        label: String,
    },
}

/// One function in one calling context.
#[derive(Debug, Clone)]
pub(super) struct Frame<'m> {
    pub(super) func: Func<'m>,
    pub(super) kind: FrameKind<'m>,
    pub(super) depth: usize,
}

/// Maximum call-string depth.
pub(super) const MAX_DEPTH: usize = 8;

/// Base of a memory location.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Base<'m> {
    Global(Value<'m>),
    Alloca(FrameId, Value<'m>),
    Argv,
    /// A pointer returned by a function without a body.
    Opaque(Value<'m>),
    /// The object `operator new` returned at this call, in one calling context (the
    /// hash of the call string, so every frame of that context names the same object).
    Heap(Value<'m>, u64),
}

impl Base<'_> {
    /// The object in words, for reasons shown to users.
    pub(super) fn describe(&self) -> String {
        let named = |what: &str, v: &Value<'_>| {
            let name = v.name();
            let at = v.where_();
            match (name.is_empty(), at.as_str()) {
                (true, "?") => what.to_string(),
                (true, at) => format!("{what} at {at}"),
                (false, "?") => format!("{what} `{}`", super::demangle_hint(&name)),
                (false, at) => format!("{what} `{}` at {at}", super::demangle_hint(&name)),
            }
        };
        match self {
            Base::Global(v) => named("global", v),
            Base::Alloca(_, v) => named("local variable", v),
            Base::Argv => "the argument vector".to_string(),
            Base::Heap(v, _) => format!("the object created by new at {}", v.where_()),
            Base::Opaque(v) => match v.called_function() {
                Some(f) => format!(
                    "memory returned by {} at {}",
                    super::demangle_hint(&f.name()),
                    v.where_()
                ),
                None => named(
                    "memory behind a pointer the analysis does not track, loaded",
                    v,
                ),
            },
        }
    }
}

/// A memory location: a base plus a byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Loc<'m> {
    pub(super) base: Base<'m>,
    pub(super) off: i64,
}

/// Symbolic value.
#[derive(Debug, Clone)]
pub(super) enum Sym<'m> {
    Bv(SExpr, u32),
    Ptr(Loc<'m>),
    /// `loc` plus a symbolic byte offset `idx` (64 bits) that is a multiple of
    /// `stride`: an array element chosen by a value computed at run time. Loads expand
    /// it over the object's elements (an `ite` over the region map); stores through it
    /// are conditional (`idx` equals the location's offset).
    PtrIdx {
        loc: Loc<'m>,
        idx: SExpr,
        stride: u64,
    },
    /// `argv[k]`, a string.
    ArgStr(u32),
    /// `argv[k]` when `cond` holds, else the string literal global `lit`
    /// (`argc > 1 ? argv[1] : ""`).
    ArgOrLiteral {
        k: u32,
        cond: SExpr,
        lit: Value<'m>,
    },
    /// A function's address (start routines, member-function pointers).
    #[allow(dead_code)]
    Func(Func<'m>),
}

impl Sym<'_> {
    /// What the value is, in words, for reasons shown to users.
    pub(super) fn describe(&self) -> String {
        match self {
            Sym::Bv(_, w) => format!("a {w}-bit integer"),
            Sym::Ptr(loc) => format!("a pointer to {}", loc.base.describe()),
            Sym::PtrIdx { loc, .. } => format!(
                "a pointer to an element of {} chosen at run time",
                loc.base.describe()
            ),
            Sym::ArgStr(k) => format!("the string argv[{k}]"),
            Sym::ArgOrLiteral { k, lit, .. } => format!(
                "the string argv[{k}] or \"{}\"",
                lit.c_string().unwrap_or_default()
            ),
            Sym::Func(f) => format!("the address of function {}", demangle_hint(&f.name())),
        }
    }
}
