//! Static evaluation: what a position is worth to the side to move, in centipawns.
//!
//! A hand-made evaluation in the classical style, small enough to read in one sitting, with every
//! term a tapered (middlegame, endgame) pair ([`score`]) blended by the game phase:
//!
//! * material and piece-square tables ([`pst`]), with the root's advice square bonuses and piece
//!   value changes folded in ([`params`]);
//! * mobility, `CtrlSqrs` control weights and king-zone attacks ([`mobility`]);
//! * pawn structure, cached by skeleton ([`pawns`]), and passed pawns racing the kings;
//! * king safety: shelter and attack weight ([`king`]);
//! * a few piece terms (bishop pair, rooks on open files), a side-to-move bonus, help for driving a
//!   bare king to the edge, and a damper for material advantages that cannot win;
//! * 0 for material balances known to be drawn ([`draw`]: KNK, KBK, same-coloured bishops, KNNK).
//!
//! The style percentages (`ST_MIDGAMEMOB`, `ST_ENDGAMEMOB`, `ST_KINGSAFTY`, `ST_PAWNEVAL`) and
//! material values (`ST_PAWNMAT` ...) come in through [`EvalParams`].

pub mod draw;
pub mod king;
pub mod mobility;
pub mod params;
pub mod pawns;
pub mod pst;
pub mod score;

pub use params::{EvalParams, SearchSwitches, StyleSettings};

use chess_core::colour::Colour;
use chess_core::piece::PieceKind;
use chess_core::position::Position;
use chess_core::square::Square;
use score::{s, S};

/// Bonus for the side to move (it gets to act first).
const TEMPO: i32 = 10;
/// Two bishops.
const BISHOP_PAIR: S = s(30, 50);
/// A rook on a file without pawns, and on a file without pawns of its own side.
const ROOK_OPEN_FILE: S = s(25, 10);
const ROOK_SEMI_OPEN_FILE: S = s(12, 6);

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// Chebyshev distance between two squares (king steps).
#[inline(always)]
pub fn distance(a: Square, b: Square) -> i32 {
    let (fa, ra) = ((a.index() % 8) as i32, (a.index() / 8) as i32);
    let (fb, rb) = ((b.index() % 8) as i32, (b.index() / 8) as i32);
    (fa - fb).abs().max((ra - rb).abs())
}

/// Steps from a square to the nearest of the four centre squares.
#[inline(always)]
fn centre_distance(sq: Square) -> i32 {
    let f = (sq.index() % 8) as i32;
    let r = (sq.index() / 8) as i32;
    let df = if f < 4 { 3 - f } else { f - 4 };
    let dr = if r < 4 { 3 - r } else { r - 4 };
    df.max(dr)
}

/// Number of cached evaluations (a power of two).
const EVAL_CACHE_SIZE: usize = 1 << 16;

/// The evaluator: the parameters are passed per call; the state it owns is a pawn-structure
/// cache and a cache of whole evaluations by position hash (a search evaluates the same leaves
/// again in every iteration). The evaluation cache must be cleared whenever the parameters
/// change ([`Evaluator::new_search`]); the pawn cache holds unweighted scores and survives.
pub struct Evaluator {
    pawns: pawns::PawnCache,
    cache: Vec<(u64, i32)>,
}

impl Default for Evaluator {
    fn default() -> Self {
        Evaluator {
            pawns: pawns::PawnCache::new(),
            cache: vec![(0, 0); EVAL_CACHE_SIZE],
        }
    }
}

/// The evaluation split into its parts, White's point of view, tapered (for display).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    /// Material, piece-square tables and advice square/piece bonuses.
    pub material_and_squares: i32,
    /// Pawn structure and passed pawns.
    pub pawns: i32,
    /// Mobility and control.
    pub mobility: i32,
    /// King shelter and attacks.
    pub king_safety: i32,
    /// Bishop pair, rook files, bare-king help.
    pub pieces: i32,
    /// The final score for the side to move (with tempo and scaling).
    pub total: i32,
}

impl Evaluator {
    /// An evaluator with an empty pawn cache.
    pub fn new() -> Evaluator {
        Evaluator::default()
    }

    /// Forgets the cached evaluations (call when the parameters change, such as for each search).
    pub fn new_search(&mut self) {
        self.cache.fill((0, 0));
    }

    /// The position's value for the side to move, in centipawns.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position, params: &EvalParams) -> i32 {
        let key = pos.hash();
        let index = key as usize & (EVAL_CACHE_SIZE - 1);
        if let Some(&(k, v)) = self.cache.get(index) {
            if k == key && key != 0 {
                return v;
            }
        }
        let v = self.breakdown(pos, params).total;
        if let Some(slot) = self.cache.get_mut(index) {
            *slot = (key, v);
        }
        v
    }

    /// The evaluation with its parts.
    pub fn breakdown(&mut self, pos: &Position, params: &EvalParams) -> Breakdown {
        if draw::is_drawn_material(pos) {
            return Breakdown::default();
        }
        let phase = score::phase(pos);

        // Material and squares.
        let mut squares = S::ZERO;
        for colour in Colour::ALL {
            let table = &params.psqt[colour.index()];
            let mut side = S::ZERO;
            for kind in PieceKind::ALL {
                let row = &table[kind.index()];
                for sq in pos.pieces(colour, kind) {
                    side += row[sq.index()];
                }
            }
            squares += side * score::sign(colour);
        }

        // Pawns.
        let info = self.pawns.probe(pos);
        let mut pawn_term = info.score;
        for colour in Colour::ALL {
            let own_king = pos.king_square(colour);
            let their_king = pos.king_square(!colour);
            let mut race = 0;
            for sq in info.passed[colour.index()] {
                let (stop, rel_rank) = match colour {
                    Colour::White => (sq.index() + 8, sq.index() / 8),
                    Colour::Black => (sq.index().wrapping_sub(8), 7 - sq.index() / 8),
                };
                let Some(stop) = Square::from_index(stop as u8) else {
                    continue;
                };
                let weight = rel_rank as i32 - 1;
                if weight > 0 {
                    race +=
                        (5 * distance(their_king, stop) - 2 * distance(own_king, stop)) * weight;
                }
            }
            pawn_term += s(0, race) * score::sign(colour);
        }
        let pawn_term = pawn_term.percent(params.pawn_structure);

        // Mobility, control and king safety.
        let white = mobility::activity(pos, params, Colour::White);
        let black = mobility::activity(pos, params, Colour::Black);
        let mobility_term = white.score - black.score;
        let king_term = (king::shelter(pos, Colour::White) - king::shelter(pos, Colour::Black)
            + king::attack_penalty(&black)
            - king::attack_penalty(&white))
        .percent(params.king_safety);

        // Piece terms.
        let mut piece_term = S::ZERO;
        let pawns_all = pos.by_kind(PieceKind::Pawn).0;
        for colour in Colour::ALL {
            let mut side = S::ZERO;
            if pos.pieces(colour, PieceKind::Bishop).has_more_than_one() {
                side += BISHOP_PAIR;
            }
            let own_pawns = pos.pieces(colour, PieceKind::Pawn).0;
            for sq in pos.pieces(colour, PieceKind::Rook) {
                let file = FILE_A << (sq.index() % 8);
                if pawns_all & file == 0 {
                    side += ROOK_OPEN_FILE;
                } else if own_pawns & file == 0 {
                    side += ROOK_SEMI_OPEN_FILE;
                }
            }
            piece_term += side * score::sign(colour);
        }

        let total_pair = squares + pawn_term + mobility_term + king_term + piece_term;
        let mut white_view = total_pair.taper(phase) + mop_up(pos);
        white_view = scale_for_drawishness(pos, params, white_view);

        let stm = pos.side_to_move();
        Breakdown {
            material_and_squares: squares.taper(phase),
            pawns: pawn_term.taper(phase),
            mobility: mobility_term.taper(phase),
            king_safety: king_term.taper(phase),
            pieces: piece_term.taper(phase) + mop_up(pos),
            total: white_view * score::sign(stm) + TEMPO,
        }
    }
}

/// With no pawns left and one side reduced to a bare king, the other side needs to drive that
/// king to the edge and bring its own king close; material alone does not say how. White's view.
fn mop_up(pos: &Position) -> i32 {
    for strong in Colour::ALL {
        let weak = !strong;
        let weak_bare = pos.by_colour(weak).count() == 1;
        if weak_bare && pos.by_kind(PieceKind::Pawn).is_empty() {
            let wk = pos.king_square(weak);
            let sk = pos.king_square(strong);
            let bonus = 10 * centre_distance(wk) + 4 * (7 - distance(wk, sk));
            return bonus * score::sign(strong);
        }
    }
    0
}

/// Damps a score when the side ahead has no pawns and too little extra material to mate (such as
/// a lone minor piece more), which a plain material count would rate as winning.
fn scale_for_drawishness(pos: &Position, params: &EvalParams, white_view: i32) -> i32 {
    let strong = if white_view >= 0 {
        Colour::White
    } else {
        Colour::Black
    };
    if pos.pieces(strong, PieceKind::Pawn).any() {
        return white_view;
    }
    let officers = |c: Colour| -> i32 {
        [
            PieceKind::Knight,
            PieceKind::Bishop,
            PieceKind::Rook,
            PieceKind::Queen,
        ]
        .iter()
        .map(|&k| params.material[k.index()] * pos.pieces(c, k).count() as i32)
        .sum()
    };
    let edge = officers(strong) - officers(!strong);
    if edge <= params.material[PieceKind::Bishop.index()] {
        white_view / 8
    } else {
        white_view
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(fen: &str) -> i32 {
        let pos = Position::from_fen(fen).unwrap();
        Evaluator::new().evaluate(&pos, &EvalParams::default())
    }

    #[test]
    fn symmetric_positions_score_the_tempo() {
        assert_eq!(eval(chess_core::STARTPOS_FEN), TEMPO);
        // A position and its mirror image with colours swapped.
        assert_eq!(
            eval("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"),
            eval("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3")
        );
    }

    #[test]
    fn colour_flip_negates() {
        // The same position with colours swapped and the board mirrored scores the same for the
        // side to move.
        let a = eval("r3k2r/pp3ppp/2n5/3q4/8/2N5/PPP2PPP/R2QK2R w KQkq - 0 1");
        let b = eval("r2qk2r/ppp2ppp/2n5/8/3Q4/2N5/PP3PPP/R3K2R b KQkq - 0 1");
        assert_eq!(a, b);
    }

    #[test]
    fn material_dominates() {
        // A queen up is far ahead; a lone extra knight without pawns is damped to near zero.
        assert!(eval("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") > 800);
        assert!(eval("4k3/8/8/8/8/8/8/3QK3 b - - 0 1") < -800);
        assert!(eval("4k3/8/8/8/8/8/8/3NK3 w - - 0 1").abs() < 80);
        assert_eq!(eval("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), 0);
    }

    #[test]
    fn drawn_material_scores_zero_for_both_sides() {
        for fen in [
            "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1",
            "4k3/8/8/8/8/8/8/1N2KN2 b - - 0 1",
            "4k3/8/8/8/8/8/8/2B1K3 b - - 0 1",
            "5b2/4k3/8/8/8/8/8/2B1K3 w - - 0 1",
        ] {
            assert_eq!(eval(fen), 0, "{fen}");
        }
        // Two knights against a king and pawn can win (Troitsky): not scored as a draw.
        assert!(eval("4k3/p7/8/8/8/8/8/1N2KN2 w - - 0 1") > 200);
    }

    #[test]
    fn bare_king_is_driven_to_the_edge() {
        let centre = eval("8/8/8/3k4/8/8/8/1R2K3 w - - 0 1");
        let edge = eval("k7/8/8/8/8/8/8/1R2K3 w - - 0 1");
        assert!(edge > centre);
    }
}
