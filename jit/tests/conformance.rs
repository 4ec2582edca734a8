//! Runs every conformance case of `cvm/core/tests/conformance/` on the JIT: the
//! same files, parsed and checked by the same harness
//! (`cvm_testkit::conformance`) that runs them on the interpreter.

use cvm::Backend;
use cvm_testkit::conformance::Case;
use std::path::{Path, PathBuf};

fn case_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cvm/core/tests/conformance");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("conformance directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    paths.sort();
    paths
}

/// The verified program of case `name`.
fn verified(name: &str, case: &Case) -> Result<cvm::Program, String> {
    cvm::Program::new(case.module.clone()).map_err(|e| format!("{name}: does not verify: {e}"))
}

fn run_all(backend: Backend) -> Vec<String> {
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
                if let Err(e) = case.check(backend) {
                    failures.push(e);
                }
            }
            Err(e) => failures.push(e),
        }
    }
    failures
}

#[test]
fn conformance_cases_pass_on_the_jit() {
    let failures = run_all(Backend::Jit);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn conformance_cases_pass_on_the_interpreter_too() {
    // The same loop on the reference backend: a failure here means a case
    // file is wrong, not the JIT.
    let failures = run_all(Backend::Interp);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn conformance_cases_pass_on_the_tiered_backend() {
    let failures = run_all(Backend::Auto);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn conformance_cases_pass_with_a_switch_to_native_code_at_every_call() {
    let mut failures = Vec::new();
    let mut tried = 0;
    for path in case_files() {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("readable case");
        match Case::parse(&name, &text).and_then(|case| case.check_switch_points()) {
            Ok(n) => tried += n,
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The cases make calls: switch points were reached (a harness that
    // never switched would pass vacuously).
    assert!(tried > 20, "only {tried} switch points reached");
}

#[test]
fn conformance_cases_pass_with_the_baseline_code_generator() {
    if !jit::baseline::supported() {
        return;
    }
    let mut failures = Vec::new();
    for path in case_files() {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("readable case");
        let checked = Case::parse(&name, &text).and_then(|case| {
            let program = verified(&name, &case)?;
            let prepared = jit::Prepared::baseline(program)
                .map_err(|e| format!("{name}: the baseline cannot compile it: {e}"))?;
            case.check_prepared(&prepared)
        });
        if let Err(e) = checked {
            failures.push(e);
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
fn conformance_cases_pass_on_the_tiered_backends_kept_instances_of_native_code() {
    // Without a forced switch point, the embedder's call of a function that
    // has native code runs on an instance of that code the tiered instance
    // keeps. Each case's program is made hot by a first check (which
    // compiles the called function's closure at its first call, and must
    // pass as well); the second check's new instance then finds the code
    // and runs the whole call there. Once with Cranelift's code, once with
    // the baseline generator's.
    let mut codegens = vec![jit::CodeGen::Cranelift];
    if jit::baseline::supported() {
        codegens.push(jit::CodeGen::Baseline);
    }
    for codegen in codegens {
        let config = match codegen {
            jit::CodeGen::Cranelift => jit::TierConfig::by_calls(0, u32::MAX),
            jit::CodeGen::Baseline => jit::TierConfig::by_calls(u32::MAX, 0),
        };
        let mut failures = Vec::new();
        let mut with_code = 0;
        for path in case_files() {
            let name = path.display().to_string();
            let text = std::fs::read_to_string(&path).expect("readable case");
            let checked = Case::parse(&name, &text).and_then(|case| {
                let program = verified(&name, &case)?;
                let func = match &case.func {
                    Some(f) => program.module().function_index(f),
                    None => program
                        .module()
                        .entry
                        .or_else(|| program.module().function_index("main")),
                };
                let prepared = jit::Prepared::tiered(program, config);
                case.check_prepared(&prepared)?;
                let tiered = prepared.tiered_program().expect("a tiered program");
                if func.and_then(|f| tiered.codegen_of(f)) == Some(codegen) {
                    with_code += 1;
                }
                case.check_prepared(&prepared)
            });
            if let Err(e) = checked {
                failures.push(format!("{codegen:?}: {e}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        // Most cases call their function once; a harness whose function
        // never got code would pass vacuously.
        assert!(
            with_code > 20,
            "{codegen:?}: only {with_code} cases had code"
        );
    }
}
