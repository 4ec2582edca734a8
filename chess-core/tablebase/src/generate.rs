//! Retrograde analysis: solving a whole ending backwards from its mates.
//!
//! 1. Every index is decoded; illegal and non-canonical ones are marked invalid. Checkmates are
//!    losses in 0 plies and form the first frontier; stalemates stay draws. In KPK, a strong-side
//!    position with a promotion into a lost KQK/KRK position (the lone king to move, mated in `d`)
//!    is *seeded* as a win in `d + 1`, to be applied when the rounds reach that distance.
//! 2. Round `n` takes the positions decided at distance `n` (plus the seeds of distance `n` not yet
//!    decided) and walks their un-moves. A parent of a loss in `n` is a win in `n + 1`. A parent of
//!    a win in `n` is a loss in `n + 1` if *every* move of the parent reaches an already decided
//!    win for the opponent; that is checked by generating the parent's moves (a "verification")
//!    rather than by counting, because symmetry can fold two different moves onto one index.
//!    Rounds run in increasing distance, so the first value given to a position is its exact
//!    distance to mate.
//! 3. When no frontier and no seeds are left, every undecided position is a draw.

use crate::layout;
use crate::material::Material;
use crate::men::Men;
use crate::moves::{self, Child};
use crate::outcome::{encode_plies, is_win, Outcome, DRAW, INVALID, MAX_PLIES};
use chess_core::PieceKind;

/// The value bytes of every index of `material`'s table.
///
/// `promoted` gives the value, for the lone king to move, of a position reached by promoting to
/// the given piece (only called for KPK).
pub(crate) fn solve(material: Material, promoted: impl Fn(PieceKind, &Men) -> Outcome) -> Vec<u8> {
    let size = layout::size(material);
    let mut values = vec![DRAW; size];
    let mut current: Vec<u32> = Vec::new();
    let mut seeds: Vec<Vec<u32>> = Vec::new();
    for (index, value) in values.iter_mut().enumerate() {
        let men = layout::decode(material, index);
        if !moves::is_legal(material, &men) || layout::canonical(material, &men) != men {
            *value = INVALID;
            continue;
        }
        if !moves::has_move(material, &men) {
            if moves::in_check(material, &men) {
                *value = encode_plies(0);
                current.push(index as u32);
            }
            continue;
        }
        if material.has_pawn() && men.strong_to_move {
            if let Some(plies) = best_promotion(material, &men, &promoted) {
                let slot = usize::from(plies);
                if seeds.len() <= slot {
                    seeds.resize_with(slot + 1, Vec::new);
                }
                seeds[slot].push(index as u32);
            }
        }
    }
    // The round in which an index last failed verification (MAX_PLIES + 1: never).
    let mut failed = vec![MAX_PLIES + 1; size];
    let mut distance: u8 = 0;
    loop {
        if let Some(seeded) = seeds.get(usize::from(distance)) {
            for &index in seeded {
                if values[index as usize] == DRAW {
                    values[index as usize] = encode_plies(distance);
                    current.push(index);
                }
            }
        }
        if current.is_empty() && usize::from(distance) >= seeds.len() {
            break;
        }
        // The encoding holds distances up to MAX_PLIES; these endings end far below it.
        assert!(
            distance < MAX_PLIES,
            "{material}: distance to mate overflows"
        );
        let parent_value = encode_plies(distance + 1);
        let mut next = Vec::new();
        for &index in &current {
            let men = layout::decode(material, index as usize);
            moves::parents(material, &men, |parent| {
                let parent = layout::canonical(material, &parent);
                let parent_index = layout::encode(material, &parent);
                if values[parent_index] != DRAW || failed[parent_index] == distance {
                    return;
                }
                // Within one round the set of decided wins does not change (this round decides
                // only distance + 1, the other parity), so a failed verification stays failed.
                if distance % 2 == 0 || all_moves_reach_wins(material, &parent, &values) {
                    values[parent_index] = parent_value;
                    next.push(parent_index as u32);
                } else {
                    failed[parent_index] = distance;
                }
            });
        }
        // Walking the frontier in index order keeps neighbouring parents in the cache.
        next.sort_unstable();
        current = next;
        distance += 1;
    }
    values
}

/// The fastest win a promotion gives the strong side to move, in plies, if any.
fn best_promotion(
    material: Material,
    men: &Men,
    promoted: &impl Fn(PieceKind, &Men) -> Outcome,
) -> Option<u8> {
    let mut best: Option<u8> = None;
    moves::children(material, men, |child| {
        if let Child::Promotion { kind, men } = child {
            if let Outcome::Loss { plies } = promoted(kind, &men) {
                let win = plies + 1;
                best = Some(best.map_or(win, |b| b.min(win)));
            }
        }
        true
    });
    best
}

/// True if every legal move of `men` leads to a position already known to be won by the opponent
/// (captures and promotions never do: they are draws, or wins for the mover).
fn all_moves_reach_wins(material: Material, men: &Men, values: &[u8]) -> bool {
    moves::children(material, men, |child| match child {
        Child::Same(next) => is_win(values[layout::index_of(material, &next)]),
        Child::Capture | Child::Promotion { .. } => false,
    })
}
