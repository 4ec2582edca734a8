//! Compiling a whole verified program into one block of native code.
//!
//! [`JitProgram::compile`] declares every CVM function as a Cranelift
//! function (so calls between them are direct calls, recursion included),
//! lowers each one ([`crate::lower`]), adds one entry trampoline per arity
//! (the embedder's way in: it unpacks an argument array and calls through a
//! function pointer), links the shims by name and finalizes the code. The
//! result is immutable and can back any number of instances; dropping it
//! frees the code.

use crate::analysis::{self, ListFacts};
use crate::context::offsets;
use crate::error::JitError;
use crate::instance::JitInstance;
use crate::loops;
use crate::lower::{cvm_signature, inlinable, Env, Lower, PTR};
use crate::shims;
use cranelift_codegen::inline::{Inline, InlineCommand};
use cranelift_codegen::ir::{
    types, AbiParam, ExternalName, InstBuilder, MemFlagsData, UserFuncName,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};
use cvm::isa::Opcode;
use cvm::{Memory, Program};
use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

/// The native code of one CVM function.
#[derive(Copy, Clone, Debug)]
pub(crate) struct CompiledFn {
    /// Address of the compiled function.
    pub code: *const u8,
    /// Address of the entry trampoline for its arity.
    pub entry: *const u8,
}

/// Figures about one compilation.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CompileStats {
    /// CVM functions compiled.
    pub functions: usize,
    /// CVM instructions in them (reachable or not).
    pub instructions: usize,
    /// Intrinsic calls compiled to native code (chess patterns on constant
    /// lists, pure functions of constants) instead of shim calls.
    pub inlined: usize,
    /// Bytes of native code produced (functions and trampolines).
    pub code_bytes: usize,
    /// Wall-clock time of [`JitProgram::compile`], analysis to finalized
    /// code.
    pub duration: Duration,
}

impl CompileStats {
    /// Compile time per CVM instruction, in microseconds.
    pub fn micros_per_instruction(&self) -> f64 {
        self.duration.as_secs_f64() * 1e6 / self.instructions.max(1) as f64
    }
}

/// The machine code of one compiled function, from
/// [`JitProgram::compile_with_listing`].
#[derive(Clone, Debug)]
pub struct FunctionListing {
    /// The CVM function's name.
    pub name: String,
    /// Cranelift's listing of the final machine instructions, block by
    /// block (before branch simplification and relocation).
    pub vcode: String,
    /// The machine code as emitted (calls not yet relocated).
    pub bytes: Vec<u8>,
}

/// A verified program compiled to native code.
///
/// Compile once, then create instances ([`JitProgram::instance`]) to run
/// it; every instance has its own globals, lists and advice table. The code
/// is freed when the `JitProgram` is dropped, which the borrow checker only
/// allows once no instance is left.
///
/// ```
/// use cvm::{asm, Program, NoHost, CollectOutput, Vm};
///
/// let module = asm::assemble(r#"
/// .func main params 0 lists 0 locals 0 stack 2 value
///     push 6
///     push 7
///     mul
///     retv
/// .end
/// "#).unwrap();
/// let program = Program::new(module).unwrap();
/// let jit = jit::JitProgram::compile(&program).unwrap();
/// let mut vm = jit.instance();
/// let result = vm.call_by_name("main", &[], &mut NoHost, &mut CollectOutput::default()).unwrap();
/// assert_eq!(result.value(), Some(42));
/// ```
pub struct JitProgram {
    pub(crate) program: Program,
    module: Option<JITModule>,
    pub(crate) functions: Vec<CompiledFn>,
    pub(crate) facts: ListFacts,
    pub(crate) depth_bounds: Vec<Option<u32>>,
    /// The largest native frame of any compiled function, in bytes.
    pub(crate) max_frame: u64,
    /// A fresh instance memory: the template new instances copy and the
    /// layout compiled code was specialised for.
    pub(crate) initial: Memory,
    stats: CompileStats,
}

impl std::fmt::Debug for JitProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitProgram")
            .field("functions", &self.functions.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Drop for JitProgram {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: instances borrow the `JitProgram`, so none is alive
            // any more and no compiled code can run after this point; the
            // function pointers in `self.functions` die with `self`.
            unsafe { module.free_memory() };
        }
    }
}

/// Functions of at most this many CVM instructions are inlined into their
/// callers.
const INLINE_LIMIT: usize = 32;

/// Tells Cranelift which calls to inline: direct calls of small CVM
/// functions, with the callee's body as compiled so far (callees are
/// compiled before their callers, so calls inside an inlined body were
/// already inlined into it).
struct Inliner<'a> {
    bodies: &'a [cranelift_codegen::ir::Function],
    /// Which functions may be inlined now.
    inlinable: &'a [bool],
    /// CVM function index by Cranelift function id.
    index_of: &'a HashMap<u32, usize>,
    /// The CVM functions inlined, one entry per call site.
    inlined: Vec<usize>,
}

impl Inline for Inliner<'_> {
    fn inline(
        &mut self,
        caller: &cranelift_codegen::ir::Function,
        _call: cranelift_codegen::ir::Inst,
        _opcode: cranelift_codegen::ir::Opcode,
        callee: cranelift_codegen::ir::FuncRef,
        _args: &[cranelift_codegen::ir::Value],
    ) -> InlineCommand<'_> {
        let ExternalName::User(name) = &caller.dfg.ext_funcs[callee].name else {
            return InlineCommand::KeepCall;
        };
        let Some(name) = caller.params.user_named_funcs().get(*name) else {
            return InlineCommand::KeepCall;
        };
        match self.index_of.get(&name.index) {
            Some(&i) if name.namespace == 0 && self.inlinable[i] => {
                self.inlined.push(i);
                InlineCommand::Inline {
                    callee: Cow::Borrowed(&self.bodies[i]),
                    visit_callee: false,
                }
            }
            _ => InlineCommand::KeepCall,
        }
    }
}

/// The functions in an order where every callee comes before its callers,
/// cycles (recursion) broken anywhere: a depth-first post-order of the call
/// graph.
fn callees_first(program: &Program) -> Vec<usize> {
    let calls: Vec<Vec<usize>> = program
        .function_infos()
        .iter()
        .map(|info| {
            let set: BTreeSet<usize> = info
                .instrs
                .iter()
                .filter(|i| i.depth.is_some() && i.instr.opcode == Opcode::Call)
                .map(|i| i.instr.operands[0] as usize)
                .filter(|&c| c < program.function_infos().len())
                .collect();
            set.into_iter().collect()
        })
        .collect();
    let n = calls.len();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        // (function, next callee to visit)
        let mut stack = vec![(root, 0usize)];
        while let Some(top) = stack.last_mut() {
            let (f, k) = *top;
            if let Some(&c) = calls[f].get(k) {
                top.1 += 1;
                if !seen[c] {
                    seen[c] = true;
                    stack.push((c, 0));
                }
            } else {
                order.push(f);
                stack.pop();
            }
        }
    }
    order
}

/// Bytes a frame needs beyond what Cranelift reports below the frame
/// pointer: the return address and the saved frame pointer, plus slack for
/// alignment.
const FRAME_SETUP: u64 = 16 + 32;

fn settings_error(e: impl std::fmt::Display) -> JitError {
    JitError::Settings(e.to_string())
}

fn link_error(e: impl std::fmt::Display) -> JitError {
    JitError::Link(e.to_string())
}

/// A Cranelift module for the host, with the shims registered.
fn new_module() -> Result<JITModule, JitError> {
    let mut flags = settings::builder();
    let set =
        |flags: &mut settings::Builder, k: &str, v: &str| flags.set(k, v).map_err(settings_error);
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    // Frames larger than a page probe every page, so a frame can never skip
    // over a stack guard page.
    set(&mut flags, "enable_probestack", "true")?;
    set(&mut flags, "probestack_strategy", "inline")?;
    let verify = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    set(&mut flags, "enable_verifier", verify)?;
    let isa = cranelift_native::builder()
        .map_err(|e| JitError::UnsupportedHost(e.to_string()))?
        .finish(settings::Flags::new(flags))
        .map_err(settings_error)?;
    if isa.pointer_type() != PTR {
        return Err(JitError::UnsupportedHost(
            "the JIT needs a 64-bit machine".into(),
        ));
    }
    let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
    for (name, addr) in shims::symbols() {
        builder.symbol(name, addr);
    }
    Ok(JITModule::new(builder))
}

/// Function ids of the shims.
struct ShimIds {
    intrinsic: FuncId,
    write: FuncId,
    textout: FuncId,
    pattern: FuncId,
    pattern_mask: FuncId,
}

fn declare_shims(module: &mut JITModule) -> Result<ShimIds, JitError> {
    let sig = |params: &[cranelift_codegen::ir::Type]| {
        let mut s = module.make_signature();
        for &p in params {
            s.params.push(AbiParam::new(p));
        }
        s.returns.push(AbiParam::new(types::I64));
        s
    };
    let intrinsic_sig = sig(&[PTR, types::I32, PTR, types::I64]);
    let write_sig = sig(&[PTR, types::I32]);
    let textout_sig = sig(&[PTR, types::I32]);
    let pattern_sig = sig(&[PTR, types::I32, types::I32, types::I64]);
    let pattern_mask_sig = sig(&[
        PTR,
        types::I32,
        types::I32,
        types::I64,
        types::I32,
        types::I64,
        PTR,
    ]);
    let mut declare = |name: &str, s| {
        module
            .declare_function(name, Linkage::Import, s)
            .map_err(link_error)
    };
    Ok(ShimIds {
        intrinsic: declare(shims::INTRINSIC, &intrinsic_sig)?,
        write: declare(shims::WRITE, &write_sig)?,
        textout: declare(shims::TEXTOUT, &textout_sig)?,
        pattern: declare(shims::PATTERN, &pattern_sig)?,
        pattern_mask: declare(shims::PATTERN_MASK, &pattern_mask_sig)?,
    })
}

impl JitProgram {
    /// Compiles every function of a verified program.
    pub fn compile(program: &Program) -> Result<JitProgram, JitError> {
        JitProgram::build(program, None)
    }

    /// Compiles a program like [`JitProgram::compile`] and returns, with
    /// it, every function's machine code and Cranelift's listing of it, for
    /// studying the code the JIT makes. Trampolines are not listed.
    pub fn compile_with_listing(
        program: &Program,
    ) -> Result<(JitProgram, Vec<FunctionListing>), JitError> {
        let mut listing = Vec::new();
        let jit = JitProgram::build(program, Some(&mut listing))?;
        Ok((jit, listing))
    }

    fn build(
        program: &Program,
        mut listing: Option<&mut Vec<FunctionListing>>,
    ) -> Result<JitProgram, JitError> {
        let started = Instant::now();
        let cvm_module = program.module();
        let facts = analysis::list_facts(program);
        let depth_bounds = analysis::depth_bounds(program);
        let initial = Memory::new(cvm_module);
        let lists = loops::Lists {
            initial: &initial,
            constant: &facts.constant,
        };
        let counted: Vec<Vec<loops::CountedLoop>> = cvm_module
            .functions
            .iter()
            .zip(program.function_infos())
            .map(|(f, info)| loops::counted_loops(f, info, lists))
            .collect();

        let mut module = new_module()?;
        let shim_ids = declare_shims(&mut module)?;
        let mut ids = Vec::with_capacity(cvm_module.functions.len());
        for (i, f) in cvm_module.functions.iter().enumerate() {
            let sig = cvm_signature(module.make_signature(), f.arity());
            let id = module
                .declare_function(&format!("cvm_{i}"), Linkage::Local, &sig)
                .map_err(link_error)?;
            ids.push(id);
        }

        let mut ctx = module.make_context();
        let mut fctx = FunctionBuilderContext::new();
        let mut frames = Vec::with_capacity(ids.len());
        let mut code_bytes = 0usize;
        let mut instructions = 0usize;
        let mut inlined = 0usize;
        let mut bodies = Vec::with_capacity(ids.len());
        for (index, (f, info)) in cvm_module
            .functions
            .iter()
            .zip(program.function_infos())
            .enumerate()
        {
            instructions += info.instrs.len();
            ctx.func.signature = cvm_signature(module.make_signature(), f.arity());
            ctx.func.name = UserFuncName::user(0, ids[index].as_u32());
            // The direct callees, and those of every function that can be
            // lowered into this one.
            let mut called = BTreeSet::new();
            let mut work = vec![index as u32];
            let mut visited = BTreeSet::new();
            while let Some(g) = work.pop() {
                if !visited.insert(g) {
                    continue;
                }
                for i in &program.function_infos()[g as usize].instrs {
                    if i.depth.is_some() && i.instr.opcode == Opcode::Call {
                        let c = i.instr.operands[0];
                        called.insert(c);
                        if inlinable(cvm_module, program.function_infos(), c) {
                            work.push(c);
                        }
                    }
                }
            }
            let mut callees = HashMap::new();
            for c in called {
                callees.insert(
                    c,
                    module.declare_func_in_func(ids[c as usize], &mut ctx.func),
                );
            }
            let env = Env {
                module: cvm_module,
                initial: &initial,
                constant_lists: &facts.constant,
                infos: program.function_infos(),
                inlined: Cell::new(0),
                callees,
                intrinsic: module.declare_func_in_func(shim_ids.intrinsic, &mut ctx.func),
                write: module.declare_func_in_func(shim_ids.write, &mut ctx.func),
                textout: module.declare_func_in_func(shim_ids.textout, &mut ctx.func),
                pattern: module.declare_func_in_func(shim_ids.pattern, &mut ctx.func),
                pattern_mask: module.declare_func_in_func(shim_ids.pattern_mask, &mut ctx.func),
                loops: &counted,
            };
            let builder = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let builder = Lower::new(builder, &env, index as u32, f, info).run();
            inlined += env.inlined.get();
            builder.finalize(module.target_config());
            bodies.push(std::mem::replace(
                &mut ctx.func,
                cranelift_codegen::ir::Function::new(),
            ));
            module.clear_context(&mut ctx);
        }

        // Small functions are inlined into their callers: their bodies
        // already follow the calling convention, so the call site keeps its
        // depth and fuel checks and the semantics do not change. Callees are
        // compiled first and their inlined bodies kept, so a chain of small
        // calls flattens completely; a function is inlinable while its CVM
        // instructions plus those of everything inlined into it stay within
        // the limit (recursion unrolls at most once).
        let index_of: HashMap<u32, usize> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (id.as_u32(), i))
            .collect();
        let mut size: Vec<usize> = program
            .function_infos()
            .iter()
            .map(|info| info.instrs.len())
            .collect();
        let mut inlinable: Vec<bool> = size.iter().map(|&n| n <= INLINE_LIMIT).collect();
        for index in callees_first(program) {
            let f = &cvm_module.functions[index];
            let fail = |message: String| JitError::Function {
                function: index as u32,
                name: f.name.clone(),
                message,
            };
            ctx.func = bodies[index].clone();
            let mut inliner = Inliner {
                bodies: &bodies,
                inlinable: &inlinable,
                index_of: &index_of,
                inlined: Vec::new(),
            };
            ctx.inline(&mut inliner)
                .map_err(|e| fail(format!("{e:?}")))?;
            let inlined_here = inliner.inlined;
            let grown = inlined_here
                .iter()
                .fold(size[index], |n, &c| n.saturating_add(size[c]));
            if !inlined_here.is_empty() {
                size[index] = grown;
                inlinable[index] = grown <= INLINE_LIMIT;
                if inlinable[index] {
                    bodies[index] = ctx.func.clone();
                }
            }
            ctx.set_disasm(listing.is_some());
            module
                .define_function(ids[index], &mut ctx)
                .map_err(|e| fail(format!("{e:?}")))?;
            let compiled = ctx
                .compiled_code()
                .ok_or_else(|| fail("no code produced".into()))?;
            code_bytes += compiled.code_buffer().len();
            if let Some(out) = listing.as_deref_mut() {
                out.push(FunctionListing {
                    name: f.name.clone(),
                    vcode: compiled.vcode.clone().unwrap_or_default(),
                    bytes: compiled.code_buffer().to_vec(),
                });
            }
            let frame = match compiled.buffer.frame_layout() {
                Some(layout) => u64::from(layout.frame_to_fp_offset) + FRAME_SETUP,
                // Without Cranelift's figure, assume every slot and stack
                // entry spilled twice over, plus a page.
                None => 16 * u64::from(f.frame_slots() + f.max_stack) + 4096 + FRAME_SETUP,
            };
            frames.push(frame);
            module.clear_context(&mut ctx);
        }

        // One entry trampoline per arity.
        let arities: BTreeSet<u32> = cvm_module.functions.iter().map(|f| f.arity()).collect();
        let mut trampolines = HashMap::new();
        for &arity in &arities {
            let id = define_trampoline(&mut module, &mut ctx, &mut fctx, arity)?;
            code_bytes += ctx.compiled_code().map_or(0, |c| c.code_buffer().len());
            module.clear_context(&mut ctx);
            trampolines.insert(arity, id);
        }

        module.finalize_definitions().map_err(link_error)?;
        let functions = cvm_module
            .functions
            .iter()
            .zip(&ids)
            .map(|(f, &id)| CompiledFn {
                code: module.get_finalized_function(id),
                entry: module.get_finalized_function(trampolines[&f.arity()]),
            })
            .collect();
        let max_frame = frames.iter().copied().max().unwrap_or(FRAME_SETUP);
        let stats = CompileStats {
            functions: cvm_module.functions.len(),
            instructions,
            inlined,
            code_bytes,
            duration: started.elapsed(),
        };
        Ok(JitProgram {
            program: program.clone(),
            module: Some(module),
            functions,
            facts,
            depth_bounds,
            max_frame,
            initial,
            stats,
        })
    }

    /// The program that was compiled.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Figures about the compilation.
    pub fn stats(&self) -> CompileStats {
        self.stats
    }

    /// A new instance with the module's initial globals and lists, an empty
    /// advice table and the default limits.
    pub fn instance(&self) -> JitInstance<'_> {
        JitInstance::new(self)
    }
}

/// Defines the entry trampoline for functions of `arity` parameters:
/// `(ctx, callee, fuel, depth_left, args) -> fuel or status`, storing the
/// callee's value in the context.
fn define_trampoline(
    module: &mut JITModule,
    ctx: &mut cranelift_codegen::Context,
    fctx: &mut FunctionBuilderContext,
    arity: u32,
) -> Result<FuncId, JitError> {
    let mut sig = module.make_signature();
    for t in [PTR, PTR, types::I64, types::I32, PTR] {
        sig.params.push(AbiParam::new(t));
    }
    sig.returns.push(AbiParam::new(types::I64));
    let id = module
        .declare_function(&format!("cvm_entry_{arity}"), Linkage::Local, &sig)
        .map_err(link_error)?;
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(1, id.as_u32());
    let callee_sig = cvm_signature(module.make_signature(), arity);
    let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
    let sig_ref = b.import_signature(callee_sig);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    let p = b.block_params(block).to_vec();
    let mut args = vec![p[0], p[2], p[3]];
    for k in 0..arity {
        let offset = i32::try_from(k * 4).map_err(link_error)?;
        args.push(
            b.ins()
                .load(types::I32, MemFlagsData::trusted(), p[4], offset),
        );
    }
    let call = b.ins().call_indirect(sig_ref, p[1], &args);
    let results = b.inst_results(call).to_vec();
    b.ins()
        .store(MemFlagsData::trusted(), results[0], p[0], offsets::RESULT);
    b.ins().return_(&[results[1]]);
    b.seal_all_blocks();
    b.finalize(module.target_config());
    module
        .define_function(id, ctx)
        .map_err(|e| JitError::Function {
            function: u32::MAX,
            name: format!("entry trampoline for arity {arity}"),
            message: format!("{e:?}"),
        })?;
    Ok(id)
}
