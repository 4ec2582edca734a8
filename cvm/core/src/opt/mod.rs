//! The loophole optimizer.
//!
//! Donninger's compiler had a small "loophole" (keyhole) optimizer; this one
//! rewrites verified CVM code into equivalent code that runs faster on both
//! backends. Each function is lifted into a list of instructions and labels
//! ([`ir`]), rewritten by peephole rules ([`peephole`]: constant folding,
//! algebraic simplification and strength reduction, immediate- and
//! local-operand forms, compare-and-branch fusion, constant pattern lists
//! folded into square masks) and control-flow clean-ups ([`jumps`]:
//! bounded jump threading, branch-over-jump inversion, loop inversion,
//! unreachable code, jumps to the next instruction), repeated until nothing
//! changes; then adjacent int-local loads are paired (`ldl2`), and the body
//! is lowered back to words. The fused instructions the rules produce were
//! chosen from execution profiles (`cvm_testkit::profile`, the `opstats` tool).
//!
//! What a program can observe is preserved: results, output lines, advice,
//! the kind of every runtime error and the fuel charged on every path. The
//! code offsets of errors change with the code, but their source positions
//! do not: a fused instruction keeps the position of the instruction that
//! could fail. The optimized module is verified again; should a rewrite ever
//! produce an unverifiable module (a bug), [`optimize`] returns the original
//! program unchanged instead.

pub mod inline;
pub mod ir;
pub mod jumps;
pub mod peephole;

use crate::module::Module;
use crate::verify::Program;
use ir::Body;
pub use peephole::Rules;

/// What the optimizer did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Code words before.
    pub words_before: usize,
    /// Code words after.
    pub words_after: usize,
    /// Peephole rewrites applied.
    pub rewrites: usize,
    /// Control-flow changes applied.
    pub jump_changes: usize,
    /// Calls inlined.
    pub inlined: usize,
    /// True when the result failed verification and the original was kept.
    pub fell_back: bool,
}

/// Optimization settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Which peephole rules run.
    pub rules: Rules,
    /// Whether loops are inverted (test copied to the bottom).
    pub invert_loops: bool,
    /// Whether small callees are inlined ([`inline`]).
    pub inline: bool,
    /// The size limits of inlining.
    pub inline_limits: inline::Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rules: Rules::default(),
            invert_loops: true,
            inline: true,
            inline_limits: inline::Limits::default(),
        }
    }
}

/// Most rounds of rewriting per function.
const MAX_ROUNDS: usize = 16;

/// Optimizes a verified program with the default options.
///
/// ```
/// use cvm::{asm, CollectOutput, Interpreter, NoHost, Program, Vm};
///
/// let program = Program::new(asm::assemble("
/// .entry main
/// .func main params 0 lists 0 locals 0 stack 2 value
///     push 6
///     push 7
///     mul
///     retv
/// .end
/// ").unwrap()).unwrap();
/// let (optimized, report) = cvm::opt::optimize(&program);
/// assert!(!report.fell_back);
/// assert!(report.words_after < report.words_before); // folded to `push 42`
/// let done = Interpreter::new(&optimized)
///     .run_entry(&mut NoHost, &mut CollectOutput::default())
///     .unwrap();
/// assert_eq!(done.value(), Some(42));
/// ```
pub fn optimize(program: &Program) -> (Program, Report) {
    optimize_with(program, Options::default())
}

/// Optimizes a verified program.
pub fn optimize_with(program: &Program, options: Options) -> (Program, Report) {
    let module = program.module();
    let mut report = Report {
        words_before: module.code.len(),
        ..Report::default()
    };
    let mut out = Module {
        code: Vec::with_capacity(module.code.len()),
        lines: crate::module::LineTable {
            files: module.lines.files.clone(),
            entries: Vec::new(),
        },
        ..module.clone()
    };
    let list_facts = crate::analysis::list_facts(program);
    let memory = crate::runtime::Memory::new(module);
    // A list only the embedder can change keeps its initial contents in
    // the folded masks, unless some function writes through a list
    // reference of unknown origin: the embedder may pass any list to it
    // (a call's list arguments are list numbers), and the original program
    // would then read the written contents.
    let constant_lists: Vec<Option<Vec<i32>>> = (0..module.lists.len())
        .map(|l| {
            (list_facts.constant[l] && !list_facts.writes_through_refs)
                .then(|| memory.list(l as u32).to_vec())
        })
        .collect();
    let main_rules = Rules {
        pair_loads: false,
        ..options.rules
    };
    let pairing = Rules {
        fold: false,
        operand_forms: false,
        compare_branch: false,
        fold_lists: false,
        pair_loads: options.rules.pair_loads,
    };
    let facts_of = |f: &crate::module::Function| peephole::Facts {
        int_slot: (0..f.frame_slots())
            .map(|s| f.slot_type(s) == Some(crate::isa::Ty::Int))
            .collect(),
        constant_lists: constant_lists.clone(),
    };
    let rounds = |body: &mut Body, facts: &peephole::Facts, report: &mut Report| {
        for _ in 0..MAX_ROUNDS {
            let r = peephole::run(&mut body.items, main_rules, facts);
            let j = jumps::run(body, options.invert_loops);
            report.rewrites += r;
            report.jump_changes += j;
            if r + j == 0 {
                break;
            }
        }
    };
    let mut bodies: Vec<Body> = Vec::with_capacity(module.functions.len());
    for (index, info) in program.function_infos().iter().enumerate() {
        let mut body = Body::lift(module, info);
        rounds(&mut body, &facts_of(&module.functions[index]), &mut report);
        bodies.push(body);
    }
    if options.inline {
        // Callees first, so that what is inlined is already optimized and
        // chains of small functions flatten; each caller is optimized
        // again with the bodies it received. The program's growth budget
        // is shared by all callers.
        let size: usize = bodies.iter().map(|b| b.instrs().count()).sum();
        let mut budget = options.inline_limits.budget(size);
        for f in inline::callees_first(&bodies) {
            let mut body = bodies[f].clone();
            let mut func = out.functions[f].clone();
            let n = inline::inline_calls(
                f,
                &mut body,
                &mut func,
                &bodies,
                &out.functions,
                options.inline_limits,
                &mut budget,
            );
            if n > 0 {
                report.inlined += n;
                rounds(&mut body, &facts_of(&func), &mut report);
                bodies[f] = body;
                out.functions[f] = func;
            }
        }
    }
    for (index, mut body) in bodies.into_iter().enumerate() {
        let facts = facts_of(&out.functions[index]);
        report.rewrites += peephole::run(&mut body.items, pairing, &facts);
        if !positions_in_order(&body) {
            // Only the function holding a module's first line entry can
            // mix instructions with and without positions, and a line
            // table can only say "no position" before its first entry. A
            // rewrite that gave an instruction a position ahead of ones
            // without (a threaded jump taking its target's position) would
            // lend that position to them, so that function stays as it was.
            body = Body::lift(module, &program.function_infos()[index]);
            out.functions[index] = module.functions[index].clone();
        }
        let start = out.code.len() as u32;
        body.lower(start, &mut out.code, &mut out.lines.entries);
        let f = &mut out.functions[index];
        f.start = start;
        f.len = out.code.len() as u32 - start;
    }
    if out.check_tables().is_err() {
        return fallback(program, report);
    }
    // Fusion shortens stack lifetimes: verifying recomputes each
    // function's maximum.
    report.words_after = out.code.len();
    match Program::sized(out) {
        Ok(p) => (p, report),
        Err(_) => fallback(program, report),
    }
}

/// Whether no instruction without a source position follows one with a
/// position, which is what a line table can express.
fn positions_in_order(body: &Body) -> bool {
    let mut seen_position = false;
    for ins in body.instrs() {
        match ins.pos {
            Some(_) => seen_position = true,
            None if seen_position => return false,
            None => {}
        }
    }
    true
}

fn fallback(program: &Program, mut report: Report) -> (Program, Report) {
    report.fell_back = true;
    report.words_after = report.words_before;
    (program.clone(), report)
}
