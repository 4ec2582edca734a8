//! Writes the seed corpora of the fuzz targets into `fuzz/corpus/<target>/`
//! (the folder `cargo fuzz run <target>` reads and grows; it is not
//! committed, so `fuzz/run-all.sh` runs this first).
//!
//! libFuzzer starts from its corpus, so the seeds decide what it explores
//! first: the project's own Che++ programs for the front end; the
//! conformance modules, the benchmark modules, the compiled Che++ programs
//! and some generated modules for the `.cmp` loader; and byte strings
//! known to make varied programs for the generator-driven targets.
//! Existing files are overwritten, other corpus entries are kept. Run
//! from anywhere (stable Rust is enough):
//!
//! ```text
//! cargo run --release --manifest-path fuzz/Cargo.toml -p che-fuzz-seeds [REPO_ROOT]
//! ```

use chepp::{compile_file, CompileOptions};
use std::fs;
use std::path::{Path, PathBuf};

/// Number of generator seeds per generator-driven target.
const GENERATED: u64 = 48;

/// Folders holding the project's Che++ programs.
const CHE_DIRS: [&str; 7] = [
    "cvm/chepp",
    "cvm/chepp/examples",
    "chess-core/engine/che",
    "benches/che",
    "benches/advice",
    "cvm/chepp/tests/che/diag",
    "cvm/chepp/tests/che/diag_chess",
];

/// Folders holding CVM assembly.
const ASM_DIRS: [&str; 2] = ["cvm/core/tests/conformance", "benches/programs"];

type Seeds = Vec<(String, Vec<u8>)>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = match std::env::args().nth(1) {
        Some(r) => PathBuf::from(r),
        // The repository root, seen from this crate.
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
    };
    let out = root.join("fuzz/corpus");
    let che = files(&root, &CHE_DIRS, "che")?;
    let sources: Seeds = che
        .iter()
        .map(|(name, path)| Ok((name.clone(), fs::read(path)?)))
        .collect::<std::io::Result<_>>()?;
    write_all(&out.join("che_frontend"), &sources)?;
    write_all(&out.join("cmp_loader"), &modules(&root, &che)?)?;
    for target in ["interp", "differential", "optimizer", "che_programs"] {
        write_all(&out.join(target), &generator_seeds())?;
    }
    write_all(&out.join("che3_frontend"), &che3_seeds(&root)?)?;
    for target in [
        "che_frontend",
        "che3_frontend",
        "cmp_loader",
        "interp",
        "differential",
        "optimizer",
        "che_programs",
    ] {
        let n = fs::read_dir(out.join(target))?.count();
        println!("{target}: {n} corpus files");
    }
    Ok(())
}

/// Byte strings for the generator-driven targets: lengths from a few bytes
/// (tiny programs, mostly knobs) to a couple of kilobytes (the generators'
/// budgets run out first).
fn generator_seeds() -> Seeds {
    (0..GENERATED)
        .map(|i| {
            let len = 8 + (i as usize * 37) % 1500;
            (
                format!("gen-{i:03}"),
                cvm_testkit::programs::seed_bytes(0xF022 + i, len),
            )
        })
        .collect()
}

/// Seeds of `che3_frontend`: the Che programs of the test suite as text
/// (a leading even byte) and generator byte strings (a leading odd byte).
fn che3_seeds(root: &Path) -> Result<Seeds, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for (name, path) in files(root, &["cvm/che3/tests/diag"], "che3")? {
        let mut bytes = vec![0u8];
        bytes.extend(fs::read(&path)?);
        out.push((name, bytes));
    }
    for (name, bytes) in generator_seeds() {
        let mut seeded = vec![1u8];
        seeded.extend(bytes);
        out.push((format!("che3-{name}"), seeded));
    }
    Ok(out)
}

/// The files with extension `ext` in `dirs`, sorted, named for the corpus.
fn files(
    root: &Path,
    dirs: &[&str],
    ext: &str,
) -> Result<Vec<(String, PathBuf)>, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for dir in dirs {
        let mut found: Vec<PathBuf> = fs::read_dir(root.join(dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        found.sort();
        for f in found {
            out.push((format!("{}-{}", dir.replace('/', "_"), file_name(&f)), f));
        }
    }
    Ok(out)
}

/// `.cmp` files: the assembled conformance cases and benchmark programs,
/// the Che++ programs that compile (includes resolved next to them), and
/// some generated modules (every opcode and intrinsic over the sweep).
fn modules(root: &Path, che: &[(String, PathBuf)]) -> Result<Seeds, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for (name, path) in files(root, &ASM_DIRS, "asm")? {
        let module = cvm::asm::assemble(&fs::read_to_string(&path)?)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        out.push((format!("{name}.cmp"), cvm::binary::write(&module)));
    }
    for (name, path) in che {
        if let Ok(program) = compile_file(path, &CompileOptions::default()).into_result() {
            out.push((format!("{name}.cmp"), cvm::binary::write(program.module())));
        }
    }
    for (name, bytes) in generator_seeds().iter().step_by(3) {
        let module = cvm_testkit::programs::generate(bytes);
        out.push((format!("{name}.cmp"), cvm::binary::write(&module)));
    }
    Ok(out)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn write_all(dir: &Path, seeds: &Seeds) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    for (name, bytes) in seeds {
        fs::write(dir.join(name), bytes)?;
    }
    Ok(())
}
