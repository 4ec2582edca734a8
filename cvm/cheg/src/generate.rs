//! Random CHEG programs for property tests and fuzzing: instruction lines
//! whose arguments suit their positions (a variable of a fitting kind, a
//! literal, a tag, a condition, an ordering), so that most of them compile
//! and their runs reach every runtime service.

use crate::table::{Instr, Need, Slot, PIECE_SLOTS};

const READS: &[&str] = &[
    "A",
    "B",
    "C",
    "X",
    "\"1",
    "\"-2",
    "\"3",
    "\"T",
    "\"F",
    "\"()",
    "\"(1,(2))",
    "LM",
    "WK",
    "WP",
    "BK",
    "DEPTH",
    "PG",
];
const INTS: &[&str] = &["A", "B", "X", "\"1", "\"-2", "\"3", "DEPTH"];
const LOGICALS: &[&str] = &["A", "\"T", "\"F"];
const SETS: &[&str] = &["A", "B", "LM", "PG", "\"()", "\"(1,(2))"];
const PIECES: &[&str] = &["A", "WK", "WP", "BK", "X"];
const MOVES: &[&str] = &["A", "X"];
const WRITES: &[&str] = &["A", "B", "C", "SIDE"];
const CONDS: &[&str] = &[
    "", "PAWN", "#CAPT", "ODD", "DEFD", "T", "EMPTY", "KING", "SAFE", "RWK=", "OPP", "FAR",
    "#DEFD", "CHECK",
];
const ORDERS: &[&str] = &["", "DEEP", "#DEEP"];

/// A stream of choices read from bytes (zero when they run out).
struct Choices<'a> {
    bytes: &'a [u8],
}

impl Choices<'_> {
    fn next(&mut self) -> usize {
        match self.bytes.split_first() {
            Some((&b, rest)) => {
                self.bytes = rest;
                usize::from(b)
            }
            None => 0,
        }
    }

    fn pick<'p>(&mut self, pool: &[&'p str]) -> &'p str {
        pool[self.next() % pool.len()]
    }
}

/// A program for the given bytes: `ENTRY K&P,K`, up to 24 instruction
/// lines (the first two tagged `L0:` and `L1:`), `END`. The same bytes
/// always give the same program.
pub fn program(bytes: &[u8]) -> String {
    let mut c = Choices { bytes };
    let lines = 1 + c.next() % 24;
    let mut text = String::from("ENTRY K&P,K\n");
    for n in 0..lines {
        let instr = Instr::ALL[c.next() % Instr::ALL.len()];
        let mut args = Vec::new();
        for slot in instr.slots() {
            args.push(match slot {
                Slot::Optional | Slot::Read(Need::Any) => c.pick(READS),
                Slot::Read(Need::Int) => c.pick(INTS),
                Slot::Read(Need::Logical) => c.pick(LOGICALS),
                Slot::Read(Need::Set) => c.pick(SETS),
                Slot::Read(Need::Square | Need::Piece) => c.pick(PIECES),
                Slot::Read(Need::Move) => c.pick(MOVES),
                Slot::Write | Slot::Update(_) => c.pick(WRITES),
                Slot::Tag => c.pick(&["L0", "L1"]),
                Slot::Cond => c.pick(CONDS),
                Slot::Order => c.pick(ORDERS),
            });
        }
        let tag = if n < 2 {
            format!("L{n}:")
        } else {
            String::new()
        };
        text.push_str(&format!("{tag}\t{} {}\n", instr.name(), args.join(",")));
    }
    text.push_str("END\n");
    text
}

/// The names of the piece variables, for generators that want them all.
pub fn piece_variable_names() -> Vec<String> {
    ["W", "B"]
        .iter()
        .flat_map(|side| PIECE_SLOTS.iter().map(move |slot| format!("{side}{slot}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_deterministic_and_mostly_compile() {
        assert_eq!(program(&[1, 2, 3]), program(&[1, 2, 3]));
        let mut compiled = 0;
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..100 {
            let bytes: Vec<u8> = (0..64)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            if crate::compile_str("g.cheg", &program(&bytes)).is_ok() {
                compiled += 1;
            }
        }
        assert!(compiled >= 60, "{compiled} of 100 compile");
        assert_eq!(piece_variable_names().len(), 32);
    }
}
