//! The two sides.
//!
//! White = 0 and Black = 1 is fixed across the project (the CVM board view is colour-major), so a
//! colour indexes per-side arrays directly.

use std::fmt;
use std::ops::Not;

/// A side: White = 0, Black = 1.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum Colour {
    /// The side that moves first.
    White = 0,
    /// The side that moves second.
    Black = 1,
}

impl Colour {
    /// Both colours, White first.
    pub const ALL: [Colour; 2] = [Colour::White, Colour::Black];

    /// Index of the colour, White = 0, Black = 1.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The opponent.
    #[inline(always)]
    pub const fn flip(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }

    /// `w` or `b`, as in FEN's side-to-move field.
    pub const fn to_char(self) -> char {
        match self {
            Colour::White => 'w',
            Colour::Black => 'b',
        }
    }
}

impl Not for Colour {
    type Output = Colour;
    #[inline(always)]
    fn not(self) -> Colour {
        self.flip()
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Colour::White => "white",
            Colour::Black => "black",
        })
    }
}
