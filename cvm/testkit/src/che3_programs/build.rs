//! Drawing a Che program from bytes, so that it compiles: every name is
//! fresh and valid, every name used is defined before, patterns are named
//! where patterns belong and advices where advices belong, and every
//! function gets arguments of the kinds its row in `che3::functions` asks
//! for.

use super::tree::{Call, Entry, Item, Layout, Program, Step, Test};
use crate::programs::Bytes;
use che3::functions::{Role, Shape, FUNCTIONS};
use cvm_chess::lit::LitKind;
use std::collections::HashSet;

/// Names that clash with Che++ words, so that the converter must escape
/// them (each is used at most once per program).
const AWKWARD_NAMES: &[&str] = &[
    "begin",
    "end",
    "End",
    "main",
    "list",
    "w",
    "b",
    "centre",
    "KingPos",
    "GoodSqrs",
    "IsEndgame",
    "STRONGMVBONUS",
    "PieceSqrs",
    "che.begin",
    "che.01",
    "01",
    ".x",
    "..",
    "a.",
    "CHE.TRUE",
];

const MAX_ITEMS: u32 = 14;

#[derive(Copy, Clone)]
enum Kind {
    Pattern,
    Advice,
}

/// The state of one program being drawn.
pub(crate) struct Builder<'a, 'b> {
    bytes: &'a mut Bytes<'b>,
    used: HashSet<String>,
    patterns: Vec<String>,
    advices: Vec<String>,
    counter: u32,
}

impl<'a, 'b> Builder<'a, 'b> {
    pub(crate) fn new(bytes: &'a mut Bytes<'b>) -> Builder<'a, 'b> {
        Builder {
            bytes,
            used: HashSet::new(),
            patterns: Vec::new(),
            advices: Vec::new(),
            counter: 0,
        }
    }

    /// One of the patterns or advices defined so far (there must be one).
    fn one_of(&mut self, kind: Kind) -> String {
        let names = match kind {
            Kind::Pattern => &self.patterns,
            Kind::Advice => &self.advices,
        };
        let i = self.bytes.below(names.len() as u32) as usize;
        names.get(i).cloned().unwrap_or_default()
    }

    /// A fresh, valid name.
    fn name(&mut self, prefix: &str) -> String {
        self.counter += 1;
        let n = self.counter;
        let candidate = match self.bytes.below(8) {
            0 => self.bytes.pick(AWKWARD_NAMES).to_string(),
            1 => format!("{prefix}.{n:02}"),
            2 => format!("{n}{prefix}"),
            3 => format!("w{}.{n}", prefix.to_uppercase()),
            _ => format!("{prefix}{n}"),
        };
        let name = if !self.used.contains(&candidate) && che3::check::is_valid_name(&candidate) {
            candidate
        } else {
            format!("{prefix}{n}")
        };
        self.used.insert(name.clone());
        name
    }

    pub(crate) fn program(&mut self) -> (Program, Vec<Layout>) {
        let mut program = Program::default();
        let mut layouts = Vec::new();
        let items = 1 + self.bytes.below(MAX_ITEMS);
        for _ in 0..items {
            if self.bytes.exhausted() && !program.items.is_empty() {
                break;
            }
            let item = match self.bytes.below(10) {
                0 => Item::Comment(format!("note {}", self.bytes.below(100))),
                1..=3 => self.pattern(),
                4..=6 => self.advice(),
                _ => self.rule(),
            };
            program.items.push(item);
            layouts.push(Layout {
                break_every: if self.bytes.chance(20) {
                    1 + self.bytes.below(3) as u8
                } else {
                    0
                },
                trailing_comment: self.bytes.chance(15),
            });
        }
        // Every program runs something when it can.
        if !self.advices.is_empty() {
            let name = self.name("r");
            let patterns = self.patterns.iter().take(1).cloned().collect();
            program.items.push(Item::Rule {
                name,
                patterns: if self.bytes.chance(50) {
                    patterns
                } else {
                    Vec::new()
                },
                advices: self.advices.clone(),
            });
            layouts.push(Layout::default());
        }
        (program, layouts)
    }

    fn entry(&mut self) -> Entry {
        let negated = self.bytes.chance(30);
        let test = if !self.patterns.is_empty() && self.bytes.chance(25) {
            Test::Name(self.one_of(Kind::Pattern))
        } else {
            Test::Call(self.call(Role::Pattern))
        };
        Entry { negated, test }
    }

    fn pattern(&mut self) -> Item {
        let name = self.name("p");
        let n_and = self.bytes.below(4);
        let and = (0..n_and).map(|_| self.entry()).collect();
        let n_or = if self.bytes.chance(40) {
            self.bytes.below(4)
        } else {
            0
        };
        let or = (0..n_or).map(|_| self.entry()).collect();
        self.patterns.push(name.clone());
        Item::Pattern { name, and, or }
    }

    fn advice(&mut self) -> Item {
        let name = self.name("adv");
        let n = self.bytes.below(5);
        let mut steps = Vec::new();
        for _ in 0..n {
            let step = match self.bytes.below(8) {
                0 | 1 if !self.patterns.is_empty() => Step::Guard {
                    negated: self.bytes.chance(30),
                    name: self.one_of(Kind::Pattern),
                },
                2 if !self.advices.is_empty() => Step::Name(self.one_of(Kind::Advice)),
                _ => Step::Call(self.call(Role::Advice)),
            };
            steps.push(step);
        }
        self.advices.push(name.clone());
        Item::Advice { name, steps }
    }

    fn rule(&mut self) -> Item {
        let name = self.name("r");
        let n_pat = if self.patterns.is_empty() {
            0
        } else {
            self.bytes.below(4)
        };
        let patterns = (0..n_pat).map(|_| self.one_of(Kind::Pattern)).collect();
        let n_adv = if self.advices.is_empty() {
            0
        } else {
            self.bytes.below(4)
        };
        let advices = (0..n_adv).map(|_| self.one_of(Kind::Advice)).collect();
        Item::Rule {
            name,
            patterns,
            advices,
        }
    }

    fn call(&mut self, role: Role) -> Call {
        let rows: Vec<_> = FUNCTIONS.iter().filter(|f| f.role == role).collect();
        let row = rows[self.bytes.below(rows.len() as u32) as usize];
        let list_len = |b: &mut Self| {
            if b.bytes.chance(4) {
                0
            } else {
                1 + b.bytes.below(4)
            }
        };
        let args = match row.shape {
            Shape::Nothing => Vec::new(),
            Shape::Side => vec![self.literal(LitKind::BoardSide, row.name)],
            Shape::List(kind) => {
                let n = list_len(self);
                (0..n).map(|_| self.literal(kind, row.name)).collect()
            }
            Shape::PieceList(kind) => {
                let mut args = vec![self.literal(LitKind::Piece, row.name)];
                let n = list_len(self);
                args.extend((0..n).map(|_| self.literal(kind, row.name)));
                args
            }
        };
        Call {
            name: row.name,
            args,
        }
    }

    /// A Che literal of `kind`, shaped for the function a little (pawn
    /// moves for the pawn-move functions, lines for `gooddiags`).
    fn literal(&mut self, kind: LitKind, function: &str) -> String {
        let square = |b: &mut Self| -> (u32, u32) { (b.bytes.below(8), b.bytes.below(8)) };
        let name = |(f, r): (u32, u32)| format!("{}{}", (b'a' + f as u8) as char, r + 1);
        match kind {
            LitKind::Square => {
                if function.contains("pwn") || function == "pwnrams" {
                    let f = self.bytes.below(8);
                    name((f, 1 + self.bytes.below(6)))
                } else {
                    name(square(self))
                }
            }
            LitKind::Move => {
                let from = square(self);
                let to = match (function, self.bytes.below(3)) {
                    ("wpwnmvs", 0 | 1) => (from.0, (from.1 + 1).min(7)),
                    ("bpwnmvs", 0 | 1) => (from.0, from.1.saturating_sub(1)),
                    ("gooddiags", 0 | 1) => {
                        let d = 1 + self.bytes.below(7);
                        ((from.0 + d).min(7), (from.1 + d).min(7))
                    }
                    _ => square(self),
                };
                format!("{}{}", name(from), name(to))
            }
            LitKind::Piece => {
                let colour = if self.bytes.chance(50) { 'w' } else { 'b' };
                let kind = self.bytes.pick(&['P', 'N', 'B', 'R', 'Q', 'K']);
                format!("{colour}{kind}")
            }
            LitKind::Column => format!("{}line", (b'a' + self.bytes.below(8) as u8) as char),
            LitKind::Row => format!("row{}", 1 + self.bytes.below(8)),
            LitKind::BoardSide => self.bytes.pick(&["kside", "qside"]).to_string(),
            _ => self.bytes.pick(&["lsqr", "dsqr"]).to_string(),
        }
    }
}
