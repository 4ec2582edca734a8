//! Advice written in Rust: a stand-in for the advice program, for measurement.
//!
//! The experiment harness (`che-lab` in `benches/`) asks what an advice language costs against
//! the same knowledge written natively. For that it hand-writes Rust twins of the bundled
//! programs (same advice table, same `Evaluate()` values) and lets the engine run them in place
//! of the CVM program: [`Engine::set_native_advice`](crate::engine::Engine::set_native_advice).
//! The engine then does everything it does for a CVM program — points the board view at the
//! root, builds its evaluation parameters and move bonuses from the table, calls the twin's
//! evaluation at every leaf in [`AdviceMode::Node`](crate::advisor::AdviceMode) and turns its
//! White-relative answer for the side to move — so the only difference measured is the program.

use crate::host::AdviceHost;
use crate::search::LeafHook;
use chess_core::colour::Colour;
use chess_core::position::Position;
use cvm_chess::advice_table::AdviceTable;
use cvm_chess::board::BoardView;

/// A Rust twin of an advice program.
pub trait NativeAdvice {
    /// A short name for reports (`info string`).
    fn name(&self) -> &str;

    /// The twin of `main()`: writes its advice for `board` into `table` (which the engine has
    /// cleared) and sends each line the program would print to `out`.
    fn root(&mut self, board: &BoardView, table: &mut AdviceTable, out: &mut dyn FnMut(&str));

    /// Whether the twin has an `Evaluate()` leaf hook.
    fn has_hook(&self) -> bool;

    /// The twin of `Evaluate()`: centipawns from White's point of view, as the Che++ hook
    /// answers; `None` without a hook.
    fn evaluate(&mut self, board: &BoardView) -> Option<i32>;
}

/// The leaf hook of a native twin: updates the board view in place (as the CVM session does) and
/// turns the White-relative value for the side to move.
pub struct NativeHook<'a> {
    /// The twin.
    pub advice: &'a mut dyn NativeAdvice,
    /// The board view the twin reads.
    pub host: &'a mut AdviceHost,
}

impl LeafHook for NativeHook<'_> {
    fn evaluate(&mut self, pos: &Position) -> Option<i32> {
        self.host.set_position(pos);
        let v = self.advice.evaluate(self.host.board_view())?;
        Some(match pos.side_to_move() {
            Colour::White => v,
            Colour::Black => v.saturating_neg(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A twin whose hook counts White's pawns.
    struct Pawns;

    impl NativeAdvice for Pawns {
        fn name(&self) -> &str {
            "pawns"
        }
        fn root(&mut self, _: &BoardView, _: &mut AdviceTable, _: &mut dyn FnMut(&str)) {}
        fn has_hook(&self) -> bool {
            true
        }
        fn evaluate(&mut self, board: &BoardView) -> Option<i32> {
            Some(board.pieces[0][0].count_ones() as i32)
        }
    }

    #[test]
    fn the_hook_answers_for_the_side_to_move() {
        let white = Position::from_fen("4k3/8/8/8/8/8/PPP5/4K3 w - - 0 1").unwrap();
        let black = Position::from_fen("4k3/8/8/8/8/8/PPP5/4K3 b - - 0 1").unwrap();
        let mut host = AdviceHost::new(&Position::startpos());
        let mut twin = Pawns;
        let mut hook = NativeHook {
            advice: &mut twin,
            host: &mut host,
        };
        assert_eq!(hook.evaluate(&white), Some(3));
        assert_eq!(hook.evaluate(&black), Some(-3));
    }
}
