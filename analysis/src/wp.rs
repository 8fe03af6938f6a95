//! Backward weakest precondition: the condition on program inputs under which
//! execution reaches a site.
//!
//! The module is in SSA form (mem2reg/sroa ran first), so substituting each defined
//! value backwards into the predicate is the same as evaluating the value's definition
//! on demand, memoised per frame; that is what [`Wp::value`] does. Block reachability
//! is the disjunction over predecessors of (edge condition ∧ predecessor reached),
//! memoised per block. Loop back edges are not followed: paths through more iterations
//! than `opt` unrolled are cut, and the result says so ([`Query::cut`]).
//!
//! A *frame* is one function in one calling context: the root (`main`/`sc_main`, whose
//! `argv` is the input), a call from a parent frame, or a thread/process entry created
//! from a creator frame. Memory is a region map: a location is a base (global, stack
//! slot of a frame, `argv`) plus a byte offset; a load's value is the last store to the
//! same location found walking backwards (through callees that may write it, into the
//! creator at a thread's entry), merged over predecessors like a phi.

use crate::error::{AnalysisError, Result};
use crate::inputs::Inputs;
use crate::ir::{self, Block, Func, Module, Opcode, TypeShape, Value};
use easy_smt::{Context, SExpr};
use std::collections::{HashMap, HashSet};

/// Frame index.
pub type FrameId = usize;

#[derive(Debug, Clone)]
enum FrameKind {
    Root,
    Call { parent: FrameId, call: Value },
    /// A thread/process entry; memory at entry is the creator's at `point`.
    Thread { creator: FrameId, point: Value, args: Vec<Sym>, also: Option<FrameId>, label: String },
}

#[derive(Debug, Clone)]
struct Frame {
    func: Func,
    kind: FrameKind,
    depth: usize,
}

/// Base of a memory location.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Base {
    Global(Value),
    Alloca(FrameId, Value),
    Argv,
    /// A pointer returned by a function without a body.
    Opaque(Value),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Loc {
    base: Base,
    off: i64,
}

/// Symbolic value.
#[derive(Debug, Clone)]
enum Sym {
    Bv(SExpr, u32),
    Ptr(Loc),
    /// `loc` plus a symbolic byte offset `idx` (64 bits) that is a multiple of
    /// `stride`: an array element chosen by a value computed at run time. Loads expand
    /// it over the object's elements (an `ite` over the region map); stores through it
    /// are conditional (`idx` equals the location's offset).
    PtrIdx { loc: Loc, idx: SExpr, stride: u64 },
    /// `argv[k]`, a string.
    ArgStr(u32),
    /// A function's address (start routines, member-function pointers).
    #[allow(dead_code)]
    Func(Func),
}

/// One conjunct of a formula, with the source line it comes from.
#[derive(Debug, Clone)]
pub struct Conjunct {
    pub comment: String,
    pub expr: SExpr,
}

/// A named definition (branch conditions), emitted before the conjuncts.
#[derive(Debug, Clone)]
pub struct Definition {
    pub name: String,
    pub sort: String,
    pub expr: SExpr,
    pub comment: String,
}

/// The reachability formula of one site.
#[derive(Debug, Clone)]
pub struct Query {
    pub inputs: Inputs,
    /// Fresh symbols (over-approximated values) with their sorts.
    pub fresh: Vec<(String, String)>,
    pub definitions: Vec<Definition>,
    pub conjuncts: Vec<Conjunct>,
    /// Over-approximations made (a model may then not be a real test).
    pub notes: Vec<String>,
    /// Paths were cut at a loop back edge (an unsat answer is then not a proof).
    pub cut: Vec<String>,
    /// What the formula assumes about the schedule.
    pub schedule: Vec<String>,
    /// SystemC waits whose return the formula conditions on a notify (an unsat
    /// answer may then mean "blocked" rather than dead code).
    pub blocking: Vec<String>,
}

/// Facts about the module shared by every site's analysis.
pub struct ModuleFacts {
    pub callers: HashMap<Func, Vec<Value>>,
    /// Thread/process entries: (entry, creation call or constructor, argument, kind label).
    pub entries: HashMap<Func, Vec<Creation>>,
    pub roots: Vec<Func>,
    preds: HashMap<Func, HashMap<Block, Vec<Block>>>,
    back: HashMap<Func, HashSet<(Block, Block)>>,
    /// Globals that code running concurrently may store to (functions reachable from
    /// a thread/process entry, and the roots after the first thread creation).
    /// `None`: some concurrent store goes through a pointer not traced to a global,
    /// so every object may be written.
    concurrent_writes: Option<HashSet<Value>>,
    /// Functions that call `__VERIFIER_nondet_*`, directly or through callees.
    nondet_callers: HashSet<Func>,
    /// Code running concurrently (threads/processes, or a root after its first thread
    /// start) may call `__VERIFIER_nondet_*`: the call counter is then unknown after a
    /// synchronization point and at a thread's entry.
    concurrent_nondet: bool,
    /// SystemC processes: (registering constructor, position in its registration
    /// order), which is the kernel's order of first activation within a module.
    process_order: HashMap<Func, (Func, usize)>,
    /// Every rewritten `sc_event::notify*` call.
    notifies: Vec<Value>,
}

/// How a thread/process entry is started.
#[derive(Debug, Clone)]
pub enum Creation {
    /// `pthread_create` (or the runtime hook) call, with the start routine's argument.
    Pthread { call: Value, arg: Value },
    /// `SC_THREAD`/`SC_METHOD` registered in a module constructor; `this` is its first
    /// parameter; the process starts at `sc_start`.
    Systemc { constructor: Func },
}

impl ModuleFacts {
    /// Scans the module: call graph, thread entries, predecessor maps and back edges.
    pub fn new(m: &Module) -> ModuleFacts {
        let callers = m.callers();
        let mut entries: HashMap<Func, Vec<Creation>> = HashMap::new();
        let mut roots = Vec::new();
        let mut process_order: HashMap<Func, (Func, usize)> = HashMap::new();
        let mut notifies = Vec::new();
        for f in m.functions() {
            let name = f.name();
            if (name == "main" || name == "sc_main") && f.has_body() {
                roots.push(f);
            }
            if !f.has_body() {
                continue;
            }
            let mut registers_process = false;
            let mut referenced = Vec::new();
            for b in f.blocks() {
                for i in b.instructions() {
                    if let Some(callee) = i.called_function() {
                        let cn = callee.name();
                        if cn == "syncmut_hook_pthread_create" || cn == "pthread_create" {
                            let (fi, ai) = if cn == "pthread_create" { (2, 3) } else { (3, 4) };
                            let args = i.call_args();
                            if let (Some(start), Some(arg)) = (args.get(fi).and_then(|v| v.as_function()), args.get(ai)) {
                                entries.entry(start).or_default().push(Creation::Pthread { call: i, arg: *arg });
                            }
                        }
                        if cn.contains("create_thread_process") || cn.contains("create_method_process") {
                            registers_process = true;
                        }
                    }
                    if i.opcode() == Some(Opcode::LLVMCall) || i.opcode() == Some(Opcode::LLVMInvoke) {
                        for a in i.call_args() {
                            collect_functions(a, &mut referenced, 0);
                        }
                    } else {
                        for k in 0..i.operand_count() {
                            collect_functions(i.operand(k), &mut referenced, 0);
                        }
                    }
                }
            }
            if registers_process {
                for e in referenced.into_iter().filter(|e| e.has_body() && e.param_count() == 1) {
                    entries.entry(e).or_default().push(Creation::Systemc { constructor: f });
                    let next = process_order.values().filter(|(c, _)| *c == f).count();
                    process_order.entry(e).or_insert((f, next));
                }
            }
            for b in f.blocks() {
                for i in b.instructions() {
                    if i.called_function().is_some_and(|c| notify_kind(&c.name()).is_some()) {
                        notifies.push(i);
                    }
                }
            }
        }
        let mut preds = HashMap::new();
        let mut back = HashMap::new();
        for f in m.functions().into_iter().filter(|f| f.has_body()) {
            preds.insert(f, f.predecessors());
            back.insert(f, back_edges(f));
        }
        let concurrent_writes = concurrent_writes(&entries, &roots);
        let nondet_callers = nondet_callers(m, &callers);
        let concurrent_nondet = concurrent_nondet(&entries, &roots, &nondet_callers);
        ModuleFacts { callers, entries, roots, preds, back, concurrent_writes, nondet_callers, concurrent_nondet, process_order, notifies }
    }

    /// Whether code running concurrently may store to global `g`.
    fn concurrently_written(&self, g: Value) -> bool {
        self.concurrent_writes.as_ref().map(|w| w.contains(&g)).unwrap_or(true)
    }
}

/// The event argument's position of a wrapped SystemC `wait(e)`.
fn event_wait_arg(wrapper: &str) -> Option<usize> {
    if !wrapper.starts_with("syncmut_sc_") || !wrapper.ends_with("wait_event") {
        return None;
    }
    // Member forms (`sc_module::wait`, `sc_prim_channel::wait`) pass the object first.
    Some(if wrapper.contains("_module_") || wrapper.contains("_prim_channel_") { 2 } else { 1 })
}

/// `Some(immediate?)` for a wrapped `sc_event::notify*`: only an immediate notify can
/// be lost (delta and timed ones wake whoever waits by the end of the delta cycle).
fn notify_kind(wrapper: &str) -> Option<bool> {
    wrapper.starts_with("syncmut_sc_event_notify").then_some(wrapper == "syncmut_sc_event_notify")
}

/// A wrapped call where a SystemC process may yield to the kernel.
fn may_yield(wrapper: &str) -> bool {
    wrapper.starts_with("syncmut.fifo.") || (wrapper.starts_with("syncmut_sc_") && (wrapper.contains("wait") || wrapper.ends_with("_lock")))
}

/// The `__VERIFIER_nondet_<type>` suffix of a function without a body.
fn nondet_type(f: Func) -> Option<String> {
    if f.has_body() {
        return None;
    }
    f.name().strip_prefix("__VERIFIER_nondet_").map(str::to_string)
}

/// Functions that call a nondet function, directly or transitively.
fn nondet_callers(m: &Module, callers: &HashMap<Func, Vec<Value>>) -> HashSet<Func> {
    let mut out = HashSet::new();
    let mut todo: Vec<Func> = m.functions().into_iter().filter(|f| nondet_type(*f).is_some()).collect();
    while let Some(f) = todo.pop() {
        for call in callers.get(&f).into_iter().flatten() {
            let caller = call.block().function();
            if out.insert(caller) {
                todo.push(caller);
            }
        }
    }
    out
}

fn concurrent_nondet(entries: &HashMap<Func, Vec<Creation>>, roots: &[Func], nondet_callers: &HashSet<Func>) -> bool {
    if entries.keys().any(|e| nondet_callers.contains(e)) {
        return true;
    }
    let calls_nondet = |i: &Value| i.called_function().map(|c| nondet_type(c).is_some() || nondet_callers.contains(&c)).unwrap_or(false);
    for r in roots {
        let mut after: Vec<Block> = Vec::new();
        for b in r.blocks() {
            let insts = b.instructions();
            if let Some(pos) = insts.iter().position(|i| i.called_function().map(|c| is_thread_start(&c.name())).unwrap_or(false)) {
                if insts[pos..].iter().any(calls_nondet) {
                    return true;
                }
                after.extend(b.successors());
            }
        }
        let mut seen = HashSet::new();
        while let Some(b) = after.pop() {
            if !seen.insert(b) {
                continue;
            }
            if b.instructions().iter().any(calls_nondet) {
                return true;
            }
            after.extend(b.successors());
        }
    }
    false
}

/// The global a pointer is derived from by address arithmetic and casts, if any.
fn underlying_global(mut p: Value) -> Option<Value> {
    for _ in 0..16 {
        if p.is_global_variable() {
            return Some(p);
        }
        match p.opcode()? {
            Opcode::LLVMGetElementPtr | Opcode::LLVMBitCast | Opcode::LLVMAddrSpaceCast => p = p.operand(0),
            _ => return None,
        }
    }
    None
}

/// A call where another thread or process may run (wrapped synchronization calls,
/// thread creation, `sc_start`); the runtime's input functions are not.
fn is_scheduling_call(name: &str) -> bool {
    (name.starts_with("syncmut_") && !name.starts_with("syncmut_input_")) || name.starts_with("syncmut.") || name.contains("sc_start") || name.starts_with("pthread_")
}

fn is_thread_start(name: &str) -> bool {
    name == "syncmut_hook_pthread_create" || name == "pthread_create" || name.contains("sc_start")
}

/// Adds the global a `store` writes to `written`; a store into memory that is neither a
/// global nor the function's own stack frame makes the analysis give up (`None`).
fn record_store(i: Value, written: &mut HashSet<Value>) -> Option<()> {
    if i.opcode() == Some(Opcode::LLVMStore) {
        match underlying_global(i.operand(1)) {
            Some(g) => {
                written.insert(g);
            }
            None if is_local_slot(i.operand(1)) => {}
            None => return None,
        }
    }
    Some(())
}

fn concurrent_writes(entries: &HashMap<Func, Vec<Creation>>, roots: &[Func]) -> Option<HashSet<Value>> {
    let mut written = HashSet::new();
    // Functions reachable from thread entries.
    let mut todo: Vec<Func> = entries.keys().copied().collect();
    let mut seen: HashSet<Func> = HashSet::new();
    while let Some(f) = todo.pop() {
        if !seen.insert(f) || !f.has_body() {
            continue;
        }
        for b in f.blocks() {
            for i in b.instructions() {
                record_store(i, &mut written)?;
                if let Some(c) = i.called_function() {
                    todo.push(c);
                }
            }
        }
    }
    // Roots after the first thread creation (same block after it, or any block
    // reachable from its block).
    for r in roots {
        let mut after: Vec<Block> = Vec::new();
        for b in r.blocks() {
            let insts = b.instructions();
            if let Some(pos) = insts.iter().position(|i| i.called_function().map(|c| is_thread_start(&c.name())).unwrap_or(false)) {
                for i in &insts[pos..] {
                    record_store(*i, &mut written)?;
                }
                after.extend(b.successors());
            }
        }
        let mut seen = HashSet::new();
        while let Some(b) = after.pop() {
            if !seen.insert(b) {
                continue;
            }
            for i in b.instructions() {
                record_store(i, &mut written)?;
            }
            after.extend(b.successors());
        }
    }
    Some(written)
}

/// A pointer into the function's own stack frame (not shared with other threads
/// unless its address escapes, which the region map handles by base identity).
fn is_local_slot(mut p: Value) -> bool {
    for _ in 0..16 {
        match p.opcode() {
            Some(Opcode::LLVMAlloca) => return true,
            Some(Opcode::LLVMGetElementPtr) | Some(Opcode::LLVMBitCast) => p = p.operand(0),
            _ => return false,
        }
    }
    false
}

fn collect_functions(v: Value, out: &mut Vec<Func>, depth: u32) {
    if depth > 3 {
        return;
    }
    if let Some(f) = v.as_function() {
        if !out.contains(&f) {
            out.push(f);
        }
        return;
    }
    if v.opcode().is_some() && !v.is_instruction() {
        for k in 0..v.operand_count() {
            collect_functions(v.operand(k), out, depth + 1);
        }
    }
}

/// Edges (u, v) where v is on the DFS stack when u→v is explored.
fn back_edges(f: Func) -> HashSet<(Block, Block)> {
    let mut out = HashSet::new();
    let Some(entry) = f.entry() else { return out };
    let mut state: HashMap<Block, u8> = HashMap::new(); // 1 on stack, 2 done
    let mut stack = vec![(entry, 0usize)];
    state.insert(entry, 1);
    while let Some((b, i)) = stack.pop() {
        let succ = b.successors();
        if i < succ.len() {
            stack.push((b, i + 1));
            let s = succ[i];
            match state.get(&s) {
                Some(1) => {
                    out.insert((b, s));
                }
                Some(_) => {}
                None => {
                    state.insert(s, 1);
                    stack.push((s, 0));
                }
            }
        } else {
            state.insert(b, 2);
        }
    }
    out
}

/// Names of library functions that parse an integer from a string.
const INT_PARSERS: &[&str] = &["atoi", "atol", "atoll", "strtol", "strtoul", "strtoll", "strtoull"];
/// Maximum call-string depth.
const MAX_DEPTH: usize = 8;
/// Most elements a load through a symbolic index is expanded over.
const MAX_ELEMENTS: usize = 256;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The analysis of one site: builds its reachability formula.
pub struct Wp<'a> {
    m: &'a Module,
    facts: &'a ModuleFacts,
    ctx: &'a Context,
    frames: Vec<Frame>,
    values: HashMap<(FrameId, Value), Sym>,
    reach: HashMap<(FrameId, Block), SExpr>,
    memory: HashMap<(FrameId, Value, Loc), Sym>,
    edge_defs: HashMap<(FrameId, Value), SExpr>,
    /// The nondet call counter just before an instruction.
    counters: HashMap<(FrameId, Value), SExpr>,
    /// Whether a SystemC `wait(e)` returns, per (frame, call).
    returns: HashMap<(FrameId, Value), SExpr>,
    /// Frames created to decide whether some process notifies an event: their own
    /// blocking calls are assumed to return (one level of the process-order model).
    notifier_frames: HashSet<FrameId>,
    in_notifier: bool,
    q: Query,
    fresh_count: usize,
    bound: u32,
}

impl<'a> Wp<'a> {
    /// A fresh analysis (per site: definitions are scoped to one solver query).
    pub fn new(m: &'a Module, facts: &'a ModuleFacts, ctx: &'a Context, bound: u32) -> Self {
        Wp {
            m,
            facts,
            ctx,
            frames: Vec::new(),
            values: HashMap::new(),
            reach: HashMap::new(),
            memory: HashMap::new(),
            edge_defs: HashMap::new(),
            counters: HashMap::new(),
            returns: HashMap::new(),
            notifier_frames: HashSet::new(),
            in_notifier: false,
            q: Query {
                inputs: Inputs::default(),
                fresh: Vec::new(),
                definitions: Vec::new(),
                conjuncts: Vec::new(),
                notes: Vec::new(),
                cut: Vec::new(),
                schedule: Vec::new(),
                blocking: Vec::new(),
            },
            fresh_count: 0,
            bound,
        }
    }

    /// The formula under which `site` (a call instruction) is executed.
    pub fn site(mut self, site: Value) -> Result<Query> {
        let func = site.block().function();
        let contexts = self.contexts(func, 0, &mut Vec::new())?;
        if contexts.is_empty() {
            return Err(AnalysisError::Unsupported(format!(
                "no path from main/sc_main or a thread entry to {} (indirect call or unreferenced function): not supported yet, {}",
                func.name(),
                site.where_()
            )));
        }
        let mut alternatives = Vec::new();
        for frame in contexts {
            let here = self.reach_block(frame, site.block())?;
            let before = self.block_returns(frame, site.block(), Some(site))?;
            let up = self.frame_reach(frame)?;
            alternatives.push(self.and(vec![here, before, up]));
        }
        // One statement per process and assumption, in the order first made.
        let mut seen = HashSet::new();
        self.q.schedule.retain(|s| seen.insert(s.clone()));
        let expr = self.or(alternatives);
        self.q.conjuncts.push(Conjunct { comment: format!("the site's block is reached ({} in {})", site.where_(), demangle_hint(&func.name())), expr });
        // argc covers every argv[k] read.
        let argc = self.ctx.atom("argc");
        let max = self.q.inputs.max_index();
        let lo = self.bv_const(max as u64 + 1, 32);
        let hi = self.bv_const(64, 32);
        let c = self.ctx.and(self.app("bvuge", vec![argc, lo]), self.app("bvule", vec![argc, hi]));
        self.q.conjuncts.push(Conjunct { comment: format!("argc covers every argv[k] read (k ≤ {max}), at most 63 arguments"), expr: c });
        // At most one literal per compared argument.
        let choices: Vec<Vec<String>> = self
            .q
            .inputs
            .args
            .iter()
            .filter_map(|(k, u)| match u {
                crate::inputs::ArgUse::Choice(l) if l.len() > 1 => Some(l.iter().map(|l| crate::inputs::choice_symbol(*k, l)).collect()),
                _ => None,
            })
            .collect();
        for syms in choices {
            for i in 0..syms.len() {
                for j in i + 1..syms.len() {
                    let e = self.ctx.not(self.ctx.and(self.ctx.atom(&syms[i]), self.ctx.atom(&syms[j])));
                    self.q.conjuncts.push(Conjunct { comment: "one string cannot equal two literals".into(), expr: e });
                }
            }
        }
        Ok(self.q)
    }

    // ----- frames and contexts -----

    fn push_frame(&mut self, func: Func, kind: FrameKind, depth: usize) -> FrameId {
        self.frames.push(Frame { func, kind, depth });
        let id = self.frames.len() - 1;
        if self.in_notifier {
            self.notifier_frames.insert(id);
        }
        id
    }

    /// Every calling context of `func`, from a root through calls and thread creations.
    fn contexts(&mut self, func: Func, depth: usize, visiting: &mut Vec<Func>) -> Result<Vec<FrameId>> {
        if self.facts.roots.contains(&func) {
            return Ok(vec![self.root_frame(func)]);
        }
        if depth > MAX_DEPTH || visiting.contains(&func) {
            self.q.notes.push(format!("call chains deeper than {MAX_DEPTH} or recursive ones into {} were not followed", func.name()));
            return Ok(Vec::new());
        }
        visiting.push(func);
        let mut out = Vec::new();
        if let Some(creations) = self.facts.entries.get(&func).cloned() {
            for c in creations {
                match c {
                    Creation::Pthread { call, arg } => {
                        let creator = call.block().function();
                        for cf in self.contexts(creator, depth + 1, visiting)? {
                            let a = self.value(cf, arg)?;
                            let label = format!("pthread start routine {} created at {}", func.name(), call.where_());
                            self.q.schedule.push(format!(
                                "{label}: reads before the thread's first synchronization point see memory as at its creation (default schedule)"
                            ));
                            out.push(self.push_frame(func, FrameKind::Thread { creator: cf, point: call, args: vec![a], also: None, label }, depth));
                        }
                    }
                    Creation::Systemc { constructor } => {
                        for ctor in self.contexts(constructor, depth + 1, visiting)? {
                            let this = constructor.param(0).ok_or_else(|| AnalysisError::unsupported("constructor without this", "?"))?;
                            let this = self.value(ctor, this)?;
                            let root = self.root_of(ctor);
                            let start = self.sc_start(root)?;
                            let label = format!("SystemC process {} registered in {}", demangle_hint(&func.name()), demangle_hint(&constructor.name()));
                            self.q.schedule.push(format!(
                                "{label}: module fields at process start are their values at sc_start ({}); processes first run in registration order; a `wait(e)` on the path returns only if another process notifies e (below), other blocking calls are assumed to return",
                                start.where_()
                            ));
                            out.push(self.push_frame(func, FrameKind::Thread { creator: root, point: start, args: vec![this], also: Some(ctor), label }, depth));
                        }
                    }
                }
            }
        }
        for call in self.facts.callers.get(&func).cloned().unwrap_or_default() {
            let caller = call.block().function();
            for parent in self.contexts(caller, depth + 1, visiting)? {
                out.push(self.push_frame(func, FrameKind::Call { parent, call }, depth));
            }
        }
        visiting.pop();
        Ok(out)
    }

    fn root_frame(&mut self, func: Func) -> FrameId {
        if let Some(i) = self.frames.iter().position(|f| f.func == func && matches!(f.kind, FrameKind::Root)) {
            return i;
        }
        self.push_frame(func, FrameKind::Root, 0)
    }

    fn root_of(&self, mut f: FrameId) -> FrameId {
        loop {
            match &self.frames[f].kind {
                FrameKind::Root => return f,
                FrameKind::Call { parent, .. } => f = *parent,
                FrameKind::Thread { creator, .. } => f = *creator,
            }
        }
    }

    fn sc_start(&self, root: FrameId) -> Result<Value> {
        let f = self.frames[root].func;
        for b in f.blocks() {
            for i in b.instructions() {
                if i.called_function().map(|c| c.name().contains("sc_start")).unwrap_or(false) {
                    return Ok(i);
                }
            }
        }
        Err(AnalysisError::Unsupported(format!("SystemC design without a call to sc_start in {}: not supported yet", f.name())))
    }

    /// Condition under which the frame is entered at all.
    fn frame_reach(&mut self, f: FrameId) -> Result<SExpr> {
        match self.frames[f].kind.clone() {
            FrameKind::Root => Ok(self.ctx.true_()),
            FrameKind::Call { parent, call } => {
                let here = self.reach_block(parent, call.block())?;
                let before = self.block_returns(parent, call.block(), Some(call))?;
                let up = self.frame_reach(parent)?;
                Ok(self.and(vec![here, before, up]))
            }
            FrameKind::Thread { creator, point, also, .. } => {
                let here = self.reach_block(creator, point.block())?;
                let up = self.frame_reach(creator)?;
                let mut parts = vec![here, up];
                if let Some(a) = also {
                    parts.push(self.frame_reach(a)?);
                }
                Ok(self.and(parts))
            }
        }
    }

    fn in_thread(&self, mut f: FrameId) -> bool {
        loop {
            match &self.frames[f].kind {
                FrameKind::Root => return false,
                FrameKind::Call { parent, .. } => f = *parent,
                FrameKind::Thread { .. } => return true,
            }
        }
    }

    // ----- SystemC process order -----

    /// The SystemC process (entry function) frame `f` runs in, if any.
    fn process_of(&self, mut f: FrameId) -> Option<Func> {
        loop {
            match &self.frames[f].kind {
                FrameKind::Root => return None,
                FrameKind::Call { parent, .. } => f = *parent,
                FrameKind::Thread { also: Some(_), .. } => return Some(self.frames[f].func),
                FrameKind::Thread { .. } => return None,
            }
        }
    }

    /// The condition under which execution gets past the calls of block `b` of frame
    /// `f` (before `upto`, if given): every `__VERIFIER_assume(c)` has `c` true, and
    /// every SystemC `wait(e)` returns.
    fn block_returns(&mut self, f: FrameId, b: Block, upto: Option<Value>) -> Result<SExpr> {
        let waits_modelled = !self.notifier_frames.contains(&f) && self.process_of(f).is_some();
        let mut parts = Vec::new();
        for i in b.instructions() {
            if Some(i) == upto {
                break;
            }
            let Some(callee) = i.called_function() else { continue };
            let name = callee.name();
            if name == "__VERIFIER_assume" && !callee.has_body() {
                let (c, w) = self.bv(f, i.call_args()[0])?;
                let zero = self.bv_const(0, w);
                parts.push(self.ctx.not(self.ctx.eq(c, zero)));
            } else if let Some(k) = event_wait_arg(&name).filter(|_| waits_modelled) {
                parts.push(self.wait_returns(f, i, k)?);
            }
        }
        Ok(self.and(parts))
    }

    /// Whether the process position of `call` is its first activation: no call where
    /// the process may yield lies on any path from the process entry to it. `None`
    /// when `call` is not in the process's entry function.
    fn first_activation(&self, process: Func, call: Value) -> Option<bool> {
        let func = call.block().function();
        if func != process {
            return None;
        }
        let yields = |i: &Value| i.called_function().is_some_and(|c| may_yield(&c.name()));
        let insts = call.block().instructions();
        let pos = insts.iter().position(|i| *i == call).unwrap_or(0);
        if insts[..pos].iter().any(yields) {
            return Some(false);
        }
        let preds = &self.facts.preds[&func];
        let mut todo = preds.get(&call.block()).cloned().unwrap_or_default();
        let mut seen = HashSet::new();
        while let Some(p) = todo.pop() {
            if !seen.insert(p) {
                continue;
            }
            if p.instructions().iter().any(yields) {
                return Some(false);
            }
            todo.extend(preds.get(&p).cloned().unwrap_or_default());
        }
        Some(true)
    }

    /// When `wait(e)` (call `w`, event argument `k`) in frame `f` returns: some other
    /// process reaches a notify of the same event that the waiter does not miss. Under
    /// the kernel's fixed order, an immediate notify made in the notifier's first
    /// activation is missed by a waiter that starts waiting later (a process after it
    /// in the registration order, or a wait after a yield).
    fn wait_returns(&mut self, f: FrameId, w: Value, k: usize) -> Result<SExpr> {
        if let Some(e) = self.returns.get(&(f, w)) {
            return Ok(*e);
        }
        let waiter = self.process_of(f).expect("block_returns checked the frame is in a process");
        let event = match w.call_args().get(k).map(|a| self.value(f, *a)).transpose()? {
            Some(Sym::Ptr(loc)) => loc,
            _ => {
                self.q.schedule.push(format!("wait at {}: event not identified; assumed to return", w.where_()));
                return Ok(self.ctx.true_());
            }
        };
        let saved = self.in_notifier;
        self.in_notifier = true;
        let mut alts = Vec::new();
        let mut why = Vec::new();
        for n in self.facts.notifies.clone() {
            let Some(immediate) = n.called_function().and_then(|c| notify_kind(&c.name())) else { continue };
            let contexts = self.contexts(n.block().function(), 0, &mut Vec::new())?;
            for nf in contexts {
                let Some(notifier) = self.process_of(nf) else { continue };
                if notifier == waiter {
                    continue;
                }
                if !matches!(n.call_args().get(1).map(|a| self.value(nf, *a)), Some(Ok(Sym::Ptr(l))) if l == event) {
                    continue;
                }
                let order = |p: Func| self.facts.process_order.get(&p).copied();
                let lost = immediate
                    && self.first_activation(notifier, n) == Some(true)
                    && match self.first_activation(waiter, w) {
                        Some(false) => true,
                        Some(true) => matches!((order(notifier), order(waiter)), (Some((c1, i1)), Some((c2, i2))) if c1 == c2 && i1 < i2),
                        None => false,
                    };
                if lost {
                    why.push(format!("the immediate notify at {} runs before {} waits (process order)", n.where_(), demangle_hint(&waiter.name())));
                    continue;
                }
                let here = self.reach_block(nf, n.block())?;
                let up = self.frame_reach(nf)?;
                alts.push(self.and(vec![here, up]));
                why.push(format!("notify at {} in {}", n.where_(), demangle_hint(&notifier.name())));
            }
        }
        self.in_notifier = saved;
        let e = self.or(alts);
        let label = format!(
            "wait at {} in {} returns only if another process notifies the event after it waits: {}; the notifier's own blocking calls are assumed to return",
            w.where_(),
            demangle_hint(&waiter.name()),
            if why.is_empty() { "no notify of that event (the wait blocks forever)".to_string() } else { why.join("; ") }
        );
        self.q.schedule.push(label);
        self.q.blocking.push(w.where_());
        self.returns.insert((f, w), e);
        Ok(e)
    }

    // ----- control flow -----

    /// Condition under which block `b` of frame `f` is entered (given the frame is).
    fn reach_block(&mut self, f: FrameId, b: Block) -> Result<SExpr> {
        if let Some(e) = self.reach.get(&(f, b)) {
            return Ok(*e);
        }
        let func = self.frames[f].func;
        let e = if func.entry() == Some(b) {
            self.ctx.true_()
        } else {
            let preds = self.facts.preds[&func].get(&b).cloned().unwrap_or_default();
            let mut alts = Vec::new();
            for p in preds {
                if self.facts.back[&func].contains(&(p, b)) {
                    self.cut(p);
                    continue;
                }
                let edge = self.edge(f, p, b)?;
                let pr = self.reach_block(f, p)?;
                let through = self.block_returns(f, p, None)?;
                alts.push(self.and(vec![pr, through, edge]));
            }
            self.or(alts)
        };
        self.reach.insert((f, b), e);
        Ok(e)
    }

    /// The predecessors of block `b` of frame `f`, each with the condition of arriving
    /// from it (predecessor entered ∧ edge taken); back edges are cut, and the cut noted.
    fn incoming(&mut self, f: FrameId, b: Block) -> Result<Vec<(Block, SExpr)>> {
        let func = self.frames[f].func;
        let preds = self.facts.preds[&func].get(&b).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for p in preds {
            if self.facts.back[&func].contains(&(p, b)) {
                self.cut(p);
                continue;
            }
            let r = self.reach_block(f, p)?;
            let e = self.edge(f, p, b)?;
            out.push((p, self.and(vec![r, e])));
        }
        Ok(out)
    }

    fn cut(&mut self, p: Block) {
        let at = p.terminator().map(|t| t.where_()).unwrap_or_default();
        let msg = format!("loop at {at} iterates beyond the unroll bound {} (paths through further iterations cut)", self.bound);
        if !self.q.cut.contains(&msg) {
            self.q.cut.push(msg);
        }
    }

    /// Condition of the CFG edge p → b.
    fn edge(&mut self, f: FrameId, p: Block, b: Block) -> Result<SExpr> {
        let t = p.terminator().ok_or_else(|| AnalysisError::unsupported("block without terminator", p.name()))?;
        match t.opcode() {
            Some(Opcode::LLVMBr) if t.is_conditional_branch() => {
                let c = self.branch_condition(f, t)?;
                let (on_true, on_false) = (t.successor(0) == b, t.successor(1) == b);
                Ok(match (on_true, on_false) {
                    (true, true) => self.ctx.true_(),
                    (true, false) => c,
                    (false, true) => self.ctx.not(c),
                    _ => self.ctx.false_(),
                })
            }
            Some(Opcode::LLVMBr) => Ok(self.ctx.true_()),
            Some(Opcode::LLVMSwitch) => {
                let (x, w) = self.bv(f, t.condition())?;
                let cases = t.switch_cases();
                let mut hits = Vec::new();
                let mut all = Vec::new();
                for (v, dest) in &cases {
                    let k = self.bv_const(v.const_int().unwrap_or(0), w);
                    let eq = self.ctx.eq(x, k);
                    all.push(eq);
                    if *dest == b {
                        hits.push(eq);
                    }
                }
                if t.successor(0) == b {
                    let any = self.or(all);
                    hits.push(self.ctx.not(any));
                }
                Ok(self.or(hits))
            }
            Some(Opcode::LLVMInvoke) => {
                if t.successor(0) == b {
                    Ok(self.ctx.true_())
                } else {
                    // Unwind edge: exceptions are not modelled (no path).
                    Ok(self.ctx.false_())
                }
            }
            _ => Err(AnalysisError::unsupported(format!("terminator `{}`", t.print()), t.where_())),
        }
    }

    /// A branch condition as a named definition (so the formula file names its line).
    fn branch_condition(&mut self, f: FrameId, t: Value) -> Result<SExpr> {
        if let Some(e) = self.edge_defs.get(&(f, t)) {
            return Ok(*e);
        }
        let (c, _) = self.bv(f, t.condition())?;
        let one = self.bv_const(1, 1);
        let expr = self.ctx.eq(c, one);
        let name = format!("br{}_{}", self.q.definitions.len(), t.where_().replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
        self.q.definitions.push(Definition {
            name: name.clone(),
            sort: "Bool".into(),
            expr,
            comment: format!("branch at {} in {}", t.where_(), demangle_hint(&self.frames[f].func.name())),
        });
        let atom = self.ctx.atom(name);
        self.edge_defs.insert((f, t), atom);
        Ok(atom)
    }

    // ----- values -----

    fn bv(&mut self, f: FrameId, v: Value) -> Result<(SExpr, u32)> {
        match self.value(f, v)? {
            Sym::Bv(e, w) => Ok((e, w)),
            other => Err(AnalysisError::unsupported(format!("non-integer value {other:?} used as an integer (`{}`)", v.print()), v.where_())),
        }
    }

    fn value(&mut self, f: FrameId, v: Value) -> Result<Sym> {
        if let Some(s) = self.values.get(&(f, v)) {
            return Ok(s.clone());
        }
        let s = self.compute(f, v)?;
        self.values.insert((f, v), s.clone());
        Ok(s)
    }

    fn compute(&mut self, f: FrameId, v: Value) -> Result<Sym> {
        if let Some(k) = v.const_int() {
            let w = width(v)?;
            return Ok(Sym::Bv(self.bv_const(k, w), w));
        }
        if v.is_null_pointer() {
            return Ok(Sym::Bv(self.bv_const(0, 64), 64));
        }
        if let Some(func) = v.as_function() {
            return Ok(Sym::Func(func));
        }
        if v.is_global_variable() {
            return Ok(Sym::Ptr(Loc { base: Base::Global(v), off: 0 }));
        }
        if v.is_undef() {
            return self.fresh(v, "undefined value");
        }
        if let Some((func, i)) = v.argument_of() {
            return self.argument(f, func, i, v);
        }
        let Some(op) = v.opcode() else {
            return Err(AnalysisError::unsupported(format!("constant `{}`", v.print()), "?"));
        };
        let ctx = self.ctx;
        use Opcode::*;
        match op {
            LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor => {
                let (a, w) = self.bv(f, v.operand(0))?;
                let (b, _) = self.bv(f, v.operand(1))?;
                let name = match op {
                    LLVMAdd => "bvadd",
                    LLVMSub => "bvsub",
                    LLVMMul => "bvmul",
                    LLVMUDiv => "bvudiv",
                    LLVMSDiv => "bvsdiv",
                    LLVMURem => "bvurem",
                    LLVMSRem => "bvsrem",
                    LLVMShl => "bvshl",
                    LLVMLShr => "bvlshr",
                    LLVMAShr => "bvashr",
                    LLVMAnd => "bvand",
                    LLVMOr => "bvor",
                    _ => "bvxor",
                };
                Ok(Sym::Bv(self.app(name, vec![a, b]), w))
            }
            LLVMICmp => {
                let (name, _) = ir::predicate_smt(v.int_predicate());
                let c = match (self.value(f, v.operand(0))?, self.value(f, v.operand(1))?) {
                    (Sym::Bv(a, _), Sym::Bv(b, _)) => self.app(name, vec![a, b]),
                    (a, b) if name == "=" || name == "distinct" => {
                        let same = match (&a, &b) {
                            (Sym::Ptr(x), Sym::Ptr(y)) => x == y,
                            _ => false,
                        };
                        // A modelled pointer (global, stack slot, argv entry) is never null.
                        let known = matches!((&a, &b), (Sym::Ptr(_), Sym::Ptr(_)))
                            || matches!((&a, &b), (Sym::Ptr(_) | Sym::ArgStr(_), Sym::Bv(..)) | (Sym::Bv(..), Sym::Ptr(_) | Sym::ArgStr(_)));
                        if !known {
                            return Err(AnalysisError::unsupported(format!("pointer comparison `{}`", v.print()), v.where_()));
                        }
                        let eq = if same { ctx.true_() } else { ctx.false_() };
                        if name == "=" { eq } else { ctx.not(eq) }
                    }
                    _ => return Err(AnalysisError::unsupported(format!("comparison `{}`", v.print()), v.where_())),
                };
                Ok(Sym::Bv(self.bool_to_bv(c), 1))
            }
            LLVMSelect => {
                let (c, _) = self.bv(f, v.operand(0))?;
                let one = self.bv_const(1, 1);
                let cond = ctx.eq(c, one);
                match (self.value(f, v.operand(1))?, self.value(f, v.operand(2))?) {
                    (Sym::Bv(a, w), Sym::Bv(b, _)) => Ok(Sym::Bv(ctx.ite(cond, a, b), w)),
                    (Sym::Ptr(a), Sym::Ptr(b)) if a == b => Ok(Sym::Ptr(a)),
                    _ => Err(AnalysisError::unsupported(format!("select of pointers `{}`", v.print()), v.where_())),
                }
            }
            LLVMZExt | LLVMSExt | LLVMTrunc => {
                let (a, w) = self.bv(f, v.operand(0))?;
                let to = width(v)?;
                let e = match op {
                    LLVMTrunc => ctx.extract(to as i32 - 1, 0, a),
                    _ if to == w => a,
                    LLVMZExt => self.indexed("zero_extend", to - w, a),
                    _ => self.indexed("sign_extend", to - w, a),
                };
                Ok(Sym::Bv(e, to))
            }
            LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast => match self.value(f, v.operand(0))? {
                Sym::Bv(a, w) => {
                    let to = if v.ty().shape() == TypeShape::Pointer { 64 } else { width(v)? };
                    let e = if to == w { a } else if to < w { ctx.extract(to as i32 - 1, 0, a) } else { self.indexed("zero_extend", to - w, a) };
                    Ok(Sym::Bv(e, to))
                }
                other if op != LLVMPtrToInt => Ok(other),
                _ => Err(AnalysisError::unsupported(format!("pointer converted to an integer `{}`", v.print()), v.where_())),
            },
            LLVMPHI => self.phi(f, v),
            LLVMAlloca => Ok(Sym::Ptr(Loc { base: Base::Alloca(f, v), off: 0 })),
            LLVMGetElementPtr => self.gep(f, v),
            LLVMLoad => self.load(f, v),
            LLVMCall | LLVMInvoke => self.call(f, v),
            LLVMFreeze => self.value(f, v.operand(0)),
            _ => Err(AnalysisError::unsupported(format!("instruction `{}`", v.print()), v.where_())),
        }
    }

    fn argument(&mut self, f: FrameId, func: Func, i: u32, v: Value) -> Result<Sym> {
        if self.frames[f].func != func {
            return Err(AnalysisError::unsupported("argument of another function", v.print()));
        }
        match self.frames[f].kind.clone() {
            FrameKind::Root => match i {
                0 => {
                    let e = self.ctx.atom("argc");
                    Ok(Sym::Bv(e, 32))
                }
                1 => Ok(Sym::Ptr(Loc { base: Base::Argv, off: 0 })),
                _ => Err(AnalysisError::unsupported("third parameter of main (envp)", func.name())),
            },
            FrameKind::Call { parent, call } => {
                let a = call.call_args().get(i as usize).copied().ok_or_else(|| AnalysisError::unsupported("missing call argument", call.where_()))?;
                self.value(parent, a)
            }
            FrameKind::Thread { args, label, .. } => args.get(i as usize).cloned().ok_or_else(|| AnalysisError::unsupported(format!("parameter {i} of {label}"), func.name())),
        }
    }

    fn phi(&mut self, f: FrameId, v: Value) -> Result<Sym> {
        let b = v.block();
        let func = self.frames[f].func;
        let mut arms = Vec::new();
        for (val, p) in v.incoming() {
            if self.facts.back[&func].contains(&(p, b)) {
                self.cut(p);
                continue;
            }
            let taken = {
                let r = self.reach_block(f, p)?;
                let e = self.edge(f, p, b)?;
                self.and(vec![r, e])
            };
            arms.push((taken, self.value(f, val)?));
        }
        self.merge(arms, v)
    }

    /// `ite(c1, v1, ite(c2, v2, … vn))`.
    fn merge(&mut self, arms: Vec<(SExpr, Sym)>, at: Value) -> Result<Sym> {
        let Some((_, last)) = arms.last().cloned() else {
            return self.fresh(at, "value on a path cut by the loop bound");
        };
        let mut acc = last;
        for (c, s) in arms.into_iter().rev().skip(1) {
            acc = match (s, acc) {
                (Sym::Bv(a, w), Sym::Bv(b, _)) => Sym::Bv(self.ctx.ite(c, a, b), w),
                (Sym::Ptr(a), Sym::Ptr(b)) if a == b => Sym::Ptr(a),
                (Sym::ArgStr(a), Sym::ArgStr(b)) if a == b => Sym::ArgStr(a),
                (a, b) => return Err(AnalysisError::unsupported(format!("merge of different pointers {a:?} / {b:?} (`{}`)", at.print()), at.where_())),
            };
        }
        Ok(acc)
    }

    fn gep(&mut self, f: FrameId, v: Value) -> Result<Sym> {
        let base = self.value(f, v.operand(0))?;
        let (mut loc, mut sym) = match base {
            Sym::Ptr(loc) => (loc, None),
            Sym::PtrIdx { loc, idx, stride } => (loc, Some((idx, stride))),
            other => return Err(AnalysisError::unsupported(format!("address computed from {other:?} (`{}`)", v.print()), v.where_())),
        };
        let mut ty = v.gep_source_type();
        for k in 1..v.operand_count() {
            let idx = v.operand(k);
            // Struct field indices are always constants; array/pointer indices may not be.
            let size = if k == 1 {
                self.m.alloc_size(ty)
            } else {
                match ty.shape() {
                    TypeShape::Struct => {
                        let i = idx.const_int().unwrap_or(0) as u32;
                        loc.off += self.m.offset_of_element(ty, i) as i64;
                        ty = ty.struct_element(i);
                        continue;
                    }
                    TypeShape::Array => {
                        ty = ty.array_element();
                        self.m.alloc_size(ty)
                    }
                    _ => return Err(AnalysisError::unsupported(format!("getelementptr into `{}`", v.print()), v.where_())),
                }
            };
            match idx.const_int_signed() {
                Some(i) => loc.off += i * size as i64,
                None => {
                    let (i, w) = self.bv(f, idx)?;
                    let i64_ = if w >= 64 { i } else { self.indexed("sign_extend", 64 - w, i) };
                    let bytes = self.app("bvmul", vec![i64_, self.bv_const(size, 64)]);
                    sym = Some(match sym {
                        None => (bytes, size),
                        Some((prev, stride)) => (self.app("bvadd", vec![prev, bytes]), gcd(stride, size)),
                    });
                }
            }
        }
        Ok(match sym {
            None => Sym::Ptr(loc),
            Some((idx, stride)) => Sym::PtrIdx { loc, idx, stride: stride.max(1) },
        })
    }

    /// A load through a symbolic index: `ite(idx = o₁ − off, value at o₁, ite(…,
    /// unconstrained))` over every in-bounds element of the object.
    fn load_indexed(&mut self, f: FrameId, v: Value, loc: Loc, idx: SExpr, stride: u64) -> Result<Sym> {
        let size = match loc.base {
            Base::Global(g) => self.m.alloc_size(g.global_value_type()),
            Base::Alloca(_, a) => self.m.alloc_size(a.allocated_type()),
            Base::Opaque(_) => return self.fresh_or_ptr(v, "memory behind a pointer returned by a library function"),
            Base::Argv => return Err(AnalysisError::unsupported("argv indexed by a value computed at run time", v.where_())),
        } as i64;
        let width = self.m.alloc_size(v.ty()) as i64;
        let stride = stride as i64;
        // Element offsets o = off + k·stride (k may be negative) with 0 ≤ o ≤ size − width.
        let first = loc.off.rem_euclid(stride);
        let offsets: Vec<i64> = (0..).map(|k| first + k * stride).take_while(|o| *o + width <= size).collect();
        if offsets.len() > MAX_ELEMENTS {
            return Err(AnalysisError::unsupported(
                format!("load with a symbolic index over {} elements (at most {MAX_ELEMENTS} are modelled)", offsets.len()),
                v.where_(),
            ));
        }
        let mut arms = Vec::new();
        for o in offsets {
            let at = self.bv_const((o - loc.off) as u64, 64);
            let c = self.ctx.eq(idx, at);
            let val = self.before(f, v, Loc { base: loc.base, off: o }, v)?;
            arms.push((c, val));
        }
        // Out of bounds: undefined behaviour, any value.
        let otherwise = self.fresh_or_ptr(v, "value read out of the bounds of an array")?;
        arms.push((self.ctx.true_(), otherwise));
        self.merge(arms, v)
    }

    fn call(&mut self, f: FrameId, v: Value) -> Result<Sym> {
        let Some(callee) = v.called_function() else {
            return Err(AnalysisError::unsupported(format!("indirect call `{}`", v.print()), v.where_()));
        };
        let name = callee.name();
        let args = v.call_args();
        if INT_PARSERS.contains(&name.as_str()) {
            if let Some(Sym::ArgStr(k)) = args.first().map(|a| self.value(f, *a)).transpose()? {
                let w = width(v)?;
                let sym = self.q.inputs.int(k, w)?;
                if name.starts_with("strto") {
                    if let Some(base) = args.get(2).and_then(|b| b.const_int()) {
                        if base != 10 && base != 0 {
                            return Err(AnalysisError::unsupported(format!("{name} with base {base}: not supported yet"), v.where_()));
                        }
                    }
                }
                let e = self.ctx.atom(sym);
                return Ok(Sym::Bv(e, w));
            }
        }
        if name == "strcmp" || name == "strncmp" {
            let a = self.value(f, args[0])?;
            let b = self.value(f, args[1])?;
            let (k, lit) = match (&a, &b) {
                (Sym::ArgStr(k), Sym::Ptr(Loc { base: Base::Global(g), off: 0 })) | (Sym::Ptr(Loc { base: Base::Global(g), off: 0 }), Sym::ArgStr(k)) => {
                    (*k, g.c_string())
                }
                _ => (0, None),
            };
            if let Some(lit) = lit {
                if name == "strncmp" {
                    let n = args.get(2).and_then(|n| n.const_int());
                    if n.map(|n| (n as usize) < lit.len() + 1).unwrap_or(true) {
                        return Err(AnalysisError::unsupported("strncmp of a prefix: not supported yet", v.where_()));
                    }
                }
                let sym = self.q.inputs.choice(k, &lit)?;
                self.q.notes.push(format!("{name}(argv[{k}], \"{lit}\") modelled as 0 when equal, 1 otherwise ({})", v.where_()));
                let eq = self.ctx.atom(sym);
                let zero = self.bv_const(0, 32);
                let one = self.bv_const(1, 32);
                return Ok(Sym::Bv(self.ctx.ite(eq, zero, one), 32));
            }
        }
        if let Some(ty) = nondet_type(callee) {
            return self.nondet_value(f, v, &ty);
        }
        if name == "syncmut_input_int" || name == "syncmut_input_bool" {
            return self.named_input(f, v, &name);
        }
        if callee.has_body() && self.frames[f].depth < MAX_DEPTH {
            return self.return_value(f, v, callee);
        }
        // No body: a fresh, unconstrained result.
        match v.ty().shape() {
            TypeShape::Int(_) => {
                self.q.notes.push(format!("over-approximated: result of {} at {}", demangle_hint(&name), v.where_()));
                self.fresh(v, "result of a function without a body")
            }
            TypeShape::Pointer => Ok(Sym::Ptr(Loc { base: Base::Opaque(v), off: 0 })),
            _ => Err(AnalysisError::unsupported(format!("result of {} (`{}`)", demangle_hint(&name), v.print()), v.where_())),
        }
    }

    // ----- inputs read through calls -----

    /// `__VERIFIER_nondet_<ty>()`: the value at the list position given by the call
    /// counter just before the call (see `inputs`).
    fn nondet_value(&mut self, f: FrameId, v: Value, ty: &str) -> Result<Sym> {
        let TypeShape::Int(w) = v.ty().shape() else {
            return Err(AnalysisError::unsupported(format!("__VERIFIER_nondet_{ty}() (only integer types are modelled)"), v.where_()));
        };
        if w > 64 {
            return Err(AnalysisError::unsupported(format!("__VERIFIER_nondet_{ty}() of {w} bits (at most 64 are modelled)"), v.where_()));
        }
        let position = self.counter_before(f, v)?;
        let i = self.q.inputs.nondet_call(ty, w);
        let idx = self.ctx.atom(crate::inputs::nondet_index_symbol(i));
        let val = self.ctx.atom(crate::inputs::nondet_value_symbol(i));
        let limit = self.bv_const(crate::inputs::MAX_NONDET as u64, 32);
        let e = self.ctx.and(self.ctx.eq(idx, position), self.app("bvult", vec![idx, limit]));
        self.q.conjuncts.push(Conjunct {
            comment: format!("__VERIFIER_nondet_{ty}() at {} reads the value at list position ndi{i} (the calls before it on the path)", v.where_()),
            expr: e,
        });
        for j in 0..i {
            let other_idx = self.ctx.atom(crate::inputs::nondet_index_symbol(j));
            let other_val = self.ctx.atom(crate::inputs::nondet_value_symbol(j));
            let same = self.ctx.imp(self.ctx.eq(idx, other_idx), self.ctx.eq(val, other_val));
            self.q.conjuncts.push(Conjunct { comment: format!("one list position holds one value (nd{i}, nd{j})"), expr: same });
        }
        let e = if w == 64 { val } else { self.ctx.extract(w as i32 - 1, 0, val) };
        Ok(Sym::Bv(e, w))
    }

    /// `syncmut_input_int(name, lo, hi)` / `syncmut_input_bool(name)`: one symbol per
    /// name, within the range it is read with.
    fn named_input(&mut self, f: FrameId, v: Value, func: &str) -> Result<Sym> {
        let args = v.call_args();
        let name = match args.first().map(|a| self.value(f, *a)).transpose()? {
            Some(Sym::Ptr(Loc { base: Base::Global(g), off: 0 })) => g.c_string(),
            _ => None,
        };
        let Some(name) = name else {
            return Err(AnalysisError::unsupported(format!("{func} with a name that is not a string literal"), v.where_()));
        };
        let range = if func == "syncmut_input_bool" {
            Some((0, 1))
        } else {
            args.get(1).and_then(|a| a.const_int_signed()).zip(args.get(2).and_then(|a| a.const_int_signed()))
        };
        let sym = self.q.inputs.named_input(&name, range)?;
        let x = self.ctx.atom(sym);
        let (lo, hi) = if func == "syncmut_input_bool" {
            (self.bv_const(0, 32), self.bv_const(1, 32))
        } else {
            let (lo, _) = self.bv(f, args[1])?;
            let (hi, _) = self.bv(f, args[2])?;
            (lo, hi)
        };
        let e = self.ctx.and(self.app("bvsle", vec![lo, x]), self.app("bvsle", vec![x, hi]));
        self.q.conjuncts.push(Conjunct { comment: format!("named input \"{name}\" within its range ({})", v.where_()), expr: e });
        Ok(Sym::Bv(x, 32))
    }

    /// The number of nondet calls made before instruction `at` of frame `f` (32 bits).
    fn counter_before(&mut self, f: FrameId, at: Value) -> Result<SExpr> {
        if let Some(e) = self.counters.get(&(f, at)) {
            return Ok(*e);
        }
        let e = self.counter_before_uncached(f, at)?;
        self.counters.insert((f, at), e);
        Ok(e)
    }

    fn counter_before_uncached(&mut self, f: FrameId, at: Value) -> Result<SExpr> {
        let b = at.block();
        let insts = b.instructions();
        let pos = insts.iter().position(|i| *i == at).unwrap_or(insts.len());
        if let Some(j) = insts[..pos].iter().rev().find(|j| self.counts_nondet(f, **j)) {
            return self.counter_after(f, *j);
        }
        let func = self.frames[f].func;
        if func.entry() == Some(b) {
            return match self.frames[f].kind.clone() {
                FrameKind::Root => Ok(self.bv_const(0, 32)),
                FrameKind::Call { parent, call } => self.counter_before(parent, call),
                FrameKind::Thread { .. } if self.facts.concurrent_nondet => Ok(self.unknown_counter(at, "at the entry of a thread or process")),
                FrameKind::Thread { creator, point, .. } => self.counter_before(creator, point),
            };
        }
        let mut arms = Vec::new();
        for (p, taken) in self.incoming(f, b)? {
            let t = p.terminator().expect("predecessor has a terminator");
            let val = if self.counts_nondet(f, t) { self.counter_after(f, t)? } else { self.counter_before(f, t)? };
            arms.push((taken, val));
        }
        let Some((_, mut acc)) = arms.pop() else {
            return Ok(self.unknown_counter(at, "on a path cut by the loop bound"));
        };
        for (c, v) in arms.into_iter().rev() {
            acc = self.ctx.ite(c, v, acc);
        }
        Ok(acc)
    }

    /// Whether call `j` may change the nondet call counter.
    fn counts_nondet(&self, f: FrameId, j: Value) -> bool {
        let Some(callee) = j.called_function() else { return false };
        if nondet_type(callee).is_some() || self.facts.nondet_callers.contains(&callee) {
            return true;
        }
        let name = callee.name();
        self.facts.concurrent_nondet && is_scheduling_call(&name) && (self.in_thread(f) || is_thread_start(&name))
    }

    /// The counter just after call `j` (one that [`Self::counts_nondet`]).
    fn counter_after(&mut self, f: FrameId, j: Value) -> Result<SExpr> {
        let callee = j.called_function().expect("counts_nondet checked the callee");
        if nondet_type(callee).is_some() {
            let before = self.counter_before(f, j)?;
            let one = self.bv_const(1, 32);
            return Ok(self.app("bvadd", vec![before, one]));
        }
        if !self.facts.nondet_callers.contains(&callee) || !callee.has_body() || self.frames[f].depth >= MAX_DEPTH {
            return Ok(self.unknown_counter(j, "after a synchronization point (other threads may call __VERIFIER_nondet_*)"));
        }
        let depth = self.frames[f].depth + 1;
        let child = self.push_frame(callee, FrameKind::Call { parent: f, call: j }, depth);
        let mut arms = Vec::new();
        for b in callee.blocks() {
            let Some(t) = b.terminator() else { continue };
            if t.opcode() != Some(Opcode::LLVMRet) {
                continue;
            }
            let r = self.reach_block(child, b)?;
            let v = self.counter_before(child, t)?;
            arms.push((r, v));
        }
        let Some((_, mut acc)) = arms.pop() else {
            return Ok(self.unknown_counter(j, "after a call that does not return"));
        };
        for (c, v) in arms.into_iter().rev() {
            acc = self.ctx.ite(c, v, acc);
        }
        Ok(acc)
    }

    /// A fresh counter value, with a note: the positions a formula then picks for its
    /// nondet calls are a guess that execution confirms or not.
    fn unknown_counter(&mut self, at: Value, why: &str) -> SExpr {
        let name = format!("ndcount{}_{}", self.fresh_count, at.where_().replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
        self.fresh_count += 1;
        self.q.fresh.push((name.clone(), "(_ BitVec 32)".to_string()));
        let note = format!("over-approximated: number of __VERIFIER_nondet_* calls made {why} at {}", at.where_());
        if !self.q.notes.contains(&note) {
            self.q.notes.push(note);
        }
        self.ctx.atom(name)
    }

    fn return_value(&mut self, f: FrameId, call: Value, callee: Func) -> Result<Sym> {
        let depth = self.frames[f].depth + 1;
        let child = self.push_frame(callee, FrameKind::Call { parent: f, call }, depth);
        let mut arms = Vec::new();
        for b in callee.blocks() {
            let Some(t) = b.terminator() else { continue };
            if t.opcode() != Some(Opcode::LLVMRet) || t.operand_count() == 0 {
                continue;
            }
            let r = self.reach_block(child, b)?;
            let val = self.value(child, t.operand(0))?;
            arms.push((r, val));
        }
        self.merge(arms, call)
    }

    // ----- memory -----

    fn load(&mut self, f: FrameId, v: Value) -> Result<Sym> {
        let p = self.value(f, v.operand(0))?;
        if let Sym::PtrIdx { loc, idx, stride } = p {
            return self.load_indexed(f, v, loc, idx, stride);
        }
        let Sym::Ptr(loc) = p else {
            return Err(AnalysisError::unsupported(format!("load through {p:?} (`{}`)", v.print()), v.where_()));
        };
        if loc.base == Base::Argv {
            if loc.off % 8 != 0 {
                return Err(AnalysisError::unsupported("unaligned argv access", v.where_()));
            }
            return Ok(Sym::ArgStr((loc.off / 8) as u32));
        }
        if let Base::Opaque(_) = loc.base {
            return self.fresh_or_ptr(v, "memory behind a pointer returned by a library function");
        }
        self.before(f, v, loc, v)
    }

    /// Value of `loc` just before instruction `at` in frame `f`; `load` is the load
    /// being resolved (for its type and messages).
    fn before(&mut self, f: FrameId, at: Value, loc: Loc, load: Value) -> Result<Sym> {
        if let Some(s) = self.memory.get(&(f, at, loc)) {
            return Ok(s.clone());
        }
        let s = self.before_uncached(f, at, loc, load)?;
        self.memory.insert((f, at, loc), s.clone());
        Ok(s)
    }

    fn before_uncached(&mut self, f: FrameId, at: Value, loc: Loc, load: Value) -> Result<Sym> {
        let b = at.block();
        let insts = b.instructions();
        let pos = insts.iter().position(|i| *i == at).unwrap_or(insts.len());
        for &j in insts[..pos].iter().rev() {
            match j.opcode() {
                Some(Opcode::LLVMStore) => match self.value(f, j.operand(1)) {
                    Ok(Sym::Ptr(l)) if l == loc => {
                        let stored = self.value(f, j.operand(0))?;
                        return self.fit(stored, load);
                    }
                    // A store through a symbolic index writes `loc` when the index
                    // points there; otherwise `loc` keeps its earlier value.
                    Ok(Sym::PtrIdx { loc: l, idx, stride }) if l.base == loc.base && (loc.off - l.off).rem_euclid(stride as i64) == 0 => {
                        let stored = self.value(f, j.operand(0))?;
                        let stored = self.fit(stored, load)?;
                        let earlier = self.before(f, j, loc, load)?;
                        let at = self.bv_const((loc.off - l.off) as u64, 64);
                        let hit = self.ctx.eq(idx, at);
                        return self.merge(vec![(hit, stored), (self.ctx.true_(), earlier)], load);
                    }
                    _ => {}
                },
                Some(Opcode::LLVMCall) | Some(Opcode::LLVMInvoke) => {
                    if let Some(s) = self.through_call(f, j, loc, load)? {
                        return Ok(s);
                    }
                }
                _ => {}
            }
        }
        // Block start: merge over predecessors, or leave the function.
        let func = self.frames[f].func;
        if func.entry() == Some(b) {
            return self.at_entry(f, loc, load);
        }
        let mut arms = Vec::new();
        for (p, taken) in self.incoming(f, b)? {
            let t = p.terminator().expect("predecessor has a terminator");
            // The predecessor's terminator itself may be an invoke that writes.
            let val = match t.opcode() {
                Some(Opcode::LLVMInvoke) => match self.through_call(f, t, loc, load)? {
                    Some(s) => s,
                    None => self.before(f, t, loc, load)?,
                },
                _ => self.before(f, t, loc, load)?,
            };
            arms.push((taken, val));
        }
        self.merge(arms, load)
    }

    /// The effect of call `j` on `loc`: `Some(value after the call)` if it may write it.
    fn through_call(&mut self, f: FrameId, j: Value, loc: Loc, load: Value) -> Result<Option<Sym>> {
        let Some(callee) = j.called_function() else {
            return Ok(Some(self.fresh_or_ptr(load, "memory after an indirect call")?));
        };
        let name = callee.name();
        if name.starts_with("llvm.") {
            if name.starts_with("llvm.memcpy") || name.starts_with("llvm.memset") || name.starts_with("llvm.memmove") {
                if let Ok(Sym::Ptr(l)) = self.value(f, j.operand(0)) {
                    if l.base == loc.base {
                        return Err(AnalysisError::unsupported(format!("{name} over a modelled object"), j.where_()));
                    }
                }
            }
            return Ok(None);
        }
        let scheduling = is_scheduling_call(&name);
        let shared_and_quiet = matches!(loc.base, Base::Global(g) if !self.facts.concurrently_written(g));
        if scheduling && !shared_and_quiet && (self.in_thread(f) || name.contains("pthread_create") || name.contains("sc_start")) {
            self.q.notes.push(format!(
                "over-approximated: value of memory read at {} after the synchronization point at {} (other threads may write it)",
                load.where_(),
                j.where_()
            ));
            return Ok(Some(self.fresh_or_ptr(load, "memory after a synchronization point")?));
        }
        if !callee.has_body() || self.frames[f].depth >= MAX_DEPTH {
            // Library functions are assumed not to write program objects.
            return Ok(None);
        }
        // Only look into callees that can see the object: a global, or a pointer
        // argument to the same object.
        let sees = matches!(loc.base, Base::Global(_))
            || j.call_args().iter().any(|a| matches!(self.value(f, *a), Ok(Sym::Ptr(l) | Sym::PtrIdx { loc: l, .. }) if l.base == loc.base));
        if !sees {
            return Ok(None);
        }
        let depth = self.frames[f].depth + 1;
        let child = self.push_frame(callee, FrameKind::Call { parent: f, call: j }, depth);
        let mut arms = Vec::new();
        for b in callee.blocks() {
            let Some(t) = b.terminator() else { continue };
            if t.opcode() != Some(Opcode::LLVMRet) {
                continue;
            }
            let r = self.reach_block(child, b)?;
            let val = self.before(child, t, loc, load)?;
            arms.push((r, val));
        }
        if arms.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.merge(arms, load)?))
    }

    /// Value of `loc` at the entry of frame `f`.
    fn at_entry(&mut self, f: FrameId, loc: Loc, load: Value) -> Result<Sym> {
        match self.frames[f].kind.clone() {
            FrameKind::Call { parent, call } => self.before(parent, call, loc, load),
            FrameKind::Thread { creator, point, .. } => self.before(creator, point, loc, load),
            FrameKind::Root => match loc.base {
                Base::Global(g) => self.initial(g, loc.off, load),
                _ => self.fresh_or_ptr(load, "uninitialised memory"),
            },
        }
    }

    /// The initializer of global `g` at byte offset `off`, as the load's type.
    fn initial(&mut self, g: Value, off: i64, load: Value) -> Result<Sym> {
        let Some(mut init) = g.initializer() else {
            return self.fresh_or_ptr(load, "external global");
        };
        let mut ty = init.ty();
        let mut off = off;
        loop {
            if init.is_zero_initializer() || init.is_null_pointer() {
                let w = match load.ty().shape() {
                    TypeShape::Int(w) => w,
                    TypeShape::Pointer => 64,
                    _ => return Err(AnalysisError::unsupported("load of an aggregate", load.where_())),
                };
                return Ok(Sym::Bv(self.bv_const(0, w), w));
            }
            if off == 0 && (init.const_int().is_some() || init.as_function().is_some() || init.is_global_variable()) {
                let s = self.value(0, init)?;
                return self.fit(s, load);
            }
            match ty.shape() {
                TypeShape::Struct => {
                    let mut k = 0u32;
                    loop {
                        let next = self.m.offset_of_element(ty, k + 1);
                        if init.aggregate_element(k + 1).is_none() || next as i64 > off {
                            break;
                        }
                        k += 1;
                    }
                    off -= self.m.offset_of_element(ty, k) as i64;
                    ty = ty.struct_element(k);
                    init = init.aggregate_element(k).ok_or_else(|| AnalysisError::unsupported("global initializer", g.name()))?;
                }
                TypeShape::Array => {
                    let et = ty.array_element();
                    let size = self.m.alloc_size(et).max(1) as i64;
                    let k = (off / size) as u32;
                    off %= size;
                    ty = et;
                    init = init.aggregate_element(k).ok_or_else(|| AnalysisError::unsupported("global initializer", g.name()))?;
                }
                _ => return Err(AnalysisError::unsupported(format!("initializer of {} at offset {off}", g.name()), load.where_())),
            }
        }
    }

    /// Checks a stored value against the load's type.
    fn fit(&mut self, s: Sym, load: Value) -> Result<Sym> {
        match (&s, load.ty().shape()) {
            (Sym::Bv(_, w), TypeShape::Int(lw)) if *w == lw => Ok(s),
            (Sym::Bv(e, w), TypeShape::Int(lw)) if *w > lw => Ok(Sym::Bv(self.ctx.extract(lw as i32 - 1, 0, *e), lw)),
            (Sym::Bv(..), TypeShape::Int(_)) => Err(AnalysisError::unsupported("load wider than the stored value", load.where_())),
            (_, TypeShape::Pointer) => Ok(s),
            _ => Err(AnalysisError::unsupported(format!("load of {s:?} (`{}`)", load.print()), load.where_())),
        }
    }

    fn fresh_or_ptr(&mut self, load: Value, why: &str) -> Result<Sym> {
        match load.ty().shape() {
            TypeShape::Pointer => Ok(Sym::Ptr(Loc { base: Base::Opaque(load), off: 0 })),
            _ => self.fresh(load, why),
        }
    }

    fn fresh(&mut self, at: Value, why: &str) -> Result<Sym> {
        let w = match at.ty().shape() {
            TypeShape::Int(w) => w,
            TypeShape::Pointer => 64,
            _ => return Err(AnalysisError::unsupported(format!("{why} of type other than integer (`{}`)", at.print()), at.where_())),
        };
        let name = format!("fresh{}_{}", self.fresh_count, at.where_().replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
        self.fresh_count += 1;
        self.q.fresh.push((name.clone(), format!("(_ BitVec {w})")));
        let note = format!("over-approximated: {why} at {}", at.where_());
        if !self.q.notes.contains(&note) {
            self.q.notes.push(note);
        }
        Ok(Sym::Bv(self.ctx.atom(name), w))
    }

    // ----- term helpers -----

    fn app(&self, op: &str, args: Vec<SExpr>) -> SExpr {
        let mut l = vec![self.ctx.atom(op)];
        l.extend(args);
        self.ctx.list(l)
    }

    fn indexed(&self, op: &str, n: u32, a: SExpr) -> SExpr {
        let head = self.ctx.list(vec![self.ctx.atom("_"), self.ctx.atom(op), self.ctx.numeral(n)]);
        self.ctx.list(vec![head, a])
    }

    fn bv_const(&self, v: u64, w: u32) -> SExpr {
        let v = if w >= 64 { v } else { v & ((1u64 << w) - 1) };
        self.ctx.list(vec![self.ctx.atom("_"), self.ctx.atom(format!("bv{v}")), self.ctx.numeral(w)])
    }

    fn bool_to_bv(&self, c: SExpr) -> SExpr {
        self.ctx.ite(c, self.bv_const(1, 1), self.bv_const(0, 1))
    }

    fn and(&self, parts: Vec<SExpr>) -> SExpr {
        let t = self.ctx.true_();
        let f = self.ctx.false_();
        let parts: Vec<SExpr> = parts.into_iter().filter(|p| *p != t).collect();
        if parts.contains(&f) {
            return f;
        }
        match parts.len() {
            0 => t,
            1 => parts[0],
            _ => self.ctx.and_many(parts),
        }
    }

    fn or(&self, parts: Vec<SExpr>) -> SExpr {
        let t = self.ctx.true_();
        let f = self.ctx.false_();
        let parts: Vec<SExpr> = parts.into_iter().filter(|p| *p != f).collect();
        if parts.contains(&t) {
            return t;
        }
        match parts.len() {
            0 => f,
            1 => parts[0],
            _ => self.ctx.or_many(parts),
        }
    }
}

fn width(v: Value) -> Result<u32> {
    match v.ty().shape() {
        TypeShape::Int(w) => Ok(w),
        TypeShape::Pointer => Ok(64),
        _ => Err(AnalysisError::unsupported(format!("value of non-integer type `{}`", v.print()), v.where_())),
    }
}

/// A short readable form of a mangled name (`_ZN3top2t1Ev` → `top::t1`).
pub fn demangle_hint(name: &str) -> String {
    let Some(rest) = name.strip_prefix("_ZN") else { return name.to_string() };
    let mut parts = Vec::new();
    let mut s = rest;
    while let Some(d) = s.find(|c: char| !c.is_ascii_digit()) {
        if d == 0 {
            break;
        }
        let n: usize = s[..d].parse().unwrap_or(0);
        if s.len() < d + n {
            break;
        }
        parts.push(&s[d..d + n]);
        s = &s[d + n..];
    }
    if parts.is_empty() {
        name.to_string()
    } else {
        parts.join("::")
    }
}
