//! A Rust twin set with `Engine::set_native_advice` stands in for the advice program: its root
//! advice and its leaf values act exactly where the program's would, in the modes where the
//! program's would, and it prints through the same notes.

use che_engine::advisor::{AdviceMode, ProgramSource};
use che_engine::engine::{Engine, EngineEvent};
use che_engine::native::NativeAdvice;
use che_engine::options::EngineOptions;
use che_engine::search::{GoParams, SearchControl};
use chess_core::Position;
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;

const START: &str = chess_core::STARTPOS_FEN;
const G1H3: (usize, usize) = (6, 23);
const A2A3: (usize, usize) = (8, 16);

/// Rewards a2a3 at the root (`SetMvs(w, 500, a2a3)`) and, as its hook, a white knight on h3.
struct Twin {
    reward: bool,
    hook: bool,
}

impl NativeAdvice for Twin {
    fn name(&self) -> &str {
        "test twin"
    }
    fn root(&mut self, _: &BoardView, table: &mut AdviceTable, out: &mut dyn FnMut(&str)) {
        if self.reward {
            table.add_move(0, A2A3.0, A2A3.1, 500);
            out("rewarded");
        }
    }
    fn has_hook(&self) -> bool {
        self.hook
    }
    fn evaluate(&mut self, board: &BoardView) -> Option<i32> {
        self.hook.then(|| {
            if board.pieces[0][1] & (1 << G1H3.1) != 0 {
                300
            } else {
                0
            }
        })
    }
}

fn choose(mode: AdviceMode, twin: Option<Twin>) -> (String, Vec<String>) {
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        program: ProgramSource::Shanny,
        advice_mode: mode,
        ..EngineOptions::default()
    });
    engine.set_native_advice(twin.map(|t| Box::new(t) as Box<dyn NativeAdvice>));
    let pos = Position::from_fen(START).expect("fen");
    assert!(engine.set_position(pos, &[]).is_ok());
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

#[test]
fn root_advice_of_the_twin_is_obeyed() {
    let (plain, _) = choose(AdviceMode::Root, None);
    assert_ne!(plain, "a2a3");
    let twin = Twin {
        reward: true,
        hook: false,
    };
    let (advised, notes) = choose(AdviceMode::Root, Some(twin));
    assert_eq!(advised, "a2a3");
    assert!(notes.iter().any(|n| n == "che: rewarded"), "{notes:?}");
    // Off means off, twin or not.
    let twin = Twin {
        reward: true,
        hook: false,
    };
    let (off, notes) = choose(AdviceMode::Off, Some(twin));
    assert_ne!(off, "a2a3");
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn the_twins_hook_steers_only_in_node_mode() {
    let twin = || {
        Some(Twin {
            reward: false,
            hook: true,
        })
    };
    let (root, _) = choose(AdviceMode::Root, twin());
    assert_ne!(root, "g1h3");
    let (node, _) = choose(AdviceMode::Node, twin());
    assert_eq!(node, "g1h3");
    let (_, notes) = choose(
        AdviceMode::Node,
        Some(Twin {
            reward: false,
            hook: false,
        }),
    );
    assert!(
        notes.iter().any(|n| n.contains("has no Evaluate()")),
        "{notes:?}"
    );
}
