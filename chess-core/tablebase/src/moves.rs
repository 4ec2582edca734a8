//! Moves and un-moves on [`Men`], built on `chess-core`'s attack tables.
//!
//! The lone king has no men, which keeps the rules small: the strong side can never be in check
//! except by king contact (illegal), its men are never pinned, and nothing can be captured except
//! by the lone king. So a strong-side move is legal when it is geometrically possible and its king
//! does not step next to the other king; a lone-king move is legal when the target square is not
//! attacked (with the lone king lifted off the board, so sliders see through its old square). A
//! lone-king capture always leaves insufficient material (K vs K, KB vs K, KN vs K) and is a draw;
//! a pawn reaching the last rank leaves the table for KQK, KRK (both tabled) or KBK/KNK (draws).
//!
//! Un-moves are what retrograde analysis walks: the positions one move before a given one within
//! the same ending (no un-captures or un-promotions are needed, since nothing enters these tables
//! by a capture or a promotion).

use crate::material::Material;
use crate::men::Men;
use chess_core::attacks::{king_attacks, piece_attacks};
use chess_core::{Bitboard, Colour, PieceKind, Square};

/// What one legal move leads to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Child {
    /// A position of the same ending.
    Same(Men),
    /// The lone king captured a man: insufficient material, a draw.
    Capture,
    /// A pawn promoted to `kind`; `men` is the new position in the ending with that piece (the
    /// promoted piece is its only man), the lone king to move.
    Promotion {
        /// The piece the pawn became.
        kind: PieceKind,
        /// The position after the promotion.
        men: Men,
    },
}

fn square(i: u8) -> Square {
    Square::from_index_masked(i)
}

fn bit(i: u8) -> Bitboard {
    Bitboard::from_square(square(i))
}

/// Every occupied square.
fn occupancy(material: Material, men: &Men) -> Bitboard {
    men.men_of(material)
        .iter()
        .fold(bit(men.strong_king) | bit(men.weak_king), |acc, &sq| {
            acc | bit(sq)
        })
}

/// Squares the strong side attacks (its king included) with `occupied` blocking the sliders.
fn strong_attacks(material: Material, men: &Men, occupied: Bitboard) -> Bitboard {
    men.men_of(material).iter().zip(material.men()).fold(
        king_attacks(square(men.strong_king)),
        |acc, (&sq, &kind)| acc | piece_attacks(kind, Colour::White, square(sq), occupied),
    )
}

/// True if the lone king is attacked.
fn weak_king_attacked(material: Material, men: &Men) -> bool {
    strong_attacks(material, men, occupancy(material, men)).contains(square(men.weak_king))
}

/// True if `men` is a legal position: no two men on one square, pawns on ranks 2-7, kings apart,
/// and the side not to move not in check.
pub(crate) fn is_legal(material: Material, men: &Men) -> bool {
    let squares = occupancy(material, men);
    if squares.count() as usize != material.men().len() + 2 {
        return false;
    }
    if material.has_pawn() {
        let pawn = men.men[0];
        if !(8..56).contains(&pawn) {
            return false;
        }
    }
    if king_attacks(square(men.strong_king)).contains(square(men.weak_king)) {
        return false;
    }
    !(men.strong_to_move && weak_king_attacked(material, men))
}

/// True if the side to move is in check (only the lone king can be).
pub(crate) fn in_check(material: Material, men: &Men) -> bool {
    !men.strong_to_move && weak_king_attacked(material, men)
}

/// Calls `visit` with the result of every legal move of the side to move; stops early (and
/// returns false) as soon as `visit` returns false.
pub(crate) fn children(
    material: Material,
    men: &Men,
    mut visit: impl FnMut(Child) -> bool,
) -> bool {
    let occupied = occupancy(material, men);
    if !men.strong_to_move {
        let lifted = occupied & !bit(men.weak_king);
        let guarded = strong_attacks(material, men, lifted);
        let targets = king_attacks(square(men.weak_king)) & !guarded;
        let strong = lifted & !bit(men.strong_king);
        for to in targets {
            let child = if strong.contains(to) {
                Child::Capture
            } else {
                Child::Same(Men {
                    weak_king: to.index() as u8,
                    strong_to_move: true,
                    ..*men
                })
            };
            if !visit(child) {
                return false;
            }
        }
        return true;
    }
    let blocked = occupied | king_attacks(square(men.weak_king));
    for to in king_attacks(square(men.strong_king)) & !blocked {
        let child = Men {
            strong_king: to.index() as u8,
            strong_to_move: false,
            ..*men
        };
        if !visit(Child::Same(child)) {
            return false;
        }
    }
    for (slot, &kind) in material.men().iter().enumerate() {
        let from = men.men[slot];
        let moved = |to: u8| {
            let mut child = *men;
            child.men[slot] = to;
            child.strong_to_move = false;
            child
        };
        if kind == PieceKind::Pawn {
            let one = from + 8;
            if occupied.contains(square(one)) {
                continue;
            }
            if one >= 56 {
                for kind in [
                    PieceKind::Queen,
                    PieceKind::Rook,
                    PieceKind::Bishop,
                    PieceKind::Knight,
                ] {
                    let men = moved(one);
                    if !visit(Child::Promotion { kind, men }) {
                        return false;
                    }
                }
                continue;
            }
            if !visit(Child::Same(moved(one))) {
                return false;
            }
            let two = from + 16;
            if from < 16 && !occupied.contains(square(two)) && !visit(Child::Same(moved(two))) {
                return false;
            }
            continue;
        }
        let attacks = piece_attacks(kind, Colour::White, square(from), occupied);
        for to in attacks & !occupied {
            if !visit(Child::Same(moved(to.index() as u8))) {
                return false;
            }
        }
    }
    true
}

/// True if the side to move has at least one legal move.
pub(crate) fn has_move(material: Material, men: &Men) -> bool {
    !children(material, men, |_| false)
}

/// Calls `visit` with every legal position of the same ending from which one legal move leads to
/// `men` (a capture or a promotion never does).
pub(crate) fn parents(material: Material, men: &Men, mut visit: impl FnMut(Men)) {
    let occupied = occupancy(material, men);
    if men.strong_to_move {
        // The lone king just moved; it came from an empty square not touching the strong king.
        let blocked = occupied | king_attacks(square(men.strong_king));
        for from in king_attacks(square(men.weak_king)) & !blocked {
            visit(Men {
                weak_king: from.index() as u8,
                strong_to_move: false,
                ..*men
            });
        }
        return;
    }
    // The strong side just moved; the parent must not have had the lone king in check.
    let mut emit = |parent: Men| {
        if !weak_king_attacked(material, &parent) {
            visit(parent);
        }
    };
    let blocked = occupied | king_attacks(square(men.weak_king));
    for from in king_attacks(square(men.strong_king)) & !blocked {
        emit(Men {
            strong_king: from.index() as u8,
            strong_to_move: true,
            ..*men
        });
    }
    for (slot, &kind) in material.men().iter().enumerate() {
        let to = men.men[slot];
        let moved = |from: u8| {
            let mut parent = *men;
            parent.men[slot] = from;
            parent.strong_to_move = true;
            parent
        };
        if kind == PieceKind::Pawn {
            // Pawns stand on ranks 2-7; a pawn on rank 3 or higher came one step, one on rank 4
            // possibly two steps from rank 2 over an empty square.
            if to >= 16 && !occupied.contains(square(to - 8)) {
                emit(moved(to - 8));
                if (24..32).contains(&to) && !occupied.contains(square(to - 16)) {
                    emit(moved(to - 16));
                }
            }
            continue;
        }
        let sources = piece_attacks(kind, Colour::White, square(to), occupied);
        for from in sources & !occupied {
            emit(moved(from.index() as u8));
        }
    }
}
