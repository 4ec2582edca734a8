//! Rook and bishop attacks by fancy magic bitboards.
//!
//! Why magics: on a portable x86-64 or AArch64 build (no PEXT), a slider lookup is then one AND,
//! one multiply, one shift and two loads. Measured against obstruction difference (a few hundred
//! bytes of masks, more arithmetic), magics won on the two slider-heavy benchmark positions and lost
//! narrowly on the start position (see `docs/chess-core.md`).
//! The tables themselves are produced by `build.rs` (see `magic_search.rs`) and included here as
//! statics, so there is no initialisation at start-up.

use crate::bitboard::Bitboard;
use crate::square::Square;

/// One square's magic: mask the occupancy, multiply, shift, and add the slice offset.
#[derive(Clone, Copy)]
pub(crate) struct MagicEntry {
    mask: u64,
    magic: u64,
    offset: u32,
    shift: u32,
}

include!(concat!(env!("OUT_DIR"), "/magic_tables.rs"));

#[inline(always)]
fn lookup(entry: &MagicEntry, occupied: Bitboard) -> Bitboard {
    let index = entry.offset as usize
        + ((occupied.0 & entry.mask).wrapping_mul(entry.magic) >> entry.shift) as usize;
    // The table length is a power of two, so the mask replaces a bounds check; for every index a
    // correct magic can produce it changes nothing.
    Bitboard(SLIDER_ATTACKS[index & (SLIDER_TABLE_LEN - 1)])
}

/// Squares a rook on `sq` attacks when the squares in `occupied` are filled.
#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    lookup(&ROOK_MAGICS[sq.index()], occupied)
}

/// Squares a bishop on `sq` attacks when the squares in `occupied` are filled.
#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    lookup(&BISHOP_MAGICS[sq.index()], occupied)
}
