//! Piece kinds and coloured pieces.
//!
//! The kind order Pawn = 0 ... King = 5 is fixed across the project (the CVM board view stores the
//! six bitboards of a colour in this order).

use crate::colour::Colour;
use std::fmt;

/// A kind of piece, in the project-wide order Pawn = 0 ... King = 5.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum PieceKind {
    /// Pawn.
    Pawn = 0,
    /// Knight.
    Knight = 1,
    /// Bishop.
    Bishop = 2,
    /// Rook.
    Rook = 3,
    /// Queen.
    Queen = 4,
    /// King.
    King = 5,
}

impl PieceKind {
    /// All kinds in index order.
    pub const ALL: [PieceKind; 6] = [
        PieceKind::Pawn,
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
        PieceKind::King,
    ];

    /// The kinds a pawn may promote to, strongest first.
    pub const PROMOTIONS: [PieceKind; 4] = [
        PieceKind::Queen,
        PieceKind::Rook,
        PieceKind::Bishop,
        PieceKind::Knight,
    ];

    /// Index of the kind, Pawn = 0 ... King = 5.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind with index `i`, if `i < 6`.
    pub const fn from_index(i: u8) -> Option<PieceKind> {
        if i < 6 {
            Some(PieceKind::ALL[i as usize])
        } else {
            None
        }
    }

    /// Upper-case letter used by FEN (for White) and SAN: `P N B R Q K`.
    pub const fn to_upper_char(self) -> char {
        match self {
            PieceKind::Pawn => 'P',
            PieceKind::Knight => 'N',
            PieceKind::Bishop => 'B',
            PieceKind::Rook => 'R',
            PieceKind::Queen => 'Q',
            PieceKind::King => 'K',
        }
    }

    /// Lower-case letter used by FEN (for Black) and UCI promotions: `p n b r q k`.
    pub const fn to_lower_char(self) -> char {
        self.to_upper_char().to_ascii_lowercase()
    }

    /// Parses a piece letter in either case.
    pub const fn from_char(c: char) -> Option<PieceKind> {
        match c.to_ascii_uppercase() {
            'P' => Some(PieceKind::Pawn),
            'N' => Some(PieceKind::Knight),
            'B' => Some(PieceKind::Bishop),
            'R' => Some(PieceKind::Rook),
            'Q' => Some(PieceKind::Queen),
            'K' => Some(PieceKind::King),
            _ => None,
        }
    }
}

/// A piece of a given colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Whose piece it is.
    pub colour: Colour,
    /// What kind of piece it is.
    pub kind: PieceKind,
}

impl Piece {
    /// The piece of `colour` and `kind`.
    pub const fn new(colour: Colour, kind: PieceKind) -> Piece {
        Piece { colour, kind }
    }

    /// FEN letter: upper case for White, lower case for Black.
    pub const fn to_char(self) -> char {
        match self.colour {
            Colour::White => self.kind.to_upper_char(),
            Colour::Black => self.kind.to_lower_char(),
        }
    }

    /// Parses a FEN piece letter (upper case White, lower case Black).
    pub const fn from_char(c: char) -> Option<Piece> {
        let colour = if c.is_ascii_uppercase() {
            Colour::White
        } else {
            Colour::Black
        };
        match PieceKind::from_char(c) {
            Some(kind) => Some(Piece { colour, kind }),
            None => None,
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_char())
    }
}
