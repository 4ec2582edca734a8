//! Building a Polyglot book from games: every position of each game's first plies with the move
//! played in it.
//!
//! A move's weight is the number of games that played it in that position (a line written once
//! counts once), scaled down proportionally if a count exceeds the 16-bit field. Positions are
//! identified by their Polyglot key, so transpositions between games merge. Entries are sorted by
//! key and, within a key, by weight (highest first), as Polyglot books are.

use super::entry::{encode_move, Entry};
use super::pgn::PgnGame;
use super::Book;
use chess_core::polyglot_key;
use std::collections::BTreeMap;

/// The number of plies of each game put in a book unless said otherwise.
pub const DEFAULT_PLIES: usize = 24;

/// Collects the moves of games and makes a book of them.
#[derive(Clone, Debug, Default)]
pub struct BookBuilder {
    counts: BTreeMap<(u64, u16), u64>,
}

impl BookBuilder {
    /// An empty builder.
    pub fn new() -> BookBuilder {
        BookBuilder::default()
    }

    /// Adds the first `plies` half-moves of `game`.
    pub fn add_game(&mut self, game: &PgnGame, plies: usize) {
        let mut pos = game.start;
        for &mv in game.moves.iter().take(plies) {
            *self
                .counts
                .entry((polyglot_key(&pos), encode_move(mv)))
                .or_insert(0) += 1;
            pos.play(mv);
        }
    }

    /// The number of distinct positions collected.
    pub fn positions(&self) -> usize {
        let mut keys: Vec<u64> = self.counts.keys().map(|&(k, _)| k).collect();
        keys.dedup();
        keys.len()
    }

    /// The book: one entry per position and move.
    pub fn finish(&self) -> Book {
        let max = self.counts.values().copied().max().unwrap_or(1);
        let scale = |count: u64| -> u16 {
            let w = if max > u64::from(u16::MAX) {
                (count * u64::from(u16::MAX) / max).max(1)
            } else {
                count
            };
            u16::try_from(w).unwrap_or(u16::MAX)
        };
        let mut entries: Vec<Entry> = self
            .counts
            .iter()
            .map(|(&(key, raw_move), &count)| Entry {
                key,
                raw_move,
                weight: scale(count),
                learn: 0,
            })
            .collect();
        entries.sort_by(|a, b| {
            a.key
                .cmp(&b.key)
                .then(b.weight.cmp(&a.weight))
                .then(a.raw_move.cmp(&b.raw_move))
        });
        Book::from_entries(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::pgn::read_games;
    use chess_core::position::Position;

    #[test]
    fn counts_moves_per_position_and_merges_transpositions() {
        let games = read_games("1. e4 e5 2. Nf3 *\n1. e4 c5 *\n1. Nf3 e5 2. e4 *\n1. d4 *")
            .expect("valid PGN");
        let mut b = BookBuilder::new();
        for g in &games {
            b.add_game(g, 3);
        }
        let book = b.finish();
        let start = Position::startpos();
        let weights = |pos: &Position| -> Vec<(String, u16)> {
            book.moves(pos)
                .into_iter()
                .map(|(m, w)| (m.to_string(), w))
                .collect()
        };
        assert_eq!(
            weights(&start),
            vec![("e2e4".into(), 2), ("g1f3".into(), 1), ("d2d4".into(), 1)]
        );
        // Equal weights keep the order of the encoded moves (g1f3 = 405 before d2d4 = 731).
        let after = |moves: &[&str]| {
            let mut p = start;
            for m in moves {
                let mv = p.parse_uci(m).expect("legal");
                p.play(mv);
            }
            p
        };
        assert_eq!(weights(&after(&["e2e4", "e7e5"])), vec![("g1f3".into(), 1)]);
        assert_eq!(weights(&after(&["g1f3", "e7e5"])), vec![("e2e4".into(), 1)]);
        // The start, after 1. e4, 1. e4 e5, 1. Nf3 and 1. Nf3 e5.
        assert_eq!(b.positions(), 5);
    }
}
