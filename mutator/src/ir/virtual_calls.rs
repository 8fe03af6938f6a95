//! Virtual calls as clang emits them, read and redirected through the C API for
//! `crate::devirtualize`: the callee loaded from slot k of the vtable loaded from the
//! object's first word, the object the call is made on, and the entries of a vtable the
//! module defines.

use super::take_str;
use inkwell::llvm_sys::core as llvm;
use inkwell::llvm_sys::prelude::{LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMOpcode, LLVMTypeKind};
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue, InstructionValue};
use std::collections::BTreeSet;

/// `call %f(ptr %obj, …)` where `%f = load (gep ptr, (load %obj), k)`.
pub struct VirtualCall<'ctx> {
    pub inst: InstructionValue<'ctx>,
    /// The object the vtable pointer is read from, which is also the call's `this`
    /// (casts stripped).
    object: LLVMValueRef,
    /// The entry of the virtual-function table the callee is read from.
    pub slot: u64,
    /// The callee's load, the slot's address (when not slot 0) and the vtable's load.
    chain: Vec<LLVMValueRef>,
}

/// What a virtual call's object is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Object {
    /// A complete object of the named LLVM struct type (`class.sc_core::sc_mutex`): an
    /// array element, a data member, a global or a local of that type, whose dynamic
    /// type is therefore that class.
    Complete(String),
    /// An address computed from what the named function returned (a port's
    /// `operator->`).
    Returned(String),
    /// Anything else: a pointer or reference whose dynamic type is not known here.
    Unknown,
}

/// The virtual-call shape of a `call`/`invoke`, if it has it.
pub fn virtual_call(inst: InstructionValue<'_>) -> Option<VirtualCall<'_>> {
    // SAFETY: `inst` is a live call or invoke (the caller checks `is_call_like`); only
    // LLVMIsA* checks precede reading the operands each instruction kind has.
    unsafe {
        let raw = inst.as_value_ref();
        if llvm::LLVMGetNumArgOperands(raw) == 0 {
            return None;
        }
        let callee = llvm::LLVMGetCalledValue(raw);
        if callee.is_null() || llvm::LLVMIsALoadInst(callee).is_null() {
            return None;
        }
        let mut chain = vec![callee];
        let address = llvm::LLVMGetOperand(callee, 0);
        let (vtable, slot) = if !llvm::LLVMIsAGetElementPtrInst(address).is_null() {
            chain.push(address);
            (llvm::LLVMGetOperand(address, 0), slot_of(address)?)
        } else {
            (address, 0)
        };
        if llvm::LLVMIsALoadInst(vtable).is_null() {
            return None;
        }
        chain.push(vtable);
        let holder = strip_casts(llvm::LLVMGetOperand(vtable, 0));
        let this = strip_casts(llvm::LLVMGetOperand(raw, 0));
        (holder == this).then_some(VirtualCall {
            inst,
            object: this,
            slot,
            chain,
        })
    }
}

/// The slot a `getelementptr ptr, %vtable, k` (or `i8`, 8·k) addresses.
unsafe fn slot_of(gep: LLVMValueRef) -> Option<u64> {
    if llvm::LLVMGetNumOperands(gep) != 2 {
        return None;
    }
    let index = llvm::LLVMGetOperand(gep, 1);
    if llvm::LLVMIsAConstantInt(index).is_null() {
        return None;
    }
    let k = u64::try_from(llvm::LLVMConstIntGetSExtValue(index)).ok()?;
    let element = llvm::LLVMGetGEPSourceElementType(gep);
    match llvm::LLVMGetTypeKind(element) {
        LLVMTypeKind::LLVMPointerTypeKind => Some(k),
        LLVMTypeKind::LLVMIntegerTypeKind
            if llvm::LLVMGetIntTypeWidth(element) == 8 && k.is_multiple_of(8) =>
        {
            Some(k / 8)
        }
        _ => None,
    }
}

unsafe fn strip_casts(mut v: LLVMValueRef) -> LLVMValueRef {
    for _ in 0..16 {
        let cast = !llvm::LLVMIsABitCastInst(v).is_null()
            || !llvm::LLVMIsAAddrSpaceCastInst(v).is_null()
            || (!llvm::LLVMIsAConstantExpr(v).is_null()
                && matches!(
                    llvm::LLVMGetConstOpcode(v),
                    LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast
                ));
        if !cast {
            break;
        }
        v = llvm::LLVMGetOperand(v, 0);
    }
    v
}

impl VirtualCall<'_> {
    /// What the call is made on.
    pub fn object(&self) -> Object {
        // SAFETY: type and operand queries on a live value, each after the LLVMIsA*
        // check that makes it valid.
        unsafe { object_of(self.object) }
    }
}

/// Where an object lies, for reading its declared type from the debug info: a global
/// variable or an object of a struct type, then the steps into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathRoot {
    Global(String),
    /// The LLVM struct type the outermost step is a field of.
    Struct(String),
}

/// One step of an access path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The field at this byte offset of a struct.
    Field(u64),
    /// An element of an array.
    Element,
}

impl VirtualCall<'_> {
    /// The object's access path: the chain of GEPs that computes it from a global, or
    /// from a pointer to a struct whose field it enters; `None` for any other shape.
    pub fn access_path(&self, module: &Module<'_>) -> Option<(PathRoot, Vec<Step>)> {
        // SAFETY: type, operand and layout queries on live values of `module`, each
        // after the LLVMIsA* check that makes it valid.
        unsafe {
            let layout = inkwell::llvm_sys::target::LLVMGetModuleDataLayout(module.as_mut_ptr());
            let mut steps = Vec::new();
            let mut v = self.object;
            let mut outer: Option<LLVMValueRef> = None;
            for _ in 0..16 {
                if !is_gep(v) {
                    break;
                }
                let mut ty = llvm::LLVMGetGEPSourceElementType(v);
                let mut own = Vec::new();
                for i in 2..llvm::LLVMGetNumOperands(v) as u32 {
                    match llvm::LLVMGetTypeKind(ty) {
                        LLVMTypeKind::LLVMArrayTypeKind => {
                            own.push(Step::Element);
                            ty = llvm::LLVMGetElementType(ty);
                        }
                        LLVMTypeKind::LLVMStructTypeKind => {
                            let index = llvm::LLVMGetOperand(v, i);
                            if llvm::LLVMIsAConstantInt(index).is_null() {
                                return None;
                            }
                            let field = llvm::LLVMConstIntGetZExtValue(index) as u32;
                            own.push(Step::Field(inkwell::llvm_sys::target::LLVMOffsetOfElement(
                                layout, ty, field,
                            )));
                            ty = llvm::LLVMStructGetTypeAtIndex(ty, field);
                        }
                        _ => return None,
                    }
                }
                own.append(&mut steps);
                steps = own;
                outer = Some(v);
                v = strip_casts(llvm::LLVMGetOperand(v, 0));
            }
            let outer = outer?;
            let first = llvm::LLVMGetOperand(outer, 1);
            let at_start = !llvm::LLVMIsAConstantInt(first).is_null()
                && llvm::LLVMConstIntGetZExtValue(first) == 0;
            if !llvm::LLVMIsAGlobalVariable(v).is_null() && at_start {
                return Some((PathRoot::Global(value_name(v)), steps));
            }
            let source = llvm::LLVMGetGEPSourceElementType(outer);
            let name = struct_name(source)?;
            Some((PathRoot::Struct(name), steps))
        }
    }
}

unsafe fn is_gep(v: LLVMValueRef) -> bool {
    !llvm::LLVMIsAGetElementPtrInst(v).is_null()
        || (!llvm::LLVMIsAConstantExpr(v).is_null()
            && llvm::LLVMGetConstOpcode(v) == LLVMOpcode::LLVMGetElementPtr)
}

unsafe fn object_of(v: LLVMValueRef) -> Object {
    if is_gep(v) {
        if let Some(name) = gep_element(v).and_then(|t| struct_name(t)) {
            return Object::Complete(name);
        }
    } else if !llvm::LLVMIsAGlobalVariable(v).is_null() {
        if let Some(name) = first_element(llvm::LLVMGlobalGetValueType(v)) {
            return Object::Complete(name);
        }
    } else if !llvm::LLVMIsAAllocaInst(v).is_null() {
        if let Some(name) = first_element(llvm::LLVMGetAllocatedType(v)) {
            return Object::Complete(name);
        }
    }
    // An address computed from a call's result (`port->` adds the interface's offset).
    let mut base = v;
    for _ in 0..16 {
        if !is_gep(base) {
            break;
        }
        base = strip_casts(llvm::LLVMGetOperand(base, 0));
    }
    if !llvm::LLVMIsACallInst(base).is_null() || !llvm::LLVMIsAInvokeInst(base).is_null() {
        let callee = llvm::LLVMGetCalledValue(base);
        if !callee.is_null() && !llvm::LLVMIsAFunction(callee).is_null() {
            return Object::Returned(value_name(callee));
        }
    }
    Object::Unknown
}

/// The type a GEP's last index selects when that index steps into an aggregate (an
/// array's element, a struct's field); `None` for plain pointer arithmetic
/// (`p + i` on a `Base*` may point into a derived object).
unsafe fn gep_element(gep: LLVMValueRef) -> Option<LLVMTypeRef> {
    let operands = llvm::LLVMGetNumOperands(gep) as u32;
    if operands < 3 {
        return None;
    }
    let mut ty = llvm::LLVMGetGEPSourceElementType(gep);
    for i in 2..operands {
        ty = match llvm::LLVMGetTypeKind(ty) {
            LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                llvm::LLVMGetElementType(ty)
            }
            LLVMTypeKind::LLVMStructTypeKind => {
                let index = llvm::LLVMGetOperand(gep, i);
                if llvm::LLVMIsAConstantInt(index).is_null() {
                    return None;
                }
                let field = llvm::LLVMConstIntGetZExtValue(index) as u32;
                if field >= llvm::LLVMCountStructElementTypes(ty) {
                    return None;
                }
                llvm::LLVMStructGetTypeAtIndex(ty, field)
            }
            _ => return None,
        };
    }
    Some(ty)
}

/// The object at offset 0 of a variable of type `ty`: the variable itself, or the first
/// element of an array (of arrays). A struct's first field is not looked into: it may
/// be a base class's subobject.
unsafe fn first_element(mut ty: LLVMTypeRef) -> Option<String> {
    while llvm::LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMArrayTypeKind {
        ty = llvm::LLVMGetElementType(ty);
    }
    struct_name(ty)
}

unsafe fn struct_name(ty: LLVMTypeRef) -> Option<String> {
    if llvm::LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMStructTypeKind {
        return None;
    }
    let name = llvm::LLVMGetStructName(ty);
    if name.is_null() {
        return None;
    }
    Some(
        std::ffi::CStr::from_ptr(name)
            .to_string_lossy()
            .into_owned(),
    )
}

unsafe fn value_name(v: LLVMValueRef) -> String {
    take_str(|len| {
        let mut n = 0usize;
        let p = llvm::LLVMGetValueName2(v, &mut n);
        *len = n as u32;
        p
    })
}

/// A vtable global as the module has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModuleVtable {
    Absent,
    /// Declared, defined in a library.
    Declared,
    /// The first (primary) group's words: the named global each refers to, `None` for
    /// offsets and null entries.
    Defined(Vec<Option<String>>),
}

/// The vtable `symbol` in the module.
pub fn module_vtable(module: &Module<'_>, symbol: &str) -> ModuleVtable {
    let Some(global) = module.get_global(symbol) else {
        return ModuleVtable::Absent;
    };
    // SAFETY: the initializer of a live global definition and its constant operands;
    // names are copied out at once.
    unsafe {
        let raw = global.as_value_ref();
        if llvm::LLVMIsDeclaration(raw) != 0 {
            return ModuleVtable::Declared;
        }
        let mut group = llvm::LLVMGetInitializer(raw);
        if group.is_null() {
            return ModuleVtable::Declared;
        }
        if llvm::LLVMGetTypeKind(llvm::LLVMTypeOf(group)) == LLVMTypeKind::LLVMStructTypeKind {
            if llvm::LLVMGetNumOperands(group) == 0 {
                return ModuleVtable::Defined(Vec::new());
            }
            group = llvm::LLVMGetOperand(group, 0);
        }
        let words = (0..llvm::LLVMGetNumOperands(group).max(0) as u32)
            .map(|i| {
                let word = strip_casts(llvm::LLVMGetOperand(group, i));
                (!llvm::LLVMIsAGlobalValue(word).is_null()).then(|| value_name(word))
            })
            .collect();
        ModuleVtable::Defined(words)
    }
}

/// The named struct types a function's GEPs index (`class.sc_core::sc_fifo.53`): a
/// member function of a class template's instance addresses its own fields through its
/// instance's type.
pub fn indexed_struct_types(function: FunctionValue<'_>) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for block in function.get_basic_blocks() {
        let mut inst = block.get_first_instruction();
        while let Some(i) = inst {
            // SAFETY: the source element type of a live GEP instruction.
            unsafe {
                let raw = i.as_value_ref();
                if !llvm::LLVMIsAGetElementPtrInst(raw).is_null() {
                    if let Some(name) = struct_name(llvm::LLVMGetGEPSourceElementType(raw)) {
                        names.insert(name);
                    }
                }
            }
            inst = i.get_next_instruction();
        }
    }
    names
}

/// Makes the call direct: its callee becomes the function `name` (declared with the
/// call's own function type when the module lacks it). Everything else of the
/// instruction stays: `call` or `invoke`, arguments, attributes, calling convention,
/// debug location. The callee's loads, left unused, are erased.
pub fn call_directly<'ctx>(module: &Module<'ctx>, call: VirtualCall<'ctx>, name: &str) {
    // SAFETY: `call.inst` is a live call/invoke whose last operand is its callee; the
    // function added has the call's own function type; instructions are erased only
    // once nothing uses them, later links of the chain after the earlier ones.
    unsafe {
        let raw = call.inst.as_value_ref();
        let function = match module.get_function(name) {
            Some(f) => f.as_value_ref(),
            None => {
                let name = std::ffi::CString::new(name).expect("a symbol has no NUL");
                llvm::LLVMAddFunction(
                    module.as_mut_ptr(),
                    name.as_ptr(),
                    llvm::LLVMGetCalledFunctionType(raw),
                )
            }
        };
        let last = llvm::LLVMGetNumOperands(raw) as u32 - 1;
        llvm::LLVMSetOperand(raw, last, function);
        for inst in call.chain {
            if llvm::LLVMGetFirstUse(inst).is_null() {
                llvm::LLVMInstructionEraseFromParent(inst);
            }
        }
    }
}

/// Every vtable the module defines, by symbol, with the words of each of its groups
/// (the primary group, then one per base class that is not primary; `None` for offsets
/// and null entries), sorted by symbol.
pub fn defined_vtables(module: &Module<'_>) -> Vec<(String, Vec<Vec<Option<String>>>)> {
    let mut tables = Vec::new();
    for global in module.get_globals() {
        let symbol = global.get_name().to_string_lossy().into_owned();
        if !symbol.starts_with("_ZTV") {
            continue;
        }
        // SAFETY: the initializer of a live global definition and its constant operands;
        // names are copied out at once.
        unsafe {
            let raw = global.as_value_ref();
            if llvm::LLVMIsDeclaration(raw) != 0 {
                continue;
            }
            let init = llvm::LLVMGetInitializer(raw);
            if init.is_null() {
                continue;
            }
            let groups: Vec<LLVMValueRef> = if llvm::LLVMGetTypeKind(llvm::LLVMTypeOf(init))
                == LLVMTypeKind::LLVMStructTypeKind
            {
                (0..llvm::LLVMGetNumOperands(init).max(0) as u32)
                    .map(|i| llvm::LLVMGetOperand(init, i))
                    .collect()
            } else {
                vec![init]
            };
            let words = groups
                .into_iter()
                .map(|group| {
                    (0..llvm::LLVMGetNumOperands(group).max(0) as u32)
                        .map(|i| {
                            let word = strip_casts(llvm::LLVMGetOperand(group, i));
                            (!llvm::LLVMIsAGlobalValue(word).is_null()).then(|| value_name(word))
                        })
                        .collect()
                })
                .collect();
            tables.push((symbol, words));
        }
    }
    tables.sort();
    tables
}
