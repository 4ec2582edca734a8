//! The engine obeys its Che++ advice program, on both backends.
//!
//! Each test writes a small program, runs the engine on a position with and without it, and checks
//! the effect the advice semantics (docs/che-reference.md, docs/engine.md) predict: a rewarded
//! move is played where it otherwise is not; a square bonus draws a piece to its square; a piece
//! value change, a style override or a control bonus moves the static evaluation by exactly the
//! hand-computed amount; the `Evaluate()` hook steers the search in node mode only.

use che_engine::advisor::{AdviceMode, Backend, ProgramSource};
use che_engine::engine::{Engine, EngineEvent};
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use chess_core::Position;
use std::path::PathBuf;

const BACKENDS: [Backend; 2] = [Backend::Interp, Backend::Jit];

/// Writes `source` to a fresh file and returns its path.
fn program(name: &str, source: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("che-engine-advice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.che"));
    std::fs::write(&path, source).expect("write program");
    path
}

fn engine(source: ProgramSource, backend: Backend, mode: AdviceMode) -> Engine {
    let e = Engine::new(EngineOptions {
        hash_mb: 4,
        program: source,
        backend,
        advice_mode: mode,
        ..EngineOptions::default()
    });
    assert_eq!(e.program_error(), None);
    e
}

/// The move the engine chooses in `fen` at `depth`, with the notes it printed.
fn choose(engine: &mut Engine, fen: &str, depth: u32) -> (String, Vec<String>) {
    engine.new_game();
    let pos = Position::from_fen(fen).expect("fen");
    assert!(engine.set_position(pos, &[]).is_ok());
    let mut notes = Vec::new();
    let go = GoParams {
        depth: Some(depth),
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

const START: &str = chess_core::STARTPOS_FEN;

#[test]
fn a_rewarded_move_is_played() {
    let path = program(
        "reward",
        "procedure main()\nbegin\n  SetMvs(w, 500, a2a3);\nend;\n",
    );
    let (plain, _) = choose(
        &mut engine(ProgramSource::Shanny, Backend::Interp, AdviceMode::Off),
        START,
        4,
    );
    assert_ne!(
        plain, "a2a3",
        "the test needs a position where a2a3 is not chosen anyway"
    );
    let (shanny, _) = choose(
        &mut engine(ProgramSource::Shanny, Backend::Interp, AdviceMode::Root),
        START,
        4,
    );
    assert_ne!(shanny, "a2a3");
    for backend in BACKENDS {
        let mut e = engine(ProgramSource::File(path.clone()), backend, AdviceMode::Root);
        let (advised, _) = choose(&mut e, START, 4);
        assert_eq!(advised, "a2a3", "{backend}");
        // Advice is per root position: Black's bonuses are not White's.
        let (black, _) = choose(
            &mut e,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            4,
        );
        assert_ne!(black, "a7a6");
    }
}

#[test]
fn a_square_bonus_draws_the_piece_there() {
    let path = program(
        "square",
        "procedure main()\nbegin\n  SetSqrs(wN, 300, h3);\nend;\n",
    );
    let (plain, _) = choose(
        &mut engine(ProgramSource::Shanny, Backend::Interp, AdviceMode::Off),
        START,
        4,
    );
    assert_ne!(plain, "g1h3");
    for backend in BACKENDS {
        let (advised, _) = choose(
            &mut engine(ProgramSource::File(path.clone()), backend, AdviceMode::Root),
            START,
            4,
        );
        assert_eq!(advised, "g1h3", "{backend}");
    }
}

#[test]
fn the_evaluate_hook_steers_only_in_node_mode() {
    let path = program(
        "hook",
        "procedure main()\nbegin\nend;\n\
         function Evaluate()\nbegin\n  if PcOnSqrs(wN, h3) then\n    return 300;\n  end;\n  return 0;\nend;\n",
    );
    for backend in BACKENDS {
        let (root, _) = choose(
            &mut engine(ProgramSource::File(path.clone()), backend, AdviceMode::Root),
            START,
            4,
        );
        assert_ne!(root, "g1h3", "{backend}");
        let (node, notes) = choose(
            &mut engine(ProgramSource::File(path.clone()), backend, AdviceMode::Node),
            START,
            4,
        );
        assert_eq!(node, "g1h3", "{backend}");
        assert!(notes.iter().all(|n| !n.starts_with("error")), "{notes:?}");
    }
    // Without a hook, node mode says so and runs as root mode.
    let (_, notes) = choose(
        &mut engine(ProgramSource::Shanny, Backend::Interp, AdviceMode::Node),
        START,
        2,
    );
    assert!(
        notes.iter().any(|n| n.contains("no Evaluate() hook")),
        "{notes:?}"
    );
}

#[test]
fn verbose_mode_reports_the_programs_suggestions() {
    let path = program(
        "verbose",
        "procedure main()\nbegin\n  SetVerbose(1);\n  SetMvs(w, 30, g1f3);\n  SetMvs(w, -10, a2a4);\nend;\n",
    );
    for backend in BACKENDS {
        let (_, notes) = choose(
            &mut engine(ProgramSource::File(path.clone()), backend, AdviceMode::Root),
            START,
            1,
        );
        assert!(
            notes.contains(&"che: move w g1f3 +30".to_string()),
            "{notes:?}"
        );
        assert!(
            notes.contains(&"che suggests g1f3 +30 a2a4 -10".to_string()),
            "{notes:?}"
        );
    }
}

#[test]
fn runtime_errors_leave_a_working_engine() {
    let path = program(
        "crash",
        "procedure main()\nvar x;\nbegin\n  x := 0;\n  write 1 / x;\nend;\n",
    );
    for backend in BACKENDS {
        let (mv, notes) = choose(
            &mut engine(ProgramSource::File(path.clone()), backend, AdviceMode::Root),
            START,
            2,
        );
        assert!(Position::startpos().parse_uci(&mv).is_ok());
        assert!(
            notes.iter().any(
                |n| n.starts_with("error: advice program failed at the root")
                    && n.contains("division by zero")
            ),
            "{notes:?}"
        );
    }
    let bad = program("syntax", "procedure main(\n");
    let e = Engine::new(EngineOptions {
        program: ProgramSource::File(bad),
        ..EngineOptions::default()
    });
    assert!(e.program_error().is_some());
}

/// Evaluation of `fen` with and without a program, for hand-computed differences.
fn eval_difference(fen: &str, source: &str, backend: Backend) -> che_engine::eval::Breakdown {
    let path = program(&format!("eval{}", source.len()), source);
    let pos = Position::from_fen(fen).expect("fen");
    let mut plain = engine(ProgramSource::Shanny, backend, AdviceMode::Off);
    assert!(plain.set_position(pos, &[]).is_ok());
    let a = plain.evaluate();
    let mut advised = engine(ProgramSource::File(path), backend, AdviceMode::Root);
    assert!(advised.set_position(pos, &[]).is_ok());
    let b = advised.evaluate();
    che_engine::eval::Breakdown {
        material_and_squares: b.material_and_squares - a.material_and_squares,
        pawns: b.pawns - a.pawns,
        mobility: b.mobility - a.mobility,
        king_safety: b.king_safety - a.king_safety,
        pieces: b.pieces - a.pieces,
        total: b.total - a.total,
    }
}

#[test]
fn piece_values_styles_and_control_change_the_evaluation_as_documented() {
    for backend in BACKENDS {
        // Two white knights, each worth 100 more.
        let d = eval_difference(
            START,
            "procedure main()\nbegin\n  KeepPcs(100, wN);\nend;\n",
            backend,
        );
        assert_eq!((d.material_and_squares, d.total), (200, 200), "{backend}");

        // Only White has a queen: its value 900 -> 1200 adds 300 in every phase.
        let queen = "4k3/pppp4/8/8/8/8/PPPP4/3QK3 w - - 0 1";
        let d = eval_difference(
            queen,
            "include stdlib.che\nprocedure main()\nbegin\n  SetStyle(ST_QUEENMAT, 1200);\nend;\n",
            backend,
        );
        assert_eq!(d.material_and_squares, 300, "{backend}");

        // King safety weighted 0 removes the term.
        let castled = "r4rk1/ppp2pp1/2n5/3q4/8/2N5/PPP2PPP/R2Q1RK1 w - - 0 1";
        let pos = Position::from_fen(castled).expect("fen");
        let mut plain = engine(ProgramSource::Shanny, backend, AdviceMode::Off);
        assert!(plain.set_position(pos, &[]).is_ok());
        let before = plain.evaluate().king_safety;
        assert_ne!(
            before, 0,
            "the test needs a position with a king-safety term"
        );
        let d = eval_difference(
            castled,
            "include stdlib.che\nprocedure main()\nbegin\n  SetStyle(ST_KINGSAFTY, 0);\nend;\n",
            backend,
        );
        assert_eq!(d.king_safety, -before, "{backend}");

        // CtrlSqrs(wN, 40, c3 f3): the knights on b1 and g1 each control one of the squares:
        // 2 * 40 * 64 / 256 = 20 at the standard mobility weight, in both phases.
        let d = eval_difference(
            START,
            "procedure main()\nbegin\n  CtrlSqrs(wN, 40, c3 f3);\nend;\n",
            backend,
        );
        assert_eq!(d.mobility, 20, "{backend}");
    }
}

#[test]
fn style_defaults_replace_the_users_settings_for_one_root() {
    // The user values the queen at 1000; ST_DEFAULTVALUES goes back to the standard 900 for this
    // root only.
    let path = program(
        "defaults",
        "include stdlib.che\nprocedure main()\nbegin\n  SetStyle(ST_DEFAULTVALUES, 0);\nend;\n",
    );
    let queen = "4k3/pppp4/8/8/8/8/PPPP4/3QK3 w - - 0 1";
    let pos = Position::from_fen(queen).expect("fen");
    let mut user = Engine::new(EngineOptions {
        advice_mode: AdviceMode::Off,
        ..EngineOptions::default()
    });
    assert!(user.set_option("QueenValue", "1000").is_ok());
    assert!(user.set_position(pos, &[]).is_ok());
    let with_user_value = user.evaluate().material_and_squares;
    assert!(user
        .set_option("CheProgram", path.to_str().expect("path"))
        .is_ok());
    assert!(user.set_option("AdviceMode", "root").is_ok());
    let with_defaults = user.evaluate().material_and_squares;
    assert_eq!(with_user_value - with_defaults, 100);
}
