//! Legal move generation.
//!
//! Moves are generated legal from the start rather than generated pseudo-legal and filtered by
//! playing them, because the filter (make, test for check) costs more than the moves themselves.
//! Per position the generator computes, once:
//!
//! * the **checkers** of the side to move's king and from them a **check mask**: the squares a
//!   non-king move must land on (the checker or a square between it and the king; every square
//!   when not in check; none in double check, where only the king may move);
//! * two **pin masks** (skipped when no enemy slider even shares a line with the king): for each enemy slider that would attack the king through exactly one of
//!   our pieces, the ray from the king to that slider (inclusive of the slider). Pins along ranks
//!   and files go in one mask, diagonal pins in the other. A pinned piece may only move within its
//!   own ray, and because rays leaving the king in different directions never meet, intersecting
//!   its targets with the whole mask of its pin type is enough.
//!
//! King moves avoid the squares the enemy attacks, computed with our king lifted off the board (so
//! it cannot hide behind itself on a checking ray) and only for enemy pieces whose empty-board rays
//! reach the king's neighbourhood or castling path — cheaper than testing each destination, as
//! measured in `docs/chess-core.md`. Castling requires no check, an empty path and unattacked
//! squares for the king to cross and land on. En passant, the one move that removes a piece from a
//! square it does not land on, is verified by recomputing slider attacks on the king with both pawns
//! moved, which covers the horizontal pin along the fifth rank and every discovered check.
//!
//! The generator reports moves to a `MoveSink` as *sets* (one origin with a target bitboard, or
//! a pawn target set with a fixed offset). A list sink expands them into moves; a counting sink only
//! adds population counts, which is how perft counts its last ply without making any move.

use crate::attacks::{
    between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
    rook_rays,
};
use crate::bitboard::Bitboard;
use crate::castling::{CastlingPath, CastlingSide};
use crate::chess_move::Move;
use crate::movelist::MoveList;
use crate::piece::PieceKind;
use crate::position::Position;
use crate::square::{File, Rank, Square};

/// Receives the generator's output as sets of moves.
pub(crate) trait MoveSink {
    /// Moves of the piece on `from` to every square of `targets`.
    fn piece_moves(&mut self, from: Square, targets: Bitboard);
    /// Non-promoting pawn moves to every square of `targets`, each from the square `rotation`
    /// steps before it (indices taken modulo 64).
    fn pawn_moves(&mut self, targets: Bitboard, rotation: u32);
    /// Promoting pawn moves to every square of `targets` (four moves each), origins as above.
    fn pawn_promotions(&mut self, targets: Bitboard, rotation: u32);
    /// A single castling or en-passant move.
    fn special(&mut self, mv: Move);
}

/// Expands move sets into a [`MoveList`].
struct ListSink<'a>(&'a mut MoveList);

#[inline(always)]
fn origin(to: Square, rotation: u32) -> Square {
    Square::from_index_masked((to.index() as u32).wrapping_sub(rotation) as u8)
}

impl MoveSink for ListSink<'_> {
    #[inline(always)]
    fn piece_moves(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.0.push(Move::normal(from, to));
        }
    }

    #[inline(always)]
    fn pawn_moves(&mut self, targets: Bitboard, rotation: u32) {
        for to in targets {
            self.0.push(Move::normal(origin(to, rotation), to));
        }
    }

    #[inline(always)]
    fn pawn_promotions(&mut self, targets: Bitboard, rotation: u32) {
        for to in targets {
            let from = origin(to, rotation);
            for kind in PieceKind::PROMOTIONS {
                self.0.push(Move::promotion(from, to, kind));
            }
        }
    }

    #[inline(always)]
    fn special(&mut self, mv: Move) {
        self.0.push(mv);
    }
}

/// Expands only captures (en passant included) and promotions into a [`MoveList`].
struct TacticalSink<'a> {
    list: &'a mut MoveList,
    their: Bitboard,
}

impl MoveSink for TacticalSink<'_> {
    #[inline(always)]
    fn piece_moves(&mut self, from: Square, targets: Bitboard) {
        ListSink(self.list).piece_moves(from, targets & self.their);
    }

    #[inline(always)]
    fn pawn_moves(&mut self, targets: Bitboard, rotation: u32) {
        // Pushes land on empty squares, so this keeps exactly the captures.
        ListSink(self.list).pawn_moves(targets & self.their, rotation);
    }

    #[inline(always)]
    fn pawn_promotions(&mut self, targets: Bitboard, rotation: u32) {
        ListSink(self.list).pawn_promotions(targets, rotation);
    }

    #[inline(always)]
    fn special(&mut self, mv: Move) {
        if mv.is_en_passant() {
            self.list.push(mv);
        }
    }
}

/// Counts moves without producing them.
struct CountSink(u64);

impl MoveSink for CountSink {
    #[inline(always)]
    fn piece_moves(&mut self, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }

    #[inline(always)]
    fn pawn_moves(&mut self, targets: Bitboard, _rotation: u32) {
        self.0 += targets.count() as u64;
    }

    #[inline(always)]
    fn pawn_promotions(&mut self, targets: Bitboard, _rotation: u32) {
        self.0 += 4 * targets.count() as u64;
    }

    #[inline(always)]
    fn special(&mut self, _mv: Move) {
        self.0 += 1;
    }
}

/// Per colour: how far (as a left rotation of the board) a pawn push moves. Rotations stand in for
/// shifts in both directions; pawns never stand on their first or last rank, so nothing wraps.
const PUSH: [u32; 2] = [8, 56];
/// Per colour: rotation of a capture towards the a-file (+7 for White, -9 for Black).
const CAPTURE_WEST: [u32; 2] = [7, 55];
/// Per colour: rotation of a capture towards the h-file (+9 for White, -7 for Black).
const CAPTURE_EAST: [u32; 2] = [9, 57];
/// Per colour: the rank where pawns promote.
const PROMOTION_RANK: [Bitboard; 2] = [Bitboard::rank(Rank::R8), Bitboard::rank(Rank::R1)];
/// Per colour: the rank a single push from the start rank lands on.
const THIRD_RANK: [Bitboard; 2] = [Bitboard::rank(Rank::R3), Bitboard::rank(Rank::R6)];
/// Per colour: every square a castling king crosses or lands on.
const CASTLING_ZONE: [Bitboard; 2] = [Bitboard(0x6C), Bitboard(0x6C << 56)];
const NOT_FILE_A: Bitboard = Bitboard(!Bitboard::file(File::A).0);
const NOT_FILE_H: Bitboard = Bitboard(!Bitboard::file(File::H).0);

#[inline(always)]
fn rotate(bb: Bitboard, rotation: u32) -> Bitboard {
    Bitboard(bb.0.rotate_left(rotation))
}

/// The generator proper, shared by listing and counting.
#[inline(always)]
fn generate<S: MoveSink>(pos: &Position, sink: &mut S) {
    let us = pos.side;
    let them = !us;
    let c = us.index();
    let our = pos.colours[c];
    let their = pos.colours[them.index()];
    let occupied = our | their;
    let kinds = &pos.kinds;
    let pawns = kinds[PieceKind::Pawn.index()];
    let knights = kinds[PieceKind::Knight.index()];
    let queens = kinds[PieceKind::Queen.index()];
    let diagonal = kinds[PieceKind::Bishop.index()] | queens;
    let orthogonal = kinds[PieceKind::Rook.index()] | queens;
    let their_diagonal = diagonal & their;
    let their_orthogonal = orthogonal & their;
    let king_bb = our & kinds[PieceKind::King.index()];
    let king = Square::from_index_masked(king_bb.0.trailing_zeros() as u8);

    // Checkers and pins. Enemy sliders are looked up through our own pieces ("x-ray"): with no
    // piece of ours on the ray they check, with exactly one it is pinned.
    let mut checkers = (knight_attacks(king) & knights | pawn_attacks(us, king) & pawns) & their;
    let mut pin_orthogonal = Bitboard::EMPTY;
    let mut pin_diagonal = Bitboard::EMPTY;
    let orthogonal_snipers = if (rook_rays(king) & their_orthogonal).any() {
        rook_attacks(king, their) & their_orthogonal
    } else {
        Bitboard::EMPTY
    };
    for sniper in orthogonal_snipers {
        let ray = between(king, sniper);
        let blockers = ray & our;
        if blockers.is_empty() {
            checkers |= Bitboard::from_square(sniper);
        } else if !blockers.has_more_than_one() {
            pin_orthogonal |= ray.with(sniper);
        }
    }
    let diagonal_snipers = if (bishop_rays(king) & their_diagonal).any() {
        bishop_attacks(king, their) & their_diagonal
    } else {
        Bitboard::EMPTY
    };
    for sniper in diagonal_snipers {
        let ray = between(king, sniper);
        let blockers = ray & our;
        if blockers.is_empty() {
            checkers |= Bitboard::from_square(sniper);
        } else if !blockers.has_more_than_one() {
            pin_diagonal |= ray.with(sniper);
        }
    }

    // The squares the king might move to or cross when castling, and which of them the enemy
    // attacks. Attacks are computed with our king lifted off the board (so it cannot hide behind
    // itself on a checking ray), and only for pieces that could reach the zone at all.
    let mut zone = king_attacks(king) & !our;
    let may_castle = checkers.is_empty() && pos.castling.has_any(us);
    if may_castle {
        zone |= CASTLING_ZONE[c];
    }
    let mut danger = Bitboard::EMPTY;
    if zone.any() {
        let without_king = occupied ^ king_bb;
        let their_king = their & kinds[PieceKind::King.index()];
        danger = king_attacks(Square::from_index_masked(
            their_king.0.trailing_zeros() as u8
        ));
        let their_pawns = their & pawns;
        danger |= rotate(their_pawns & NOT_FILE_A, CAPTURE_WEST[them.index()])
            | rotate(their_pawns & NOT_FILE_H, CAPTURE_EAST[them.index()]);
        for sq in their & knights {
            danger |= knight_attacks(sq);
        }
        for sq in their_diagonal {
            if (bishop_rays(sq) & zone).any() {
                danger |= bishop_attacks(sq, without_king);
            }
        }
        for sq in their_orthogonal {
            if (rook_rays(sq) & zone).any() {
                danger |= rook_attacks(sq, without_king);
            }
        }
    }
    sink.piece_moves(king, king_attacks(king) & !our & !danger);

    if checkers.has_more_than_one() {
        return;
    }
    let check_mask = match checkers.first() {
        Some(checker) => between(king, checker).with(checker),
        None => Bitboard::FULL,
    };
    let targets = !our & check_mask;
    let pinned = pin_orthogonal | pin_diagonal;

    // Knights: a pinned knight can never move.
    for from in our & knights & !pinned {
        sink.piece_moves(from, knight_attacks(from) & targets);
    }

    // Sliders; queens appear in both passes. Pinned pieces move only along their own pin ray.
    let our_diagonal = our & diagonal;
    for from in our_diagonal & !pinned {
        sink.piece_moves(from, bishop_attacks(from, occupied) & targets);
    }
    for from in our_diagonal & pin_diagonal {
        sink.piece_moves(
            from,
            bishop_attacks(from, occupied) & targets & pin_diagonal,
        );
    }
    let our_orthogonal = our & orthogonal;
    for from in our_orthogonal & !pinned {
        sink.piece_moves(from, rook_attacks(from, occupied) & targets);
    }
    for from in our_orthogonal & pin_orthogonal {
        sink.piece_moves(
            from,
            rook_attacks(from, occupied) & targets & pin_orthogonal,
        );
    }

    // Pawns, as whole sets.
    let our_pawns = our & pawns;
    let empty = !occupied;
    let promotion_rank = PROMOTION_RANK[c];
    let free = our_pawns & !pinned;

    let push = PUSH[c];
    let single =
        (rotate(free, push) | rotate(our_pawns & pin_orthogonal, push) & pin_orthogonal) & empty;
    let double = rotate(single & THIRD_RANK[c], push) & empty & check_mask;
    let single = single & check_mask;
    sink.pawn_moves(single & !promotion_rank, push);
    sink.pawn_promotions(single & promotion_rank, push);
    sink.pawn_moves(double, (2 * push) & 63);

    let capturable = their & check_mask;
    let diagonal_pinned = our_pawns & pin_diagonal;
    for (rotation, edge) in [(CAPTURE_WEST[c], NOT_FILE_A), (CAPTURE_EAST[c], NOT_FILE_H)] {
        let captures = (rotate(free & edge, rotation)
            | rotate(diagonal_pinned & edge, rotation) & pin_diagonal)
            & capturable;
        sink.pawn_moves(captures & !promotion_rank, rotation);
        sink.pawn_promotions(captures & promotion_rank, rotation);
    }

    if let Some(ep) = pos.en_passant {
        let captured = Bitboard::from_square(Square::from_index_masked(ep.index() as u8 ^ 8));
        // Leaper checks can only be answered by capturing the checker; slider checks and pins are
        // settled by looking again with both pawns moved.
        if (checkers & !captured & (knights | pawns)).is_empty() {
            for from in pawn_attacks(them, ep) & our_pawns {
                let after =
                    occupied ^ Bitboard::from_square(from) ^ captured | Bitboard::from_square(ep);
                if (rook_attacks(king, after) & their_orthogonal).is_empty()
                    && (bishop_attacks(king, after) & their_diagonal).is_empty()
                {
                    sink.special(Move::en_passant(from, ep));
                }
            }
        }
    }

    if may_castle {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if !pos.castling.has(us, side) {
                continue;
            }
            let path = CastlingPath::of(us, side);
            if (occupied & path.must_be_empty).is_empty() && (path.must_be_safe & danger).is_empty()
            {
                sink.special(Move::castle(path.king_from, path.king_to));
            }
        }
    }
}

/// Appends every legal move of the side to move to `list`.
pub fn legal_moves_into(pos: &Position, list: &mut MoveList) {
    generate(pos, &mut ListSink(list));
}

/// Appends the legal captures (en passant included) and promotions of the side to move to
/// `list`: the moves a quiescence search looks at, without listing the quiet ones.
pub fn legal_tactical_into(pos: &Position, list: &mut MoveList) {
    let their = pos.colours[(!pos.side).index()];
    generate(pos, &mut TacticalSink { list, their });
}

/// Every legal move of the side to move.
pub fn legal_moves(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    legal_moves_into(pos, &mut list);
    list
}

/// The number of legal moves of the side to move, counted without listing them.
pub fn count_legal_moves(pos: &Position) -> u64 {
    let mut sink = CountSink(0);
    generate(pos, &mut sink);
    sink.0
}

impl Position {
    /// Every legal move of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        legal_moves(self)
    }

    /// True if `mv` is legal here (including its castling/en-passant/promotion flag).
    pub fn is_legal(&self, mv: Move) -> bool {
        legal_moves(self).contains(&mv)
    }

    /// The number of legal moves of the side to move.
    pub fn count_legal_moves(&self) -> u64 {
        count_legal_moves(self)
    }
}
