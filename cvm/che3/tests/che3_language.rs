//! The language around the functions: includes, comments, Latin-1 files,
//! names, rule order, guards, the documentation's own examples, runtime
//! errors at `.che3` positions, and large programs.

mod common;

use common::{advice_of, compile, compile_files, entries, sq, CONFIGS, START};
use cvm::runtime::{Limits, NullOutput, TrapKind};
use cvm_chess::BoardView;
use cvm_testkit::oracle::ScenarioHost;
use std::path::Path;

const N: usize = 1;

#[test]
fn include_reads_the_file_next_to_the_including_file() {
    let program = compile_files(&[
        (
            "dir/main.che3",
            "include lib.che3\ninclude sub/more.che3 # two\nrule r { } centre more;\n",
        ),
        ("dir/lib.che3", "advice centre goodsqrs(wN d4);\n"),
        (
            "dir/sub/more.che3",
            "include ../lib.che3\nadvice more goodsqrs(wN e4);\n",
        ),
        ("lib.che3", "this file is not the one next to main.che3"),
    ]);
    let t = common::advice(&program, &BoardView::from_fen(START).unwrap());
    // lib.che3 is read once, though two files include it.
    assert_eq!(t.square_bonus[0][N][sq("d4")], 20);
    assert_eq!(t.square_bonus[0][N][sq("e4")], 20);
    assert_eq!(entries(&t).len(), 2);
}

#[test]
fn include_folders_and_cycles() {
    let loader = che3::MemLoader::with(&[
        ("main.che3", "include a.che3\nrule r { } fromb;\n"),
        ("inc/a.che3", "include b.che3\ninclude a.che3\n"),
        (
            "inc/b.che3",
            "include a.che3\nadvice fromb goodsqrs(wN c3);\n",
        ),
    ]);
    let options = che3::CompileOptions {
        include_dirs: vec!["inc".into()],
    };
    let c = che3::compile_with(&loader, Path::new("main.che3"), &options);
    assert!(c.is_ok(), "{}", c.render_diagnostics());
    // Without the folder the include is missing, reported at its name.
    let c = che3::compile_with(
        &loader,
        Path::new("main.che3"),
        &che3::CompileOptions::default(),
    );
    let text = c.render_diagnostics();
    assert!(
        text.starts_with("main.che3:1:9: error: cannot find include file `a.che3`"),
        "{text}"
    );
}

#[test]
fn errors_in_included_files_name_those_files() {
    let loader = che3::MemLoader::with(&[
        ("main.che3", "include lib.che3\nrule r { } a.1;\n"),
        ("lib.che3", "# the library\nadvice a.1 goodsqrs(wN D4);\n"),
    ]);
    let c = che3::compile_with(
        &loader,
        Path::new("main.che3"),
        &che3::CompileOptions::default(),
    );
    let text = c.render_diagnostics();
    assert!(
        text.starts_with("lib.che3:2:24: error: squares are written in lower case"),
        "{text}"
    );
    assert_eq!(c.errors().count(), 1, "{text}");
}

#[test]
fn latin1_files_and_comments_everywhere() {
    let dir = std::env::temp_dir().join(format!("che3-latin1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("l\u{e4}ufer.che3");
    // "Läufer" in Latin-1 (0xE4) in comments, as a DOS editor wrote it.
    let bytes = b"# L\xE4ufer auf die lange Diagonale\n\
pattern fianchetto # g2 frei\n { !wpwns(g2) } # und\n { };\n\
advice diag { fianchetto } gooddiags(wB h1a8); # L\xE4ufer\n\
rule r { } diag;\n";
    std::fs::write(&path, bytes).unwrap();
    let c = che3::compile_file(&path, &che3::CompileOptions::default());
    assert!(c.is_ok(), "{}", c.render_diagnostics());
    assert!(c.sources.files()[0].text.contains("Läufer"));
    let converted = che3::convert_file(&path, &che3::CompileOptions::default());
    let text = converted.chepp.expect("converts");
    assert!(text.contains("# Läufer auf die lange Diagonale"), "{text}");
    assert!(text.contains("# g2 frei"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
    let program = c.program.unwrap();
    let t = common::advice(
        &program,
        &BoardView::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap(),
    );
    assert_eq!(entries(&t).len(), 8);
}

#[test]
fn names_of_letters_digits_and_dots() {
    let t = advice_of(
        "pattern 01 { } { };\npattern wFrench.01 { 01 } { };\nadvice .. goodsqrs(wN d4);\nrule x.y.z { wFrench.01 } ..;\n",
        START,
    );
    assert_eq!(t.square_bonus[0][N][sq("d4")], 20);
}

#[test]
fn every_rule_runs_in_program_order_when_its_patterns_hold() {
    let source = "
pattern white.e4 { wpwns(e4) } { };
pattern black.e5 { bpwns(e5) } { };
pattern nothing { wpwns(a5) } { };
advice one goodsqrs(wN d4);
advice two goodsqrs(wN d4) goodsqrs(wN e4);
rule both { white.e4 black.e5 } one;
rule also { } two;
rule never { white.e4 nothing } one two;
rule empty { white.e4 };
";
    let t = advice_of(
        source,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
    );
    assert_eq!(t.square_bonus[0][N][sq("d4")], 40);
    assert_eq!(t.square_bonus[0][N][sq("e4")], 20);
    let t = advice_of(source, START);
    assert_eq!(t.square_bonus[0][N][sq("d4")], 20);
    let t = advice_of("", START);
    assert!(entries(&t).is_empty());
}

/// The documentation's examples: a guard skips the rest of its advice;
/// independent conditions go into sub-advices.
#[test]
fn the_documented_examples() {
    let source = "
pattern wCstld { piecesqrs(wK g1 c1) } { };
pattern wQueenthere { piecesonbrd(wQ) } { };
pattern wBb5 { piecesqrs(wB b5) } { };
advice wFrench.01 wpwnmvs(c2c3);
advice wKsCstl goodmvs(wK e1g1);
advice wFrench.03 wFrench.01 wKsCstl { wCstld } wpwnmvs(d4c5) goodsqrs(wN d4);
advice IfCstld { wCstld } wpwnmvs(d4c5) goodsqrs(wN d4);
advice IfQueenKingAttack { wQueenthere } wkingattack(kside);
advice wFrench.04 wFrench.01 wKsCstl IfCstld IfQueenKingAttack;
advice badBc8d7 { !wBb5} weakmvs(bB c8d7);
rule dependent { } wFrench.03 badBc8d7;
";
    // Not castled: the advices after the guard are skipped.
    let french = "rnbqkbnr/ppp2ppp/4p3/3pP3/3P4/8/PPP2PPP/RNBQKBNR b KQkq - 0 3";
    let t = advice_of(source, french);
    assert_eq!(t.move_bonus[0][sq("c2")][sq("c3")], 20);
    assert_eq!(t.move_bonus[0][sq("e1")][sq("g1")], 20);
    assert_eq!(t.move_bonus[0][sq("d4")][sq("c5")], 0);
    assert_eq!(t.square_bonus[0][N][sq("d4")], 0);
    assert_eq!(t.move_bonus[1][sq("c8")][sq("d7")], -20);
    // Castled, a white bishop on b5: the rest runs, c8d7 is no longer weak.
    let castled = "rnbqkbnr/ppp2ppp/4p3/1B1pP3/3P4/5N2/PPP2PPP/RNBQ1RK1 b kq - 0 5";
    let t = advice_of(source, castled);
    assert_eq!(t.move_bonus[0][sq("d4")][sq("c5")], 20);
    assert_eq!(t.square_bonus[0][N][sq("d4")], 20);
    assert_eq!(t.move_bonus[1][sq("c8")][sq("d7")], 0);
    // Independent conditions: the king attack runs without castling.
    let independent = source.replace(
        "rule dependent { } wFrench.03 badBc8d7;",
        "rule independent { } wFrench.04;",
    );
    let t = advice_of(&independent, french);
    assert_eq!(t.move_bonus[0][sq("d4")][sq("c5")], 0);
    assert_eq!(
        t.square_bonus[0][3][sq("h1")],
        20,
        "the rooks go to the king side"
    );
}

#[test]
fn runtime_errors_point_at_the_che_source() {
    let source = "pattern p { wpwns(e4) } { };\nadvice a goodsqrs(wN d4)\n  goodsqrs(wN e4);\nrule r { p } a;\nrule s { } a;\n";
    let c = che3::compile_str("fuel.che3", source, &che3::CompileOptions::default());
    let program = c.program.clone().unwrap();
    let mut seen = None;
    for (backend, optimize) in [(cvm::Backend::Interp, false), (cvm::Backend::Jit, false)] {
        let prepared = common::prepare(&program, backend, optimize);
        let mut vm = prepared.instance();
        vm.set_limits(Limits {
            fuel: Some(1),
            ..Limits::default()
        });
        let mut host = ScenarioHost {
            board: BoardView::from_fen(START).unwrap(),
        };
        let e = vm.run_entry(&mut host, &mut NullOutput).unwrap_err();
        assert_eq!(e.kind, TrapKind::OutOfFuel);
        let pos = e.pos.clone().expect("a source position");
        assert_eq!(pos.file, "fuel.che3");
        match &seen {
            None => seen = Some(e),
            Some(first) => assert_eq!(first, &e),
        }
    }
    let e = seen.unwrap();
    let text = c.render_runtime_error(&e);
    assert!(text.starts_with("fuel.che3:"), "{text}");
    assert!(text.contains('^'), "{text}");
}

#[test]
fn long_chains_compile_and_fail_only_by_depth() {
    // 301 patterns, each the negation of the one before. (Longer chains
    // work too, but the JIT's compile time grows faster than linearly with
    // the depth of a call chain, so the test stays short.)
    let mut source = String::from("pattern p0 { wpwns(e2) } { };\n");
    for i in 1..301 {
        source.push_str(&format!("pattern p{i} {{ !p{} }} {{ }};\n", i - 1));
    }
    source.push_str("advice a goodsqrs(wN d4);\nrule shallow { p10 } a;\nrule deep { p299 } a;\n");
    let program = compile(&source);
    for (backend, optimize) in CONFIGS {
        let prepared = common::prepare(&program, backend, optimize);
        let mut vm = prepared.instance();
        vm.set_limits(Limits {
            fuel: Some(1_000_000),
            max_depth: 5000,
        });
        let mut host = ScenarioHost {
            board: BoardView::from_fen(START).unwrap(),
        };
        vm.run_entry(&mut host, &mut NullOutput).unwrap();
        // p0 holds; p10 = p0 (ten negations); p299 is odd: false.
        assert_eq!(
            vm.advice().square_bonus[0][N][sq("d4")],
            20,
            "{backend} {optimize}"
        );
        vm.reset();
        vm.set_limits(Limits {
            fuel: Some(1_000_000),
            max_depth: 100,
        });
        let e = vm.run_entry(&mut host, &mut NullOutput).unwrap_err();
        assert!(matches!(e.kind, TrapKind::CallDepth(100)), "{e}");
    }
}
