//! Table indices: symmetry reduction and the mapping between canonical men and indices.
//!
//! Pawnless endings have the board's eight symmetries (the dihedral group of the square). Every
//! position is mapped to a *canonical* representative whose strong king stands in the triangle
//! a1-d1-d4 (10 squares); when that king is on the a1-d4 diagonal the reflection in that diagonal
//! still leaves it in place, so of the two candidates the one with the smaller (weak king, men)
//! tuple is chosen. The index is then
//!
//! ```text
//! ((((triangle(strong king) * 64 + weak king) * 64 + man 1) [* 64 + man 2]) * 2 + side to move
//! ```
//!
//! A bishop keeps its square colour only up to these reflections: the table holds both colours of
//! bishop, so the light- and dark-squared KBNK corners are both in it.
//!
//! With a pawn only the left-right mirror is a symmetry: the canonical pawn stands on files a-d,
//! ranks 2-7 (24 squares) and the index is `((pawn * 64 + strong king) * 64 + weak king) * 2 +
//! side to move`. Indices that decode to overlapping men, non-canonical representatives or illegal
//! positions are marked invalid in the table and never probed.

use crate::material::Material;
use crate::men::Men;

/// The ten squares of the triangle a1-d1-d4, in index order.
const TRIANGLE: [u8; 10] = [0, 1, 2, 3, 9, 10, 11, 18, 19, 27];

/// The triangle slot of each square, or `u8::MAX` off the triangle.
const TRIANGLE_SLOT: [u8; 64] = {
    let mut slots = [u8::MAX; 64];
    let mut i = 0;
    while i < TRIANGLE.len() {
        slots[TRIANGLE[i] as usize] = i as u8;
        i += 1;
    }
    slots
};

const fn file(sq: u8) -> u8 {
    sq & 7
}

const fn rank(sq: u8) -> u8 {
    sq >> 3
}

/// Reflection in the a1-h8 diagonal.
const fn diagonal(sq: u8) -> u8 {
    (file(sq) << 3) | rank(sq)
}

/// Number of entries of the table for `material` (valid or not).
pub(crate) const fn size(material: Material) -> usize {
    match material {
        Material::Kqk | Material::Krk => 10 * 64 * 64 * 2,
        Material::Kbnk => 10 * 64 * 64 * 64 * 2,
        Material::Kpk => 24 * 64 * 64 * 2,
    }
}

/// The canonical representative of `men` under the symmetries of `material`.
pub(crate) fn canonical(material: Material, men: &Men) -> Men {
    if material.has_pawn() {
        return match men.men_of(material).first() {
            Some(&pawn) if file(pawn) > 3 => men.map(material, |sq| sq ^ 7),
            _ => *men,
        };
    }
    let king = men.strong_king;
    if TRIANGLE_SLOT[usize::from(king)] != u8::MAX && file(king) != rank(king) {
        return *men;
    }
    let mirror = if file(king) > 3 { 7 } else { 0 };
    let flip = if rank(king) > 3 { 56 } else { 0 };
    let folded = king ^ mirror ^ flip;
    let swap = rank(folded) > file(folded);
    let to_triangle = |sq: u8| {
        let s = sq ^ mirror ^ flip;
        if swap {
            diagonal(s)
        } else {
            s
        }
    };
    let first = men.map(material, to_triangle);
    if file(first.strong_king) != rank(first.strong_king) {
        return first;
    }
    let second = first.map(material, diagonal);
    let key = |m: &Men| {
        let mut key = [m.weak_king, 0, 0];
        key[1..1 + material.men().len()].copy_from_slice(m.men_of(material));
        key
    };
    if key(&second) < key(&first) {
        second
    } else {
        first
    }
}

/// The index of canonical `men` (the caller canonicalises; see [`index_of`]).
pub(crate) fn encode(material: Material, men: &Men) -> usize {
    let side = usize::from(!men.strong_to_move);
    let head = if material.has_pawn() {
        let pawn = men.men[0];
        let slot = usize::from((rank(pawn) - 1) * 4 + file(pawn));
        (slot * 64 + usize::from(men.strong_king)) * 64 + usize::from(men.weak_king)
    } else {
        let mut head = usize::from(TRIANGLE_SLOT[usize::from(men.strong_king)]) * 64
            + usize::from(men.weak_king);
        for &sq in men.men_of(material) {
            head = head * 64 + usize::from(sq);
        }
        head
    };
    head * 2 + side
}

/// The index of any `men`, through its canonical representative.
pub(crate) fn index_of(material: Material, men: &Men) -> usize {
    encode(material, &canonical(material, men))
}

/// The men an index stands for (possibly overlapping or illegal; see the module docs).
pub(crate) fn decode(material: Material, index: usize) -> Men {
    let strong_to_move = index % 2 == 0;
    let mut rest = index / 2;
    let mut men = [0u8; 2];
    if material.has_pawn() {
        let weak_king = (rest % 64) as u8;
        rest /= 64;
        let strong_king = (rest % 64) as u8;
        let slot = (rest / 64) as u8;
        men[0] = (slot / 4 + 1) * 8 + slot % 4;
        return Men {
            strong_king,
            weak_king,
            men,
            strong_to_move,
        };
    }
    let count = material.men().len();
    for i in (0..count).rev() {
        men[i] = (rest % 64) as u8;
        rest /= 64;
    }
    let weak_king = (rest % 64) as u8;
    let slot = rest / 64;
    Men {
        strong_king: TRIANGLE[slot % TRIANGLE.len()],
        weak_king,
        men,
        strong_to_move,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// All eight symmetries of the board, written out independently of `canonical`.
    fn symmetries() -> [fn(u8) -> u8; 8] {
        [
            |s| s,
            |s| s ^ 7,
            |s| s ^ 56,
            |s| s ^ 63,
            diagonal,
            |s| diagonal(s) ^ 7,
            |s| diagonal(s) ^ 56,
            |s| diagonal(s) ^ 63,
        ]
    }

    #[test]
    fn decode_inverts_encode_on_every_index() {
        for material in Material::ALL {
            for index in 0..size(material) {
                let men = decode(material, index);
                assert_eq!(encode(material, &men), index, "{material} {index}");
            }
        }
    }

    #[test]
    fn every_symmetric_image_has_the_same_index() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 64) as u8
        };
        for _ in 0..20_000 {
            let men = Men {
                strong_king: next(),
                weak_king: next(),
                men: [next(), next()],
                strong_to_move: next() % 2 == 0,
            };
            for material in [Material::Kqk, Material::Kbnk] {
                let index = index_of(material, &men);
                let canon = canonical(material, &men);
                assert!(TRIANGLE_SLOT[usize::from(canon.strong_king)] != u8::MAX);
                for sym in symmetries() {
                    let image = men.map(material, sym);
                    assert_eq!(index_of(material, &image), index, "{material} {men:?}");
                }
            }
            let mut pawn = men;
            pawn.men[0] = 8 + next() % 48;
            let mirrored = pawn.map(Material::Kpk, |s| s ^ 7);
            assert_eq!(
                index_of(Material::Kpk, &pawn),
                index_of(Material::Kpk, &mirrored)
            );
        }
    }
}
