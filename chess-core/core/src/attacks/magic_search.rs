//! Slow reference slider attacks and the seeded search for magic multipliers.
//!
//! This file is compiled twice: by `build.rs`, which runs the search once per build and writes the
//! resulting tables into `OUT_DIR` as Rust source, and by the crate's tests, which check the fast
//! lookups against the slow ray walk below. It therefore uses only `std` and plain integers.
//!
//! The scheme is "fancy" magic bitboards: for a square, the occupancy bits that can block a slider
//! (its rays without the board edge) are multiplied by a magic number and the top bits of the
//! product index that square's slice of one shared attack table. A magic is good when no two
//! occupancies with different attack sets collide. Magics are found by trying sparse random numbers
//! from a fixed-seed generator, so every build produces the same tables.

/// Rook directions as (file step, rank step).
pub const ROOK_DIRECTIONS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// Bishop directions as (file step, rank step).
pub const BISHOP_DIRECTIONS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Attacks of a slider on `sq` moving along `directions`, stopping at (and including) the first
/// occupied square of each ray. Walks square by square; the reference for the fast tables.
pub fn ray_attacks(sq: u8, occupied: u64, directions: &[(i8, i8)]) -> u64 {
    let mut attacks = 0u64;
    for &(df, dr) in directions {
        let mut f = (sq % 8) as i8;
        let mut r = (sq / 8) as i8;
        loop {
            f += df;
            r += dr;
            if !(0..8).contains(&f) || !(0..8).contains(&r) {
                break;
            }
            let bit = 1u64 << (r * 8 + f);
            attacks |= bit;
            if occupied & bit != 0 {
                break;
            }
        }
    }
    attacks
}

/// The squares whose occupancy can change the attacks of a slider on `sq`: its rays without the
/// last square of each (a piece there cannot hide anything behind it).
pub fn relevant_mask(sq: u8, directions: &[(i8, i8)]) -> u64 {
    let mut mask = 0u64;
    for &(df, dr) in directions {
        let mut f = (sq % 8) as i8 + df;
        let mut r = (sq / 8) as i8 + dr;
        while (0..8).contains(&(f + df)) && (0..8).contains(&(r + dr)) {
            mask |= 1u64 << (r * 8 + f);
            f += df;
            r += dr;
        }
    }
    mask
}

/// One square's entry of a magic table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Magic {
    /// Relevant occupancy mask.
    pub mask: u64,
    /// The multiplier.
    pub magic: u64,
    /// Right shift of the product (64 minus the number of relevant bits).
    pub shift: u32,
    /// Start of this square's slice in the shared attack table.
    pub offset: u32,
}

/// The complete set of slider tables.
#[derive(Clone, Debug)]
pub struct MagicTables {
    /// Rook entries, indexed by square.
    pub rook: Vec<Magic>,
    /// Bishop entries, indexed by square.
    pub bishop: Vec<Magic>,
    /// All attack sets, rook slices first, then bishop slices.
    pub attacks: Vec<u64>,
}

/// xorshift64* generator: small, fast and fully determined by its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A random number with about 8 of 64 bits set; sparse multipliers make good magics likely.
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

/// Finds a magic for one square and appends its slice to `attacks`.
fn find_magic(sq: u8, directions: &[(i8, i8)], rng: &mut Rng, attacks: &mut Vec<u64>) -> Magic {
    let mask = relevant_mask(sq, directions);
    let bits = mask.count_ones();
    let shift = 64 - bits;
    let size = 1usize << bits;

    // Every subset of the mask (carry-rippler enumeration) with its true attack set.
    let mut occupancies = Vec::with_capacity(size);
    let mut references = Vec::with_capacity(size);
    let mut subset = 0u64;
    loop {
        occupancies.push(subset);
        references.push(ray_attacks(sq, subset, directions));
        subset = subset.wrapping_sub(mask) & mask;
        if subset == 0 {
            break;
        }
    }

    let mut slice = vec![0u64; size];
    // `stamp[i] == attempt` marks slots filled by the current attempt, so nothing is cleared
    // between attempts.
    let mut stamp = vec![0u32; size];
    let mut attempt = 0u32;
    loop {
        let magic = rng.sparse();
        if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
            continue;
        }
        attempt += 1;
        let mut ok = true;
        for (&occ, &reference) in occupancies.iter().zip(&references) {
            let index = (occ.wrapping_mul(magic) >> shift) as usize;
            if stamp[index] != attempt {
                stamp[index] = attempt;
                slice[index] = reference;
            } else if slice[index] != reference {
                ok = false;
                break;
            }
        }
        if ok {
            // Slots no occupancy maps to are never read; zero them so the output is tidy.
            for (value, &s) in slice.iter_mut().zip(&stamp) {
                if s != attempt {
                    *value = 0;
                }
            }
            let offset = attacks.len() as u32;
            attacks.extend_from_slice(&slice);
            return Magic {
                mask,
                magic,
                shift,
                offset,
            };
        }
    }
}

/// Builds rook and bishop tables for all 64 squares with a generator seeded by `seed`.
pub fn build_tables(seed: u64) -> MagicTables {
    let mut rng = Rng(seed | 1);
    let mut attacks = Vec::new();
    let rook = (0..64u8)
        .map(|sq| find_magic(sq, &ROOK_DIRECTIONS, &mut rng, &mut attacks))
        .collect();
    let bishop = (0..64u8)
        .map(|sq| find_magic(sq, &BISHOP_DIRECTIONS, &mut rng, &mut attacks))
        .collect();
    MagicTables {
        rook,
        bishop,
        attacks,
    }
}
