//! The engine runs Che (Nimzo 3) programs as `CheProgram`: all rules at the
//! root, as Nimzo 3 did; in node mode too, since a Che program has no
//! `Evaluate()` hook (the engine says so).

use che_engine::advisor::{AdviceMode, Advisor, Backend, ProgramSource};
use che_engine::engine::{Engine, EngineEvent};
use che_engine::host::AdviceHost;
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use chess_core::Position;
use std::path::PathBuf;

fn program(name: &str, source: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("che-engine-che3-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.che3"));
    std::fs::write(&path, source).expect("write program");
    path
}

fn choose(source: &ProgramSource, backend: Backend, mode: AdviceMode) -> (String, Vec<String>) {
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        program: source.clone(),
        backend,
        advice_mode: mode,
        ..EngineOptions::default()
    });
    assert_eq!(engine.program_error(), None);
    engine.new_game();
    assert!(engine.set_position(Position::startpos(), &[]).is_ok());
    let mut notes = Vec::new();
    let go = GoParams {
        depth: Some(4),
        ..GoParams::default()
    };
    let result = engine.think(&go, &SearchControl::new(), &mut |e| {
        if let EngineEvent::Note(n) = e {
            notes.push(n);
        }
    });
    (
        result.best.map(|m| m.to_string()).unwrap_or_default(),
        notes,
    )
}

/// A strong move is worth 40; an advice named twelve times in a rule adds
/// it twelve times, enough to make a2-a3 the engine's choice.
const A2A3: &str = "
pattern home { wpwns(a2) } { };
advice push strongmvs(wP a2a3);
rule r { home } push push push push push push push push push push push push;
";

#[test]
fn a_che_program_steers_the_engine_in_root_and_node_mode() {
    let path = program("a2a3", A2A3);
    let (plain, _) = choose(&ProgramSource::Shanny, Backend::Interp, AdviceMode::Off);
    assert_ne!(plain, "a2a3");
    for backend in [Backend::Interp, Backend::Jit] {
        let source = ProgramSource::File(path.clone());
        let (root, _) = choose(&source, backend, AdviceMode::Root);
        assert_eq!(root, "a2a3", "{backend}");
        let (node, notes) = choose(&source, backend, AdviceMode::Node);
        assert_eq!(node, "a2a3", "{backend}");
        assert!(
            notes.iter().any(|n| n.contains("no Evaluate() hook")),
            "{notes:?}"
        );
    }
}

#[test]
fn the_advisor_loads_che_programs() {
    let path = program("table", A2A3);
    let mut advisor = Advisor::load(&ProgramSource::File(path)).expect("loads");
    assert!(!advisor.has_hook());
    let pos = Position::startpos();
    let mut host = AdviceHost::new(&pos);
    let mut session = advisor.session(Backend::Jit, &mut host).expect("session");
    session.run_root(&pos).expect("runs");
    assert_eq!(session.advice().move_bonus[0][8][16], 12 * 40);
    // A Che compile error comes back with the .che3 position and caret.
    let bad = program("bad", "pattern p { wpwns(E4) } { };\n");
    let e = Advisor::load(&ProgramSource::File(bad)).expect_err("does not compile");
    let text = e.to_string();
    assert!(
        text.contains("bad.che3:1:19: error: squares are written in lower case"),
        "{text}"
    );
    assert!(text.contains('^'), "{text}");
}
