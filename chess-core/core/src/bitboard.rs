//! Sets of squares as 64-bit words.
//!
//! Every piece placement, attack set and mask in the crate is a [`Bitboard`]: bit `i` stands for the
//! square with index `i` (a1 = 0, b1 = 1, ..., h8 = 63). Set algebra on whole boards is a single
//! machine instruction, which is what makes bitboard move generation fast. The inner `u64` is public
//! so that hosts (the CVM board view) can copy it out without conversion.

use crate::square::{File, Rank, Square};
use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares; bit `i` is the square with index `i` (a1 = 0, h8 = 63).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);

    /// The set holding only `sq`.
    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1u64 << sq.index())
    }

    /// All squares of a file.
    #[inline(always)]
    pub const fn file(file: File) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101u64 << file.index())
    }

    /// All squares of a rank.
    #[inline(always)]
    pub const fn rank(rank: Rank) -> Bitboard {
        Bitboard(0xFFu64 << (8 * rank.index()))
    }

    /// True if no square is in the set.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if at least one square is in the set.
    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// Number of squares in the set.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True if the set holds two or more squares.
    #[inline(always)]
    pub const fn has_more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// True if `sq` is in the set.
    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// The lowest-indexed square of the set, if any.
    #[inline(always)]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_masked(self.0.trailing_zeros() as u8))
        }
    }

    /// The set with `sq` added.
    #[inline(always)]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1u64 << sq.index())
    }

    /// The set with `sq` removed.
    #[inline(always)]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1u64 << sq.index()))
    }

    /// Every square moved one rank up (towards rank 8); squares on rank 8 fall off.
    #[inline(always)]
    pub const fn north(self) -> Bitboard {
        Bitboard(self.0 << 8)
    }

    /// Every square moved one rank down (towards rank 1); squares on rank 1 fall off.
    #[inline(always)]
    pub const fn south(self) -> Bitboard {
        Bitboard(self.0 >> 8)
    }

    /// Iterates over the squares of the set, lowest index first.
    #[inline(always)]
    pub const fn iter(self) -> BitboardIter {
        BitboardIter(self.0)
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest index first.
#[derive(Clone, Copy, Debug)]
pub struct BitboardIter(u64);

impl Iterator for BitboardIter {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square::from_index_masked(self.0.trailing_zeros() as u8);
        self.0 &= self.0 - 1;
        Some(sq)
    }

    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitboardIter {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = BitboardIter;

    #[inline(always)]
    fn into_iter(self) -> BitboardIter {
        self.iter()
    }
}

impl From<Square> for Bitboard {
    #[inline(always)]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

macro_rules! impl_binary_op {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $method(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }

        impl $assign_trait for Bitboard {
            #[inline(always)]
            fn $assign_method(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

impl_binary_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
impl_binary_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
impl_binary_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bitboard({:#018x})", self.0)
    }
}

/// Draws the set as an 8x8 grid, rank 8 on top, `X` for members and `.` for the rest.
impl fmt::Display for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8u8).rev() {
            for file in 0..8u8 {
                let bit = self.0 >> (rank * 8 + file) & 1;
                let mark = if bit != 0 { 'X' } else { '.' };
                if file < 7 {
                    write!(f, "{mark} ")?;
                } else {
                    writeln!(f, "{mark}")?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iteration_is_in_index_order() {
        let bb = Bitboard(0b1010_0001) | Bitboard(1 << 63);
        let squares: Vec<u8> = bb.iter().map(|s| s.index() as u8).collect();
        assert_eq!(squares, vec![0, 5, 7, 63]);
        assert_eq!(bb.iter().len(), 4);
    }

    #[test]
    fn files_and_ranks() {
        assert_eq!(Bitboard::file(File::A).0, 0x0101_0101_0101_0101);
        assert_eq!(Bitboard::file(File::H).0, 0x8080_8080_8080_8080);
        assert_eq!(Bitboard::rank(Rank::R1).0, 0xFF);
        assert_eq!(Bitboard::rank(Rank::R8).0, 0xFF00_0000_0000_0000);
    }

    #[test]
    fn more_than_one() {
        assert!(!Bitboard(0).has_more_than_one());
        assert!(!Bitboard(8).has_more_than_one());
        assert!(Bitboard(9).has_more_than_one());
    }
}
