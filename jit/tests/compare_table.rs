//! The comparison family of the instruction table against what the
//! backends execute: every opcode whose row names a relation and a form
//! (`cvm::isa::Compare`) is run, on the interpreter and the JIT, on pairs of
//! edge values, and must jump (or push 1) exactly when the row's relation
//! holds. The optimizer's rewrites and the JIT's condition codes are
//! derived from these rows, so a row that disagrees with the execution arms
//! would silently change programs; this test makes it loud.

use cvm::isa::{Form, OPCODES};
use cvm::{asm, CollectOutput, Interpreter, NoHost, Program, Vm};
use jit::JitProgram;

const VALUES: [i32; 7] = [i32::MIN, -2, -1, 0, 1, 2, i32::MAX];

/// A function `main(a, b)` that returns 1 when the comparison `mn` of the
/// given form holds (for the branch forms: jumps) on `a` and `b`, else 0.
/// For `BranchZero` the right operand is 0; for `IncBranchLocalImm` the
/// local `a` is incremented first; `b` goes into the immediate when the
/// form has one.
fn source(mn: &str, form: Form, b: i32) -> String {
    let test = match form {
        Form::Value => return format!(
            ".func main params 2 lists 0 locals 0 stack 2 value\n ldl 0\n ldl 1\n {mn}\n retv\n.end\n"
        ),
        Form::Branch => format!("ldl 0\n ldl 1\n {mn} T"),
        Form::BranchImm => format!("ldl 0\n {mn} {b} T"),
        Form::BranchLocalImm | Form::IncBranchLocalImm => format!("{mn} 0 {b} T"),
        Form::BranchZero => format!("ldl 0\n {mn} T"),
    };
    format!(
        ".func main params 2 lists 0 locals 0 stack 2 value\n {test}\n push 0\n retv\nT:\n push 1\n retv\n.end\n"
    )
}

#[test]
fn every_comparison_row_matches_both_backends() {
    let mut checked = 0;
    for info in OPCODES {
        let Some(c) = info.compare else { continue };
        for a in VALUES {
            for b in VALUES {
                let b = if c.form == Form::BranchZero { 0 } else { b };
                let lhs = if c.form == Form::IncBranchLocalImm {
                    a.wrapping_add(1)
                } else {
                    a
                };
                let want = i32::from(c.rel.holds(lhs, b));
                let src = source(info.mnemonic, c.form, b);
                let p = Program::new(asm::assemble(&src).unwrap_or_else(|e| panic!("{e}\n{src}")))
                    .unwrap_or_else(|e| panic!("{e}\n{src}"));
                let mut interp = Interpreter::new(&p);
                let code = JitProgram::compile(&p).expect("compiles");
                let mut native = code.instance();
                for vm in [&mut interp as &mut dyn Vm, &mut native] {
                    let got = vm
                        .call_by_name("main", &[a, b], &mut NoHost, &mut CollectOutput::default())
                        .expect("runs")
                        .value();
                    assert_eq!(
                        got,
                        Some(want),
                        "{} on {a}, {b}: the row says {:?}",
                        info.mnemonic,
                        c.rel
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}
