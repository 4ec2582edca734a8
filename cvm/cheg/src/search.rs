//! The search behind TRY, PLAYB and PLAN, as a trait the host calls.
//!
//! In the MIT program each tried move was searched by the main program,
//! which re-entered the endgame program at deeper plies (at the plan's tag
//! when a plan was set). The engine integration supplies a [`Searcher`]
//! that does exactly that with the engine's own search; `che run` uses
//! [`FixedDepth`], a plain alpha-beta search over material that never
//! re-enters the program, so that every instruction has a meaning now.

use crate::value::Value;
use chess_core::{Colour, Move, PieceKind, Position};

/// The plan a PLAN instruction set: where deeper plies with the same side
/// to move start, and the plan variable (X there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The dispatch target of the plan's tag (the tag's number).
    pub target: i32,
    /// The plan variable.
    pub variable: Value,
}

/// One move for the searcher to value.
#[derive(Debug)]
pub struct TryMove<'a> {
    /// The position the move is played in.
    pub position: &'a Position,
    /// The move (legal in `position`).
    pub mv: Move,
    /// DEPTH of the program that tries it (1 at the root).
    pub depth: i32,
    /// The plan in force, if any.
    pub plan: Option<&'a Plan>,
}

/// Values tried moves; larger is better for the side that plays the move.
pub trait Searcher {
    /// The value of playing `request.mv`, in centipawns from the mover's
    /// point of view (mates as [`MATE`] minus the distance in plies).
    fn value_of(&mut self, request: &TryMove<'_>) -> i32;

    /// [`Searcher::value_of`] with the work it took: the value and the
    /// positions the search visited. The runtime charges fuel for the
    /// nodes (docs/cheg.md, "Fuel"), so a searcher that does real work
    /// should count them; the default visits one node, the position
    /// after the move.
    fn search(&mut self, request: &TryMove<'_>) -> Searched {
        Searched {
            value: self.value_of(request),
            nodes: 1,
        }
    }
}

/// What [`Searcher::search`] found and what it cost.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Searched {
    /// The value, as [`Searcher::value_of`] gives it.
    pub value: i32,
    /// The positions visited (at least 1).
    pub nodes: u64,
}

/// The score of a mate on the board (minus plies to it).
pub const MATE: i32 = 30_000;

/// A fixed-depth alpha-beta search over material: `depth` plies in all,
/// the tried move included (depth 2: the move and every reply).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FixedDepth {
    /// Plies, at least 1.
    pub depth: u32,
}

impl Default for FixedDepth {
    fn default() -> Self {
        FixedDepth { depth: 2 }
    }
}

/// Material from the side to move's point of view.
pub fn material(position: &Position) -> i32 {
    let us = position.side_to_move();
    let worth = |c: Colour| {
        [
            (PieceKind::Pawn, 100),
            (PieceKind::Knight, 300),
            (PieceKind::Bishop, 300),
            (PieceKind::Rook, 500),
            (PieceKind::Queen, 900),
        ]
        .iter()
        .map(|&(k, v)| position.pieces(c, k).count() as i32 * v)
        .sum::<i32>()
    };
    worth(us) - worth(!us)
}

fn negamax(
    position: &Position,
    depth: u32,
    ply: i32,
    mut alpha: i32,
    beta: i32,
    nodes: &mut u64,
) -> i32 {
    *nodes += 1;
    let moves = position.legal_moves();
    if moves.is_empty() {
        return if position.is_check() {
            -(MATE - ply)
        } else {
            0
        };
    }
    if depth == 0 {
        return material(position);
    }
    let mut best = -MATE - 1;
    for &m in moves.as_slice() {
        let v = -negamax(&position.after(m), depth - 1, ply + 1, -beta, -alpha, nodes);
        if v > best {
            best = v;
        }
        if v > alpha {
            alpha = v;
        }
        if alpha >= beta {
            break;
        }
    }
    best
}

impl Searcher for FixedDepth {
    fn value_of(&mut self, request: &TryMove<'_>) -> i32 {
        self.search(request).value
    }

    fn search(&mut self, request: &TryMove<'_>) -> Searched {
        let after = request.position.after(request.mv);
        let rest = self.depth.max(1) - 1;
        let mut nodes = 0;
        let value = -negamax(&after, rest, 1, -MATE - 1, MATE + 1, &mut nodes);
        Searched { value, nodes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_mate_in_one_and_material() {
        // White mates with Ra8 (back-rank mate).
        let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").expect("fen");
        let mut s = FixedDepth { depth: 2 };
        let mate = pos.parse_uci("a1a8").expect("move");
        let quiet = pos.parse_uci("a1a2").expect("move");
        let v_mate = s.value_of(&TryMove {
            position: &pos,
            mv: mate,
            depth: 1,
            plan: None,
        });
        let v_quiet = s.value_of(&TryMove {
            position: &pos,
            mv: quiet,
            depth: 1,
            plan: None,
        });
        assert_eq!(v_mate, MATE - 1);
        // Depth 2: the position after a1a2 and each of Black's replies
        // as a leaf (Kf8, Kh8 and the pawn moves f6 f5 g6 g5 h6 h5: 8; no
        // cut-off, as no reply mates).
        let counted = s.search(&TryMove {
            position: &pos,
            mv: quiet,
            depth: 1,
            plan: None,
        });
        assert_eq!(counted.value, v_quiet);
        assert_eq!(counted.nodes, 1 + 8);
        assert_eq!(v_quiet, 500 - 300);
    }
}
