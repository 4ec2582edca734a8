//! The advice host: what a Che++ program running on the CVM sees of the
//! game.
//!
//! The CVM reads the position through its `#[repr(C)]`
//! [`BoardView`] and asks its embedder, through
//! the [`cvm::Host`] trait, for the scores the engine gave its earlier moves
//! (`GetScore`) and for the engine's style settings (`GetStyle`).
//! [`AdviceHost`] answers all three from a [`Position`], a score history and
//! a table of style settings. Filling the board view copies the twelve piece
//! bitboards and five state fields; move lists are never built.

use chess_core::colour::Colour;
use chess_core::piece::PieceKind;
use chess_core::position::Position;
use cvm_chess::board::BoardView;
use cvm_chess::style::{self, STYLE_COUNT};

/// The CVM board view of a position.
pub fn board_view(pos: &Position) -> BoardView {
    let mut view = BoardView::EMPTY;
    for colour in [Colour::White, Colour::Black] {
        for kind in PieceKind::ALL {
            view.pieces[colour.index()][kind.index()] = pos.pieces(colour, kind).0;
        }
    }
    view.side_to_move = pos.side_to_move().index() as u32;
    view.castling = u32::from(pos.castling_rights().bits());
    view.en_passant = pos.en_passant().map_or(-1, |sq| sq.index() as i32);
    view.halfmove_clock = pos.halfmove_clock();
    view.fullmove_number = pos.fullmove_number();
    view
}

/// A [`cvm::Host`] for one position of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdviceHost {
    board: BoardView,
    scores: Vec<i32>,
    styles: [i32; STYLE_COUNT],
}

impl AdviceHost {
    /// A host for `pos` with no score history and the standard style
    /// settings ([`cvm_chess::style::STYLE_PARAMS`]).
    pub fn new(pos: &Position) -> AdviceHost {
        AdviceHost {
            board: board_view(pos),
            scores: Vec::new(),
            styles: std::array::from_fn(|id| style::default_value(id as i32)),
        }
    }

    /// Moves the host to another position (the score history and style
    /// settings stay).
    pub fn set_position(&mut self, pos: &Position) {
        self.board = board_view(pos);
    }

    /// The board view the intrinsics read.
    pub fn board_view(&self) -> &BoardView {
        &self.board
    }

    /// Records the score, in centipawns from the engine's side, that the
    /// engine gave the move it just played; `GetScore(1)` returns the latest.
    pub fn push_score(&mut self, score: i32) {
        self.scores.push(score);
    }

    /// Forgets the score history (a new game).
    pub fn clear_scores(&mut self) {
        self.scores.clear();
    }

    /// Sets the engine's own value of style parameter `id` (what `GetStyle`
    /// reports); returns false for an id that is not a style parameter.
    pub fn set_style_default(&mut self, id: i32, value: i32) -> bool {
        match usize::try_from(id)
            .ok()
            .and_then(|i| self.styles.get_mut(i))
        {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
        }
    }
}

impl cvm::Host for AdviceHost {
    fn game_score(&self, prev_moves: i32) -> i32 {
        usize::try_from(prev_moves)
            .ok()
            .filter(|&n| n >= 1)
            .and_then(|n| self.scores.len().checked_sub(n))
            .map_or(0, |i| self.scores[i])
    }

    fn board(&self) -> Option<&BoardView> {
        Some(&self.board)
    }

    fn style_default(&self, id: i32) -> i32 {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.styles.get(i))
            .copied()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cvm::Host;

    #[test]
    fn view_of_a_fen() {
        let pos = Position::from_fen("r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq d6 3 17").unwrap();
        let v = board_view(&pos);
        assert_eq!(v.pieces[0][5], 1 << 4);
        assert_eq!(v.pieces[1][3], (1 << 56) | (1 << 63));
        assert_eq!(v.pieces[0][0], 1 << 36);
        assert_eq!(v.pieces[1][0], 1 << 35);
        assert_eq!(v.side_to_move, 0);
        assert_eq!(v.castling, 1 | 8);
        assert_eq!(v.en_passant, 43);
        assert_eq!((v.halfmove_clock, v.fullmove_number), (3, 17));
    }

    #[test]
    fn scores_count_back_from_the_latest() {
        let mut h = AdviceHost::new(&Position::startpos());
        assert_eq!(h.game_score(1), 0);
        h.push_score(30);
        h.push_score(-15);
        assert_eq!(h.game_score(1), -15);
        assert_eq!(h.game_score(2), 30);
        assert_eq!(h.game_score(3), 0);
        assert_eq!(h.game_score(0), 0);
        assert_eq!(h.game_score(-1), 0);
        assert_eq!(h.game_score(i32::MIN), 0);
    }

    #[test]
    fn style_settings() {
        let mut h = AdviceHost::new(&Position::startpos());
        assert_eq!(h.style_default(style::ST_QUEENMAT), 900);
        assert!(h.set_style_default(style::ST_KINGSAFTY, 130));
        assert_eq!(h.style_default(style::ST_KINGSAFTY), 130);
        assert!(!h.set_style_default(style::ST_DEFAULTVALUES, 1));
        assert_eq!(h.style_default(99), 0);
    }
}
