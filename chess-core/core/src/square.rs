//! Squares, files and ranks.
//!
//! The numbering is fixed across the project: a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63
//! (little-endian rank-file). A square is a plain index so that it can address the 64-entry attack
//! tables directly and be turned into a bit of a [`crate::Bitboard`] with one shift.

use std::error::Error;
use std::fmt;
use std::str::FromStr;

/// One of the 64 squares, numbered a1 = 0 ... h8 = 63.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

/// A file (column), a = 0 ... h = 7.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum File {
    /// File a.
    A,
    /// File b.
    B,
    /// File c.
    C,
    /// File d.
    D,
    /// File e.
    E,
    /// File f.
    F,
    /// File g.
    G,
    /// File h.
    H,
}

/// A rank (row), rank 1 = 0 ... rank 8 = 7.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum Rank {
    /// Rank 1 (White's back rank).
    R1,
    /// Rank 2.
    R2,
    /// Rank 3.
    R3,
    /// Rank 4.
    R4,
    /// Rank 5.
    R5,
    /// Rank 6.
    R6,
    /// Rank 7.
    R7,
    /// Rank 8 (Black's back rank).
    R8,
}

impl File {
    /// All files from a to h.
    pub const ALL: [File; 8] = [
        File::A,
        File::B,
        File::C,
        File::D,
        File::E,
        File::F,
        File::G,
        File::H,
    ];

    /// The file with index `i` (a = 0), if `i < 8`.
    pub const fn from_index(i: u8) -> Option<File> {
        if i < 8 {
            Some(File::ALL[i as usize])
        } else {
            None
        }
    }

    /// Index of the file, a = 0 ... h = 7.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The file's letter, `'a'` ... `'h'`.
    pub const fn to_char(self) -> char {
        (b'a' + self as u8) as char
    }

    /// Parses a file letter `'a'` ... `'h'`.
    pub const fn from_char(c: char) -> Option<File> {
        match c {
            'a'..='h' => File::from_index(c as u8 - b'a'),
            _ => None,
        }
    }
}

impl Rank {
    /// All ranks from 1 to 8.
    pub const ALL: [Rank; 8] = [
        Rank::R1,
        Rank::R2,
        Rank::R3,
        Rank::R4,
        Rank::R5,
        Rank::R6,
        Rank::R7,
        Rank::R8,
    ];

    /// The rank with index `i` (rank 1 = 0), if `i < 8`.
    pub const fn from_index(i: u8) -> Option<Rank> {
        if i < 8 {
            Some(Rank::ALL[i as usize])
        } else {
            None
        }
    }

    /// Index of the rank, rank 1 = 0 ... rank 8 = 7.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The rank's digit, `'1'` ... `'8'`.
    pub const fn to_char(self) -> char {
        (b'1' + self as u8) as char
    }

    /// Parses a rank digit `'1'` ... `'8'`.
    pub const fn from_char(c: char) -> Option<Rank> {
        match c {
            '1'..='8' => Rank::from_index(c as u8 - b'1'),
            _ => None,
        }
    }
}

macro_rules! square_constants {
    ($($name:ident = $index:expr),* $(,)?) => {
        impl Square {
            $(
                #[doc = concat!("The square ", stringify!($name), ".")]
                pub const $name: Square = Square($index);
            )*
        }
    };
}

square_constants! {
    A1 = 0, B1 = 1, C1 = 2, D1 = 3, E1 = 4, F1 = 5, G1 = 6, H1 = 7,
    A2 = 8, B2 = 9, C2 = 10, D2 = 11, E2 = 12, F2 = 13, G2 = 14, H2 = 15,
    A3 = 16, B3 = 17, C3 = 18, D3 = 19, E3 = 20, F3 = 21, G3 = 22, H3 = 23,
    A4 = 24, B4 = 25, C4 = 26, D4 = 27, E4 = 28, F4 = 29, G4 = 30, H4 = 31,
    A5 = 32, B5 = 33, C5 = 34, D5 = 35, E5 = 36, F5 = 37, G5 = 38, H5 = 39,
    A6 = 40, B6 = 41, C6 = 42, D6 = 43, E6 = 44, F6 = 45, G6 = 46, H6 = 47,
    A7 = 48, B7 = 49, C7 = 50, D7 = 51, E7 = 52, F7 = 53, G7 = 54, H7 = 55,
    A8 = 56, B8 = 57, C8 = 58, D8 = 59, E8 = 60, F8 = 61, G8 = 62, H8 = 63,
}

impl Square {
    /// The square with index `i` (a1 = 0 ... h8 = 63), if `i < 64`.
    #[inline(always)]
    pub const fn from_index(i: u8) -> Option<Square> {
        if i < 64 {
            Some(Square(i))
        } else {
            None
        }
    }

    /// The square with index `i & 63`; for indices already known to be below 64.
    #[inline(always)]
    pub const fn from_index_masked(i: u8) -> Square {
        Square(i & 63)
    }

    /// The square on `file` and `rank`.
    #[inline(always)]
    pub const fn new(file: File, rank: Rank) -> Square {
        Square(rank as u8 * 8 + file as u8)
    }

    /// Index of the square, a1 = 0 ... h8 = 63. Always below 64, so it indexes 64-entry tables
    /// without a bounds check.
    #[inline(always)]
    pub const fn index(self) -> usize {
        (self.0 & 63) as usize
    }

    /// The file the square is on.
    #[inline(always)]
    pub const fn file(self) -> File {
        File::ALL[(self.0 & 7) as usize]
    }

    /// The rank the square is on.
    #[inline(always)]
    pub const fn rank(self) -> Rank {
        Rank::ALL[((self.0 >> 3) & 7) as usize]
    }

    /// The square `files` files to the right and `ranks` ranks up, if it is on the board.
    pub const fn offset(self, files: i8, ranks: i8) -> Option<Square> {
        let f = (self.0 & 7) as i8 + files;
        let r = (self.0 >> 3) as i8 + ranks;
        if f >= 0 && f < 8 && r >= 0 && r < 8 {
            Some(Square((r * 8 + f) as u8))
        } else {
            None
        }
    }

    /// The square mirrored top to bottom (a1 <-> a8), as seen from the other side.
    #[inline(always)]
    pub const fn flip_rank(self) -> Square {
        Square(self.0 ^ 56)
    }
}

/// Error for text that is not a square name such as `e4`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a square (expected a file a-h and a rank 1-8, such as e4)",
            self.0
        )
    }
}

impl Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses a lower-case square name such as `e4`.
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(f), Some(r), None) => match (File::from_char(f), Rank::from_char(r)) {
                (Some(file), Some(rank)) => Ok(Square::new(file, rank)),
                _ => Err(ParseSquareError(s.to_owned())),
            },
            _ => Err(ParseSquareError(s.to_owned())),
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().to_char(), self.rank().to_char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_is_little_endian_rank_file() {
        assert_eq!(Square::A1.index(), 0);
        assert_eq!(Square::H1.index(), 7);
        assert_eq!(Square::A2.index(), 8);
        assert_eq!(Square::H8.index(), 63);
        assert_eq!(Square::new(File::E, Rank::R4), Square::E4);
        assert_eq!(Square::E4.file(), File::E);
        assert_eq!(Square::E4.rank(), Rank::R4);
    }

    #[test]
    fn parse_and_print() {
        assert_eq!("e4".parse::<Square>(), Ok(Square::E4));
        assert_eq!(Square::H8.to_string(), "h8");
        for bad in ["", "e", "e9", "i1", "E4", "e44", "4e"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn offsets_stay_on_board() {
        assert_eq!(Square::A1.offset(-1, 0), None);
        assert_eq!(Square::H8.offset(0, 1), None);
        assert_eq!(Square::B1.offset(1, 2), Some(Square::C3));
    }
}
