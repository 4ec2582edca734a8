//! Which endings the crate solves, and recognising them on a board.
//!
//! Every ending here is a lone king against a king with one or two men. Internally the side with
//! the men (the *strong* side) is always White; [`Material::identify`] says which colour it has on
//! a real board so that probes can mirror Black-strong positions onto the stored White-strong ones.

use chess_core::{Colour, PieceKind, Position};
use std::fmt;

/// An ending the crate can generate a table for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Material {
    /// King and queen against king.
    Kqk,
    /// King and rook against king.
    Krk,
    /// King, bishop and knight against king.
    Kbnk,
    /// King and pawn against king.
    Kpk,
}

impl Material {
    /// All four endings, in the order they depend on each other (KPK needs KQK and KRK).
    pub const ALL: [Material; 4] = [Material::Kqk, Material::Krk, Material::Kbnk, Material::Kpk];

    /// The usual name: `KQK`, `KRK`, `KBNK`, `KPK`.
    pub const fn name(self) -> &'static str {
        match self {
            Material::Kqk => "KQK",
            Material::Krk => "KRK",
            Material::Kbnk => "KBNK",
            Material::Kpk => "KPK",
        }
    }

    /// The strong side's men besides its king, in the order the table indexes them.
    pub const fn men(self) -> &'static [PieceKind] {
        match self {
            Material::Kqk => &[PieceKind::Queen],
            Material::Krk => &[PieceKind::Rook],
            Material::Kbnk => &[PieceKind::Bishop, PieceKind::Knight],
            Material::Kpk => &[PieceKind::Pawn],
        }
    }

    /// True for the ending with a pawn (only left-right symmetry applies to it).
    pub(crate) const fn has_pawn(self) -> bool {
        matches!(self, Material::Kpk)
    }

    /// A one-byte tag for the cache file header.
    pub(crate) const fn tag(self) -> u8 {
        match self {
            Material::Kqk => 1,
            Material::Krk => 2,
            Material::Kbnk => 3,
            Material::Kpk => 4,
        }
    }

    /// The ending on `pos` and the colour of its strong side, or `None` if the position is none of
    /// the four endings (including the bare-kings and king-and-minor draws).
    pub fn identify(pos: &Position) -> Option<(Material, Colour)> {
        let white_alone = pos.by_colour(Colour::White).count() == 1;
        let black_alone = pos.by_colour(Colour::Black).count() == 1;
        let strong = match (white_alone, black_alone) {
            (false, true) => Colour::White,
            (true, false) => Colour::Black,
            _ => return None,
        };
        Material::ALL.into_iter().find_map(|material| {
            let men = material.men();
            let count_matches = pos.by_colour(strong).count() as usize == men.len() + 1;
            let kinds_match = men
                .iter()
                .all(|&kind| pos.pieces(strong, kind).count() == 1);
            (count_matches && kinds_match).then_some((material, strong))
        })
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One of the two sides of an ending, named by role rather than colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Side {
    /// The side with the men (queen, rook, bishop and knight, or pawn).
    Strong,
    /// The lone king.
    Weak,
}

impl Side {
    /// Both sides, strong first.
    pub const BOTH: [Side; 2] = [Side::Strong, Side::Weak];
}
