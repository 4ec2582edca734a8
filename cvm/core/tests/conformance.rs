//! Runs every conformance case in `tests/conformance/` on the interpreter.
//! The `jit` crate runs the same files on the JIT. A last test checks that
//! every opcode of the instruction set table appears in some case, so an
//! opcode cannot be added with its arms but without a case that pins down
//! its behaviour on every backend.

use cvm::isa::{instructions, OPCODES};
use cvm::Backend;
use cvm_testkit::conformance::Case;
use std::collections::HashSet;
use std::path::PathBuf;

fn case_files() -> Vec<PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("conformance directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    paths.sort();
    paths
}

#[test]
fn conformance_cases_pass_on_the_interpreter() {
    let paths = case_files();
    assert!(paths.len() >= 30, "conformance cases missing");
    let mut failures = Vec::new();
    for path in &paths {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(path).expect("readable case");
        match Case::parse(&name, &text) {
            Ok(case) => {
                if let Err(e) = case.check(Backend::Interp) {
                    failures.push(e);
                }
            }
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_opcode_has_a_conformance_case() {
    let mut seen = HashSet::new();
    for path in case_files() {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("readable case");
        let case = Case::parse(&name, &text).unwrap_or_else(|e| panic!("{e}"));
        let code = &case.module.code;
        for (at, instr) in instructions(code, 0, code.len()) {
            let instr = instr.unwrap_or_else(|e| panic!("{name}: word {at}: {e}"));
            seen.insert(instr.opcode);
        }
    }
    let missing: Vec<&str> = OPCODES
        .iter()
        .filter(|o| !seen.contains(&o.opcode))
        .map(|o| o.mnemonic)
        .collect();
    assert!(
        missing.is_empty(),
        "opcodes no case of cvm/core/tests/conformance/ uses (add a case with its expected \
         behaviour): {missing:?}"
    );
}
