//! Chess values for generated programs: squares (with wildcards), moves,
//! colours, pieces, compoperators, columns, rows, board sides and square
//! colours, in the encodings of [`cvm_chess::lit`], and their Che++
//! spellings.
//!
//! Pattern and advice intrinsics only do real work when their arguments
//! are values of the right kind, so the generators mostly draw those; now
//! and then they draw a value of no kind at all, because the intrinsics
//! (and the JIT's inlined forms of them) must treat such values alike too.

use super::Bytes;
use cvm_chess::lit::{self, LitKind};

/// A value of `kind`: usually a valid literal value, rarely (about one in
/// sixteen) something that is not a value of the kind.
pub(crate) fn value(bytes: &mut Bytes<'_>, kind: LitKind) -> i32 {
    if bytes.below(16) == 0 {
        return bytes.pick(&[-1, -2, 81, 1000, 0x1FF, 0x218, 0x306, 0x319, 0x335, 0x33B]);
    }
    valid(bytes, kind)
}

/// A valid value of `kind` (every value has a Che++ spelling).
pub(crate) fn valid(bytes: &mut Bytes<'_>, kind: LitKind) -> i32 {
    match kind {
        LitKind::Square => square(bytes),
        LitKind::Move => {
            // Mostly concrete moves, sometimes one wildcard half, rarely two.
            let from = square(bytes);
            let to = square(bytes);
            lit::make_move(from, to)
        }
        LitKind::Colour => bytes.below(3) as i32,
        LitKind::Piece => lit::make_piece(bytes.below(3) as i32, bytes.below(8) as i32),
        LitKind::CompOp => lit::COMPOP_BASE + bytes.below(6) as i32,
        LitKind::Column => lit::COLUMN_BASE + bytes.below(9) as i32,
        LitKind::Row => lit::ROW_BASE + bytes.below(8) as i32,
        LitKind::BoardSide => lit::SIDE_BASE + bytes.below(5) as i32,
        LitKind::SquareColour => lit::SQCOLOR_BASE + bytes.below(3) as i32,
    }
}

fn square(bytes: &mut Bytes<'_>) -> i32 {
    match bytes.below(8) {
        0 => lit::RANK_WILDCARD + bytes.below(8) as i32,
        1 => lit::FILE_WILDCARD + bytes.below(8) as i32,
        2 if bytes.chance(20) => lit::ALL_SQUARES,
        _ => bytes.below(64) as i32,
    }
}

/// The Che++ spelling of a valid value of `kind`, if it has one.
pub(crate) fn literal_name(kind: LitKind, v: i32) -> Option<String> {
    let index = |base: i32, n: usize| {
        usize::try_from(v.checked_sub(base)?)
            .ok()
            .filter(|&i| i < n)
    };
    match kind {
        LitKind::Square => lit::square_name(v),
        LitKind::Move => {
            let (from, to) = lit::split_move(v)?;
            Some(format!(
                "{}{}",
                lit::square_name(from)?,
                lit::square_name(to)?
            ))
        }
        LitKind::Colour => ["w", "b", "?"]
            .get(usize::try_from(v).ok()?)
            .map(|s| s.to_string()),
        LitKind::Piece => {
            let (colour, k) = lit::split_piece(v)?;
            let c = ["w", "b", "?"].get(usize::try_from(colour).ok()?)?;
            Some(format!(
                "{c}{}",
                lit::KIND_NAMES.get(usize::try_from(k).ok()?)?
            ))
        }
        LitKind::CompOp => index(lit::COMPOP_BASE, 6).map(|i| lit::COMPOP_NAMES[i].to_string()),
        LitKind::Column => index(lit::COLUMN_BASE, 9).map(|i| {
            let f = if i == 8 {
                '.'
            } else {
                (b'a' + i as u8) as char
            };
            format!("{f}line")
        }),
        LitKind::Row => index(lit::ROW_BASE, 8).map(|i| format!("row{}", i + 1)),
        LitKind::BoardSide => index(lit::SIDE_BASE, 5).map(|i| lit::SIDE_NAMES[i].to_string()),
        LitKind::SquareColour => {
            index(lit::SQCOLOR_BASE, 3).map(|i| lit::SQCOLOR_NAMES[i].to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_valid_value_is_spelled_as_the_compiler_reads_it() {
        let kinds = [
            LitKind::Square,
            LitKind::Move,
            LitKind::Colour,
            LitKind::Piece,
            LitKind::CompOp,
            LitKind::Column,
            LitKind::Row,
            LitKind::BoardSide,
            LitKind::SquareColour,
        ];
        for seed in 0..200u64 {
            let data = super::super::seed_bytes(seed, 64);
            let mut bytes = Bytes::new(&data);
            for kind in kinds {
                let v = valid(&mut bytes, kind);
                let name = literal_name(kind, v).unwrap_or_else(|| panic!("{kind:?} {v}"));
                let parsed = if kind == LitKind::CompOp {
                    lit::parse_compop(&name).map(|v| (LitKind::CompOp, v))
                } else {
                    lit::parse_word(&name)
                };
                assert_eq!(parsed, Some((kind, v)), "{name}");
            }
        }
    }
}
