//! The crate's layout rules that the compiler cannot check: the analysis
//! (`src/analysis/`) is about the CVM program alone, so no file there may
//! name a Cranelift crate (`cranelift_codegen`, `cranelift_frontend`, ...)
//! or reach into the lowering, not even in a comment. (`docs/jit.md`,
//! "Compilation".)

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut work = vec![dir.to_path_buf()];
    while let Some(d) = work.pop() {
        for entry in std::fs::read_dir(&d).expect("readable source folder") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                work.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_analysis_needs_no_cranelift() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analysis");
    let files = sources(&dir);
    assert!(
        files.len() >= 4,
        "the analysis files moved? found {files:?}"
    );
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source");
        for (n, line) in text.lines().enumerate() {
            for banned in ["cranelift_", "cranelift::", "crate::lower"] {
                assert!(
                    !line.contains(banned),
                    "{}:{}: the analysis must not use Cranelift or the lowering: {line}",
                    file.display(),
                    n + 1
                );
            }
        }
    }
}
