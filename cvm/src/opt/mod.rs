//! The loophole optimizer.
//!
//! Donninger's compiler had a small "loophole" (keyhole) optimizer; this one
//! rewrites verified CVM code into equivalent code that runs faster on both
//! backends. Each function is lifted into a list of instructions and labels
//! ([`ir`]), rewritten by peephole rules ([`peephole`]: constant folding,
//! algebraic simplification and strength reduction, immediate- and
//! local-operand forms, compare-and-branch fusion) and control-flow
//! clean-ups ([`jumps`]: bounded jump threading, branch-over-jump inversion,
//! unreachable code, jumps to the next instruction), repeated until nothing
//! changes, and lowered back to words.
//!
//! What a program can observe is preserved: results, output lines, advice,
//! the kind of every runtime error and the fuel charged on every path. The
//! code offsets of errors change with the code, but their source positions
//! do not: a fused instruction keeps the position of the instruction that
//! could fail. The optimized module is verified again; should a rewrite ever
//! produce an unverifiable module (a bug), [`optimize`] returns the original
//! program unchanged instead.

pub mod ir;
pub mod jumps;
pub mod peephole;

use crate::module::Module;
use crate::verify::{analyze, Program};
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
    /// True when the result failed verification and the original was kept.
    pub fell_back: bool,
}

/// Optimization settings.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Which peephole rules run.
    pub rules: Rules,
}

/// Most rounds of rewriting per function.
const MAX_ROUNDS: usize = 16;

/// Optimizes a verified program with the default options.
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
    for (index, info) in program.function_infos().iter().enumerate() {
        let mut body = Body::lift(module, info);
        for _ in 0..MAX_ROUNDS {
            let r = peephole::run(&mut body.items, options.rules);
            let j = jumps::run(&mut body);
            report.rewrites += r;
            report.jump_changes += j;
            if r + j == 0 {
                break;
            }
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
    // Fusion shortens stack lifetimes: recompute each function's maximum.
    for i in 0..out.functions.len() {
        match analyze(&out, i as u32, false) {
            Ok(info) => out.functions[i].max_stack = info.max_depth,
            Err(_) => return fallback(program, report),
        }
    }
    report.words_after = out.code.len();
    match Program::new(out) {
        Ok(p) => (p, report),
        Err(_) => fallback(program, report),
    }
}

fn fallback(program: &Program, mut report: Report) -> (Program, Report) {
    report.fell_back = true;
    report.words_after = report.words_before;
    (program.clone(), report)
}
