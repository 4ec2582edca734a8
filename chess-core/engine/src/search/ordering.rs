//! Move ordering: which move to try first.
//!
//! Alpha-beta cuts off as soon as one move is good enough, so the order of moves decides how much
//! of the tree is searched. The order used here is the usual one: the transposition table's move,
//! captures that do not lose material (most valuable victim first), killer moves (quiet moves that
//! refuted a sibling position at the same ply), the remaining quiet moves by history score plus
//! their advice move bonus, and last the captures that lose material by static exchange.

use super::bonus::MoveBonuses;
use super::see::{captured_value, see, SEE_VALUE};
use super::value::MAX_PLY;
use chess_core::chess_move::Move;
use chess_core::colour::Colour;
use chess_core::movelist::{MoveList, MAX_MOVES};
use chess_core::piece::PieceKind;
use chess_core::position::Position;

const TT_MOVE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
const KILLER: i32 = 1 << 27;
const BAD_CAPTURE: i32 = -(1 << 28);
/// Bound on history scores (their "gravity": updates shrink towards it).
pub const HISTORY_MAX: i32 = 16_384;
/// Ordering weight of one centipawn of advice move bonus.
const ADVICE_WEIGHT: i32 = 100;

/// History scores of quiet moves by side, origin and destination.
pub struct History {
    table: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            table: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

impl History {
    /// The score of `colour` playing `mv`.
    #[inline(always)]
    pub fn get(&self, colour: Colour, mv: Move) -> i32 {
        self.table[colour.index()][mv.from().index()][mv.to().index()]
    }

    /// Moves the score of `mv` by `delta`, shrinking large scores so they stay within
    /// [`HISTORY_MAX`].
    #[inline(always)]
    pub fn update(&mut self, colour: Colour, mv: Move, delta: i32) {
        let delta = delta.clamp(-HISTORY_MAX, HISTORY_MAX);
        let slot = &mut self.table[colour.index()][mv.from().index()][mv.to().index()];
        *slot += delta - *slot * delta.abs() / HISTORY_MAX;
    }

    /// Halves every score (between searches, so old knowledge fades).
    pub fn age(&mut self) {
        for v in self.table.iter_mut().flatten().flatten() {
            *v /= 2;
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        *self.table = [[[0; 64]; 64]; 2];
    }
}

/// Two killer moves per ply.
pub struct Killers {
    slots: [[Option<Move>; 2]; MAX_PLY + 1],
}

impl Default for Killers {
    fn default() -> Self {
        Killers {
            slots: [[None; 2]; MAX_PLY + 1],
        }
    }
}

impl Killers {
    /// Records a quiet move that caused a cut-off at `ply`.
    #[inline]
    pub fn store(&mut self, ply: usize, mv: Move) {
        if let Some(slot) = self.slots.get_mut(ply) {
            if slot[0] != Some(mv) {
                slot[1] = slot[0];
                slot[0] = Some(mv);
            }
        }
    }

    /// The killers of `ply`.
    #[inline]
    pub fn get(&self, ply: usize) -> [Option<Move>; 2] {
        self.slots.get(ply).copied().unwrap_or([None; 2])
    }

    /// Clears the killers of `ply` (done for the children before searching a node).
    #[inline]
    pub fn clear_ply(&mut self, ply: usize) {
        if let Some(slot) = self.slots.get_mut(ply) {
            *slot = [None; 2];
        }
    }
}

/// A move list with ordering scores, handed out best first.
///
/// The first move is found by a linear scan (at a cut node it is often the only one needed);
/// if a second is asked for, the rest are sorted once.
pub struct Picker {
    moves: [Move; MAX_MOVES],
    scores: [i32; MAX_MOVES],
    len: usize,
    next: usize,
    sorted: bool,
}

/// What the picker needs to know to score moves.
pub struct OrderingContext<'a> {
    /// The move from the transposition table, if any.
    pub tt_move: Option<Move>,
    /// Killer moves of this ply.
    pub killers: [Option<Move>; 2],
    /// History scores.
    pub history: &'a History,
    /// Advice move bonuses.
    pub bonuses: &'a MoveBonuses,
    /// Distance from the root.
    pub ply: usize,
}

/// True for captures and promotions (the moves the quiescence search looks at).
#[inline]
pub fn is_tactical(pos: &Position, mv: Move) -> bool {
    mv.promotion_kind().is_some() || super::see::is_capture(pos, mv)
}

impl Picker {
    fn with_scores(list: &MoveList, mut score: impl FnMut(Move) -> i32) -> Picker {
        let mut moves = [Move::normal(chess_core::Square::A1, chess_core::Square::A1); MAX_MOVES];
        let mut scores = [0; MAX_MOVES];
        let len = list.len().min(MAX_MOVES);
        for (i, &mv) in list.iter().take(len).enumerate() {
            moves[i] = mv;
            scores[i] = score(mv);
        }
        Picker {
            moves,
            scores,
            len,
            next: 0,
            sorted: false,
        }
    }

    /// Scores every move of `list` for `pos`.
    pub fn new(pos: &Position, list: &MoveList, ctx: &OrderingContext<'_>) -> Picker {
        let us = pos.side_to_move();
        Picker::with_scores(list, |mv| {
            if Some(mv) == ctx.tt_move {
                TT_MOVE
            } else if is_tactical(pos, mv) {
                tactical_score(pos, mv)
            } else if ctx.killers[0] == Some(mv) {
                KILLER
            } else if ctx.killers[1] == Some(mv) {
                KILLER - 1
            } else {
                let advice = ctx
                    .bonuses
                    .at(us, mv, ctx.ply)
                    .saturating_mul(ADVICE_WEIGHT);
                (ctx.history.get(us, mv) + advice.clamp(-KILLER / 2, KILLER / 2))
                    .clamp(-KILLER + 2, KILLER - 2)
            }
        })
    }

    /// Captures and promotions, most valuable victim first (for the quiescence search; `list`
    /// should hold only such moves).
    pub fn tactical(pos: &Position, list: &MoveList) -> Picker {
        Picker::with_scores(list, |mv| tactical_score(pos, mv))
    }

    /// The number of moves.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are no moves.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The best remaining move with its ordering score.
    #[inline]
    pub fn next_move(&mut self) -> Option<(Move, i32)> {
        if self.next >= self.len {
            return None;
        }
        if self.next == 0 {
            let mut best = 0;
            for i in 1..self.len {
                if self.scores[i] > self.scores[best] {
                    best = i;
                }
            }
            self.scores.swap(best, 0);
            self.moves.swap(best, 0);
        } else if !self.sorted {
            self.sort_rest();
        }
        let i = self.next;
        self.next += 1;
        Some((self.moves[i], self.scores[i]))
    }

    /// Sorts the moves not yet handed out, best first (insertion sort: the lists are short and
    /// often nearly ordered).
    fn sort_rest(&mut self) {
        self.sorted = true;
        for i in self.next + 1..self.len {
            let (m, s) = (self.moves[i], self.scores[i]);
            let mut j = i;
            while j > self.next && self.scores[j - 1] < s {
                self.scores[j] = self.scores[j - 1];
                self.moves[j] = self.moves[j - 1];
                j -= 1;
            }
            self.scores[j] = s;
            self.moves[j] = m;
        }
    }
}

/// Ordering score of a capture or promotion: winning and equal captures by victim value then
/// attacker cheapness; losing captures at the very end.
#[inline]
fn tactical_score(pos: &Position, mv: Move) -> i32 {
    let victim = captured_value(pos, mv);
    let attacker = pos.kind_on(mv.from()).map_or(0, |k| SEE_VALUE[k.index()]);
    let promotion = mv.promotion_kind().map_or(0, |k| {
        SEE_VALUE[k.index()] - SEE_VALUE[PieceKind::Pawn.index()]
    });
    let promotion = if mv.promotion_kind() == Some(PieceKind::Queen) || promotion == 0 {
        promotion
    } else {
        // Under-promotions are rarely right: after the quiet moves.
        return BAD_CAPTURE + victim;
    };
    let order = (victim + promotion) * 16 - attacker / 100;
    if victim >= attacker || see(pos, mv) >= 0 {
        GOOD_CAPTURE + order
    } else {
        BAD_CAPTURE + order
    }
}

/// True if the ordering score belongs to a capture that loses material.
#[inline]
pub fn is_bad_capture_score(score: i32) -> bool {
    score < BAD_CAPTURE / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions from seeded random games (a small xorshift, no dependencies).
    fn random_positions() -> Vec<Position> {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut out = Vec::new();
        for _ in 0..40 {
            let mut pos = Position::startpos();
            for _ in 0..80 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                pos.play(moves[(state % moves.len() as u64) as usize]);
                out.push(pos);
            }
        }
        out
    }

    #[test]
    fn tactical_generation_matches_the_filtered_legal_moves() {
        for pos in random_positions() {
            let mut tactical = MoveList::new();
            chess_core::movegen::legal_tactical_into(&pos, &mut tactical);
            let mut expected: Vec<Move> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|&m| is_tactical(&pos, m))
                .collect();
            let mut got = tactical.to_vec();
            expected.sort_by_key(|m| m.bits());
            got.sort_by_key(|m| m.bits());
            assert_eq!(got, expected, "{pos}");
        }
    }

    #[test]
    fn picker_hands_out_moves_best_first() {
        let history = History::default();
        let bonuses = MoveBonuses::new();
        for pos in random_positions().iter().step_by(7) {
            let moves = pos.legal_moves();
            let ctx = OrderingContext {
                tt_move: moves.last().copied(),
                killers: [None; 2],
                history: &history,
                bonuses: &bonuses,
                ply: 0,
            };
            let mut picker = Picker::new(pos, &moves, &ctx);
            let mut seen = Vec::new();
            let mut last = i32::MAX;
            while let Some((m, s)) = picker.next_move() {
                assert!(s <= last);
                last = s;
                seen.push(m);
            }
            assert_eq!(seen.len(), moves.len());
            assert_eq!(seen.first(), moves.last());
        }
    }
}
