//! Property tests: no input makes the loader, the verifier or the
//! interpreter panic.
//!
//! Arbitrary bytes, valid files with corrupted bytes, and modules with
//! random code words all go through `load`/`Program::new`; whatever
//! verifies is run with a fuel bound and must finish with a result or a
//! typed error.

use cvm::isa::OPCODES;
use cvm::module::{Function, Global, ListDef, Module, TextDef};
use cvm::Vm;
use cvm::{binary, load, Interpreter, Limits, NoHost, NullOutput, Program};
use proptest::prelude::*;

fn sample() -> Vec<u8> {
    let text = include_str!("conformance/forin.asm");
    binary::write(&cvm::asm::assemble(text).expect("valid"))
}

fn run_bounded(program: &Program) {
    let mut vm = Interpreter::new(program);
    vm.set_limits(Limits {
        fuel: Some(2_000),
        max_depth: 64,
    });
    for f in 0..program.module().functions.len() as u32 {
        let func = &program.module().functions[f as usize];
        let args: Vec<i32> = (0..func.value_params)
            .map(|i| i as i32 - 1)
            .chain((0..func.list_params).map(|_| 0))
            .collect();
        if func.list_params > 0 && program.module().lists.is_empty() {
            continue;
        }
        let _ = vm.call(f, &args, &mut NoHost, &mut NullOutput);
    }
}

/// A code word: mostly valid opcodes, small operands, sometimes anything.
fn word() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => (0..OPCODES.len()).prop_map(|i| OPCODES[i].opcode as u32),
        4 => 0u32..8,
        1 => any::<u32>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = load(&bytes);
    }

    #[test]
    fn corrupted_files_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        let mut bytes = sample();
        for (at, v) in edits {
            let n = bytes.len();
            bytes[at % n] = v;
        }
        if let Ok(program) = load(&bytes) {
            run_bounded(&program);
        }
    }

    #[test]
    fn random_code_never_panics(
        code in proptest::collection::vec(word(), 1..48),
        split in 0usize..48,
        params in 0u32..3,
        locals in 0u32..3,
        stack in 0u32..6,
        returns in any::<bool>(),
    ) {
        let split = split.min(code.len());
        let mut functions = Vec::new();
        if split > 0 {
            functions.push(Function { name: "a".into(), value_params: params, locals, max_stack: stack, start: 0, len: split as u32, returns_value: returns, ..Function::default() });
        }
        if split < code.len() {
            functions.push(Function { name: "b".into(), list_params: 1, locals, max_stack: stack, start: split as u32, len: (code.len() - split) as u32, returns_value: !returns, ..Function::default() });
        }
        let module = Module {
            functions,
            globals: vec![Global { name: "g".into(), init: 3 }],
            lists: vec![ListDef { name: "l".into(), capacity: 3, init: vec![1, 2] }],
            texts: vec![TextDef { name: "t".into(), text: "x".into() }],
            code,
            ..Module::default()
        };
        let bytes = binary::write(&module);
        let read = binary::read(&bytes);
        prop_assert_eq!(read.as_ref(), Ok(&module));
        if let Ok(program) = Program::new(module) {
            run_bounded(&program);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Generated valid programs verify, survive both round trips and run to
    /// a result or a typed error.
    #[test]
    fn generated_programs_round_trip_and_run(data in proptest::collection::vec(any::<u8>(), 0..400)) {
        let module = cvm_testkit::programs::generate(&data);
        let program = Program::new(module.clone()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let listing = cvm::asm::disassemble(&module);
        let again = cvm::asm::assemble(&listing);
        prop_assert_eq!(again.as_ref(), Ok(&module));
        let read = binary::read(&binary::write(&module));
        prop_assert_eq!(read.as_ref(), Ok(&module));
        run_bounded(&program);
    }
}
