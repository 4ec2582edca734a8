//! A generator of random Che (Nimzo 3) programs that compile, driven by a
//! byte string, and the check that ties the dialect's two back ends
//! together: the direct compilation and the Che++ the converter writes
//! must leave the same advice table.
//!
//! The programs use every pattern and advice function with arguments of
//! their kinds (empty lists, repeated elements, pawn rams on the eighth
//! row and non-lines for `gooddiags` included), negation, OR-lists,
//! patterns built on patterns, advices calling advices, guards, rules with
//! none or several patterns, comments between and after statements, line
//! breaks inside statements, and names that clash with Che++ words (which
//! the converter must escape). Like the other generators, the same bytes
//! give the same program, and running out of bytes ends it quickly.
//!
//! [`check_conversion`] is shared by the stable property test
//! (`cvm/che3/tests/che3_fuzz.rs`) and the nightly fuzz target
//! `che3_frontend`.

mod build;
pub mod tree;

use crate::oracle::ScenarioHost;
use crate::programs::Bytes;
use cvm::runtime::{Limits, NullOutput};
use cvm::verify::Program;
use cvm::Backend;
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;
use jit::Prepared;
use std::path::Path;

/// The file name generated programs are compiled under.
pub const FILE_NAME: &str = "gen.che3";

/// The file name the converted program is compiled under.
pub const CONVERTED_NAME: &str = "gen.che";

/// The fuel of one run in [`check_conversion`]: far more than any
/// generated program needs.
pub const FUEL: u64 = 50_000_000;

/// The syntax tree and layout of a program drawn from `data`.
pub fn generate_tree(data: &[u8]) -> (tree::Program, Vec<tree::Layout>) {
    let mut bytes = Bytes::new(data);
    build::Builder::new(&mut bytes).program()
}

/// The source text of a program drawn from `data`.
pub fn generate(data: &[u8]) -> String {
    let (program, layouts) = generate_tree(data);
    program.print(&layouts)
}

/// Compiles Che source (as [`FILE_NAME`]) and verifies it; `Err` carries
/// the rendered diagnostics.
pub fn compile(source: &str) -> Result<Program, String> {
    let loader = che3::MemLoader::with(&[(FILE_NAME, source)]);
    let c = che3::compile_with(
        &loader,
        Path::new(FILE_NAME),
        &che3::CompileOptions::default(),
    );
    c.into_result().map_err(|e| e.rendered)
}

/// Converts Che source to Che++ and compiles that with the Che++ front end;
/// `Err` when either step reports an error or the Che++ compiler a warning.
pub fn convert(source: &str) -> Result<(String, Program), String> {
    let loader = che3::MemLoader::with(&[(FILE_NAME, source)]);
    let c = che3::convert_with(
        &loader,
        Path::new(FILE_NAME),
        &che3::CompileOptions::default(),
    );
    let Some(text) = c.chepp else {
        return Err(c.render_diagnostics());
    };
    let loader = chepp::MemLoader::with(&[(CONVERTED_NAME, text.as_str())]);
    let compiled = chepp::compile_with(
        &loader,
        Path::new(CONVERTED_NAME),
        &chepp::CompileOptions::default(),
    );
    if !compiled.diagnostics.is_empty() {
        return Err(format!(
            "the converted program draws diagnostics:\n{}\n{text}",
            compiled.render_diagnostics()
        ));
    }
    match compiled.program {
        Some(p) => Ok((text, p)),
        None => Err("the Che++ compiler produced no module".into()),
    }
}

/// Runs `main()` of `program` on `board` on one backend, optimized or
/// not; the advice table, or the error as text.
pub fn advice(
    program: &Program,
    backend: Backend,
    optimize: bool,
    board: &BoardView,
) -> Result<AdviceTable, String> {
    let program = if optimize {
        cvm::opt::optimize(program).0
    } else {
        program.clone()
    };
    run_advice(program, backend, board)
}

/// Runs `main()` of `program` as it is on `backend`: [`advice`] without
/// the optimizer's step.
fn run_advice(
    program: Program,
    backend: Backend,
    board: &BoardView,
) -> Result<AdviceTable, String> {
    let prepared = Prepared::new(program, backend).map_err(|e| e.to_string())?;
    let mut vm = prepared.instance();
    vm.set_limits(Limits {
        fuel: Some(FUEL),
        ..Limits::default()
    });
    let mut host = ScenarioHost { board: *board };
    vm.run_entry(&mut host, &mut NullOutput)
        .map_err(|e| e.to_string())?;
    Ok(vm.advice().clone())
}

/// Where two advice tables differ, in words; `None` when they are equal.
pub fn table_difference(a: &AdviceTable, b: &AdviceTable) -> Option<String> {
    if a == b {
        return None;
    }
    for c in 0..2 {
        for k in 0..6 {
            for sq in 0..64 {
                if a.square_bonus[c][k][sq] != b.square_bonus[c][k][sq] {
                    return Some(format!(
                        "square_bonus[{c}][{k}][{sq}]: {} against {}",
                        a.square_bonus[c][k][sq], b.square_bonus[c][k][sq]
                    ));
                }
                if a.control_bonus[c][k][sq] != b.control_bonus[c][k][sq] {
                    return Some(format!(
                        "control_bonus[{c}][{k}][{sq}]: {} against {}",
                        a.control_bonus[c][k][sq], b.control_bonus[c][k][sq]
                    ));
                }
            }
            if a.piece_value[c][k] != b.piece_value[c][k] {
                return Some(format!(
                    "piece_value[{c}][{k}]: {} against {}",
                    a.piece_value[c][k], b.piece_value[c][k]
                ));
            }
        }
        for f in 0..64 {
            for t in 0..64 {
                if a.move_bonus[c][f][t] != b.move_bonus[c][f][t] {
                    return Some(format!(
                        "move_bonus[{c}][{f}][{t}]: {} against {}",
                        a.move_bonus[c][f][t], b.move_bonus[c][f][t]
                    ));
                }
            }
        }
    }
    Some("style, verbose or output fields differ".into())
}

/// The direct compilation of `source` and its conversion to Che++ give the
/// same advice table on `board`, on every backend, with and without the
/// optimizer (and the conversion compiles without a warning); returns that
/// table.
pub fn check_conversion(source: &str, board: &BoardView) -> Result<AdviceTable, String> {
    let mut runs = Vec::new();
    for backend in Backend::ALL {
        for optimize in [false, true] {
            runs.push((backend, optimize));
        }
    }
    check_conversion_on(source, board, &runs)
}

/// [`check_conversion`] on the given runs only (backend, optimized): each
/// run of the direct compilation and of the conversion is compared with
/// the direct compilation's plain run on the interpreter. The fuzz target
/// checks one run per input.
pub fn check_conversion_on(
    source: &str,
    board: &BoardView,
    runs: &[(Backend, bool)],
) -> Result<AdviceTable, String> {
    let direct = compile(source)?;
    let (text, converted) = convert(source)?;
    let want = run_advice(direct.clone(), Backend::Interp, board)?;
    // Each program is optimized at most once, and the reference run
    // (direct, interpreter, not optimized) is not repeated.
    let optimized = runs.iter().any(|&(_, o)| o).then(|| {
        (
            cvm::opt::optimize(&direct).0,
            cvm::opt::optimize(&converted).0,
        )
    });
    for &(backend, optimize) in runs {
        let (d, c) = match (&optimized, optimize) {
            (Some((d, c)), true) => (d, c),
            _ => (&direct, &converted),
        };
        if backend != Backend::Interp || optimize {
            let got = run_advice(d.clone(), backend, board)?;
            if let Some(diff) = table_difference(&want, &got) {
                return Err(format!("direct, {backend}, optimized {optimize}: {diff}"));
            }
        }
        let got = run_advice(c.clone(), backend, board)?;
        if let Some(diff) = table_difference(&want, &got) {
            return Err(format!(
                "converted, {backend}, optimized {optimize}: {diff}\n--- Che++ ---\n{text}"
            ));
        }
    }
    Ok(want)
}

/// Any text through the front end (with a library file `lib.che3` to
/// include): diagnostics render, a module exists exactly when there is no
/// error, it verifies, and the program converts to Che++ that compiles
/// without a diagnostic. `Err` describes the first broken promise; a panic
/// anywhere is a bug too.
pub fn check_front_end(source: &str) -> Result<(), String> {
    let loader = che3::MemLoader::with(&[
        (FILE_NAME, source),
        (
            "lib.che3",
            "pattern lib { wpwns(e4) } { };\nadvice libadv goodsqrs(wN d4);\n",
        ),
    ]);
    let options = che3::CompileOptions::default();
    let c = che3::compile_with(&loader, Path::new(FILE_NAME), &options);
    let _ = c.render_diagnostics();
    if c.program.is_some() != c.errors().next().is_none() {
        return Err("a module must exist exactly when there is no error".into());
    }
    if c.program.is_none() {
        return Ok(());
    }
    let converted = che3::convert_with(&loader, Path::new(FILE_NAME), &options);
    let Some(text) = converted.chepp else {
        return Err("a program that compiles does not convert".into());
    };
    let loader = chepp::MemLoader::with(&[(CONVERTED_NAME, text.as_str())]);
    let compiled = chepp::compile_with(
        &loader,
        Path::new(CONVERTED_NAME),
        &chepp::CompileOptions::default(),
    );
    if compiled.diagnostics.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the converted program draws diagnostics:\n{}\n{text}",
            compiled.render_diagnostics()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::programs::seed_bytes;

    #[test]
    fn generated_programs_compile_and_use_every_function() {
        let mut seen = std::collections::HashSet::new();
        let mut features = [0usize; 5];
        for seed in 0..600u64 {
            let data = seed_bytes(seed, 40 + (seed as usize % 12) * 40);
            let src = generate(&data);
            if let Err(e) = compile(&src) {
                panic!("seed {seed}:\n{src}\n{e}");
            }
            for f in che3::functions::FUNCTIONS {
                if src.contains(&format!("{}(", f.name)) {
                    seen.insert(f.name);
                }
            }
            for (i, word) in ["!", "{ !", "\n   ", "# after", "rule"].iter().enumerate() {
                if src.contains(word) {
                    features[i] += 1;
                }
            }
        }
        assert_eq!(seen.len(), che3::functions::FUNCTIONS.len());
        assert!(features.iter().all(|&n| n > 20), "{features:?}");
    }
}
