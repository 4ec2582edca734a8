//! The transposition table: what earlier searches found out about a position.
//!
//! Chess trees are full of transpositions (the same position reached by different move orders),
//! and iterative deepening searches the same positions again one ply deeper, so the table pays
//! twice: a stored bound can end a search at once, and a stored best move is tried first. Entries
//! live in buckets of two: one kept for depth (replaced only by deeper results or results of a
//! newer search), one always overwritten. The search is single-threaded, so the table is plain
//! memory. Mate scores are stored relative to the node (see [`crate::search::value`]).

use chess_core::chess_move::Move;
use chess_core::square::Square;

/// What a stored score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at most the score (all moves failed low).
    Upper,
    /// The true value is at least the score (a move failed high).
    Lower,
    /// The score is exact.
    Exact,
}

/// One stored result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best (or refuting) move, if one was found.
    pub mv: Option<Move>,
    /// The score, node-relative for mates.
    pub score: i32,
    /// The static evaluation of the position (from the side to move).
    pub eval: i32,
    /// The remaining depth the score was searched to.
    pub depth: i32,
    /// What kind of bound the score is.
    pub bound: Bound,
}

#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    mv: Move,
    score: i16,
    eval: i16,
    depth: i8,
    /// Bits 0-1: bound (0 = empty); bits 2-7: search generation.
    flags: u8,
    has_move: bool,
}

impl Default for Slot {
    fn default() -> Slot {
        Slot {
            key: 0,
            mv: Move::normal(Square::A1, Square::A1),
            score: 0,
            eval: 0,
            depth: 0,
            flags: 0,
            has_move: false,
        }
    }
}

impl Slot {
    fn bound(&self) -> Option<Bound> {
        match self.flags & 3 {
            1 => Some(Bound::Upper),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Exact),
            _ => None,
        }
    }
    fn generation(&self) -> u8 {
        self.flags >> 2
    }
}

const BUCKET: usize = 2;
const BYTES_PER_BUCKET: usize = BUCKET * std::mem::size_of::<Slot>();

/// The transposition table.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    buckets: usize,
    generation: u8,
}

impl TranspositionTable {
    /// A table of about `megabytes` MiB (at least one bucket).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let bytes = megabytes.max(1).saturating_mul(1 << 20);
        let buckets = (bytes / BYTES_PER_BUCKET).max(1);
        TranspositionTable {
            slots: vec![Slot::default(); buckets * BUCKET],
            buckets,
            generation: 0,
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.slots.fill(Slot::default());
        self.generation = 0;
    }

    /// Marks the start of a new search: older entries become the first to be replaced.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> usize {
        // Multiply-shift maps the key uniformly onto 0..buckets.
        (((key as u128) * (self.buckets as u128)) >> 64) as usize * BUCKET
    }

    /// The entry for the position with hash `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let base = self.bucket(key);
        let bucket = self.slots.get(base..base + BUCKET)?;
        bucket.iter().find(|s| s.key == key).and_then(|s| {
            Some(Entry {
                mv: s.has_move.then_some(s.mv),
                score: i32::from(s.score),
                eval: i32::from(s.eval),
                depth: i32::from(s.depth),
                bound: s.bound()?,
            })
        })
    }

    /// Stores a result. Scores must already be node-relative and within `i16`.
    #[inline]
    pub fn store(&mut self, key: u64, entry: Entry) {
        let base = self.bucket(key);
        let generation = self.generation;
        let Some(bucket) = self.slots.get_mut(base..base + BUCKET) else {
            return;
        };
        let flags = generation << 2
            | match entry.bound {
                Bound::Upper => 1,
                Bound::Lower => 2,
                Bound::Exact => 3,
            };
        // Same position: keep its move if the new result has none, and do not let a shallow
        // bound overwrite a deeper one from this search unless it is exact.
        let index = if let Some(i) = bucket.iter().position(|s| s.key == key) {
            i
        } else if bucket[0].bound().is_none()
            || bucket[0].generation() != generation
            || i32::from(bucket[0].depth) <= entry.depth
        {
            0
        } else {
            1
        };
        let slot = &mut bucket[index];
        if slot.key == key
            && slot.generation() == generation
            && i32::from(slot.depth) > entry.depth + 2
            && entry.bound != Bound::Exact
        {
            return;
        }
        let (mv, has_move) = match entry.mv {
            Some(m) => (m, true),
            None if slot.key == key => (slot.mv, slot.has_move),
            None => (Move::normal(Square::A1, Square::A1), false),
        };
        *slot = Slot {
            key,
            mv,
            score: entry.score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            eval: entry.eval.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            depth: entry.depth.clamp(-100, 127) as i8,
            flags,
            has_move,
        };
    }

    /// Permille of sampled slots holding an entry of the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = self.slots.len().min(1000);
        if sample == 0 {
            return 0;
        }
        let used = self.slots[..sample]
            .iter()
            .filter(|s| s.bound().is_some() && s.generation() == self.generation)
            .count();
        (used * 1000 / sample) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let mut tt = TranspositionTable::new(1);
        let mv = Move::normal(Square::E2, Square::E4);
        let e = Entry {
            mv: Some(mv),
            score: 35,
            eval: 12,
            depth: 5,
            bound: Bound::Exact,
        };
        tt.store(0xDEAD_BEEF, e);
        assert_eq!(tt.probe(0xDEAD_BEEF), Some(e));
        assert_eq!(tt.probe(0xDEAD_BEEE), None);
        // A result without a move keeps the stored move.
        tt.store(
            0xDEAD_BEEF,
            Entry {
                mv: None,
                depth: 6,
                ..e
            },
        );
        assert_eq!(tt.probe(0xDEAD_BEEF).and_then(|e| e.mv), Some(mv));
        assert!(tt.hashfull() <= 1000);
        tt.clear();
        assert_eq!(tt.probe(0xDEAD_BEEF), None);
    }
}
