//! Phase 3 of a compilation: lowering each CVM function to Cranelift IR and
//! compiling it to machine code, away from the module, on as many threads
//! as pay off.
//!
//! Functions are independent once every one is declared: lowering needs
//! only the module's declarations (to import callees and shims) and the
//! analysis, both read-only, and Cranelift compiles each function alone.
//! So each worker thread has its own Cranelift context and takes the next
//! function from a shared counter, largest first; the machine code comes
//! back as bytes and relocations, which the module then places in function
//! order, so the code layout does not depend on the threads
//! (`docs/jit.md`, "Compiling on several threads").

use crate::error::JitError;
use crate::lower::{cvm_signature, Env, Lower};
use crate::shared::{plain_isa, Checks, Facts, FunctionListing, ShimIds, FRAME_SETUP};
use cranelift_codegen::ir::{self, FuncRef, Signature, UserFuncName};
use cranelift_codegen::isa::{CallConv, OwnedTargetIsa};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId, ModuleDeclarations, ModuleReloc};
use cvm::isa::Opcode;
use cvm::Program;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Threads a compilation may use at most (0: decide by the machine, see
/// [`set_compile_threads`]).
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// Sets how many threads one compilation may use to compile its functions
/// side by side: 1 compiles on the calling thread only, 0 (the default)
/// uses up to [`AUTO_THREADS_MAX`] when the machine has that many cores
/// (one core less on the tiered backend's compiler thread, which runs
/// beside the interpreter).
/// Whatever the setting, the code is the same; only the wall-clock time
/// of a compilation of several functions changes. Process-wide.
pub fn set_compile_threads(threads: usize) {
    THREADS.store(threads, Ordering::Relaxed);
}

thread_local! {
    /// Whether compilations on this thread leave a core to another thread
    /// of the process ([`leave_a_core`]).
    static LEAVE_A_CORE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Makes the default thread count of compilations on the calling thread
/// one less than the machine's cores: the tiered backend's compiler
/// thread runs beside the interpreter, which should keep its core.
pub(crate) fn leave_a_core() {
    LEAVE_A_CORE.with(|c| c.set(true));
}

/// The most threads a compilation uses by default.
pub const AUTO_THREADS_MAX: usize = 4;

/// Fewer CVM instructions than this are compiled on the calling thread:
/// starting a thread (tens of microseconds) would cost more than it saves.
pub const PARALLEL_MIN_INSTRUCTIONS: usize = 48;

/// The threads to compile `functions` functions of `instructions` CVM
/// instructions in all.
fn threads_for(functions: usize, instructions: usize) -> usize {
    if functions < 2 || instructions < PARALLEL_MIN_INSTRUCTIONS {
        return 1;
    }
    let wanted = match THREADS.load(Ordering::Relaxed) {
        0 => {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            let spare = usize::from(LEAVE_A_CORE.with(|c| c.get()));
            cores.saturating_sub(spare).min(AUTO_THREADS_MAX)
        }
        n => n,
    };
    wanted.clamp(1, functions)
}

/// What every function's lowering and compilation reads: shared by the
/// worker threads.
pub(crate) struct Shared<'a> {
    /// The verified program.
    pub program: &'a Program,
    /// The whole program's analysis.
    pub facts: &'a Facts,
    /// The module's declarations: every function and shim.
    pub decls: &'a ModuleDeclarations,
    /// The host's calling convention (of every CVM function's signature).
    pub call_conv: CallConv,
    /// The instruction set of optimized functions (the module's own).
    pub isa: OwnedTargetIsa,
    /// The shims' declarations.
    pub shims: &'a ShimIds,
    /// The Cranelift function of each CVM function (`None`: not compiled).
    pub ids: &'a [Option<FuncId>],
    /// The inline checks to emit.
    pub checks: Checks,
    /// Keep each function's listing.
    pub listing: bool,
    /// Whether a `call` instruction of the program names each function
    /// ([`called_functions`]); made only for hot code, the one use
    /// (empty otherwise: every function counts as called).
    pub called: Vec<bool>,
}

/// Whether a `call` instruction anywhere in `program` names each function:
/// a function none names is entered only by the embedder.
pub(crate) fn called_functions(program: &Program) -> Vec<bool> {
    let mut called = vec![false; program.module().functions.len()];
    for info in program.function_infos() {
        for i in &info.instrs {
            if i.instr.opcode == Opcode::Call {
                if let Some(c) = called.get_mut(i.instr.operands[0] as usize) {
                    *c = true;
                }
            }
        }
    }
    called
}

/// One function's machine code, ready to be placed in the module.
pub(crate) struct Compiled {
    /// The function's declaration in the module.
    pub own: FuncId,
    /// The code's alignment, as Cranelift asks.
    pub alignment: u64,
    /// The machine code, calls not yet relocated.
    pub bytes: Vec<u8>,
    /// Where the module must patch in addresses.
    pub relocs: Vec<ModuleReloc>,
    /// The native frame, in bytes.
    pub frame: u64,
    /// Intrinsic calls compiled to native code.
    pub native_intrinsics: usize,
    /// Compiled without Cranelift's optimizer.
    pub unoptimized: bool,
    /// The fuel its entry must find to run it (compiled without fuel
    /// checks, `Lower::with_fuel_proved`); 0 for code that checks.
    pub fuel_bound: u64,
    /// The listing, when asked for.
    pub listing: Option<FunctionListing>,
}

/// A worker's Cranelift state, reused from function to function.
struct Workspace {
    ctx: Context,
    fctx: FunctionBuilderContext,
}

impl Workspace {
    fn new() -> Workspace {
        Workspace {
            ctx: Context::new(),
            fctx: FunctionBuilderContext::new(),
        }
    }
}

/// Imports the declared function `id` into `func`, as
/// `cranelift_module::Module::declare_func_in_func` does, but from the
/// declarations alone, so that threads without the module can do it.
fn import(decls: &ModuleDeclarations, id: FuncId, func: &mut ir::Function) -> FuncRef {
    let decl = decls.get_function_decl(id);
    let signature = func.import_signature(decl.signature.clone());
    let name = func.declare_imported_user_function(ir::UserExternalName {
        namespace: 0,
        index: id.as_u32(),
    });
    func.import_function(ir::ExtFuncData {
        name: ir::ExternalName::user(name),
        signature,
        colocated: decl.linkage.is_final(),
        patchable: false,
    })
}

impl Shared<'_> {
    /// Lowers and compiles the functions `order` names (by index), on
    /// [`threads_for`] threads; the results in the order of `order`.
    pub fn compile_all(&self, order: &[usize]) -> Vec<Result<Compiled, JitError>> {
        let infos = self.program.function_infos();
        let instructions = order.iter().map(|&i| infos[i].instrs.len()).sum();
        let threads = threads_for(order.len(), instructions);
        if threads <= 1 {
            let mut ws = Workspace::new();
            return order.iter().map(|&i| self.compile(&mut ws, i)).collect();
        }
        // Largest first, so that no thread starts a long function last.
        let mut by_size: Vec<usize> = (0..order.len()).collect();
        by_size.sort_by_key(|&k| std::cmp::Reverse(infos[order[k]].instrs.len()));
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Option<Result<Compiled, JitError>>>> =
            Mutex::new((0..order.len()).map(|_| None).collect());
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut ws = Workspace::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&slot) = by_size.get(k) else { break };
                        let result = self.compile(&mut ws, order[slot]);
                        // A worker that panicked poisons the lock; the
                        // others still record what they compiled.
                        let mut results = results.lock().unwrap_or_else(|e| e.into_inner());
                        results[slot] = Some(result);
                    }
                });
            }
        });
        let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        results
            .into_iter()
            .zip(order)
            .map(|(r, &index)| {
                r.unwrap_or_else(|| {
                    Err(JitError::Function {
                        function: index as u32,
                        name: self.program.module().functions[index].name.clone(),
                        message: "the compiling thread stopped".into(),
                    })
                })
            })
            .collect()
    }

    /// Lowers and compiles function `index`.
    fn compile(&self, ws: &mut Workspace, index: usize) -> Result<Compiled, JitError> {
        let result = self.compile_in(ws, index);
        ws.ctx.clear();
        result
    }

    fn compile_in(&self, ws: &mut Workspace, index: usize) -> Result<Compiled, JitError> {
        let program = self.program;
        let facts = self.facts;
        let f = &program.module().functions[index];
        let fail = |message: String| JitError::Function {
            function: index as u32,
            name: f.name.clone(),
            message,
        };
        let missing = |c: u32| fail(format!("callee {c} is not part of the compilation"));
        let own = self.ids[index].ok_or_else(|| missing(index as u32))?;
        let straight = facts
            .splices
            .straight_line(program, index, &facts.recursive);
        // Code compiled because it is hot, of a function only the embedder
        // calls that runs each of its charges at most once: its entry may
        // prove the fuel for all of them (`docs/jit.md`, "Fuel proved at
        // entry"). Lowered that way first, and again with its checks when
        // a charge turns out not to be a constant.
        let callees = facts.splices.native_callees(program, index);
        let try_proved = self.checks.optimize_all
            && self.checks.fuel
            && straight
            && !self.called.get(index).copied().unwrap_or(true)
            // A native call's charges are the callee's, known at run time.
            && callees.is_empty();
        let mut lowered = None;
        if try_proved {
            let (native, bound) = self.lower_in(ws, index, own, &callees, true)?;
            match bound {
                Some(bound) => lowered = Some((native, bound)),
                None => ws.ctx.clear(),
            }
        }
        let (native_intrinsics, fuel_bound) = match lowered {
            Some(done) => done,
            None => (self.lower_in(ws, index, own, &callees, false)?.0, 0),
        };
        let ctx = &mut ws.ctx;
        ctx.set_disasm(self.listing);
        // Straight-line code runs each instruction at most once per call:
        // Cranelift's optimizer would cost more compile time than it can
        // save (`docs/jit.md`, "Two optimization levels").
        let unoptimized = !self.checks.optimize_all && straight;
        let isa = if unoptimized {
            plain_isa()?
        } else {
            self.isa.clone()
        };
        ctx.compile(&*isa, &mut Default::default())
            .map_err(|e| fail(format!("{:?}", e.inner)))?;
        let code = ctx
            .compiled_code()
            .ok_or_else(|| fail("no code produced".into()))?;
        let relocs = code
            .buffer
            .relocs()
            .iter()
            .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, own))
            .collect();
        let frame = match code.buffer.frame_layout() {
            Some(layout) => u64::from(layout.frame_to_fp_offset) + FRAME_SETUP,
            // Without Cranelift's figure, assume every slot and stack
            // entry spilled twice over, plus a page.
            None => 16 * u64::from(f.frame_slots() + f.max_stack) + 4096 + FRAME_SETUP,
        };
        Ok(Compiled {
            own,
            alignment: u64::from(code.buffer.alignment),
            bytes: code.code_buffer().to_vec(),
            relocs,
            frame,
            native_intrinsics,
            unoptimized,
            fuel_bound,
            listing: self.listing.then(|| FunctionListing {
                name: f.name.clone(),
                vcode: code.vcode.clone().unwrap_or_default(),
                bytes: code.code_buffer().to_vec(),
            }),
        })
    }

    /// Lowers function `index` (declared as `own`, calling `callees`
    /// natively) into the workspace's empty function: the intrinsic calls
    /// compiled to native code and,
    /// with `proved`, the fuel its entry must prove
    /// ([`Lower::with_fuel_proved`]; `None`: it cannot be lowered so).
    fn lower_in(
        &self,
        ws: &mut Workspace,
        index: usize,
        own: FuncId,
        callees: &[u32],
        proved: bool,
    ) -> Result<(usize, Option<u64>), JitError> {
        let program = self.program;
        let facts = self.facts;
        let cvm_module = program.module();
        let f = &cvm_module.functions[index];
        let info = &program.function_infos()[index];
        let missing = |c: u32| JitError::Function {
            function: index as u32,
            name: f.name.clone(),
            message: format!("callee {c} is not part of the compilation"),
        };
        let ctx = &mut ws.ctx;
        ctx.func.signature = cvm_signature(Signature::new(self.call_conv), f.arity());
        ctx.func.name = UserFuncName::user(0, own.as_u32());
        let callees: HashMap<u32, FuncRef> = callees
            .iter()
            .map(|&c| {
                let id = self.ids[c as usize].ok_or_else(|| missing(c))?;
                Ok((c, import(self.decls, id, &mut ctx.func)))
            })
            .collect::<Result<_, JitError>>()?;
        let mut shim = |id| import(self.decls, id, &mut ctx.func);
        let env = Env {
            module: cvm_module,
            initial: &facts.initial,
            constant_elements: &facts.constant_elements,
            infos: program.function_infos(),
            native_intrinsics: Cell::new(0),
            callees,
            intrinsic: shim(self.shims.intrinsic),
            intrinsic_flush: shim(self.shims.intrinsic_flush),
            write: shim(self.shims.write),
            textout: shim(self.shims.textout),
            pattern: shim(self.shims.pattern),
            pattern_mask: shim(self.shims.pattern_mask),
            flush_fill: shim(self.shims.flush_fill),
            loops: &facts.loops,
            splices: &facts.splices,
            checks: self.checks,
            deferred: &facts.deferred,
            host_calls: facts.host_calls,
        };
        let builder = FunctionBuilder::new(&mut ctx.func, &mut ws.fctx);
        let lower = Lower::new(builder, &env, index as u32, f, info);
        let (builder, bound) = if proved {
            lower.with_fuel_proved().run_proved()
        } else {
            (lower.run(), None)
        };
        builder.finalize(self.isa.frontend_config());
        Ok((env.native_intrinsics.get(), bound))
    }
}
