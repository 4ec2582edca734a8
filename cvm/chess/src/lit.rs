//! How Che++ chess literals are represented as CVM integers.
//!
//! Che++ programs must not depend on these numbers (the original document
//! warns that `NxtSqr(h1)` is `a2` whatever the numbering), but the compiler,
//! the intrinsics, the disassembler and embedders must agree on them, so
//! they are defined here, once.
//!
//! | literal | value |
//! |---------|-------|
//! | square `a1`..`h8` | `rank * 8 + file` (`a1` = 0, `h1` = 7, `a2` = 8, `h8` = 63) |
//! | rank wildcard `.1`..`.8` | 64 + rank |
//! | file wildcard `a.`..`h.` | 72 + file |
//! | whole board `..` | 80 |
//! | invalid square (`CHE_INVSQR`) | -1 |
//! | move `FROMTO` | 0x10000 + from * 128 + to (from/to are square values, wildcards allowed) |
//! | colour `w`, `b`, `?` | 0, 1, 2 |
//! | piece `CK` | 0x200 + colour * 8 + kind; kinds P N B R Q K = 0..5, `O` (officer: N B R Q) = 6, `?` (any) = 7 |
//! | compoperator `=`, `<>`, `<`, `<=`, `>`, `>=` | 0x300 + 0..5 |
//! | column `aline`..`hline`, `.line` | 0x310 + file, 0x318 |
//! | row `row1`..`row8` | 0x320 + rank |
//! | board side `kside qside centre kkside qqside` | 0x330..0x334 |
//! | square colour `lsqr dsqr ?sqr` | 0x338..0x33A |

/// The invalid square, `CHE_INVSQR`.
pub const INVALID_SQUARE: i32 = -1;
/// First rank-wildcard square value (`.1`).
pub const RANK_WILDCARD: i32 = 64;
/// First file-wildcard square value (`a.`).
pub const FILE_WILDCARD: i32 = 72;
/// The whole-board square value (`..`).
pub const ALL_SQUARES: i32 = 80;
/// Base of move values.
pub const MOVE_BASE: i32 = 0x10000;
/// Base of piece values.
pub const PIECE_BASE: i32 = 0x200;
/// Base of compoperator values.
pub const COMPOP_BASE: i32 = 0x300;
/// Base of column values (`aline`); `.line` is `COLUMN_BASE + 8`.
pub const COLUMN_BASE: i32 = 0x310;
/// Base of row values (`row1`).
pub const ROW_BASE: i32 = 0x320;
/// Base of board-side values (`kside`).
pub const SIDE_BASE: i32 = 0x330;
/// Base of square-colour values (`lsqr`).
pub const SQCOLOR_BASE: i32 = 0x338;

/// Colour values.
pub const WHITE: i32 = 0;
/// Black.
pub const BLACK: i32 = 1;
/// Either colour (`?`).
pub const ANY_COLOUR: i32 = 2;

/// Piece kinds, as used in piece values and the board view.
pub const KIND_NAMES: [char; 8] = ['P', 'N', 'B', 'R', 'Q', 'K', 'O', '?'];
/// Officer kind (N, B, R or Q).
pub const OFFICER: i32 = 6;
/// Any kind.
pub const ANY_KIND: i32 = 7;

/// Board sides, in value order.
pub const SIDE_NAMES: [&str; 5] = ["kside", "qside", "centre", "kkside", "qqside"];
/// Square colours, in value order.
pub const SQCOLOR_NAMES: [&str; 3] = ["lsqr", "dsqr", "?sqr"];
/// Compoperators, in value order.
pub const COMPOP_NAMES: [&str; 6] = ["=", "<>", "<", "<=", ">", ">="];

/// The kinds of chess literal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LitKind {
    /// A square, possibly with wildcards.
    Square,
    /// A move, possibly with wildcards.
    Move,
    /// A colour.
    Colour,
    /// A piece, possibly with wildcards.
    Piece,
    /// A compoperator.
    CompOp,
    /// A column (file) or `.line`.
    Column,
    /// A row (rank).
    Row,
    /// A board side.
    BoardSide,
    /// A square colour.
    SquareColour,
}

impl LitKind {
    /// The Che++ name of the kind, for diagnostics.
    pub fn name(self) -> &'static str {
        match self {
            LitKind::Square => "square",
            LitKind::Move => "move",
            LitKind::Colour => "colour",
            LitKind::Piece => "piece",
            LitKind::CompOp => "compoperator",
            LitKind::Column => "column",
            LitKind::Row => "row",
            LitKind::BoardSide => "board side",
            LitKind::SquareColour => "square colour",
        }
    }
}

/// The value of a square literal (`e4`, `a.`, `.4`, `..`), if `s` is one.
pub fn parse_square(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let file = match b[0] {
        b'a'..=b'h' => Some(i32::from(b[0] - b'a')),
        b'.' => None,
        _ => return None,
    };
    let rank = match b[1] {
        b'1'..=b'8' => Some(i32::from(b[1] - b'1')),
        b'.' => None,
        _ => return None,
    };
    Some(match (file, rank) {
        (Some(f), Some(r)) => r * 8 + f,
        (None, Some(r)) => RANK_WILDCARD + r,
        (Some(f), None) => FILE_WILDCARD + f,
        (None, None) => ALL_SQUARES,
    })
}

/// The Che++ spelling of a square value, if it is one.
pub fn square_name(v: i32) -> Option<String> {
    let files = "abcdefgh";
    let f = |i: i32| files.chars().nth(i as usize);
    match v {
        0..=63 => Some(format!("{}{}", f(v % 8)?, v / 8 + 1)),
        64..=71 => Some(format!(".{}", v - RANK_WILDCARD + 1)),
        72..=79 => Some(format!("{}.", f(v - FILE_WILDCARD)?)),
        80 => Some("..".to_string()),
        _ => None,
    }
}

/// The value of a move literal (`e2e4`, `..e4`, `e2e.`), if `s` is one.
pub fn parse_move(s: &str) -> Option<i32> {
    if s.len() != 4 || !s.is_ascii() {
        return None;
    }
    let from = parse_square(&s[..2])?;
    let to = parse_square(&s[2..])?;
    Some(make_move(from, to))
}

/// The move value from two square values.
pub fn make_move(from: i32, to: i32) -> i32 {
    MOVE_BASE + from * 128 + to
}

/// The from- and to-square values of a move value.
pub fn split_move(v: i32) -> Option<(i32, i32)> {
    let rel = v.checked_sub(MOVE_BASE)?;
    if !(0..81 * 128).contains(&rel) {
        return None;
    }
    let (from, to) = (rel / 128, rel % 128);
    (to <= ALL_SQUARES).then_some((from, to))
}

/// The value of a colour literal.
pub fn parse_colour(s: &str) -> Option<i32> {
    match s {
        "w" => Some(WHITE),
        "b" => Some(BLACK),
        "?" => Some(ANY_COLOUR),
        _ => None,
    }
}

/// The value of a piece literal (`wP`, `?N`, `?O`, `w?`, `??`).
pub fn parse_piece(s: &str) -> Option<i32> {
    let mut chars = s.chars();
    let colour = parse_colour(&chars.next()?.to_string())?;
    let k = chars.next()?;
    let kind = KIND_NAMES.iter().position(|&n| n == k)? as i32;
    if chars.next().is_some() {
        return None;
    }
    Some(make_piece(colour, kind))
}

/// The piece value from a colour value and a kind number.
pub fn make_piece(colour: i32, kind: i32) -> i32 {
    PIECE_BASE + colour * 8 + kind
}

/// The colour value and kind number of a piece value.
pub fn split_piece(v: i32) -> Option<(i32, i32)> {
    let rel = v.checked_sub(PIECE_BASE)?;
    (0..24).contains(&rel).then_some((rel / 8, rel % 8))
}

/// Parses any chess literal that is a single word (not a compoperator),
/// returning its kind and value. Squares win over nothing else: the
/// spellings of the kinds do not overlap.
pub fn parse_word(s: &str) -> Option<(LitKind, i32)> {
    if let Some(v) = parse_square(s) {
        return Some((LitKind::Square, v));
    }
    if let Some(v) = parse_move(s) {
        return Some((LitKind::Move, v));
    }
    if let Some(v) = parse_colour(s) {
        return Some((LitKind::Colour, v));
    }
    if let Some(v) = parse_piece(s) {
        return Some((LitKind::Piece, v));
    }
    if let Some(f) = s.strip_suffix("line") {
        let v = match f {
            "." => 8,
            _ if f.len() == 1 && ("a".."i").contains(&f) => i32::from(f.as_bytes()[0] - b'a'),
            _ => return None,
        };
        return Some((LitKind::Column, COLUMN_BASE + v));
    }
    if let Some(r) = s.strip_prefix("row") {
        if r.len() == 1 && ("1".."9").contains(&r) {
            return Some((LitKind::Row, ROW_BASE + i32::from(r.as_bytes()[0] - b'1')));
        }
        return None;
    }
    if let Some(i) = SIDE_NAMES.iter().position(|&n| n == s) {
        return Some((LitKind::BoardSide, SIDE_BASE + i as i32));
    }
    if let Some(i) = SQCOLOR_NAMES.iter().position(|&n| n == s) {
        return Some((LitKind::SquareColour, SQCOLOR_BASE + i as i32));
    }
    None
}

/// The value of a compoperator.
pub fn parse_compop(s: &str) -> Option<i32> {
    COMPOP_NAMES
        .iter()
        .position(|&n| n == s)
        .map(|i| COMPOP_BASE + i as i32)
}

/// The 64-bit set of squares a square value stands for (empty for values
/// that are not squares). Bit `n` is square `n` (a1 = bit 0).
pub fn square_mask(v: i32) -> u64 {
    match v {
        0..=63 => 1u64 << v,
        64..=71 => 0xFFu64 << (8 * (v - RANK_WILDCARD)),
        72..=79 => 0x0101_0101_0101_0101u64 << (v - FILE_WILDCARD),
        80 => u64::MAX,
        _ => 0,
    }
}

/// `NxtSqr`: the next square (`h1` -> `a2`, `a.` -> `b.`, `.7` -> `.8`), or
/// [`INVALID_SQUARE`] at the end of a sequence and for `..` and non-squares.
pub fn next_square(v: i32) -> i32 {
    match v {
        0..=62 | 64..=70 | 72..=78 => v + 1,
        _ => INVALID_SQUARE,
    }
}

/// `PrvSqr`: the previous square, with the same rules as [`next_square`].
pub fn prev_square(v: i32) -> i32 {
    match v {
        1..=63 | 65..=71 | 73..=79 => v - 1,
        _ => INVALID_SQUARE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_follow_the_document() {
        let sq = |s| parse_square(s).unwrap();
        assert_eq!(next_square(sq("h1")), sq("a2"));
        assert_eq!(next_square(sq("a.")), sq("b."));
        assert_eq!(next_square(sq(".7")), sq(".8"));
        for s in ["..", "h8", "h.", ".8"] {
            assert_eq!(next_square(sq(s)), INVALID_SQUARE, "{s}");
        }
        assert_eq!(prev_square(sq("a2")), sq("h1"));
        assert_eq!(prev_square(sq("a1")), INVALID_SQUARE);
        assert_eq!(parse_square("A1"), None);
        for v in 0..=80 {
            assert_eq!(parse_square(&square_name(v).unwrap()), Some(v));
        }
    }

    #[test]
    fn masks() {
        assert_eq!(square_mask(parse_square("e4").unwrap()), 1 << 28);
        assert_eq!(square_mask(parse_square("a.").unwrap()).count_ones(), 8);
        assert_eq!(square_mask(parse_square(".4").unwrap()), 0xFF << 24);
        assert_eq!(square_mask(ALL_SQUARES), u64::MAX);
        assert_eq!(square_mask(-1), 0);
    }

    #[test]
    fn literals_do_not_overlap() {
        let words = [
            "e4", "a.", "e2e4", "..e4", "w", "?", "wP", "?O", "??", "aline", ".line", "row3",
            "kside", "?sqr",
        ];
        let kinds: Vec<_> = words.iter().map(|w| parse_word(w).unwrap().0).collect();
        assert_eq!(kinds[0], LitKind::Square);
        assert_eq!(kinds[2], LitKind::Move);
        assert_eq!(kinds[4], LitKind::Colour);
        assert_eq!(kinds[6], LitKind::Piece);
        assert_eq!(kinds[9], LitKind::Column);
        assert_eq!(kinds[11], LitKind::Row);
        assert_eq!(kinds[12], LitKind::BoardSide);
        assert_eq!(kinds[13], LitKind::SquareColour);
        assert_eq!(split_piece(parse_piece("bQ").unwrap()), Some((BLACK, 4)));
        assert_eq!(split_move(parse_move("e2e4").unwrap()), Some((12, 28)));
        assert_eq!(parse_word("A1"), None);
        assert_eq!(parse_word("row9"), None);
        assert_eq!(parse_word("iline"), None);
    }
}
