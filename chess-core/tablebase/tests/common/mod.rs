//! Helpers shared by the integration tests: one generated tablebase per test binary, positions
//! built from squares, board symmetries and the committed python-chess data.
//!
//! Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use che_tablebase::{Material, Outcome, Tablebase};
use chess_core::{Colour, Position};
use std::sync::OnceLock;

/// The four tables, generated once per test binary (a few seconds, mostly KBNK).
pub fn tablebase() -> &'static Tablebase {
    static TABLES: OnceLock<Tablebase> = OnceLock::new();
    TABLES.get_or_init(Tablebase::generate)
}

/// The upper-case letters of the strong side's men.
pub fn men_letters(material: Material) -> &'static [char] {
    match material {
        Material::Kqk => &['Q'],
        Material::Krk => &['R'],
        Material::Kbnk => &['B', 'N'],
        Material::Kpk => &['P'],
    }
}

/// A FEN for White's king on `squares[0]` and men on `squares[2..]` (letters from
/// [`men_letters`]), Black's king on `squares[1]`; no castling, no en passant.
pub fn fen(material: Material, squares: &[u8], white_to_move: bool) -> String {
    let mut board = ['.'; 64];
    let mut place = |sq: u8, piece: char| {
        let cell = &mut board[usize::from(sq)];
        if *cell != '.' {
            return false;
        }
        *cell = piece;
        true
    };
    let mut ok = place(squares[0], 'K') && place(squares[1], 'k');
    for (&sq, &letter) in squares[2..].iter().zip(men_letters(material)) {
        ok &= place(sq, letter);
    }
    if !ok {
        return String::new();
    }
    let mut text = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                '.' => empty += 1,
                piece => {
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                        empty = 0;
                    }
                    text.push(piece);
                }
            }
        }
        if empty > 0 {
            text.push_str(&empty.to_string());
        }
        if rank > 0 {
            text.push('/');
        }
    }
    text.push_str(if white_to_move {
        " w - - 0 1"
    } else {
        " b - - 0 1"
    });
    text
}

/// The legal position for these squares, or `None` when chess-core rejects it (overlapping
/// men, kings in contact, the side not to move in check, a pawn on a back rank).
pub fn position(material: Material, squares: &[u8], white_to_move: bool) -> Option<Position> {
    let text = fen(material, squares, white_to_move);
    if text.is_empty() {
        return None;
    }
    Position::from_fen(&text).ok()
}

/// Calls `visit` with every legal position of `material` (strong side White, both sides to move,
/// the whole board), together with its squares.
pub fn for_each_position(material: Material, mut visit: impl FnMut(&[u8], &Position)) {
    let men = men_letters(material).len();
    let total = 64usize.pow(2 + men as u32);
    for code in 0..total {
        let mut squares = [0u8; 4];
        let mut rest = code;
        for slot in squares.iter_mut().take(2 + men) {
            *slot = (rest % 64) as u8;
            rest /= 64;
        }
        for white_to_move in [true, false] {
            if let Some(pos) = position(material, &squares[..2 + men], white_to_move) {
                visit(&squares[..2 + men], &pos);
            }
        }
    }
}

/// The eight symmetries of the board as square maps (identity first).
pub const SYMMETRIES: [fn(u8) -> u8; 8] = [
    |s| s,
    |s| s ^ 7,
    |s| s ^ 56,
    |s| s ^ 63,
    |s| ((s & 7) << 3) | (s >> 3),
    |s| (((s & 7) << 3) | (s >> 3)) ^ 7,
    |s| (((s & 7) << 3) | (s >> 3)) ^ 56,
    |s| (((s & 7) << 3) | (s >> 3)) ^ 63,
];

/// The colour-swapped mirror of `pos`: ranks flipped, colours and side to move swapped.
pub fn colour_mirror(pos: &Position) -> Position {
    let fen = pos.to_fen();
    let mut fields = fen.split_whitespace();
    let placement: Vec<String> = fields
        .next()
        .unwrap_or_default()
        .split('/')
        .rev()
        .map(|rank| {
            rank.chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect()
        })
        .collect();
    let side = if pos.side_to_move() == Colour::White {
        "b"
    } else {
        "w"
    };
    Position::from_fen(&format!("{} {side} - - 0 1", placement.join("/")))
        .expect("the mirror of a legal position is legal")
}

/// One line of `samples.txt`: a position and the value python-chess found for it.
pub struct Sample {
    /// The position as written.
    pub fen: String,
    /// The value for the side to move.
    pub expected: Expected,
}

/// A value from the python-chess data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Exactly this outcome.
    Exact(Outcome),
    /// No mate (either way) within this many plies: a draw or a longer mate.
    NoMateWithin(u8),
}

/// The committed python-chess samples.
pub fn samples() -> Vec<Sample> {
    include_str!("../data/samples.txt")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (fen, value) = line.split_once(';').expect("FEN;VALUE");
            let number = |text: &str| text.parse::<u8>().expect("a ply count");
            let expected = match value.split_at(1) {
                ("W", plies) => Expected::Exact(Outcome::Win {
                    plies: number(plies),
                }),
                ("L", plies) => Expected::Exact(Outcome::Loss {
                    plies: number(plies),
                }),
                ("D", "") => Expected::Exact(Outcome::Draw),
                (">", plies) => Expected::NoMateWithin(number(plies)),
                _ => panic!("bad value {value}"),
            };
            Sample {
                fen: fen.to_owned(),
                expected,
            }
        })
        .collect()
}

/// A small deterministic generator (xorshift64*), so sampled tests are reproducible.
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// The next value below `bound`.
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % bound
    }

    /// A random legal position of `material` (strong side White).
    pub fn position(&mut self, material: Material) -> Position {
        let men = men_letters(material).len();
        loop {
            let squares: Vec<u8> = (0..2 + men).map(|_| self.below(64) as u8).collect();
            if let Some(pos) = position(material, &squares, self.below(2) == 0) {
                return pos;
            }
        }
    }
}
