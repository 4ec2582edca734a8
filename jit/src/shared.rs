//! What the code generators (Cranelift's lowering and the baseline
//! templates) and the instances share: the native code of a function, the
//! inline checks, the frame setup, the host's instruction sets, the shims'
//! function ids and the facts the analysis learned about a program. The
//! compilation driver ([`crate::compile`]) builds on these; nothing here
//! depends on it, on the lowering or on the instances.

use crate::analysis::loops::{counted_loops, CountedLoop, Lists};
use crate::analysis::splice::{self, Splices};
use crate::analysis::{
    call_graph, constant_elements, depth_bounds, list_facts, recursive, ListFacts,
};
use crate::error::JitError;
use crate::shims;
use cranelift_codegen::ir::{types, AbiParam, Type};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId, Linkage, Module};
use cvm::module::Function;
use cvm::verify::FunctionInfo;
use cvm::{Memory, Program};
use std::sync::OnceLock;

/// The pointer type: the JIT runs on 64-bit hosts only.
pub(crate) const PTR: Type = types::I64;

/// The native code of one CVM function.
#[derive(Copy, Clone, Debug)]
pub(crate) struct CompiledFn {
    /// Address of the compiled function.
    pub code: *const u8,
    /// Address of the entry trampoline for its arity.
    pub entry: *const u8,
    /// The fuel a call must bring to run this code: compiled without fuel
    /// checks, its entry proves the fuel for all its charges at once
    /// (`docs/jit.md`, "Fuel proved at entry"), and a call with less runs
    /// on the interpreter. 0 for code that checks its fuel.
    pub fuel_bound: u64,
}

impl CompiledFn {
    /// Whether a call bringing `fuel` (what the code is entered with) may
    /// run this code: always for code that checks its fuel, and for code
    /// that proves it at entry when `fuel` covers [`CompiledFn::fuel_bound`].
    #[inline]
    pub fn runs_with(&self, fuel: i64) -> bool {
        u64::try_from(fuel).is_ok_and(|f| f >= self.fuel_bound)
    }
}

/// The machine code of one compiled function, from
/// [`crate::JitProgram::compile_with_listing`].
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

/// How a compilation lowers its functions: the inline checks it emits (all
/// of them except in a measurement build,
/// [`crate::JitProgram::compile_unchecked`]), the entries for on-stack
/// replacement, and which functions get Cranelift's optimizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Checks {
    /// Fuel: charged at backward jumps, calls, `fuel`, `write` and text.
    pub fuel: bool,
    /// List bounds at element accesses.
    pub bounds: bool,
    /// Entries at loop headers for on-stack replacement ([`osr_heads`]):
    /// the tiered backend's closures and the hosts' compilations.
    pub osr: bool,
    /// Every function with Cranelift's optimizer, straight-line ones too
    /// (`docs/jit.md`, "Two optimization levels"): for code compiled
    /// because it is hot or off the caller's path (the tiered backend's
    /// closures, the hosts' upgrade from baseline code), where a function
    /// called again and again repays the optimizer's time.
    pub optimize_all: bool,
}

impl Checks {
    /// Every check: what every compilation but a measurement emits.
    pub const ALL: Checks = Checks {
        fuel: true,
        bounds: true,
        osr: false,
        optimize_all: false,
    };

    /// [`Checks::ALL`] with entries for on-stack replacement.
    pub const WITH_OSR: Checks = Checks {
        osr: true,
        ..Checks::ALL
    };

    /// [`Checks::WITH_OSR`] with the optimizer for every function: the
    /// compilation of hot code.
    pub const HOT: Checks = Checks {
        optimize_all: true,
        ..Checks::WITH_OSR
    };
}

/// The largest frame (frame slots plus operand stack) a function may have
/// and still get entries for on-stack replacement: each entry loads the
/// whole state, so the bound keeps the code linear in the instructions.
pub(crate) const OSR_MAX_STATE: u32 = 256;

/// The operand-stack depth before the instruction at code offset
/// `offset` (0 when no path reaches it, or no instruction starts there):
/// the depth of the stack an on-stack-replacement state carries at a loop
/// header of [`osr_heads`].
pub(crate) fn stack_depth_at(info: &FunctionInfo, offset: u32) -> u32 {
    info.instrs
        .binary_search_by_key(&offset, |i| i.offset)
        .ok()
        .and_then(|k| info.instrs[k].depth)
        .unwrap_or(0)
}

/// The loop headers of function `f` where code compiled with
/// [`Checks::osr`] can be entered with a frame's state (on-stack
/// replacement): the targets of its reachable backward jumps, in order;
/// none when its frame is larger than [`OSR_MAX_STATE`]. The state comes
/// in a buffer the context points to (`Context::osr`): the header's offset,
/// the frame slots, then the operand stack before the header.
pub(crate) fn osr_heads(f: &Function, info: &FunctionInfo) -> Vec<u32> {
    if f.frame_slots() + info.max_depth > OSR_MAX_STATE {
        return Vec::new();
    }
    let mut heads: Vec<u32> = info
        .instrs
        .iter()
        .filter(|i| i.depth.is_some())
        .filter_map(|i| i.instr.target().filter(|&t| t <= i.offset))
        .collect();
    heads.sort_unstable();
    heads.dedup();
    heads
}

/// Which inline checks [`crate::JitProgram::compile_unchecked`] leaves out (for
/// measurement only).
#[cfg(feature = "measure-unchecked")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unchecked {
    /// Leave out the fuel checks.
    pub fuel: bool,
    /// Leave out the list bounds checks.
    pub bounds: bool,
}

/// Bytes a frame needs beyond what Cranelift reports below the frame
/// pointer: the return address and the saved frame pointer, plus slack for
/// alignment.
pub(crate) const FRAME_SETUP: u64 = 16 + 32;

fn settings_error(e: impl std::fmt::Display) -> JitError {
    JitError::Settings(e.to_string())
}

pub(crate) fn link_error(e: impl std::fmt::Display) -> JitError {
    JitError::Link(e.to_string())
}

/// The host's instruction set with the JIT's settings, made once per
/// process: target detection and the settings are the same for every
/// program, so every compilation shares one (`docs/jit.md`, "Fixed cost
/// per process").
pub(crate) fn host_isa() -> Result<OwnedTargetIsa, JitError> {
    static ISA: OnceLock<Result<OwnedTargetIsa, JitError>> = OnceLock::new();
    ISA.get_or_init(|| new_isa("speed")).clone()
}

/// The same instruction set without Cranelift's optimizer (`opt_level =
/// none`), for straight-line functions (`docs/jit.md`, "Two optimization
/// levels").
pub(crate) fn plain_isa() -> Result<OwnedTargetIsa, JitError> {
    static ISA: OnceLock<Result<OwnedTargetIsa, JitError>> = OnceLock::new();
    ISA.get_or_init(|| new_isa("none")).clone()
}

fn new_isa(opt_level: &str) -> Result<OwnedTargetIsa, JitError> {
    let mut flags = settings::builder();
    let set =
        |flags: &mut settings::Builder, k: &str, v: &str| flags.set(k, v).map_err(settings_error);
    set(&mut flags, "opt_level", opt_level)?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    // Frames larger than a page probe every page, so a frame can never skip
    // over a stack guard page.
    set(&mut flags, "enable_probestack", "true")?;
    set(&mut flags, "probestack_strategy", "inline")?;
    // Cranelift's IR verifier checks every function in builds with debug
    // assertions, except in the fuzz build (the `fuzz` crate turns on the
    // feature `fuzz-no-ir-verifier`), where it cost a twentieth of the
    // `differential` target's time and the target compares every result
    // with the interpreter anyway (docs/fuzzing.md, "Throughput").
    let verify = if cfg!(debug_assertions) && !cfg!(feature = "fuzz-no-ir-verifier") {
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
    Ok(isa)
}

/// Function ids of the shims.
pub(crate) struct ShimIds {
    pub intrinsic: FuncId,
    /// The intrinsic shim that first writes a deferred list's waiting fill.
    pub intrinsic_flush: FuncId,
    pub write: FuncId,
    pub textout: FuncId,
    pub pattern: FuncId,
    pub pattern_mask: FuncId,
    /// The shim that writes one waiting fill (`crate::deferred`).
    pub flush_fill: FuncId,
    /// The poll of baseline code for better code (on-stack replacement).
    pub osr_poll: FuncId,
}

pub(crate) fn declare_shims(module: &mut JITModule) -> Result<ShimIds, JitError> {
    let sig = |params: &[cranelift_codegen::ir::Type]| {
        let mut s = module.make_signature();
        for &p in params {
            s.params.push(AbiParam::new(p));
        }
        s.returns.push(AbiParam::new(types::I64));
        s
    };
    // The intrinsic and pattern-mask shims charge fuel: they take the fuel
    // left and return what is left after the charge.
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
    let osr_poll_sig = sig(&[PTR, types::I32, types::I32, PTR, types::I64, types::I32]);
    let mut declare = |name: &str, s| {
        module
            .declare_function(name, Linkage::Import, s)
            .map_err(link_error)
    };
    Ok(ShimIds {
        osr_poll: declare(shims::OSR_POLL, &osr_poll_sig)?,
        intrinsic: declare(shims::INTRINSIC, &intrinsic_sig)?,
        intrinsic_flush: declare(shims::INTRINSIC_FLUSH, &intrinsic_sig)?,
        write: declare(shims::WRITE, &write_sig)?,
        textout: declare(shims::TEXTOUT, &textout_sig)?,
        pattern: declare(shims::PATTERN, &pattern_sig)?,
        pattern_mask: declare(shims::PATTERN_MASK, &pattern_mask_sig)?,
        flush_fill: declare(shims::FLUSH_FILL, &write_sig)?,
    })
}

/// What the analysis learned about the program (phase 1: no Cranelift).
pub(crate) struct Facts {
    pub lists: ListFacts,
    /// The distinct elements of each constant list.
    pub constant_elements: Vec<Option<Vec<i32>>>,
    pub depth_bounds: Vec<Option<u32>>,
    /// A fresh instance memory: the template new instances copy and the
    /// layout compiled code is specialised for.
    pub initial: Memory,
    /// The counted loops of each function.
    pub loops: Vec<Vec<CountedLoop>>,
    pub splices: Splices,
    /// Which functions are recursive ([`recursive`]).
    pub recursive: Vec<bool>,
    /// The lists whose fills Cranelift's code defers
    /// ([`crate::analysis::deferred::deferred_lists`]).
    pub deferred: Vec<u32>,
    /// Whether any function calls `HostCall`, after which the context's
    /// board pointer may point elsewhere ([`calls_host`]).
    pub host_calls: bool,
}

/// Whether any instruction of `program` calls the intrinsic `HostCall`
/// (a host service, which may move the host to another board view).
pub(crate) fn calls_host(program: &Program) -> bool {
    program.function_infos().iter().any(|info| {
        info.instrs.iter().any(|i| {
            i.instr.opcode == cvm::isa::Opcode::Intr
                && i.instr.operands[0] == cvm::intrinsics::HOST_CALL
        })
    })
}

impl Facts {
    /// The facts both generators need: the initial memory, the list facts
    /// and the call graph's depth bounds and recursion; no loops and no
    /// splices (the baseline generator makes neither fast loop copies nor
    /// spliced calls).
    pub(crate) fn common(program: &Program) -> Facts {
        let initial = Memory::new(program.module());
        let lists = list_facts(program);
        let calls = call_graph(program);
        Facts {
            constant_elements: Vec::new(),
            lists,
            depth_bounds: depth_bounds(&calls),
            initial,
            loops: Vec::new(),
            splices: Splices::none(),
            recursive: recursive(&calls),
            deferred: crate::analysis::deferred::deferred_lists(program),
            host_calls: calls_host(program),
        }
    }

    /// What Cranelift's lowering adds: the counted loops, the splice plan
    /// and the distinct elements of the constant lists.
    pub(crate) fn analyse_code(&mut self, program: &Program) {
        let known = Lists {
            initial: &self.initial,
            constant: &self.lists.constant,
        };
        self.loops = program
            .module()
            .functions
            .iter()
            .zip(program.function_infos())
            .map(|(f, info)| counted_loops(f, info, &program.module().texts, known))
            .collect();
        self.splices = splice::plan(program, &self.loops);
        self.constant_elements = constant_elements(&self.lists, &self.initial);
    }
}
