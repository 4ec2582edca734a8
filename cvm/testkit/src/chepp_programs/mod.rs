//! A generator of random Che++ programs that compile, driven by a byte
//! string: bytes -> syntax tree -> source text.
//!
//! Random text reaches little of the compiler beyond the lexer and the
//! parser's error recovery, and the CVM program generator ([`crate::programs`])
//! skips the front end entirely. This generator writes whole programs in
//! the language: global and local declarations in all their forms
//! (constants, variables with initial values, the four list forms, texts,
//! `extern` declarations, `include stdlib.che`), routines with value and
//! list parameters that call each other and themselves, every statement
//! (`if`/`elseif`/`else`, `while`, `repeat`, `for ... in` over lists,
//! parameters and literal lists, `switch` with `case`, `default` and
//! fall-through, `break`, `goto` and labels, `return`, `write`, `TextOut`),
//! expressions with every operator at every precedence, assignments and
//! `++`/`--` as values, chess literals of every kind, and calls of every
//! intrinsic and library routine with arguments of the kinds they take.
//! It keeps track of scopes as it goes, so the programs follow the static
//! rules and compile: one that does not is a bug in the generator or the
//! compiler (a test sweeps seeds to check).
//!
//! The module is always compiled (it has no dependencies and is small), so
//! that the stable property tests and the nightly fuzz targets share it.
//! Like [`crate::programs::generate`], the same bytes give the same program and
//! running out of bytes ends the program quickly. The programs may loop
//! or recurse without bound: run them with fuel and depth limits.

mod build;
pub mod tree;

use crate::programs::Bytes;
use chepp::{compile_with, CompileOptions, MemLoader};
use cvm::verify::Program;
use std::path::Path;

/// The file name generated programs are compiled under.
pub const FILE_NAME: &str = "gen.che";

/// The syntax tree of a program drawn from `data`.
pub fn generate_tree(data: &[u8]) -> tree::Program {
    let mut bytes = Bytes::new(data);
    build::Builder::new(&mut bytes).program()
}

/// The source text of a program drawn from `data`.
pub fn generate(data: &[u8]) -> String {
    generate_tree(data).to_string()
}

/// Compiles a program (as [`FILE_NAME`], with only the bundled
/// `stdlib.che` to include) and verifies it; `Err` carries the rendered
/// diagnostics.
pub fn compile(source: &str) -> Result<Program, String> {
    let loader = MemLoader::with(&[(FILE_NAME, source)]);
    let c = compile_with(&loader, Path::new(FILE_NAME), &CompileOptions::default());
    c.into_result().map_err(|e| e.rendered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_programs_compile() {
        let mut features = [0usize; 8];
        for seed in 0..500u64 {
            let data = crate::programs::seed_bytes(seed, 50 + (seed as usize % 10) * 60);
            let src = generate(&data);
            if let Err(e) = compile(&src) {
                panic!("seed {seed}:\n{src}\n{e}");
            }
            for (i, word) in [
                "switch", "goto", "for ", "repeat", "while", "include", "extern", "elseif",
            ]
            .iter()
            .enumerate()
            {
                if src.contains(word) {
                    features[i] += 1;
                }
            }
        }
        assert!(features.iter().all(|&n| n > 20), "{features:?}");
    }
}
