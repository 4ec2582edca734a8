//! The registry of dialects and the one compile function: every dialect is
//! found by name and extension, compiles text and files to a verified
//! program with diagnostics that point into its sources, keeps the file
//! size bound and the error cap, and each program is verified once per
//! transformation (the builder's, the optimizer's).

use che_pipeline::{
    by_name, by_path, claiming, compile, read_module, Dialect, FsLoader, Input, MemLoader,
    ModuleError, ModuleFile, ModuleKind, Options, DIALECTS,
};
use cvm::verify::verifications;
use cvm::{CollectOutput, Interpreter, NoHost, Vm};
use std::collections::HashSet;
use std::path::Path;

/// A program of each dialect that compiles, with its file name.
fn sample(dialect: &str) -> (&'static str, &'static str) {
    match dialect {
        "che++" => ("p.che", "procedure main()\nbegin\n  write 6*7;\nend;\n"),
        "che3" => (
            "p.che3",
            "pattern always { } { };\nadvice centre goodsqrs(wN d5 e5);\nrule r { always } centre;\n",
        ),
        "cheg" => ("p.cheg", "ENTRY K,K\n\tADD A,\"2,\"3\n\tBREAK \"1,A\n\tLEAVE\nEND\n"),
        other => panic!("no sample for the dialect {other}"),
    }
}

/// A program of each dialect with an error on its second line.
fn broken(dialect: &str) -> &'static str {
    match dialect {
        "che++" => "procedure main()\nbegin write nosuchname; end;\n",
        "che3" => "pattern always { } { };\nadvice centre nosuchfunction(wN d5);\n",
        "cheg" => "ENTRY K,K\n\tNOSUCHOP 1\nEND\n",
        other => panic!("no sample for the dialect {other}"),
    }
}

#[test]
fn every_dialect_is_found_by_its_name_and_its_extensions() {
    let names: HashSet<&str> = DIALECTS.iter().map(|d| d.name()).collect();
    assert_eq!(names, HashSet::from(["che++", "che3", "cheg"]));
    let mut extensions = HashSet::new();
    for d in DIALECTS {
        assert_eq!(by_name(d.name()).map(Dialect::name), Some(d.name()));
        for ext in d.extensions() {
            assert!(extensions.insert(*ext), "two dialects claim .{ext}");
            let path = format!("dir/file.{ext}");
            assert_eq!(by_path(Path::new(&path)).name(), d.name());
        }
    }
    assert_eq!(by_name("chepp").map(Dialect::name), Some("che++"));
    assert!(by_name("pascal").is_none());
    // A file no dialect claims is Che++, as `che` reads it.
    assert!(claiming(Path::new("notes.txt")).is_none());
    assert_eq!(by_path(Path::new("notes.txt")).name(), "che++");
    assert_eq!(by_path(Path::new("Makefile")).name(), "che++");
}

#[test]
fn every_dialect_compiles_text_and_files_to_a_verified_program() {
    for d in DIALECTS {
        let (name, text) = sample(d.name());
        let from_text = compile(
            d,
            Input::Text { name, text },
            &FsLoader,
            &Options::default(),
        );
        assert!(
            from_text.is_ok(),
            "{}: {}",
            d.name(),
            from_text.render_diagnostics()
        );
        assert_eq!(from_text.dialect, d.name());
        assert!(
            from_text.optimizer.is_some(),
            "{}: the optimizer ran",
            d.name()
        );
        let loader = MemLoader::with(&[(name, text)]);
        let from_file = compile(
            d,
            Input::File(Path::new(name)),
            &loader,
            &Options::default(),
        );
        let (a, b) = (
            from_text.program.expect("text"),
            from_file.program.expect("file"),
        );
        assert_eq!(a.module().code, b.module().code, "{}", d.name());
        assert_eq!(from_file.sources.files().len(), 1);
    }
}

#[test]
fn a_che_plus_plus_program_runs_as_compiled() {
    let (name, text) = sample("che++");
    let c = compile(
        by_path(Path::new(name)),
        Input::Text { name, text },
        &FsLoader,
        &Options::default(),
    );
    let program = c.program.expect("compiles");
    let mut out = CollectOutput::default();
    Interpreter::new(&program)
        .run_entry(&mut NoHost, &mut out)
        .expect("runs");
    assert_eq!(out.lines[0].to_string(), "42 0x0000002A");
}

#[test]
fn errors_are_diagnostics_with_spans_and_no_program() {
    for d in DIALECTS {
        let name = format!("bad.{}", d.extensions()[0]);
        let input = Input::Text {
            name: &name,
            text: broken(d.name()),
        };
        let c = compile(d, input, &FsLoader, &Options::default());
        assert!(!c.is_ok(), "{}", d.name());
        assert!(c.program.is_none());
        let error = c.errors().next().expect("an error");
        let span = error.span.expect("the error has a place");
        assert_eq!(
            c.sources.line_col(span).0,
            2,
            "{}: {}",
            d.name(),
            c.render_diagnostics()
        );
        assert!(
            c.render_diagnostics().starts_with(&format!("{name}:2:")),
            "{}",
            c.render_diagnostics()
        );
    }
}

#[test]
fn an_unreadable_file_is_one_error_in_every_dialect() {
    for d in DIALECTS {
        let c = compile(
            d,
            Input::File(Path::new("/nonexistent/x")),
            &FsLoader,
            &Options::default(),
        );
        assert!(!c.is_ok());
        assert_eq!(c.errors().count(), 1);
        assert!(
            c.render_diagnostics().contains("cannot read"),
            "{}",
            c.render_diagnostics()
        );
    }
}

#[test]
fn files_over_the_size_limit_are_refused_by_every_dialect() {
    let dir = std::env::temp_dir().join(format!("che-pipeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let limit = cvm_frontend::file::SOURCE_LIMIT as usize;
    for d in DIALECTS {
        let path = dir.join(format!("big.{}", d.extensions()[0]));
        std::fs::write(&path, vec![b' '; limit + 1]).expect("writes");
        let c = compile(d, Input::File(&path), &FsLoader, &Options::default());
        let text = c.render_diagnostics();
        assert!(!c.is_ok());
        assert!(
            text.contains("larger than the limit of 4194304 bytes"),
            "{}: {text}",
            d.name()
        );
        let _ = std::fs::remove_file(&path);
    }
    let _ = std::fs::remove_dir(&dir);
}

#[test]
fn at_most_one_hundred_errors_per_file_are_reported() {
    let mut text = String::from("procedure main()\nbegin\n");
    for i in 0..150 {
        text.push_str(&format!("  write undefined{i};\n"));
    }
    text.push_str("end;\n");
    let c = compile(
        &chepp::CHEPP,
        Input::Text {
            name: "many.che",
            text: &text,
        },
        &FsLoader,
        &Options::default(),
    );
    let rendered = c.render_diagnostics();
    assert!(!c.is_ok());
    assert_eq!(rendered.matches(": error: cannot find").count(), 100);
    assert!(rendered.contains("aborting after 100 errors in this file; 50 more not reported"));
}

#[test]
fn a_program_is_verified_once_by_the_builder_and_once_by_the_optimizer() {
    for d in DIALECTS {
        let (name, text) = sample(d.name());
        let input = Input::Text { name, text };
        let before = verifications();
        let plain = Options {
            optimize: false,
            ..Options::default()
        };
        let c = compile(d, input, &FsLoader, &plain);
        assert!(c.is_ok());
        assert_eq!(
            verifications() - before,
            1,
            "{}: the builder's verification",
            d.name()
        );
        let before = verifications();
        let c = compile(d, input, &FsLoader, &Options::default());
        assert!(c.is_ok());
        let report = c.optimizer.expect("optimized");
        let expected = if report.fell_back { 1 } else { 2 };
        assert_eq!(
            verifications() - before,
            expected,
            "{}: builder and optimizer",
            d.name()
        );
    }
}

#[test]
fn module_files_are_loaded_verified_or_assembled() {
    let dir = std::env::temp_dir().join(format!("che-pipeline-mod-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let asm = ".func main params 0 lists 0 locals 0 stack 1 value\n    push 7\n    retv\n.end\n";
    let asm_path = dir.join("m.asm");
    std::fs::write(&asm_path, asm).expect("writes");
    assert_eq!(ModuleKind::of(&asm_path), Some(ModuleKind::Asm));
    let before = verifications();
    let file = read_module(&asm_path, ModuleKind::Asm).expect("assembles");
    assert!(matches!(file, ModuleFile::Assembled(_)));
    assert_eq!(verifications(), before, "assembling does not verify");
    let program = file.verify().expect("verifies");
    assert_eq!(verifications() - before, 1);

    let cmp_path = dir.join("m.cmp");
    std::fs::write(&cmp_path, cvm::binary::write(program.module())).expect("writes");
    let before = verifications();
    let file = read_module(&cmp_path, ModuleKind::Cmp).expect("loads");
    assert!(matches!(file, ModuleFile::Loaded(_)));
    file.verify().expect("verified");
    assert_eq!(
        verifications() - before,
        1,
        "a .cmp file is verified as it loads, once"
    );

    std::fs::write(&cmp_path, b"not a module").expect("writes");
    assert!(matches!(
        read_module(&cmp_path, ModuleKind::Cmp),
        Err(ModuleError::Cmp(_))
    ));
    assert!(matches!(
        read_module(&dir.join("missing.asm"), ModuleKind::Asm),
        Err(ModuleError::Read(_))
    ));
    let _ = std::fs::remove_dir_all(&dir);
}
